package sqlgen

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// SortKey is one ORDER BY key as an output column.
type SortKey struct {
	Col  int
	Desc bool
}

// Spec says how two results of one query must agree.
type Spec struct {
	// Ordered: the query has an ORDER BY.
	Ordered bool
	// Keys are the ORDER BY keys as output columns. With Keys the
	// comparison is tie-aware: the sequence of key values must be the same
	// and the rows of each key group the same multiset, except in the
	// groups a LIMIT/OFFSET may cut (the first when Offset > 0, the last
	// when Limit cut the result), where any rows of the group are right.
	// Ordered without Keys compares row by row.
	Keys []SortKey
	// Limit (-1 = none) and Offset of the query.
	Limit, Offset int
	// Superset, for LIMIT without ORDER BY: the unlimited result; got must
	// have as many rows as want, all of them rows of Superset.
	Superset *Result
	// StrictNames compares every column name (case-insensitively); by
	// default only names that are plain identifiers in want (aliases and
	// column references, not expression texts an engine makes up).
	StrictNames bool
	// RelTol is the relative tolerance of floats (0 = DefaultRelTol).
	RelTol float64
}

var plainName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// Compare checks got (ours) against want (the oracle) under spec and
// describes the first difference (nil = they agree).
func Compare(got, want Result, spec Spec) error {
	tol := spec.RelTol
	if tol == 0 {
		tol = DefaultRelTol
	}
	if len(got.Columns) != len(want.Columns) {
		return fmt.Errorf("%d columns %v, want %d %v", len(got.Columns), got.Columns, len(want.Columns), want.Columns)
	}
	for i := range got.Columns {
		if (spec.StrictNames || plainName.MatchString(want.Columns[i])) && !strings.EqualFold(got.Columns[i], want.Columns[i]) {
			return fmt.Errorf("column %d is named %q, want %q", i, got.Columns[i], want.Columns[i])
		}
	}
	if len(got.Rows) != len(want.Rows) {
		return fmt.Errorf("%d rows, want %d", len(got.Rows), len(want.Rows))
	}
	for i, r := range got.Rows {
		if len(r) != len(got.Columns) {
			return fmt.Errorf("row %d has %d values for %d columns", i, len(r), len(got.Columns))
		}
	}
	switch {
	case spec.Superset != nil:
		if missing, ok := subMultiset(got.Rows, spec.Superset.Rows, tol); !ok {
			return fmt.Errorf("row %s is not a row of the unlimited result (%d rows)", missing, len(spec.Superset.Rows))
		}
		return nil
	case !spec.Ordered:
		return multisetEqual(got.Rows, want.Rows, tol, "")
	case len(spec.Keys) == 0:
		for i := range got.Rows {
			if !RowsEqual(got.Rows[i], want.Rows[i], tol) {
				return fmt.Errorf("row %d\n  got  %s\n  want %s", i, got.Rows[i], want.Rows[i])
			}
		}
		return nil
	}
	for _, k := range spec.Keys {
		if k.Col < 0 || k.Col >= len(got.Columns) {
			return fmt.Errorf("sort key column %d out of range", k.Col)
		}
	}
	if err := checkSorted(got.Rows, spec.Keys); err != nil {
		return err
	}
	keysEqual := func(a, b Row) bool {
		for _, k := range spec.Keys {
			if !Equal(a[k.Col], b[k.Col], tol) {
				return false
			}
		}
		return true
	}
	for i := range got.Rows {
		if !keysEqual(got.Rows[i], want.Rows[i]) {
			return fmt.Errorf("row %d: sort keys differ\n  got  %s\n  want %s", i, got.Rows[i], want.Rows[i])
		}
	}
	n := len(want.Rows)
	cut := spec.Limit >= 0 && n == spec.Limit // the LIMIT may have cut the last group
	for a := 0; a < n; {
		b := a + 1
		for b < n && keysEqual(want.Rows[b], want.Rows[a]) {
			b++
		}
		partial := (a == 0 && spec.Offset > 0) || (b == n && cut)
		if !partial {
			if err := multisetEqual(got.Rows[a:b], want.Rows[a:b], tol, fmt.Sprintf("rows %d..%d (one sort key) ", a, b-1)); err != nil {
				return err
			}
		}
		a = b
	}
	return nil
}

// checkSorted verifies rows are ordered by keys (NULLs are skipped: their
// place is checked against the oracle's key sequence).
func checkSorted(rows []Row, keys []SortKey) error {
	for i := 1; i < len(rows); i++ {
		for _, k := range keys {
			a, b := rows[i-1][k.Col], rows[i][k.Col]
			if a.Kind == Null || b.Kind == Null {
				break
			}
			c := cmpCanon(a, b)
			if k.Desc {
				c = -c
			}
			if c < 0 {
				break
			}
			if c > 0 {
				return fmt.Errorf("rows %d and %d are not in ORDER BY order\n  %s\n  %s", i-1, i, rows[i-1], rows[i])
			}
		}
	}
	return nil
}

func sortedCopy(rows []Row) []Row {
	s := slices.Clone(rows)
	slices.SortStableFunc(s, cmpRowCanon)
	return s
}

func multisetEqual(got, want []Row, tol float64, what string) error {
	g, w := sortedCopy(got), sortedCopy(want)
	for i := range g {
		if !RowsEqual(g[i], w[i], tol) {
			// Name a row that is really missing on one side.
			if m, ok := subMultiset(g, w, tol); !ok {
				return fmt.Errorf("%sresults differ: got row %s is not in the expected rows", what, m)
			}
			if m, ok := subMultiset(w, g, tol); !ok {
				return fmt.Errorf("%sresults differ: expected row %s is missing", what, m)
			}
			return fmt.Errorf("%sresults differ (sorted row %d)\n  got  %s\n  want %s", what, i, g[i], w[i])
		}
	}
	return nil
}

// subMultiset reports whether every row of a is matched by a distinct row
// of b, else a row of a without a match.
func subMultiset(a, b []Row, tol float64) (Row, bool) {
	sa, sb := sortedCopy(a), sortedCopy(b)
	used := make([]bool, len(sb))
	j := 0
	for _, x := range sa {
		for j < len(sb) && (used[j] || cmpRowCanon(sb[j], x) < 0) {
			j++
		}
		found := false
		// Rows equal within the tolerance sort next to each other.
		for k := j; k < len(sb) && k < j+64; k++ {
			if !used[k] && RowsEqual(x, sb[k], tol) {
				used[k], found = true, true
				break
			}
			if cmpRowCanon(sb[k], x) > 0 {
				break
			}
		}
		if !found {
			return x, false
		}
	}
	return nil, true
}

package clickbench

import (
	_ "embed"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/paimon-flightsql/paimon-flightsql/integration/sqlgen"
)

//go:embed queries.sql
var queriesSQL string

// SortKey is one ORDER BY key as an output column.
type SortKey struct {
	Col  int // output column (0-based)
	Desc bool
}

// Query is one ClickBench query with what a result comparison needs to
// know about its ORDER BY and LIMIT (derived from the text).
type Query struct {
	N   int    // 1..43 (the standard numbering; Q1 is SELECT COUNT(*) FROM hits)
	SQL string // the DuckDB text, without the trailing ';'
	// Ordered: the query has an ORDER BY.
	Ordered bool
	// Keys are the ORDER BY keys as output columns; nil when some key is
	// not an output column (then only an exact ordered comparison is
	// possible: the generated data makes those keys unique).
	Keys []SortKey
	// Limit, Offset: LIMIT/OFFSET values (Limit -1 = none).
	Limit, Offset int
}

// Name is "qNN" (q01..q43).
func (q Query) Name() string { return fmt.Sprintf("q%02d", q.N) }

// Queries returns the 43 queries of queries.sql in order.
func Queries() []Query {
	var out []Query
	for _, line := range strings.Split(queriesSQL, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "--") {
			continue
		}
		q, err := parseQuery(len(out)+1, strings.TrimSuffix(line, ";"))
		if err != nil {
			panic(err)
		}
		out = append(out, q)
	}
	if len(out) != 43 {
		panic(fmt.Sprintf("clickbench: queries.sql has %d queries, want 43", len(out)))
	}
	return out
}

var (
	limitRe = regexp.MustCompile(`(?i)\s+LIMIT\s+(\d+)(?:\s+OFFSET\s+(\d+))?\s*$`)
	aliasRe = regexp.MustCompile(`(?i)^(.*\S)\s+AS\s+([A-Za-z_][A-Za-z0-9_]*)$`)
	dirRe   = regexp.MustCompile(`(?i)^(.*\S)\s+(ASC|DESC)$`)
)

// parseQuery derives the ORDER BY/LIMIT metadata of a query of the
// ClickBench shape (SELECT list FROM ... [ORDER BY ...] [LIMIT n [OFFSET m]]).
func parseQuery(n int, sql string) (Query, error) {
	q := Query{N: n, SQL: sql, Limit: -1}
	rest := sql
	if m := limitRe.FindStringSubmatchIndex(rest); m != nil {
		q.Limit, _ = strconv.Atoi(rest[m[2]:m[3]])
		if m[4] >= 0 {
			q.Offset, _ = strconv.Atoi(rest[m[4]:m[5]])
		}
		rest = rest[:m[0]]
	}
	ob := lastTopLevel(rest, " ORDER BY ")
	if ob < 0 {
		return q, nil
	}
	q.Ordered = true
	order := splitTopLevel(rest[ob+len(" ORDER BY "):])
	if !strings.HasPrefix(strings.ToUpper(rest), "SELECT ") {
		return q, fmt.Errorf("clickbench: q%d does not start with SELECT", n)
	}
	from := firstTopLevel(rest, " FROM ")
	if from < 0 {
		return q, fmt.Errorf("clickbench: q%d has no FROM", n)
	}
	items := splitTopLevel(rest[len("SELECT "):from])
	var exprs, aliases []string
	if len(items) == 1 && strings.TrimSpace(items[0]) == "*" {
		exprs = ColumnNames()
		aliases = exprs
	} else {
		for _, it := range items {
			e, a := it, ""
			if m := aliasRe.FindStringSubmatch(it); m != nil {
				e, a = m[1], m[2]
			}
			exprs = append(exprs, e)
			aliases = append(aliases, a)
		}
	}
	for _, o := range order {
		k := SortKey{Col: -1}
		if m := dirRe.FindStringSubmatch(o); m != nil {
			o, k.Desc = m[1], strings.EqualFold(m[2], "DESC")
		}
		no := norm(o)
		for i := range exprs {
			if norm(aliases[i]) == no || norm(exprs[i]) == no {
				k.Col = i
				break
			}
		}
		if k.Col < 0 {
			q.Keys = nil
			return q, nil
		}
		q.Keys = append(q.Keys, k)
	}
	return q, nil
}

func norm(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), "")) }

// scanTopLevel calls fn at every byte offset outside parentheses and
// quotes; fn returns false to stop.
func scanTopLevel(s string, fn func(i int) bool) {
	depth, quote := 0, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote:
			if c == '\'' {
				quote = false
			}
			continue
		case c == '\'':
			quote = true
			continue
		case c == '(':
			depth++
		case c == ')':
			depth--
		}
		if depth == 0 && !fn(i) {
			return
		}
	}
}

func firstTopLevel(s, word string) int {
	at := -1
	scanTopLevel(s, func(i int) bool {
		if strings.HasPrefix(strings.ToUpper(s[i:]), word) {
			at = i
			return false
		}
		return true
	})
	return at
}

func lastTopLevel(s, word string) int {
	at := -1
	scanTopLevel(s, func(i int) bool {
		if strings.HasPrefix(strings.ToUpper(s[i:]), word) {
			at = i
		}
		return true
	})
	return at
}

func splitTopLevel(s string) []string {
	var out []string
	start := 0
	scanTopLevel(s, func(i int) bool {
		if s[i] == ',' {
			out = append(out, strings.TrimSpace(s[start:i]))
			start = i + 1
		}
		return true
	})
	return append(out, strings.TrimSpace(s[start:]))
}

// Spec is how an engine's result of q must agree with the oracle's:
// tie-aware on the ORDER BY keys when they are output columns, row by row
// when a key is not (EventTime: unique in the generated data). For LIMIT
// without ORDER BY, set Superset to the result of UnlimitedSQL.
func (q Query) Spec() sqlgen.Spec {
	spec := sqlgen.Spec{Ordered: q.Ordered, Limit: q.Limit, Offset: q.Offset}
	for _, k := range q.Keys {
		spec.Keys = append(spec.Keys, sqlgen.SortKey{Col: k.Col, Desc: k.Desc})
	}
	return spec
}

// NeedsSuperset reports a LIMIT without ORDER BY (any rows are right).
func (q Query) NeedsSuperset() bool { return q.Limit >= 0 && !q.Ordered }

// UnlimitedSQL is q without its LIMIT/OFFSET.
func (q Query) UnlimitedSQL() string { return limitRe.ReplaceAllString(q.SQL, "") }

package predicate

import (
	"bytes"
	"math"
	"math/big"
	"strings"
)

// ColumnStats are the statistics of one column over a set of rows (a
// manifest, a data file or a row group). Min and Max are literals of the
// column's current type (see Literal), nil when unknown. String bounds may be
// truncated: Min is then a prefix of the true minimum and Max an upper bound
// of the true maximum. NullCount is -1 when unknown.
type ColumnStats struct {
	Min, Max  Literal
	NullCount int64
}

// Stats gives the statistics MayMatch tests a predicate against.
type Stats interface {
	// RowCount is the number of rows described, or -1 when unknown.
	RowCount() int64
	// Column returns the statistics of the column with this field id (name as
	// a fallback for callers keyed by name); false when there are none.
	Column(fieldID int, name string) (ColumnStats, bool)
}

// MapStats is a Stats keyed by field id.
type MapStats struct {
	Rows    int64 // -1 when unknown
	Columns map[int]ColumnStats
}

// RowCount implements Stats.
func (s MapStats) RowCount() int64 { return s.Rows }

// Column implements Stats.
func (s MapStats) Column(fieldID int, _ string) (ColumnStats, bool) {
	c, ok := s.Columns[fieldID]
	return c, ok
}

// MayMatch reports whether some row described by s may satisfy p. It returns
// false only when no row can (so the rows can be skipped): missing statistics,
// NaN bounds and unknown types all count as "may match". NULLs never satisfy
// a comparison (SQL three-valued logic), and NOT is pushed to the leaves.
func MayMatch(p Predicate, s Stats) bool {
	if s == nil {
		return true
	}
	if s.RowCount() == 0 {
		return false
	}
	return mayMatch(p, s, false)
}

func mayMatch(p Predicate, s Stats, neg bool) bool {
	switch x := p.(type) {
	case nil:
		return true
	case Const:
		return bool(x) != neg
	case *Not:
		return mayMatch(x.Child, s, !neg)
	case *And:
		if neg { // NOT (a AND b) = NOT a OR NOT b
			return anyMay(x.Children, s, true)
		}
		return allMay(x.Children, s, false)
	case *Or:
		if neg {
			return allMay(x.Children, s, true)
		}
		return anyMay(x.Children, s, false)
	case *Leaf:
		op := x.Op
		if neg {
			if op == StartsWith {
				// NOT LIKE 'p%': only excluded when all values are NULL.
				cs, ok := s.Column(x.FieldID, x.Column)
				return !(ok && allNull(cs, s.RowCount()))
			}
			op = op.Negate()
		}
		cs, ok := s.Column(x.FieldID, x.Column)
		if !ok {
			return true
		}
		return leafMayMatch(op, x.Literals, cs, s.RowCount())
	}
	return true
}

func allMay(ps []Predicate, s Stats, neg bool) bool {
	for _, c := range ps {
		if !mayMatch(c, s, neg) {
			return false
		}
	}
	return true
}

func anyMay(ps []Predicate, s Stats, neg bool) bool {
	for _, c := range ps {
		if mayMatch(c, s, neg) {
			return true
		}
	}
	return false
}

func allNull(cs ColumnStats, rows int64) bool {
	return rows >= 0 && cs.NullCount >= 0 && cs.NullCount >= rows
}

func leafMayMatch(op Op, lits []Literal, cs ColumnStats, rows int64) bool {
	switch op {
	case IsNull:
		return cs.NullCount != 0
	case IsNotNull:
		return !allNull(cs, rows)
	}
	if allNull(cs, rows) {
		return false // every comparison with NULL is unknown
	}
	if cs.Min == nil || cs.Max == nil || isNaN(cs.Min) || isNaN(cs.Max) {
		return true
	}
	if _, isFloat := cs.Min.(float64); isFloat {
		// Parquet writers leave NaN out of min/max, and NaN sorts above
		// every number (Java order), so bounds cannot exclude rows for
		// operators a NaN row may satisfy.
		switch op {
		case Gt, GtEq, NotEq, NotIn:
			return true
		}
	}
	switch op {
	case Eq:
		if len(lits) != 1 {
			return true
		}
		return inRange(lits[0], cs)
	case NotEq:
		if len(lits) != 1 {
			return true
		}
		return !singleValueIn(cs, lits)
	case Lt:
		c, ok := cmpLit(cs.Min, lits)
		return !ok || c < 0
	case LtEq:
		c, ok := cmpLit(cs.Min, lits)
		return !ok || c <= 0
	case Gt:
		c, ok := cmpLit(cs.Max, lits)
		return !ok || c > 0
	case GtEq:
		c, ok := cmpLit(cs.Max, lits)
		return !ok || c >= 0
	case In:
		for _, l := range lits {
			if inRange(l, cs) {
				return true
			}
		}
		return false
	case NotIn:
		return !singleValueIn(cs, lits)
	case StartsWith:
		if len(lits) != 1 {
			return true
		}
		return startsWithMay(lits[0], cs)
	}
	return true
}

func cmpLit(v Literal, lits []Literal) (int, bool) {
	if len(lits) != 1 {
		return 0, false
	}
	return CompareLiterals(v, lits[0])
}

// inRange reports whether l may lie in [Min, Max].
func inRange(l Literal, cs ColumnStats) bool {
	if isNaN(l) {
		return true
	}
	c1, ok1 := CompareLiterals(l, cs.Min)
	c2, ok2 := CompareLiterals(l, cs.Max)
	if !ok1 || !ok2 {
		return true
	}
	return c1 >= 0 && c2 <= 0
}

// singleValueIn reports whether every non-null value is known to equal one
// of lits (Min == Max == some literal). Truncated string bounds never have
// Min == Max (Max is incremented), so this is safe for them.
func singleValueIn(cs ColumnStats, lits []Literal) bool {
	c, ok := CompareLiterals(cs.Min, cs.Max)
	if !ok || c != 0 {
		return false
	}
	for _, l := range lits {
		if isNaN(l) {
			continue
		}
		if c, ok := CompareLiterals(cs.Min, l); ok && c == 0 {
			return true
		}
	}
	return false
}

func startsWithMay(lit Literal, cs ColumnStats) bool {
	prefix, ok := prefixBytes(lit)
	if !ok {
		return true
	}
	mn, ok1 := prefixBytes(cs.Min)
	mx, ok2 := prefixBytes(cs.Max)
	if !ok1 || !ok2 {
		return true
	}
	// Values starting with prefix are >= prefix: none when max < prefix.
	if bytes.Compare(mx, prefix) < 0 {
		return false
	}
	// All values are >= min; if min > prefix without starting with it, min
	// (and every value) sorts after every string starting with prefix.
	if bytes.Compare(mn, prefix) > 0 && !bytes.HasPrefix(mn, prefix) {
		return false
	}
	return true
}

func prefixBytes(v Literal) ([]byte, bool) {
	switch x := v.(type) {
	case string:
		return []byte(x), true
	case []byte:
		return x, true
	}
	return nil, false
}

func isNaN(v Literal) bool {
	switch x := v.(type) {
	case float64:
		return math.IsNaN(x)
	case float32:
		return math.IsNaN(float64(x))
	}
	return false
}

// CompareLiterals orders two literals of compatible kinds (integers and
// floats compare numerically with each other; decimals compare exactly with
// decimals and integers; strings and byte slices bytewise, which is code
// point order for UTF-8). Floats use Java's total order (NaN greatest).
// ok is false when the kinds are not comparable.
func CompareLiterals(a, b Literal) (c int, ok bool) {
	switch x := a.(type) {
	case bool:
		y, ok := b.(bool)
		if !ok {
			return 0, false
		}
		switch {
		case x == y:
			return 0, true
		case !x:
			return -1, true
		}
		return 1, true
	case int64:
		switch y := b.(type) {
		case int64:
			return cmpOrdered(x, y), true
		case float64:
			return CompareFloat(float64(x), y), true
		case Decimal:
			return Decimal{Unscaled: big.NewInt(x)}.Cmp(y), true
		}
	case float64:
		switch y := b.(type) {
		case float64:
			return CompareFloat(x, y), true
		case int64:
			return CompareFloat(x, float64(y)), true
		case Decimal:
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return CompareFloat(x, 0), true
			}
			r := new(big.Rat)
			r.SetFloat64(x)
			return r.Cmp(decimalRat(y)), true
		}
	case Decimal:
		switch y := b.(type) {
		case Decimal:
			return x.Cmp(y), true
		case int64:
			return x.Cmp(Decimal{Unscaled: big.NewInt(y)}), true
		case float64:
			c, ok := CompareLiterals(y, x)
			return -c, ok
		}
	case string:
		switch y := b.(type) {
		case string:
			return strings.Compare(x, y), true
		case []byte:
			return bytes.Compare([]byte(x), y), true
		}
	case []byte:
		switch y := b.(type) {
		case []byte:
			return bytes.Compare(x, y), true
		case string:
			return bytes.Compare(x, []byte(y)), true
		}
	case Timestamp:
		if y, ok := b.(Timestamp); ok {
			return x.Cmp(y), true
		}
	}
	return 0, false
}

func decimalRat(d Decimal) *big.Rat {
	u := d.Unscaled
	if u == nil {
		u = new(big.Int)
	}
	return new(big.Rat).SetFrac(u, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(d.Scale)), nil))
}

func cmpOrdered[T int64 | int32 | uint64](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// CompareFloat is Java's Double.compare without the -0.0/0.0 distinction:
// NaN is greater than everything and equal to itself.
func CompareFloat(a, b float64) int {
	an, bn := math.IsNaN(a), math.IsNaN(b)
	switch {
	case an && bn:
		return 0
	case an:
		return 1
	case bn:
		return -1
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

package logical

import (
	"math"
	"sync"

	"github.com/apache/arrow-go/v18/arrow/scalar"

	"github.com/paimon-flightsql/paimon-flightsql/planner/exec"
	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

// Estimator guesses the number of rows a node returns.
type Estimator func(n Node) float64

// TableStats is what the cardinality model knows about base tables.
type TableStats interface {
	// Rows is the table's row count (from metadata).
	Rows(s *Scan) float64
	// Range is the smallest and largest value of the table's column col
	// (an index into s.Table.Schema()) when it is an integer or date
	// column with known bounds.
	Range(s *Scan, col int) (lo, hi int64, ok bool)
}

// RowsOnly is a TableStats that knows row counts only.
type RowsOnly func(*Scan) float64

// Rows implements TableStats.
func (f RowsOnly) Rows(s *Scan) float64 { return f(s) }

// Range implements TableStats: never known.
func (RowsOnly) Range(*Scan, int) (int64, int64, bool) { return 0, 0, false }

// Model estimates cardinalities (docs/design/planner.md, "Cardinality
// model"): a scan returns its table's rows times its filters'
// selectivity; an inner join |L|·|R| divided, per pair of joined tables,
// by the larger number of distinct values of the key (capped by the
// smaller table: a foreign key's values are among the primary key's); the
// number of distinct values of a column is min(table rows, max−min+1) when
// its range is known, else the table's rows.
//
// Estimates are memoized per node (nodes are immutable): a node's
// estimate may need its inputs' more than once (a join key computed by a
// projection over a join), which without the memo is exponential in the
// depth of the tree.
type Model struct {
	st   TableStats
	mu   sync.Mutex
	memo map[Node]float64
}

// NewModel returns the model over st.
func NewModel(st TableStats) *Model { return &Model{st: st, memo: map[Node]float64{}} }

// Rows estimates the rows n returns (at least 1).
func (m *Model) Rows(n Node) float64 {
	m.mu.Lock()
	v, ok := m.memo[n]
	m.mu.Unlock()
	if ok {
		return v
	}
	v = m.rows(n)
	m.mu.Lock()
	m.memo[n] = v
	m.mu.Unlock()
	return v
}

func (m *Model) rows(n Node) float64 {
	switch x := n.(type) {
	case *Scan:
		return max(m.st.Rows(x)*m.conjSel(x, x.Filters), 1)
	case *Filter:
		return max(m.Rows(x.Input)*m.conjSel(x.Input, conjuncts(x.Pred)), 1)
	case *Aggregate:
		if len(x.Groups) == 0 {
			return 1
		}
		return m.groups(x.Input, x.Groups)
	case *Distinct:
		sc := x.Input.Schema()
		keys := make([]vec.Expr, len(sc))
		for i := range sc {
			keys[i] = sc.Col(i)
		}
		return m.groups(x.Input, keys)
	case *Join:
		return m.joinRows(x)
	case *Limit:
		if x.Fetch >= 0 {
			return max(min(float64(x.Fetch), m.Rows(x.Input)), 1)
		}
		return m.Rows(x.Input)
	case *Sort:
		if x.Fetch >= 0 {
			return max(min(float64(x.Fetch), m.Rows(x.Input)), 1)
		}
		return m.Rows(x.Input)
	case *Values:
		return float64(len(x.Rows))
	case *MaxOneRow:
		return 1
	case *Unnest:
		return max(m.Rows(x.Input)*x.perRow(), 1)
	}
	v := 1.0
	for _, c := range n.Children() {
		v = max(v, m.Rows(c))
	}
	return v
}

// groups estimates the distinct combinations of keys over in's rows: the
// product of the keys' distinct counts (a key without a known range
// counts as a tenth of the rows), as many as rows drawn at random from
// that many values hit (Cardenas: d·(1−e^(−rows/d))).
func (m *Model) groups(in Node, keys []vec.Expr) float64 {
	rows := m.Rows(in)
	d := 1.0
	for _, g := range keys {
		c, ok := g.(*vec.Column)
		if !ok {
			d *= rows * 0.1
		} else if s, tc, ok := origin(in, c.Index); ok && m.hasRange(s, tc) {
			d *= m.ndv(in, c.Index)
		} else {
			d *= rows * 0.1
		}
		if d >= rows {
			break
		}
	}
	d = max(min(d, rows), 1)
	return max(d*(1-math.Exp(-rows/d)), 1)
}

func (m *Model) hasRange(s *Scan, col int) bool {
	_, _, ok := m.st.Range(s, col)
	return ok
}

func (m *Model) joinRows(j *Join) float64 {
	l, r := m.Rows(j.Left), m.Rows(j.Right)
	switch j.Type {
	case exec.MarkJoin:
		return l
	case exec.SemiJoin, exec.AntiJoin:
		s := m.semiSel(j, r)
		if j.Type == exec.AntiJoin {
			s = max(1-s, 0.1)
		}
		return max(l*s, 1)
	}
	in := max(l*r*m.condFactor(j, conjuncts(j.On)), 1)
	switch j.Type {
	case exec.LeftJoin:
		return max(in, l)
	case exec.RightJoin:
		return max(in, r)
	case exec.FullJoin:
		return max(in, l+r)
	}
	return in
}

// semiSel is the share of a semi join's left rows that have a match: the
// right side's distinct key values over the left's, for the first key.
func (m *Model) semiSel(j *Join, r float64) float64 {
	nl := len(j.Left.Schema())
	for _, c := range conjuncts(j.On) {
		lc, rc, ok := equiCols(c)
		if !ok {
			continue
		}
		if lc >= nl {
			lc, rc = rc, lc
		}
		if lc >= nl || rc < nl {
			continue
		}
		dr := min(m.ndv(j.Right, rc-nl), r)
		return min(dr/m.ndv(j.Left, lc), 1)
	}
	return 0.5
}

// condFactor is the selectivity of conds over the concatenation of a
// join's inputs (n's schema, whose column origins are resolved through
// n): equalities of two columns from different tables grouped by the
// pair of tables — each pair divides by the product of its keys'
// distinct counts, capped by the smaller table (a composite key is no
// more selective than a unique one) — other conditions by their
// selectivity.
func (m *Model) condFactor(n Node, conds []vec.Expr) float64 {
	type pair struct{ a, b *Scan }
	type keys struct{ d, cap float64 }
	pairs := map[pair]*keys{}
	var order []pair
	f := 1.0
	for _, c := range conds {
		a, b, ok := equiCols(c)
		if !ok {
			f *= m.sel(n, c)
			continue
		}
		sa, _, oka := origin(n, a)
		sb, _, okb := origin(n, b)
		na, nb := m.ndv(n, a), m.ndv(n, b)
		if !oka || !okb || sa == sb {
			f /= max(na, nb)
			continue
		}
		if uintptrLess(sb, sa) {
			sa, sb = sb, sa
		}
		p := pair{sa, sb}
		k := pairs[p]
		if k == nil {
			k = &keys{d: 1, cap: min(m.st.Rows(sa), m.st.Rows(sb))}
			pairs[p] = k
			order = append(order, p)
		}
		k.d *= max(na, nb)
	}
	for _, p := range order {
		k := pairs[p]
		f /= max(min(k.d, k.cap), 1)
	}
	return f
}

// uintptrLess orders two scans deterministically (by their position in
// a walk would be better; by name then alias is enough for a pair key).
func uintptrLess(a, b *Scan) bool {
	if a.Name != b.Name {
		return a.Name < b.Name
	}
	return a.Alias < b.Alias
}

// equiCols returns the two columns of a plain column = column equality.
func equiCols(e vec.Expr) (int, int, bool) {
	c, ok := e.(*vec.Compare)
	if !ok {
		return 0, 0, false
	}
	l, r, eq := c.Equality()
	if !eq {
		return 0, 0, false
	}
	lc, ok1 := l.(*vec.Column)
	rc, ok2 := r.(*vec.Column)
	if !ok1 || !ok2 {
		return 0, 0, false
	}
	return lc.Index, rc.Index, true
}

// origin follows column col of n down to the scan column it reads
// unchanged (through filters, projections of plain columns, joins and
// the group keys of aggregates).
func origin(n Node, col int) (*Scan, int, bool) {
	_, s, c := trace(n, col)
	return s, c, s != nil
}

// trace follows column col of n as far as it passes through unchanged:
// the scan and table column it reads, or (scan nil) the descendant of n
// (or n) that computes it.
func trace(n Node, col int) (Node, *Scan, int) {
	for {
		switch x := n.(type) {
		case *Scan:
			if col < 0 || col >= len(x.Columns) {
				return n, nil, 0
			}
			return n, x, x.Columns[col]
		case *Filter:
			n = x.Input
		case *Limit:
			n = x.Input
		case *Sort:
			n = x.Input
		case *Distinct:
			n = x.Input
		case *CTE:
			n = x.Input
		case *Project:
			if col < 0 || col >= len(x.Exprs) {
				return n, nil, 0
			}
			c, ok := x.Exprs[col].(*vec.Column)
			if !ok {
				return n, nil, 0
			}
			n, col = x.Input, c.Index
		case *Aggregate:
			if col < 0 || col >= len(x.Groups) || len(x.GroupingSets) > 0 {
				return n, nil, 0
			}
			c, ok := x.Groups[col].(*vec.Column)
			if !ok {
				return n, nil, 0
			}
			n, col = x.Input, c.Index
		case *Join:
			nl := len(x.Left.Schema())
			if col < nl {
				n = x.Left
			} else if x.Type == exec.SemiJoin || x.Type == exec.AntiJoin || x.Type == exec.MarkJoin {
				return n, nil, 0
			} else {
				n, col = x.Right, col-nl
			}
		default:
			return n, nil, 0
		}
	}
}

// ndv estimates the distinct values of column col of n: min(table rows,
// max−min+1) for a scan column with a known range, else the table's
// rows; for a computed column, the rows of the node computing it.
func (m *Model) ndv(n Node, col int) float64 {
	stop, s, tc := trace(n, col)
	if s == nil {
		if j, ok := stop.(*Join); ok && j == n {
			return m.Rows(j.Left) // a mark join's mark (never a key)
		}
		return m.Rows(stop)
	}
	rows := max(m.st.Rows(s), 1)
	if lo, hi, ok := m.st.Range(s, tc); ok && hi >= lo {
		return max(min(rows, float64(hi-lo)+1), 1)
	}
	return rows
}

// Selectivity guesses for what statistics do not answer.
const (
	selRange   = 0.3 // a range on a column without known bounds
	selEqGuess = 0.1 // equality on a column without a known range (at least 1/rows)
	selLike    = 0.2
	selNull    = 0.1
	selOther   = 0.3
	// a comparison of an aggregate's value with a constant (HAVING):
	// mostly a search for the few large groups
	selAggregate = 0.1
)

func isAggregate(n Node) bool {
	_, ok := n.(*Aggregate)
	return ok
}

// conjSel is the selectivity of a conjunction over n's columns: range
// comparisons of one column with constants are intersected (a BETWEEN is
// one range), the rest multiplied.
func (m *Model) conjSel(n Node, conds []vec.Expr) float64 {
	type bounds struct {
		lo, hi       int64
		hasLo, hasHi bool
		numeric      bool
	}
	ranges := map[int]*bounds{}
	var order []int
	f := 1.0
	for _, c := range conds {
		if l, ok := c.(*vec.Logic); ok && l.IsAnd() {
			f *= m.conjSel(n, l.Args)
			continue
		}
		col, op, lit, ok := colCompare(c)
		if !ok || (op != "<" && op != "<=" && op != ">" && op != ">=") {
			f *= m.sel(n, c)
			continue
		}
		if stop, _, _ := trace(n, col); isAggregate(stop) {
			f *= selAggregate
			continue
		}
		b := ranges[col]
		if b == nil {
			b = &bounds{numeric: true}
			ranges[col] = b
			order = append(order, col)
		}
		v, isInt := intScalar(lit)
		if !isInt {
			b.numeric = false
			continue
		}
		switch op {
		case "<":
			v--
			fallthrough
		case "<=":
			if !b.hasHi || v < b.hi {
				b.hi, b.hasHi = v, true
			}
		case ">":
			v++
			fallthrough
		case ">=":
			if !b.hasLo || v > b.lo {
				b.lo, b.hasLo = v, true
			}
		}
	}
	for _, col := range order {
		b := ranges[col]
		s, tc, ok := origin(n, col)
		lo, hi, known := int64(0), int64(0), false
		if ok {
			lo, hi, known = m.st.Range(s, tc)
		}
		if !b.numeric || !known || hi < lo {
			f *= selRange
			continue
		}
		a, z := lo, hi
		if b.hasLo {
			a = max(a, b.lo)
		}
		if b.hasHi {
			z = min(z, b.hi)
		}
		width := float64(hi-lo) + 1
		f *= min(max((float64(z-a)+1)/width, 1/width), 1)
	}
	return f
}

// sel is the selectivity of one predicate over n's columns.
func (m *Model) sel(n Node, e vec.Expr) float64 {
	switch x := e.(type) {
	case *vec.Logic:
		if x.IsAnd() {
			return m.conjSel(n, x.Args)
		}
		s := 0.0
		for _, a := range x.Args {
			s += m.sel(n, a)
		}
		return min(s, 1)
	case *vec.Not:
		return min(max(1-m.sel(n, x.E), 0.05), 1)
	case *vec.InList:
		c, ok := x.E.(*vec.Column)
		if !ok {
			return selOther
		}
		s := min(float64(len(x.List))*m.eqSel(n, c.Index), 1)
		if x.Negate {
			return max(1-s, 0.05)
		}
		return s
	case *vec.Like:
		return selLike
	case *vec.IsNull:
		return selNull
	case *vec.Compare:
		if a, b, ok := equiCols(x); ok {
			return 1 / max(m.ndv(n, a), m.ndv(n, b), 1)
		}
		col, op, _, ok := colCompare(x)
		if !ok {
			return selOther
		}
		if stop, _, _ := trace(n, col); isAggregate(stop) {
			return selAggregate // HAVING sum(x) > c
		}
		switch op {
		case "=", "<=>":
			return m.eqSel(n, col)
		case "<>", "is distinct from":
			return max(1-m.eqSel(n, col), 0.05)
		}
		return m.conjSel(n, []vec.Expr{x})
	}
	return selOther
}

// eqSel is the selectivity of column = constant: 1/ndv when the
// column's range is known, else a guess of at least one row.
func (m *Model) eqSel(n Node, col int) float64 {
	s, tc, ok := origin(n, col)
	if !ok {
		return selEqGuess
	}
	if _, _, known := m.st.Range(s, tc); known {
		return 1 / m.ndv(n, col)
	}
	return max(selEqGuess, 1/max(m.st.Rows(s), 1))
}

// colCompare takes apart column op constant (either way round).
func colCompare(e vec.Expr) (col int, op string, lit scalar.Scalar, ok bool) {
	c, isCmp := e.(*vec.Compare)
	if !isCmp {
		return 0, "", nil, false
	}
	op = c.Operator()
	l, r := c.L, c.R
	if cast, isCast := l.(*vec.Cast); isCast {
		l = cast.E
	}
	if cl, isCol := l.(*vec.Column); isCol {
		if lt, isLit := r.(*vec.Literal); isLit {
			return cl.Index, op, lt.Value, true
		}
	}
	if cast, isCast := r.(*vec.Cast); isCast {
		r = cast.E
	}
	if cr, isCol := r.(*vec.Column); isCol {
		if lt, isLit := l.(*vec.Literal); isLit {
			return cr.Index, flipOp(op), lt.Value, true
		}
	}
	return 0, "", nil, false
}

func flipOp(op string) string {
	switch op {
	case "<":
		return ">"
	case "<=":
		return ">="
	case ">":
		return "<"
	case ">=":
		return "<="
	}
	return op
}

// intScalar is the value of an integer or date constant (days since the
// epoch, as the statistics give dates).
func intScalar(s scalar.Scalar) (int64, bool) {
	if s == nil || !s.IsValid() {
		return 0, false
	}
	switch x := s.(type) {
	case *scalar.Int8:
		return int64(x.Value), true
	case *scalar.Int16:
		return int64(x.Value), true
	case *scalar.Int32:
		return int64(x.Value), true
	case *scalar.Int64:
		return x.Value, true
	case *scalar.Date32:
		return int64(x.Value), true
	}
	return 0, false
}

package logical

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/xwb1989/sqlparser"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/planner/exec"
	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

// Correlated scalar subqueries (see docs/design/planner.md, Binder):
//
//   - "key" decorrelation: every correlation conjunct is inner_column =
//     outer_expression. The inner columns become GROUP BY keys (or plain
//     extra outputs without an aggregate) and the subquery is LEFT JOINed
//     on them.
//   - "domain" decorrelation, for any other correlation (o.d < t.d, an
//     expression of inner columns, a conjunct over outer columns only):
//     D = DISTINCT the outer columns the correlation reads, taken from the
//     outer relation; the subquery's FROM becomes FROM ⋈ D on the
//     correlation, D's columns are its keys, and the outer relation is
//     LEFT JOINed with the result on outer columns <=> D's columns (NULL
//     safe: D holds NULLs as they are).
//
// In both, a subquery that may give several rows per key (no aggregate, or
// GROUP BY) is grouped again by the keys with COUNT(*) and ANY_VALUE; more
// than one row is the runtime error "more than one row returned by a
// subquery used as an expression" (PostgreSQL's), raised only for outer
// rows that meet such a key. An aggregate without GROUP BY gives over no
// rows what it gives over an empty input (COUNT 0, COUNT(*) + 1 = 1,
// COALESCE(SUM(x), 0) = 0, HAVING applied), computed from the select
// item with its aggregates replaced by their empty values
// (subqMode.empty) and used where the LEFT JOIN found no key.

// plainCorrEq reports whether p is inner_column = expression over outer
// columns only.
func plainCorrEq(p vec.Expr) bool {
	cmp, ok := p.(*vec.Compare)
	if !ok {
		return false
	}
	l, r, eq := cmp.Equality()
	if !eq {
		return false
	}
	if hasOuter(l) {
		l, r = r, l
	}
	_, isCol := l.(*vec.Column)
	return isCol && hasOuter(r) && len(vec.Columns(r)) == 0
}

// domainJoin joins the subquery's relation inner with D (the distinct
// outer columns preds read) on preds; it returns the join, D's columns in
// it (the subquery's keys) and the predicates for the outer join (outer
// column <=> key k, as innerRef k).
func (b *binder) domainJoin(sq *subqMode, inner Node, preds []vec.Expr, outerCols []int) (Node, []vec.Expr, []vec.Expr, error) {
	if sq.outerRel == nil || sq.outerRel.node == nil {
		return nil, nil, nil, unsupportedf("correlated scalar subquery here")
	}
	outer := sq.outerRel.node
	os := outer.Schema()
	var refs []*OuterRef
	pos := map[int]int{}
	for _, i := range outerCols {
		if _, seen := pos[i]; !seen && i < len(os) && i < len(sq.outer.fields) {
			pos[i] = len(refs)
			refs = append(refs, &OuterRef{Index: i, F: sq.outer.fields[i], Depth: 1})
		}
	}
	for _, p := range preds {
		vec.Walk(p, func(x vec.Expr) bool {
			if r, ok := x.(*OuterRef); ok {
				if _, seen := pos[r.Index]; !seen {
					if r.Index >= len(os) {
						return true
					}
					pos[r.Index] = len(refs)
					refs = append(refs, r)
				}
			}
			return true
		})
	}
	if len(refs) != len(pos) || len(refs) == 0 {
		return nil, nil, nil, unsupportedf("correlated scalar subquery (outer columns not found)")
	}
	exprs := make([]vec.Expr, len(refs))
	names := make([]string, len(refs))
	for k, r := range refs {
		exprs[k] = os.Col(r.Index)
		names[k] = "__d" + itoa(k)
	}
	d := &Distinct{Input: projectNode(outer, exprs, names, nil)}
	nIn := len(inner.Schema())
	ds := d.Schema()
	on := make([]vec.Expr, len(preds))
	for i, p := range preds {
		c, err := vec.Transform(p, func(x vec.Expr) (vec.Expr, error) {
			if r, ok := x.(*OuterRef); ok {
				k := pos[r.Index]
				return &vec.Column{Index: nIn + k, Name: ds[k].Name, T: ds[k].Type, Null: ds[k].Nullable}, nil
			}
			return x, nil
		})
		if err != nil {
			return nil, nil, nil, err
		}
		on[i] = c
	}
	var cond vec.Expr
	if len(on) > 0 {
		var err error
		if cond, err = andAll(on); err != nil {
			return nil, nil, nil, err
		}
	}
	j := &Join{Left: inner, Right: d, Type: exec.InnerJoin, On: cond}
	js := j.Schema()
	extra := make([]vec.Expr, len(refs))
	outPreds := make([]vec.Expr, len(refs))
	for k, r := range refs {
		extra[k] = js.Col(nIn + k)
		c, err := vec.NewCompare("<=>", r, &innerRef{idx: k, t: ds[k].Type, nul: ds[k].Nullable, s: ds[k].Name})
		if err != nil {
			return nil, nil, nil, err
		}
		outPreds[k] = c
	}
	sq.domainRefs = refs
	return j, extra, outPreds, nil
}

// corrLimit applies LIMIT/OFFSET (after ORDER BY keys) per correlation
// key to a correlated subquery's projection n (nOut visible columns, then
// nKeys key columns): ROW_NUMBER() OVER (PARTITION BY keys ORDER BY ...)
// kept in (offset, offset + limit].
func (b *binder) corrLimit(n Node, keys []exec.SortKey, lim *sqlparser.Limit, nOut, nKeys int) (Node, error) {
	fetch, off := int64(-1), int64(0)
	var err error
	if lim.Rowcount != nil {
		if fetch, err = b.constInt(lim.Rowcount, "LIMIT"); err != nil {
			return nil, err
		}
		if fetch < 0 {
			return nil, unsupportedf("LIMIT ? in a correlated subquery")
		}
	}
	if lim.Offset != nil {
		if off, err = b.constInt(lim.Offset, "OFFSET"); err != nil {
			return nil, err
		}
		if off < 0 {
			return nil, unsupportedf("OFFSET ? in a correlated subquery")
		}
	}
	s := n.Schema()
	part := make([]vec.Expr, nKeys)
	for k := range part {
		part[k] = s.Col(nOut + k)
	}
	w := &Window{Input: n, PartitionBy: part, OrderBy: keys, Funcs: []exec.WindowFunc{{Func: "ROW_NUMBER", Name: "__rn"}}}
	ws := w.Schema()
	rn := ws.Col(len(ws) - 1)
	var conds []vec.Expr
	if off > 0 {
		lo, err := vec.NumberLiteral(itoa(int(off)))
		if err != nil {
			return nil, err
		}
		c, err := vec.NewCompare(">", rn, lo)
		if err != nil {
			return nil, err
		}
		conds = append(conds, c)
	}
	if fetch >= 0 {
		hi, err := vec.NumberLiteral(itoa(int(off + fetch)))
		if err != nil {
			return nil, err
		}
		c, err := vec.NewCompare("<=", rn, hi)
		if err != nil {
			return nil, err
		}
		conds = append(conds, c)
	}
	var out Node = w
	if len(conds) > 0 {
		pred, err := andAll(conds)
		if err != nil {
			return nil, err
		}
		out = &Filter{Input: w, Pred: pred}
	}
	return trim(out, len(s)), nil
}

// emptyValue is e (over an Aggregate's output: nGroups group keys, then
// aggs) with every aggregate replaced by its value over no rows (COUNT:
// 0, others NULL) and group keys by NULL.
func emptyValue(e vec.Expr, nGroups int, aggs []exec.AggExpr, keyVals map[int]vec.Expr) (vec.Expr, error) {
	return vec.Transform(e, func(x vec.Expr) (vec.Expr, error) {
		c, ok := x.(*vec.Column)
		if !ok {
			return x, nil
		}
		if i := c.Index - nGroups; i >= 0 && i < len(aggs) {
			switch aggs[i].Func {
			case "COUNT", "COUNT_STAR":
				zero, err := vec.NumberLiteral("0")
				if err != nil {
					return nil, err
				}
				return vec.ImplicitCast(zero, c.T)
			}
		}
		if v, ok := keyVals[c.Index]; ok {
			return v, nil
		}
		return vec.NullLiteral(c.T), nil
	})
}

// outerColsOutsideWhere lists the outer columns (indexes in outer's
// fields) that names in sel's select list, GROUP BY, HAVING and ORDER BY
// (outside nested subqueries) resolve to, inner columns shadowing them. A
// name that is in fact a select alias may add a column D does not need;
// that only widens D.
func outerColsOutsideWhere(sel *sqlparser.Select, ob sqlparser.OrderBy, sc, outer *scope) []int {
	if outer == nil {
		return nil
	}
	var out []int
	seen := map[int]bool{}
	visit := func(n sqlparser.SQLNode) {
		_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
			switch x := n.(type) {
			case *sqlparser.Subquery:
				return false, nil
			case *sqlparser.ColName:
				qual, name := x.Qualifier.Name.String(), x.Name.String()
				if i, err := sc.resolve(qual, name); err != nil || i >= 0 {
					return true, nil
				}
				if i, err := outer.resolve(qual, name); err == nil && i >= 0 && !seen[i] {
					seen[i] = true
					out = append(out, i)
				}
			}
			return true, nil
		}, n)
	}
	visit(sel.SelectExprs)
	visit(sel.GroupBy)
	if sel.Having != nil {
		visit(sel.Having)
	}
	visit(ob)
	return out
}

// isNullLit reports whether e is a NULL literal.
func isNullLit(e vec.Expr) bool {
	l, ok := e.(*vec.Literal)
	return ok && !l.Value.IsValid()
}

// singleRowed wraps a correlated subquery plan n (visible column 0, then
// nKeys key columns) so it has one row per key: [ANY_VALUE(v), keys...,
// COUNT(*) AS __n].
func singleRowed(n Node, nKeys int) Node {
	s := n.Schema()
	groups := make([]vec.Expr, nKeys)
	gnames := make([]string, nKeys)
	for k := range groups {
		groups[k] = s.Col(1 + k)
		gnames[k] = s[1+k].Name
	}
	aggs := []exec.AggExpr{{Func: "ANY_VALUE", Args: []vec.Expr{s.Col(0)}}, {Func: "COUNT_STAR"}}
	as := make(Schema, 0, nKeys+2)
	for k := range groups {
		as = append(as, Field{Name: gnames[k], Type: s[1+k].Type, Nullable: s[1+k].Nullable, Hidden: true})
	}
	as = append(as, Field{Name: s[0].Name, Type: s[0].Type, Nullable: true}, Field{Name: "__n", Type: arrow.PrimitiveTypes.Int64, Hidden: true})
	a := &Aggregate{Input: n, Groups: groups, GroupNames: gnames, Aggs: aggs, S: as}
	exprs := []vec.Expr{as.Col(nKeys)}
	names := []string{s[0].Name}
	for k := 0; k < nKeys; k++ {
		exprs = append(exprs, as.Col(k))
		names = append(names, "__corr"+itoa(k))
	}
	exprs = append(exprs, as.Col(nKeys+1))
	names = append(names, "__n")
	return projectNode(a, exprs, names, nil)
}

// withPresent appends a TRUE column (__present) to n: NULL after the outer
// join means the subquery had no row for the outer row.
func withPresent(n Node) Node {
	s := n.Schema()
	exprs := make([]vec.Expr, 0, len(s)+1)
	names := make([]string, 0, len(s)+1)
	for i := range s {
		exprs = append(exprs, s.Col(i))
		names = append(names, s[i].Name)
	}
	exprs = append(exprs, vec.BoolLiteral(true))
	names = append(names, "__present")
	p := projectNode(n, exprs, names, nil)
	for i := range s {
		p.S[i].Hidden = s[i].Hidden
	}
	return p
}

// singleRow is V, failing when N (the number of subquery rows behind a
// value) is above 1 on any row.
type singleRow struct{ N, V vec.Expr }

func (e *singleRow) Type() arrow.DataType { return e.V.Type() }
func (e *singleRow) Nullable() bool       { return true }
func (e *singleRow) Children() []vec.Expr { return []vec.Expr{e.N, e.V} }
func (e *singleRow) WithChildren(ch []vec.Expr) vec.Expr {
	return &singleRow{N: ch[0], V: ch[1]}
}
func (e *singleRow) String() string { return "single_row(" + e.V.String() + ", " + e.N.String() + ")" }
func (e *singleRow) Eval(c *vec.Ctx, rb arrow.RecordBatch) (arrow.Array, error) {
	n, err := e.N.Eval(c, rb)
	if err != nil {
		return nil, err
	}
	defer n.Release()
	cnt, ok := n.(*array.Int64)
	if !ok {
		return nil, paimon.Errorf(catalog.ErrInvalid, "subquery row count is %s, not BIGINT", n.DataType())
	}
	for i := 0; i < cnt.Len(); i++ {
		if cnt.IsValid(i) && cnt.Value(i) > 1 {
			return nil, paimon.Errorf(catalog.ErrInvalid, "more than one row returned by a subquery used as an expression")
		}
	}
	return e.V.Eval(c, rb)
}

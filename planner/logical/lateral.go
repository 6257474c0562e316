package logical

import (
	"github.com/xwb1989/sqlparser"

	"github.com/paimon-flightsql/paimon-flightsql/planner/exec"
	"github.com/paimon-flightsql/paimon-flightsql/planner/parse"
	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

// LATERAL derived tables (docs/design/planner.md, "LATERAL"):
//
// `L, LATERAL (q) s`, `L CROSS JOIN LATERAL (q) s`, `L [INNER] JOIN
// LATERAL (q) s ON c` and `L LEFT JOIN LATERAL (q) s ON c` bind q as a
// correlated subquery whose outer relation is L, always with domain
// decorrelation: D = DISTINCT the columns of L that q reads (in WHERE or
// anywhere else in its select list, GROUP BY, HAVING, ORDER BY); q's FROM
// is joined with D on its correlation, its aggregates are grouped by D's
// columns, its ORDER BY ... LIMIT applies per D row (ROW_NUMBER), and L is
// joined with the result on L's columns <=> D's (NULL safe). Every row of
// q's result therefore belongs to exactly the L rows with those values,
// which is the nested-loop semantics.
//
// An aggregate without GROUP BY has one row per L row even over no rows:
// the join is a LEFT JOIN and each output column is CASE WHEN the row is
// missing THEN its value over no rows (COUNT 0, others NULL, outer
// columns their L value) ELSE the value END; an ON condition then filters
// (inner) or picks the values or NULLs (LEFT). With HAVING that shape is
// ErrUnsupported.
// RIGHT/FULL JOIN LATERAL binds only when the subquery does not read the
// left side: it is then a plain derived table (as DuckDB), which cannot
// read an enclosing query either (from.go); otherwise it and
// correlated set operations are ErrUnsupported.

// lateral binds the LATERAL derived table x joined to left with join
// type jt and optional ON condition.
func (b *binder) lateral(left *fromItem, x *sqlparser.AliasedTableExpr, jt exec.JoinType, on sqlparser.Expr, outer *scope, ctes *cteScope) (*fromItem, error) {
	return b.lateralNamed(left, nil, x, jt, on, outer, ctes)
}

// lateralNamed is lateral with names (when not nil) naming left's first
// columns for name resolution inside the subquery (deepcorr.go: D's
// columns carry the names of the outer columns they hold).
func (b *binder) lateralNamed(left *fromItem, names Schema, x *sqlparser.AliasedTableExpr, jt exec.JoinType, on sqlparser.Expr, outer *scope, ctes *cteScope) (*fromItem, error) {
	sub, ok := x.Expr.(*sqlparser.Subquery)
	if !ok {
		return nil, unsupportedf("LATERAL %s", sqlparser.String(x.Expr))
	}
	alias := x.As.String()
	if jt != exec.InnerJoin && jt != exec.LeftJoin {
		return nil, unsupportedf("RIGHT or FULL JOIN LATERAL (%s)", alias)
	}
	ls := left.node.Schema()
	rfields := ls
	if names != nil {
		rfields = append(append(Schema{}, names...), ls[len(names):]...)
	}
	sc := &scope{fields: rfields, outer: outer, using: left.using, tables: relNames(left.node)}
	q := queryOf(sub.Select)
	if sel, ok := q.Body.(*parse.Select); ok && len(sel.From) == 1 && sel.Where == nil {
		if at, ok := sel.From[0].(*sqlparser.AliasedTableExpr); ok {
			if tn, ok := at.Expr.(sqlparser.TableName); ok && tn.Qualifier.IsEmpty() {
				if idx, ok := subqueryIndex(tn.Name.String()); ok && idx < len(b.stmt.Subqueries) {
					q = b.stmt.Subqueries[idx]
				}
			}
		}
	}
	sq := &subqMode{outer: sc, corr: &correlation{}, lateral: true, outerRel: &relation{node: left.node}}
	var n Node
	var err error
	if sel, ok := q.Body.(*parse.Select); ok && len(q.With) == 0 {
		n, err = b.selectSub(sel.Select, q.OrderBy, q.Limit, sc, ctes, sq)
	} else {
		// a set operation or WITH: correlation there is refused by the
		// binder ("correlated reference ... here")
		n, err = b.query(q, sc, ctes)
		if err == nil {
			sq.nOut = len(n.Schema())
		}
	}
	if err != nil {
		return nil, err
	}
	nOut := sq.nOut
	nl := len(ls)
	var conds []vec.Expr
	for _, p := range sq.preds {
		c, err := vec.Transform(p, func(x vec.Expr) (vec.Expr, error) {
			switch r := x.(type) {
			case *OuterRef:
				return &vec.Column{Index: r.Index, Name: r.String()[len("outer."):], T: r.F.Type, Null: r.F.Nullable}, nil
			case *innerRef:
				return &vec.Column{Index: nl + r.idx, Name: r.s, T: r.t, Null: r.nul}, nil
			}
			return x, nil
		})
		if err != nil {
			return nil, err
		}
		conds = append(conds, c)
	}
	empties := sq.empties != nil && len(conds) > 0
	if empties {
		n = withPresent(n)
	}
	// name the subquery's visible columns s.c (with a column list: renamed)
	rs := append(Schema{}, n.Schema()...)
	for i := range rs {
		if i < nOut {
			rs[i].Qual, rs[i].Hidden = alias, false
		} else {
			rs[i].Hidden = true
		}
	}
	if cols, ok := b.stmt.DerivedColumns[x]; ok {
		if len(cols) > nOut {
			return nil, invalidf("%s has %d columns but %d names were given", alias, nOut, len(cols))
		}
		for i, c := range cols {
			rs[i].Name = c
		}
	}
	n = withSchema(n, rs)
	var onCond vec.Expr
	isTrue := on == nil
	if on != nil {
		if v, ok := on.(sqlparser.BoolVal); ok && bool(v) {
			isTrue = true
		}
	}
	if !isTrue {
		jsc := &scope{fields: append(append(Schema{}, ls...), rs...), outer: outer, using: left.using}
		if onCond, err = b.expr(&exprCtx{sc: jsc, what: "ON"}, on); err != nil {
			return nil, err
		}
		if err := wantBool(onCond, "ON"); err != nil {
			return nil, err
		}
	}
	if !empties {
		all := conds
		if onCond != nil {
			all = append(all, onCond)
		}
		j := &Join{Left: left.node, Right: n, Type: jt}
		if len(all) > 0 {
			if j.On, err = andAll(all); err != nil {
				return nil, err
			}
		}
		return &fromItem{node: trim(j, nl+nOut), using: left.using}, nil
	}
	// aggregate without GROUP BY: one row per left row
	c, err := andAll(conds)
	if err != nil {
		return nil, err
	}
	j := &Join{Left: left.node, Right: n, Type: exec.LeftJoin, On: c}
	js := j.Schema()
	miss, err := vec.NewIsBool(js.Col(len(js)-1), true, true) // __present IS NOT TRUE
	if err != nil {
		return nil, err
	}
	exprs := make([]vec.Expr, 0, nl+nOut)
	onames := make([]string, 0, nl+nOut)
	for i := 0; i < nl; i++ {
		exprs = append(exprs, js.Col(i))
		onames = append(onames, ls[i].Name)
	}
	for i := 0; i < nOut; i++ {
		v := js.Col(nl + i)
		ev, err := outerCols(sq.empties[i])
		if err != nil {
			return nil, err
		}
		if ev, err = vec.ImplicitCast(ev, v.Type()); err != nil {
			return nil, err
		}
		e, err := vec.NewCase([]vec.Expr{miss}, []vec.Expr{ev}, v)
		if err != nil {
			return nil, err
		}
		exprs = append(exprs, e)
		onames = append(onames, rs[i].Name)
	}
	p := projectNode(j, exprs, onames, b.fieldsMeta(j, exprs))
	for i := range p.S {
		if i < nl {
			p.S[i] = ls[i]
		} else {
			p.S[i].Qual = alias
		}
	}
	var out Node = p
	switch {
	case onCond != nil && jt == exec.LeftJoin:
		// the row exists; ON decides whether its values or NULLs join
		ps := p.Schema()
		exprs := make([]vec.Expr, len(ps))
		for i := range ps {
			exprs[i] = ps.Col(i)
			if i >= nl {
				nullv := vec.NullLiteral(ps[i].Type)
				c, err := vec.NewCase([]vec.Expr{onCond}, []vec.Expr{ps.Col(i)}, nullv)
				if err != nil {
					return nil, err
				}
				exprs[i] = c
			}
		}
		out = &Project{Input: p, Exprs: exprs, S: append(Schema{}, ps...)}
		for i := nl; i < len(ps); i++ {
			out.(*Project).S[i].Nullable = true
		}
	case onCond != nil:
		out = &Filter{Input: p, Pred: onCond}
	}
	return &fromItem{node: out, using: left.using}, nil
}

// withSchema is n with its fields renamed/requalified as s (same types).
func withSchema(n Node, s Schema) Node {
	exprs := make([]vec.Expr, len(s))
	for i := range s {
		exprs[i] = n.Schema().Col(i)
	}
	return &Project{Input: n, Exprs: exprs, S: s}
}

// lateralItem reports whether te is a LATERAL derived table.
func (b *binder) lateralItem(te sqlparser.TableExpr) (*sqlparser.AliasedTableExpr, bool) {
	at, ok := te.(*sqlparser.AliasedTableExpr)
	return at, ok && b.stmt.Lateral[at]
}

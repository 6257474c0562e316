package logical

import (
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/xwb1989/sqlparser"

	"github.com/paimon-flightsql/paimon-flightsql/planner/exec"
	"github.com/paimon-flightsql/paimon-flightsql/planner/parse"
	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

// subqueryPlan binds a subquery used in an expression of ec.
func (b *binder) subqueryPlan(ec *exprCtx, ss sqlparser.SelectStatement) (Node, *subqMode, error) {
	return b.subqueryPlanMode(ec, ss, false)
}

// existsPlan binds the subquery of [NOT] EXISTS: a constant LIMIT n > 0
// without OFFSET changes nothing there and is dropped.
func (b *binder) existsPlan(ec *exprCtx, ss sqlparser.SelectStatement) (Node, *subqMode, error) {
	if sel, ok := ss.(*sqlparser.Select); ok && sel.Limit != nil && sel.Limit.Offset == nil && sel.Limit.Rowcount != nil {
		if v, ok := sel.Limit.Rowcount.(*sqlparser.SQLVal); ok && v.Type == sqlparser.IntVal && positiveInt(string(v.Val)) {
			cp := *sel
			cp.Limit = nil
			ss = &cp
		}
	}
	if sel, ok := ss.(*sqlparser.Select); ok && len(sel.GroupBy) == 0 && sel.Having == nil && len(sel.OrderBy) == 0 && sel.Limit == nil {
		// the select list does not matter without aggregates (it may
		// read outer columns: EXISTS (SELECT t.x FROM o WHERE ...))
		plain := true
		for _, se := range sel.SelectExprs {
			if ae, ok := se.(*sqlparser.AliasedExpr); ok && (containsAgg(ae.Expr) || containsSpecial(ae.Expr)) {
				plain = false
			}
		}
		if plain {
			cp := *sel
			cp.SelectExprs = sqlparser.SelectExprs{&sqlparser.AliasedExpr{Expr: sqlparser.NewIntVal([]byte("1"))}}
			cp.Distinct = ""
			ss = &cp
		}
	}
	return b.subqueryPlan(ec, ss)
}

// oneRowAgg reports whether ss always returns exactly one row: an
// aggregate without GROUP BY, HAVING or LIMIT/OFFSET. [NOT] EXISTS over it
// is constant; x IN / op ANY|ALL over it is x = / op its one value.
func oneRowAgg(ss sqlparser.SelectStatement) (*sqlparser.Select, bool) {
	sel, ok := ss.(*sqlparser.Select)
	if !ok || len(sel.GroupBy) > 0 || sel.Having != nil || sel.Limit != nil || len(sel.SelectExprs) != 1 {
		return nil, false
	}
	ae, ok := sel.SelectExprs[0].(*sqlparser.AliasedExpr)
	if !ok || !containsAgg(ae.Expr) {
		return nil, false
	}
	return sel, true
}

// existsOneRow binds [NOT] EXISTS over a oneRowAgg subquery (to report
// its errors) and returns its constant value.
func (b *binder) existsOneRow(ec *exprCtx, ss sqlparser.SelectStatement, negate bool) (vec.Expr, bool, error) {
	if _, ok := oneRowAgg(ss); !ok {
		return nil, false, nil
	}
	if _, _, err := b.subqueryPlan(ec, ss); err != nil {
		return nil, true, err
	}
	return vec.BoolLiteral(!negate), true, nil
}

// asScalar is x op (subquery) with the subquery as a scalar subquery.
func (b *binder) asScalar(ec *exprCtx, op string, left sqlparser.Expr, sub *sqlparser.Subquery, negate bool) (vec.Expr, error) {
	e, err := b.comparison(ec, &sqlparser.ComparisonExpr{Operator: op, Left: left, Right: sub})
	if err != nil || !negate {
		return e, err
	}
	return vec.NewNot(e)
}

func positiveInt(s string) bool {
	n, err := strconv.ParseInt(s, 10, 64)
	return err == nil && n > 0
}

// subqueryPlanMode binds a subquery; scalar: used as a scalar value.
func (b *binder) subqueryPlanMode(ec *exprCtx, ss sqlparser.SelectStatement, scalar bool) (Node, *subqMode, error) {
	if ec.rel == nil || ec.rel.node == nil {
		return nil, nil, unsupportedf("subqueries in %s", ec.what)
	}
	q := queryOf(ss)
	if sel, ok := q.Body.(*parse.Select); ok && len(sel.From) == 1 {
		// the front end's extracted queries: select * from paimon_subquery_N
		if at, ok := sel.From[0].(*sqlparser.AliasedTableExpr); ok {
			if tn, ok := at.Expr.(sqlparser.TableName); ok && tn.Qualifier.IsEmpty() {
				if idx, ok := subqueryIndex(tn.Name.String()); ok && idx < len(b.stmt.Subqueries) && sel.Where == nil {
					q = b.stmt.Subqueries[idx]
				}
			}
		}
	}
	sq := &subqMode{outer: ec.sc, corr: &correlation{}, scalar: scalar, outerRel: ec.rel}
	if sel, ok := q.Body.(*parse.Select); ok && len(q.With) == 0 {
		n, err := b.selectSub(sel.Select, q.OrderBy, q.Limit, ec.sc, ec.ctes, sq)
		if err == nil && !scalar && sq.agg && !sq.grouped && sel.Having != nil && len(sq.preds) > 0 {
			// over an outer row without rows HAVING would see one empty group
			return nil, nil, unsupportedf("correlated EXISTS/IN/ANY/ALL subquery with an aggregate and HAVING but no GROUP BY")
		}
		return n, sq, err
	}
	n, err := b.query(q, nil, ec.ctes)
	if err != nil {
		return nil, nil, err
	}
	sq.nOut = len(n.Schema())
	return n, sq, nil
}

// outerCols turns the OuterRefs of e into columns of the outer relation
// (whose columns keep their indexes in the join).
func outerCols(e vec.Expr) (vec.Expr, error) {
	return vec.Transform(e, func(x vec.Expr) (vec.Expr, error) {
		if r, ok := x.(*OuterRef); ok {
			return &vec.Column{Index: r.Index, Name: r.String()[len("outer."):], T: r.F.Type, Null: r.F.Nullable}, nil
		}
		return x, nil
	})
}

// joinSubquery joins ec's relation with a subquery plan; cond (over the
// outer schema followed by the subquery's) is ANDed with the correlation.
func (b *binder) joinSubquery(ec *exprCtx, n Node, sq *subqMode, jt exec.JoinType, cond vec.Expr) (int, error) {
	outerLen := len(ec.rel.node.Schema())
	var conds []vec.Expr
	var inCond vec.Expr
	if cond != nil && jt == exec.MarkJoin {
		inCond = cond
	} else if cond != nil {
		conds = append(conds, cond)
	}
	for _, p := range sq.preds {
		c, err := vec.Transform(p, func(x vec.Expr) (vec.Expr, error) {
			switch r := x.(type) {
			case *OuterRef:
				return &vec.Column{Index: r.Index, Name: r.String()[len("outer."):], T: r.F.Type, Null: r.F.Nullable}, nil
			case *innerRef:
				return &vec.Column{Index: outerLen + r.idx, Name: r.s, T: r.t, Null: r.nul}, nil
			}
			return x, nil
		})
		if err != nil {
			return 0, err
		}
		conds = append(conds, c)
	}
	var on vec.Expr
	if len(conds) > 0 {
		var err error
		if on, err = andAll(conds); err != nil {
			return 0, err
		}
	}
	b.marks++
	j := &Join{Left: ec.rel.node, Right: n, Type: jt, On: on, InCond: inCond, MarkName: "__mark" + itoa(b.marks)}
	ec.rel.node = j
	ec.sc.fields = j.Schema()
	return outerLen, nil
}

// topLevelSubquery turns a WHERE conjunct [NOT] EXISTS / [NOT] IN
// (subquery) into a semi or anti join (or a mark join for NOT IN, whose
// NULL semantics an anti join does not have).
func (b *binder) topLevelSubquery(ec *exprCtx, c sqlparser.Expr) (bool, error) {
	for {
		p, ok := c.(*sqlparser.ParenExpr)
		if !ok {
			break
		}
		c = p.Expr
	}
	negate := false
	if n, ok := c.(*sqlparser.NotExpr); ok {
		if _, isEx := n.Expr.(*sqlparser.ExistsExpr); isEx {
			negate, c = true, n.Expr
		}
	}
	switch x := c.(type) {
	case *sqlparser.ExistsExpr:
		if v, ok, err := b.existsOneRow(ec, x.Subquery.Select, negate); ok || err != nil {
			if err == nil && negate {
				ec.rel.node = &Filter{Input: ec.rel.node, Pred: v}
			}
			return true, err
		}
		n, sq, err := b.existsPlan(ec, x.Subquery.Select)
		if err != nil {
			return true, err
		}
		jt := exec.SemiJoin
		if negate {
			jt = exec.AntiJoin
		}
		_, err = b.joinSubquery(ec, n, sq, jt, nil)
		return true, err
	case *sqlparser.ComparisonExpr:
		if _, _, ok := quantifiedOperand(x.Right); ok {
			return b.topLevelQuantified(ec, x)
		}
		sub, ok := x.Right.(*sqlparser.Subquery)
		if !ok || (x.Operator != sqlparser.InStr && x.Operator != sqlparser.NotInStr) {
			return false, nil
		}
		if _, one := oneRowAgg(sub.Select); one || x.Operator == sqlparser.NotInStr {
			return false, nil // generic path: mark join / comparison
		}
		if lt, ok := rowOf(x.Left); ok {
			return true, b.rowInSemi(ec, lt, sub)
		}
		l, err := b.expr(ec, x.Left)
		if err != nil {
			return true, err
		}
		n, sq, err := b.subqueryPlan(ec, sub.Select)
		if err != nil {
			return true, err
		}
		eq, err := inCondition(l, n, sq, len(ec.rel.node.Schema()))
		if err != nil {
			return true, err
		}
		_, err = b.joinSubquery(ec, n, sq, exec.SemiJoin, eq)
		return true, err
	}
	return false, nil
}

// inCondition is left = the subquery's first column, over the joined schema.
func inCondition(l vec.Expr, n Node, sq *subqMode, outerLen int) (vec.Expr, error) {
	if sq.nOut != 1 {
		return nil, invalidf("a subquery used with IN must return one column, not %d", sq.nOut)
	}
	s := n.Schema()
	r := &vec.Column{Index: outerLen, Name: s[0].Name, T: s[0].Type, Null: s[0].Nullable}
	typeParam(l, r)
	return vec.NewCompare("=", l, r)
}

func (b *binder) inSubquery(ec *exprCtx, left sqlparser.Expr, sub *sqlparser.Subquery, negate bool) (vec.Expr, error) {
	if _, one := oneRowAgg(sub.Select); one {
		return b.asScalar(ec, "=", left, sub, negate)
	}
	l, err := b.expr(ec, left)
	if err != nil {
		return nil, err
	}
	n, sq, err := b.subqueryPlan(ec, sub.Select)
	if err != nil {
		return nil, err
	}
	eq, err := inCondition(l, n, sq, len(ec.rel.node.Schema()))
	if err != nil {
		return nil, err
	}
	if _, err := b.joinSubquery(ec, n, sq, exec.MarkJoin, eq); err != nil {
		return nil, err
	}
	s := ec.rel.node.Schema()
	mark := s.Col(len(s) - 1)
	if negate {
		return vec.NewNot(mark)
	}
	return mark, nil
}

func (b *binder) existsExpr(ec *exprCtx, x *sqlparser.ExistsExpr, negate bool) (vec.Expr, error) {
	if v, ok, err := b.existsOneRow(ec, x.Subquery.Select, negate); ok || err != nil {
		return v, err
	}
	n, sq, err := b.existsPlan(ec, x.Subquery.Select)
	if err != nil {
		return nil, err
	}
	if _, err := b.joinSubquery(ec, n, sq, exec.MarkJoin, nil); err != nil {
		return nil, err
	}
	s := ec.rel.node.Schema()
	m, err := vec.NewCall("COALESCE", []vec.Expr{s.Col(len(s) - 1), vec.BoolLiteral(false)})
	if err != nil {
		return nil, err
	}
	if negate {
		return vec.NewNot(m)
	}
	return m, nil
}

func (b *binder) scalarSubquery(ec *exprCtx, x *sqlparser.Subquery) (vec.Expr, error) {
	n, sq, err := b.subqueryPlanMode(ec, x.Select, true)
	if err != nil {
		return nil, err
	}
	if sq.nOut != 1 {
		return nil, invalidf("a scalar subquery must return one column, not %d", sq.nOut)
	}
	if len(sq.preds) == 0 {
		n = &MaxOneRow{Input: n}
		off, err := b.joinSubquery(ec, n, sq, exec.LeftJoin, nil)
		if err != nil {
			return nil, err
		}
		return ec.rel.node.Schema().Col(off), nil
	}
	// correlated (corrscalar.go)
	check := !sq.agg || sq.grouped
	present := !check && sq.empty != nil && !isNullLit(sq.empty)
	if present && sq.coalesce {
		off, err := b.joinSubquery(ec, n, sq, exec.LeftJoin, nil)
		if err != nil {
			return nil, err
		}
		ec.rel.node.(*Join).Correlated = true
		v := ec.rel.node.Schema().Col(off)
		ev, err := outerCols(sq.empty)
		if err != nil {
			return nil, err
		}
		if ev, err = vec.ImplicitCast(ev, v.Type()); err != nil {
			return nil, err
		}
		return vec.NewCall("COALESCE", []vec.Expr{v, ev})
	}
	if check {
		n = singleRowed(n, len(n.Schema())-1)
	} else if present {
		n = withPresent(n)
	}
	nIn := len(n.Schema())
	off, err := b.joinSubquery(ec, n, sq, exec.LeftJoin, nil)
	if err != nil {
		return nil, err
	}
	ec.rel.node.(*Join).Correlated = true
	s := ec.rel.node.Schema()
	v := vec.Expr(s.Col(off))
	switch {
	case check:
		return &singleRow{N: s.Col(off + nIn - 1), V: v}, nil
	case present:
		miss, err := vec.NewIsBool(s.Col(off+nIn-1), true, true) // __present IS NOT TRUE
		if err != nil {
			return nil, err
		}
		ev, err := outerCols(sq.empty)
		if err != nil {
			return nil, err
		}
		if !arrow.TypeEqual(ev.Type(), v.Type()) {
			if ev, err = vec.ImplicitCast(ev, v.Type()); err != nil {
				return nil, err
			}
		}
		return vec.NewCase([]vec.Expr{miss}, []vec.Expr{ev}, v)
	}
	return v, nil
}

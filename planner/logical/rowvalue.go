package logical

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/xwb1989/sqlparser"

	"github.com/paimon-flightsql/paimon-flightsql/planner/exec"
	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

// Row values (a, b, ...) in comparisons and IN, with DuckDB's semantics:
// a row constructor is a STRUCT, and STRUCTs compare field by field with
// NULL fields as values (NULL equals NULL and sorts after every value), so
// (1, NULL) = (1, NULL) is TRUE and (1, NULL) < (1, 3) is FALSE; a row
// compared with NULL is NULL. (a, b) IN ((1, 2), (3, 4)) is the OR of
// those equalities. (a, b) IN (subquery) is a semi join on one key per
// component (WHERE) or a mark join (Join.RowIn) whose mark, unmatched, is
// NULL when the row has a NULL component or the subquery has a row with
// one (DuckDB's rule; SQL's row comparison would say FALSE where another
// component differs).

// rowOf returns e as a row value (parentheses around it dropped).
func rowOf(e sqlparser.Expr) (sqlparser.ValTuple, bool) {
	for {
		p, ok := e.(*sqlparser.ParenExpr)
		if !ok {
			break
		}
		e = p.Expr
	}
	t, ok := e.(sqlparser.ValTuple)
	return t, ok
}

func isNullAST(e sqlparser.Expr) bool {
	for {
		p, ok := e.(*sqlparser.ParenExpr)
		if !ok {
			break
		}
		e = p.Expr
	}
	_, ok := e.(*sqlparser.NullVal)
	return ok
}

// rowExprs binds the components of a row value.
func (b *binder) rowExprs(ec *exprCtx, t sqlparser.ValTuple) ([]vec.Expr, error) {
	out := make([]vec.Expr, len(t))
	for i, x := range t {
		e, err := b.expr(ec, x) // a nested row is a STRUCT
		if err != nil {
			return nil, err
		}
		out[i] = e
	}
	return out, nil
}

// rowComparison binds l op r where one side is a row value; ok is false
// when neither is.
func (b *binder) rowComparison(ec *exprCtx, x *sqlparser.ComparisonExpr) (vec.Expr, bool, error) {
	lt, lok := rowOf(x.Left)
	rt, rok := rowOf(x.Right)
	if !lok && !rok {
		return nil, false, nil
	}
	if !lok || !rok {
		other := x.Right
		if !lok {
			other = x.Left
		}
		if isNullAST(other) {
			return vec.NullLiteral(arrow.FixedWidthTypes.Boolean), true, nil
		}
		row := lt
		if !lok {
			row = rt
		}
		rv, err := b.rowExprs(ec, row)
		if err != nil {
			return nil, true, err
		}
		ov, err := b.expr(ec, other)
		if err != nil {
			return nil, true, err
		}
		if !isStruct(ov) {
			return nil, true, unsupportedf("comparing a row value with %s of type %s (only with another row value (a, b, ...), a STRUCT or NULL)", sqlparser.String(other), vec.TypeName(ov.Type()))
		}
		rs, err := vec.NewCall("ROW", rv)
		if err != nil {
			return nil, true, err
		}
		if !lok {
			e, err := structCompare(x.Operator, ov, rs)
			return e, true, err
		}
		e, err := structCompare(x.Operator, rs, ov)
		return e, true, err
	}
	if len(lt) != len(rt) {
		return nil, true, invalidf("cannot compare rows of %d and %d values: %s %s %s", len(lt), len(rt), sqlparser.String(x.Left), x.Operator, sqlparser.String(x.Right))
	}
	l, err := b.rowExprs(ec, lt)
	if err != nil {
		return nil, true, err
	}
	r, err := b.rowExprs(ec, rt)
	if err != nil {
		return nil, true, err
	}
	e, err := rowCompare(x.Operator, l, r)
	if err == nil {
		e, err = checkCompareSize(e)
	}
	return e, true, err
}

// rowCompare is l op r over rows of equal length, DuckDB's STRUCT order.
func rowCompare(op string, l, r []vec.Expr) (vec.Expr, error) {
	switch op {
	case sqlparser.EqualStr, sqlparser.NullSafeEqualStr:
		return rowEqual(l, r)
	case sqlparser.NotEqualStr:
		eq, err := rowEqual(l, r)
		if err != nil {
			return nil, err
		}
		return vec.NewNot(eq)
	case sqlparser.LessThanStr:
		return rowLess(l, r, false)
	case sqlparser.LessEqualStr:
		return rowLess(l, r, true)
	case sqlparser.GreaterThanStr:
		return rowLess(r, l, false)
	case sqlparser.GreaterEqualStr:
		return rowLess(r, l, true)
	}
	return nil, unsupportedf("operator %s on row values", op)
}

// rowEqual is the AND of l_i IS NOT DISTINCT FROM r_i (never NULL).
func rowEqual(l, r []vec.Expr) (vec.Expr, error) {
	terms := make([]vec.Expr, len(l))
	for i := range l {
		c, err := valueEqual(l[i], r[i])
		if err != nil {
			return nil, err
		}
		terms[i] = c
	}
	if len(terms) == 1 {
		return terms[0], nil
	}
	return vec.NewAnd(terms...)
}

// rowLess is l < r (orEqual: l <= r) lexicographically, NULL after every
// value: built from the last component back, x_i < y_i OR (x_i <=> y_i
// AND rest), so the tree grows linearly with the row.
func rowLess(l, r []vec.Expr, orEqual bool) (vec.Expr, error) {
	var acc vec.Expr
	for i := len(l) - 1; i >= 0; i-- {
		less, err := valueLess(l[i], r[i])
		if err != nil {
			return nil, err
		}
		if i == len(l)-1 && !orEqual {
			acc = less
			continue
		}
		eq, err := valueEqual(l[i], r[i])
		if err != nil {
			return nil, err
		}
		if acc != nil {
			if eq, err = vec.NewAnd(eq, acc); err != nil {
				return nil, err
			}
		}
		if acc, err = vec.NewOr(less, eq); err != nil {
			return nil, err
		}
	}
	return acc, nil
}

// nullsLastLess is x < y with NULL after every value (never NULL):
// (x < y) IS TRUE OR (x IS NOT NULL AND y IS NULL).
func nullsLastLess(x, y vec.Expr) (vec.Expr, error) {
	lt, err := vec.NewCompare("<", x, y)
	if err != nil {
		return nil, err
	}
	if lt, err = vec.NewIsBool(lt, true, false); err != nil {
		return nil, err
	}
	if !x.Nullable() && !y.Nullable() {
		return lt, nil
	}
	last, err := nullTests(x, true, y, false)
	if err != nil {
		return nil, err
	}
	return vec.NewOr(lt, last)
}

// nullTests is (x IS [NOT] NULL) AND (y IS [NOT] NULL), NOT where
// xNotNull / yNotNull.
func nullTests(x vec.Expr, xNotNull bool, y vec.Expr, yNotNull bool) (vec.Expr, error) {
	xt, err := vec.NewIsNull(x, xNotNull)
	if err != nil {
		return nil, err
	}
	yt, err := vec.NewIsNull(y, yNotNull)
	if err != nil {
		return nil, err
	}
	return vec.NewAnd(xt, yt)
}

// rowInList binds (a, b) [NOT] IN ((1, 2), (3, 4), NULL, ...): the OR of
// the row equalities (a NULL element is NULL).
func (b *binder) rowInList(ec *exprCtx, lt sqlparser.ValTuple, list sqlparser.ValTuple, negate bool) (vec.Expr, error) {
	l, err := b.rowExprs(ec, lt)
	if err != nil {
		return nil, err
	}
	terms := make([]vec.Expr, 0, len(list))
	for _, el := range list {
		if isNullAST(el) {
			terms = append(terms, vec.NullLiteral(arrow.FixedWidthTypes.Boolean))
			continue
		}
		rt, ok := rowOf(el)
		if !ok {
			return nil, invalidf("IN over a row value needs rows of %d values, got %s", len(lt), sqlparser.String(el))
		}
		if len(rt) != len(lt) {
			return nil, invalidf("IN over a row of %d values got a row of %d: %s", len(lt), len(rt), sqlparser.String(el))
		}
		r, err := b.rowExprs(ec, rt)
		if err != nil {
			return nil, err
		}
		eq, err := rowEqual(l, r)
		if err != nil {
			return nil, err
		}
		terms = append(terms, eq)
	}
	var e vec.Expr
	switch len(terms) {
	case 0:
		return nil, invalidf("IN needs at least one value")
	case 1:
		e = terms[0]
	default:
		if e, err = vec.NewOr(terms...); err != nil {
			return nil, err
		}
	}
	if negate {
		if e, err = vec.NewNot(e); err != nil {
			return nil, err
		}
	}
	return checkCompareSize(e)
}

// rowInCondition is the AND of l_i = the subquery's column i, over the
// joined schema.
func rowInCondition(ec *exprCtx, l []vec.Expr, n Node, sq *subqMode) (vec.Expr, error) {
	if sq.nOut != len(l) {
		return nil, invalidf("a subquery used with IN over a row of %d values must return %d columns, not %d", len(l), len(l), sq.nOut)
	}
	outerLen := len(ec.rel.node.Schema())
	s := n.Schema()
	terms := make([]vec.Expr, len(l))
	for i := range l {
		r := &vec.Column{Index: outerLen + i, Name: s[i].Name, T: s[i].Type, Null: s[i].Nullable}
		typeParam(l[i], r)
		var err error
		if terms[i], err = vec.NewCompare("=", l[i], r); err != nil {
			return nil, err
		}
	}
	if len(terms) == 1 {
		return terms[0], nil
	}
	return vec.NewAnd(terms...)
}

// rowInSubquery binds (a, b) [NOT] IN (subquery) outside a WHERE
// conjunct (or NOT IN there): a mark join with Join.RowIn.
func (b *binder) rowInSubquery(ec *exprCtx, lt sqlparser.ValTuple, sub *sqlparser.Subquery, negate bool) (vec.Expr, error) {
	l, err := b.rowExprs(ec, lt)
	if err != nil {
		return nil, err
	}
	n, sq, err := b.subqueryPlan(ec, sub.Select)
	if err != nil {
		return nil, err
	}
	cond, err := rowInCondition(ec, l, n, sq)
	if err != nil {
		return nil, err
	}
	if _, err := b.joinSubquery(ec, n, sq, exec.MarkJoin, cond); err != nil {
		return nil, err
	}
	ec.rel.node.(*Join).RowIn = true
	s := ec.rel.node.Schema()
	mark := s.Col(len(s) - 1)
	if negate {
		return vec.NewNot(mark)
	}
	return mark, nil
}

// rowInSemi binds a WHERE conjunct (a, b) IN (subquery): a semi join on
// the components (a NULL never matches, which WHERE treats as FALSE).
func (b *binder) rowInSemi(ec *exprCtx, lt sqlparser.ValTuple, sub *sqlparser.Subquery) error {
	l, err := b.rowExprs(ec, lt)
	if err != nil {
		return err
	}
	n, sq, err := b.subqueryPlan(ec, sub.Select)
	if err != nil {
		return err
	}
	cond, err := rowInCondition(ec, l, n, sq)
	if err != nil {
		return err
	}
	_, err = b.joinSubquery(ec, n, sq, exec.SemiJoin, cond)
	return err
}

package logical

import (
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/xwb1989/sqlparser"

	"github.com/paimon-flightsql/paimon-flightsql/planner/exec"
	"github.com/paimon-flightsql/paimon-flightsql/planner/parse"
	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

// Quantified comparisons x op ANY|SOME (q) and x op ALL (q) reach the
// binder as x op paimon_any((q)) / x op paimon_all((q)) (the front end
// keeps = ANY as IN and <> ALL as NOT IN).
//
// Semantics (SQL's three-valued logic): ANY is the OR of x op y over the
// subquery's rows y (FALSE over no rows); ALL is their AND (TRUE over no
// rows), computed as NOT (x negop y ANY), negop being the complement
// (< ↔ >=, > ↔ <=, = ↔ <>): NOT of a comparison is the complementary
// comparison, NULL staying NULL.
//
// As a WHERE conjunct ANY is a semi join on the correlation AND x op y,
// ALL an anti join on the correlation AND (x negop y) IS NOT FALSE (a row
// survives when no subquery row makes the comparison FALSE or NULL).
// Elsewhere a mark join computes the three-valued ANY (Join.InCond).

// quantifiedOperand recognises the front end's paimon_any/paimon_all((q)).
func quantifiedOperand(e sqlparser.Expr) (*sqlparser.Subquery, bool, bool) {
	f, ok := e.(*sqlparser.FuncExpr)
	if !ok || len(f.Exprs) != 1 || !f.Qualifier.IsEmpty() {
		return nil, false, false
	}
	name := f.Name.Lowered()
	if name != parse.MarkAny && name != parse.MarkAll {
		return nil, false, false
	}
	ae, ok := f.Exprs[0].(*sqlparser.AliasedExpr)
	if !ok {
		return nil, false, false
	}
	sub, ok := ae.Expr.(*sqlparser.Subquery)
	if !ok {
		return nil, false, false
	}
	return sub, name == parse.MarkAll, true
}

// negatedOp is the comparison that is NOT op (three-valued).
func negatedOp(op string) (string, bool) {
	switch strings.TrimSpace(op) {
	case "=":
		return "<>", true
	case "<>", "!=":
		return "=", true
	case "<":
		return ">=", true
	case "<=":
		return ">", true
	case ">":
		return "<=", true
	case ">=":
		return "<", true
	}
	return "", false
}

// quantCond binds the subquery and x op' y over the joined schema, op'
// being op for ANY and its complement for ALL.
func (b *binder) quantCond(ec *exprCtx, op string, left sqlparser.Expr, sub *sqlparser.Subquery, all bool) (Node, *subqMode, vec.Expr, error) {
	neg, ok := negatedOp(op)
	if !ok {
		return nil, nil, nil, unsupportedf("%s with ANY/ALL (subquery)", op)
	}
	if all {
		op = neg
	}
	l, err := b.expr(ec, left)
	if err != nil {
		return nil, nil, nil, err
	}
	n, sq, err := b.subqueryPlan(ec, sub.Select)
	if err != nil {
		return nil, nil, nil, err
	}
	if sq.nOut != 1 {
		return nil, nil, nil, invalidf("a subquery used with ANY/ALL must return one column, not %d", sq.nOut)
	}
	s := n.Schema()
	r := &vec.Column{Index: len(ec.rel.node.Schema()), Name: s[0].Name, T: s[0].Type, Null: s[0].Nullable}
	typeParam(l, r)
	if len(sq.preds) == 0 && op != "=" {
		// uncorrelated: compare with the subquery's MIN/MAX instead of
		// every row (quantAgg)
		e, err := b.quantAgg(ec, op, l, n, sq)
		if err != nil {
			return nil, nil, nil, err
		}
		if all {
			if e, err = vec.NewNot(e); err != nil {
				return nil, nil, nil, err
			}
		}
		return nil, sq, e, nil
	}
	c, err := vec.NewCompare(op, l, r)
	if err != nil {
		return nil, nil, nil, err
	}
	return n, sq, c, nil
}

// quantAgg is x op ANY (q) for an uncorrelated q and op one of < <= > >=
// <>: q is aggregated to one row (MIN(y), MAX(y), COUNT(*), COUNT(y)),
// left joined (a cross join with one row), and
//
//	CASE WHEN COUNT(*) = 0 THEN FALSE
//	     WHEN x op MAX(y) (<, <=) | x op MIN(y) (>, >=) | x <> MIN(y) OR x <> MAX(y) (<>) THEN TRUE
//	     WHEN COUNT(y) < COUNT(*) OR x IS NULL THEN NULL
//	     ELSE FALSE END
//
// is the three-valued OR over the rows.
func (b *binder) quantAgg(ec *exprCtx, op string, l vec.Expr, n Node, sq *subqMode) (vec.Expr, error) {
	s := n.Schema()
	y := s.Col(0)
	aggs := []exec.AggExpr{{Func: "MIN", Args: []vec.Expr{y}}, {Func: "MAX", Args: []vec.Expr{y}}, {Func: "COUNT_STAR"}, {Func: "COUNT", Args: []vec.Expr{y}}}
	i64 := arrow.PrimitiveTypes.Int64
	as := Schema{
		{Name: "__min", Type: s[0].Type, Nullable: true, Hidden: true},
		{Name: "__max", Type: s[0].Type, Nullable: true, Hidden: true},
		{Name: "__count", Type: i64, Hidden: true},
		{Name: "__count_y", Type: i64, Hidden: true},
	}
	off, err := b.joinSubquery(ec, &Aggregate{Input: n, Aggs: aggs, S: as}, sq, exec.LeftJoin, nil)
	if err != nil {
		return nil, err
	}
	js := ec.rel.node.Schema()
	mn, mx, cnt, cntY := js.Col(off), js.Col(off+1), js.Col(off+2), js.Col(off+3)
	var hit vec.Expr
	switch op {
	case "<", "<=":
		hit, err = vec.NewCompare(op, l, mx)
	case ">", ">=":
		hit, err = vec.NewCompare(op, l, mn)
	case "<>", "!=":
		var a, c vec.Expr
		if a, err = vec.NewCompare("<>", l, mn); err == nil {
			if c, err = vec.NewCompare("<>", l, mx); err == nil {
				hit, err = vec.NewOr(a, c)
			}
		}
	default:
		return nil, unsupportedf("%s ANY (subquery)", op)
	}
	if err != nil {
		return nil, err
	}
	zero, err := vec.NumberLiteral("0")
	if err != nil {
		return nil, err
	}
	empty, err := vec.NewCompare("=", cnt, zero)
	if err != nil {
		return nil, err
	}
	someNull, err := vec.NewCompare("<", cntY, cnt)
	if err != nil {
		return nil, err
	}
	xNull, err := vec.NewIsNull(l, false)
	if err != nil {
		return nil, err
	}
	unknown, err := vec.NewOr(someNull, xNull)
	if err != nil {
		return nil, err
	}
	f, t, null := vec.BoolLiteral(false), vec.BoolLiteral(true), vec.NullLiteral(arrow.FixedWidthTypes.Boolean)
	return vec.NewCase([]vec.Expr{empty, hit, unknown}, []vec.Expr{f, t, null}, f)
}

// quantified binds x op ANY|ALL (q) anywhere: a mark join (three-valued).
func (b *binder) quantified(ec *exprCtx, op string, left sqlparser.Expr, sub *sqlparser.Subquery, all bool) (vec.Expr, error) {
	if ec.rel == nil || ec.rel.node == nil {
		return nil, unsupportedf("subqueries in %s", ec.what)
	}
	if _, isRow := rowOf(left); isRow {
		return nil, unsupportedf("a row value with %s ANY/ALL (subquery) (only = ANY, which is IN, and <> ALL, which is NOT IN)", op)
	}
	if _, one := oneRowAgg(sub.Select); one {
		// one row y: ANY and ALL are both x op y
		return b.asScalar(ec, op, left, sub, false)
	}
	n, sq, c, err := b.quantCond(ec, op, left, sub, all)
	if err != nil {
		return nil, err
	}
	if n == nil {
		return c, nil // uncorrelated, already joined (quantAgg)
	}
	if _, err := b.joinSubquery(ec, n, sq, exec.MarkJoin, c); err != nil {
		return nil, err
	}
	s := ec.rel.node.Schema()
	mark := s.Col(len(s) - 1)
	if all {
		return vec.NewNot(mark)
	}
	return mark, nil
}

// topLevelQuantified turns a WHERE conjunct x op ANY|ALL (q) into a semi
// (ANY) or anti (ALL) join.
func (b *binder) topLevelQuantified(ec *exprCtx, x *sqlparser.ComparisonExpr) (bool, error) {
	sub, all, ok := quantifiedOperand(x.Right)
	if !ok {
		return false, nil
	}
	if _, isRow := rowOf(x.Left); isRow {
		return false, nil // the generic path refuses it
	}
	if _, one := oneRowAgg(sub.Select); one {
		return false, nil // generic path: a comparison with a scalar subquery
	}
	n, sq, c, err := b.quantCond(ec, x.Operator, x.Left, sub, all)
	if err != nil {
		return true, err
	}
	if n == nil {
		// uncorrelated, already joined (quantAgg): a filter
		ec.rel.node = &Filter{Input: ec.rel.node, Pred: c}
		return true, nil
	}
	jt := exec.SemiJoin
	if all {
		jt = exec.AntiJoin
		if c, err = vec.NewIsBool(c, false, true); err != nil { // IS NOT FALSE
			return true, err
		}
	}
	_, err = b.joinSubquery(ec, n, sq, jt, c)
	return true, err
}

package logical

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/xwb1989/sqlparser"

	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

func (b *binder) callAST(ec *exprCtx, name string, es []sqlparser.Expr) (vec.Expr, error) {
	args := make([]vec.Expr, len(es))
	for i, e := range es {
		a, err := b.expr(ec, e)
		if err != nil {
			return nil, err
		}
		args[i] = a
	}
	return vec.NewCall(name, args)
}

func (b *binder) selectExprArg(ec *exprCtx, se sqlparser.SelectExpr) (vec.Expr, error) {
	switch a := se.(type) {
	case *sqlparser.AliasedExpr:
		return b.expr(ec, a.Expr)
	case *sqlparser.StarExpr:
		return nil, invalidf("* is not allowed as a function argument here")
	}
	return nil, unsupportedf("argument %s", sqlparser.String(se))
}

func (b *binder) args(ec *exprCtx, x *sqlparser.FuncExpr) ([]vec.Expr, error) {
	out := make([]vec.Expr, len(x.Exprs))
	for i, se := range x.Exprs {
		a, err := b.selectExprArg(ec, se)
		if err != nil {
			return nil, err
		}
		out[i] = a
	}
	return out, nil
}

// concatStrict is a || b: NULL when either side is NULL (CONCAT skips NULLs).
func concatStrict(l, r vec.Expr) (vec.Expr, error) {
	c, err := vec.NewCall("CONCAT", []vec.Expr{l, r})
	if err != nil {
		return nil, err
	}
	if !l.Nullable() && !r.Nullable() {
		return c, nil
	}
	ln, err := vec.NewIsNull(l, false)
	if err != nil {
		return nil, err
	}
	rn, err := vec.NewIsNull(r, false)
	if err != nil {
		return nil, err
	}
	either, err := vec.NewOr(ln, rn)
	if err != nil {
		return nil, err
	}
	return vec.NewCase([]vec.Expr{either}, []vec.Expr{vec.NullLiteral(arrow.BinaryTypes.String)}, c)
}

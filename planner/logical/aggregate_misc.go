package logical

import (
	"github.com/xwb1989/sqlparser"

	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

func mustNum(s string) vec.Expr {
	l, _ := vec.NumberLiteral(s)
	return l
}

// shiftedExpr is SUM(x) ± c*COUNT(x) over the Aggregate's columns.
func (a *aggCtx) shiftedExpr(sh shiftedSum) (vec.Expr, error) {
	sum := a.schema.Col(len(a.groups) + sh.sum)
	cnt := a.schema.Col(len(a.groups) + sh.count)
	prod, err := vec.NewArith("*", sh.c, cnt)
	if err != nil {
		return nil, err
	}
	op := "+"
	if sh.neg {
		op = "-"
	}
	out, err := vec.NewArith(op, sum, prod)
	if err != nil {
		return nil, err
	}
	// keep SUM's result type (DECIMAL(38,0))
	return vec.ImplicitCast(out, a.schema[len(a.groups)+sh.sum].Type)
}

// hasWindow reports whether e calls a window function (outside subqueries).
func hasWindow(e sqlparser.Expr) bool {
	found := false
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		switch x := n.(type) {
		case *sqlparser.Subquery:
			return false, nil
		case *sqlparser.FuncExpr:
			if x.Name.Lowered() == "paimon_window" {
				found = true
			}
		}
		return !found, nil
	}, e)
	return found
}

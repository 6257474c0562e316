package logical

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/scalar"
	"github.com/xwb1989/sqlparser"

	"github.com/paimon-flightsql/paimon-flightsql/planner/exec"
	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

// QUALIFY and DISTINCT ON reach the binder as extra select items the
// front end adds (planner/parse/qualify.go): `(cond) AS paimon_qualify` and
// `paimon_distinct_on(e, ...) AS paimon_distinct_on`.
//
// Both apply after the windows, in SQL's order: QUALIFY filters on the
// window results (a Filter over the Window nodes); DISTINCT ON (e, ...)
// then keeps, for each distinct value of (e, ...), the first row in the
// query's ORDER BY (any row when there is none): a ROW_NUMBER() window
// partitioned by the expressions and ordered by the ORDER BY keys, and a
// filter on row number 1. NULLs are one value, as in DuckDB and PostgreSQL.
const (
	markQualify    = "paimon_qualify"
	markDistinctOn = "paimon_distinct_on"
)

type selectExtras struct {
	qualify    sqlparser.Expr
	distinctOn []sqlparser.Expr
	q          vec.Expr   // bound QUALIFY
	on         []vec.Expr // bound DISTINCT ON expressions
}

// splitExtras removes the marker items from a select list.
func splitExtras(list sqlparser.SelectExprs) (sqlparser.SelectExprs, *selectExtras, error) {
	var x selectExtras
	var out sqlparser.SelectExprs
	for _, se := range list {
		ae, ok := se.(*sqlparser.AliasedExpr)
		if !ok {
			out = append(out, se)
			continue
		}
		switch ae.As.Lowered() {
		case markQualify:
			x.qualify = ae.Expr
			continue
		case markDistinctOn:
			f, ok := ae.Expr.(*sqlparser.FuncExpr)
			if !ok || f.Name.Lowered() != markDistinctOn || len(f.Exprs) == 0 {
				return nil, nil, invalidf("bad DISTINCT ON")
			}
			for _, a := range f.Exprs {
				e, ok := a.(*sqlparser.AliasedExpr)
				if !ok {
					return nil, nil, invalidf("DISTINCT ON needs expressions")
				}
				x.distinctOn = append(x.distinctOn, e.Expr)
			}
			continue
		}
		out = append(out, se)
	}
	if x.qualify == nil && x.distinctOn == nil {
		return list, nil, nil
	}
	return out, &x, nil
}

// exprs lists the extras' expressions (to find and collect aggregates).
func (x *selectExtras) exprs() []sqlparser.Expr {
	if x == nil {
		return nil
	}
	out := append([]sqlparser.Expr{}, x.distinctOn...)
	if x.qualify != nil {
		out = append(out, x.qualify)
	}
	return out
}

// bind binds QUALIFY and DISTINCT ON after the select list (select aliases
// may be used as in ORDER BY); window functions they use join the query's.
func (x *selectExtras) bind(b *binder, post *exprCtx, items []selectItem) error {
	if x == nil {
		return nil
	}
	one := func(e sqlparser.Expr) (vec.Expr, error) {
		v, err := b.expr(post, e)
		if err != nil {
			if v2, ok := b.orderByAliases(post, e, items); ok {
				return v2, nil
			}
		}
		return v, err
	}
	post.what = "DISTINCT ON"
	for _, e := range x.distinctOn {
		v, err := one(e)
		if err != nil {
			return err
		}
		x.on = append(x.on, v)
	}
	if x.qualify != nil {
		post.what = "QUALIFY"
		v, err := one(x.qualify)
		if err != nil {
			return err
		}
		if err := wantBool(v, "QUALIFY"); err != nil {
			return err
		}
		x.q = v
	}
	return nil
}

// apply puts QUALIFY and DISTINCT ON over n (the relation after the
// windows); repl maps window references to the window columns; keys are
// the query's ORDER BY keys over n.
func (x *selectExtras) apply(n Node, repl func(vec.Expr) (vec.Expr, error), keys []exec.SortKey) (Node, error) {
	if x == nil {
		return n, nil
	}
	var err error
	if x.q != nil {
		q := x.q
		if repl != nil {
			if q, err = repl(q); err != nil {
				return nil, err
			}
		}
		n = &Filter{Input: n, Pred: q}
	}
	if len(x.on) > 0 {
		part := make([]vec.Expr, len(x.on))
		for i, e := range x.on {
			if repl != nil {
				if e, err = repl(e); err != nil {
					return nil, err
				}
			}
			part[i] = e
		}
		base := len(n.Schema())
		w := &Window{Input: n, PartitionBy: part, OrderBy: append([]exec.SortKey{}, keys...),
			Funcs: []exec.WindowFunc{{Func: "ROW_NUMBER", Name: "__distinct_on"}}}
		rn := w.Schema().Col(base)
		eq, err := vec.NewCompare("=", rn, vec.NewLiteral(scalar.NewInt64Scalar(1)))
		if err != nil {
			return nil, err
		}
		if rn.Type().ID() != arrow.INT64 {
			return nil, invalidf("DISTINCT ON: row number is %s", rn.Type())
		}
		n = &Filter{Input: w, Pred: eq}
	}
	return n, nil
}

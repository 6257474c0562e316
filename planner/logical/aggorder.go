package logical

import (
	"strconv"
	"strings"

	"github.com/xwb1989/sqlparser"

	"github.com/paimon-flightsql/paimon-flightsql/planner/exec"
	"github.com/paimon-flightsql/paimon-flightsql/planner/parse"
)

// markAggOrder is the front end's paimon_agg_order(agg(args), N): an
// aggregate with its own ORDER BY (Statement.AggOrders[N]).
const markAggOrder = "paimon_agg_order"

// unwrapAggOrder splits paimon_agg_order(agg, N) into agg and its order;
// other expressions come back unchanged with a nil order.
func (b *binder) unwrapAggOrder(e sqlparser.Expr) (sqlparser.Expr, *parse.AggOrder, error) {
	f, ok := e.(*sqlparser.FuncExpr)
	if !ok || f.Name.Lowered() != markAggOrder {
		return e, nil, nil
	}
	if len(f.Exprs) != 2 {
		return nil, nil, invalidf("bad aggregate ORDER BY")
	}
	ae, ok1 := f.Exprs[0].(*sqlparser.AliasedExpr)
	ne, ok2 := f.Exprs[1].(*sqlparser.AliasedExpr)
	if !ok1 || !ok2 {
		return nil, nil, invalidf("bad aggregate ORDER BY")
	}
	nv, ok := ne.Expr.(*sqlparser.SQLVal)
	if !ok {
		return nil, nil, invalidf("bad aggregate ORDER BY")
	}
	idx, err := strconv.Atoi(string(nv.Val))
	if err != nil || idx < 0 || idx >= len(b.stmt.AggOrders) {
		return nil, nil, invalidf("bad aggregate ORDER BY reference")
	}
	if f, ok := ae.Expr.(*sqlparser.FuncExpr); ok && f.Qualifier.IsEmpty() {
		if q, ok := orderedSetAggs[f.Name.Lowered()]; ok && b.stmt.AggOrders[idx].WithinGroup {
			call, err := orderedSetCall(f, q, b.stmt.AggOrders[idx])
			return call, nil, err
		}
	}
	inner, ok := ae.Expr.(*sqlparser.FuncExpr)
	if !ok || !isAggCall(inner) || inner.Name.Lowered() == markAggOrder {
		return nil, nil, invalidf("ORDER BY inside a call is only allowed in an aggregate (%s)", sqlparser.String(ae.Expr))
	}
	return inner, b.stmt.AggOrders[idx], nil
}

// aggOrderKeys binds an aggregate's ORDER BY over the aggregate's input and
// sets it on ag when the result depends on the order: STRING_AGG, FIRST,
// LAST. Every other aggregate ignores the order (as DuckDB does), but
// WITHIN GROUP is only accepted for STRING_AGG/LISTAGG, whose meaning it
// does not change (for ordered-set aggregates such as PERCENTILE_CONT it
// names the argument, which we do not support).
func (a *aggCtx) aggOrderKeys(b *binder, ag *exec.AggExpr, name string, ob sqlparser.OrderBy, within bool) error {
	fn := ag.Func
	switch {
	case fn == "STRING_AGG", fn == "LIST":
	case name == "first":
		fn = "FIRST"
	case fn == "LAST":
	case within:
		return unsupportedf("WITHIN GROUP (ORDER BY ...) with %s (only STRING_AGG/LISTAGG)", fn)
	default:
		return nil
	}
	a.in.what = "an aggregate ORDER BY"
	keys := make([]exec.SortKey, len(ob))
	for i, o := range ob {
		v, err := b.expr(a.in, o.Expr)
		if err != nil {
			return err
		}
		keys[i] = b.sortKey(o, v)
	}
	if ag.Distinct && fn != "FIRST" && fn != "LAST" {
		for _, k := range keys {
			found := false
			for _, v := range ag.Args[:min(1, len(ag.Args))] {
				found = found || v.String() == k.Expr.String()
			}
			if !found {
				return invalidf("in an aggregate with DISTINCT, ORDER BY expressions must appear in the argument list (%s)", k.Expr)
			}
		}
	}
	ag.Func, ag.OrderBy = fn, keys
	return nil
}

// orderedSetAggs maps the SQL-standard ordered-set aggregates to the
// aggregate computing them: PERCENTILE_CONT(f) WITHIN GROUP (ORDER BY x)
// is QUANTILE_CONT(x, f), PERCENTILE_DISC is QUANTILE_DISC and MODE()
// WITHIN GROUP (ORDER BY x) is MODE(x) (as DuckDB).
var orderedSetAggs = map[string]string{
	"percentile_cont": "quantile_cont",
	"percentile_disc": "quantile_disc",
	"mode":            "mode",
}

// orderedSetCall rewrites an ordered-set aggregate call f with its WITHIN
// GROUP order (o.WithinGroup is set) into the plain aggregate q. The order must be one ascending
// key (a descending one, which would mirror the fraction, is refused).
func orderedSetCall(f *sqlparser.FuncExpr, q string, o *parse.AggOrder) (sqlparser.Expr, error) {
	name := strings.ToUpper(f.Name.String())
	if len(o.OrderBy) != 1 {
		return nil, invalidf("%s WITHIN GROUP takes exactly one ORDER BY expression", name)
	}
	if o.OrderBy[0].Direction == sqlparser.DescScr {
		return nil, unsupportedf("%s WITHIN GROUP (ORDER BY ... DESC)", name)
	}
	if f.Distinct {
		return nil, invalidf("DISTINCT is not allowed in %s", name)
	}
	want := 1
	if q == "mode" {
		want = 0
	}
	if len(f.Exprs) != want {
		return nil, invalidf("%s takes %d argument(s) before WITHIN GROUP, got %d", name, want, len(f.Exprs))
	}
	exprs := sqlparser.SelectExprs{&sqlparser.AliasedExpr{Expr: o.OrderBy[0].Expr}}
	exprs = append(exprs, f.Exprs...)
	return &sqlparser.FuncExpr{Name: sqlparser.NewColIdent(q), Exprs: exprs}, nil
}

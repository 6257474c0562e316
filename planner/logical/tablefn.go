package logical

import (
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/scalar"
	"github.com/xwb1989/sqlparser"

	"github.com/paimon-flightsql/paimon-flightsql/planner/exec"
	"github.com/paimon-flightsql/paimon-flightsql/planner/parse"
	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

// Table functions and UNNEST (docs/design/planner.md, "Table functions"):
//
//   - `FROM range(..)` / `generate_series(..)` / `unnest(list)` as the
//     first FROM item, or with arguments that read no earlier FROM item:
//     an Unnest over a one-row Values (joined like any table);
//   - `FROM l, f(args)`, `l CROSS JOIN f(args)`, `l JOIN f(args) ON c`
//     with arguments reading l's columns: an Unnest over l (each l row
//     expanded, the lateral semantics), ON as a filter over it;
//   - `unnest(list)` in a select list: an Unnest over the relation the
//     select list reads (after aggregation and windows), each call
//     replaced by its generated column; several calls are zipped.

// tableFnItem reports whether te is a table function in FROM.
func (b *binder) tableFnItem(te sqlparser.TableExpr) (*sqlparser.AliasedTableExpr, bool) {
	at, ok := te.(*sqlparser.AliasedTableExpr)
	if !ok {
		return nil, false
	}
	_, ok = b.stmt.TableFuncs[at]
	return at, ok
}

// tableFunc binds the table function x over left (nil: a one-row
// relation): its arguments read left's columns.
func (b *binder) tableFunc(left *fromItem, x *sqlparser.AliasedTableExpr) (*fromItem, error) {
	return b.tableFuncNamed(left, nil, x)
}

// tableFuncNamed is tableFunc with names (when not nil) naming left's
// first columns for name resolution (deepcorr.go: D's columns carry the
// names of the outer columns they hold).
func (b *binder) tableFuncNamed(left *fromItem, names Schema, x *sqlparser.AliasedTableExpr) (*fromItem, error) {
	name := b.stmt.TableFuncs[x]
	args, err := parse.TableFuncArgs(x)
	if err != nil {
		return nil, err
	}
	var in Node = &Values{Rows: [][]vec.Expr{{}}}
	sc := &scope{}
	var using map[string]int
	if left != nil {
		in, using = left.node, left.using
		fields := in.Schema()
		if names != nil {
			fields = append(append(Schema{}, names...), fields[len(names):]...)
		}
		sc = &scope{fields: fields, using: using, tables: relNames(in)}
	}
	ec := &exprCtx{sc: sc, what: "the arguments of " + name}
	var rel *relation
	if left == nil {
		// uncorrelated subqueries in the arguments join the one row
		rel = &relation{node: in}
		ec.rel = rel
	}
	bound := make([]vec.Expr, len(args))
	for i, a := range args {
		if bound[i], err = b.expr(ec, a); err != nil {
			return nil, err
		}
	}
	joined := rel != nil && rel.node != in
	if joined {
		in = rel.node
	}
	g, err := tableGen(name, bound, true)
	if err != nil {
		return nil, err
	}
	if cols := b.stmt.DerivedColumns[x]; len(cols) > 0 {
		// DuckDB names the one column after the first name (the others
		// are ignored)
		g.Name = cols[0]
	}
	var n Node = &Unnest{Input: in, Gens: []exec.Generator{g}, Qual: x.As.String()}
	if joined {
		// only the generated column: not the subqueries' columns
		s := n.Schema()
		n = &Project{Input: n, Exprs: []vec.Expr{s.Col(len(s) - 1)}, S: s[len(s)-1:]}
	}
	return &fromItem{node: n, using: using}, nil
}

// tableFuncJoin binds left followed by the table function x (a comma or
// an inner join): a plain cross join when its arguments read nothing of
// left, else the per-row expansion of left.
func (b *binder) tableFuncJoin(left *fromItem, x *sqlparser.AliasedTableExpr) (*fromItem, error) {
	if it, err := b.tableFunc(nil, x); err == nil {
		return &fromItem{node: &Join{Left: left.node, Right: it.node, Type: exec.InnerJoin}, using: mergeUsing(left, it)}, nil
	}
	return b.tableFunc(left, x)
}

// tableFuncRight binds `left JOIN f(args) ...` when the right side is a
// table function; ok=false leaves the join to the general path (which
// binds f on its own).
func (b *binder) tableFuncRight(l *fromItem, x *sqlparser.JoinTableExpr, outer *scope) (*fromItem, bool, error) {
	at, ok := b.tableFnItem(x.RightExpr)
	if !ok {
		return nil, false, nil
	}
	if _, err := b.tableFunc(nil, at); err == nil {
		return nil, false, nil
	}
	isLeft := x.Join == sqlparser.LeftJoinStr
	if (x.Join != sqlparser.JoinStr && x.Join != sqlparser.StraightJoinStr && !isLeft) || len(x.Condition.Using) > 0 {
		return nil, true, unsupportedf("%s of table function %s reading the left side (only a FROM list, CROSS JOIN, [LEFT] JOIN ... ON expand per row)", strings.ToUpper(x.Join), at.As.String())
	}
	it, err := b.tableFunc(l, at)
	if err != nil {
		return nil, true, err
	}
	if x.Condition.On == nil {
		if isLeft {
			un := *it.node.(*Unnest)
			un.Outer = true
			return &fromItem{node: &un, using: it.using}, true, nil
		}
		return it, true, nil
	}
	sc := &scope{fields: it.node.Schema(), outer: outer, using: it.using}
	on, err := b.expr(&exprCtx{sc: sc, what: "ON"}, x.Condition.On)
	if err != nil {
		return nil, true, err
	}
	if err := wantBool(on, "ON"); err != nil {
		return nil, true, err
	}
	if isLeft {
		un := *it.node.(*Unnest)
		un.Outer, un.On = true, on
		return &fromItem{node: &un, using: it.using}, true, nil
	}
	return &fromItem{node: &Filter{Input: it.node, Pred: on}, using: it.using}, true, nil
}

var tInt64 = arrow.PrimitiveTypes.Int64

// tableGen builds the generator of the table function name over bound
// arguments; from: in FROM (an untyped NULL list is an error there, as in
// DuckDB).
func tableGen(name string, args []vec.Expr, from bool) (exec.Generator, error) {
	switch name {
	case "unnest":
		if len(args) != 1 {
			return exec.Generator{}, invalidf("UNNEST takes one list, not %d arguments", len(args))
		}
		t := args[0].Type()
		switch t.ID() {
		case arrow.LIST:
			return exec.Generator{Kind: exec.GenUnnest, Args: args, Name: "unnest", T: t.(*arrow.ListType).Elem()}, nil
		case arrow.NULL:
			if !from {
				return exec.Generator{Kind: exec.GenUnnest, Args: args, Name: "unnest", T: arrow.Null}, nil
			}
		case arrow.STRUCT, arrow.MAP:
			return exec.Generator{}, unsupportedf("UNNEST of %s (only lists)", vec.TypeName(t))
		}
		return exec.Generator{}, invalidf("UNNEST needs a list, not %s (%s)", vec.TypeName(t), args[0].String())
	case "range", "generate_series":
		kind := exec.GenRange
		if name == "generate_series" {
			kind = exec.GenSeries
		}
		return rangeGen(name, kind, args)
	}
	return exec.Generator{}, invalidf("unknown table function %s (table functions: range, generate_series, unnest)", name)
}

// rangeGen types range/generate_series: BIGINT arguments (stop alone,
// start and stop, or with a step; defaults start 0, step 1), or a
// TIMESTAMP (DATE) start and stop with an INTERVAL step, giving
// TIMESTAMP, as DuckDB.
func rangeGen(name string, kind exec.GenKind, args []vec.Expr) (exec.Generator, error) {
	g := exec.Generator{Kind: kind, Name: name, T: tInt64}
	sig := func() error {
		ts := make([]string, len(args))
		for i, a := range args {
			ts[i] = vec.TypeName(a.Type())
		}
		return invalidf("%s(%s) is not defined: it takes (BIGINT), (BIGINT, BIGINT), (BIGINT, BIGINT, BIGINT) or (TIMESTAMP, TIMESTAMP, INTERVAL)", name, strings.Join(ts, ", "))
	}
	if len(args) < 1 || len(args) > 3 {
		return g, sig()
	}
	temporal := false
	for _, a := range args[:min(len(args), 2)] {
		switch a.Type().ID() {
		case arrow.DATE32, arrow.DATE64, arrow.TIMESTAMP:
			temporal = true
		}
	}
	if temporal {
		if len(args) != 3 || !nullOr(args[2].Type(), arrow.INTERVAL_MONTH_DAY_NANO) {
			return g, sig()
		}
		ts := &arrow.TimestampType{Unit: arrow.Microsecond}
		for _, a := range args[:2] {
			if t, ok := a.Type().(*arrow.TimestampType); ok && t.TimeZone != "" {
				return g, unsupportedf("%s over TIMESTAMP WITH TIME ZONE", name)
			}
		}
		out := make([]vec.Expr, 3)
		for i, a := range args[:2] {
			switch a.Type().ID() {
			case arrow.DATE32, arrow.DATE64, arrow.TIMESTAMP, arrow.NULL:
			default:
				return g, sig()
			}
			c, err := vec.NewCast(a, ts)
			if err != nil {
				return g, err
			}
			out[i] = c
		}
		c, err := vec.ImplicitCast(args[2], arrow.FixedWidthTypes.MonthDayNanoInterval)
		if err != nil {
			return g, err
		}
		out[2] = c
		g.Args, g.T = out, ts
		return g, nil
	}
	for _, a := range args {
		if t := a.Type(); !vec.IsInteger(t) && t.ID() != arrow.NULL {
			return g, sig()
		}
	}
	one := vec.NewLiteral(scalar.NewInt64Scalar(1))
	zero := vec.NewLiteral(scalar.NewInt64Scalar(0))
	switch len(args) {
	case 1:
		args = []vec.Expr{zero, args[0], one}
	case 2:
		args = []vec.Expr{args[0], args[1], one}
	}
	out := make([]vec.Expr, 3)
	for i, a := range args {
		c, err := vec.ImplicitCast(a, tInt64)
		if err != nil {
			return g, err
		}
		out[i] = c
	}
	g.Args = out
	return g, nil
}

func nullOr(t arrow.DataType, id arrow.Type) bool { return t.ID() == id || t.ID() == arrow.NULL }

// unnestCtx collects the UNNEST calls of one select list.
type unnestCtx struct {
	gens []exec.Generator
}

// unnestRef stands for generator k's column until the Unnest node exists.
type unnestRef struct {
	k int
	t arrow.DataType
	s string
}

func (r *unnestRef) Type() arrow.DataType             { return r.t }
func (r *unnestRef) Nullable() bool                   { return true }
func (r *unnestRef) Children() []vec.Expr             { return nil }
func (r *unnestRef) WithChildren([]vec.Expr) vec.Expr { return r }
func (r *unnestRef) String() string                   { return r.s }
func (r *unnestRef) Eval(*vec.Ctx, arrow.RecordBatch) (arrow.Array, error) {
	return nil, unsupportedf("%s outside the select list", r.s)
}

// add binds unnest(list) in a select list.
func (u *unnestCtx) add(b *binder, ec *exprCtx, x *sqlparser.FuncExpr) (vec.Expr, error) {
	if len(x.Exprs) != 1 || x.Distinct {
		return nil, invalidf("UNNEST takes one list")
	}
	inner := *ec
	inner.unn, inner.win = nil, nil
	inner.what = "an UNNEST argument"
	a, err := b.selectExprArg(&inner, x.Exprs[0])
	if err != nil {
		return nil, err
	}
	g, err := tableGen("unnest", []vec.Expr{a}, false)
	if err != nil {
		return nil, err
	}
	g.Name = "__unnest" + itoa(len(u.gens))
	u.gens = append(u.gens, g)
	return &unnestRef{k: len(u.gens) - 1, t: g.T, s: "unnest(" + a.String() + ")"}, nil
}

// apply puts the Unnest over n and replaces the references in exprs and
// keys by its columns.
func (u *unnestCtx) apply(n Node, exprs []vec.Expr, keys []exec.SortKey) (Node, error) {
	if u == nil || len(u.gens) == 0 {
		return n, nil
	}
	base := len(n.Schema())
	un := &Unnest{Input: n, Gens: u.gens}
	s := un.Schema()
	repl := func(e vec.Expr) (vec.Expr, error) {
		return vec.Transform(e, func(x vec.Expr) (vec.Expr, error) {
			if r, ok := x.(*unnestRef); ok {
				return s.Col(base + r.k), nil
			}
			return x, nil
		})
	}
	var err error
	for i := range exprs {
		if exprs[i], err = repl(exprs[i]); err != nil {
			return nil, err
		}
	}
	for i := range keys {
		if keys[i].Expr, err = repl(keys[i].Expr); err != nil {
			return nil, err
		}
	}
	return un, nil
}

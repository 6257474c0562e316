package logical

import (
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/xwb1989/sqlparser"

	"github.com/paimon-flightsql/paimon-flightsql/planner/exec"
	"github.com/paimon-flightsql/paimon-flightsql/planner/parse"
	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

// winCtx collects the window functions of one SELECT.
type winCtx struct {
	funcs []winEntry
}

type winEntry struct {
	fn    exec.WindowFunc
	part  []vec.Expr
	order []exec.SortKey
	key   string // partition + order, to share Window nodes
}

// winRef stands for window function k until the Window node exists.
type winRef struct {
	k int
	t arrow.DataType
	s string
}

func (r *winRef) Type() arrow.DataType             { return r.t }
func (r *winRef) Nullable() bool                   { return true }
func (r *winRef) Children() []vec.Expr             { return nil }
func (r *winRef) WithChildren([]vec.Expr) vec.Expr { return r }
func (r *winRef) String() string                   { return r.s }
func (r *winRef) Eval(*vec.Ctx, arrow.RecordBatch) (arrow.Array, error) {
	return nil, unsupportedf("window function %s outside the select list", r.s)
}

// add binds paimon_window(f(args), N).
func (w *winCtx) add(b *binder, ec *exprCtx, x *sqlparser.FuncExpr) (vec.Expr, error) {
	if len(x.Exprs) != 2 {
		return nil, invalidf("bad window function")
	}
	ae, ok := x.Exprs[0].(*sqlparser.AliasedExpr)
	ne, ok2 := x.Exprs[1].(*sqlparser.AliasedExpr)
	if !ok || !ok2 {
		return nil, invalidf("bad window function")
	}
	f, ok := ae.Expr.(*sqlparser.FuncExpr)
	nv, ok2 := ne.Expr.(*sqlparser.SQLVal)
	if !ok || !ok2 {
		return nil, invalidf("OVER needs a function call, got %s", sqlparser.String(ae.Expr))
	}
	idx, err := strconv.Atoi(string(nv.Val))
	if err != nil || idx < 0 || idx >= len(b.stmt.Windows) {
		return nil, invalidf("bad window reference")
	}
	spec := b.stmt.Windows[idx]
	inner := *ec
	inner.win = nil
	inner.what = "a window function"
	name := f.Name.Lowered()
	fn, isWin := windowOnly[name]
	if !isWin {
		if fn, ok = aggNames[name]; !ok {
			return nil, invalidf("%s is not a window or aggregate function", strings.ToUpper(name))
		}
	}
	if f.Distinct && isWin {
		return nil, invalidf("DISTINCT is only allowed in aggregate window functions, not %s", strings.ToUpper(name))
	}
	var args []vec.Expr
	for _, se := range f.Exprs {
		if _, star := se.(*sqlparser.StarExpr); star {
			if fn != "COUNT" {
				return nil, invalidf("* is only allowed in COUNT(*)")
			}
			fn = "COUNT_STAR"
			continue
		}
		a, err := b.selectExprArg(&inner, se)
		if err != nil {
			return nil, err
		}
		args = append(args, a)
	}
	if fn == "COUNT" && len(args) == 0 {
		fn = "COUNT_STAR"
	}
	if !isWin {
		// MEDIAN/QUANTILE: the same typing as the GROUP BY aggregate.
		ag := exec.AggExpr{Func: fn, Args: args}
		if err := quantileArgs(&ag, false); err != nil {
			return nil, err
		}
		fn, args = ag.Func, ag.Args
	}
	if (fn == "LAG" || fn == "LEAD") && len(args) == 3 && args[2].Type().ID() != arrow.NULL && !arrow.TypeEqual(args[2].Type(), args[0].Type()) {
		// The default takes the argument's type (DuckDB): LAG(price, 1, 0).
		d, err := vec.ImplicitCast(args[2], args[0].Type())
		if err != nil {
			return nil, err
		}
		args[2] = d
	}
	e := winEntry{fn: exec.WindowFunc{Func: fn, Args: args, Distinct: f.Distinct}}
	inner.what = "PARTITION BY"
	var keyParts []string
	for _, p := range spec.PartitionBy {
		v, err := b.expr(&inner, p)
		if err != nil {
			return nil, err
		}
		e.part = append(e.part, v)
		keyParts = append(keyParts, v.String())
	}
	keyParts = append(keyParts, "|")
	inner.what = "a window ORDER BY"
	for _, o := range spec.OrderBy {
		v, err := b.expr(&inner, o.Expr)
		if err != nil {
			return nil, err
		}
		k := b.sortKey(o, v)
		e.order = append(e.order, k)
		keyParts = append(keyParts, sortList([]exec.SortKey{k}))
	}
	e.key = strings.Join(keyParts, ",")
	if spec.Frame != nil {
		fr, err := b.frame(spec.Frame)
		if err != nil {
			return nil, err
		}
		e.fn.Frame = fr
	}
	t, err := exec.WindowResultType(fn, argTypes(args))
	if err != nil {
		return nil, err
	}
	k := len(w.funcs)
	e.fn.Name = "__win" + itoa(k)
	w.funcs = append(w.funcs, e)
	return &winRef{k: k, t: t, s: displayName(x)}, nil
}

func (b *binder) frame(f *parse.Frame) (*exec.Frame, error) {
	conv := func(fb parse.FrameBound) (exec.FrameBound, error) {
		var out exec.FrameBound
		switch fb.Kind {
		case parse.UnboundedPreceding:
			out.Kind = exec.UnboundedPreceding
		case parse.Preceding:
			out.Kind = exec.Preceding
		case parse.CurrentRow:
			out.Kind = exec.CurrentRow
		case parse.Following:
			out.Kind = exec.Following
		case parse.UnboundedFollowing:
			out.Kind = exec.UnboundedFollowing
		}
		if fb.Offset != nil && !f.Rows && !f.Groups {
			// RANGE: a constant of the ORDER BY key's kind (number or
			// INTERVAL), checked against the key by the Window operator.
			x, err := b.expr(&exprCtx{sc: &scope{}, what: "a RANGE frame offset"}, fb.Offset)
			if err != nil {
				return out, err
			}
			if x, err = vec.Fold(x); err != nil {
				return out, err
			}
			l, ok := x.(*vec.Literal)
			if !ok {
				return out, unsupportedf("RANGE frame offset %s is not a constant", sqlparser.String(fb.Offset))
			}
			out.Value = l.Value
		} else if fb.Offset != nil {
			n, err := b.constInt(fb.Offset, "a window frame offset")
			if err != nil {
				return out, err
			}
			out.Offset = n
		}
		return out, nil
	}
	s, err := conv(f.Start)
	if err != nil {
		return nil, err
	}
	e, err := conv(f.End)
	if err != nil {
		return nil, err
	}
	return &exec.Frame{Rows: f.Rows, Groups: f.Groups, Start: s, End: e, Exclude: int(f.Exclude)}, nil
}

// build stacks Window nodes (one per distinct PARTITION BY/ORDER BY) on n
// and returns the position of each function's column after n's columns.
func (w *winCtx) build(n Node) (Node, map[int]int, error) {
	pos := map[int]int{}
	done := make([]bool, len(w.funcs))
	next := 0
	for i := range w.funcs {
		if done[i] {
			continue
		}
		node := &Window{Input: n, PartitionBy: w.funcs[i].part, OrderBy: w.funcs[i].order}
		for j := i; j < len(w.funcs); j++ {
			if !done[j] && w.funcs[j].key == w.funcs[i].key {
				done[j] = true
				node.Funcs = append(node.Funcs, w.funcs[j].fn)
				pos[j] = next
				next++
			}
		}
		n = node
	}
	return n, pos, nil
}

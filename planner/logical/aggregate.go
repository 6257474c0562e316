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

// aggCtx binds expressions after GROUP BY: group expressions and
// aggregate calls become columns of the Aggregate node's output.
type aggCtx struct {
	in         *exprCtx
	groups     []vec.Expr
	groupNames []string
	groupQual  []string
	groupKeys  []string
	sets       [][]int
	aggs       []exec.AggExpr
	aggKeys    []string
	aggTypes   []arrow.DataType
	aggNull    []bool
	pending    bool
	schema     Schema
	// shifted: SUM(x ± c) rewritten as SUM(x) ± c*COUNT(x), by key.
	shifted  map[string]shiftedSum
	shiftKey string // the last shifted sum aggOf returned
}

type shiftedSum struct {
	sum, count int
	c          *vec.Literal
	neg        bool
}

// sumShift recognises SUM(x + c), SUM(c + x) and SUM(x - c) over integers:
// SUM(x) + c*COUNT(x) exactly (rows where x is NULL count in neither, and
// no rows give NULL + c*0 = NULL), so many such sums share one SUM and one
// COUNT (ClickBench Q30 sums ResolutionWidth + 0..89).
func sumShift(ag exec.AggExpr) (vec.Expr, *vec.Literal, bool, bool) {
	if ag.Func != "SUM" || ag.Distinct || ag.Filter != nil || len(ag.Args) != 1 {
		return nil, nil, false, false
	}
	ar, ok := ag.Args[0].(*vec.Arith)
	if !ok || (ar.Op != "+" && ar.Op != "-") || !vec.IsInteger(ar.T) {
		return nil, nil, false, false
	}
	if l, ok := ar.R.(*vec.Literal); ok && l.Value.IsValid() && vec.IsInteger(l.Type()) && vec.IsInteger(ar.L.Type()) {
		return ar.L, l, ar.Op == "-", true
	}
	if l, ok := ar.L.(*vec.Literal); ok && ar.Op == "+" && l.Value.IsValid() && vec.IsInteger(l.Type()) && vec.IsInteger(ar.R.Type()) {
		return ar.R, l, false, true
	}
	return nil, nil, false, false
}

func (a *aggCtx) addGroup(e vec.Expr, name string) int {
	k := e.String()
	for i, g := range a.groupKeys {
		if g == k {
			return i
		}
	}
	qual := ""
	if c, ok := e.(*vec.Column); ok {
		f := a.in.sc.fields[c.Index]
		qual = f.Qual
		if name == "" {
			name = f.Name
		}
	}
	if name == "" {
		name = e.String()
	}
	a.groups = append(a.groups, e)
	a.groupNames = append(a.groupNames, name)
	a.groupQual = append(a.groupQual, qual)
	a.groupKeys = append(a.groupKeys, k)
	return len(a.groups) - 1
}

// groupBy binds the GROUP BY list (ordinals and select aliases included;
// ROLLUP, CUBE and GROUPING SETS expand into sets).
func (b *binder) groupBy(a *aggCtx, gb sqlparser.GroupBy, items []selectItem) error {
	a.in.what = "GROUP BY"
	if len(gb) == 1 {
		if f, ok := gb[0].(*sqlparser.FuncExpr); ok && f.Name.Lowered() == "paimon_group_all" {
			// GROUP BY ALL (DuckDB): every select item without an aggregate
			// or a window function, by position.
			gb = nil
			for i, it := range items {
				if it.expr != nil && (containsAgg(it.expr) || hasWindow(it.expr)) {
					continue
				}
				gb = append(gb, sqlparser.NewIntVal([]byte(strconv.Itoa(i+1))))
			}
		}
	}
	bindOne := func(e sqlparser.Expr) (int, error) {
		if idx, ok := ordinal(e, len(items)); ok {
			if idx < 0 {
				return 0, invalidf("GROUP BY position %s is not in the select list", sqlparser.String(e))
			}
			it := items[idx]
			if it.col >= 0 {
				return a.addGroup(a.in.sc.fields.Col(it.col), ""), nil
			}
			if containsAgg(it.expr) {
				return 0, invalidf("GROUP BY position %d refers to an aggregate", idx+1)
			}
			e = it.expr
		} else if c, ok := e.(*sqlparser.ColName); ok && c.Qualifier.IsEmpty() {
			if i, _ := a.in.sc.resolve("", c.Name.String()); i < 0 {
				if k := aliasIndex(items, c.Name.String()); k >= 0 && items[k].expr != nil {
					e = items[k].expr
				}
			}
		}
		x, err := b.expr(a.in, e)
		if err != nil {
			return 0, err
		}
		return a.addGroup(x, ""), nil
	}
	var sets [][]int
	multi := false
	var plain []int
	for _, g := range gb {
		f, ok := g.(*sqlparser.FuncExpr)
		if !ok {
			i, err := bindOne(g)
			if err != nil {
				return err
			}
			plain = append(plain, i)
			continue
		}
		name := f.Name.Lowered()
		switch name {
		case "rollup", "cube", "paimon_grouping_sets":
			multi = true
		default:
			i, err := bindOne(g)
			if err != nil {
				return err
			}
			plain = append(plain, i)
			continue
		}
		var elems [][]int
		for _, se := range f.Exprs {
			ae, ok := se.(*sqlparser.AliasedExpr)
			if !ok {
				return invalidf("bad %s element", strings.ToUpper(name))
			}
			var idxs []int
			var parts []sqlparser.Expr
			if sf, ok := ae.Expr.(*sqlparser.FuncExpr); ok && sf.Name.Lowered() == "paimon_set" {
				for _, p := range sf.Exprs {
					if pe, ok := p.(*sqlparser.AliasedExpr); ok {
						parts = append(parts, pe.Expr)
					}
				}
			} else if t, ok := ae.Expr.(sqlparser.ValTuple); ok {
				parts = t
			} else {
				parts = []sqlparser.Expr{ae.Expr}
			}
			for _, p := range parts {
				i, err := bindOne(p)
				if err != nil {
					return err
				}
				idxs = append(idxs, i)
			}
			elems = append(elems, idxs)
		}
		var these [][]int
		switch name {
		case "rollup":
			for k := len(elems); k >= 0; k-- {
				var s []int
				for _, e := range elems[:k] {
					s = append(s, e...)
				}
				these = append(these, s)
			}
		case "cube":
			n := len(elems)
			if n > 12 {
				return invalidf("CUBE of %d elements is too large", n)
			}
			for mask := (1 << n) - 1; mask >= 0; mask-- {
				var s []int
				for i := 0; i < n; i++ {
					if mask&(1<<(n-1-i)) != 0 {
						s = append(s, elems[i]...)
					}
				}
				these = append(these, s)
			}
		default:
			these = elems
		}
		if sets == nil {
			sets = these
		} else {
			// cross product of grouping specifications
			var cross [][]int
			for _, x := range sets {
				for _, y := range these {
					cross = append(cross, append(append([]int{}, x...), y...))
				}
			}
			sets = cross
		}
	}
	if multi {
		for i := range sets {
			sets[i] = append(append([]int{}, plain...), sets[i]...)
		}
		a.sets = sets
	}
	return nil
}

// collect registers every aggregate call in e (outside subqueries).
func (a *aggCtx) collect(b *binder, e sqlparser.Expr) error {
	var err error
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		if err != nil {
			return false, nil
		}
		switch x := n.(type) {
		case *sqlparser.Subquery:
			return false, nil
		case *sqlparser.FuncExpr:
			if x.Name.Lowered() == "paimon_window" {
				// SUM(SUM(x)) OVER (...): the window function is not an
				// aggregate of the GROUP BY; its arguments may hold some.
				if len(x.Exprs) > 0 {
					if ae, ok := x.Exprs[0].(*sqlparser.AliasedExpr); ok {
						if f, ok := ae.Expr.(*sqlparser.FuncExpr); ok {
							for _, arg := range f.Exprs {
								if ae2, ok := arg.(*sqlparser.AliasedExpr); ok && err == nil {
									err = a.collect(b, ae2.Expr)
								}
							}
						}
					}
				}
				// ... and so may its PARTITION BY and ORDER BY
				// (RANK() OVER (ORDER BY COUNT(*) DESC)).
				if spec := windowSpecOf(b, x); spec != nil {
					for _, pe := range spec.PartitionBy {
						if err == nil {
							err = a.collect(b, pe)
						}
					}
					for _, o := range spec.OrderBy {
						if err == nil {
							err = a.collect(b, o.Expr)
						}
					}
				}
				return false, nil
			}
			if x.Name.Lowered() == "paimon_filter" || isAggCall(x) {
				_, err = a.aggOf(b, x)
				return false, nil
			}
		case *sqlparser.GroupConcatExpr:
			_, err = a.aggOf(b, x)
			return false, nil
		}
		return true, nil
	}, e)
	return err
}

// aggOf binds an aggregate call and returns its index.
func (a *aggCtx) aggOf(b *binder, e sqlparser.Expr) (int, error) {
	var filter vec.Expr
	if f, ok := e.(*sqlparser.FuncExpr); ok && f.Name.Lowered() == "paimon_filter" {
		if len(f.Exprs) != 2 {
			return 0, invalidf("bad FILTER clause")
		}
		ae, ok1 := f.Exprs[0].(*sqlparser.AliasedExpr)
		ce, ok2 := f.Exprs[1].(*sqlparser.AliasedExpr)
		if !ok1 || !ok2 || !isAggCall(ae.Expr) {
			return 0, invalidf("FILTER needs an aggregate")
		}
		a.in.what = "FILTER"
		c, err := b.expr(a.in, ce.Expr)
		if err != nil {
			return 0, err
		}
		filter, e = c, ae.Expr
	}
	e, order, err := b.unwrapAggOrder(e)
	if err != nil {
		return 0, err
	}
	a.in.what = "an aggregate argument"
	var ag exec.AggExpr
	switch x := e.(type) {
	case *sqlparser.GroupConcatExpr:
		if len(x.OrderBy) > 0 {
			order = &parse.AggOrder{OrderBy: x.OrderBy}
		}
		ag.Func = "STRING_AGG"
		ag.Distinct = x.Distinct != ""
		for _, se := range x.Exprs {
			v, err := b.selectExprArg(a.in, se)
			if err != nil {
				return 0, err
			}
			ag.Args = append(ag.Args, v)
		}
		sep := x.Separator
		sep = strings.TrimPrefix(strings.TrimSpace(sep), "separator ")
		sep = strings.Trim(sep, "'")
		if x.Separator == "" {
			sep = ","
		}
		ag.Args = append(ag.Args[:1], vec.StringLiteral(sep))
	case *sqlparser.FuncExpr:
		ag.Func = aggNames[x.Name.Lowered()]
		ag.Distinct = x.Distinct
		for _, se := range x.Exprs {
			if _, star := se.(*sqlparser.StarExpr); star {
				if ag.Func != "COUNT" || len(x.Exprs) != 1 {
					return 0, invalidf("* is only allowed in COUNT(*)")
				}
				ag.Func = "COUNT_STAR"
				continue
			}
			if ae, ok := se.(*sqlparser.AliasedExpr); ok && containsAgg(ae.Expr) {
				return 0, invalidf("aggregate calls cannot be nested (%s)", sqlparser.String(x))
			}
			if ae, ok := se.(*sqlparser.AliasedExpr); ok && ag.Func == "COUNT" && len(x.Exprs) == 1 {
				if tup, ok := ae.Expr.(sqlparser.ValTuple); ok {
					// COUNT([DISTINCT] (a, b)): row values, NULL fields included.
					for _, te := range tup {
						v, err := b.expr(a.in, te)
						if err != nil {
							return 0, err
						}
						ag.Args = append(ag.Args, v)
					}
					ag.Func = "COUNT_ROW"
					continue
				}
			}
			v, err := b.selectExprArg(a.in, se)
			if err != nil {
				return 0, err
			}
			ag.Args = append(ag.Args, v)
		}
		if ag.Func == "COUNT" && len(ag.Args) == 0 {
			ag.Func = "COUNT_STAR"
		}
		if err := quantileArgs(&ag, true); err != nil {
			return 0, err
		}
	}
	if order != nil {
		name := ""
		if f, ok := e.(*sqlparser.FuncExpr); ok {
			name = f.Name.Lowered()
		}
		if err := a.aggOrderKeys(b, &ag, name, order.OrderBy, order.WithinGroup); err != nil {
			return 0, err
		}
	}
	if ag.Func == "LAST" && len(ag.OrderBy) == 0 {
		return 0, unsupportedf("LAST without ORDER BY (write LAST(x ORDER BY k))")
	}
	ag.Filter = filter
	key := aggString(ag)
	if x, c, neg, ok := sumShift(ag); ok {
		if sh, done := a.shifted[key]; done {
			a.shiftKey = key
			return -1 - sh.sum, nil
		}
		si, err := a.register(exec.AggExpr{Func: "SUM", Args: []vec.Expr{x}})
		if err != nil {
			return 0, err
		}
		ci, err := a.register(exec.AggExpr{Func: "COUNT", Args: []vec.Expr{x}})
		if err != nil {
			return 0, err
		}
		if a.shifted == nil {
			a.shifted = map[string]shiftedSum{}
		}
		a.shifted[key] = shiftedSum{sum: si, count: ci, c: c, neg: neg}
		a.shiftKey = key
		return -1 - si, nil
	}
	return a.register(ag)
}

// register adds an aggregate (deduplicated by its text) and returns its index.
func (a *aggCtx) register(ag exec.AggExpr) (int, error) {
	key := aggString(ag)
	for i, k := range a.aggKeys {
		if k == key {
			return i, nil
		}
	}
	if !a.pending && a.schema != nil {
		return 0, invalidf("aggregate %s was not collected", key)
	}
	t, nullable, err := exec.AggResultType(ag.Func, argTypes(ag.Args))
	if err != nil {
		return 0, err
	}
	ag.Name = key
	a.aggs = append(a.aggs, ag)
	a.aggKeys = append(a.aggKeys, key)
	a.aggTypes = append(a.aggTypes, t)
	a.aggNull = append(a.aggNull, nullable)
	return len(a.aggs) - 1, nil
}

// node builds the Aggregate over input.
func (a *aggCtx) node(input Node) (Node, error) {
	s := make(Schema, 0, len(a.groups)+len(a.aggs)+1)
	for i, g := range a.groups {
		s = append(s, Field{Qual: a.groupQual[i], Name: a.groupNames[i], Type: g.Type(), Nullable: g.Nullable() || len(a.sets) > 0})
	}
	for i := range a.aggs {
		s = append(s, Field{Name: "__agg" + itoa(i), Type: a.aggTypes[i], Nullable: a.aggNull[i], Hidden: true})
	}
	if len(a.sets) > 0 {
		s = append(s, Field{Name: "__grouping_id", Type: arrow.PrimitiveTypes.Int64, Hidden: true})
	}
	a.schema = s
	return &Aggregate{Input: input, Groups: a.groups, GroupNames: a.groupNames, Aggs: a.aggs, GroupingSets: a.sets, S: s}, nil
}

// match binds e after aggregation when it is an aggregate call or a group
// expression; ok=false lets the caller bind e's parts.
func (a *aggCtx) match(b *binder, ec *exprCtx, e sqlparser.Expr) (vec.Expr, bool, error) {
	switch x := e.(type) {
	case *sqlparser.FuncExpr:
		name := x.Name.Lowered()
		if name == "paimon_filter" || isAggCall(x) {
			i, err := a.aggOf(b, x)
			if err != nil {
				return nil, true, err
			}
			if i < 0 {
				r, err := a.shiftedExpr(a.shifted[a.shiftKey])
				return r, true, err
			}
			return a.schema.Col(len(a.groups) + i), true, nil
		}
		if name == "grouping" {
			r, err := a.grouping(b, x)
			return r, true, err
		}
		if name == "paimon_window" {
			return nil, false, nil
		}
	case *sqlparser.GroupConcatExpr:
		i, err := a.aggOf(b, x)
		if err != nil {
			return nil, true, err
		}
		return a.schema.Col(len(a.groups) + i), true, nil
	case *sqlparser.Subquery, *sqlparser.ExistsExpr, *sqlparser.SQLVal, *sqlparser.NullVal, sqlparser.BoolVal:
		return nil, false, nil
	}
	if containsAgg(e) || containsSpecial(e) {
		return nil, false, nil
	}
	x, err := b.expr(a.in, e)
	if err == nil {
		k := x.String()
		for i, g := range a.groupKeys {
			if g == k {
				return a.schema.Col(i), true, nil
			}
		}
		if _, ok := x.(*vec.Literal); ok {
			return x, true, nil
		}
	}
	if c, ok := e.(*sqlparser.ColName); ok {
		if err != nil {
			return nil, true, err
		}
		return nil, true, invalidf("column %s must appear in the GROUP BY clause or be used in an aggregate function", sqlparser.String(c))
	}
	return nil, false, nil
}

// containsSpecial: subqueries or window functions (bound only post-aggregation).
func containsSpecial(e sqlparser.Expr) bool {
	found := false
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		switch x := n.(type) {
		case *sqlparser.Subquery, *sqlparser.ExistsExpr:
			found = true
		case *sqlparser.FuncExpr:
			if x.Name.Lowered() == "paimon_window" || x.Name.Lowered() == "grouping" {
				found = true
			}
		}
		return !found, nil
	}, e)
	return found
}

// grouping implements GROUPING(g1, ...): bit i set when g_i is not grouped
// in the row's grouping set (the first argument is the most significant).
func (a *aggCtx) grouping(b *binder, x *sqlparser.FuncExpr) (vec.Expr, error) {
	if len(a.sets) == 0 {
		return vec.NumberLiteral("0")
	}
	gid := a.schema.Col(len(a.schema) - 1)
	var out vec.Expr
	for _, se := range x.Exprs {
		v, err := b.selectExprArg(a.in, se)
		if err != nil {
			return nil, err
		}
		gi := -1
		for i, k := range a.groupKeys {
			if k == v.String() {
				gi = i
			}
		}
		if gi < 0 {
			return nil, invalidf("GROUPING() argument %s is not a GROUP BY expression", v.String())
		}
		// exec.GroupingID: bit (n-1-gi) of the id is set when key gi is
		// not grouped; (id // 2^(n-1-gi)) % 2 extracts it.
		shift := len(a.groupKeys) - 1 - gi
		q, err := vec.NewArith("div", gid, mustNum(strconv.FormatInt(int64(1)<<shift, 10)))
		if err != nil {
			return nil, err
		}
		bit, err := vec.NewArith("%", q, mustNum("2"))
		if err != nil {
			return nil, err
		}
		if out == nil {
			out = bit
			continue
		}
		two, _ := vec.NumberLiteral("2")
		sh, err := vec.NewArith("*", out, two)
		if err != nil {
			return nil, err
		}
		if out, err = vec.NewArith("+", sh, bit); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// quantileArgs types MEDIAN(x) as QUANTILE_CONT(x, 0.5) and casts a
// non-DECIMAL argument of QUANTILE_CONT/QUANTILE_DISC to DOUBLE (the result
// is DOUBLE); a DECIMAL argument stays, and so does its type in the result
// (DuckDB's typing and interpolation, exec/agg_quantcore.go). With typed
// (GROUP BY aggregates, not windows) QUANTILE_DISC of any other orderable
// type (integers, DATE, TIMESTAMP, VARCHAR, BOOLEAN) keeps the argument
// and its type, as DuckDB (exec runs it as an ordered aggregate).
func quantileArgs(ag *exec.AggExpr, typed bool) error {
	switch ag.Func {
	case "MEDIAN":
		if len(ag.Args) != 1 {
			return invalidf("MEDIAN takes one argument")
		}
		ag.Func = "QUANTILE_CONT"
		ag.Args = append(ag.Args, mustNum("0.5"))
	case "QUANTILE_CONT", "QUANTILE_DISC":
		if len(ag.Args) != 2 {
			return invalidf("%s takes two arguments (the value and a constant fraction)", ag.Func)
		}
		if _, ok := vec.IsConst(ag.Args[1]); !ok {
			return unsupportedf("%s with a non-constant or list fraction %s", ag.Func, ag.Args[1])
		}
	default:
		return nil
	}
	t := ag.Args[0].Type()
	if typed && ag.Func == "QUANTILE_DISC" && t != nil && t.ID() != arrow.NULL && t.ID() != arrow.DECIMAL128 &&
		t.ID() != arrow.FLOAT64 && t.ID() != arrow.FLOAT32 && t.ID() != arrow.FLOAT16 && exec.Orderable(t) && !isListType(t) {
		return nil
	}
	if !vec.IsNumeric(t) && t.ID() != arrow.NULL {
		return unsupportedf("%s over %s", ag.Func, vec.TypeName(t))
	}
	if t.ID() == arrow.DECIMAL128 {
		return nil
	}
	c, err := vec.NewCast(ag.Args[0], arrow.PrimitiveTypes.Float64)
	if err != nil {
		return err
	}
	ag.Args[0] = c
	return nil
}

func isListType(t arrow.DataType) bool {
	return t.ID() == arrow.LIST || t.ID() == arrow.LARGE_LIST || t.ID() == arrow.FIXED_SIZE_LIST
}

// windowSpecOf returns the window specification paimon_window(f(args), N)
// refers to, or nil when x is malformed (the binder reports that).
func windowSpecOf(b *binder, x *sqlparser.FuncExpr) *parse.WindowSpec {
	if len(x.Exprs) != 2 {
		return nil
	}
	ne, ok := x.Exprs[1].(*sqlparser.AliasedExpr)
	if !ok {
		return nil
	}
	nv, ok := ne.Expr.(*sqlparser.SQLVal)
	if !ok {
		return nil
	}
	idx, err := strconv.Atoi(string(nv.Val))
	if err != nil || idx < 0 || idx >= len(b.stmt.Windows) {
		return nil
	}
	return b.stmt.Windows[idx]
}

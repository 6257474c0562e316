package logical

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/xwb1989/sqlparser"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/planner/parse"
	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

func invalidf(format string, a ...any) error { return paimon.Errorf(catalog.ErrInvalid, format, a...) }
func unsupportedf(format string, a ...any) error {
	return paimon.Errorf(catalog.ErrUnsupported, format, a...)
}

// exprCtx says how names and special calls resolve while binding one
// expression.
type exprCtx struct {
	sc *scope
	// rel is the relation the expression is bound over; subqueries extend it
	// with joins (nil: subqueries not allowed here).
	rel *relation
	// agg, when set, binds in post-aggregation mode.
	agg *aggCtx
	// win collects window functions (nil: not allowed).
	win *winCtx
	// what names the clause for messages ("WHERE", "GROUP BY", ...).
	what string
	// ctes are the WITH names visible here (for subqueries).
	ctes *cteScope
	// unn collects UNNEST calls (nil: not allowed; tablefn.go).
	unn *unnestCtx
}

// relation is a plan under construction that subqueries may extend.
type relation struct {
	node Node
}

func (b *binder) expr(ec *exprCtx, e sqlparser.Expr) (vec.Expr, error) {
	if err := b.tick(); err != nil {
		return nil, err
	}
	if ec.agg != nil {
		if r, ok, err := ec.agg.match(b, ec, e); ok || err != nil {
			return r, err
		}
	}
	switch x := e.(type) {
	case *sqlparser.AndExpr, *sqlparser.OrExpr:
		return b.logic(ec, e)
	case *sqlparser.NotExpr:
		a, err := b.expr(ec, x.Expr)
		if err != nil {
			return nil, err
		}
		return vec.NewNot(a)
	case *sqlparser.ParenExpr:
		return b.expr(ec, x.Expr)
	case *sqlparser.ComparisonExpr:
		return b.comparison(ec, x)
	case *sqlparser.RangeCond:
		v, err := b.expr(ec, x.Left)
		if err != nil {
			return nil, err
		}
		lo, err := b.expr(ec, x.From)
		if err != nil {
			return nil, err
		}
		hi, err := b.expr(ec, x.To)
		if err != nil {
			return nil, err
		}
		typeParam(v, lo)
		typeParam(v, hi)
		typeParam(lo, v)
		ge, err := vec.NewCompare(">=", v, lo)
		if err != nil {
			return nil, err
		}
		le, err := vec.NewCompare("<=", v, hi)
		if err != nil {
			return nil, err
		}
		both, err := vec.NewAnd(ge, le)
		if err != nil {
			return nil, err
		}
		if x.Operator == sqlparser.NotBetweenStr {
			return vec.NewNot(both)
		}
		return both, nil
	case *sqlparser.IsExpr:
		a, err := b.expr(ec, x.Expr)
		if err != nil {
			return nil, err
		}
		switch x.Operator {
		case sqlparser.IsNullStr:
			return vec.NewIsNull(a, false)
		case sqlparser.IsNotNullStr:
			return vec.NewIsNull(a, true)
		case sqlparser.IsTrueStr:
			return vec.NewIsBool(a, true, false)
		case sqlparser.IsNotTrueStr:
			return vec.NewIsBool(a, true, true)
		case sqlparser.IsFalseStr:
			return vec.NewIsBool(a, false, false)
		case sqlparser.IsNotFalseStr:
			return vec.NewIsBool(a, false, true)
		}
		return nil, unsupportedf("%s", x.Operator)
	case *sqlparser.SQLVal:
		return b.sqlVal(x)
	case *sqlparser.NullVal:
		return vec.NullLiteral(arrow.Null), nil
	case sqlparser.BoolVal:
		return vec.BoolLiteral(bool(x)), nil
	case *sqlparser.ColName:
		return b.column(ec, x)
	case *sqlparser.BinaryExpr:
		return b.binary(ec, x)
	case *sqlparser.UnaryExpr:
		a, err := b.expr(ec, x.Expr)
		if err != nil {
			return nil, err
		}
		switch x.Operator {
		case sqlparser.UMinusStr:
			return vec.NewNeg(a)
		case sqlparser.UPlusStr:
			return a, nil
		case sqlparser.BangStr:
			return vec.NewNot(a)
		case sqlparser.TildaStr:
			return vec.NewCall("~", []vec.Expr{a})
		}
		return nil, unsupportedf("unary operator %q", strings.TrimSpace(x.Operator))
	case *sqlparser.IntervalExpr:
		return b.interval(ec, x)
	case *sqlparser.CaseExpr:
		return b.caseExpr(ec, x)
	case *sqlparser.FuncExpr:
		return b.funcExpr(ec, x)
	case *sqlparser.GroupConcatExpr:
		return nil, invalidf("GROUP_CONCAT is an aggregate and is not allowed in %s", ec.what)
	case *sqlparser.SubstrExpr:
		args := []sqlparser.Expr{x.Name, x.From}
		if x.To != nil {
			args = append(args, x.To)
		}
		return b.callAST(ec, "SUBSTRING", args)
	case *sqlparser.CollateExpr:
		return b.expr(ec, x.Expr)
	case *sqlparser.ConvertExpr:
		a, err := b.expr(ec, x.Expr)
		if err != nil {
			return nil, err
		}
		t, err := vec.CastTarget(sqlparser.String(x.Type))
		if err != nil {
			return nil, err
		}
		return vec.NewCast(a, t)
	case *sqlparser.Subquery:
		return b.scalarSubquery(ec, x)
	case *sqlparser.ExistsExpr:
		return b.existsExpr(ec, x, false)
	case sqlparser.ValTuple: // (a, b): a STRUCT, as DuckDB's row(a, b)
		args, err := b.rowExprs(ec, x)
		if err != nil {
			return nil, err
		}
		return vec.NewCall("ROW", args)
	case *sqlparser.Default:
		return nil, unsupportedf("DEFAULT")
	case *sqlparser.MatchExpr:
		return nil, unsupportedf("MATCH ... AGAINST")
	case *sqlparser.ValuesFuncExpr:
		return nil, unsupportedf("VALUES()")
	case *sqlparser.ConvertUsingExpr:
		return nil, unsupportedf("CONVERT ... USING")
	}
	return nil, unsupportedf("expression %s", sqlparser.String(e))
}

// logic binds an AND/OR chain iteratively (chains of 50k terms are fine).
func (b *binder) logic(ec *exprCtx, e sqlparser.Expr) (vec.Expr, error) {
	isAnd := false
	if _, ok := e.(*sqlparser.AndExpr); ok {
		isAnd = true
	}
	var terms []sqlparser.Expr
	stack := []sqlparser.Expr{e}
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for {
			if p, ok := x.(*sqlparser.ParenExpr); ok {
				x = p.Expr
				continue
			}
			break
		}
		if a, ok := x.(*sqlparser.AndExpr); ok && isAnd {
			stack = append(stack, a.Right, a.Left)
			continue
		}
		if o, ok := x.(*sqlparser.OrExpr); ok && !isAnd {
			stack = append(stack, o.Right, o.Left)
			continue
		}
		terms = append(terms, x)
	}
	args := make([]vec.Expr, len(terms))
	for i, t := range terms {
		a, err := b.expr(ec, t)
		if err != nil {
			return nil, err
		}
		args[i] = a
	}
	if isAnd {
		return vec.NewAnd(args...)
	}
	return vec.NewOr(args...)
}

// typeParam gives an untyped parameter p the type of other.
func typeParam(p, other vec.Expr) {
	if x, ok := p.(*vec.Param); ok && (x.T == nil || x.T.ID() == arrow.NULL) {
		if t := other.Type(); t != nil && t.ID() != arrow.NULL {
			x.T = t
		}
	}
}

func (b *binder) comparison(ec *exprCtx, x *sqlparser.ComparisonExpr) (vec.Expr, error) {
	switch x.Operator {
	case sqlparser.InStr, sqlparser.NotInStr:
		if lt, ok := rowOf(x.Left); ok {
			if sq, ok := x.Right.(*sqlparser.Subquery); ok {
				return b.rowInSubquery(ec, lt, sq, x.Operator == sqlparser.NotInStr)
			}
			list, ok := x.Right.(sqlparser.ValTuple)
			if !ok {
				return nil, invalidf("IN needs a list or a subquery, got %s", sqlparser.String(x.Right))
			}
			return b.rowInList(ec, lt, list, x.Operator == sqlparser.NotInStr)
		}
		if sq, ok := x.Right.(*sqlparser.Subquery); ok {
			return b.inSubquery(ec, x.Left, sq, x.Operator == sqlparser.NotInStr)
		}
		l, err := b.expr(ec, x.Left)
		if err != nil {
			return nil, err
		}
		tuple, ok := x.Right.(sqlparser.ValTuple)
		if !ok {
			return nil, invalidf("IN needs a list or a subquery, got %s", sqlparser.String(x.Right))
		}
		list := make([]vec.Expr, len(tuple))
		for i, t := range tuple {
			if list[i], err = b.expr(ec, t); err != nil {
				return nil, err
			}
			typeParam(list[i], l)
		}
		if len(list) > 0 {
			typeParam(l, list[0])
		}
		if isStruct(l) {
			return structInList(l, list, x.Operator == sqlparser.NotInStr)
		}
		return vec.NewInList(l, list, x.Operator == sqlparser.NotInStr)
	}
	if sub, all, ok := quantifiedOperand(x.Right); ok {
		return b.quantified(ec, x.Operator, x.Left, sub, all)
	}
	if e, ok, err := b.rowComparison(ec, x); ok || err != nil {
		return e, err
	}
	l, err := b.expr(ec, x.Left)
	if err != nil {
		return nil, err
	}
	switch x.Operator {
	case sqlparser.LikeStr, sqlparser.NotLikeStr:
		ci := false
		right := x.Right
		if f, ok := right.(*sqlparser.FuncExpr); ok && f.Name.Lowered() == "paimon_ci" && len(f.Exprs) == 1 {
			if ae, ok := f.Exprs[0].(*sqlparser.AliasedExpr); ok {
				right, ci = ae.Expr, true
			}
		}
		p, err := b.expr(ec, right)
		if err != nil {
			return nil, err
		}
		typeParam(p, l)
		var esc byte = '\\'
		if x.Escape != nil {
			ev, ok := x.Escape.(*sqlparser.SQLVal)
			if !ok || ev.Type != sqlparser.StrVal || len(ev.Val) != 1 {
				return nil, invalidf("ESCAPE needs a one-character string")
			}
			esc = ev.Val[0]
		}
		return vec.NewLike(l, p, x.Operator == sqlparser.NotLikeStr, ci, esc)
	case sqlparser.RegexpStr, sqlparser.NotRegexpStr:
		p, err := b.expr(ec, x.Right)
		if err != nil {
			return nil, err
		}
		m, err := vec.NewCall("REGEXP_MATCHES", []vec.Expr{l, p})
		if err != nil {
			return nil, err
		}
		if x.Operator == sqlparser.NotRegexpStr {
			return vec.NewNot(m)
		}
		return m, nil
	}
	r, err := b.expr(ec, x.Right)
	if err != nil {
		return nil, err
	}
	typeParam(l, r)
	typeParam(r, l)
	if isStruct(l) && isStruct(r) {
		return structCompare(x.Operator, l, r)
	}
	return vec.NewCompare(x.Operator, l, r)
}

func (b *binder) binary(ec *exprCtx, x *sqlparser.BinaryExpr) (vec.Expr, error) {
	l, err := b.expr(ec, x.Left)
	if err != nil {
		return nil, err
	}
	r, err := b.expr(ec, x.Right)
	if err != nil {
		return nil, err
	}
	typeParam(l, r)
	typeParam(r, l)
	switch x.Operator {
	case sqlparser.PlusStr, sqlparser.MinusStr, sqlparser.MultStr, sqlparser.DivStr, sqlparser.ModStr, sqlparser.IntDivStr:
		return vec.NewArith(x.Operator, l, r)
	case parse.ConcatOp:
		return concatStrict(l, r)
	case sqlparser.BitOrStr, sqlparser.BitAndStr, sqlparser.ShiftLeftStr, sqlparser.ShiftRightStr:
		// the front end passes || as ConcatOp, so | here is bitwise
		return vec.NewCall(x.Operator, []vec.Expr{l, r})
	case sqlparser.BitXorStr: // DuckDB/PostgreSQL: ^ is exponentiation
		return vec.NewCall("POWER", []vec.Expr{l, r})
	}
	return nil, unsupportedf("operator %s", x.Operator)
}

func (b *binder) sqlVal(x *sqlparser.SQLVal) (vec.Expr, error) {
	switch x.Type {
	case sqlparser.StrVal:
		return vec.StringLiteral(string(x.Val)), nil
	case sqlparser.IntVal, sqlparser.FloatVal:
		return vec.NumberLiteral(string(x.Val))
	case sqlparser.HexNum:
		n, err := strconv.ParseInt(string(x.Val[2:]), 16, 64)
		if err != nil {
			return nil, invalidf("hex number %s does not fit BIGINT", x.Val)
		}
		return vec.NumberLiteral(strconv.FormatInt(n, 10))
	case sqlparser.ValArg:
		n, err := strconv.Atoi(strings.TrimPrefix(string(x.Val), ":v"))
		if err != nil || n < 1 {
			return nil, invalidf("bad parameter %s", x.Val)
		}
		return b.param(n - 1)
	}
	return nil, unsupportedf("literal %s", sqlparser.String(x))
}

// param is a bound value when the statement is bound with values, a typed
// placeholder otherwise.
func (b *binder) param(n int) (vec.Expr, error) {
	if b.params != nil {
		if n >= len(b.params) {
			return nil, invalidf("parameter %d is not bound (%d given)", n+1, len(b.params))
		}
		t := arrow.DataType(arrow.Null)
		if n < len(b.ptypes) && b.ptypes[n] != nil {
			t = b.ptypes[n]
		}
		v := b.params[n]
		// The server passes DATE parameters as days (paimon/predicate's
		// literal convention).
		if t.ID() == arrow.DATE32 {
			switch d := v.(type) {
			case int64:
				v = time.Unix(d*86400, 0).UTC()
			case int32:
				v = time.Unix(int64(d)*86400, 0).UTC()
			case int:
				v = time.Unix(int64(d)*86400, 0).UTC()
			}
		}
		s, err := vec.GoScalar(v, t)
		if err != nil {
			return nil, fmt.Errorf("parameter %d: %w", n+1, err)
		}
		return vec.NewLiteral(s), nil
	}
	for len(b.paramList) <= n {
		b.paramList = append(b.paramList, nil)
	}
	if b.paramList[n] == nil {
		// A type given by the caller (the bound value's, for a parameter
		// the context leaves untyped) wins; otherwise the context types it.
		t := arrow.DataType(arrow.Null)
		if n < len(b.ptypes) && b.ptypes[n] != nil {
			t = b.ptypes[n]
		}
		b.paramList[n] = &vec.Param{N: n, T: t}
	}
	return b.paramList[n], nil
}

func (b *binder) interval(ec *exprCtx, x *sqlparser.IntervalExpr) (vec.Expr, error) {
	var text string
	switch v := x.Expr.(type) {
	case *sqlparser.SQLVal:
		if v.Type != sqlparser.StrVal && v.Type != sqlparser.IntVal && v.Type != sqlparser.FloatVal {
			return nil, invalidf("INTERVAL needs a constant, got %s", sqlparser.String(v))
		}
		text = string(v.Val)
	case *sqlparser.UnaryExpr:
		if n, ok := v.Expr.(*sqlparser.SQLVal); ok && v.Operator == sqlparser.UMinusStr {
			text = "-" + string(n.Val)
		}
	}
	if text == "" {
		return nil, unsupportedf("INTERVAL with a non-constant value %s", sqlparser.String(x.Expr))
	}
	return vec.IntervalLiteral(text, x.Unit)
}

func (b *binder) caseExpr(ec *exprCtx, x *sqlparser.CaseExpr) (vec.Expr, error) {
	var operand vec.Expr
	var err error
	if x.Expr != nil {
		if operand, err = b.expr(ec, x.Expr); err != nil {
			return nil, err
		}
	}
	whens := make([]vec.Expr, len(x.Whens))
	thens := make([]vec.Expr, len(x.Whens))
	for i, w := range x.Whens {
		c, err := b.expr(ec, w.Cond)
		if err != nil {
			return nil, err
		}
		if operand != nil {
			typeParam(c, operand)
			if c, err = vec.NewCompare("=", operand, c); err != nil {
				return nil, err
			}
		}
		whens[i] = c
		if thens[i], err = b.expr(ec, w.Val); err != nil {
			return nil, err
		}
	}
	var els vec.Expr
	if x.Else != nil {
		if els, err = b.expr(ec, x.Else); err != nil {
			return nil, err
		}
	}
	return vec.NewCase(whens, thens, els)
}

// aggregate and window function names.
var aggNames = map[string]string{
	"count": "COUNT", "sum": "SUM", "avg": "AVG", "mean": "AVG", "min": "MIN", "max": "MAX",
	"bool_and": "BOOL_AND", "bool_or": "BOOL_OR", "every": "BOOL_AND", "any_value": "ANY_VALUE", "first": "ANY_VALUE", "last": "LAST",
	"stddev": "STDDEV_SAMP", "stddev_samp": "STDDEV_SAMP", "stddev_pop": "STDDEV_POP",
	"variance": "VAR_SAMP", "var_samp": "VAR_SAMP", "var_pop": "VAR_POP",
	"string_agg": "STRING_AGG", "listagg": "STRING_AGG", "list": "LIST", "array_agg": "LIST",
	"median": "MEDIAN", "quantile_cont": "QUANTILE_CONT", "quantile_disc": "QUANTILE_DISC", "quantile": "QUANTILE_DISC",
	"corr": "CORR", "covar_pop": "COVAR_POP", "covar_samp": "COVAR_SAMP",
	"regr_slope": "REGR_SLOPE", "regr_intercept": "REGR_INTERCEPT", "regr_count": "REGR_COUNT", "regr_r2": "REGR_R2",
	"regr_avgx": "REGR_AVGX", "regr_avgy": "REGR_AVGY", "regr_sxx": "REGR_SXX", "regr_syy": "REGR_SYY", "regr_sxy": "REGR_SXY",
	"arg_max": "ARG_MAX", "argmax": "ARG_MAX", "max_by": "ARG_MAX", "arg_min": "ARG_MIN", "argmin": "ARG_MIN", "min_by": "ARG_MIN",
	"mode": "MODE", "approx_count_distinct": "APPROX_COUNT_DISTINCT",
	"bit_and": "BIT_AND", "bit_or": "BIT_OR", "bit_xor": "BIT_XOR",
	"product": "PRODUCT", "geomean": "GEOMEAN", "geometric_mean": "GEOMEAN",
}

var windowOnly = map[string]string{
	"row_number": "ROW_NUMBER", "rank": "RANK", "dense_rank": "DENSE_RANK", "percent_rank": "PERCENT_RANK",
	"cume_dist": "CUME_DIST", "ntile": "NTILE", "lag": "LAG", "lead": "LEAD",
	"first_value": "FIRST_VALUE", "last_value": "LAST_VALUE", "nth_value": "NTH_VALUE",
}

func isAggCall(e sqlparser.Expr) bool {
	switch x := e.(type) {
	case *sqlparser.FuncExpr:
		_, ok := aggNames[x.Name.Lowered()]
		return (ok || x.Name.Lowered() == markAggOrder) && x.Qualifier.IsEmpty()
	case *sqlparser.GroupConcatExpr:
		return true
	}
	return false
}

func (b *binder) funcExpr(ec *exprCtx, x *sqlparser.FuncExpr) (vec.Expr, error) {
	name := x.Name.Lowered()
	if !x.Qualifier.IsEmpty() {
		return nil, unsupportedf("function %s.%s", x.Qualifier.String(), x.Name.String())
	}
	if _, ok := aggNames[name]; ok {
		return nil, invalidf("aggregate %s is not allowed in %s", strings.ToUpper(name), ec.what)
	}
	if len(x.Exprs) == 0 {
		if e, ok := b.sessionValue(name); ok {
			return e, nil
		}
	}
	switch name {
	case "dayname", "monthname": // STRFTIME(d, '%A' / '%B'), as DuckDB
		if len(x.Exprs) != 1 {
			return nil, invalidf("%s takes one argument", strings.ToUpper(name))
		}
		a, err := b.selectExprArg(ec, x.Exprs[0])
		if err != nil {
			return nil, err
		}
		f := "%A"
		if name == "monthname" {
			f = "%B"
		}
		return vec.NewCall("STRFTIME", []vec.Expr{a, vec.StringLiteral(f)})
	case "paimon_window":
		if ec.win == nil {
			return nil, invalidf("window functions are not allowed in %s", ec.what)
		}
		return ec.win.add(b, ec, x)
	case "unnest":
		if ec.unn == nil {
			return nil, invalidf("UNNEST is not allowed in %s (only in a select list or FROM)", ec.what)
		}
		return ec.unn.add(b, ec, x)
	case "paimon_filter":
		return nil, invalidf("FILTER is only allowed on aggregates in the select list and HAVING")
	case markAggOrder:
		if _, _, err := b.unwrapAggOrder(x); err != nil {
			return nil, err
		}
		return nil, invalidf("aggregates (with ORDER BY) are not allowed in %s", ec.what)
	case "paimon_interval":
		if len(x.Exprs) == 1 {
			if ae, ok := x.Exprs[0].(*sqlparser.AliasedExpr); ok {
				if v, ok := ae.Expr.(*sqlparser.SQLVal); ok && v.Type == sqlparser.StrVal {
					return vec.IntervalLiteral(string(v.Val), "")
				}
			}
		}
		return nil, invalidf("INTERVAL needs a constant string")
	case "paimon_date", "paimon_timestamp", "paimon_time":
		if len(x.Exprs) == 1 {
			if ae, ok := x.Exprs[0].(*sqlparser.AliasedExpr); ok {
				if v, ok := ae.Expr.(*sqlparser.SQLVal); ok && v.Type == sqlparser.StrVal {
					switch name {
					case "paimon_date":
						return vec.DateLiteral(string(v.Val))
					case "paimon_timestamp":
						return vec.TimestampLiteral(string(v.Val))
					}
				}
			}
		}
		// non-literal argument: a cast
		args, err := b.args(ec, x)
		if err != nil {
			return nil, err
		}
		if len(args) != 1 {
			return nil, invalidf("%s takes one argument", strings.TrimPrefix(name, "paimon_"))
		}
		t, _ := vec.CastTarget(strings.ToUpper(strings.TrimPrefix(name, "paimon_")))
		return vec.NewCast(args[0], t)
	case "paimon_cast", "paimon_try_cast":
		if len(x.Exprs) != 2 {
			return nil, invalidf("CAST takes one value and a type")
		}
		a, err := b.selectExprArg(ec, x.Exprs[0])
		if err != nil {
			return nil, err
		}
		ae, ok := x.Exprs[1].(*sqlparser.AliasedExpr)
		tv, ok2 := ae.Expr.(*sqlparser.SQLVal)
		if !ok || !ok2 {
			return nil, invalidf("CAST needs a type")
		}
		t, err := vec.CastTarget(string(tv.Val))
		if err != nil {
			return nil, err
		}
		if p, ok := a.(*vec.Param); ok && (p.T == nil || p.T.ID() == arrow.NULL) {
			p.T = t
			return p, nil
		}
		c, err := vec.NewCast(a, t)
		if cc, ok := c.(*vec.Cast); ok && name == "paimon_try_cast" {
			cc.Try = true
		}
		return c, err
	case "typeof":
		// DuckDB's TYPEOF: the argument's type name; an integer expression
		// is named by the type DuckDB gives it (literals are INTEGER there,
		// and INTEGER + INTEGER stays INTEGER), which this engine computes
		// as BIGINT.
		args, err := b.args(ec, x)
		if err != nil {
			return nil, err
		}
		if len(args) != 1 {
			return nil, invalidf("TYPEOF takes one argument")
		}
		if in, ok := vec.DuckInt(args[0]); ok {
			return vec.StringLiteral(vec.TypeName(in.T)), nil
		}
		return vec.StringLiteral(vec.TypeName(args[0].Type())), nil
	case "grouping":
		return nil, invalidf("GROUPING() is only allowed with GROUP BY")
	case parse.MarkMap: // MAP {k: v, ...}: map([k, ...], [v, ...])
		args, err := b.args(ec, x)
		if err != nil {
			return nil, err
		}
		if len(args) == 0 {
			return vec.NewCall("MAP", nil)
		}
		var ks, vs []vec.Expr
		for i := 0; i+1 < len(args); i += 2 {
			ks, vs = append(ks, args[i]), append(vs, args[i+1])
		}
		kl, err := vec.NewCall("LIST_VALUE", ks)
		if err != nil {
			return nil, err
		}
		vl, err := vec.NewCall("LIST_VALUE", vs)
		if err != nil {
			return nil, err
		}
		return vec.NewCall("MAP", []vec.Expr{kl, vl})
	}
	if _, ok := windowOnly[name]; ok {
		return nil, invalidf("window function %s needs an OVER clause", strings.ToUpper(name))
	}
	args, err := b.args(ec, x)
	if err != nil {
		return nil, err
	}
	if x.Distinct {
		return nil, invalidf("DISTINCT is only allowed in aggregates")
	}
	return vec.NewCall(name, args)
}

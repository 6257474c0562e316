package planner

import (
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/xwb1989/sqlparser"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
)

// binder turns sqlparser expressions into typed exprs over a table schema.
type binder struct {
	schema *arrow.Schema // the table's full schema (nil: SELECT without FROM)
	table  string        // name for messages
	alias  string        // table alias or name usable as a qualifier
	params []*param
	refs   []*colRef // input-mode column references (idx = full schema index until remapped)

	// aggregation (post-aggregation binding)
	post      bool
	groupKeys []string // sqlparser.String of each GROUP BY expression
	groups    []expr
	aggs      []*aggCall
	aggKeys   map[string]int
	inAgg     bool // binding an aggregate's argument
}

// aggCall is one aggregate function of a grouped query.
type aggCall struct {
	fn       string // count, sum, min, max, avg
	arg      expr   // nil for COUNT(*)
	distinct bool
	t        arrow.DataType
	text     string
}

func invalidf(format string, a ...any) error {
	return paimon.Errorf(catalog.ErrInvalid, format, a...)
}

func unsupportedf(format string, a ...any) error {
	return paimon.Errorf(catalog.ErrUnsupported, format+" is not supported", a...)
}

func (b *binder) column(c *sqlparser.ColName) (expr, error) {
	name := c.Name.String()
	if q := c.Qualifier.Name.String(); q != "" && !strings.EqualFold(q, b.alias) && !strings.EqualFold(q, b.table) {
		return nil, paimon.Errorf(catalog.ErrInvalid, "unknown table qualifier %q in %s (the query reads %s)", q, sqlparser.String(c), b.table)
	}
	if b.schema == nil {
		return nil, paimon.Errorf(catalog.ErrInvalid, "unknown column %q: the query has no FROM clause", name)
	}
	idx := -1
	for i, f := range b.schema.Fields() {
		if f.Name == name {
			idx = i
			break
		}
	}
	if idx < 0 {
		for i, f := range b.schema.Fields() {
			if strings.EqualFold(f.Name, name) {
				idx = i
				break
			}
		}
	}
	if idx < 0 {
		names := make([]string, b.schema.NumFields())
		for i, f := range b.schema.Fields() {
			names[i] = f.Name
		}
		return nil, paimon.Errorf(catalog.ErrInvalid, "column %q does not exist in %s%s", name, b.table, catalog.DidYouMean(name, names))
	}
	if b.post && !b.inAgg {
		return nil, invalidf("column %s must appear in the GROUP BY clause or be used in an aggregate function", name)
	}
	f := b.schema.Field(idx)
	r := &colRef{idx: idx, name: f.Name, t: f.Type}
	b.refs = append(b.refs, r)
	return r, nil
}

var aggNames = map[string]bool{"count": true, "sum": true, "min": true, "max": true, "avg": true}

// bind binds a scalar expression.
func (b *binder) bind(e sqlparser.Expr) (expr, error) {
	if b.post && !b.inAgg {
		key := sqlparser.String(e)
		for i, k := range b.groupKeys {
			if k == key {
				return &colRef{idx: i, name: key, t: b.groups[i].dataType()}, nil
			}
		}
	}
	switch x := e.(type) {
	case *sqlparser.ColName:
		return b.column(x)
	case *sqlparser.SQLVal:
		return b.sqlVal(x)
	case *sqlparser.NullVal:
		return &literal{nil, tNull}, nil
	case sqlparser.BoolVal:
		return &literal{bool(x), tBool}, nil
	case *sqlparser.ParenExpr:
		return b.bind(x.Expr)
	case *sqlparser.AndExpr:
		return b.logic(true, x.Left, x.Right)
	case *sqlparser.OrExpr:
		return b.logic(false, x.Left, x.Right)
	case *sqlparser.NotExpr:
		in, err := b.boolean(x.Expr)
		if err != nil {
			return nil, err
		}
		return &not{in}, nil
	case *sqlparser.ComparisonExpr:
		return b.comparison(x)
	case *sqlparser.RangeCond:
		v, err := b.bind(x.Left)
		if err != nil {
			return nil, err
		}
		lo, err := b.bind(x.From)
		if err != nil {
			return nil, err
		}
		hi, err := b.bind(x.To)
		if err != nil {
			return nil, err
		}
		c1, err := b.compare(">=", v, lo)
		if err != nil {
			return nil, err
		}
		c2, err := b.compare("<=", v, hi)
		if err != nil {
			return nil, err
		}
		var r expr = &logic{and: true, args: []expr{c1, c2}}
		if x.Operator == sqlparser.NotBetweenStr {
			r = &not{r}
		}
		return r, nil
	case *sqlparser.IsExpr:
		in, err := b.bind(x.Expr)
		if err != nil {
			return nil, err
		}
		switch x.Operator {
		case sqlparser.IsNullStr:
			return &isNull{e: in}, nil
		case sqlparser.IsNotNullStr:
			return &isNull{e: in, neg: true}, nil
		}
		if classOf(in.dataType()) != cBool && classOf(in.dataType()) != cNull {
			return nil, invalidf("%s needs a boolean operand, got %s", x.Operator, in.dataType())
		}
		return &isBool{e: in, want: strings.Contains(x.Operator, "true"), neg: strings.Contains(x.Operator, "not")}, nil
	case *sqlparser.BinaryExpr:
		return b.arith(x)
	case *sqlparser.UnaryExpr:
		in, err := b.bind(x.Expr)
		if err != nil {
			return nil, err
		}
		switch x.Operator {
		case sqlparser.UMinusStr:
			if l, ok := in.(*literal); ok {
				switch v := l.v.(type) {
				case int64:
					return &literal{-v, tInt}, nil
				case float64:
					return &literal{-v, tFloat}, nil
				case predicate.Decimal:
					return &literal{predicate.Decimal{Unscaled: new(big.Int).Neg(v.Unscaled), Scale: v.Scale}, l.t}, nil
				}
			}
			if !isNumeric(classOf(in.dataType())) {
				return nil, invalidf("unary minus needs a number, got %s", in.dataType())
			}
			return &neg{in}, nil
		case sqlparser.UPlusStr:
			return in, nil
		case sqlparser.BangStr:
			return &not{in}, nil
		}
		return nil, unsupportedf("unary operator %q", x.Operator)
	case *sqlparser.CaseExpr:
		return b.caseExpr(x)
	case *sqlparser.FuncExpr:
		return b.funcExpr(x)
	case *sqlparser.ConvertExpr:
		in, err := b.bind(x.Expr)
		if err != nil {
			return nil, err
		}
		t, err := castTarget(sqlparser.String(x.Type))
		if err != nil {
			return nil, err
		}
		return castTo(in, t)
	case *sqlparser.Subquery:
		return nil, unsupportedf("subqueries (%s)", sqlparser.String(x))
	case *sqlparser.ExistsExpr:
		return nil, unsupportedf("EXISTS subqueries")
	case *sqlparser.IntervalExpr:
		return nil, unsupportedf("INTERVAL expressions")
	case *sqlparser.GroupConcatExpr:
		return nil, unsupportedf("GROUP_CONCAT")
	case *sqlparser.MatchExpr:
		return nil, unsupportedf("MATCH ... AGAINST")
	case sqlparser.ValTuple:
		return nil, unsupportedf("row values (%s)", sqlparser.String(x))
	}
	return nil, unsupportedf("expression %s", sqlparser.String(e))
}

func (b *binder) sqlVal(x *sqlparser.SQLVal) (expr, error) {
	s := string(x.Val)
	switch x.Type {
	case sqlparser.StrVal:
		return &literal{s, tString}, nil
	case sqlparser.IntVal:
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return &literal{n, tInt}, nil
		}
		if d, ok := parseDecimal(s); ok && len(s) <= 38 {
			return &literal{d, &arrow.Decimal128Type{Precision: 38, Scale: 0}}, nil
		}
		return nil, invalidf("integer literal %s out of range", s)
	case sqlparser.FloatVal:
		if !strings.ContainsAny(s, "eE") {
			if d, ok := parseDecimal(s); ok {
				digits := len(strings.TrimLeft(strings.Replace(s, ".", "", 1), "+-0"))
				p := max(digits, d.Scale, 1)
				if p <= 38 {
					return &literal{d, &arrow.Decimal128Type{Precision: int32(p), Scale: int32(d.Scale)}}, nil
				}
			}
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, invalidf("bad number %s", s)
		}
		return &literal{f, tFloat}, nil
	case sqlparser.HexVal:
		v, err := x.HexDecode()
		if err != nil {
			return nil, invalidf("bad hex literal %s", s)
		}
		return &literal{v, tBinary}, nil
	case sqlparser.HexNum:
		n, err := strconv.ParseInt(s[2:], 16, 64)
		if err != nil {
			return nil, invalidf("bad hex number %s", s)
		}
		return &literal{n, tInt}, nil
	case sqlparser.ValArg:
		n, err := strconv.Atoi(strings.TrimPrefix(s, ":v"))
		if err != nil || !strings.HasPrefix(s, ":v") {
			return nil, unsupportedf("named parameter %s (use ?)", s)
		}
		for len(b.params) < n {
			b.params = append(b.params, &param{n: len(b.params)})
		}
		return b.params[n-1], nil
	}
	return nil, unsupportedf("literal %s", sqlparser.String(x))
}

func (b *binder) boolean(e sqlparser.Expr) (expr, error) {
	x, err := b.bind(e)
	if err != nil {
		return nil, err
	}
	return asBool(x, sqlparser.String(e))
}

func asBool(x expr, text string) (expr, error) {
	if p, ok := x.(*param); ok && p.t == nil {
		p.t = tBool
	}
	switch classOf(x.dataType()) {
	case cBool, cNull:
		return x, nil
	}
	return nil, invalidf("%s is %s, not a boolean condition", text, x.dataType())
}

func (b *binder) logic(and bool, l, r sqlparser.Expr) (expr, error) {
	lx, err := b.boolean(l)
	if err != nil {
		return nil, err
	}
	rx, err := b.boolean(r)
	if err != nil {
		return nil, err
	}
	var args []expr
	for _, x := range []expr{lx, rx} {
		if lg, ok := x.(*logic); ok && lg.and == and {
			args = append(args, lg.args...)
		} else {
			args = append(args, x)
		}
	}
	return &logic{and: and, args: args}, nil
}

// coerce makes two operands comparable, converting constants and inserting
// casts; it names both sides when they cannot be.
func coerce(l, r expr) (expr, expr, error) {
	if p, ok := l.(*param); ok && p.t == nil {
		p.t = r.dataType()
		if p.t == nil || p.t.ID() == arrow.NULL {
			p.t = tString
		}
	}
	if p, ok := r.(*param); ok && p.t == nil {
		p.t = l.dataType()
		if p.t == nil || p.t.ID() == arrow.NULL {
			p.t = tString
		}
	}
	lc, rc := classOf(l.dataType()), classOf(r.dataType())
	if lc == rc || lc == cNull || rc == cNull || isNumeric(lc) && isNumeric(rc) {
		if lc == cOther {
			return nil, nil, unsupportedf("comparing values of type %s", l.dataType())
		}
		return l, r, nil
	}
	if lit, ok := r.(*literal); ok {
		v, err := coerceConst(lit.v, lc)
		if err != nil {
			return nil, nil, invalidf("cannot compare %s (%s) with %s", l, l.dataType(), lit)
		}
		return l, &literal{v, l.dataType()}, nil
	}
	if lit, ok := l.(*literal); ok {
		v, err := coerceConst(lit.v, rc)
		if err != nil {
			return nil, nil, invalidf("cannot compare %s with %s (%s)", lit, r, r.dataType())
		}
		return &literal{v, r.dataType()}, r, nil
	}
	switch {
	case lc == cDate && rc == cTimestamp:
		return &castExpr{l, tTS}, r, nil
	case lc == cTimestamp && rc == cDate:
		return l, &castExpr{r, tTS}, nil
	case lc == cString && (rc == cDate || rc == cTimestamp || isNumeric(rc)):
		return &castExpr{l, r.dataType()}, r, nil
	case rc == cString && (lc == cDate || lc == cTimestamp || isNumeric(lc)):
		return l, &castExpr{r, l.dataType()}, nil
	}
	return nil, nil, invalidf("cannot compare %s (%s) with %s (%s)", l, l.dataType(), r, r.dataType())
}

func (b *binder) compare(op string, l, r expr) (expr, error) {
	l, r, err := coerce(l, r)
	if err != nil {
		return nil, err
	}
	return &cmp{op: op, l: l, r: r}, nil
}

func (b *binder) comparison(x *sqlparser.ComparisonExpr) (expr, error) {
	l, err := b.bind(x.Left)
	if err != nil {
		return nil, err
	}
	switch x.Operator {
	case sqlparser.InStr, sqlparser.NotInStr:
		tuple, ok := x.Right.(sqlparser.ValTuple)
		if !ok {
			return nil, unsupportedf("IN with a subquery")
		}
		in := &inList{e: l, neg: x.Operator == sqlparser.NotInStr}
		for _, it := range tuple {
			v, err := b.bind(it)
			if err != nil {
				return nil, err
			}
			l2, v2, err := coerce(l, v)
			if err != nil {
				return nil, err
			}
			if l2 != l {
				return nil, invalidf("IN list item %s does not match %s (%s)", v, l, l.dataType())
			}
			in.list = append(in.list, v2)
		}
		return in, nil
	case sqlparser.LikeStr, sqlparser.NotLikeStr:
		p, err := b.bind(x.Right)
		if err != nil {
			return nil, err
		}
		if pp, ok := p.(*param); ok && pp.t == nil {
			pp.t = tString
		}
		if x.Escape != nil {
			return nil, unsupportedf("LIKE ... ESCAPE (backslash is the escape character)")
		}
		if c := classOf(l.dataType()); c != cString && c != cBinary && c != cNull {
			return nil, invalidf("LIKE needs a string operand, %s is %s", l, l.dataType())
		}
		if c := classOf(p.dataType()); c != cString && c != cNull {
			return nil, invalidf("LIKE pattern %s is %s, not a string", p, p.dataType())
		}
		if lit, ok := p.(*literal); ok && lit.v != nil {
			if _, err := likeRegexp(lit.v.(string), false); err != nil {
				return nil, err
			}
		}
		return &like{e: l, pat: p, neg: x.Operator == sqlparser.NotLikeStr}, nil
	case sqlparser.RegexpStr, sqlparser.NotRegexpStr:
		return nil, unsupportedf("REGEXP")
	case sqlparser.JSONExtractOp, sqlparser.JSONUnquoteExtractOp:
		return nil, unsupportedf("JSON operators")
	}
	r, err := b.bind(x.Right)
	if err != nil {
		return nil, err
	}
	return b.compare(x.Operator, l, r)
}

func (b *binder) arith(x *sqlparser.BinaryExpr) (expr, error) {
	l, err := b.bind(x.Left)
	if err != nil {
		return nil, err
	}
	r, err := b.bind(x.Right)
	if err != nil {
		return nil, err
	}
	op := x.Operator
	switch op {
	case "+", "-", "*", "/", "%", "div":
	default:
		return nil, unsupportedf("operator %s", op)
	}
	for _, p := range []expr{l, r} {
		if pp, ok := p.(*param); ok && pp.t == nil {
			pp.t = tFloat
		}
	}
	return arithExpr(op, l, r)
}

func arithExpr(op string, l, r expr) (expr, error) {
	lc, rc := classOf(l.dataType()), classOf(r.dataType())
	for _, side := range []struct {
		e expr
		c class
	}{{l, lc}, {r, rc}} {
		if !isNumeric(side.c) && side.c != cNull {
			return nil, invalidf("operator %s needs numbers, %s is %s", op, side.e, side.e.dataType())
		}
	}
	t := tFloat
	if (lc == cInt || lc == cNull) && (rc == cInt || rc == cNull) && op != "/" {
		t = tInt
	}
	return &arith{op: op, l: l, r: r, t: t}, nil
}

func (b *binder) caseExpr(x *sqlparser.CaseExpr) (expr, error) {
	c := &caseExpr{}
	var err error
	if x.Expr != nil {
		if c.operand, err = b.bind(x.Expr); err != nil {
			return nil, err
		}
	}
	var results []expr
	for _, w := range x.Whens {
		var cond expr
		if c.operand != nil {
			v, err := b.bind(w.Cond)
			if err != nil {
				return nil, err
			}
			_, v, err = coerce(c.operand, v)
			if err != nil {
				return nil, err
			}
			cond = v
		} else if cond, err = b.boolean(w.Cond); err != nil {
			return nil, err
		}
		v, err := b.bind(w.Val)
		if err != nil {
			return nil, err
		}
		c.whens = append(c.whens, cond)
		results = append(results, v)
	}
	if x.Else != nil {
		if c.els, err = b.bind(x.Else); err != nil {
			return nil, err
		}
		results = append(results, c.els)
	}
	t, conv, err := unify(results, "CASE")
	if err != nil {
		return nil, err
	}
	c.t = t
	c.thens = conv[:len(c.whens)]
	if c.els != nil {
		c.els = conv[len(conv)-1]
	}
	return c, nil
}

// unify finds the common type of branch results (CASE, COALESCE) and casts
// every branch to it.
func unify(xs []expr, what string) (arrow.DataType, []expr, error) {
	var t arrow.DataType = tNull
	for _, x := range xs {
		xt := x.dataType()
		if p, ok := x.(*param); ok && p.t == nil {
			continue
		}
		tc, xc := classOf(t), classOf(xt)
		switch {
		case xc == cNull:
		case tc == cNull:
			t = xt
		case tc == xc:
			if tc == cDecimal && !arrow.TypeEqual(t, xt) {
				t = tFloat
			} else if tc == cInt {
				t = tInt
			}
		case isNumeric(tc) && isNumeric(xc):
			if tc == cInt && xc == cInt {
				t = tInt
			} else {
				t = tFloat
			}
		case (tc == cDate || tc == cTimestamp) && (xc == cDate || xc == cTimestamp):
			t = tTS
		default:
			return nil, nil, invalidf("%s branches have incompatible types %s and %s", what, t, xt)
		}
	}
	out := make([]expr, len(xs))
	for i, x := range xs {
		if p, ok := x.(*param); ok && p.t == nil {
			p.t = t
			if classOf(t) == cNull {
				p.t = tString
			}
		}
		if classOf(x.dataType()) == cNull || arrow.TypeEqual(x.dataType(), t) || classOf(x.dataType()) == classOf(t) && classOf(t) != cDecimal {
			out[i] = x
			continue
		}
		c, err := castTo(x, t)
		if err != nil {
			return nil, nil, err
		}
		out[i] = c
	}
	return t, out, nil
}

func castTo(e expr, t arrow.DataType) (expr, error) {
	if p, ok := e.(*param); ok && p.t == nil {
		p.t = t
		return p, nil
	}
	fc, tc := classOf(e.dataType()), classOf(t)
	if fc == cOther || tc == cOther {
		return nil, unsupportedf("CAST from %s to %s", e.dataType(), t)
	}
	if l, ok := e.(*literal); ok {
		if l.v == nil {
			return &literal{nil, t}, nil
		}
		v, err := castValue(l.v, l.t, t)
		if err != nil {
			return nil, err
		}
		return &literal{v, t}, nil
	}
	return &castExpr{e, t}, nil
}

// castTarget maps a SQL type name to an Arrow type.
func castTarget(s string) (arrow.DataType, error) {
	s = strings.ToUpper(strings.TrimSpace(s))
	base, args, _ := strings.Cut(s, "(")
	base = strings.TrimSpace(base)
	args = strings.TrimSuffix(strings.TrimSpace(args), ")")
	switch base {
	case "DOUBLE", "DOUBLE PRECISION", "FLOAT8", "FLOAT64":
		return tFloat, nil
	case "FLOAT", "REAL", "FLOAT4":
		return arrow.PrimitiveTypes.Float32, nil
	case "BIGINT", "SIGNED", "SIGNED INTEGER", "UNSIGNED", "UNSIGNED INTEGER", "LONG", "INT8":
		return tInt, nil
	case "INT", "INTEGER", "INT4":
		return arrow.PrimitiveTypes.Int32, nil
	case "SMALLINT", "INT2":
		return arrow.PrimitiveTypes.Int16, nil
	case "TINYINT":
		return arrow.PrimitiveTypes.Int8, nil
	case "VARCHAR", "CHAR", "STRING", "TEXT", "CHARACTER VARYING", "NCHAR", "NVARCHAR":
		return tString, nil
	case "BINARY", "VARBINARY", "BYTES":
		return tBinary, nil
	case "BOOLEAN", "BOOL":
		return tBool, nil
	case "DATE":
		return tDate, nil
	case "TIMESTAMP", "DATETIME", "TIMESTAMP WITHOUT TIME ZONE":
		return tTS, nil
	case "DECIMAL", "NUMERIC", "DEC":
		p, sc := 10, 0
		if args != "" {
			ps, ss, hasScale := strings.Cut(args, ",")
			var err error
			if p, err = strconv.Atoi(strings.TrimSpace(ps)); err != nil || p < 1 || p > 38 {
				return nil, invalidf("bad DECIMAL precision in %s (1..38)", s)
			}
			if hasScale {
				if sc, err = strconv.Atoi(strings.TrimSpace(ss)); err != nil || sc < 0 || sc > p {
					return nil, invalidf("bad DECIMAL scale in %s", s)
				}
			}
		}
		return &arrow.Decimal128Type{Precision: int32(p), Scale: int32(sc)}, nil
	}
	return nil, unsupportedf("CAST to %s", s)
}

func (b *binder) funcExpr(x *sqlparser.FuncExpr) (expr, error) {
	name := strings.ToLower(x.Name.String())
	if !x.Qualifier.IsEmpty() {
		return nil, unsupportedf("qualified function %s", sqlparser.String(x))
	}
	if aggNames[name] {
		return b.aggregate(name, x)
	}
	if x.Distinct {
		return nil, unsupportedf("DISTINCT in non-aggregate function %s", name)
	}
	var args []expr
	for _, se := range x.Exprs {
		ae, ok := se.(*sqlparser.AliasedExpr)
		if !ok {
			return nil, unsupportedf("%s in function %s", sqlparser.String(se), name)
		}
		a, err := b.bind(ae.Expr)
		if err != nil {
			return nil, err
		}
		args = append(args, a)
	}
	return scalarCall(name, args)
}

func (b *binder) aggregate(name string, x *sqlparser.FuncExpr) (expr, error) {
	if !b.post {
		return nil, invalidf("aggregate function %s is not allowed here", sqlparser.String(x))
	}
	if b.inAgg {
		return nil, invalidf("aggregate function calls cannot be nested (%s)", sqlparser.String(x))
	}
	key := strings.ToLower(sqlparser.String(x))
	if i, ok := b.aggKeys[key]; ok {
		return &colRef{idx: len(b.groups) + i, name: key, t: b.aggs[i].t}, nil
	}
	a := &aggCall{fn: name, distinct: x.Distinct, text: key}
	if len(x.Exprs) != 1 {
		return nil, invalidf("%s takes one argument", strings.ToUpper(name))
	}
	if _, star := x.Exprs[0].(*sqlparser.StarExpr); star {
		if name != "count" || x.Distinct {
			return nil, invalidf("%s(*) is not valid", strings.ToUpper(name))
		}
		a.t = tInt
	} else {
		ae, ok := x.Exprs[0].(*sqlparser.AliasedExpr)
		if !ok {
			return nil, unsupportedf("argument %s of %s", sqlparser.String(x.Exprs[0]), name)
		}
		b.inAgg = true
		arg, err := b.bind(ae.Expr)
		b.inAgg = false
		if err != nil {
			return nil, err
		}
		if p, ok := arg.(*param); ok && p.t == nil {
			p.t = tFloat
		}
		a.arg = arg
		c := classOf(arg.dataType())
		switch name {
		case "count":
			a.t = tInt
		case "sum":
			switch c {
			case cInt, cNull:
				a.t = tInt
			case cFloat:
				a.t = tFloat
			case cDecimal:
				a.t = &arrow.Decimal128Type{Precision: 38, Scale: arg.dataType().(*arrow.Decimal128Type).Scale}
			default:
				return nil, invalidf("SUM needs a number, %s is %s", arg, arg.dataType())
			}
		case "avg":
			if !isNumeric(c) && c != cNull {
				return nil, invalidf("AVG needs a number, %s is %s", arg, arg.dataType())
			}
			a.t = tFloat
		default: // min, max
			if c == cOther {
				return nil, unsupportedf("%s over %s", strings.ToUpper(name), arg.dataType())
			}
			a.t = arg.dataType()
		}
	}
	if b.aggKeys == nil {
		b.aggKeys = map[string]int{}
	}
	b.aggKeys[key] = len(b.aggs)
	b.aggs = append(b.aggs, a)
	return &colRef{idx: len(b.groups) + len(b.aggs) - 1, name: key, t: a.t}, nil
}

// scalarCall binds a scalar function over bound arguments.
func scalarCall(name string, args []expr) (expr, error) {
	arity := func(lo, hi int) error {
		if len(args) < lo || len(args) > hi {
			if lo == hi {
				return invalidf("%s takes %d argument(s), got %d", strings.ToUpper(displayName(name)), lo, len(args))
			}
			return invalidf("%s takes %d to %d arguments, got %d", strings.ToUpper(displayName(name)), lo, hi, len(args))
		}
		return nil
	}
	str := func(i int) error {
		if p, ok := args[i].(*param); ok && p.t == nil {
			p.t = tString
		}
		switch classOf(args[i].dataType()) {
		case cString, cNull:
			return nil
		}
		c, err := castTo(args[i], tString)
		if err != nil {
			return err
		}
		args[i] = c
		return nil
	}
	num := func(i int, t arrow.DataType) error {
		if p, ok := args[i].(*param); ok && p.t == nil {
			p.t = t
		}
		if c := classOf(args[i].dataType()); !isNumeric(c) && c != cNull {
			return invalidf("%s needs a number, %s is %s", strings.ToUpper(displayName(name)), args[i], args[i].dataType())
		}
		return nil
	}
	intArg := func(i int) error {
		if err := num(i, tInt); err != nil {
			return err
		}
		if classOf(args[i].dataType()) != cInt {
			c, err := castTo(args[i], tInt)
			if err != nil {
				return err
			}
			args[i] = c
		}
		return nil
	}
	constStr := func(i int) (string, error) {
		l, ok := args[i].(*literal)
		if !ok || classOf(l.t) != cString || l.v == nil {
			return "", invalidf("argument %d of %s must be a string literal", i+1, strings.ToUpper(displayName(name)))
		}
		return l.v.(string), nil
	}
	mk := func(t arrow.DataType, fn func([]any) (any, error)) (expr, error) {
		return &scalarFn{name: displayName(name), args: args, t: t, fn: fn}, nil
	}
	switch name {
	case "upper", "ucase", "lower", "lcase", "trim", "ltrim", "rtrim", "reverse":
		if err := arity(1, 1); err != nil {
			return nil, err
		}
		if err := str(0); err != nil {
			return nil, err
		}
		var f func(string) string
		switch name {
		case "upper", "ucase":
			f = strings.ToUpper
		case "lower", "lcase":
			f = strings.ToLower
		case "trim":
			f = func(s string) string { return strings.Trim(s, " ") }
		case "ltrim":
			f = func(s string) string { return strings.TrimLeft(s, " ") }
		case "rtrim":
			f = func(s string) string { return strings.TrimRight(s, " ") }
		default:
			f = func(s string) string {
				r := []rune(s)
				for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
					r[i], r[j] = r[j], r[i]
				}
				return string(r)
			}
		}
		return mk(tString, func(a []any) (any, error) { return f(a[0].(string)), nil })
	case "length":
		if err := arity(1, 1); err != nil {
			return nil, err
		}
		if classOf(args[0].dataType()) == cBinary {
			return mk(tInt, func(a []any) (any, error) { return int64(len(a[0].([]byte))), nil })
		}
		if err := str(0); err != nil {
			return nil, err
		}
		return mk(tInt, func(a []any) (any, error) { return int64(utf8.RuneCountInString(a[0].(string))), nil })
	case "concat":
		if len(args) == 0 {
			return nil, invalidf("CONCAT needs arguments")
		}
		for i := range args {
			if err := str(i); err != nil {
				return nil, err
			}
		}
		return mk(tString, func(a []any) (any, error) {
			var sb strings.Builder
			for _, v := range a {
				sb.WriteString(v.(string))
			}
			return sb.String(), nil
		})
	case "paimon_substring":
		if err := arity(2, 3); err != nil {
			return nil, err
		}
		if err := str(0); err != nil {
			return nil, err
		}
		for i := 1; i < len(args); i++ {
			if err := intArg(i); err != nil {
				return nil, err
			}
		}
		return mk(tString, func(a []any) (any, error) {
			r := []rune(a[0].(string))
			start := a[1].(int64)
			if start < 0 {
				start = int64(len(r)) + start + 1
			}
			if start < 1 {
				start = 1
			}
			if start > int64(len(r)) {
				return "", nil
			}
			end := int64(len(r))
			if len(a) == 3 {
				n := a[2].(int64)
				if n < 0 {
					return "", nil
				}
				end = min(end, start-1+n)
			}
			return string(r[start-1 : end]), nil
		})
	case "paimon_left", "paimon_right":
		if err := arity(2, 2); err != nil {
			return nil, err
		}
		if err := str(0); err != nil {
			return nil, err
		}
		if err := intArg(1); err != nil {
			return nil, err
		}
		left := name == "paimon_left"
		return mk(tString, func(a []any) (any, error) {
			r := []rune(a[0].(string))
			n := int(max(min(a[1].(int64), int64(len(r))), 0))
			if left {
				return string(r[:n]), nil
			}
			return string(r[len(r)-n:]), nil
		})
	case "abs", "floor", "ceil", "ceiling", "round", "sqrt", "ln", "exp":
		if err := arity(1, 2); err != nil {
			return nil, err
		}
		if err := num(0, tFloat); err != nil {
			return nil, err
		}
		if name != "round" && len(args) != 1 {
			return nil, invalidf("%s takes 1 argument", strings.ToUpper(name))
		}
		isInt := classOf(args[0].dataType()) == cInt
		if name == "abs" && isInt {
			return mk(tInt, func(a []any) (any, error) {
				if v := a[0].(int64); v < 0 {
					return -v, nil
				}
				return a[0], nil
			})
		}
		if isInt && (name == "floor" || name == "ceil" || name == "ceiling" || name == "round" && len(args) == 1) {
			return mk(tInt, func(a []any) (any, error) { return a[0], nil })
		}
		if len(args) == 2 {
			if err := intArg(1); err != nil {
				return nil, err
			}
		}
		return mk(tFloat, func(a []any) (any, error) {
			v := toFloat(a[0])
			switch name {
			case "abs":
				return math.Abs(v), nil
			case "floor":
				return math.Floor(v), nil
			case "ceil", "ceiling":
				return math.Ceil(v), nil
			case "sqrt":
				return math.Sqrt(v), nil
			case "ln":
				return math.Log(v), nil
			case "exp":
				return math.Exp(v), nil
			}
			d := 0.0
			if len(a) == 2 {
				d = float64(a[1].(int64))
			}
			p := math.Pow(10, d)
			return math.Round(v*p) / p, nil
		})
	case "paimon_mod":
		if err := arity(2, 2); err != nil {
			return nil, err
		}
		return arithExpr("%", args[0], args[1])
	case "coalesce", "ifnull", "nvl":
		if name != "coalesce" {
			if err := arity(2, 2); err != nil {
				return nil, err
			}
		} else if len(args) == 0 {
			return nil, invalidf("COALESCE needs arguments")
		}
		t, conv, err := unify(args, strings.ToUpper(name))
		if err != nil {
			return nil, err
		}
		return &scalarFn{name: "coalesce", args: conv, t: t, nullIn: true, fn: func(a []any) (any, error) {
			for _, v := range a {
				if v != nil {
					return v, nil
				}
			}
			return nil, nil
		}}, nil
	case "nullif":
		if err := arity(2, 2); err != nil {
			return nil, err
		}
		l, r, err := coerce(args[0], args[1])
		if err != nil {
			return nil, err
		}
		return &scalarFn{name: "nullif", args: []expr{l, r}, t: l.dataType(), nullIn: true, fn: func(a []any) (any, error) {
			if a[0] == nil || a[1] == nil {
				return a[0], nil
			}
			if c, ok := compareValues(a[0], a[1]); ok && c == 0 {
				return nil, nil
			}
			return a[0], nil
		}}, nil
	case "paimon_cast":
		if err := arity(2, 2); err != nil {
			return nil, err
		}
		ts, err := constStr(1)
		if err != nil {
			return nil, err
		}
		t, err := castTarget(ts)
		if err != nil {
			return nil, err
		}
		return castTo(args[0], t)
	case "paimon_date", "paimon_timestamp":
		s, err := constStr(0)
		if err != nil {
			return nil, err
		}
		if name == "paimon_date" {
			d, err := parseDate(s)
			if err != nil {
				return nil, err
			}
			return &literal{d, tDate}, nil
		}
		ts, err := parseTimestamp(s)
		if err != nil {
			return nil, err
		}
		return &literal{ts, tTS}, nil
	case "paimon_todate":
		if err := arity(1, 1); err != nil {
			return nil, err
		}
		return castTo(args[0], tDate)
	case "paimon_totimestamp":
		if err := arity(1, 1); err != nil {
			return nil, err
		}
		return castTo(args[0], tTS)
	case "paimon_extract", "paimon_year", "paimon_month", "paimon_day", "paimon_hour", "paimon_minute", "paimon_second", "paimon_quarter", "dayofweek", "dayofyear":
		unit := strings.TrimPrefix(name, "paimon_")
		if name == "paimon_extract" {
			if err := arity(2, 2); err != nil {
				return nil, err
			}
			u, err := constStr(0)
			if err != nil {
				return nil, err
			}
			unit = strings.ToLower(u)
			args = args[1:]
		} else if err := arity(1, 1); err != nil {
			return nil, err
		}
		if err := temporalArg(args, 0, "EXTRACT"); err != nil {
			return nil, err
		}
		switch unit {
		case "year", "month", "day", "hour", "minute", "second", "quarter", "dayofweek", "dow", "dayofyear", "doy", "week", "epoch":
		default:
			return nil, unsupportedf("EXTRACT unit %s", strings.ToUpper(unit))
		}
		a0 := args[0]
		return &scalarFn{name: "extract_" + unit, args: []expr{a0}, t: tInt, fn: func(a []any) (any, error) {
			t := asTime(a[0], a0.dataType())
			switch unit {
			case "year":
				return int64(t.Year()), nil
			case "month":
				return int64(t.Month()), nil
			case "day":
				return int64(t.Day()), nil
			case "hour":
				return int64(t.Hour()), nil
			case "minute":
				return int64(t.Minute()), nil
			case "second":
				return int64(t.Second()), nil
			case "quarter":
				return int64((t.Month()-1)/3 + 1), nil
			case "dayofweek":
				return int64(t.Weekday()) + 1, nil
			case "dow":
				return int64(t.Weekday()), nil
			case "dayofyear", "doy":
				return int64(t.YearDay()), nil
			case "week":
				_, w := t.ISOWeek()
				return int64(w), nil
			}
			return t.Unix(), nil
		}}, nil
	case "date_trunc":
		if err := arity(2, 2); err != nil {
			return nil, err
		}
		u, err := constStr(0)
		if err != nil {
			return nil, err
		}
		if err := temporalArg(args, 1, "DATE_TRUNC"); err != nil {
			return nil, err
		}
		unit := strings.ToLower(u)
		a1 := args[1]
		isDate := classOf(a1.dataType()) == cDate
		switch unit {
		case "year", "quarter", "month", "week", "day", "hour", "minute", "second":
		default:
			return nil, unsupportedf("DATE_TRUNC unit %s", u)
		}
		t := tTS
		if isDate {
			t = tDate
		}
		return &scalarFn{name: "date_trunc", args: []expr{args[0], a1}, t: t, fn: func(a []any) (any, error) {
			tm := asTime(a[1], a1.dataType())
			switch unit {
			case "year":
				tm = time.Date(tm.Year(), 1, 1, 0, 0, 0, 0, time.UTC)
			case "quarter":
				tm = time.Date(tm.Year(), (tm.Month()-1)/3*3+1, 1, 0, 0, 0, 0, time.UTC)
			case "month":
				tm = time.Date(tm.Year(), tm.Month(), 1, 0, 0, 0, 0, time.UTC)
			case "week":
				d := (int(tm.Weekday()) + 6) % 7
				tm = time.Date(tm.Year(), tm.Month(), tm.Day()-d, 0, 0, 0, 0, time.UTC)
			case "day":
				tm = time.Date(tm.Year(), tm.Month(), tm.Day(), 0, 0, 0, 0, time.UTC)
			case "hour":
				tm = tm.Truncate(time.Hour)
			case "minute":
				tm = tm.Truncate(time.Minute)
			case "second":
				tm = tm.Truncate(time.Second)
			}
			if isDate {
				return floorDiv(tm.Unix(), 86400), nil
			}
			return tm.UnixMicro(), nil
		}}, nil
	}
	return nil, unsupportedf("function %s", strings.ToUpper(displayName(name)))
}

func displayName(n string) string {
	if n == "paimon_extract" {
		return "extract"
	}
	return strings.TrimPrefix(n, "paimon_")
}

// temporalArg checks (and, for strings, converts) a date/timestamp argument.
func temporalArg(args []expr, i int, fn string) error {
	switch classOf(args[i].dataType()) {
	case cDate, cTimestamp, cNull:
		return nil
	case cString:
		c, err := castTo(args[i], tTS)
		if err != nil {
			return err
		}
		args[i] = c
		return nil
	}
	if p, ok := args[i].(*param); ok && p.t == nil {
		p.t = tTS
		return nil
	}
	return invalidf("%s needs a DATE or TIMESTAMP, %s is %s", fn, args[i], args[i].dataType())
}

func asTime(v any, t arrow.DataType) time.Time {
	if classOf(t) == cDate {
		return time.Unix(v.(int64)*86400, 0).UTC()
	}
	return time.UnixMicro(v.(int64)).UTC()
}

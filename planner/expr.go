package planner

import (
	"fmt"
	"math"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
)

// rowFn evaluates an expression at row i of the batch it was compiled for.
type rowFn func(i int) any

// evalEnv is what compiled expressions see: the batch, bound parameters and
// the first error met (errors are rare; rows keep evaluating to NULL after).
type evalEnv struct {
	rec    arrow.RecordBatch
	params []any
	err    error
}

func (e *evalEnv) fail(err error) {
	if e.err == nil {
		e.err = err
	}
}

// expr is a bound, typed scalar expression.
type expr interface {
	dataType() arrow.DataType
	compile(env *evalEnv) (rowFn, error)
	String() string
}

// colRef reads column idx of the input batch.
type colRef struct {
	idx  int
	name string
	t    arrow.DataType
}

func (c *colRef) dataType() arrow.DataType { return c.t }
func (c *colRef) String() string           { return c.name }
func (c *colRef) compile(env *evalEnv) (rowFn, error) {
	g, err := getter(env.rec.Column(c.idx))
	if err != nil {
		return nil, fmt.Errorf("column %s: %w", c.name, err)
	}
	return g, nil
}

// literal is a constant of the class of t.
type literal struct {
	v any
	t arrow.DataType
}

func (l *literal) dataType() arrow.DataType { return l.t }
func (l *literal) String() string {
	if l.v == nil {
		return "NULL"
	}
	switch classOf(l.t) {
	case cDate:
		return "DATE '" + formatValue(l.v, l.t) + "'"
	case cTimestamp:
		return "TIMESTAMP '" + formatValue(l.v, l.t) + "'"
	case cString:
		return predicate.FormatLiteral(l.v)
	}
	return formatValue(l.v, l.t)
}
func (l *literal) compile(*evalEnv) (rowFn, error) {
	v := l.v
	return func(int) any { return v }, nil
}

// param is the n-th ? placeholder; its type is inferred from its context.
type param struct {
	n int
	t arrow.DataType
}

func (p *param) dataType() arrow.DataType { return p.t }
func (p *param) String() string           { return "?" + strconv.Itoa(p.n+1) }
func (p *param) compile(env *evalEnv) (rowFn, error) {
	if p.n >= len(env.params) {
		return nil, paimon.Errorf(catalog.ErrInvalid, "parameter %d is not bound (%d given)", p.n+1, len(env.params))
	}
	v, err := convertParam(env.params[p.n], p.t)
	if err != nil {
		return nil, fmt.Errorf("parameter %d: %w", p.n+1, err)
	}
	return func(int) any { return v }, nil
}

// convertParam converts a parameter given in paimon/predicate literal
// conventions to the runtime class of t.
func convertParam(v any, t arrow.DataType) (any, error) {
	if v == nil {
		return nil, nil
	}
	c := classOf(t)
	switch x := v.(type) {
	case int:
		v = int64(x)
	case int32:
		v = int64(x)
	case float32:
		v = float64(x)
	case predicate.Timestamp:
		if c == cTimestamp {
			return x.Millis*1000 + int64(x.NanoOfMilli)/1000, nil
		}
		if c == cDate {
			return floorDiv(x.Millis, 86400000), nil
		}
	case time.Time:
		if c == cTimestamp {
			return x.UnixMicro(), nil
		}
		if c == cDate {
			return floorDiv(x.Unix(), 86400), nil
		}
	}
	out, err := coerceConst(v, c)
	if err != nil {
		return nil, fmt.Errorf("value %v (%T) does not fit %s: %w", v, v, t, err)
	}
	return out, nil
}

// coerceConst converts a constant value to class c (string parsing included).
func coerceConst(v any, c class) (any, error) {
	if v == nil {
		return nil, nil
	}
	bad := paimon.Errorf(catalog.ErrInvalid, "cannot convert %v", v)
	switch c {
	case cBool:
		switch x := v.(type) {
		case bool:
			return x, nil
		case int64:
			return x != 0, nil
		case string:
			b, err := strconv.ParseBool(strings.TrimSpace(x))
			if err != nil {
				return nil, bad
			}
			return b, nil
		}
	case cInt:
		switch x := v.(type) {
		case int64:
			return x, nil
		case bool:
			if x {
				return int64(1), nil
			}
			return int64(0), nil
		case float64:
			if x != math.Trunc(x) || math.IsNaN(x) || math.Abs(x) > 9.2e18 {
				return nil, bad
			}
			return int64(x), nil
		case predicate.Decimal:
			u := x.Rescale(0)
			if (predicate.Decimal{Unscaled: u}).Rescale(x.Scale).Cmp(x.Unscaled) != 0 || !u.IsInt64() {
				return nil, bad
			}
			return u.Int64(), nil
		case string:
			n, err := strconv.ParseInt(strings.TrimSpace(x), 10, 64)
			if err != nil {
				return nil, bad
			}
			return n, nil
		}
	case cFloat:
		switch x := v.(type) {
		case float64:
			return x, nil
		case int64:
			return float64(x), nil
		case predicate.Decimal:
			return decToFloat(x), nil
		case string:
			f, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
			if err != nil {
				return nil, bad
			}
			return f, nil
		}
	case cDecimal:
		switch x := v.(type) {
		case predicate.Decimal:
			return x, nil
		case int64:
			return predicate.Decimal{Unscaled: big.NewInt(x)}, nil
		case float64:
			if d, ok := parseDecimal(strconv.FormatFloat(x, 'f', -1, 64)); ok {
				return d, nil
			}
		case string:
			if d, ok := parseDecimal(x); ok {
				return d, nil
			}
		}
	case cString:
		switch x := v.(type) {
		case string:
			return x, nil
		case []byte:
			return string(x), nil
		}
	case cBinary:
		switch x := v.(type) {
		case []byte:
			return x, nil
		case string:
			return []byte(x), nil
		}
	case cDate:
		switch x := v.(type) {
		case int64:
			return x, nil
		case string:
			return parseDate(x)
		}
	case cTimestamp:
		switch x := v.(type) {
		case int64:
			return x, nil
		case string:
			return parseTimestamp(x)
		}
	case cTime:
		switch x := v.(type) {
		case int64:
			return x * 1000, nil // predicate convention: millis of day
		case string:
			t, err := time.Parse("15:04:05.999999", strings.TrimSpace(x))
			if err != nil {
				return nil, bad
			}
			return int64(t.Hour()*3600+t.Minute()*60+t.Second())*1e6 + int64(t.Nanosecond()/1000), nil
		}
	case cNull:
		return nil, nil
	}
	return nil, bad
}

// arith is + - * / % over numbers.
type arith struct {
	op   string
	l, r expr
	t    arrow.DataType
}

func (a *arith) dataType() arrow.DataType { return a.t }
func (a *arith) String() string           { return "(" + a.l.String() + " " + a.op + " " + a.r.String() + ")" }
func (a *arith) compile(env *evalEnv) (rowFn, error) {
	lf, err := a.l.compile(env)
	if err != nil {
		return nil, err
	}
	rf, err := a.r.compile(env)
	if err != nil {
		return nil, err
	}
	isInt := classOf(a.t) == cInt
	op := a.op
	return func(i int) any {
		x, y := lf(i), rf(i)
		if x == nil || y == nil {
			return nil
		}
		if isInt {
			p, q := x.(int64), y.(int64)
			switch op {
			case "+":
				return p + q
			case "-":
				return p - q
			case "*":
				return p * q
			case "%":
				if q == 0 {
					return nil
				}
				return p % q
			case "div":
				if q == 0 {
					return nil
				}
				return p / q
			}
		}
		p, q := toFloat(x), toFloat(y)
		switch op {
		case "+":
			return p + q
		case "-":
			return p - q
		case "*":
			return p * q
		case "/":
			if q == 0 {
				return nil
			}
			return p / q
		case "%":
			if q == 0 {
				return nil
			}
			return math.Mod(p, q)
		}
		env.fail(paimon.Errorf(catalog.ErrUnsupported, "operator %s", op))
		return nil
	}, nil
}

func toFloat(v any) float64 {
	switch x := v.(type) {
	case int64:
		return float64(x)
	case float64:
		return x
	case predicate.Decimal:
		return decToFloat(x)
	}
	return math.NaN()
}

// neg is unary minus.
type neg struct{ e expr }

func (n *neg) dataType() arrow.DataType {
	if classOf(n.e.dataType()) == cInt {
		return tInt
	}
	if classOf(n.e.dataType()) == cDecimal {
		return n.e.dataType()
	}
	return tFloat
}
func (n *neg) String() string { return "-" + n.e.String() }
func (n *neg) compile(env *evalEnv) (rowFn, error) {
	f, err := n.e.compile(env)
	if err != nil {
		return nil, err
	}
	return func(i int) any {
		switch x := f(i).(type) {
		case int64:
			return -x
		case float64:
			return -x
		case predicate.Decimal:
			return predicate.Decimal{Unscaled: new(big.Int).Neg(x.Unscaled), Scale: x.Scale}
		}
		return nil
	}, nil
}

// cmp is a comparison; both sides have compatible classes (the binder
// inserts casts). "<=>" is the null-safe equality.
type cmp struct {
	op   string
	l, r expr
}

func (c *cmp) dataType() arrow.DataType { return tBool }
func (c *cmp) String() string {
	op := c.op
	if op == "!=" {
		op = "<>"
	}
	return c.l.String() + " " + op + " " + c.r.String()
}
func (c *cmp) compile(env *evalEnv) (rowFn, error) {
	lf, err := c.l.compile(env)
	if err != nil {
		return nil, err
	}
	rf, err := c.r.compile(env)
	if err != nil {
		return nil, err
	}
	op := c.op
	return func(i int) any {
		x, y := lf(i), rf(i)
		if x == nil || y == nil {
			if op == "<=>" {
				return x == nil && y == nil
			}
			return nil
		}
		r, ok := compareValues(x, y)
		if !ok {
			env.fail(paimon.Errorf(catalog.ErrInvalid, "cannot compare %T with %T in %s", x, y, c))
			return nil
		}
		return cmpResult(op, r)
	}, nil
}

func cmpResult(op string, r int) bool {
	switch op {
	case "=", "<=>":
		return r == 0
	case "<>", "!=":
		return r != 0
	case "<":
		return r < 0
	case "<=":
		return r <= 0
	case ">":
		return r > 0
	}
	return r >= 0
}

// logic is AND / OR with SQL three-valued logic.
type logic struct {
	and  bool
	args []expr
}

func (l *logic) dataType() arrow.DataType { return tBool }
func (l *logic) String() string {
	parts := make([]string, len(l.args))
	for i, a := range l.args {
		parts[i] = "(" + a.String() + ")"
	}
	if l.and {
		return strings.Join(parts, " AND ")
	}
	return strings.Join(parts, " OR ")
}
func (l *logic) compile(env *evalEnv) (rowFn, error) {
	fs := make([]rowFn, len(l.args))
	for i, a := range l.args {
		f, err := a.compile(env)
		if err != nil {
			return nil, err
		}
		fs[i] = f
	}
	and := l.and
	return func(i int) any {
		sawNull := false
		for _, f := range fs {
			v := f(i)
			if v == nil {
				sawNull = true
				continue
			}
			if v.(bool) != and {
				return !and
			}
		}
		if sawNull {
			return nil
		}
		return and
	}, nil
}

// not is logical negation (NOT NULL is NULL).
type not struct{ e expr }

func (n *not) dataType() arrow.DataType { return tBool }
func (n *not) String() string           { return "NOT (" + n.e.String() + ")" }
func (n *not) compile(env *evalEnv) (rowFn, error) {
	f, err := n.e.compile(env)
	if err != nil {
		return nil, err
	}
	return func(i int) any {
		v := f(i)
		if v == nil {
			return nil
		}
		return !v.(bool)
	}, nil
}

// isNull is IS [NOT] NULL.
type isNull struct {
	e   expr
	neg bool
}

func (n *isNull) dataType() arrow.DataType { return tBool }
func (n *isNull) String() string {
	if n.neg {
		return n.e.String() + " IS NOT NULL"
	}
	return n.e.String() + " IS NULL"
}
func (n *isNull) compile(env *evalEnv) (rowFn, error) {
	f, err := n.e.compile(env)
	if err != nil {
		return nil, err
	}
	ng := n.neg
	return func(i int) any { return (f(i) == nil) != ng }, nil
}

// isBool is IS [NOT] TRUE / FALSE.
type isBool struct {
	e    expr
	want bool
	neg  bool
}

func (n *isBool) dataType() arrow.DataType { return tBool }
func (n *isBool) String() string {
	s := n.e.String() + " IS "
	if n.neg {
		s += "NOT "
	}
	return s + strings.ToUpper(strconv.FormatBool(n.want))
}
func (n *isBool) compile(env *evalEnv) (rowFn, error) {
	f, err := n.e.compile(env)
	if err != nil {
		return nil, err
	}
	return func(i int) any {
		v := f(i)
		r := v != nil && v.(bool) == n.want
		return r != n.neg
	}, nil
}

// inList is e [NOT] IN (list).
type inList struct {
	e    expr
	list []expr
	neg  bool
}

func (n *inList) dataType() arrow.DataType { return tBool }
func (n *inList) String() string {
	parts := make([]string, len(n.list))
	for i, a := range n.list {
		parts[i] = a.String()
	}
	op := " IN ("
	if n.neg {
		op = " NOT IN ("
	}
	return n.e.String() + op + strings.Join(parts, ", ") + ")"
}
func (n *inList) compile(env *evalEnv) (rowFn, error) {
	f, err := n.e.compile(env)
	if err != nil {
		return nil, err
	}
	fs := make([]rowFn, len(n.list))
	for i, a := range n.list {
		if fs[i], err = a.compile(env); err != nil {
			return nil, err
		}
	}
	ng := n.neg
	return func(i int) any {
		v := f(i)
		if v == nil {
			return nil
		}
		sawNull := false
		for _, g := range fs {
			w := g(i)
			if w == nil {
				sawNull = true
				continue
			}
			if r, ok := compareValues(v, w); ok && r == 0 {
				return !ng
			}
		}
		if sawNull {
			return nil
		}
		return ng
	}, nil
}

// like is e [NOT] LIKE pattern with % and _ wildcards and \ as escape.
type like struct {
	e, pat expr
	neg    bool
	ci     bool // ILIKE
}

func (n *like) dataType() arrow.DataType { return tBool }
func (n *like) String() string {
	op := " LIKE "
	if n.neg {
		op = " NOT LIKE "
	}
	return n.e.String() + op + n.pat.String()
}

// likeRegexp compiles a LIKE pattern.
func likeRegexp(p string, ci bool) (*regexp.Regexp, error) {
	var b strings.Builder
	b.WriteString("^")
	if ci {
		b.WriteString("(?i)")
	}
	b.WriteString("(?s)")
	for i := 0; i < len(p); i++ {
		switch c := p[i]; c {
		case '%':
			b.WriteString(".*")
		case '_':
			b.WriteString(".")
		case '\\':
			if i+1 < len(p) {
				i++
				b.WriteString(regexp.QuoteMeta(p[i : i+1]))
			} else {
				b.WriteString(`\\`)
			}
		default:
			b.WriteString(regexp.QuoteMeta(p[i : i+1]))
		}
	}
	b.WriteString("$")
	re, err := regexp.Compile(b.String())
	if err != nil {
		return nil, paimon.Errorf(catalog.ErrInvalid, "bad LIKE pattern %q", p)
	}
	return re, nil
}

func (n *like) compile(env *evalEnv) (rowFn, error) {
	f, err := n.e.compile(env)
	if err != nil {
		return nil, err
	}
	pf, err := n.pat.compile(env)
	if err != nil {
		return nil, err
	}
	var cached *regexp.Regexp
	cachedPat := ""
	ng := n.neg
	return func(i int) any {
		v, p := f(i), pf(i)
		if v == nil || p == nil {
			return nil
		}
		ps := p.(string)
		if cached == nil || ps != cachedPat {
			re, err := likeRegexp(ps, n.ci)
			if err != nil {
				env.fail(err)
				return nil
			}
			cached, cachedPat = re, ps
		}
		var s string
		switch x := v.(type) {
		case string:
			s = x
		case []byte:
			s = string(x)
		}
		return cached.MatchString(s) != ng
	}, nil
}

// caseExpr is CASE [operand] WHEN .. THEN .. [ELSE ..] END.
type caseExpr struct {
	operand expr
	whens   []expr
	thens   []expr
	els     expr
	t       arrow.DataType
}

func (c *caseExpr) dataType() arrow.DataType { return c.t }
func (c *caseExpr) String() string {
	var b strings.Builder
	b.WriteString("CASE")
	if c.operand != nil {
		b.WriteString(" " + c.operand.String())
	}
	for i := range c.whens {
		b.WriteString(" WHEN " + c.whens[i].String() + " THEN " + c.thens[i].String())
	}
	if c.els != nil {
		b.WriteString(" ELSE " + c.els.String())
	}
	return b.String() + " END"
}
func (c *caseExpr) compile(env *evalEnv) (rowFn, error) {
	var of rowFn
	var err error
	if c.operand != nil {
		if of, err = c.operand.compile(env); err != nil {
			return nil, err
		}
	}
	ws := make([]rowFn, len(c.whens))
	ts := make([]rowFn, len(c.thens))
	for i := range c.whens {
		if ws[i], err = c.whens[i].compile(env); err != nil {
			return nil, err
		}
		if ts[i], err = c.thens[i].compile(env); err != nil {
			return nil, err
		}
	}
	var ef rowFn
	if c.els != nil {
		if ef, err = c.els.compile(env); err != nil {
			return nil, err
		}
	}
	return func(i int) any {
		var ov any
		if of != nil {
			ov = of(i)
		}
		for k, w := range ws {
			wv := w(i)
			if of != nil {
				if ov == nil || wv == nil {
					continue
				}
				if r, ok := compareValues(ov, wv); ok && r == 0 {
					return ts[k](i)
				}
				continue
			}
			if b, ok := wv.(bool); ok && b {
				return ts[k](i)
			}
		}
		if ef != nil {
			return ef(i)
		}
		return nil
	}, nil
}

// scalarFn is a scalar function over already coerced arguments; nil in,
// nil out unless nullIn is set.
type scalarFn struct {
	name   string
	args   []expr
	t      arrow.DataType
	nullIn bool // fn sees NULL arguments (COALESCE, CONCAT_WS...)
	fn     func(args []any) (any, error)
}

func (s *scalarFn) dataType() arrow.DataType { return s.t }
func (s *scalarFn) String() string {
	parts := make([]string, len(s.args))
	for i, a := range s.args {
		parts[i] = a.String()
	}
	return strings.ToUpper(s.name) + "(" + strings.Join(parts, ", ") + ")"
}
func (s *scalarFn) compile(env *evalEnv) (rowFn, error) {
	fs := make([]rowFn, len(s.args))
	for i, a := range s.args {
		f, err := a.compile(env)
		if err != nil {
			return nil, err
		}
		fs[i] = f
	}
	buf := make([]any, len(fs))
	return func(i int) any {
		for k, f := range fs {
			buf[k] = f(i)
			if buf[k] == nil && !s.nullIn {
				return nil
			}
		}
		v, err := s.fn(buf)
		if err != nil {
			env.fail(fmt.Errorf("%s: %w", s.name, err))
			return nil
		}
		return v
	}, nil
}

// castExpr converts between classes.
type castExpr struct {
	e expr
	t arrow.DataType
}

func (c *castExpr) dataType() arrow.DataType { return c.t }
func (c *castExpr) String() string           { return "CAST(" + c.e.String() + " AS " + c.t.String() + ")" }
func (c *castExpr) compile(env *evalEnv) (rowFn, error) {
	f, err := c.e.compile(env)
	if err != nil {
		return nil, err
	}
	from, to := c.e.dataType(), c.t
	return func(i int) any {
		v := f(i)
		if v == nil {
			return nil
		}
		out, err := castValue(v, from, to)
		if err != nil {
			env.fail(err)
			return nil
		}
		return out
	}, nil
}

// castValue converts a runtime value of type from to type to.
func castValue(v any, from, to arrow.DataType) (any, error) {
	fc, tc := classOf(from), classOf(to)
	if fc == tc && tc != cDecimal {
		return v, nil
	}
	switch tc {
	case cString:
		return formatValue(v, from), nil
	case cDate:
		if fc == cTimestamp {
			return floorDiv(v.(int64), 86400_000_000), nil
		}
	case cTimestamp:
		if fc == cDate {
			return v.(int64) * 86400_000_000, nil
		}
	case cInt:
		switch x := v.(type) {
		case float64:
			if math.IsNaN(x) || math.Abs(x) > 9.2e18 {
				return nil, paimon.Errorf(catalog.ErrInvalid, "CAST of %v to BIGINT overflows", x)
			}
			return int64(math.Trunc(x)), nil
		case predicate.Decimal:
			u := x.Rescale(0)
			if !u.IsInt64() {
				return nil, paimon.Errorf(catalog.ErrInvalid, "CAST of %s to BIGINT overflows", x)
			}
			return u.Int64(), nil
		}
	case cDecimal:
		s := int(to.(*arrow.Decimal128Type).Scale)
		var d predicate.Decimal
		switch x := v.(type) {
		case predicate.Decimal:
			d = x
		case float64:
			dd, ok := parseDecimal(strconv.FormatFloat(x, 'f', s, 64))
			if !ok {
				return nil, paimon.Errorf(catalog.ErrInvalid, "CAST of %v to %s", x, to)
			}
			d = dd
		default:
			out, err := coerceConst(v, cDecimal)
			if err != nil {
				return nil, fmt.Errorf("CAST of %v to %s: %w", v, to, err)
			}
			d = out.(predicate.Decimal)
		}
		return predicate.Decimal{Unscaled: d.Rescale(s), Scale: s}, nil
	}
	out, err := coerceConst(v, tc)
	if err != nil {
		return nil, fmt.Errorf("CAST of %s to %s: %w", formatValue(v, from), to, err)
	}
	return out, nil
}

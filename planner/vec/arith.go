package vec

import (
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
)

// Arithmetic: typing rules (NewArith) and the node. Kernels are in
// arithk.go (numbers) and arithtime.go (dates, timestamps, intervals).

type arithKind uint8

const (
	akInt       arithKind = iota + 1 // BIGINT op BIGINT → BIGINT, checked
	akFloat                          // DOUBLE op DOUBLE → DOUBLE
	akDec                            // DECIMAL op DECIMAL → DECIMAL, exact
	akDateInt                        // DATE ± BIGINT days → DATE
	akDateDiff                       // DATE − DATE → BIGINT days
	akDateIval                       // DATE ± INTERVAL (no sub-day part) → DATE
	akTsIval                         // TIMESTAMP ± INTERVAL → TIMESTAMP
	akTsDiff                         // TIMESTAMP − TIMESTAMP → INTERVAL
	akIvalInt                        // INTERVAL × BIGINT → INTERVAL
	akIvalIval                       // INTERVAL ± INTERVAL → INTERVAL
	akIvalFloat                      // INTERVAL × DOUBLE, INTERVAL ÷ number → INTERVAL (arith_ivalf.go)
)

// Arith is a binary arithmetic operator: + - * / % and div (integer
// division). L and R are already converted to the types the kernel wants.
type Arith struct {
	Op   string
	L, R Expr
	T    arrow.DataType
	kind arithKind
	// swapped: the operands were exchanged to put the DATE/INTERVAL first
	// (5 + d); String prints the original order.
	swapped bool
}

// NewArith types l op r. Integer arithmetic is BIGINT and checked; '/' is
// DOUBLE (x / 0 is ±Inf and 0 / 0 NaN as in DuckDB; x % 0 is NULL); DECIMAL arithmetic is exact; DATE,
// TIMESTAMP and INTERVAL combine as in DuckDB.
func NewArith(op string, l, r Expr) (Expr, error) {
	op = strings.ToLower(op)
	switch op {
	case "+", "-", "*", "/", "%", "div":
	case "//":
		op = "div"
	default:
		return nil, invalidf("unknown arithmetic operator %s", op)
	}
	l, r = untypedParam(l, r), untypedParam(r, l)
	lt, rt := l.Type(), r.Type()
	fail := func() (Expr, error) {
		return nil, invalidf("operator %s does not apply to %s and %s (in %s %s %s)", op, TypeName(lt), TypeName(rt), l, op, r)
	}
	if isNull(lt) && isNull(rt) {
		return NullLiteral(tNull), nil
	}
	if isNull(lt) || isNull(rt) { // NULL op x: NULL of the type x op x would have
		x := l
		if isNull(lt) {
			x = r
		}
		probe, err := NewArith(op, x, x)
		if err != nil {
			return fail()
		}
		return NullLiteral(probe.Type()), nil
	}
	mk := func(k arithKind, t arrow.DataType, l2, r2 arrow.DataType) (Expr, error) {
		a, err := ImplicitCast(l, l2)
		if err != nil {
			return nil, err
		}
		b, err := ImplicitCast(r, r2)
		if err != nil {
			return nil, err
		}
		return &Arith{Op: op, L: a, R: b, T: t, kind: k}, nil
	}
	switch {
	case IsNumeric(lt) && IsNumeric(rt):
		return numericArith(op, l, r, mk, fail)
	case lt.ID() == arrow.DATE32 || rt.ID() == arrow.DATE32 || isTimestamp(lt) || isTimestamp(rt) ||
		lt.ID() == arrow.INTERVAL_MONTH_DAY_NANO || rt.ID() == arrow.INTERVAL_MONTH_DAY_NANO:
		e, err := temporalArith(op, l, r)
		if err != nil || e == nil {
			if err == nil {
				return fail()
			}
			return nil, err
		}
		return e, nil
	case isStringLike(lt) && IsNumeric(rt) || IsNumeric(lt) && isStringLike(rt):
		// '3' + 1: a string literal takes the other side's type
		if _, ok := l.(*Literal); ok && isStringLike(lt) {
			c, err := ImplicitCast(l, rt)
			if err != nil {
				return nil, err
			}
			return NewArith(op, c, r)
		}
		if _, ok := r.(*Literal); ok && isStringLike(rt) {
			c, err := ImplicitCast(r, lt)
			if err != nil {
				return nil, err
			}
			return NewArith(op, l, c)
		}
	}
	return fail()
}

// untypedParam gives an untyped ? the type of the other operand.
func untypedParam(e, other Expr) Expr {
	if p, ok := e.(*Param); ok && isNull(p.T) && !isNull(other.Type()) {
		return &Param{N: p.N, T: other.Type()}
	}
	return e
}

func numericArith(op string, l, r Expr, mk func(arithKind, arrow.DataType, arrow.DataType, arrow.DataType) (Expr, error), fail func() (Expr, error)) (Expr, error) {
	lt, rt := l.Type(), r.Type()
	if op == "/" {
		return mk(akFloat, tFloat64, tFloat64, tFloat64)
	}
	if isFloat(lt) || isFloat(rt) {
		if op == "div" {
			return fail()
		}
		return mk(akFloat, tFloat64, tFloat64, tFloat64)
	}
	if IsInteger(lt) && IsInteger(rt) {
		return mk(akInt, tInt64, tInt64, tInt64)
	}
	if op == "div" {
		return fail()
	}
	dl, dr := litDecimal(l), litDecimal(r)
	var p, s int32
	switch op {
	case "+", "-":
		s = max(dl.Scale, dr.Scale)
		p = min(38, max(dl.Precision-dl.Scale, dr.Precision-dr.Scale)+s+1)
	case "*":
		s = dl.Scale + dr.Scale
		if s > 38 {
			return nil, invalidf("DECIMAL multiplication %s * %s needs scale %d (at most 38)", l, r, s)
		}
		p = min(38, dl.Precision+dr.Precision)
	case "%":
		s = max(dl.Scale, dr.Scale)
		p = min(38, max(dl.Precision-dl.Scale, dr.Precision-dr.Scale)+s)
	}
	return mk(akDec, DecimalType(max(p, s, 1), s), dl, dr)
}

func (a *Arith) Type() arrow.DataType { return a.T }
func (a *Arith) Nullable() bool {
	if a.Op == "%" || a.Op == "div" || a.kind == akIvalFloat && a.Op == "/" {
		return true
	}
	return a.L.Nullable() || a.R.Nullable()
}
func (a *Arith) Children() []Expr { return []Expr{a.L, a.R} }
func (a *Arith) WithChildren(ch []Expr) Expr {
	cp := *a
	cp.L, cp.R = ch[0], ch[1]
	return &cp
}
func (a *Arith) String() string {
	l, r := a.L, a.R
	if a.swapped {
		l, r = r, l
	}
	op := a.Op
	if op == "div" {
		op = "//"
	}
	return "(" + l.String() + " " + op + " " + r.String() + ")"
}

// Neg is unary minus.
type Neg struct {
	E Expr
}

// NewNeg types -e (numbers and intervals; BIGINT minimum overflows).
func NewNeg(e Expr) (Expr, error) {
	t := e.Type()
	switch {
	case isNull(t):
		return e, nil
	case IsInteger(t):
		c, err := ImplicitCast(e, tInt64)
		if err != nil {
			return nil, err
		}
		return &Neg{E: c}, nil
	case isFloat(t) || isDecimal(t) || t.ID() == arrow.INTERVAL_MONTH_DAY_NANO:
		return &Neg{E: e}, nil
	}
	return nil, invalidf("unary minus does not apply to %s (in -%s)", TypeName(t), e)
}

func (n *Neg) Type() arrow.DataType { return n.E.Type() }
func (n *Neg) Nullable() bool       { return n.E.Nullable() }
func (n *Neg) Children() []Expr     { return []Expr{n.E} }
func (n *Neg) WithChildren(ch []Expr) Expr {
	return &Neg{E: ch[0]}
}
func (n *Neg) String() string { return "(-" + n.E.String() + ")" }

// litDecimal is the DECIMAL type an operand takes in DECIMAL arithmetic: an
// integer literal takes just its digits (1 - l_discount stays narrow).
func litDecimal(e Expr) *arrow.Decimal128Type {
	if l, ok := e.(*Literal); ok && IsInteger(l.Type()) && l.Value.IsValid() {
		if v, err := CastScalar(l.Value, tInt64); err == nil {
			x := scalarFixed[int64](v)
			d := int32(len(uitoa(absU(x))))
			return DecimalType(d, 0)
		}
	}
	return asDecimal(e.Type())
}

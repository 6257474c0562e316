package vec

import (
	"bytes"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/scalar"
)

//go:generate python3 gen_compare.py

type cmpOp uint8

const (
	opEQ cmpOp = iota
	opNE
	opLT
	opLE
	opGT
	opGE
)

type ordered interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~uint8 | ~uint16 | ~uint32 | ~uint64
}

func b2b(b bool) byte {
	var x byte
	if b {
		x = 1
	}
	return x
}

var cmpOps = map[string]cmpOp{"=": opEQ, "<>": opNE, "<": opLT, "<=": opLE, ">": opGT, ">=": opGE}
var cmpNames = [...]string{"=", "<>", "<", "<=", ">", ">="}

// flip is the operator with the operands exchanged (a < b ⇔ b > a).
func (o cmpOp) flip() cmpOp {
	switch o {
	case opLT:
		return opGT
	case opLE:
		return opGE
	case opGT:
		return opLT
	case opGE:
		return opLE
	}
	return o
}

// Compare is a comparison of two operands of the same type. NullSafe
// (IS [NOT] DISTINCT FROM) never returns NULL.
type Compare struct {
	Op       cmpOp
	NullSafe bool // with Op opEQ: IS NOT DISTINCT FROM; opNE: IS DISTINCT FROM
	L, R     Expr
}

// NewCompare types l op r; op is = == <> != < <= > >=, "<=>" / "is not
// distinct from" or "is distinct from". The operands are converted to their
// common type (a string literal parses as the other side's type; DATE vs
// TIMESTAMP promotes the DATE; DECIMAL vs integer compares exactly).
func NewCompare(op string, l, r Expr) (Expr, error) {
	o, nullSafe := opEQ, false
	switch strings.ToLower(strings.Join(strings.Fields(op), " ")) {
	case "=", "==":
		o = opEQ
	case "<>", "!=":
		o = opNE
	case "<":
		o = opLT
	case "<=":
		o = opLE
	case ">":
		o = opGT
	case ">=":
		o = opGE
	case "<=>", "is not distinct from":
		o, nullSafe = opEQ, true
	case "is distinct from":
		o, nullSafe = opNE, true
	default:
		return nil, invalidf("unknown comparison operator %s", op)
	}
	l, r = untypedParam(l, r), untypedParam(r, l)
	if listsComparable(l.Type(), r.Type()) {
		return &Compare{Op: o, NullSafe: nullSafe, L: l, R: r}, nil
	}
	l, r, err := coercePair(l, r, "compare")
	if err != nil {
		return nil, err
	}
	switch t := l.Type(); {
	case isNull(t), t.ID() == arrow.BOOL, IsNumeric(t), isStringLike(t), isBinaryLike(t),
		t.ID() == arrow.DATE32, isTimestamp(t), isTime(t), t.ID() == arrow.INTERVAL_MONTH_DAY_NANO:
	case listsComparable(t, r.Type()):
	case (t.ID() == arrow.STRUCT || t.ID() == arrow.MAP) && arrow.TypeEqual(t, r.Type()) && NestedKeyCheck(t) == nil:
	default:
		return nil, unsupportedf("comparison of %s values (in %s %s %s)", TypeName(t), l, op, r)
	}
	return &Compare{Op: o, NullSafe: nullSafe, L: l, R: r}, nil
}

// coercePair converts two operands to their common type. A string literal
// takes the other side's type; a constant that fits the other side's
// narrower type exactly is converted instead of the column.
func coercePair(l, r Expr, what string) (Expr, Expr, error) {
	lt, rt := l.Type(), r.Type()
	if arrow.TypeEqual(lt, rt) {
		return l, r, nil
	}
	if lit, ok := l.(*Literal); ok && isStringLike(lt) && !isStringLike(rt) && !isNull(rt) {
		c, err := ImplicitCast(lit, normalType(rt))
		if err != nil {
			return nil, nil, err
		}
		l, lt = c, c.Type()
	}
	if lit, ok := r.(*Literal); ok && isStringLike(rt) && !isStringLike(lt) && !isNull(lt) {
		c, err := ImplicitCast(lit, normalType(lt))
		if err != nil {
			return nil, nil, err
		}
		r, rt = c, c.Type()
	}
	if l2, r2, ok := narrowConst(l, r); ok {
		l, r = l2, r2
		lt, rt = l.Type(), r.Type()
	} else if r2, l2, ok := narrowConst(r, l); ok {
		l, r = l2, r2
		lt, rt = l.Type(), r.Type()
	}
	t, err := CommonType(lt, rt)
	if err != nil {
		return nil, nil, invalidf("cannot %s %s (%s) with %s (%s)", what, l, TypeName(lt), r, TypeName(rt))
	}
	if l, err = ImplicitCast(l, t); err != nil {
		return nil, nil, err
	}
	if r, err = ImplicitCast(r, t); err != nil {
		return nil, nil, err
	}
	return l, r, nil
}

// narrowConst converts constant k to e's numeric type when that is exact
// (int32_col < 24 compares int32s; dec(12,2)_col = 0.07 stays DECIMAL(12,2)).
func narrowConst(e, k Expr) (Expr, Expr, bool) {
	lit, ok := k.(*Literal)
	if !ok || !lit.Value.IsValid() {
		return nil, nil, false
	}
	et, kt := e.Type(), k.Type()
	if !IsNumeric(et) || !IsNumeric(kt) || isFloat(kt) && !isFloat(et) {
		return nil, nil, false
	}
	if isFloat(et) && !isFloat(kt) {
		return nil, nil, false
	}
	if isDecimal(et) && isDecimal(kt) && kt.(*arrow.Decimal128Type).Scale > et.(*arrow.Decimal128Type).Scale {
		return nil, nil, false
	}
	if IsInteger(et) && isDecimal(kt) {
		return nil, nil, false
	}
	s, err := CastScalar(lit.Value, et)
	if err != nil {
		return nil, nil, false
	}
	back, err := CastScalar(s, kt)
	if err != nil || !scalar.Equals(back, lit.Value) {
		return nil, nil, false
	}
	return e, NewLiteral(s), true
}

func (c *Compare) Type() arrow.DataType { return tBool }
func (c *Compare) Nullable() bool       { return !c.NullSafe && (c.L.Nullable() || c.R.Nullable()) }
func (c *Compare) Children() []Expr     { return []Expr{c.L, c.R} }
func (c *Compare) WithChildren(ch []Expr) Expr {
	cp := *c
	cp.L, cp.R = ch[0], ch[1]
	return &cp
}
func (c *Compare) String() string {
	op := cmpNames[c.Op]
	if c.NullSafe {
		op = "IS NOT DISTINCT FROM"
		if c.Op == opNE {
			op = "IS DISTINCT FROM"
		}
	}
	return c.L.String() + " " + op + " " + c.R.String()
}

func (c *Compare) Eval(ctx *Ctx, b arrow.RecordBatch) (arrow.Array, error) {
	n := int(b.NumRows())
	x, err := evalOperand(ctx, c.L, b, true)
	if err != nil {
		return nil, err
	}
	defer x.release()
	y, err := evalOperand(ctx, c.R, b, x.arr != nil)
	if err != nil {
		return nil, err
	}
	defer y.release()
	op := c.Op
	if x.arr == nil { // constant on the left: a op b ⇔ b flip(op) a
		x, y, op = y, x, op.flip()
	}
	if c.NullSafe {
		return compareNullSafe(ctx.Mem, n, op, x, y)
	}
	if y.null() {
		return allNull(ctx.Mem, tBool, n)
	}
	out := newBitmap(ctx.Mem, n)
	if err := compareValues(op, x, y, out.Bytes()); err != nil {
		out.Release()
		return nil, err
	}
	return makeFixed(tBool, n, andValidity(ctx.Mem, n, x.arr, y.arr), out), nil
}

// compareValues sets bit i of out when row i of x op y holds (x is an
// array; y an array or a valid constant; both of the same type).
func compareValues(op cmpOp, x, y operand, out []byte) error {
	t := x.arr.DataType()
	switch t.ID() {
	case arrow.NULL: // every row is NULL
	case arrow.LIST:
		return listCmp(op, x, y, out)
	case arrow.STRUCT, arrow.MAP:
		return nestedCmp(op, x, y, out)
	case arrow.INT8:
		ordCmp[int8](op, x, y, out)
	case arrow.INT16:
		ordCmp[int16](op, x, y, out)
	case arrow.INT32, arrow.DATE32, arrow.TIME32:
		ordCmp[int32](op, x, y, out)
	case arrow.INT64, arrow.TIMESTAMP, arrow.TIME64:
		ordCmp[int64](op, x, y, out)
	case arrow.UINT8:
		ordCmp[uint8](op, x, y, out)
	case arrow.UINT16:
		ordCmp[uint16](op, x, y, out)
	case arrow.UINT32:
		ordCmp[uint32](op, x, y, out)
	case arrow.UINT64:
		ordCmp[uint64](op, x, y, out)
	case arrow.INTERVAL_MONTH_DAY_NANO:
		intervalCmp(op, x, y, out)
	case arrow.FLOAT32:
		fltCmp[float32](op, x, y, out)
	case arrow.FLOAT64:
		fltCmp[float64](op, x, y, out)
	case arrow.DECIMAL128:
		xs := fixedValues[num](x.arr)
		ys, yc := view[num](y)
		for i, v := range xs {
			if cmpHolds(op, cmpNum(v, at(ys, yc, i))) {
				bitutil.SetBit(out, i)
			}
		}
	case arrow.BOOL:
		xa := x.arr.(*array.Boolean)
		var ya *array.Boolean
		var yc bool
		if y.arr != nil {
			ya = y.arr.(*array.Boolean)
		} else {
			yc = y.s.(*scalar.Boolean).Value
		}
		for i := 0; i < xa.Len(); i++ {
			p, q := xa.Value(i), yc
			if ya != nil {
				q = ya.Value(i)
			}
			if cmpHolds(op, int(b2b(p))-int(b2b(q))) {
				bitutil.SetBit(out, i)
			}
		}
	default:
		xf := bytesAt(x.arr)
		if xf == nil {
			return unsupportedf("comparison of %s values", TypeName(t))
		}
		n := x.arr.Len()
		if y.arr == nil {
			k := scalarBytes(y.s)
			if op == opEQ || op == opNE {
				for i := 0; i < n; i++ {
					if bytes.Equal(xf(i), k) == (op == opEQ) {
						bitutil.SetBit(out, i)
					}
				}
				return nil
			}
			for i := 0; i < n; i++ {
				if cmpHolds(op, bytes.Compare(xf(i), k)) {
					bitutil.SetBit(out, i)
				}
			}
			return nil
		}
		yf := bytesAt(y.arr)
		for i := 0; i < n; i++ {
			if cmpHolds(op, bytes.Compare(xf(i), yf(i))) {
				bitutil.SetBit(out, i)
			}
		}
	}
	return nil
}

func scalarBytes(s scalar.Scalar) []byte {
	if b, ok := s.(scalar.BinaryScalar); ok {
		return b.Data()
	}
	return []byte(s.String())
}

func cmpHolds(op cmpOp, c int) bool {
	switch op {
	case opEQ:
		return c == 0
	case opNE:
		return c != 0
	case opLT:
		return c < 0
	case opLE:
		return c <= 0
	case opGT:
		return c > 0
	}
	return c >= 0
}

func ordCmp[T ordered](op cmpOp, x, y operand, out []byte) {
	xs := fixedValues[T](x.arr)
	if y.arr == nil {
		cmpOrdVS(op, xs, scalarFixed[T](y.s), out)
		return
	}
	cmpOrdVV(op, xs, fixedValues[T](y.arr), out)
}

func fltCmp[T floating](op cmpOp, x, y operand, out []byte) {
	xs := fixedValues[T](x.arr)
	if y.arr == nil {
		cmpFltVS(op, xs, scalarFixed[T](y.s), out)
		return
	}
	cmpFltVV(op, xs, fixedValues[T](y.arr), out)
}

// compareNullSafe: NULL IS NOT DISTINCT FROM NULL is TRUE; NULL vs a value
// is FALSE (TRUE for IS DISTINCT FROM); never NULL.
func compareNullSafe(mem memory.Allocator, n int, op cmpOp, x, y operand) (arrow.Array, error) {
	eq := newBitmap(mem, n)
	eb := eq.Bytes()
	if !y.null() {
		if err := compareValues(opEQ, x, y, eb); err != nil {
			eq.Release()
			return nil, err
		}
	}
	xb, xo := validity(x.arr)
	var yb []byte
	yo := 0
	if y.arr != nil {
		yb, yo = validity(y.arr)
	} else if y.null() {
		yo = -1
	}
	if xb != nil || xo == -1 || yb != nil || yo == -1 {
		for i := 0; i < n; i++ {
			xv, yv := bitOK(xb, xo, i), bitOK(yb, yo, i)
			switch {
			case !xv && !yv:
				bitutil.SetBit(eb, i)
			case !xv || !yv:
				bitutil.ClearBit(eb, i)
			}
		}
	}
	if op == opNE {
		for i := range eb {
			eb[i] = ^eb[i]
		}
	}
	return makeFixed(tBool, n, nil, eq), nil
}

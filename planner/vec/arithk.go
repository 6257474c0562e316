package vec

import (
	"math"
	"math/bits"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/scalar"
)

// operand is an evaluated argument: an array, or a constant scalar.
type operand struct {
	arr arrow.Array
	s   scalar.Scalar
}

func (o operand) null() bool { return o.arr == nil && !o.s.IsValid() }

func evalOperand(c *Ctx, e Expr, b arrow.RecordBatch, allowConst bool) (operand, error) {
	if allowConst {
		s, ok, err := constScalar(c, e)
		if err != nil {
			return operand{}, err
		}
		if ok {
			return operand{s: s}, nil
		}
	}
	a, err := e.Eval(c, b)
	if err != nil {
		return operand{}, err
	}
	return operand{arr: a}, nil
}

func (o operand) release() {
	if o.arr != nil {
		o.arr.Release()
	}
}

// view returns the operand's values (nil for a constant) and constant.
func view[T any](o operand) ([]T, T) {
	if o.arr != nil {
		var z T
		return fixedValues[T](o.arr), z
	}
	return nil, scalarFixed[T](o.s)
}

func (a *Arith) Eval(c *Ctx, b arrow.RecordBatch) (arrow.Array, error) {
	n := int(b.NumRows())
	x, err := evalOperand(c, a.L, b, true)
	if err != nil {
		return nil, err
	}
	defer x.release()
	y, err := evalOperand(c, a.R, b, x.arr != nil) // at most one constant side
	if err != nil {
		return nil, err
	}
	defer y.release()
	if x.null() || y.null() {
		return allNull(c.Mem, a.T, n)
	}
	valid := andValidity(c.Mem, n, x.arr, y.arr)
	var out arrow.Array
	switch a.kind {
	case akInt:
		out, err = a.evalInt(c.Mem, n, x, y, valid)
	case akFloat:
		out, err = a.evalFloat(c.Mem, n, x, y, valid)
	case akDec:
		out, err = a.evalDec(c.Mem, n, x, y, valid)
	case akIvalFloat:
		out, err = a.evalIvalFloat(c.Mem, n, x, y, valid)
	default:
		out, err = a.evalTemporal(c.Mem, n, x, y, valid)
	}
	return out, err
}

func (a *Arith) overflow(tn string, x, y operand, i int, vx, vy string) error {
	return invalidf("%s overflow in %s (%s %s %s)", tn, a, vx, a.Op, vy)
}

// firstBad returns the first valid row (per valid bitmap) for which bad is
// true, or -1.
func firstBad(n int, valid *memory.Buffer, bad func(i int) bool) int {
	for i := 0; i < n; i++ {
		if valid != nil && !bitutil.BitIsSet(valid.Bytes(), i) {
			continue
		}
		if bad(i) {
			return i
		}
	}
	return -1
}

func at[T any](vs []T, c T, i int) T {
	if vs == nil {
		return c
	}
	return vs[i]
}

func (a *Arith) evalInt(mem memory.Allocator, n int, x, y operand, valid *memory.Buffer) (arrow.Array, error) {
	xs, xc := view[int64](x)
	ys, yc := view[int64](y)
	o := newOut[int64](mem, n)
	r := o.vals
	var ovf int64
	switch a.Op {
	case "+":
		switch {
		case xs != nil && ys != nil:
			for i := range r {
				s := xs[i] + ys[i]
				ovf |= (s ^ xs[i]) & (s ^ ys[i])
				r[i] = s
			}
		case ys == nil:
			for i, v := range xs {
				s := v + yc
				ovf |= (s ^ v) & (s ^ yc)
				r[i] = s
			}
		default:
			for i, v := range ys {
				s := xc + v
				ovf |= (s ^ xc) & (s ^ v)
				r[i] = s
			}
		}
	case "-":
		switch {
		case xs != nil && ys != nil:
			for i := range r {
				s := xs[i] - ys[i]
				ovf |= (xs[i] ^ ys[i]) & (s ^ xs[i])
				r[i] = s
			}
		case ys == nil:
			for i, v := range xs {
				s := v - yc
				ovf |= (v ^ yc) & (s ^ v)
				r[i] = s
			}
		default:
			for i, v := range ys {
				s := xc - v
				ovf |= (xc ^ v) & (s ^ xc)
				r[i] = s
			}
		}
	case "*":
		for i := range r {
			p, q := at(xs, xc, i), at(ys, yc, i)
			m := p * q
			if uint64(p+(1<<31)) >= 1<<32 || uint64(q+(1<<31)) >= 1<<32 {
				if p != 0 && (m/p != q || (p == -1 && q == math.MinInt64) || (q == -1 && p == math.MinInt64)) {
					ovf = -1
				}
			}
			r[i] = m
		}
	case "%", "div":
		zero := newBitmap(mem, n) // rows where the divisor is not 0
		zb := zero.Bytes()
		for i := range r {
			p, q := at(xs, xc, i), at(ys, yc, i)
			switch {
			case q == 0:
				continue
			case q == -1:
				if a.Op == "div" {
					if p == math.MinInt64 {
						ovf = -1
					}
					r[i] = -p
				} else {
					r[i] = 0
				}
			case a.Op == "div":
				r[i] = p / q
			default:
				r[i] = p % q
			}
			bitutil.SetBit(zb, i)
		}
		if valid != nil {
			bitutil.BitmapAnd(zb, valid.Bytes(), 0, 0, zb, 0, int64(n))
			valid.Release()
		}
		valid = zero
	}
	if ovf < 0 {
		i := firstBad(n, valid, func(i int) bool {
			p, q := at(xs, xc, i), at(ys, yc, i)
			switch a.Op {
			case "+":
				s := p + q
				return (s^p)&(s^q) < 0
			case "-":
				s := p - q
				return (p^q)&(s^p) < 0
			case "*":
				m := p * q
				return p != 0 && (m/p != q || p == -1 && q == math.MinInt64 || q == -1 && p == math.MinInt64)
			}
			return q == -1 && p == math.MinInt64
		})
		if i >= 0 {
			o.buf.Release()
			if valid != nil {
				valid.Release()
			}
			p, q := at(xs, xc, i), at(ys, yc, i)
			return nil, a.overflow("BIGINT", x, y, i, itoa(p), itoa(q))
		}
	}
	return o.finish(tInt64, n, valid), nil
}

func itoa(v int64) string {
	if v < 0 {
		return "-" + uitoa(absU(v))
	}
	return uitoa(uint64(v))
}

func (a *Arith) evalFloat(mem memory.Allocator, n int, x, y operand, valid *memory.Buffer) (arrow.Array, error) {
	xs, xc := view[float64](x)
	ys, yc := view[float64](y)
	o := newOut[float64](mem, n)
	r := o.vals
	switch a.Op {
	case "+":
		switch {
		case xs != nil && ys != nil:
			for i := range r {
				r[i] = xs[i] + ys[i]
			}
		case ys == nil:
			for i, v := range xs {
				r[i] = v + yc
			}
		default:
			for i, v := range ys {
				r[i] = xc + v
			}
		}
	case "-":
		switch {
		case xs != nil && ys != nil:
			for i := range r {
				r[i] = xs[i] - ys[i]
			}
		case ys == nil:
			for i, v := range xs {
				r[i] = v - yc
			}
		default:
			for i, v := range ys {
				r[i] = xc - v
			}
		}
	case "*":
		switch {
		case xs != nil && ys != nil:
			for i := range r {
				r[i] = xs[i] * ys[i]
			}
		case ys == nil:
			for i, v := range xs {
				r[i] = v * yc
			}
		default:
			for i, v := range ys {
				r[i] = xc * v
			}
		}
	case "/":
		// DuckDB: x / 0 is ±Inf (0 / 0 NaN), IEEE division.
		for i := range r {
			r[i] = at(xs, xc, i) / at(ys, yc, i)
		}
	case "%":
		nz := newBitmap(mem, n)
		zb := nz.Bytes()
		for i := range r {
			q := at(ys, yc, i)
			if q == 0 {
				continue
			}
			bitutil.SetBit(zb, i)
			r[i] = math.Mod(at(xs, xc, i), q)
		}
		if valid != nil {
			bitutil.BitmapAnd(zb, valid.Bytes(), 0, 0, zb, 0, int64(n))
			valid.Release()
		}
		valid = nz
	}
	// DuckDB: a finite result overflowing to ±Inf is an error.
	var bad float64
	for _, v := range r {
		bad += v - v // NaN when v is ±Inf or NaN
	}
	if bad != 0 || bad != bad {
		i := firstBad(n, valid, func(i int) bool {
			p, q := at(xs, xc, i), at(ys, yc, i)
			return math.IsInf(r[i], 0) && !math.IsInf(p, 0) && !math.IsInf(q, 0) && !math.IsNaN(p) && !math.IsNaN(q) && (a.Op != "/" || q != 0)
		})
		if i >= 0 {
			o.buf.Release()
			if valid != nil {
				valid.Release()
			}
			return nil, a.overflow("DOUBLE", x, y, i, formatFloat(at(xs, xc, i)), formatFloat(at(ys, yc, i)))
		}
	}
	return o.finish(tFloat64, n, valid), nil
}

func (a *Arith) evalDec(mem memory.Allocator, n int, x, y operand, valid *memory.Buffer) (arrow.Array, error) {
	dx := a.L.Type().(*arrow.Decimal128Type)
	dy := a.R.Type().(*arrow.Decimal128Type)
	dt := a.T.(*arrow.Decimal128Type)
	xs, xc := view[num](x)
	ys, yc := view[num](y)
	o := newOut[num](mem, n)
	r := o.vals
	fail := func(i int) (arrow.Array, error) {
		o.buf.Release()
		if valid != nil {
			valid.Release()
		}
		return nil, invalidf("%s overflow in %s (%s %s %s)", TypeName(dt), a,
			formatNum(at(xs, xc, i), dx.Scale), a.Op, formatNum(at(ys, yc, i), dy.Scale))
	}
	ok := func(i int) bool { return valid == nil || bitutil.BitIsSet(valid.Bytes(), i) }
	switch a.Op {
	case "+", "-":
		sub := a.Op == "-"
		if dt.Precision <= 18 { // every operand and result fits int64 exactly
			mx, my := pow10i64[dt.Scale-dx.Scale], pow10i64[dt.Scale-dy.Scale]
			if sub {
				my = -my
			}
			switch {
			case xs != nil && ys != nil:
				xs, ys := xs[:len(r)], ys[:len(r)]
				for i := range r {
					r[i] = decimal128.FromI64(int64(xs[i].LowBits())*mx + int64(ys[i].LowBits())*my)
				}
			case ys == nil:
				c := int64(yc.LowBits()) * my
				for i, v := range xs {
					r[i] = decimal128.FromI64(int64(v.LowBits())*mx + c)
				}
			default:
				c := int64(xc.LowBits()) * mx
				for i, v := range ys {
					r[i] = decimal128.FromI64(c + int64(v.LowBits())*my)
				}
			}
			break
		}
		// Wider result: rows whose operands fit int64 and whose rescaled
		// sum does not overflow int64 stay in int64 (|sum| < 2^63 < 10^19,
		// inside any precision ≥ 19); the others take the 128-bit path.
		capped := dt.Precision == 38
		kx, ky := dt.Scale-dx.Scale, dt.Scale-dy.Scale // ≥ 0: the result scale is the larger
		if kx > 18 || ky > 18 {
			for i := range r {
				s, good := decAddSlow(at(xs, xc, i), at(ys, yc, i), dx.Scale, dy.Scale, dt.Scale, sub, capped)
				if !good {
					if ok(i) {
						return fail(i)
					}
					s = num{}
				}
				r[i] = s
			}
			break
		}
		mx, my := pow10i64[kx], pow10i64[ky]
		switch {
		case xs != nil && ys != nil:
			xs, ys := xs[:len(r)], ys[:len(r)]
			for i := range r {
				p, q := xs[i], ys[i]
				u, v := int64(p.LowBits()), int64(q.LowBits())
				if p.HighBits() == u>>63 && q.HighBits() == v>>63 {
					if s, good := addScaled64(u, mx, v, my, sub); good {
						r[i] = decimal128.FromI64(s)
						continue
					}
				}
				s, good := decAddSlow(p, q, dx.Scale, dy.Scale, dt.Scale, sub, capped)
				if !good {
					if ok(i) {
						return fail(i)
					}
					s = num{}
				}
				r[i] = s
			}
		default: // one side is a constant: scale it once
			arr, c := xs, yc
			ma, mc := mx, my
			if xs == nil {
				arr, c = ys, xc
				ma, mc = my, mx
			}
			cv := int64(c.LowBits())
			cs, cok := cv, c.HighBits() == cv>>63
			if cok {
				cs, cok = scale64(cv, mc)
			}
			for i, p := range arr {
				u := int64(p.LowBits())
				if cok && p.HighBits() == u>>63 {
					if us, good := scale64(u, ma); good {
						var s int64
						if xs == nil { // c op p
							s, good = addSub64(cs, us, sub)
						} else {
							s, good = addSub64(us, cs, sub)
						}
						if good {
							r[i] = decimal128.FromI64(s)
							continue
						}
					}
				}
				s, good := decAddSlow(at(xs, xc, i), at(ys, yc, i), dx.Scale, dy.Scale, dt.Scale, sub, capped)
				if !good {
					if ok(i) {
						return fail(i)
					}
					s = num{}
				}
				r[i] = s
			}
		}
	case "*":
		// A product of two int64 is below 2^126 < 10^38 in magnitude, so
		// rows whose operands fit int64 need neither a 128-bit multiply nor
		// a precision check; the rest go through mulNum.
		check := dx.Precision+dy.Precision > 38
		switch {
		case xs != nil && ys != nil:
			xs, ys := xs[:len(r)], ys[:len(r)]
			if dx.Precision <= 18 && dy.Precision <= 18 { // valid values fit int64
				for i := range r {
					r[i] = mulI64(int64(xs[i].LowBits()), int64(ys[i].LowBits()))
				}
				break
			}
			for i := range r {
				p, q := xs[i], ys[i]
				u, v := int64(p.LowBits()), int64(q.LowBits())
				if p.HighBits() == u>>63 && q.HighBits() == v>>63 {
					r[i] = mulI64(u, v)
					continue
				}
				m, good := decMulSlow(p, q, check)
				if !good {
					if ok(i) {
						return fail(i)
					}
					m = num{}
				}
				r[i] = m
			}
		default:
			arr, c := xs, yc
			if xs == nil {
				arr, c = ys, xc
			}
			cv := int64(c.LowBits())
			if c.HighBits() != cv>>63 {
				for i, p := range arr {
					m, good := decMulSlow(p, c, check)
					if !good {
						if ok(i) {
							return fail(i)
						}
						m = num{}
					}
					r[i] = m
				}
				break
			}
			for i, p := range arr {
				u := int64(p.LowBits())
				if p.HighBits() == u>>63 {
					r[i] = mulI64(u, cv)
					continue
				}
				m, good := decMulSlow(p, c, check)
				if !good {
					if ok(i) {
						return fail(i)
					}
					m = num{}
				}
				r[i] = m
			}
		}
	case "%":
		nz := newBitmap(mem, n)
		zb := nz.Bytes()
		for i := range r {
			p, ok1 := rescale(at(xs, xc, i), dx.Scale, dt.Scale)
			q, ok2 := rescale(at(ys, yc, i), dy.Scale, dt.Scale)
			if q.Sign() == 0 {
				continue
			}
			if !ok1 || !ok2 {
				if ok(i) {
					return fail(i)
				}
				continue
			}
			bitutil.SetBit(zb, i)
			pi, okp := asInt64(p)
			qi, okq := asInt64(q)
			if okp && okq && qi != -1 {
				r[i] = decimal128.FromI64(pi % qi)
			} else {
				_, rem := p.Div(q)
				r[i] = rem
			}
		}
		if valid != nil {
			bitutil.BitmapAnd(zb, valid.Bytes(), 0, 0, zb, 0, int64(n))
			valid.Release()
		}
		valid = nz
	}
	return o.finish(a.T, n, valid), nil
}

// mul64 is the exact 128-bit product of two int64.
func mul64(x, y int64) num { return mulI64(x, y) }

// mulI64 is the exact product of two int64 as a Num (|x*y| ≤ 2^126, so it
// always fits DECIMAL(38)); branch-free sign handling.
func mulI64(x, y int64) num {
	sx, sy := x>>63, y>>63
	hi, lo := bits.Mul64(uint64((x^sx)-sx), uint64((y^sy)-sy))
	s := uint64(sx ^ sy) // all ones when the product is negative
	lo, c := bits.Add64(lo^s, s&1, 0)
	return decimal128.New(int64((hi^s)+c), lo)
}

// scale64 returns x*m (m = 10^k > 0), false when it overflows int64.
func scale64(x, m int64) (int64, bool) {
	if m == 1 {
		return x, true
	}
	hi, lo := bits.Mul64(absU(x), uint64(m))
	if hi != 0 || lo > math.MaxInt64 {
		return 0, false
	}
	if x < 0 {
		return -int64(lo), true
	}
	return int64(lo), true
}

// addSub64 returns a+b (a-b when sub), false on int64 overflow.
func addSub64(a, b int64, sub bool) (int64, bool) {
	if sub {
		s := a - b
		return s, (a^b)&(a^s) >= 0
	}
	s := a + b
	return s, (a^s)&(b^s) >= 0
}

// addScaled64 returns u*mu ± v*mv in int64, false on overflow.
func addScaled64(u, mu, v, mv int64, sub bool) (int64, bool) {
	a, ok1 := scale64(u, mu)
	b, ok2 := scale64(v, mv)
	if !ok1 || !ok2 {
		return 0, false
	}
	return addSub64(a, b, sub)
}

// decAddSlow is the 128-bit p ± q at scale st, false on overflow (or past
// 38 digits when capped).
func decAddSlow(p, q num, sx, sy, st int32, sub, capped bool) (num, bool) {
	p, ok1 := rescale(p, sx, st)
	q, ok2 := rescale(q, sy, st)
	var s num
	var ok3 bool
	if sub {
		s, ok3 = subNum(p, q)
	} else {
		s, ok3 = addNum(p, q)
	}
	if !(ok1 && ok2 && ok3) || capped && !fitsPrec(s, 38) {
		return num{}, false
	}
	return s, true
}

// decMulSlow is the 128-bit p * q, false when it does not fit (or, with
// check, exceeds 38 digits).
func decMulSlow(p, q num, check bool) (num, bool) {
	m, good := mulNum(p, q)
	if !good || check && !fitsPrec(m, 38) {
		return num{}, false
	}
	return m, true
}

func (ng *Neg) Eval(c *Ctx, b arrow.RecordBatch) (arrow.Array, error) {
	x, err := ng.E.Eval(c, b)
	if err != nil {
		return nil, err
	}
	defer x.Release()
	n := x.Len()
	valid := copyValidity(c.Mem, x)
	ok := func(i int) bool { return valid == nil || bitutil.BitIsSet(valid.Bytes(), i) }
	switch t := x.DataType().(type) {
	case *arrow.Int64Type:
		o := newOut[int64](c.Mem, n)
		for i, v := range fixedValues[int64](x) {
			if v == math.MinInt64 && ok(i) {
				o.buf.Release()
				if valid != nil {
					valid.Release()
				}
				return nil, invalidf("BIGINT overflow in %s (-%d)", ng, v)
			}
			o.vals[i] = -v
		}
		return o.finish(t, n, valid), nil
	case *arrow.Float64Type:
		o := newOut[float64](c.Mem, n)
		for i, v := range fixedValues[float64](x) {
			o.vals[i] = -v
		}
		return o.finish(t, n, valid), nil
	case *arrow.Float32Type:
		o := newOut[float32](c.Mem, n)
		for i, v := range fixedValues[float32](x) {
			o.vals[i] = -v
		}
		return o.finish(t, n, valid), nil
	case *arrow.Decimal128Type:
		o := newOut[num](c.Mem, n)
		for i, v := range fixedValues[num](x) {
			o.vals[i] = v.Negate()
		}
		return o.finish(t, n, valid), nil
	case *arrow.MonthDayNanoIntervalType:
		o := newOut[arrow.MonthDayNanoInterval](c.Mem, n)
		for i, v := range fixedValues[arrow.MonthDayNanoInterval](x) {
			r, good := negIval(v)
			if !good && ok(i) {
				o.buf.Release()
				if valid != nil {
					valid.Release()
				}
				return nil, invalidf("INTERVAL overflow in %s", ng)
			}
			o.vals[i] = r
		}
		return o.finish(t, n, valid), nil
	}
	if valid != nil {
		valid.Release()
	}
	if x.DataType().ID() == arrow.NULL {
		x.Retain()
		return x, nil
	}
	return nil, invalidf("unary minus does not apply to %s", TypeName(x.DataType()))
}

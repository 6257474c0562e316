package vec

import (
	"math/bits"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// evalDecBaseline is the evalDec kernel before the int64 fast paths, kept
// only as the "before" side of the benchmarks and as a second reference.
func (a *Arith) evalDecBaseline(mem memory.Allocator, n int, x, y operand, valid *memory.Buffer) (arrow.Array, error) {
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
		capped := dt.Precision == 38
		for i := range r {
			p, ok1 := rescale(at(xs, xc, i), dx.Scale, dt.Scale)
			q, ok2 := rescale(at(ys, yc, i), dy.Scale, dt.Scale)
			var s num
			var ok3 bool
			if sub {
				s, ok3 = subNum(p, q)
			} else {
				s, ok3 = addNum(p, q)
			}
			if !(ok1 && ok2 && ok3) || capped && !fitsPrec(s, 38) {
				if ok(i) {
					return fail(i)
				}
				s = num{}
			}
			r[i] = s
		}
	case "*":
		small := dx.Precision <= 18 && dy.Precision <= 18
		check := dx.Precision+dy.Precision > 38
		for i := range r {
			p, q := at(xs, xc, i), at(ys, yc, i)
			var m num
			good := true
			if small {
				m = mul64Baseline(int64(p.LowBits()), int64(q.LowBits()))
			} else {
				m, good = mulNum(p, q)
			}
			if !good || check && !fitsPrec(m, 38) {
				if ok(i) {
					return fail(i)
				}
				m = num{}
			}
			r[i] = m
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

func mul64Baseline(x, y int64) num {
	hi, lo := bits.Mul64(absU(x), absU(y))
	r := decimal128.New(int64(hi), lo)
	if (x < 0) != (y < 0) {
		r = r.Negate()
	}
	return r
}

package vec

import (
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Date, timestamp and interval arithmetic.

// temporalArith types l op r when a DATE, TIMESTAMP or INTERVAL is
// involved; (nil, nil) when the combination does not exist.
func temporalArith(op string, l, r Expr) (Expr, error) {
	lt, rt := l.Type(), r.Type()
	isD := func(t arrow.DataType) bool { return t.ID() == arrow.DATE32 }
	isI := func(t arrow.DataType) bool { return t.ID() == arrow.INTERVAL_MONTH_DAY_NANO }
	isTemporal := func(t arrow.DataType) bool { return isD(t) || isTimestamp(t) }
	build := func(k arithKind, t arrow.DataType, a, b Expr, at, bt arrow.DataType, swapped bool) (Expr, error) {
		x, err := ImplicitCast(a, at)
		if err != nil {
			return nil, err
		}
		y, err := ImplicitCast(b, bt)
		if err != nil {
			return nil, err
		}
		return &Arith{Op: op, L: x, R: y, T: t, kind: k, swapped: swapped}, nil
	}
	// a string literal next to a DATE/TIMESTAMP is an interval ('1 day')
	// when subtracting/adding to a date, else the other side's type.
	if isStringLike(rt) && isTemporal(lt) {
		if lit, ok := r.(*Literal); ok && (op == "+" || op == "-") {
			if iv, err := IntervalLiteral(scalarString(lit), ""); err == nil {
				return temporalArith(op, l, iv)
			}
			c, err := ImplicitCast(r, lt)
			if err != nil {
				return nil, err
			}
			return temporalArith(op, l, c)
		}
	}
	switch op {
	case "+", "-":
		switch {
		case isD(lt) && IsInteger(rt):
			return build(akDateInt, tDate, l, r, tDate, tInt64, false)
		case IsInteger(lt) && isD(rt) && op == "+":
			return build(akDateInt, tDate, r, l, tDate, tInt64, true)
		case isD(lt) && isD(rt) && op == "-":
			return build(akDateDiff, tInt64, l, r, tDate, tDate, false)
		case isTemporal(lt) && isTemporal(rt) && op == "-":
			t, err := CommonType(lt, rt)
			if err != nil {
				return nil, err
			}
			return build(akTsDiff, tIval, l, r, t, t, false)
		case isTemporal(lt) && isI(rt), isI(lt) && isTemporal(rt) && op == "+":
			a, b, sw := l, r, false
			if isI(lt) {
				a, b, sw = r, l, true
			}
			if isD(a.Type()) {
				if lit, ok := b.(*Literal); ok && lit.Value.IsValid() && scalarFixed[arrow.MonthDayNanoInterval](lit.Value).Nanoseconds == 0 {
					return build(akDateIval, tDate, a, b, tDate, tIval, sw)
				}
				return build(akTsIval, tTSus, a, b, tTSus, tIval, sw)
			}
			return build(akTsIval, a.Type(), a, b, a.Type(), tIval, sw)
		case isI(lt) && isI(rt):
			return build(akIvalIval, tIval, l, r, tIval, tIval, false)
		}
	case "*":
		switch {
		case isI(lt) && IsInteger(rt):
			return build(akIvalInt, tIval, l, r, tIval, tInt64, false)
		case IsInteger(lt) && isI(rt):
			return build(akIvalInt, tIval, r, l, tIval, tInt64, true)
		case isI(lt) && IsNumeric(rt):
			return build(akIvalFloat, tIval, l, r, tIval, tFloat64, false)
		case IsNumeric(lt) && isI(rt):
			return build(akIvalFloat, tIval, r, l, tIval, tFloat64, true)
		}
	case "/":
		if isI(lt) && IsNumeric(rt) {
			return build(akIvalFloat, tIval, l, r, tIval, tFloat64, false)
		}
	}
	return nil, nil
}

func scalarString(l *Literal) string {
	s, err := CastScalar(l.Value, tString)
	if err != nil || !s.IsValid() {
		return ""
	}
	return string(s.(interface{ Data() []byte }).Data())
}

func addOK(a, b int64) (int64, bool) {
	s := a + b
	return s, (s^a)&(s^b) >= 0
}

func mulOK(a, b int64) (int64, bool) {
	if a == 0 || b == 0 {
		return 0, true
	}
	m := a * b
	if m/b != a || (a == -1 && b == math.MinInt64) || (b == -1 && a == math.MinInt64) {
		return 0, false
	}
	return m, true
}

func negIval(iv arrow.MonthDayNanoInterval) (arrow.MonthDayNanoInterval, bool) {
	if iv.Months == math.MinInt32 || iv.Days == math.MinInt32 || iv.Nanoseconds == math.MinInt64 {
		return iv, false
	}
	return arrow.MonthDayNanoInterval{Months: -iv.Months, Days: -iv.Days, Nanoseconds: -iv.Nanoseconds}, true
}

// tsPlus adds an interval to a timestamp of unit u: months calendar-wise
// (day clamped), then days, then the time part.
func tsPlus(v int64, iv arrow.MonthDayNanoInterval, u arrow.TimeUnit) (int64, bool) {
	upd := unitsPerDay(u)
	npu := 1e9 / unitsPerSec(u)
	if iv.Months != 0 {
		day := floorDiv(v, upd)
		tod := v - day*upd
		day = addMonths(day, int64(iv.Months))
		d, ok := mulOK(day, upd)
		if !ok {
			return 0, false
		}
		if v, ok = addOK(d, tod); !ok {
			return 0, false
		}
	}
	dd, ok := mulOK(int64(iv.Days), upd)
	if !ok {
		return 0, false
	}
	if v, ok = addOK(v, dd); !ok {
		return 0, false
	}
	return addOK(v, floorDiv(iv.Nanoseconds, npu))
}

func (a *Arith) evalTemporal(mem memory.Allocator, n int, x, y operand, valid *memory.Buffer) (arrow.Array, error) {
	ok := func(i int) bool { return valid == nil || bitutil.BitIsSet(valid.Bytes(), i) }
	fail := func(i int, what string) error {
		if valid != nil {
			valid.Release()
		}
		return invalidf("%s out of range in %s (row %d)", what, a.String(), i+1)
	}
	sub := a.Op == "-"
	switch a.kind {
	case akDateInt:
		xs, xc := view[int32](x)
		ys, yc := view[int64](y)
		o := newOut[int32](mem, n)
		for i := range o.vals {
			k := at(ys, yc, i)
			if sub {
				k = -k
			}
			d := int64(at(xs, xc, i)) + k
			if (d > math.MaxInt32 || d < math.MinInt32 || k == math.MinInt64) && ok(i) {
				o.buf.Release()
				return nil, fail(i, "DATE")
			}
			o.vals[i] = int32(d)
		}
		return o.finish(tDate, n, valid), nil
	case akDateDiff:
		xs, xc := view[int32](x)
		ys, yc := view[int32](y)
		o := newOut[int64](mem, n)
		for i := range o.vals {
			o.vals[i] = int64(at(xs, xc, i)) - int64(at(ys, yc, i))
		}
		return o.finish(tInt64, n, valid), nil
	case akDateIval:
		xs, xc := view[int32](x)
		ys, yc := view[arrow.MonthDayNanoInterval](y)
		o := newOut[int32](mem, n)
		for i := range o.vals {
			iv := at(ys, yc, i)
			good := true
			if sub {
				iv, good = negIval(iv)
			}
			d := addMonths(int64(at(xs, xc, i)), int64(iv.Months)) + int64(iv.Days)
			if (!good || d > math.MaxInt32 || d < math.MinInt32) && ok(i) {
				o.buf.Release()
				return nil, fail(i, "DATE")
			}
			o.vals[i] = int32(d)
		}
		return o.finish(tDate, n, valid), nil
	case akTsIval:
		u := tsUnit(a.T)
		xs, xc := view[int64](x)
		ys, yc := view[arrow.MonthDayNanoInterval](y)
		o := newOut[int64](mem, n)
		if ys == nil && yc.Months == 0 { // constant shift
			iv := yc
			good := true
			if sub {
				iv, good = negIval(iv)
			}
			dd, ok1 := mulOK(int64(iv.Days), unitsPerDay(u))
			delta, ok2 := addOK(dd, floorDiv(iv.Nanoseconds, 1e9/unitsPerSec(u)))
			if !good || !ok1 || !ok2 {
				o.buf.Release()
				return nil, fail(0, "TIMESTAMP")
			}
			var ovf int64
			for i, v := range xs {
				s := v + delta
				ovf |= (s ^ v) & (s ^ delta)
				o.vals[i] = s
			}
			if ovf < 0 {
				if i := firstBad(n, valid, func(i int) bool { _, g := addOK(xs[i], delta); return !g }); i >= 0 {
					o.buf.Release()
					return nil, fail(i, "TIMESTAMP")
				}
			}
			return o.finish(a.T, n, valid), nil
		}
		for i := range o.vals {
			iv := at(ys, yc, i)
			good := true
			if sub {
				iv, good = negIval(iv)
			}
			v, g2 := tsPlus(at(xs, xc, i), iv, u)
			if (!good || !g2) && ok(i) {
				o.buf.Release()
				return nil, fail(i, "TIMESTAMP")
			}
			o.vals[i] = v
		}
		return o.finish(a.T, n, valid), nil
	case akTsDiff:
		u := tsUnit(a.L.Type())
		upd, npu := unitsPerDay(u), 1e9/unitsPerSec(u)
		xs, xc := view[int64](x)
		ys, yc := view[int64](y)
		o := newOut[arrow.MonthDayNanoInterval](mem, n)
		for i := range o.vals {
			p, q := at(xs, xc, i), at(ys, yc, i)
			d := p - q
			if (p^q)&(d^p) < 0 {
				if ok(i) {
					o.buf.Release()
					return nil, fail(i, "INTERVAL")
				}
				continue
			}
			days := d / upd
			if days > math.MaxInt32 || days < math.MinInt32 {
				if ok(i) {
					o.buf.Release()
					return nil, fail(i, "INTERVAL")
				}
				continue
			}
			o.vals[i] = arrow.MonthDayNanoInterval{Days: int32(days), Nanoseconds: (d % upd) * npu}
		}
		return o.finish(tIval, n, valid), nil
	case akIvalInt, akIvalIval:
		xs, xc := view[arrow.MonthDayNanoInterval](x)
		o := newOut[arrow.MonthDayNanoInterval](mem, n)
		var ks []int64
		var kc int64
		var is []arrow.MonthDayNanoInterval
		var ic arrow.MonthDayNanoInterval
		if a.kind == akIvalInt {
			ks, kc = view[int64](y)
		} else {
			is, ic = view[arrow.MonthDayNanoInterval](y)
		}
		for i := range o.vals {
			p := at(xs, xc, i)
			var m, d, ns int64
			good := true
			if a.kind == akIvalInt {
				k := at(ks, kc, i)
				var g1, g2, g3 bool
				m, g1 = mulOK(int64(p.Months), k)
				d, g2 = mulOK(int64(p.Days), k)
				ns, g3 = mulOK(p.Nanoseconds, k)
				good = g1 && g2 && g3
			} else {
				q := at(is, ic, i)
				if sub {
					q, good = negIval(q)
				}
				m, d = int64(p.Months)+int64(q.Months), int64(p.Days)+int64(q.Days)
				var g bool
				ns, g = addOK(p.Nanoseconds, q.Nanoseconds)
				good = good && g
			}
			if !good || m > math.MaxInt32 || m < math.MinInt32 || d > math.MaxInt32 || d < math.MinInt32 {
				if ok(i) {
					o.buf.Release()
					return nil, fail(i, "INTERVAL")
				}
				continue
			}
			o.vals[i] = arrow.MonthDayNanoInterval{Months: int32(m), Days: int32(d), Nanoseconds: ns}
		}
		return o.finish(tIval, n, valid), nil
	}
	if valid != nil {
		valid.Release()
	}
	return nil, invalidf("internal: arithmetic kind %d", a.kind)
}

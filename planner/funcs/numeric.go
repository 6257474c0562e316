package funcs

import (
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

// Numeric functions with DuckDB's result types: ABS/ROUND/TRUNC keep an
// integer or float type; CEIL/FLOOR make integers DOUBLE; on
// DECIMAL(p,s) ROUND/TRUNC/CEIL/FLOOR give DECIMAL(p, scale kept) with
// exact HALF_UP (away from zero) rounding; floats round half away from zero
// as std::round does. SQRT/LN/LOG of a negative (or LN/LOG of zero) is an
// error, as in DuckDB. All are NULL on NULL input; MOD is also NULL for a
// zero integer or DECIMAL divisor.

func init() {
	register("ABS", nil, bindAbs)
	register("CEIL", []string{"CEILING"}, bindCeilFloor(true))
	register("FLOOR", nil, bindCeilFloor(false))
	register("ROUND", nil, bindRound(false))
	register("TRUNC", []string{"TRUNCATE"}, bindRound(true))
	register("MOD", []string{"PAIMON_MOD", "FMOD"}, bindMod)
	register("POWER", []string{"POW"}, bindFloat2(math.Pow))
	register("SQRT", nil, bindFloat1(func(x float64) (float64, error) {
		if x < 0 {
			return 0, invalidf("SQRT: cannot take the square root of a negative number (%v)", x)
		}
		return math.Sqrt(x), nil
	}))
	register("CBRT", nil, bindFloat1(func(x float64) (float64, error) { return math.Cbrt(x), nil }))
	register("EXP", nil, bindFloat1(func(x float64) (float64, error) { return math.Exp(x), nil }))
	register("DEGREES", nil, bindFloat1(func(x float64) (float64, error) { return x * (180 / math.Pi), nil }))
	register("RADIANS", nil, bindFloat1(func(x float64) (float64, error) { return x * (math.Pi / 180), nil }))
	register("LN", nil, bindFloat1(logOf("LN", math.Log)))
	register("LOG10", nil, bindFloat1(logOf("LOG10", math.Log10)))
	register("LOG2", nil, bindFloat1(logOf("LOG2", math.Log2)))
	register("LOG", nil, bindLog)
	register("SIGN", nil, bindSign)
	register("PI", nil, bindPi)
}

func logOf(name string, f func(float64) float64) func(float64) (float64, error) {
	return func(x float64) (float64, error) {
		switch {
		case x == 0:
			return 0, invalidf("%s: cannot take the logarithm of zero", name)
		case x < 0:
			return 0, invalidf("%s: cannot take the logarithm of a negative number (%v)", name, x)
		}
		return f(x), nil
	}
}

type signedInt interface {
	~int8 | ~int16 | ~int32 | ~int64
}

// numArgType maps a numeric argument to the type a kernel reads: signed
// ints, floats and DECIMAL stay; unsigned ints read as BIGINT; NULL as t.
func numArgType(name string, args []vec.Expr, i int, nullAs arrow.DataType) (arrow.DataType, error) {
	t := args[i].Type()
	switch {
	case isNullT(t):
		return nullAs, nil
	case t.ID() == arrow.INT8, t.ID() == arrow.INT16, t.ID() == arrow.INT32, t.ID() == arrow.INT64,
		t.ID() == arrow.FLOAT32, t.ID() == arrow.FLOAT64, t.ID() == arrow.DECIMAL128:
		return t, nil
	case isIntT(t):
		return tInt64, nil
	}
	if _, ok := vec.IsConst(args[i]); ok && isStrT(t) {
		return tFloat64, nil
	}
	return nil, argTypeErr(name, i, args[i], "a number")
}

// mapNum applies f to every valid value of a (other rows get zero).
func mapNum[T, R any](mem memory.Allocator, a arrow.Array, n int, rt arrow.DataType, f func(T) (R, error)) (arrow.Array, error) {
	in := fixedN[T](a, n)
	v := validOf(a)
	out := newFixed[R](mem, n)
	for i := range n {
		if !v.ok(i) {
			continue
		}
		r, err := f(in[i])
		if err != nil {
			out.buf.Release()
			return nil, err
		}
		out.vals[i] = r
	}
	return out.finish(rt, n, andValidity(mem, n, a)), nil
}

func absInt[T signedInt](name string) func(T) (T, error) {
	return func(x T) (T, error) {
		if x < 0 {
			if -x < 0 {
				return 0, invalidf("%s: overflow on abs(%d)", name, x)
			}
			return -x, nil
		}
		return x, nil
	}
}

func bindAbs(name string, args []vec.Expr) (*vec.BoundFunc, error) {
	if err := arity(name, args, 1, 1); err != nil {
		return nil, err
	}
	t, err := numArgType(name, args, 0, tInt32)
	if err != nil {
		return nil, err
	}
	return &vec.BoundFunc{Ret: t, ArgTypes: []arrow.DataType{t}, NullOnNullInput: true,
		Kernel: func(c *vec.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
			switch t.ID() {
			case arrow.INT8:
				return mapNum(c.Mem, a[0], n, t, absInt[int8](name))
			case arrow.INT16:
				return mapNum(c.Mem, a[0], n, t, absInt[int16](name))
			case arrow.INT32:
				return mapNum(c.Mem, a[0], n, t, absInt[int32](name))
			case arrow.INT64:
				return mapNum(c.Mem, a[0], n, t, absInt[int64](name))
			case arrow.FLOAT32:
				return mapNum(c.Mem, a[0], n, t, func(x float32) (float32, error) { return float32(math.Abs(float64(x))), nil })
			case arrow.FLOAT64:
				return mapNum(c.Mem, a[0], n, t, func(x float64) (float64, error) { return math.Abs(x), nil })
			}
			return mapNum(c.Mem, a[0], n, t, func(x decimal128.Num) (decimal128.Num, error) { return x.Abs(), nil })
		}}, nil
}

// roundMode of decimal and integer rounding.
type roundMode int

const (
	halfUp roundMode = iota // away from zero at .5
	toZero
	toFloor
	toCeil
)

var pow10i64 = func() (p [19]int64) {
	p[0] = 1
	for i := 1; i < 19; i++ {
		p[i] = p[i-1] * 10
	}
	return
}()

// divRound divides v by 10^k (k >= 1) with the rounding mode.
func divRound(v decimal128.Num, k int32, mode roundMode) decimal128.Num {
	if k <= 0 {
		return v
	}
	if k > 38 {
		k = 38
	}
	var q, r decimal128.Num
	if v.HighBits() == 0 && v.LowBits() <= math.MaxInt64 || v.HighBits() == -1 && v.LowBits() > math.MaxInt64 {
		if k <= 18 {
			x, d := int64(v.LowBits()), pow10i64[k]
			q, r = decimal128.FromI64(x/d), decimal128.FromI64(x%d)
			return adjust(q, r, decimal128.FromI64(d), mode)
		}
	}
	d := decimal128.GetScaleMultiplier(int(k))
	q, r = v.Div(d)
	return adjust(q, r, d, mode)
}

// adjust applies the rounding mode to a truncated quotient q, remainder r
// (same sign as the dividend) of a division by d > 0.
func adjust(q, r, d decimal128.Num, mode roundMode) decimal128.Num {
	if r.Sign() == 0 {
		return q
	}
	one := decimal128.FromI64(1)
	switch mode {
	case halfUp:
		if r.Abs().Add(r.Abs()).GreaterEqual(d) {
			if r.Sign() < 0 {
				return q.Sub(one)
			}
			return q.Add(one)
		}
	case toFloor:
		if r.Sign() < 0 {
			return q.Sub(one)
		}
	case toCeil:
		if r.Sign() > 0 {
			return q.Add(one)
		}
	}
	return q
}

// roundInt rounds an integer to 10^k (k >= 1) half away from zero or
// toward zero; false on overflow.
func roundInt(x int64, k int64, mode roundMode) (int64, bool) {
	if k >= 19 {
		return 0, true
	}
	d := pow10i64[k]
	q, r := x/d, x%d
	if mode == halfUp && (r >= (d+1)/2 || r <= -(d+1)/2) {
		if r > 0 {
			q++
		} else {
			q--
		}
	}
	hi, lo := mulCheck(q, d)
	return lo, hi
}

func mulCheck(a, b int64) (ok bool, v int64) {
	v = a * b
	if a != 0 && (v/a != b || (a == -1 && b == math.MinInt64)) {
		return false, 0
	}
	return true, v
}

func bindCeilFloor(ceil bool) func(string, []vec.Expr) (*vec.BoundFunc, error) {
	return func(name string, args []vec.Expr) (*vec.BoundFunc, error) {
		if err := arity(name, args, 1, 1); err != nil {
			return nil, err
		}
		t, err := numArgType(name, args, 0, tFloat64)
		if err != nil {
			return nil, err
		}
		if isIntT(t) {
			t = tFloat64
		}
		rt := t
		mode, f := toFloor, math.Floor
		if ceil {
			mode, f = toCeil, math.Ceil
		}
		var scale int32
		if d, ok := t.(*arrow.Decimal128Type); ok {
			rt, scale = vec.DecimalType(d.Precision, 0), d.Scale
		}
		return &vec.BoundFunc{Ret: rt, ArgTypes: []arrow.DataType{t}, NullOnNullInput: true,
			Kernel: func(c *vec.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
				switch t.ID() {
				case arrow.FLOAT32:
					return mapNum(c.Mem, a[0], n, rt, func(x float32) (float32, error) { return float32(f(float64(x))), nil })
				case arrow.FLOAT64:
					return mapNum(c.Mem, a[0], n, rt, func(x float64) (float64, error) { return f(x), nil })
				}
				return mapNum(c.Mem, a[0], n, rt, func(x decimal128.Num) (decimal128.Num, error) { return divRound(x, scale, mode), nil })
			}}, nil
	}
}

// roundFloat is DuckDB's RoundOperatorPrecision (and TRUNC's analogue).
func roundFloat(x float64, d int64, trunc bool) float64 {
	op := math.Round
	if trunc {
		op = math.Trunc
	}
	if d < 0 {
		m := math.Pow(10, float64(-d))
		r := op(x/m) * m
		if math.IsInf(r, 0) || math.IsNaN(r) {
			return 0
		}
		return r
	}
	m := math.Pow(10, float64(d))
	r := op(x*m) / m
	if math.IsInf(r, 0) || math.IsNaN(r) {
		return x
	}
	return r
}

// ROUND(x[, d]) / TRUNC(x[, d]).
func bindRound(trunc bool) func(string, []vec.Expr) (*vec.BoundFunc, error) {
	return func(name string, args []vec.Expr) (*vec.BoundFunc, error) {
		if err := arity(name, args, 1, 2); err != nil {
			return nil, err
		}
		t, err := numArgType(name, args, 0, tFloat64)
		if err != nil {
			return nil, err
		}
		mode := halfUp
		if trunc {
			mode = toZero
		}
		at := []arrow.DataType{t}
		digits, hasDigits, constDigits := int64(0), len(args) == 2, true
		if hasDigits {
			if err := wantInt(name, args, 1); err != nil {
				return nil, err
			}
			at = append(at, tInt64)
			v, null, ok := constInt(args[1])
			constDigits = ok
			if ok && null {
				return &vec.BoundFunc{Ret: t, ArgTypes: at, AlwaysNullable: true, Kernel: func(c *vec.Ctx, _ []arrow.Array, n int) (arrow.Array, error) {
					return nullArray(c.Mem, t, n), nil
				}}, nil
			}
			digits = v
		}
		if d, ok := t.(*arrow.Decimal128Type); ok {
			if !constDigits {
				return nil, invalidf("%s(DECIMAL, digits) needs constant digits, got %s", name, args[1])
			}
			s := d.Scale
			if digits >= int64(s) {
				return &vec.BoundFunc{Ret: t, ArgTypes: at, NullOnNullInput: true, Kernel: func(c *vec.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
					a[0].Retain()
					return a[0], nil
				}}, nil
			}
			newScale := int32(max(digits, 0))
			rt := vec.DecimalType(d.Precision, newScale)
			drop := int64(s) - digits // digits removed (> 0)
			back := int64(newScale) - digits
			return &vec.BoundFunc{Ret: rt, ArgTypes: at, NullOnNullInput: true, Kernel: func(c *vec.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
				return mapNum(c.Mem, a[0], n, rt, func(x decimal128.Num) (decimal128.Num, error) {
					if drop > 38 {
						return decimal128.Num{}, nil
					}
					r := divRound(x, int32(drop), mode)
					if back > 0 {
						if back > 38 {
							return decimal128.Num{}, nil
						}
						r = r.Mul(decimal128.GetScaleMultiplier(int(back)))
					}
					if !r.FitsInPrecision(d.Precision) {
						return r, invalidf("%s: result of rounding %s to %d digits does not fit DECIMAL(%d,%d)", name, x.ToString(s), digits, d.Precision, newScale)
					}
					return r, nil
				})
			}}, nil
		}
		return &vec.BoundFunc{Ret: t, ArgTypes: at, NullOnNullInput: true, Kernel: func(c *vec.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
			ds := func(i int) int64 { return digits }
			if hasDigits && !constDigits {
				dv := fixedN[int64](a[1], n)
				ds = func(i int) int64 { return dv[i] }
			}
			return roundKernel(c.Mem, name, t, a, n, ds, mode, trunc)
		}}, nil
	}
}

func roundKernel(mem memory.Allocator, name string, t arrow.DataType, a []arrow.Array, n int, ds func(int) int64, mode roundMode, trunc bool) (arrow.Array, error) {
	valid := andValidity(mem, n, a...)
	m := maskOf(valid)
	fail := func(err error) (arrow.Array, error) {
		if valid != nil {
			valid.Release()
		}
		return nil, err
	}
	switch t.ID() {
	case arrow.FLOAT32, arrow.FLOAT64:
		if t.ID() == arrow.FLOAT32 {
			in, out := fixedN[float32](a[0], n), newFixed[float32](mem, n)
			for i := range n {
				if m.ok(i) {
					out.vals[i] = float32(roundFloat(float64(in[i]), ds(i), trunc))
				}
			}
			return out.finish(t, n, valid), nil
		}
		in, out := fixedN[float64](a[0], n), newFixed[float64](mem, n)
		for i := range n {
			if m.ok(i) {
				out.vals[i] = roundFloat(in[i], ds(i), trunc)
			}
		}
		return out.finish(t, n, valid), nil
	}
	var in []int64
	switch t.ID() {
	case arrow.INT8:
		in = widen(fixedN[int8](a[0], n))
	case arrow.INT16:
		in = widen(fixedN[int16](a[0], n))
	case arrow.INT32:
		in = widen(fixedN[int32](a[0], n))
	case arrow.INT64:
		in = fixedN[int64](a[0], n)
	default:
		return fail(invalidf("%s: unsupported type %s", name, vec.TypeName(t)))
	}
	res := make([]int64, n)
	lo, hi := intRange(t)
	for i := range n {
		if !m.ok(i) {
			continue
		}
		d := ds(i)
		if d >= 0 {
			res[i] = in[i]
			continue
		}
		r, ok := roundInt(in[i], -d, mode)
		if !ok || r < lo || r > hi {
			return fail(invalidf("%s: overflow rounding %d to %d digits in %s", name, in[i], d, vec.TypeName(t)))
		}
		res[i] = r
	}
	return narrow(mem, t, res, n, valid), nil
}

func widen[T signedInt](v []T) []int64 {
	out := make([]int64, len(v))
	for i, x := range v {
		out[i] = int64(x)
	}
	return out
}

func intRange(t arrow.DataType) (int64, int64) {
	switch t.ID() {
	case arrow.INT8:
		return math.MinInt8, math.MaxInt8
	case arrow.INT16:
		return math.MinInt16, math.MaxInt16
	case arrow.INT32:
		return math.MinInt32, math.MaxInt32
	}
	return math.MinInt64, math.MaxInt64
}

// narrow writes int64 values (in range) as an array of integer type t.
func narrow(mem memory.Allocator, t arrow.DataType, v []int64, n int, valid *memory.Buffer) arrow.Array {
	switch t.ID() {
	case arrow.INT8:
		return narrowTo[int8](mem, t, v, n, valid)
	case arrow.INT16:
		return narrowTo[int16](mem, t, v, n, valid)
	case arrow.INT32:
		return narrowTo[int32](mem, t, v, n, valid)
	}
	return narrowTo[int64](mem, t, v, n, valid)
}

func narrowTo[T signedInt](mem memory.Allocator, t arrow.DataType, v []int64, n int, valid *memory.Buffer) arrow.Array {
	out := newFixed[T](mem, n)
	for i := range n {
		out.vals[i] = T(v[i])
	}
	return out.finish(t, n, valid)
}

// SIGN(x): -1, 0 or 1 as TINYINT (0 for NaN).
func bindSign(name string, args []vec.Expr) (*vec.BoundFunc, error) {
	if err := arity(name, args, 1, 1); err != nil {
		return nil, err
	}
	t, err := numArgType(name, args, 0, tFloat64)
	if err != nil {
		return nil, err
	}
	sgn := func(neg, pos bool) int8 {
		switch {
		case neg:
			return -1
		case pos:
			return 1
		}
		return 0
	}
	return &vec.BoundFunc{Ret: tInt8, ArgTypes: []arrow.DataType{t}, NullOnNullInput: true,
		Kernel: func(c *vec.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
			switch t.ID() {
			case arrow.INT8:
				return mapNum(c.Mem, a[0], n, tInt8, func(x int8) (int8, error) { return sgn(x < 0, x > 0), nil })
			case arrow.INT16:
				return mapNum(c.Mem, a[0], n, tInt8, func(x int16) (int8, error) { return sgn(x < 0, x > 0), nil })
			case arrow.INT32:
				return mapNum(c.Mem, a[0], n, tInt8, func(x int32) (int8, error) { return sgn(x < 0, x > 0), nil })
			case arrow.INT64:
				return mapNum(c.Mem, a[0], n, tInt8, func(x int64) (int8, error) { return sgn(x < 0, x > 0), nil })
			case arrow.FLOAT32:
				return mapNum(c.Mem, a[0], n, tInt8, func(x float32) (int8, error) { return sgn(x < 0, x > 0), nil })
			case arrow.FLOAT64:
				return mapNum(c.Mem, a[0], n, tInt8, func(x float64) (int8, error) { return sgn(x < 0, x > 0), nil })
			}
			return mapNum(c.Mem, a[0], n, tInt8, func(x decimal128.Num) (int8, error) { return int8(x.Sign()), nil })
		}}, nil
}

func bindPi(name string, args []vec.Expr) (*vec.BoundFunc, error) {
	if err := arity(name, args, 0, 0); err != nil {
		return nil, err
	}
	return &vec.BoundFunc{Ret: tFloat64, ArgTypes: []arrow.DataType{}, Kernel: func(c *vec.Ctx, _ []arrow.Array, n int) (arrow.Array, error) {
		out := newFixed[float64](c.Mem, n)
		for i := range out.vals {
			out.vals[i] = math.Pi
		}
		return out.finish(tFloat64, n, nil), nil
	}}, nil
}

// floatArg checks a numeric argument read as DOUBLE.
func floatArgs(name string, args []vec.Expr) error {
	for i := range args {
		if _, err := numArgType(name, args, i, tFloat64); err != nil {
			return err
		}
	}
	return nil
}

func bindFloat1(f func(float64) (float64, error)) func(string, []vec.Expr) (*vec.BoundFunc, error) {
	return func(name string, args []vec.Expr) (*vec.BoundFunc, error) {
		if err := arity(name, args, 1, 1); err != nil {
			return nil, err
		}
		if err := floatArgs(name, args); err != nil {
			return nil, err
		}
		return &vec.BoundFunc{Ret: tFloat64, ArgTypes: []arrow.DataType{tFloat64}, NullOnNullInput: true,
			Kernel: func(c *vec.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
				return mapNum(c.Mem, a[0], n, tFloat64, f)
			}}, nil
	}
}

func bindFloat2(f func(x, y float64) float64) func(string, []vec.Expr) (*vec.BoundFunc, error) {
	return func(name string, args []vec.Expr) (*vec.BoundFunc, error) {
		if err := arity(name, args, 2, 2); err != nil {
			return nil, err
		}
		if err := floatArgs(name, args); err != nil {
			return nil, err
		}
		return &vec.BoundFunc{Ret: tFloat64, ArgTypes: types(tFloat64, 2), NullOnNullInput: true,
			Kernel: func(c *vec.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
				x, y := fixedN[float64](a[0], n), fixedN[float64](a[1], n)
				valid := andValidity(c.Mem, n, a...)
				out := newFixed[float64](c.Mem, n)
				m := maskOf(valid)
				for i := range n {
					if m.ok(i) {
						out.vals[i] = f(x[i], y[i])
					}
				}
				return out.finish(tFloat64, n, valid), nil
			}}, nil
	}
}

// LOG(x) is base 10 (DuckDB); LOG(b, x) is base b.
func bindLog(name string, args []vec.Expr) (*vec.BoundFunc, error) {
	if err := arity(name, args, 1, 2); err != nil {
		return nil, err
	}
	if len(args) == 1 {
		return bindFloat1(logOf(name, math.Log10))(name, args)
	}
	if err := floatArgs(name, args); err != nil {
		return nil, err
	}
	return &vec.BoundFunc{Ret: tFloat64, ArgTypes: types(tFloat64, 2), NullOnNullInput: true,
		Kernel: func(c *vec.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
			b, x := fixedN[float64](a[0], n), fixedN[float64](a[1], n)
			valid := andValidity(c.Mem, n, a...)
			out := newFixed[float64](c.Mem, n)
			m := maskOf(valid)
			for i := range n {
				if !m.ok(i) {
					continue
				}
				lb, err := logOf(name, math.Log)(b[i])
				if err == nil {
					var lx float64
					if lx, err = logOf(name, math.Log)(x[i]); err == nil {
						out.vals[i] = lx / lb
						continue
					}
				}
				out.buf.Release()
				if valid != nil {
					valid.Release()
				}
				return nil, err
			}
			return out.finish(tFloat64, n, valid), nil
		}}, nil
}

package funcs

import (
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

// ISNAN / ISINF / ISFINITE (BOOLEAN of a DOUBLE), EVEN (DOUBLE: rounded
// away from zero to the next even integer) and GCD / LCM (BIGINT, always
// non-negative; LCM with a zero is 0), as DuckDB. A GCD or LCM that does
// not fit a BIGINT is an error.

func init() {
	register("ISNAN", nil, bindFloatPred(math.IsNaN))
	register("ISINF", nil, bindFloatPred(func(x float64) bool { return math.IsInf(x, 0) }))
	register("ISFINITE", nil, bindFloatPred(func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }))
	register("EVEN", nil, bindFloat1(func(x float64) (float64, error) { return evenOf(x), nil }))
	register("GCD", []string{"GREATEST_COMMON_DIVISOR"}, bindInt2(gcdOf))
	register("LCM", []string{"LEAST_COMMON_MULTIPLE"}, bindInt2(lcmOf))
}

func bindFloatPred(f func(float64) bool) func(string, []vec.Expr) (*vec.BoundFunc, error) {
	return func(name string, args []vec.Expr) (*vec.BoundFunc, error) {
		if err := arity(name, args, 1, 1); err != nil {
			return nil, err
		}
		if err := floatArgs(name, args); err != nil {
			return nil, err
		}
		return &vec.BoundFunc{Ret: tBool, ArgTypes: []arrow.DataType{tFloat64}, NullOnNullInput: true,
			Kernel: func(c *vec.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
				xs := fixedN[float64](a[0], n)
				b := array.NewBooleanBuilder(c.Mem)
				defer b.Release()
				b.Reserve(n)
				for i := range n {
					if a[0].IsNull(i) {
						b.AppendNull()
						continue
					}
					b.Append(f(xs[i]))
				}
				return b.NewArray(), nil
			}}, nil
	}
}

// evenOf is DuckDB's EVEN: |x| rounded up, then up to even, signed as x.
func evenOf(x float64) float64 {
	v := math.Ceil(math.Abs(x))
	if math.Floor(v/2)*2 != v {
		v++
	}
	if x < 0 {
		return -v
	}
	return v
}

func bindInt2(f func(a, b int64) (int64, bool)) func(string, []vec.Expr) (*vec.BoundFunc, error) {
	return func(name string, args []vec.Expr) (*vec.BoundFunc, error) {
		if err := arity(name, args, 2, 2); err != nil {
			return nil, err
		}
		if err := wantInt(name, args, 0, 1); err != nil {
			return nil, err
		}
		return &vec.BoundFunc{Ret: tInt64, ArgTypes: types(tInt64, 2), NullOnNullInput: true,
			Kernel: func(c *vec.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
				valid := andValidity(c.Mem, n, a...)
				m := maskOf(valid)
				x, y := fixedN[int64](a[0], n), fixedN[int64](a[1], n)
				out := newFixed[int64](c.Mem, n)
				for i := range n {
					if !m.ok(i) {
						continue
					}
					r, ok := f(x[i], y[i])
					if !ok {
						out.buf.Release()
						if valid != nil {
							valid.Release()
						}
						return nil, invalidf("%s(%d, %d) is out of the BIGINT range", name, x[i], y[i])
					}
					out.vals[i] = r
				}
				return out.finish(tInt64, n, valid), nil
			}}, nil
	}
}

func absOK(x int64) (int64, bool) {
	if x == math.MinInt64 {
		return 0, false
	}
	if x < 0 {
		return -x, true
	}
	return x, true
}

func gcdOf(a, b int64) (int64, bool) {
	if a == math.MinInt64 && b == -1 || a == -1 && b == math.MinInt64 {
		return 1, true
	}
	for b != 0 {
		a, b = b, a%b
	}
	return absOK(a)
}

func lcmOf(a, b int64) (int64, bool) {
	if a == 0 || b == 0 {
		return 0, true
	}
	g, ok := gcdOf(a, b)
	if !ok {
		return 0, false
	}
	q := b / g
	r := a * q
	if a != 0 && (r/a != q || a == -1 && q == math.MinInt64 || q == -1 && a == math.MinInt64) {
		return 0, false
	}
	return absOK(r)
}

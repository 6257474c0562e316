package exec

import (
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Two-variable statistics: CORR, COVAR_POP, COVAR_SAMP and the REGR_*
// family (DuckDB's argument order: f(y, x)). The state is a bivariate
// Welford accumulator (count, means, sums of squared deviations and the
// co-moment), numerically stable; partial states merge with Chan et al.'s
// formula. Rows where either argument is NULL are skipped (SQL standard).
// The finishing rules follow DuckDB: COVAR_SAMP needs two rows; CORR is
// NaN when a standard deviation is zero; REGR_SLOPE/INTERCEPT are NULL when
// x's population variance is zero; REGR_R2 is NULL when var_pop(x) = 0 and
// 1 when var_pop(y) = 0; REGR_COUNT is a non-NULL BIGINT.

// moments is one group's bivariate state.
type moments struct {
	n                   int64
	mx, my, m2x, m2y, c float64
}

func (m *moments) add(y, x float64) {
	m.n++
	n := float64(m.n)
	dx := x - m.mx
	dy := y - m.my
	m.mx += dx / n
	m.my += dy / n
	m.m2x += dx * (x - m.mx)
	m.m2y += dy * (y - m.my)
	m.c += dx * (y - m.my)
}

func (m *moments) merge(o moments) {
	if o.n == 0 {
		return
	}
	if m.n == 0 {
		*m = o
		return
	}
	na, nb := float64(m.n), float64(o.n)
	n := na + nb
	dx, dy := o.mx-m.mx, o.my-m.my
	m.mx += dx * nb / n
	m.my += dy * nb / n
	m.m2x += o.m2x + dx*dx*na*nb/n
	m.m2y += o.m2y + dy*dy*na*nb/n
	m.c += o.c + dx*dy*na*nb/n
	m.n += o.n
}

// result is fn of the state, and whether it is not NULL.
func (m *moments) result(fn string) (float64, bool) {
	n := float64(m.n)
	switch fn {
	case "REGR_COUNT":
		return n, true
	case "VAR_POP", "STDDEV_POP", "VAR_SAMP", "STDDEV_SAMP": // univariate (x = y)
		d := n
		if fn == "VAR_SAMP" || fn == "STDDEV_SAMP" {
			d = n - 1
		}
		if d < 1 {
			return 0, false
		}
		v := max(m.m2x/d, 0)
		if fn == "STDDEV_POP" || fn == "STDDEV_SAMP" {
			v = math.Sqrt(v)
		}
		return v, true
	case "COVAR_SAMP":
		if m.n < 2 {
			return 0, false
		}
		return m.c / (n - 1), true
	}
	if m.n == 0 {
		return 0, false
	}
	switch fn {
	case "COVAR_POP":
		return m.c / n, true
	case "CORR":
		sx, sy := math.Sqrt(max(m.m2x, 0)/n), math.Sqrt(max(m.m2y, 0)/n)
		if sx*sy == 0 {
			return math.NaN(), true
		}
		return (m.c / n) / (sx * sy), true
	case "REGR_SLOPE", "REGR_INTERCEPT":
		vx := m.m2x / n
		if vx == 0 {
			return 0, false
		}
		slope := (m.c / n) / vx
		if fn == "REGR_SLOPE" {
			return slope, true
		}
		return m.my - slope*m.mx, true
	case "REGR_R2":
		vx, vy := m.m2x/n, m.m2y/n
		if vx == 0 {
			return 0, false
		}
		if vy == 0 {
			return 1, true
		}
		r := (m.c / n) / (math.Sqrt(vx) * math.Sqrt(vy))
		return r * r, true
	case "REGR_AVGX":
		return m.mx, true
	case "REGR_AVGY":
		return m.my, true
	case "REGR_SXX":
		return m.m2x, true
	case "REGR_SYY":
		return m.m2y, true
	case "REGR_SXY":
		return m.c, true
	}
	return 0, false
}

// isMomentsAgg reports whether fn is one of the two-variable statistics.
func isMomentsAgg(fn string) bool {
	switch fn {
	case "CORR", "COVAR_POP", "COVAR_SAMP", "REGR_SLOPE", "REGR_INTERCEPT", "REGR_COUNT", "REGR_R2",
		"REGR_AVGX", "REGR_AVGY", "REGR_SXX", "REGR_SYY", "REGR_SXY":
		return true
	}
	return false
}

type aggCovar struct {
	fn     string
	st     []moments
	by, bx []float64
}

func (a *aggCovar) resize(n int) { a.st = aggGrow(a.st, n) }
func (a *aggCovar) bytes() int64 {
	return 48*int64(cap(a.st)) + 8*int64(cap(a.by)+cap(a.bx))
}

func (a *aggCovar) update(args []arrow.Array, mask []byte, gids []int32) error {
	ys, err := aggFloat64s(args[0], &a.by)
	if err != nil {
		return err
	}
	xs, err := aggFloat64s(args[1], &a.bx)
	if err != nil {
		return err
	}
	for r, g := range gids {
		if mask != nil && !bitutil.BitIsSet(mask, r) {
			continue
		}
		a.st[g].add(ys[r], xs[r])
	}
	return nil
}

func (a *aggCovar) merge(src aggAcc, gmap []int32) error {
	o := src.(*aggCovar)
	for i, g := range gmap {
		a.st[g].merge(o.st[i])
	}
	return nil
}

func (a *aggCovar) finish(mem memory.Allocator) (arrow.Array, error) {
	out := make([]float64, len(a.st))
	has := make([]bool, len(a.st))
	for g := range a.st {
		out[g], has[g] = a.st[g].result(a.fn)
	}
	if a.fn == "REGR_COUNT" {
		cnt := make([]int64, len(a.st))
		for g := range a.st {
			cnt[g] = a.st[g].n
		}
		return aggFixedArray(mem, arrow.PrimitiveTypes.Int64, cnt, nil), nil
	}
	return aggFixedArray(mem, arrow.PrimitiveTypes.Float64, out, has), nil
}

// ---- PRODUCT and GEOMEAN ------------------------------------------------------

// aggProduct is PRODUCT (the DOUBLE product of the values) or GEOMEAN
// (exp of the mean of the natural logarithms, DuckDB's geometric_mean).
type aggProduct struct {
	geo bool
	v   []float64
	n   []int64
	buf []float64
}

func (a *aggProduct) resize(n int) { a.v = aggGrow(a.v, n); a.n = aggGrow(a.n, n) }
func (a *aggProduct) bytes() int64 { return 16*int64(cap(a.v)) + 8*int64(cap(a.buf)) }

func (a *aggProduct) take(g int32, x float64, c int64) {
	switch {
	case a.n[g] == 0:
		a.v[g] = x
	case a.geo:
		a.v[g] += x
	default:
		a.v[g] *= x
	}
	a.n[g] += c
}

func (a *aggProduct) update(args []arrow.Array, mask []byte, gids []int32) error {
	vals, err := aggFloat64s(args[0], &a.buf)
	if err != nil {
		return err
	}
	for r, g := range gids {
		if mask != nil && !bitutil.BitIsSet(mask, r) {
			continue
		}
		x := vals[r]
		if a.geo {
			x = math.Log(x)
		}
		a.take(g, x, 1)
	}
	return nil
}

func (a *aggProduct) merge(src aggAcc, gmap []int32) error {
	o := src.(*aggProduct)
	for i, g := range gmap {
		if o.n[i] > 0 {
			a.take(g, o.v[i], o.n[i])
		}
	}
	return nil
}

func (a *aggProduct) finish(mem memory.Allocator) (arrow.Array, error) {
	out := make([]float64, len(a.v))
	has := make([]bool, len(a.v))
	for g := range a.v {
		if a.n[g] == 0 {
			continue
		}
		out[g], has[g] = a.v[g], true
		if a.geo {
			out[g] = math.Exp(a.v[g] / float64(a.n[g]))
		}
	}
	return aggFixedArray(mem, arrow.PrimitiveTypes.Float64, out, has), nil
}

// ---- BIT_AND, BIT_OR, BIT_XOR ---------------------------------------------------

// aggBits folds the two's complement bits of integers; the result has the
// argument's type (a signed value is sign-extended to 64 bits and truncated
// back, which commutes with AND, OR and XOR).
type aggBits struct {
	fn  string
	dt  arrow.DataType
	v   []uint64
	has []bool
}

func (a *aggBits) resize(n int) { a.v = aggGrow(a.v, n); a.has = aggGrow(a.has, n) }
func (a *aggBits) bytes() int64 { return 9 * int64(cap(a.v)) }

func (a *aggBits) take(g int32, x uint64) {
	if !a.has[g] {
		a.v[g], a.has[g] = x, true
		return
	}
	switch a.fn {
	case "BIT_AND":
		a.v[g] &= x
	case "BIT_OR":
		a.v[g] |= x
	default:
		a.v[g] ^= x
	}
}

func aggBitsLoop[T int8 | int16 | int32 | int64 | uint8 | uint16 | uint32 | uint64](a *aggBits, col arrow.Array, mask []byte, gids []int32) error {
	vals, err := aggValues[T](col)
	if err != nil {
		return err
	}
	for r, g := range gids {
		if mask != nil && !bitutil.BitIsSet(mask, r) {
			continue
		}
		a.take(g, uint64(vals[r]))
	}
	return nil
}

func (a *aggBits) update(args []arrow.Array, mask []byte, gids []int32) error {
	switch args[0].DataType().ID() {
	case arrow.INT8:
		return aggBitsLoop[int8](a, args[0], mask, gids)
	case arrow.INT16:
		return aggBitsLoop[int16](a, args[0], mask, gids)
	case arrow.INT32:
		return aggBitsLoop[int32](a, args[0], mask, gids)
	case arrow.INT64:
		return aggBitsLoop[int64](a, args[0], mask, gids)
	case arrow.UINT8:
		return aggBitsLoop[uint8](a, args[0], mask, gids)
	case arrow.UINT16:
		return aggBitsLoop[uint16](a, args[0], mask, gids)
	case arrow.UINT32:
		return aggBitsLoop[uint32](a, args[0], mask, gids)
	case arrow.UINT64:
		return aggBitsLoop[uint64](a, args[0], mask, gids)
	case arrow.NULL:
		return nil
	}
	return winInvalidf("%s over %s", a.fn, args[0].DataType())
}

func (a *aggBits) merge(src aggAcc, gmap []int32) error {
	o := src.(*aggBits)
	for i, g := range gmap {
		if o.has[i] {
			a.take(g, o.v[i])
		}
	}
	return nil
}

func aggBitsOut[T int8 | int16 | int32 | int64 | uint8 | uint16 | uint32 | uint64](mem memory.Allocator, dt arrow.DataType, v []uint64, has []bool) arrow.Array {
	out := make([]T, len(v))
	for i, x := range v {
		out[i] = T(x)
	}
	return aggFixedArray(mem, dt, out, has)
}

func (a *aggBits) finish(mem memory.Allocator) (arrow.Array, error) {
	switch a.dt.ID() {
	case arrow.INT8:
		return aggBitsOut[int8](mem, a.dt, a.v, a.has), nil
	case arrow.INT16:
		return aggBitsOut[int16](mem, a.dt, a.v, a.has), nil
	case arrow.INT32:
		return aggBitsOut[int32](mem, a.dt, a.v, a.has), nil
	case arrow.UINT8:
		return aggBitsOut[uint8](mem, a.dt, a.v, a.has), nil
	case arrow.UINT16:
		return aggBitsOut[uint16](mem, a.dt, a.v, a.has), nil
	case arrow.UINT32:
		return aggBitsOut[uint32](mem, a.dt, a.v, a.has), nil
	case arrow.UINT64:
		return aggBitsOut[uint64](mem, a.dt, a.v, a.has), nil
	}
	return aggBitsOut[int64](mem, arrow.PrimitiveTypes.Int64, a.v, a.has), nil
}

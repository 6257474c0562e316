package exec

import (
	"fmt"
	"math"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/scalar"
)

// aggQuantile is QUANTILE_CONT / QUANTILE_DISC (MEDIAN is QUANTILE_CONT
// 0.5) over DOUBLE values (the binder casts the argument): it holds every
// non-NULL value of each group (accounted in bytes) and sorts them when the
// aggregation finishes, so the result does not depend on the input order.
// CONT interpolates linearly at (n-1)·q; DISC picks the value at
// max(1, ceil(n·q))-1 of the sorted values (DuckDB's rules).
type aggQuantile struct {
	q    float64
	disc bool
	v    [][]float64
	size int64
}

func (a *aggQuantile) resize(n int) { a.v = aggGrow(a.v, n) }
func (a *aggQuantile) bytes() int64 { return 24*int64(cap(a.v)) + a.size }

func (a *aggQuantile) add(g int32, x float64) {
	before := cap(a.v[g])
	a.v[g] = append(a.v[g], x)
	a.size += 8 * int64(cap(a.v[g])-before)
}

func (a *aggQuantile) update(args []arrow.Array, mask []byte, gids []int32) error {
	if args[0].DataType().ID() == arrow.NULL {
		return nil
	}
	f, ok := args[0].(*array.Float64)
	if !ok {
		return fmt.Errorf("exec: QUANTILE over %s (want DOUBLE)", args[0].DataType())
	}
	vals := f.Float64Values()
	for r, g := range gids {
		if mask != nil && !bitutil.BitIsSet(mask, r) {
			continue
		}
		a.add(g, vals[r])
	}
	return nil
}

func (a *aggQuantile) merge(src aggAcc, gmap []int32) error {
	o := src.(*aggQuantile)
	for i, g := range gmap {
		for _, x := range o.v[i] {
			a.add(g, x)
		}
	}
	return nil
}

func (a *aggQuantile) finish(mem memory.Allocator) (arrow.Array, error) {
	out := make([]float64, len(a.v))
	has := make([]bool, len(a.v))
	for i, xs := range a.v {
		if len(xs) == 0 {
			continue
		}
		slices.SortFunc(xs, aggCmpFloat)
		has[i] = true
		n := len(xs)
		if a.disc {
			k := max(1, int(math.Ceil(float64(n)*a.q))) - 1
			out[i] = xs[min(k, n-1)]
			continue
		}
		pos := float64(n-1) * a.q
		lo := math.Floor(pos)
		hi := math.Ceil(pos)
		x0, x1 := xs[int(lo)], xs[int(hi)]
		if lo == hi {
			out[i] = x0
		} else {
			out[i] = x0 + (pos-lo)*(x1-x0)
		}
	}
	return aggFixedArray(mem, arrow.PrimitiveTypes.Float64, out, has), nil
}

// aggCmpFloat orders NaN above every number (the engine's sort order).
func aggCmpFloat(x, y float64) int {
	switch {
	case math.IsNaN(x) && math.IsNaN(y):
		return 0
	case math.IsNaN(x):
		return 1
	case math.IsNaN(y):
		return -1
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

// aggConstFloat reads a numeric constant.
func aggConstFloat(s scalar.Scalar) (float64, bool) {
	switch x := s.(type) {
	case *scalar.Decimal128:
		return x.Value.ToFloat64(x.Type.(*arrow.Decimal128Type).Scale), true
	case *scalar.Int64:
		return float64(x.Value), true
	case *scalar.Float64:
		return x.Value, true
	}
	c, err := s.CastTo(arrow.PrimitiveTypes.Float64)
	if err != nil {
		return 0, false
	}
	f, ok := c.(*scalar.Float64)
	if !ok || !f.IsValid() {
		return 0, false
	}
	return f.Value, true
}

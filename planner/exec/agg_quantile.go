package exec

import (
	"fmt"
	"math"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/scalar"
)

// aggQuantile is QUANTILE_CONT / QUANTILE_DISC (MEDIAN is QUANTILE_CONT
// 0.5) over DOUBLE or DECIMAL values (the binder casts other numbers to
// DOUBLE): it holds every non-NULL value of each group (accounted in bytes)
// and sorts them when the aggregation finishes, so the result does not
// depend on the input order. CONT interpolates at (n-1)·q; DISC picks the
// value at max(1, ceil(n·q))-1 of the sorted values (DuckDB's rules, see
// agg_quantcore.go). A DECIMAL argument gives a result of its own type.
type aggQuantile struct {
	q    quantFrac
	disc bool
	dec  *arrow.Decimal128Type // nil: DOUBLE values in v
	v    [][]float64
	d    [][]decimal128.Num
	size int64
}

func newAggQuantile(sp *aggSpec) *aggQuantile {
	a := &aggQuantile{q: sp.qf, disc: sp.fn == "QUANTILE_DISC"}
	if dt, ok := sp.types[0].(*arrow.Decimal128Type); ok {
		a.dec = dt
	}
	return a
}

func (a *aggQuantile) resize(n int) {
	if a.dec != nil {
		a.d = aggGrow(a.d, n)
		return
	}
	a.v = aggGrow(a.v, n)
}

func (a *aggQuantile) bytes() int64 { return 24*int64(cap(a.v)+cap(a.d)) + a.size }

func (a *aggQuantile) add(g int32, x float64) {
	before := cap(a.v[g])
	a.v[g] = append(a.v[g], x)
	a.size += 8 * int64(cap(a.v[g])-before)
}

func (a *aggQuantile) addDec(g int32, x decimal128.Num) {
	before := cap(a.d[g])
	a.d[g] = append(a.d[g], x)
	a.size += 16 * int64(cap(a.d[g])-before)
}

func (a *aggQuantile) update(args []arrow.Array, mask []byte, gids []int32) error {
	if args[0].DataType().ID() == arrow.NULL {
		return nil
	}
	if a.dec != nil {
		d, ok := args[0].(*array.Decimal128)
		if !ok {
			return fmt.Errorf("exec: QUANTILE over %s (want %s)", args[0].DataType(), a.dec)
		}
		vals := d.Values()
		for r, g := range gids {
			if mask != nil && !bitutil.BitIsSet(mask, r) {
				continue
			}
			a.addDec(g, vals[r])
		}
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
		if a.dec != nil {
			for _, x := range o.d[i] {
				a.addDec(g, x)
			}
			continue
		}
		for _, x := range o.v[i] {
			a.add(g, x)
		}
	}
	return nil
}

func (a *aggQuantile) finish(mem memory.Allocator) (arrow.Array, error) {
	if a.dec != nil {
		out := make([]decimal128.Num, len(a.d))
		has := make([]bool, len(a.d))
		for i, xs := range a.d {
			if len(xs) == 0 {
				continue
			}
			slices.SortFunc(xs, decimal128.Num.Cmp)
			has[i] = true
			out[i] = quantPickDec(a.q, a.disc, len(xs), func(k int) decimal128.Num { return xs[k] }, a.dec.Precision)
		}
		return aggFixedArray(mem, a.dec, out, has), nil
	}
	out := make([]float64, len(a.v))
	has := make([]bool, len(a.v))
	for i, xs := range a.v {
		if len(xs) == 0 {
			continue
		}
		slices.SortFunc(xs, aggCmpFloat)
		has[i] = true
		out[i] = quantPickFloat(a.q, a.disc, len(xs), func(k int) float64 { return xs[k] })
	}
	return aggFixedArray(mem, arrow.PrimitiveTypes.Float64, out, has), nil
}

// quantPickFloat is the quantile of n (> 0) sorted values, kth(k) being
// the k-th smallest (0-based).
func quantPickFloat(q quantFrac, disc bool, n int, kth func(int) float64) float64 {
	if disc {
		return kth(q.discIndex(n))
	}
	lo, hi, d := q.contPos(n)
	x0 := kth(lo)
	if lo == hi {
		return x0
	}
	return quantInterpFloat(x0, kth(hi), d)
}

// quantPickDec is quantPickFloat over DECIMAL values of precision prec.
func quantPickDec(q quantFrac, disc bool, n int, kth func(int) decimal128.Num, prec int32) decimal128.Num {
	if disc {
		return kth(q.discIndex(n))
	}
	lo, hi, d := q.contPos(n)
	x0 := kth(lo)
	if lo == hi {
		return x0
	}
	return quantInterpDec(x0, kth(hi), d, prec)
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

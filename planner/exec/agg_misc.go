package exec

import (
	"context"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// ---- VAR_SAMP, VAR_POP, STDDEV_SAMP, STDDEV_POP --------------------------------

// aggVar keeps Welford's running count, mean and sum of squared deviations
// per group (numerically stable); partial states merge with Chan et al.'s
// formula. Arguments of any numeric type are converted to DOUBLE.
type aggVar struct {
	fn   string
	n    []int64
	mean []float64
	m2   []float64
	buf  []float64
}

func (a *aggVar) resize(n int) {
	a.n = aggGrow(a.n, n)
	a.mean = aggGrow(a.mean, n)
	a.m2 = aggGrow(a.m2, n)
}
func (a *aggVar) bytes() int64 { return 24*int64(cap(a.n)) + 8*int64(cap(a.buf)) }

func (a *aggVar) update(args []arrow.Array, mask []byte, gids []int32) error {
	vals, err := aggFloat64s(args[0], &a.buf)
	if err != nil {
		return err
	}
	for r, g := range gids {
		if mask != nil && !bitutil.BitIsSet(mask, r) {
			continue
		}
		x := vals[r]
		a.n[g]++
		d := x - a.mean[g]
		a.mean[g] += d / float64(a.n[g])
		a.m2[g] += d * (x - a.mean[g])
	}
	return nil
}

func (a *aggVar) merge(src aggAcc, gmap []int32) error {
	o := src.(*aggVar)
	for i, g := range gmap {
		nb := o.n[i]
		if nb == 0 {
			continue
		}
		na := a.n[g]
		if na == 0 {
			a.n[g], a.mean[g], a.m2[g] = nb, o.mean[i], o.m2[i]
			continue
		}
		n := float64(na + nb)
		d := o.mean[i] - a.mean[g]
		a.mean[g] += d * float64(nb) / n
		a.m2[g] += o.m2[i] + d*d*float64(na)*float64(nb)/n
		a.n[g] = na + nb
	}
	return nil
}

func (a *aggVar) finish(mem memory.Allocator) (arrow.Array, error) {
	out := make([]float64, len(a.n))
	has := make([]bool, len(a.n))
	for g, n := range a.n {
		var v float64
		switch a.fn {
		case "VAR_POP", "STDDEV_POP":
			if n < 1 {
				continue
			}
			v = a.m2[g] / float64(n)
		default:
			if n < 2 {
				continue
			}
			v = a.m2[g] / float64(n-1)
		}
		if v < 0 { // rounding of a constant group
			v = 0
		}
		if a.fn == "STDDEV_POP" || a.fn == "STDDEV_SAMP" {
			v = math.Sqrt(v)
		}
		out[g], has[g] = v, true
	}
	return aggFixedArray(mem, arrow.PrimitiveTypes.Float64, out, has), nil
}

// ---- STRING_AGG ------------------------------------------------------------------

// aggStrAgg concatenates a group's non-NULL values with a constant
// separator, in input order within a partial aggregation (the order across
// partitions is unspecified, as without ORDER BY in SQL).
type aggStrAgg struct {
	dt   arrow.DataType
	sep  string
	v    [][]byte
	has  []bool
	size int64
}

func (a *aggStrAgg) resize(n int) { a.v = aggGrow(a.v, n); a.has = aggGrow(a.has, n) }
func (a *aggStrAgg) bytes() int64 { return 25*int64(cap(a.v)) + a.size }

func (a *aggStrAgg) add(g int32, b []byte) {
	before := cap(a.v[g])
	if a.has[g] {
		a.v[g] = append(a.v[g], a.sep...)
	}
	a.v[g] = append(a.v[g], b...)
	a.has[g] = true
	a.size += int64(cap(a.v[g]) - before)
}

func (a *aggStrAgg) update(args []arrow.Array, mask []byte, gids []int32) error {
	id := args[0].DataType().ID()
	if id == arrow.NULL {
		return nil
	}
	o32, o64, data, err := ktVarParts(args[0], id == arrow.LARGE_STRING || id == arrow.LARGE_BINARY)
	if err != nil {
		return err
	}
	if o64 != nil {
		return aggStrAggLoop(a, o64, data, mask, gids)
	}
	return aggStrAggLoop(a, o32, data, mask, gids)
}

func aggStrAggLoop[O int32 | int64](a *aggStrAgg, offs []O, data []byte, mask []byte, gids []int32) error {
	if offs[0] < 0 || int64(offs[len(offs)-1]) > int64(len(data)) {
		return fmt.Errorf("exec: string offsets outside the data")
	}
	for r, g := range gids {
		if mask != nil && !bitutil.BitIsSet(mask, r) {
			continue
		}
		s, e := offs[r], offs[r+1]
		if e < s {
			return fmt.Errorf("exec: string offsets decrease at row %d", r)
		}
		a.add(g, data[s:e])
	}
	return nil
}

func (a *aggStrAgg) merge(src aggAcc, gmap []int32) error {
	o := src.(*aggStrAgg)
	for i, g := range gmap {
		if o.has[i] {
			a.add(g, o.v[i])
		}
	}
	return nil
}

func (a *aggStrAgg) finish(mem memory.Allocator) (arrow.Array, error) {
	return aggBytesArray(mem, a.dt, len(a.v), func(i int) ([]byte, bool) { return a.v[i], a.has[i] })
}

// ---- DISTINCT aggregates -----------------------------------------------------

// aggDistinct dedupes (group, arguments...) in a KeyTable and runs the
// plain aggregate over the distinct pairs when the aggregation finishes
// (so partial states merge their sets, not their results). Rows the mask
// drops are inserted under group -1, which finish ignores.
//
// single (an aggregation without GROUP BY: every row is group 0) keys the
// arguments alone, so COUNT(DISTINCT s) over one string column uses the
// string table rather than the general encoded one; the rows the mask
// drops are left out before inserting.
type aggDistinct struct {
	mem    memory.Allocator
	inner  func() (aggAcc, error)
	kt     KeyTable
	single bool
	n      int
	ids    []int32
	take   []int32
}

func newAggDistinct(mem memory.Allocator, argTypes []arrow.DataType, single bool, inner func() (aggAcc, error)) *aggDistinct {
	if single {
		return &aggDistinct{mem: mem, inner: inner, single: true, kt: NewKeyTable(argTypes)}
	}
	types := append([]arrow.DataType{arrow.PrimitiveTypes.Int32}, argTypes...)
	return &aggDistinct{mem: mem, inner: inner, kt: NewKeyTable(types)}
}

func (a *aggDistinct) resize(n int) { a.n = max(a.n, n) }
func (a *aggDistinct) bytes() int64 { return a.kt.Bytes() + 4*int64(cap(a.ids)) }

// gidColumn builds the Int32 group column: vals(i), or -1 where drop(i).
func aggGidColumn(mem memory.Allocator, n int, val func(int) int32) arrow.Array {
	buf := ktBuffer(mem, 4*n)
	if n > 0 {
		out := arrow.Int32Traits.CastFromBytes(buf.Bytes())
		for i := range n {
			out[i] = val(i)
		}
	}
	return ktMakeArray(arrow.PrimitiveTypes.Int32, n, 0, nil, buf)
}

func (a *aggDistinct) insert(keys []arrow.Array) error {
	n := keys[0].Len()
	a.ids = ktResize(a.ids, n)
	return a.kt.Insert(keys, a.ids)
}

func (a *aggDistinct) update(args []arrow.Array, mask []byte, gids []int32) error {
	if a.single {
		return a.updateSingle(args, mask, gids)
	}
	g := aggGidColumn(a.mem, len(gids), func(r int) int32 {
		if mask != nil && !bitutil.BitIsSet(mask, r) {
			return -1
		}
		return gids[r]
	})
	defer g.Release()
	return a.insert(append([]arrow.Array{g}, args...))
}

// updateSingle inserts the arguments of the rows the mask keeps (every
// row is group 0).
func (a *aggDistinct) updateSingle(args []arrow.Array, mask []byte, gids []int32) error {
	n := len(gids)
	for _, g := range gids {
		if g != 0 {
			return fmt.Errorf("exec: DISTINCT aggregate without GROUP BY given group %d", g)
		}
	}
	if mask == nil {
		return a.insert(args)
	}
	a.take = a.take[:0]
	for r := range n {
		if bitutil.BitIsSet(mask, r) {
			a.take = append(a.take, int32(r))
		}
	}
	if len(a.take) == n {
		return a.insert(args)
	}
	if len(a.take) == 0 {
		return nil
	}
	kept, err := aggTake(a.mem, args, a.take)
	if err != nil {
		return err
	}
	defer ktRelease(kept)
	return a.insert(kept)
}

// aggTake gathers rows idx of every column.
func aggTake(mem memory.Allocator, cols []arrow.Array, idx []int32) ([]arrow.Array, error) {
	ia := aggFixedArray(mem, arrow.PrimitiveTypes.Int32, idx, nil)
	defer ia.Release()
	cctx := compute.WithAllocator(context.Background(), mem)
	out := make([]arrow.Array, len(cols))
	for i, c := range cols {
		t, err := compute.TakeArray(cctx, c, ia)
		if err != nil {
			ktRelease(out[:i])
			return nil, err
		}
		out[i] = t
	}
	return out, nil
}

func (a *aggDistinct) merge(src aggAcc, gmap []int32) error {
	o := src.(*aggDistinct)
	if a.single != o.single {
		return fmt.Errorf("exec: merging DISTINCT states of different shapes")
	}
	keys, err := o.kt.Keys(a.mem)
	if err != nil {
		return err
	}
	defer ktRelease(keys)
	if a.single {
		return a.insert(keys)
	}
	if err := regroupKeys(a.mem, keys, gmap); err != nil {
		return err
	}
	return a.insert(keys)
}

func (a *aggDistinct) finish(mem memory.Allocator) (arrow.Array, error) {
	inner, err := a.inner()
	if err != nil {
		return nil, err
	}
	inner.resize(a.n)
	keys, err := a.kt.Keys(mem)
	if err != nil {
		return nil, err
	}
	defer ktRelease(keys)
	if a.single {
		if m := a.kt.Len(); a.n > 0 && m > 0 {
			if err := inner.update(keys, nil, make([]int32, m)); err != nil {
				return nil, err
			}
		}
		return inner.finish(mem)
	}
	gs, err := aggValues[int32](keys[0])
	if err != nil {
		return nil, err
	}
	if a.n > 0 && len(gs) > 0 {
		gids := make([]int32, len(gs))
		mask := make([]byte, bitutil.BytesForBits(int64(len(gs))))
		for i, g := range gs {
			if g >= 0 && int(g) < a.n {
				gids[i] = g
				bitutil.SetBit(mask, i)
			}
		}
		if err := inner.update(keys[1:], mask, gids); err != nil {
			return nil, err
		}
	}
	return inner.finish(mem)
}

func ktRelease(as []arrow.Array) {
	for _, a := range as {
		if a != nil {
			a.Release()
		}
	}
}

// regroupKeys rewrites keys[0], the group-id column of a merged
// accumulator's key table, through gmap (its group → ours; negative ids
// stay -1).
func regroupKeys(mem memory.Allocator, keys []arrow.Array, gmap []int32) error {
	old, err := aggValues[int32](keys[0])
	if err != nil {
		return err
	}
	g := aggGidColumn(mem, len(old), func(i int) int32 {
		if old[i] < 0 {
			return -1
		}
		return gmap[old[i]]
	})
	keys[0].Release()
	keys[0] = g
	return nil
}

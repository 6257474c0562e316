package exec

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// LIST(x) / ARRAY_AGG(x [ORDER BY k]) runs on the ordered aggregate's
// table (agg_ordered.go): every row is kept (NULL values too, as DuckDB),
// and finish gathers each group's rows in (keys, arrival) order into one
// Arrow LIST value. A group without rows (all filtered out) is NULL.

// aggListFinish builds the LIST array of n groups from vals: perm lists
// the rows to use, sorted by group then order; gs[r] is row r's group.
func aggListFinish(mem memory.Allocator, out arrow.DataType, n int, vals arrow.Array, gs []int32, perm []int32) (arrow.Array, error) {
	counts := make([]int32, n)
	for _, r := range perm {
		counts[gs[r]]++
	}
	offs := make([]int32, n+1)
	has := make([]bool, n)
	nulls := 0
	for g := range n {
		offs[g+1] = offs[g] + counts[g]
		has[g] = counts[g] > 0
		if !has[g] {
			nulls++
		}
	}
	// perm is sorted by group, so it is already the values in list order.
	v, err := takeInt32(context.Background(), mem, vals, perm, nil)
	if err != nil {
		return nil, err
	}
	defer v.Release()
	ob := ktBuffer(mem, 4*(n+1))
	copy(arrow.Int32Traits.CastFromBytes(ob.Bytes()), offs)
	var vb *memory.Buffer
	if nulls > 0 {
		vb, _ = aggValidity(mem, has, n)
	}
	data := array.NewData(out, n, []*memory.Buffer{vb, ob}, []arrow.ArrayData{v.Data()}, nulls, 0)
	ob.Release()
	if vb != nil {
		vb.Release()
	}
	defer data.Release()
	return array.MakeFromData(data), nil
}

package exec

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// DISTINCT aggregates over frames anchored at a partition end. A frame
// [ps, fe) holds each of its distinct argument tuples exactly once at the
// tuple's first occurrence in the partition, and a frame [fs, pe) at its
// last occurrence; so f(DISTINCT x) over such frames is f(x') where x' is
// x with every other occurrence made NULL, evaluated by the non-DISTINCT
// paths (prefix sums, sliding evaluators). Only aggregates that skip NULLs
// and do not depend on the order of the distinct values qualify (MODE,
// ARG_MAX/ARG_MIN and STRING_AGG break ties or concatenate in that order).
var distinctByOccurrence = map[string]bool{
	"SUM": true, "AVG": true, "QUANTILE_CONT": true, "QUANTILE_DISC": true,
	"PRODUCT": true, "GEOMEAN": true, "BIT_XOR": true,
}

// distinctOccurrences returns args with args[0] NULL except at the first
// (first = true) or last occurrence of each argument tuple in its
// partition. The caller releases the result.
func distinctOccurrences(tc *TaskCtx, wd *winData, args []arrow.Array, first bool) ([]arrow.Array, error) {
	n := wd.n
	part := make([]int32, n)
	for k := 0; k+1 < len(wd.parts); k++ {
		for i := wd.parts[k]; i < wd.parts[k+1]; i++ {
			part[i] = int32(k)
		}
	}
	pc := aggGidColumn(tc.Mem, n, func(i int) int32 { return part[i] })
	defer pc.Release()
	types := []arrow.DataType{arrow.PrimitiveTypes.Int32}
	for _, a := range args {
		types = append(types, a.DataType())
	}
	kt := NewKeyTable(types)
	ids := make([]int32, n)
	if err := kt.Insert(append([]arrow.Array{pc}, args...), ids); err != nil {
		return nil, err
	}
	seen := make([]bool, kt.Len())
	keep := make([]bool, n)
	for k := 0; k < n; k++ {
		j := k
		if !first {
			j = n - 1 - k
		}
		if !seen[ids[j]] {
			seen[ids[j]] = true
			keep[j] = true
		}
	}
	a := args[0]
	d := a.Data()
	off := d.Offset()
	valid := memory.NewResizableBuffer(tc.Mem)
	valid.Resize(int(bitutil.BytesForBits(int64(off + n))))
	bm := valid.Bytes()
	clear(bm)
	for j := 0; j < n; j++ {
		if keep[j] && a.IsValid(j) {
			bitutil.SetBit(bm, off+j)
		}
	}
	bufs := append([]*memory.Buffer{valid}, d.Buffers()[1:]...)
	nd := array.NewData(a.DataType(), n, bufs, d.Children(), array.UnknownNullCount, off)
	valid.Release()
	out := array.MakeFromData(nd)
	nd.Release()
	res := append([]arrow.Array{out}, args[1:]...)
	for _, r := range res[1:] {
		r.Retain()
	}
	return res, nil
}

package exec

import (
	"context"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// joinGather is a typed gather of src at idx (idx < 0: NULL) for the
// fixed-width and 32-bit-offset string/binary types; ok is false for any
// other type (the caller falls back to compute.Take). idx must be within
// src's bounds.
func joinGather(mem memory.Allocator, src arrow.Array, idx []int32) (arrow.Array, bool) {
	dt := src.DataType()
	d := src.Data()
	switch dt.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64,
		arrow.FLOAT16, arrow.FLOAT32, arrow.FLOAT64, arrow.DATE32, arrow.DATE64, arrow.TIMESTAMP, arrow.TIME32, arrow.TIME64,
		arrow.DURATION, arrow.DECIMAL32, arrow.DECIMAL64, arrow.DECIMAL128, arrow.DECIMAL256,
		arrow.INTERVAL_MONTHS, arrow.INTERVAL_DAY_TIME, arrow.INTERVAL_MONTH_DAY_NANO, arrow.FIXED_SIZE_BINARY:
		fw, ok := dt.(arrow.FixedWidthDataType)
		if !ok || fw.BitWidth()%8 != 0 || fw.BitWidth() == 0 || len(d.Buffers()) != 2 || d.Buffers()[1] == nil {
			return nil, false
		}
		w := fw.BitWidth() / 8
		vals := d.Buffers()[1].Bytes()[d.Offset()*w:]
		n := len(idx)
		out := memory.NewResizableBuffer(mem)
		out.Resize(n * w)
		joinGatherFixed(out.Bytes(), vals, w, idx)
		valid, nulls := joinGatherValidity(mem, src, idx)
		data := array.NewData(dt, n, []*memory.Buffer{valid, out}, nil, nulls, 0)
		out.Release()
		if valid != nil {
			valid.Release()
		}
		a := array.MakeFromData(data)
		data.Release()
		return a, true
	case arrow.STRING, arrow.BINARY:
		if len(d.Buffers()) != 3 || d.Buffers()[1] == nil {
			return nil, false
		}
		offs := arrow.Int32Traits.CastFromBytes(d.Buffers()[1].Bytes())[d.Offset():]
		var vals []byte
		if d.Buffers()[2] != nil {
			vals = d.Buffers()[2].Bytes()
		}
		n := len(idx)
		total := 0
		for _, r := range idx {
			if r >= 0 {
				total += int(offs[r+1] - offs[r])
			}
		}
		if total > math.MaxInt32 {
			return nil, false
		}
		ob := memory.NewResizableBuffer(mem)
		ob.Resize((n + 1) * 4)
		db := memory.NewResizableBuffer(mem)
		db.Resize(total)
		oo := arrow.Int32Traits.CastFromBytes(ob.Bytes())
		dd := db.Bytes()
		pos := int32(0)
		oo[0] = 0
		for k, r := range idx {
			if r >= 0 {
				pos += int32(copy(dd[pos:], vals[offs[r]:offs[r+1]]))
			}
			oo[k+1] = pos
		}
		valid, nulls := joinGatherValidity(mem, src, idx)
		data := array.NewData(dt, n, []*memory.Buffer{valid, ob, db}, nil, nulls, 0)
		ob.Release()
		db.Release()
		if valid != nil {
			valid.Release()
		}
		a := array.MakeFromData(data)
		data.Release()
		return a, true
	}
	return nil, false
}

func joinGatherFixed(dst, src []byte, w int, idx []int32) {
	switch w {
	case 1:
		for k, r := range idx {
			if r >= 0 {
				dst[k] = src[r]
			}
		}
	case 2:
		d, s := arrow.Uint16Traits.CastFromBytes(dst), arrow.Uint16Traits.CastFromBytes(src)
		for k, r := range idx {
			if r >= 0 {
				d[k] = s[r]
			}
		}
	case 4:
		d, s := arrow.Uint32Traits.CastFromBytes(dst), arrow.Uint32Traits.CastFromBytes(src)
		for k, r := range idx {
			if r >= 0 {
				d[k] = s[r]
			}
		}
	case 8:
		d, s := arrow.Uint64Traits.CastFromBytes(dst), arrow.Uint64Traits.CastFromBytes(src)
		for k, r := range idx {
			if r >= 0 {
				d[k] = s[r]
			}
		}
	default:
		for k, r := range idx {
			if r >= 0 {
				copy(dst[k*w:(k+1)*w], src[int(r)*w:(int(r)+1)*w])
			} else {
				clear(dst[k*w : (k+1)*w])
			}
		}
	}
	if w <= 8 {
		// Slots of NULL indices hold whatever the buffer had; zero them so
		// the output is deterministic.
		for k, r := range idx {
			if r < 0 {
				clear(dst[k*w : (k+1)*w])
			}
		}
	}
}

// joinGatherValidity returns the validity bitmap of the gathered values
// (nil when every value is valid) and the NULL count.
func joinGatherValidity(mem memory.Allocator, src arrow.Array, idx []int32) (*memory.Buffer, int) {
	srcNulls := src.NullN() > 0
	nulls := 0
	for _, r := range idx {
		if r < 0 || srcNulls && src.IsNull(int(r)) {
			nulls++
		}
	}
	if nulls == 0 {
		return nil, 0
	}
	buf := memory.NewResizableBuffer(mem)
	buf.Resize(int(bitutil.BytesForBits(int64(len(idx)))))
	bm := buf.Bytes()
	clear(bm)
	for k, r := range idx {
		if r >= 0 && (!srcNulls || src.IsValid(int(r))) {
			bitutil.SetBit(bm, k)
		}
	}
	return buf, nulls
}

func joinIsIdentity(li []int32, n int) bool {
	if len(li) != n {
		return false
	}
	for k, l := range li {
		if int(l) != k {
			return false
		}
	}
	return true
}

// joinIndices makes an Int32 index array of idx, NULL (over index 0)
// where idx < 0.
func joinIndices(tc *TaskCtx, idx []int32) arrow.Array {
	bld := array.NewInt32Builder(tc.Mem)
	defer bld.Release()
	var vals []int32
	var valid []bool
	for k, v := range idx {
		if v < 0 {
			if valid == nil {
				vals = append([]int32(nil), idx...)
				valid = make([]bool, len(idx))
				for j := range valid {
					valid[j] = idx[j] >= 0
				}
			}
			vals[k] = 0
		}
	}
	if valid == nil {
		vals = idx
	}
	bld.AppendValues(vals, valid)
	return bld.NewArray()
}

// joinTake gathers src at idx (NULL where idx < 0): typed for the common
// types, compute.Take for the others.
func joinTake(cctx context.Context, tc *TaskCtx, src arrow.Array, idx []int32) (arrow.Array, error) {
	if a, ok := joinGather(tc.Mem, src, idx); ok {
		return a, nil
	}
	ia := joinIndices(tc, idx)
	defer ia.Release()
	return compute.TakeArray(cctx, src, ia)
}

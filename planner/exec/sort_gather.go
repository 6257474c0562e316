package exec

import (
	"context"
	"fmt"
	"math"
	"sort"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/compute"
	cexec "github.com/apache/arrow-go/v18/arrow/compute/exec"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// rowLoc addresses one row of a column split into chunks (c < 0: NULL).
type rowLoc struct{ c, r int32 }

// chunkStarts returns the global index of the first row of each batch, plus
// the total at the end.
func chunkStarts(bs []arrow.RecordBatch) []int64 {
	st := make([]int64, len(bs)+1)
	for i, b := range bs {
		st[i+1] = st[i] + b.NumRows()
	}
	return st
}

// locate maps global row numbers (-1 = NULL) to chunk rows.
func locate(starts []int64, refs []int32) []rowLoc {
	out := make([]rowLoc, len(refs))
	nc := len(starts) - 1
	// Batches of one size (but maybe the last): a division finds the chunk.
	uniform := nc > 0
	size := int64(0)
	if nc > 0 {
		size = starts[1] - starts[0]
		for k := 1; k < nc-1 && uniform; k++ {
			uniform = starts[k+1]-starts[k] == size
		}
		uniform = uniform && size > 0 && (nc < 2 || starts[nc]-starts[nc-1] <= size)
	}
	last := 0
	for i, g := range refs {
		if g < 0 {
			out[i] = rowLoc{-1, 0}
			continue
		}
		gg := int64(g)
		if uniform {
			c := gg / size
			out[i] = rowLoc{int32(c), int32(gg - c*size)}
			continue
		}
		if !(starts[last] <= gg && gg < starts[last+1]) {
			last = sort.Search(nc, func(k int) bool { return starts[k+1] > gg })
		}
		out[i] = rowLoc{int32(last), int32(gg - starts[last])}
	}
	return out
}

// gatherBatches builds a batch of schema s from the rows locs of bs.
func gatherBatches(ctx context.Context, mem memory.Allocator, s *arrow.Schema, bs []arrow.RecordBatch, locs []rowLoc, extra []arrow.Array) (arrow.RecordBatch, error) {
	cols := make([]arrow.Array, 0, s.NumFields())
	release := func() {
		for _, c := range cols {
			c.Release()
		}
	}
	chunks := make([]arrow.Array, len(bs))
	for ci := 0; ci < s.NumFields()-len(extra); ci++ {
		for k, b := range bs {
			chunks[k] = b.Column(ci)
		}
		c, err := gatherColumn(ctx, mem, s.Field(ci).Type, chunks, locs)
		if err != nil {
			release()
			return nil, err
		}
		cols = append(cols, c)
	}
	for _, e := range extra {
		e.Retain()
		cols = append(cols, e)
	}
	out := array.NewRecordBatch(s, cols, int64(len(locs)))
	release()
	return out, nil
}

// gatherColumn builds an array of type dt holding row locs[i] of chunks at
// position i. Fixed-width, boolean and (large) string/binary columns are
// copied directly; other types go through compute.Take per chunk.
func gatherColumn(ctx context.Context, mem memory.Allocator, dt arrow.DataType, chunks []arrow.Array, locs []rowLoc) (arrow.Array, error) {
	n := len(locs)
	switch dt.ID() {
	case arrow.NULL:
		return array.MakeArrayOfNull(mem, dt, n), nil
	case arrow.BOOL:
		return gatherBool(mem, dt, chunks, locs), nil
	case arrow.STRING, arrow.BINARY:
		return gatherVar[int32](mem, dt, chunks, locs, math.MaxInt32)
	case arrow.LARGE_STRING, arrow.LARGE_BINARY:
		return gatherVar[int64](mem, dt, chunks, locs, math.MaxInt64)
	case arrow.DICTIONARY, arrow.EXTENSION:
	default:
		if fw, ok := dt.(arrow.FixedWidthDataType); ok && fw.BitWidth() >= 8 && fw.BitWidth()%8 == 0 {
			return gatherFixed(mem, dt, fw.BitWidth()/8, chunks, locs), nil
		}
	}
	return gatherTake(ctx, mem, dt, chunks, locs)
}

// validityOut allocates a validity bitmap when some output row may be NULL.
func validityOut(mem memory.Allocator, chunks []arrow.Array, locs []rowLoc) *memory.Buffer {
	need := false
	for _, l := range locs {
		if l.c < 0 || chunks[l.c].NullN() > 0 {
			need = true
			break
		}
	}
	if !need {
		return nil
	}
	vb := memory.NewResizableBuffer(mem)
	vb.Resize(int(bitutil.BytesForBits(int64(len(locs)))))
	clear(vb.Bytes())
	return vb
}

func setValid(vb *memory.Buffer, chunks []arrow.Array, i int, l rowLoc) bool {
	ok := l.c >= 0 && chunks[l.c].IsValid(int(l.r))
	if ok && vb != nil {
		bitutil.SetBit(vb.Bytes(), i)
	}
	return ok
}

func finish(dt arrow.DataType, n int, bufs []*memory.Buffer) arrow.Array {
	nulls := 0
	if bufs[0] != nil {
		nulls = n - bitutil.CountSetBits(bufs[0].Bytes(), 0, n)
	}
	d := array.NewData(dt, n, bufs, nil, nulls, 0)
	for _, b := range bufs {
		if b != nil {
			b.Release()
		}
	}
	a := array.MakeFromData(d)
	d.Release()
	return a
}

func gatherFixed(mem memory.Allocator, dt arrow.DataType, w int, chunks []arrow.Array, locs []rowLoc) arrow.Array {
	n := len(locs)
	vals := make([][]byte, len(chunks))
	for k, c := range chunks {
		d := c.Data()
		if bb := d.Buffers()[1]; bb != nil {
			vals[k] = bb.Bytes()[d.Offset()*w:]
		}
	}
	vb := validityOut(mem, chunks, locs)
	db := memory.NewResizableBuffer(mem)
	db.Resize(n * w)
	out := db.Bytes()
	switch w {
	case 4:
		gatherWords[uint32](vb, chunks, locs, vals, out)
	case 8:
		gatherWords[uint64](vb, chunks, locs, vals, out)
	case 16:
		gatherWords[[2]uint64](vb, chunks, locs, vals, out)
	default:
		for i, l := range locs {
			dstv := out[i*w : (i+1)*w]
			if !setValid(vb, chunks, i, l) {
				clear(dstv)
				continue
			}
			copy(dstv, vals[l.c][int(l.r)*w:])
		}
	}
	return finish(dt, n, []*memory.Buffer{vb, db})
}

// gatherWords copies values of one machine word type.
func gatherWords[W uint32 | uint64 | [2]uint64](vb *memory.Buffer, chunks []arrow.Array, locs []rowLoc, vals [][]byte, out []byte) {
	var z W
	if len(locs) == 0 {
		return
	}
	w := int(unsafe.Sizeof(z))
	src := make([][]W, len(vals))
	for k, v := range vals {
		if len(v) >= w {
			src[k] = unsafe.Slice((*W)(unsafe.Pointer(&v[0])), len(v)/w)
		}
	}
	dst := unsafe.Slice((*W)(unsafe.Pointer(&out[0])), len(locs))
	if vb == nil {
		for i, l := range locs {
			dst[i] = src[l.c][l.r]
		}
		return
	}
	for i, l := range locs {
		if setValid(vb, chunks, i, l) {
			dst[i] = src[l.c][l.r]
		} else {
			dst[i] = z
		}
	}
}

func gatherBool(mem memory.Allocator, dt arrow.DataType, chunks []arrow.Array, locs []rowLoc) arrow.Array {
	n := len(locs)
	vb := validityOut(mem, chunks, locs)
	db := memory.NewResizableBuffer(mem)
	db.Resize(int(bitutil.BytesForBits(int64(n))))
	clear(db.Bytes())
	out := db.Bytes()
	for i, l := range locs {
		if setValid(vb, chunks, i, l) && chunks[l.c].(*array.Boolean).Value(int(l.r)) {
			bitutil.SetBit(out, i)
		}
	}
	return finish(dt, n, []*memory.Buffer{vb, db})
}

func gatherVar[O int32 | int64](mem memory.Allocator, dt arrow.DataType, chunks []arrow.Array, locs []rowLoc, limit int64) (arrow.Array, error) {
	n := len(locs)
	offs := make([][]O, len(chunks))
	data := make([][]byte, len(chunks))
	for k, c := range chunks {
		d := c.Data()
		bufs := d.Buffers()
		if bufs[1] != nil && bufs[1].Len() > 0 {
			all := arrowCast[O](bufs[1].Bytes())
			offs[k] = all[d.Offset() : d.Offset()+d.Len()+1]
		}
		if len(bufs) > 2 && bufs[2] != nil {
			data[k] = bufs[2].Bytes()
		}
	}
	total := int64(0)
	for _, l := range locs {
		if l.c >= 0 && offs[l.c] != nil {
			o := offs[l.c]
			total += int64(o[l.r+1] - o[l.r])
		}
	}
	if total > limit {
		return nil, fmt.Errorf("%w: %d bytes of %s values do not fit one array", ErrResourceExhausted, total, dt)
	}
	vb := validityOut(mem, chunks, locs)
	ob := memory.NewResizableBuffer(mem)
	ob.Resize((n + 1) * int(sizeOf[O]()))
	outOffs := arrowCast[O](ob.Bytes())[:n+1]
	db := memory.NewResizableBuffer(mem)
	db.Resize(int(total))
	out := db.Bytes()
	pos := O(0)
	for i, l := range locs {
		outOffs[i] = pos
		if !setValid(vb, chunks, i, l) || offs[l.c] == nil {
			continue
		}
		o := offs[l.c]
		pos += O(copy(out[pos:], data[l.c][o[l.r]:o[l.r+1]]))
	}
	outOffs[n] = pos
	return finish(dt, n, []*memory.Buffer{vb, ob, db}), nil
}

// gatherTake is the general path: a Take per chunk, concatenated, then one
// Take into output order.
func gatherTake(ctx context.Context, mem memory.Allocator, dt arrow.DataType, chunks []arrow.Array, locs []rowLoc) (arrow.Array, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	ctx = cexec.WithAllocator(ctx, mem)
	per := make([][]int32, len(chunks))
	for _, l := range locs {
		if l.c >= 0 {
			per[l.c] = append(per[l.c], l.r)
		}
	}
	var parts []arrow.Array
	defer func() {
		for _, p := range parts {
			p.Release()
		}
	}()
	base := make([]int32, len(chunks))
	total := int32(0)
	for k, rows := range per {
		base[k] = total
		if len(rows) == 0 {
			continue
		}
		p, err := takeInt32(ctx, mem, chunks[k], rows, nil)
		if err != nil {
			return nil, err
		}
		parts = append(parts, p)
		total += int32(len(rows))
	}
	if len(parts) == 0 {
		return array.MakeArrayOfNull(mem, dt, len(locs)), nil
	}
	var all arrow.Array
	if len(parts) == 1 {
		all = parts[0]
		all.Retain()
	} else {
		a, err := array.Concatenate(parts, mem)
		if err != nil {
			return nil, err
		}
		all = a
	}
	defer all.Release()
	idx := make([]int32, len(locs))
	valid := make([]bool, len(locs))
	seen := make([]int32, len(chunks))
	hasNull := false
	for i, l := range locs {
		if l.c < 0 {
			hasNull = true
			continue
		}
		idx[i] = base[l.c] + seen[l.c]
		seen[l.c]++
		valid[i] = true
	}
	if !hasNull {
		valid = nil
	}
	return takeInt32(ctx, mem, all, idx, valid)
}

func takeInt32(ctx context.Context, mem memory.Allocator, vals arrow.Array, idx []int32, valid []bool) (arrow.Array, error) {
	ib := array.NewInt32Builder(mem)
	ib.AppendValues(idx, valid)
	ia := ib.NewArray()
	ib.Release()
	defer ia.Release()
	return compute.TakeArray(ctx, vals, ia)
}

func arrowCast[O int32 | int64](b []byte) []O {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Slice((*O)(unsafe.Pointer(&b[0])), len(b)/int(sizeOf[O]()))
}

func sizeOf[O int32 | int64]() uintptr {
	var z O
	return unsafe.Sizeof(z)
}

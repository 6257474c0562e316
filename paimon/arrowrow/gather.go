package arrowrow

import (
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Span names the rows [Start, Start+Len) of source array Src (an index
// into the sources passed to Gather).
type Span struct {
	Src, Start, Len int
}

// Gather builds one array of type dt holding the rows named by spans, in
// order. The result owns its buffers: it keeps no reference to the sources,
// which may be released (and their buffers reused) right after the call.
//
// Fixed-width types (booleans, numbers, dates, times, timestamps, decimals,
// fixed-size binaries) and the variable-width string and binary types are
// copied a span at a time: values and validity bits in bulk, string offsets
// rebased. Other types (lists, maps, structs), and sources whose type differs
// from dt (e.g. dictionary-encoded), fall back to AppendFrom row by row.
func Gather(mem memory.Allocator, dt arrow.DataType, srcs []arrow.Array, spans []Span) arrow.Array {
	if !flatLayout(dt) {
		return gatherRows(mem, dt, srcs, spans)
	}
	for _, s := range srcs {
		if st := s.DataType(); st != dt && !arrow.TypeEqual(st, dt) {
			return gatherRows(mem, dt, srcs, spans)
		}
	}
	n := 0
	for _, sp := range spans {
		n += sp.Len
	}
	var validity *memory.Buffer
	nulls := 0
	for _, s := range srcs {
		if s.NullN() > 0 {
			validity = newBuf(mem, int(bitutil.BytesForBits(int64(n))))
			break
		}
	}
	if validity != nil {
		bitmaps := make([][]byte, len(srcs))
		for i, s := range srcs {
			// arrow.Array.NullN, not ArrayData.NullN: a slice's count is
			// computed lazily, and the Data reports it as unknown (-1).
			if d := s.Data(); s.NullN() > 0 && d.Buffers()[0] != nil {
				bitmaps[i] = d.Buffers()[0].Bytes()
			}
		}
		dst := validity.Bytes()
		pos := 0
		for _, sp := range spans {
			if sp.Len == 0 {
				continue
			}
			if bm := bitmaps[sp.Src]; bm == nil {
				bitutil.SetBitsTo(dst, int64(pos), int64(sp.Len), true)
			} else {
				bitutil.CopyBitmap(bm, srcs[sp.Src].Data().Offset()+sp.Start, sp.Len, dst, pos)
			}
			pos += sp.Len
		}
		nulls = n - bitutil.CountSetBits(dst, 0, n)
		if nulls == 0 {
			validity.Release()
			validity = nil
		}
	}
	var bufs []*memory.Buffer
	switch dt.ID() {
	case arrow.STRING, arrow.BINARY:
		bufs = gatherVar[int32](mem, validity, srcs, spans, n)
	case arrow.LARGE_STRING, arrow.LARGE_BINARY:
		bufs = gatherVar[int64](mem, validity, srcs, spans, n)
	case arrow.BOOL:
		vals := newBuf(mem, int(bitutil.BytesForBits(int64(n))))
		dst := vals.Bytes()
		pos := 0
		for _, sp := range spans {
			if sp.Len == 0 {
				continue // an empty source may have no buffers
			}
			d := srcs[sp.Src].Data()
			bitutil.CopyBitmap(d.Buffers()[1].Bytes(), d.Offset()+sp.Start, sp.Len, dst, pos)
			pos += sp.Len
		}
		bufs = []*memory.Buffer{validity, vals}
	default:
		w := dt.(arrow.FixedWidthDataType).BitWidth() / 8
		raw := make([][]byte, len(srcs))
		for i, s := range srcs {
			d := s.Data()
			if b := d.Buffers()[1]; b != nil {
				raw[i] = b.Bytes()[d.Offset()*w:]
			}
		}
		vals := newBuf(mem, n*w)
		dst := vals.Bytes()
		pos := 0
		for _, sp := range spans {
			from := sp.Start * w
			pos += copy(dst[pos:], raw[sp.Src][from:from+sp.Len*w])
		}
		bufs = []*memory.Buffer{validity, vals}
	}
	data := array.NewData(dt, n, bufs, nil, nulls, 0)
	for _, b := range bufs {
		if b != nil {
			b.Release()
		}
	}
	defer data.Release()
	return array.MakeFromData(data)
}

// flatLayout reports whether Gather copies dt a span at a time.
func flatLayout(dt arrow.DataType) bool {
	switch dt.ID() {
	case arrow.BOOL, arrow.STRING, arrow.BINARY, arrow.LARGE_STRING, arrow.LARGE_BINARY:
		return true
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64,
		arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64,
		arrow.FLOAT16, arrow.FLOAT32, arrow.FLOAT64,
		arrow.DATE32, arrow.DATE64, arrow.TIME32, arrow.TIME64, arrow.TIMESTAMP, arrow.DURATION,
		arrow.DECIMAL32, arrow.DECIMAL64, arrow.DECIMAL128, arrow.DECIMAL256, arrow.FIXED_SIZE_BINARY:
		fw, ok := dt.(arrow.FixedWidthDataType)
		return ok && fw.BitWidth()%8 == 0
	}
	return false
}

func newBuf(mem memory.Allocator, size int) *memory.Buffer {
	b := memory.NewResizableBuffer(mem)
	b.Resize(size)
	return b
}

// gatherVar copies string/binary spans: offsets rebased, value bytes copied
// once per span.
func gatherVar[O int32 | int64](mem memory.Allocator, validity *memory.Buffer, srcs []arrow.Array, spans []Span, n int) []*memory.Buffer {
	var zero O
	osz := int(unsafe.Sizeof(zero))
	offs := make([][]O, len(srcs))
	vals := make([][]byte, len(srcs))
	for i, s := range srcs {
		d := s.Data()
		offs[i] = offsetsOf[O](d)
		if b := d.Buffers()[2]; b != nil {
			vals[i] = b.Bytes()
		}
	}
	total := 0
	for _, sp := range spans {
		o := offs[sp.Src]
		total += int(o[sp.Start+sp.Len] - o[sp.Start])
	}
	obuf := newBuf(mem, (n+1)*osz)
	dstOffs := unsafe.Slice((*O)(unsafe.Pointer(unsafe.SliceData(obuf.Bytes()))), n+1)
	vbuf := newBuf(mem, total)
	dstVals := vbuf.Bytes()
	pos, base := 0, O(0)
	for _, sp := range spans {
		o := offs[sp.Src][sp.Start : sp.Start+sp.Len+1]
		first := o[0]
		delta := base - first
		dst := dstOffs[pos : pos+sp.Len]
		for i := range dst {
			dst[i] = o[i] + delta
		}
		size := o[sp.Len] - first
		if size > 0 {
			copy(dstVals[base:], vals[sp.Src][first:first+size])
		}
		base += size
		pos += sp.Len
	}
	dstOffs[n] = base
	return []*memory.Buffer{validity, obuf, vbuf}
}

// offsetsOf returns the offsets of a string/binary array, indexed from the
// array's first row (len+1 entries).
func offsetsOf[O int32 | int64](d arrow.ArrayData) []O {
	var zero O
	osz := int(unsafe.Sizeof(zero))
	b := d.Buffers()[1]
	if b == nil || b.Len() == 0 {
		return make([]O, d.Len()+1) // empty array without an offsets buffer
	}
	raw := b.Bytes()
	all := unsafe.Slice((*O)(unsafe.Pointer(unsafe.SliceData(raw))), len(raw)/osz)
	return all[d.Offset() : d.Offset()+d.Len()+1]
}

func gatherRows(mem memory.Allocator, dt arrow.DataType, srcs []arrow.Array, spans []Span) arrow.Array {
	b := array.NewBuilder(mem, dt)
	defer b.Release()
	n := 0
	for _, sp := range spans {
		n += sp.Len
	}
	b.Reserve(n)
	for _, sp := range spans {
		src := srcs[sp.Src]
		for i := sp.Start; i < sp.Start+sp.Len; i++ {
			AppendFrom(b, src, i)
		}
	}
	return b.NewArray()
}

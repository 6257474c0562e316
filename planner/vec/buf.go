package vec

import (
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/scalar"
)

// Low-level helpers shared by the kernels: typed views of fixed-width value
// buffers, validity bitmaps, and owned output arrays.

// fixedValues returns the values of a fixed-width array (ints, floats,
// dates, timestamps, times, decimal128.Num, MonthDayNanoInterval) as a
// slice of T, offset applied. T must have the array's value width.
func fixedValues[T any](a arrow.Array) []T {
	d := a.Data()
	n := d.Len()
	if n == 0 || len(d.Buffers()) < 2 || d.Buffers()[1] == nil {
		return nil
	}
	b := d.Buffers()[1].Bytes()
	var z T
	w := int(unsafe.Sizeof(z))
	if len(b) < (d.Offset()+n)*w {
		return nil
	}
	all := unsafe.Slice((*T)(unsafe.Pointer(&b[0])), len(b)/w)
	return all[d.Offset() : d.Offset()+n]
}

// outBuf is an output value buffer of n values of T from mem.
type outBuf[T any] struct {
	buf  *memory.Buffer
	vals []T
}

func newOut[T any](mem memory.Allocator, n int) outBuf[T] {
	var z T
	w := int(unsafe.Sizeof(z))
	b := memory.NewResizableBuffer(mem)
	b.Resize(n * w)
	var vals []T
	if n > 0 {
		vals = unsafe.Slice((*T)(unsafe.Pointer(&b.Bytes()[0])), n)
	}
	return outBuf[T]{buf: b, vals: vals}
}

// finish wraps the buffer (and validity, may be nil) into an array of t,
// releasing the caller's references.
func (o outBuf[T]) finish(t arrow.DataType, n int, valid *memory.Buffer) arrow.Array {
	return makeFixed(t, n, valid, o.buf)
}

func makeFixed(t arrow.DataType, n int, valid, data *memory.Buffer) arrow.Array {
	nulls := 0
	if valid != nil {
		nulls = n - bitutil.CountSetBits(valid.Bytes(), 0, n)
	}
	d := array.NewData(t, n, []*memory.Buffer{valid, data}, nil, nulls, 0)
	if valid != nil {
		valid.Release()
	}
	if data != nil {
		data.Release()
	}
	out := array.MakeFromData(d)
	d.Release()
	return out
}

// newBitmap returns a zeroed bitmap buffer of n bits.
func newBitmap(mem memory.Allocator, n int) *memory.Buffer {
	b := memory.NewResizableBuffer(mem)
	nb := int(bitutil.BytesForBits(int64(n)))
	b.Resize(nb)
	clear(b.Bytes())
	return b
}

// validity returns a's validity bitmap and bit offset, or nil when a has no
// nulls.
func validity(a arrow.Array) ([]byte, int) {
	if a.NullN() == 0 {
		return nil, 0
	}
	if a.DataType().ID() == arrow.NULL {
		return nil, -1
	}
	return a.NullBitmapBytes(), a.Data().Offset()
}

// isValid reports whether row i of a (validity from validity()) is valid.
func bitOK(bm []byte, off, i int) bool {
	if bm == nil {
		return off != -1
	}
	return bitutil.BitIsSet(bm, off+i)
}

// andValidity combines the validity of arrs (all of n rows) into a new
// bitmap, or nil when no row is NULL.
func andValidity(mem memory.Allocator, n int, arrs ...arrow.Array) *memory.Buffer {
	var out *memory.Buffer
	for _, a := range arrs {
		if a == nil || a.NullN() == 0 {
			continue
		}
		if a.DataType().ID() == arrow.NULL || a.NullN() == a.Len() {
			if out == nil {
				out = newBitmap(mem, n)
			} else {
				clear(out.Bytes())
			}
			return out
		}
		bm, off := a.NullBitmapBytes(), a.Data().Offset()
		if out == nil {
			out = newBitmap(mem, n)
			bitutil.CopyBitmap(bm, off, n, out.Bytes(), 0)
		} else {
			bitutil.BitmapAnd(out.Bytes(), bm, 0, int64(off), out.Bytes(), 0, int64(n))
		}
	}
	return out
}

// rowValid returns a function telling whether row i is valid in every one
// of arrs (for error checks on rare slow paths).
func rowValid(arrs ...arrow.Array) func(i int) bool {
	return func(i int) bool {
		for _, a := range arrs {
			if a != nil && a.IsNull(i) {
				return false
			}
		}
		return true
	}
}

// constScalar returns the value of e when it is constant for the batch (a
// Literal or a bound Param).
func constScalar(c *Ctx, e Expr) (scalar.Scalar, bool, error) {
	switch x := e.(type) {
	case *Literal:
		return x.Value, true, nil
	case *Param:
		s, err := x.Scalar(c)
		return s, err == nil, err
	}
	return nil, false, nil
}

// scalarFixed returns the value of a valid fixed-width scalar as T.
func scalarFixed[T any](s scalar.Scalar) T {
	var z T
	if s == nil || !s.IsValid() {
		return z
	}
	switch v := s.(type) {
	case scalar.PrimitiveScalar:
		b := v.Data()
		if len(b) >= int(unsafe.Sizeof(z)) {
			return *(*T)(unsafe.Pointer(&b[0]))
		}
	case *scalar.Decimal128:
		if unsafe.Sizeof(z) == unsafe.Sizeof(v.Value) {
			return *(*T)(unsafe.Pointer(&v.Value))
		}
	case *scalar.MonthDayNanoInterval:
		if unsafe.Sizeof(z) == unsafe.Sizeof(v.Value) {
			return *(*T)(unsafe.Pointer(&v.Value))
		}
	}
	a, err := scalar.MakeArrayFromScalar(s, 1, memory.DefaultAllocator)
	if err != nil {
		return z
	}
	defer a.Release()
	if vs := fixedValues[T](a); len(vs) == 1 {
		return vs[0]
	}
	return z
}

// allNull returns an array of n NULLs of t.
func allNull(mem memory.Allocator, t arrow.DataType, n int) (arrow.Array, error) {
	return scalar.MakeArrayFromScalar(scalar.MakeNullScalar(t), n, mem)
}

// releaseAll releases the non-nil arrays.
func releaseAll(as ...arrow.Array) {
	for _, a := range as {
		if a != nil {
			a.Release()
		}
	}
}

func memoryBytes(b []byte) *memory.Buffer { return memory.NewBufferBytes(b) }

package funcs

import (
	"fmt"
	"math"
	"strings"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/scalar"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

var (
	tBool    = arrow.FixedWidthTypes.Boolean
	tInt8    = arrow.PrimitiveTypes.Int8
	tInt32   = arrow.PrimitiveTypes.Int32
	tInt64   = arrow.PrimitiveTypes.Int64
	tFloat32 = arrow.PrimitiveTypes.Float32
	tFloat64 = arrow.PrimitiveTypes.Float64
	tString  = arrow.BinaryTypes.String
	tDate    = arrow.FixedWidthTypes.Date32
	tTSus    = &arrow.TimestampType{Unit: arrow.Microsecond}
)

// invalidf reports a call that can never succeed as written.
func invalidf(format string, a ...any) error { return paimon.Errorf(catalog.ErrInvalid, format, a...) }

// unsupportedf reports valid SQL this library does not evaluate.
func unsupportedf(format string, a ...any) error {
	return paimon.Errorf(catalog.ErrUnsupported, format, a...)
}

// register adds a function under name and aliases; bind gets the name for
// its messages.
func register(name string, aliases []string, bind func(name string, args []vec.Expr) (*vec.BoundFunc, error)) {
	name = strings.ToUpper(name)
	vec.RegisterFunc(&vec.ScalarFunc{
		Name:    name,
		Aliases: aliases,
		Bind: func(args []vec.Expr) (*vec.BoundFunc, error) {
			for i, a := range args {
				if a == nil {
					return nil, invalidf("%s: argument %d is missing", name, i+1)
				}
			}
			bf, err := bind(name, args)
			if err != nil {
				return nil, err
			}
			bf.Kernel = checked(name, len(args), bf.Kernel)
			return bf, nil
		},
	})
}

// checked guards a kernel: argument count and lengths are verified so no
// kernel indexes past an array.
func checked(name string, nargs int, k vec.Kernel) vec.Kernel {
	return func(c *vec.Ctx, args []arrow.Array, n int) (arrow.Array, error) {
		if len(args) != nargs {
			return nil, fmt.Errorf("funcs: %s kernel got %d arguments, bound for %d", name, len(args), nargs)
		}
		if n < 0 {
			return nil, fmt.Errorf("funcs: %s kernel asked for %d rows", name, n)
		}
		for i, a := range args {
			if a == nil || a.Len() != n {
				l := -1
				if a != nil {
					l = a.Len()
				}
				return nil, fmt.Errorf("funcs: %s argument %d has %d rows, want %d", name, i+1, l, n)
			}
		}
		return k(c, args, n)
	}
}

func arity(name string, args []vec.Expr, lo, hi int) error {
	if len(args) >= lo && len(args) <= hi {
		return nil
	}
	switch {
	case lo == hi:
		return invalidf("%s takes %d argument(s), got %d", name, lo, len(args))
	case hi == math.MaxInt:
		return invalidf("%s takes at least %d argument(s), got %d", name, lo, len(args))
	}
	return invalidf("%s takes %d to %d arguments, got %d", name, lo, hi, len(args))
}

func isNullT(t arrow.DataType) bool { return t == nil || t.ID() == arrow.NULL }

func isStrT(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.STRING, arrow.LARGE_STRING, arrow.STRING_VIEW:
		return true
	}
	return false
}

func isIntT(t arrow.DataType) bool { return vec.IsInteger(t) }
func isFloatT(t arrow.DataType) bool {
	return t.ID() == arrow.FLOAT32 || t.ID() == arrow.FLOAT64
}
func isDecT(t arrow.DataType) bool { return t.ID() == arrow.DECIMAL128 }
func isNumT(t arrow.DataType) bool { return vec.IsNumeric(t) }
func isTST(t arrow.DataType) bool  { return t.ID() == arrow.TIMESTAMP }
func isDateT(t arrow.DataType) bool {
	return t.ID() == arrow.DATE32 || t.ID() == arrow.DATE64
}

// argTypeErr names the function, the argument and its type.
func argTypeErr(name string, i int, e vec.Expr, want string) error {
	return invalidf("%s argument %d (%s) is %s, want %s", name, i+1, e, vec.TypeName(e.Type()), want)
}

// wantString accepts strings, NULLs and string-typed parameters.
func wantString(name string, args []vec.Expr, idx ...int) error {
	for _, i := range idx {
		t := args[i].Type()
		if !isStrT(t) && !isNullT(t) {
			return argTypeErr(name, i, args[i], "VARCHAR")
		}
	}
	return nil
}

// wantInt accepts integers and NULLs (a string literal is parsed by the
// implicit cast).
func wantInt(name string, args []vec.Expr, idx ...int) error {
	for _, i := range idx {
		t := args[i].Type()
		if isIntT(t) || isNullT(t) {
			continue
		}
		if _, ok := vec.IsConst(args[i]); ok && isStrT(t) {
			continue
		}
		return argTypeErr(name, i, args[i], "an integer")
	}
	return nil
}

// constString returns the value of a constant string argument; ok is false
// when the argument is not a literal; null is true for a NULL literal.
func constString(e vec.Expr) (s string, null, ok bool) {
	l, isLit := vec.IsConst(e)
	if !isLit {
		return "", false, false
	}
	if !l.Value.IsValid() {
		return "", true, true
	}
	switch v := l.Value.(type) {
	case *scalar.String:
		return string(v.Data()), false, true
	case *scalar.LargeString:
		return string(v.Data()), false, true
	}
	return "", false, false
}

// constInt returns the value of a constant integer argument.
func constInt(e vec.Expr) (v int64, null, ok bool) {
	l, isLit := vec.IsConst(e)
	if !isLit {
		return 0, false, false
	}
	if !l.Value.IsValid() {
		return 0, true, true
	}
	switch s := l.Value.(type) {
	case *scalar.Int8:
		return int64(s.Value), false, true
	case *scalar.Int16:
		return int64(s.Value), false, true
	case *scalar.Int32:
		return int64(s.Value), false, true
	case *scalar.Int64:
		return s.Value, false, true
	case *scalar.Uint8:
		return int64(s.Value), false, true
	case *scalar.Uint16:
		return int64(s.Value), false, true
	case *scalar.Uint32:
		return int64(s.Value), false, true
	}
	return 0, false, false
}

func types(t arrow.DataType, n int) []arrow.DataType {
	out := make([]arrow.DataType, n)
	for i := range out {
		out[i] = t
	}
	return out
}

// ---- buffers ----

// fixed returns the values of a fixed-width array as []T (offset applied).
func fixed[T any](a arrow.Array) []T {
	d := a.Data()
	n := d.Len()
	if n == 0 || len(d.Buffers()) < 2 || d.Buffers()[1] == nil {
		return nil
	}
	b := d.Buffers()[1].Bytes()
	var z T
	w := int(unsafe.Sizeof(z))
	if len(b) < (d.Offset()+n)*w || len(b) == 0 {
		return nil
	}
	all := unsafe.Slice((*T)(unsafe.Pointer(&b[0])), len(b)/w)
	return all[d.Offset() : d.Offset()+n]
}

// fixedN is fixed with a length guarantee: a short or missing buffer (an
// all-NULL array of type NULL) reads as n zero values.
func fixedN[T any](a arrow.Array, n int) []T {
	v := fixed[T](a)
	if len(v) < n {
		return make([]T, n)
	}
	return v
}

// outFixed is an owned value buffer of n values of T.
type outFixed[T any] struct {
	buf  *memory.Buffer
	vals []T
}

func newFixed[T any](mem memory.Allocator, n int) outFixed[T] {
	var z T
	w := int(unsafe.Sizeof(z))
	b := memory.NewResizableBuffer(mem)
	b.Resize(n * w)
	var vals []T
	if n > 0 {
		vals = unsafe.Slice((*T)(unsafe.Pointer(&b.Bytes()[0])), n)
		clear(vals)
	}
	return outFixed[T]{buf: b, vals: vals}
}

// finish wraps the values and validity (nil: no NULLs; consumed) into an
// array of t.
func (o outFixed[T]) finish(t arrow.DataType, n int, valid *memory.Buffer) arrow.Array {
	nulls := 0
	if valid != nil {
		nulls = n - bitutil.CountSetBits(valid.Bytes(), 0, n)
		if nulls == 0 {
			valid.Release()
			valid = nil
		}
	}
	d := array.NewData(t, n, []*memory.Buffer{valid, o.buf}, nil, nulls, 0)
	if valid != nil {
		valid.Release()
	}
	o.buf.Release()
	out := array.MakeFromData(d)
	d.Release()
	return out
}

// newBitmap returns a bitmap of n bits, all set when ones.
func newBitmap(mem memory.Allocator, n int, ones bool) *memory.Buffer {
	b := memory.NewResizableBuffer(mem)
	b.Resize(int(bitutil.BytesForBits(int64(n))))
	if ones {
		for i := range b.Bytes() {
			b.Bytes()[i] = 0xff
		}
	} else {
		clear(b.Bytes())
	}
	return b
}

// andValidity returns the AND of the arguments' validity bitmaps (nil when
// no argument has NULLs).
func andValidity(mem memory.Allocator, n int, arrs ...arrow.Array) *memory.Buffer {
	var out *memory.Buffer
	for _, a := range arrs {
		if a.NullN() == 0 {
			continue
		}
		if a.NullN() >= a.Len() || a.NullBitmapBytes() == nil {
			if out != nil {
				out.Release()
			}
			return newBitmap(mem, n, false)
		}
		if out == nil {
			out = newBitmap(mem, n, false)
			bitutil.CopyBitmap(a.NullBitmapBytes(), a.Data().Offset(), n, out.Bytes(), 0)
			continue
		}
		nb := bitutil.BitmapAndAlloc(mem, out.Bytes(), a.NullBitmapBytes(), 0, int64(a.Data().Offset()), int64(n), 0)
		out.Release()
		out = nb
	}
	return out
}

// validBits is a read view of a validity bitmap (nil bits: all valid).
type validBits struct {
	bits []byte
	off  int
	all  bool // every row NULL
}

func validOf(a arrow.Array) validBits {
	if a.NullN() == 0 {
		return validBits{}
	}
	if a.NullN() >= a.Len() || a.NullBitmapBytes() == nil {
		return validBits{all: true}
	}
	return validBits{bits: a.NullBitmapBytes(), off: a.Data().Offset()}
}

func (v validBits) ok(i int) bool {
	if v.all {
		return false
	}
	return v.bits == nil || bitutil.BitIsSet(v.bits, v.off+i)
}

func maskOf(b *memory.Buffer) validBits {
	if b == nil {
		return validBits{}
	}
	return validBits{bits: b.Bytes()}
}

// nullArray returns n NULLs of type t.
func nullArray(mem memory.Allocator, t arrow.DataType, n int) arrow.Array {
	return array.MakeArrayOfNull(mem, t, n)
}

// ---- strings ----

// strIn reads a utf8 array without copying.
type strIn struct {
	offs []int32
	data []byte
}

func strsOf(a arrow.Array) (strIn, error) {
	switch s := a.(type) {
	case *array.String:
		if s.Len() == 0 {
			return strIn{}, nil
		}
		return strIn{offs: s.ValueOffsets(), data: s.ValueBytes()}, nil
	case *array.Null:
		return strIn{offs: make([]int32, a.Len()+1)}, nil
	}
	return strIn{}, fmt.Errorf("funcs: want a utf8 array, got %s", a.DataType())
}

// at returns row i's bytes (aliasing the array; do not keep past the call).
func (s strIn) at(i int) []byte {
	lo, hi := int(s.offs[i]), int(s.offs[i+1])
	base := int(s.offs[0])
	return s.data[lo-base : hi-base : hi-base]
}

// strOut builds a utf8 array: offsets sized up front, data grown
// geometrically.
type strOut struct {
	offs outFixed[int32]
	data *memory.Buffer
	d    []byte
	n    int
	row  int
	err  error
}

func newStrOut(mem memory.Allocator, rows, est int) *strOut {
	b := &strOut{offs: newFixed[int32](mem, rows+1), data: memory.NewResizableBuffer(mem)}
	if est < 0 {
		est = 0
	}
	if est > 0 {
		b.data.Resize(est)
		b.d = b.data.Bytes()
	}
	return b
}

// grow makes room for k more bytes.
func (b *strOut) grow(k int) bool {
	if b.n+k <= len(b.d) {
		return true
	}
	need := b.n + k
	if need > math.MaxInt32 {
		if b.err == nil {
			b.err = invalidf("string result larger than 2 GiB in one batch")
		}
		return false
	}
	c := max(2*len(b.d), need, 64)
	if c > math.MaxInt32 {
		c = math.MaxInt32
	}
	b.data.Resize(c)
	b.d = b.data.Bytes()
	return true
}

func (b *strOut) add(s []byte) {
	if len(s) > 0 && b.grow(len(s)) {
		b.n += copy(b.d[b.n:], s)
	}
	b.row++
	b.offs.vals[b.row] = int32(b.n)
}

func (b *strOut) addString(s string) {
	if len(s) > 0 && b.grow(len(s)) {
		b.n += copy(b.d[b.n:], s)
	}
	b.row++
	b.offs.vals[b.row] = int32(b.n)
}

// addSelf appends, as the next row, the k bytes already written at start
// (a repeated result).
func (b *strOut) addSelf(start, k int) {
	if k > 0 && b.grow(k) {
		b.n += copy(b.d[b.n:], b.d[start:start+k])
	}
	b.row++
	b.offs.vals[b.row] = int32(b.n)
}

// part appends bytes to the current row without ending it.
func (b *strOut) part(s []byte) {
	if len(s) > 0 && b.grow(len(s)) {
		b.n += copy(b.d[b.n:], s)
	}
}

func (b *strOut) partString(s string) {
	if len(s) > 0 && b.grow(len(s)) {
		b.n += copy(b.d[b.n:], s)
	}
}

// end ends the current row.
func (b *strOut) end() {
	b.row++
	b.offs.vals[b.row] = int32(b.n)
}

func (b *strOut) release() {
	b.offs.buf.Release()
	b.data.Release()
}

// finish returns the array (valid consumed, nil for no NULLs).
func (b *strOut) finish(valid *memory.Buffer) (arrow.Array, error) {
	if b.err != nil {
		b.release()
		if valid != nil {
			valid.Release()
		}
		return nil, b.err
	}
	rows := b.row
	if rows != len(b.offs.vals)-1 {
		b.release()
		if valid != nil {
			valid.Release()
		}
		return nil, fmt.Errorf("funcs: string builder wrote %d of %d rows", rows, len(b.offs.vals)-1)
	}
	b.data.Resize(b.n)
	nulls := 0
	if valid != nil {
		nulls = rows - bitutil.CountSetBits(valid.Bytes(), 0, rows)
		if nulls == 0 {
			valid.Release()
			valid = nil
		}
	}
	d := array.NewData(tString, rows, []*memory.Buffer{valid, b.offs.buf, b.data}, nil, nulls, 0)
	if valid != nil {
		valid.Release()
	}
	b.release()
	out := array.MakeFromData(d)
	d.Release()
	return out, nil
}

// ---- booleans ----

// boolOut builds a boolean array.
type boolOut struct {
	buf *memory.Buffer
}

func newBoolOut(mem memory.Allocator, n int) boolOut { return boolOut{buf: newBitmap(mem, n, false)} }

func (b boolOut) set(i int) { bitutil.SetBit(b.buf.Bytes(), i) }

func (b boolOut) finish(n int, valid *memory.Buffer) arrow.Array {
	return outFixed[byte]{buf: b.buf}.finish(tBool, n, valid)
}

func boolsOf(a arrow.Array) (func(i int) bool, error) {
	switch b := a.(type) {
	case *array.Boolean:
		return b.Value, nil
	case *array.Null:
		return func(int) bool { return false }, nil
	}
	return nil, fmt.Errorf("funcs: want a boolean array, got %s", a.DataType())
}

// threeStrings is the kernel of a function of three STRING arguments that
// is NULL on any NULL input. newRow is called once per kernel call (so a
// row function may keep state across the rows of one batch; kernels of one
// BoundFunc run concurrently); its function is called for every row whose
// three values are non-NULL and appends that row's one result to out.
func threeStrings(newRow func() func(out *strOut, a, b, c []byte)) vec.Kernel {
	return func(c *vec.Ctx, args []arrow.Array, n int) (arrow.Array, error) {
		row := newRow()
		var in [3]strIn
		for j := range in {
			s, err := strsOf(args[j])
			if err != nil {
				return nil, err
			}
			in[j] = s
		}
		valid := andValidity(c.Mem, n, args...)
		m := maskOf(valid)
		out := newStrOut(c.Mem, n, len(in[0].data))
		for i := range n {
			if !m.ok(i) {
				out.add(nil)
				continue
			}
			row(out, in[0].at(i), in[1].at(i), in[2].at(i))
		}
		return out.finish(valid)
	}
}

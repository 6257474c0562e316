package exec

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

// Row comparison works on normalized keys: every key row is encoded into a
// byte string whose bytewise order (bytes.Compare) is the SQL order of the
// keys (each ASC/DESC, NULLS FIRST/LAST). The encoding is built once per
// column with one type switch, so sorting never switches on types; when
// every key is fixed-width the rows have a fixed stride, which lets the
// sorter pack them into integers and radix sort.
//
// Encoding of one key: a marker byte (NULLS FIRST: NULL 0x00 < value 0x01;
// NULLS LAST: value 0x01 < NULL 0x02; never inverted by DESC) then, for a
// value, its order-preserving bytes, all inverted for DESC:
//   - signed integers, dates, times, timestamps, durations, decimals:
//     big-endian two's complement with the sign bit flipped;
//   - unsigned integers, booleans: big-endian;
//   - floats: IEEE bits, negative numbers inverted, positive ones with the
//     sign bit set; -0 is written as +0 and every NaN as one NaN above +Inf;
//   - strings and binaries: the bytes with 0x00 escaped as 0x00 0xFF, then
//     the terminator 0x00 0x00 (prefix-free, so later keys cannot interfere);
//   - fixed-size binaries: the bytes;
//   - nested values (lists, maps, structs): vec.AppendNestedKey's key
//     (prefix-free; the one definition of their order, shared with the
//     list comparison operators).
//
// A NULL of a fixed-width key is the marker plus zero bytes (all NULLs are
// equal); of a variable-width key, the marker alone.

// SortOrder is the direction of one key.
type SortOrder struct {
	Desc       bool
	NullsFirst bool
}

// Orders returns the directions of sort keys.
func Orders(keys []SortKey) []SortOrder {
	out := make([]SortOrder, len(keys))
	for i, k := range keys {
		out[i] = SortOrder{Desc: k.Desc, NullsFirst: k.NullsFirst}
	}
	return out
}

// KeyEncoder encodes key columns of fixed types into KeyRows.
type KeyEncoder struct {
	types  []arrow.DataType
	orders []SortOrder
	widths []int // value bytes of each key (after the marker); -1 = variable
	stride int   // bytes per row when every key is fixed-width, else -1
}

// Orderable reports whether values of t can be sorted and compared.
func Orderable(t arrow.DataType) bool { return fixedKeyWidth(t) != -2 }

// IsNestedKey reports whether t is a nested type (list, map, struct)
// whose values can be sorted, grouped and joined on.
func IsNestedKey(t arrow.DataType) bool { return vec.IsNested(t) && vec.NestedKeyCheck(t) == nil }

// fixedKeyWidth is the encoded value width of t, -1 for variable-width
// types, -2 for types without an order.
func fixedKeyWidth(t arrow.DataType) int {
	switch t.ID() {
	case arrow.NULL:
		return 0
	case arrow.BOOL, arrow.INT8, arrow.UINT8:
		return 1
	case arrow.INT16, arrow.UINT16:
		return 2
	case arrow.INT32, arrow.UINT32, arrow.DATE32, arrow.TIME32, arrow.FLOAT32, arrow.FLOAT16, arrow.DECIMAL32:
		return 4
	case arrow.INT64, arrow.UINT64, arrow.DATE64, arrow.TIME64, arrow.TIMESTAMP, arrow.DURATION, arrow.FLOAT64, arrow.DECIMAL64:
		return 8
	case arrow.DECIMAL128:
		return 16
	case arrow.DECIMAL256:
		return 32
	case arrow.FIXED_SIZE_BINARY:
		return t.(*arrow.FixedSizeBinaryType).ByteWidth
	case arrow.STRING, arrow.LARGE_STRING, arrow.BINARY, arrow.LARGE_BINARY, arrow.STRING_VIEW, arrow.BINARY_VIEW:
		return -1
	}
	if IsNestedKey(t) {
		return -1
	}
	return -2
}

// NewKeyEncoder returns an encoder for keys of these types and orders.
func NewKeyEncoder(types []arrow.DataType, orders []SortOrder) (*KeyEncoder, error) {
	if len(orders) != len(types) {
		return nil, fmt.Errorf("exec: %d key types but %d sort orders", len(types), len(orders))
	}
	e := &KeyEncoder{types: types, orders: orders, widths: make([]int, len(types))}
	for i, t := range types {
		w := fixedKeyWidth(t)
		if w == -2 {
			if vec.IsNested(t) {
				return nil, vec.NestedKeyCheck(t)
			}
			return nil, paimon.Errorf(catalog.ErrUnsupported, "cannot order by values of type %s", t)
		}
		e.widths[i] = w
		if w < 0 {
			e.stride = -1
		} else if e.stride >= 0 {
			e.stride += 1 + w
		}
	}
	return e, nil
}

// NumKeys is the number of key columns.
func (e *KeyEncoder) NumKeys() int { return len(e.types) }

// KeyRows holds encoded key rows. With Stride > 0 (or every key of width
// 0), row i is Data[i*Stride:(i+1)*Stride]; otherwise Data[Offs[i]:Offs[i+1]].
type KeyRows struct {
	Fixed  bool
	Stride int
	Data   []byte
	Offs   []int64 // variable rows: len N+1 (Offs[0] == 0)
	N      int
}

// Row returns the encoded key of row i (not a copy).
func (r *KeyRows) Row(i int) []byte {
	if r.Fixed {
		return r.Data[i*r.Stride : (i+1)*r.Stride]
	}
	return r.Data[r.Offs[i]:r.Offs[i+1]]
}

// Compare compares rows i and j (-1, 0, +1).
func (r *KeyRows) Compare(i, j int) int { return bytes.Compare(r.Row(i), r.Row(j)) }

// Bytes is the memory the rows hold.
func (r *KeyRows) Bytes() int64 { return int64(cap(r.Data)) + 8*int64(cap(r.Offs)) }

// AppendRows appends all rows of o (same encoder).
func (r *KeyRows) AppendRows(o *KeyRows) {
	if o.N == 0 {
		return
	}
	if r.Fixed || (r.N == 0 && o.Fixed) {
		r.Fixed, r.Stride = true, o.Stride
		r.Data = append(r.Data, o.Data...)
		r.N += o.N
		return
	}
	if len(r.Offs) == 0 {
		r.Offs = append(r.Offs, 0)
	}
	base := int64(len(r.Data))
	r.Data = append(r.Data, o.Data...)
	for _, off := range o.Offs[1:] {
		r.Offs = append(r.Offs, base+off)
	}
	r.N += o.N
}

// Encode appends the rows of cols (one array per key, equal lengths) to dst.
func (e *KeyEncoder) Encode(dst *KeyRows, cols []arrow.Array) error {
	if len(cols) != len(e.types) {
		return fmt.Errorf("exec: %d key columns for an encoder of %d keys", len(cols), len(e.types))
	}
	if len(cols) == 0 {
		return fmt.Errorf("exec: no key columns")
	}
	n := cols[0].Len()
	for i, c := range cols {
		if c.Len() != n {
			return fmt.Errorf("exec: key columns of %d and %d rows", n, c.Len())
		}
		if !arrow.TypeEqual(c.DataType(), e.types[i]) {
			return fmt.Errorf("exec: key %d is %s, the encoder expects %s", i, c.DataType(), e.types[i])
		}
	}
	if e.stride >= 0 {
		if dst.N > 0 && !dst.Fixed {
			return fmt.Errorf("exec: mixing fixed and variable key rows")
		}
		dst.Fixed, dst.Stride = true, e.stride
		base := len(dst.Data)
		dst.Data = grow(dst.Data, n*e.stride)
		off := 0
		for k, c := range cols {
			encodeFixed(c, e.orders[k], e.widths[k], dst.Data, int64(base+off), int64(e.stride), nil)
			off += 1 + e.widths[k]
		}
		dst.N += n
		return nil
	}
	if dst.N > 0 && dst.Fixed {
		return fmt.Errorf("exec: mixing fixed and variable key rows")
	}
	// Variable rows: sizes first, then every column writes at its cursor.
	if len(dst.Offs) == 0 {
		dst.Offs = append(dst.Offs, 0)
	}
	base := int64(len(dst.Data))
	cur := make([]int64, n)
	fixed := int64(0)
	for k := range cols {
		if e.widths[k] >= 0 {
			fixed += int64(1 + e.widths[k])
		}
	}
	for i := range cur {
		cur[i] = fixed
	}
	nested := make([]nestedKeys, len(cols))
	for k, c := range cols {
		if e.widths[k] < 0 && IsNestedKey(e.types[k]) {
			nested[k].encode(c)
			for i := 0; i < n; i++ {
				cur[i] += 1 + int64(nested[k].offs[i+1]-nested[k].offs[i])
			}
			continue
		}
		if e.widths[k] < 0 {
			str := stringGetter(c)
			for i := 0; i < n; i++ {
				cur[i]++
				if c.IsValid(i) {
					s := str(i)
					cur[i] += int64(len(s)+strings.Count(s, "\x00")) + 2
				}
			}
		}
	}
	total := int64(0)
	for i, sz := range cur {
		total += sz
		cur[i] = base + total - sz // start of row i
		dst.Offs = append(dst.Offs, base+total)
	}
	dst.Data = grow(dst.Data, int(total))
	for k, c := range cols {
		if e.widths[k] >= 0 {
			encodeFixed(c, e.orders[k], e.widths[k], dst.Data, 0, 0, cur)
		} else if nested[k].offs != nil {
			nested[k].write(c, e.orders[k], dst.Data, cur)
		} else {
			encodeVar(c, e.orders[k], dst.Data, cur)
		}
	}
	dst.N += n
	return nil
}

func grow(b []byte, n int) []byte {
	if cap(b)-len(b) >= n {
		return b[:len(b)+n]
	}
	nb := make([]byte, len(b)+n, max(2*cap(b), len(b)+n))
	copy(nb, b)
	return nb
}

func markers(o SortOrder) (null, val byte) {
	if o.NullsFirst {
		return 0, 1
	}
	return 2, 1
}

// encodeFixed writes the marker and w value bytes of every row of c at
// start+i*step, or at cur[i] (advancing it) when cur is not nil.
func encodeFixed(c arrow.Array, o SortOrder, w int, dst []byte, start, step int64, cur []int64) {
	n := c.Len()
	nullM, valM := markers(o)
	var inv byte
	if o.Desc {
		inv = 0xFF
	}
	pos := func(i int) int64 {
		if cur != nil {
			p := cur[i]
			cur[i] += int64(1 + w)
			return p
		}
		return start + int64(i)*step
	}
	hasNulls := c.NullN() > 0
	// put writes the w low-order bytes of the big-endian words.
	put := func(i int, hi, lo uint64) {
		p := pos(i)
		if hasNulls && c.IsNull(i) {
			dst[p] = nullM
			clear(dst[p+1 : p+1+int64(w)])
			return
		}
		dst[p] = valM
		b := dst[p+1 : p+1+int64(w)]
		switch w {
		case 1:
			b[0] = byte(lo) ^ inv
		case 2:
			binary.BigEndian.PutUint16(b, uint16(lo)^uint16(inv)*0x0101)
		case 4:
			binary.BigEndian.PutUint32(b, uint32(lo)^uint32(inv)*0x01010101)
		case 8:
			binary.BigEndian.PutUint64(b, lo^uint64(inv)*0x0101010101010101)
		case 16:
			m := uint64(inv) * 0x0101010101010101
			binary.BigEndian.PutUint64(b, hi^m)
			binary.BigEndian.PutUint64(b[8:], lo^m)
		}
	}
	const s8, s16, s32, s64 = 1 << 7, 1 << 15, 1 << 31, 1 << 63
	switch a := c.(type) {
	case *array.Null:
		for i := 0; i < n; i++ {
			dst[pos(i)] = nullM
		}
	case *array.Boolean:
		for i := 0; i < n; i++ {
			v := uint64(0)
			if a.Value(i) {
				v = 1
			}
			put(i, 0, v)
		}
	case *array.Int8:
		for i, v := range a.Int8Values() {
			put(i, 0, uint64(uint8(v))^s8)
		}
	case *array.Int16:
		for i, v := range a.Int16Values() {
			put(i, 0, uint64(uint16(v))^s16)
		}
	case *array.Int32:
		for i, v := range a.Int32Values() {
			put(i, 0, uint64(uint32(v))^s32)
		}
	case *array.Int64:
		for i, v := range a.Int64Values() {
			put(i, 0, uint64(v)^s64)
		}
	case *array.Uint8:
		for i, v := range a.Uint8Values() {
			put(i, 0, uint64(v))
		}
	case *array.Uint16:
		for i, v := range a.Uint16Values() {
			put(i, 0, uint64(v))
		}
	case *array.Uint32:
		for i, v := range a.Uint32Values() {
			put(i, 0, uint64(v))
		}
	case *array.Uint64:
		for i, v := range a.Uint64Values() {
			put(i, 0, v)
		}
	case *array.Date32:
		for i, v := range a.Date32Values() {
			put(i, 0, uint64(uint32(v))^s32)
		}
	case *array.Date64:
		for i, v := range a.Date64Values() {
			put(i, 0, uint64(v)^s64)
		}
	case *array.Time32:
		for i, v := range a.Time32Values() {
			put(i, 0, uint64(uint32(v))^s32)
		}
	case *array.Time64:
		for i, v := range a.Time64Values() {
			put(i, 0, uint64(v)^s64)
		}
	case *array.Timestamp:
		for i, v := range a.TimestampValues() {
			put(i, 0, uint64(v)^s64)
		}
	case *array.Duration:
		for i, v := range a.DurationValues() {
			put(i, 0, uint64(v)^s64)
		}
	case *array.Float16:
		for i := 0; i < n; i++ {
			put(i, 0, uint64(float32Key(a.Value(i).Float32())))
		}
	case *array.Float32:
		for i, v := range a.Float32Values() {
			put(i, 0, uint64(float32Key(v)))
		}
	case *array.Float64:
		for i, v := range a.Float64Values() {
			put(i, 0, float64Key(v))
		}
	case *array.Decimal32:
		for i := 0; i < n; i++ {
			put(i, 0, uint64(uint32(a.Value(i)))^s32)
		}
	case *array.Decimal64:
		for i := 0; i < n; i++ {
			put(i, 0, uint64(a.Value(i))^s64)
		}
	case *array.Decimal128:
		for i := 0; i < n; i++ {
			v := a.Value(i)
			put(i, uint64(v.HighBits())^s64, v.LowBits())
		}
	case *array.Decimal256:
		m := uint64(inv) * 0x0101010101010101
		for i := 0; i < n; i++ {
			p := pos(i)
			if hasNulls && a.IsNull(i) {
				dst[p] = nullM
				clear(dst[p+1 : p+33])
				continue
			}
			dst[p] = valM
			w4 := a.Value(i).Array() // little-endian words
			binary.BigEndian.PutUint64(dst[p+1:], (w4[3]^s64)^m)
			binary.BigEndian.PutUint64(dst[p+9:], w4[2]^m)
			binary.BigEndian.PutUint64(dst[p+17:], w4[1]^m)
			binary.BigEndian.PutUint64(dst[p+25:], w4[0]^m)
		}
	case *array.FixedSizeBinary:
		for i := 0; i < n; i++ {
			p := pos(i)
			if hasNulls && a.IsNull(i) {
				dst[p] = nullM
				clear(dst[p+1 : p+1+int64(w)])
				continue
			}
			dst[p] = valM
			b := dst[p+1 : p+1+int64(w)]
			copy(b, a.Value(i))
			if o.Desc {
				for j := range b {
					b[j] = ^b[j]
				}
			}
		}
	}
}

// float64Key maps a float to an unsigned integer of the same order, with
// -0 == +0 and every NaN equal and above +Inf.
func float64Key(v float64) uint64 { return vec.Float64Key(v) }

// nestedKeys holds the keys of the valid rows of a nested column
// (vec.AppendNestedKey; a NULL row's key is empty): row i's is
// buf[offs[i]:offs[i+1]].
type nestedKeys struct {
	buf  []byte
	offs []int
}

func (k *nestedKeys) encode(c arrow.Array) {
	n := c.Len()
	k.buf, k.offs = k.buf[:0], append(k.offs[:0], 0)
	for i := 0; i < n; i++ {
		if c.IsValid(i) {
			k.buf = vec.AppendNestedKey(k.buf, c, i)
		}
		k.offs = append(k.offs, len(k.buf))
	}
}

// write writes the marker and key (inverted for DESC) of every row.
func (k *nestedKeys) write(c arrow.Array, o SortOrder, dst []byte, cur []int64) {
	nullM, valM := markers(o)
	for i := range cur {
		p := cur[i]
		if c.IsNull(i) {
			dst[p] = nullM
			cur[i] = p + 1
			continue
		}
		dst[p] = valM
		q := p + 1 + int64(copy(dst[p+1:], k.buf[k.offs[i]:k.offs[i+1]]))
		if o.Desc {
			b := dst[p+1 : q]
			for j := range b {
				b[j] = ^b[j]
			}
		}
		cur[i] = q
	}
}

func float32Key(v float32) uint32 {
	if v != v {
		return 0xFFC00000
	}
	if v == 0 {
		v = 0
	}
	b := math.Float32bits(v)
	if b>>31 != 0 {
		return ^b
	}
	return b | 1<<31
}

// stringGetter returns the bytes of row i of a string or binary array as a
// string (no copy).
func stringGetter(c arrow.Array) func(int) string {
	switch a := c.(type) {
	case *array.String:
		return a.Value
	case *array.LargeString:
		return a.Value
	case *array.StringView:
		return a.Value
	case *array.Binary:
		return a.ValueString
	case *array.LargeBinary:
		return a.ValueString
	case *array.BinaryView:
		return a.ValueString
	}
	return func(int) string { return "" }
}

// encodeVar writes the marker, escaped bytes and terminator of every row.
func encodeVar(c arrow.Array, o SortOrder, dst []byte, cur []int64) {
	nullM, valM := markers(o)
	str := stringGetter(c)
	for i := range cur {
		p := cur[i]
		if c.IsNull(i) {
			dst[p] = nullM
			cur[i] = p + 1
			continue
		}
		dst[p] = valM
		start := p + 1
		q := start
		s := str(i)
		for len(s) > 0 {
			z := strings.IndexByte(s, 0)
			if z < 0 {
				q += int64(copy(dst[q:], s))
				break
			}
			q += int64(copy(dst[q:], s[:z]))
			dst[q], dst[q+1] = 0, 0xFF
			q += 2
			s = s[z+1:]
		}
		dst[q], dst[q+1] = 0, 0
		q += 2
		if o.Desc {
			b := dst[start:q]
			for j := range b {
				b[j] = ^b[j]
			}
		}
		cur[i] = q
	}
}

// NewRowComparator returns a comparison of rows i and j of cols (one array
// per key, same lengths) in the given orders: -1, 0 or +1.
func NewRowComparator(cols []arrow.Array, orders []SortOrder) (func(i, j int) int, error) {
	types := make([]arrow.DataType, len(cols))
	for i, c := range cols {
		types[i] = c.DataType()
	}
	enc, err := NewKeyEncoder(types, orders)
	if err != nil {
		return nil, err
	}
	var rows KeyRows
	if err := enc.Encode(&rows, cols); err != nil {
		return nil, err
	}
	return rows.Compare, nil
}

package vec

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/decimal256"
	"github.com/apache/arrow-go/v18/arrow/float16"
)

// The order of nested values (LIST, LARGE_LIST, FIXED_SIZE_LIST, MAP,
// STRUCT), as DuckDB's, is defined in one place: the byte key below, whose
// bytewise order (bytes.Compare) is the value order and in which equal
// values (and only they) have equal bytes. The list comparison operators
// compare these keys, and planner/exec sorts, groups, deduplicates and
// joins nested values on them (its KeyEncoder and KeyTable).
//
// The order: lists compare element by element, a list that is a prefix of
// another sorts first; structs field by field; a MAP is the list of its
// (key, value) entries (entry order counts, as in DuckDB). A NULL element
// or field equals another NULL and sorts after every value (in either
// direction of a sort: ORDER BY ... DESC inverts the whole key, so NULL
// elements then come first, as in DuckDB). Numbers compare by value
// across widths (a list<INTEGER> against a list<BIGINT> constant); -0
// equals +0 and NaN equals NaN above +Inf.
//
// The key of a valid nested value:
//   - list-like: each element's key, then 0x00;
//   - struct: each field's key;
//   - element (or field): 0x02 when NULL, else 0x01 and its value's key
//     (so the end of a list, 0x00, sorts before any further element);
//   - values: signed integers, dates, times, timestamps, durations,
//     DECIMAL32/64: 8 bytes big-endian with the sign bit flipped;
//     unsigned integers: 8 bytes big-endian; floats: the 8-byte
//     order-preserving form of the float64 (Float64Key); BOOLEAN one byte;
//     DECIMAL128/256: 16/32 bytes two's complement, sign bit flipped;
//     strings and binaries: the bytes with 0x00 escaped as 0x00 0xFF and
//     the terminator 0x00 0x00; fixed-size binaries: the bytes; the NULL
//     type: nothing; nested values: their key.
//
// Every key is prefix-free, so keys concatenate (a row of several key
// columns) and DESC may invert every byte. DecodeNestedKey reads a key
// back into a builder of the same type (floats come back as +0 and the
// canonical NaN).

// IsNested reports whether t is a nested type with a key here.
func IsNested(t arrow.DataType) bool {
	if t == nil {
		return false
	}
	switch t.ID() {
	case arrow.LIST, arrow.LARGE_LIST, arrow.FIXED_SIZE_LIST, arrow.MAP, arrow.STRUCT:
		return true
	}
	return false
}

// NestedKeyCheck returns nil when values of the nested type t have a key,
// else an error (wrapping catalog.ErrUnsupported) naming the element type
// at fault.
func NestedKeyCheck(t arrow.DataType) error {
	if !IsNested(t) {
		return unsupportedf("values of type %s are unsupported as nested keys", TypeName(t))
	}
	return nestedKeyCheck(t)
}

func nestedKeyCheck(t arrow.DataType) error {
	switch tt := t.(type) {
	case *arrow.ListType:
		return nestedKeyCheck(tt.Elem())
	case *arrow.LargeListType:
		return nestedKeyCheck(tt.Elem())
	case *arrow.FixedSizeListType:
		return nestedKeyCheck(tt.Elem())
	case *arrow.MapType:
		if err := nestedKeyCheck(tt.KeyType()); err != nil {
			return err
		}
		return nestedKeyCheck(tt.ItemType())
	case *arrow.StructType:
		for _, f := range tt.Fields() {
			if err := nestedKeyCheck(f.Type); err != nil {
				return err
			}
		}
		return nil
	}
	switch t.ID() {
	case arrow.NULL, arrow.BOOL, arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64,
		arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64, arrow.FLOAT16, arrow.FLOAT32, arrow.FLOAT64,
		arrow.DATE32, arrow.DATE64, arrow.TIME32, arrow.TIME64, arrow.TIMESTAMP, arrow.DURATION,
		arrow.DECIMAL32, arrow.DECIMAL64, arrow.DECIMAL128, arrow.DECIMAL256,
		arrow.STRING, arrow.LARGE_STRING, arrow.STRING_VIEW, arrow.BINARY, arrow.LARGE_BINARY, arrow.BINARY_VIEW,
		arrow.FIXED_SIZE_BINARY:
		return nil
	}
	return unsupportedf("nested values with elements of type %s are unsupported as keys (ORDER BY, GROUP BY, DISTINCT, joins, comparisons)", TypeName(t))
}

// Float64Key maps a float to an unsigned integer of the same order, with
// -0 == +0 and every NaN equal and above +Inf.
func Float64Key(v float64) uint64 {
	if v != v {
		return 0xFFF8000000000000 // 0x7FF8... with the sign bit set
	}
	if v == 0 {
		v = 0
	}
	b := math.Float64bits(v)
	if b>>63 != 0 {
		return ^b
	}
	return b | 1<<63
}

// float64FromKey inverts Float64Key.
func float64FromKey(k uint64) float64 {
	if k>>63 != 0 {
		return math.Float64frombits(k &^ (1 << 63))
	}
	return math.Float64frombits(^k)
}

const signBit = 1 << 63

// AppendNestedKey appends the key of row i of the nested array a (which
// must be valid; NestedKeyCheck(a.DataType()) must be nil) to dst.
func AppendNestedKey(dst []byte, a arrow.Array, i int) []byte {
	return appendValueKey(dst, a, i)
}

func appendElemKey(dst []byte, a arrow.Array, i int) []byte {
	if a.DataType().ID() == arrow.NULL || a.IsNull(i) {
		return append(dst, 2)
	}
	return appendValueKey(append(dst, 1), a, i)
}

func appendListKey(dst []byte, vals arrow.Array, s, e int64) []byte {
	for j := s; j < e; j++ {
		dst = appendElemKey(dst, vals, int(j))
	}
	return append(dst, 0)
}

func appendU64(dst []byte, v uint64) []byte { return binary.BigEndian.AppendUint64(dst, v) }

func appendBytesKey(dst []byte, s string) []byte {
	for len(s) > 0 {
		z := strings.IndexByte(s, 0)
		if z < 0 {
			dst = append(dst, s...)
			break
		}
		dst = append(dst, s[:z]...)
		dst = append(dst, 0, 0xFF)
		s = s[z+1:]
	}
	return append(dst, 0, 0)
}

func appendValueKey(dst []byte, a arrow.Array, i int) []byte {
	switch x := a.(type) {
	case *array.Map:
		s, e := x.ValueOffsets(i)
		return appendListKey(dst, x.ListValues(), s, e)
	case *array.List:
		s, e := x.ValueOffsets(i)
		return appendListKey(dst, x.ListValues(), s, e)
	case *array.LargeList:
		s, e := x.ValueOffsets(i)
		return appendListKey(dst, x.ListValues(), s, e)
	case *array.FixedSizeList:
		s, e := x.ValueOffsets(i)
		return appendListKey(dst, x.ListValues(), s, e)
	case *array.Struct:
		for k := 0; k < x.NumField(); k++ {
			dst = appendElemKey(dst, x.Field(k), i)
		}
		return dst
	case *array.Null:
		return dst
	case *array.Boolean:
		if x.Value(i) {
			return append(dst, 1)
		}
		return append(dst, 0)
	case *array.Int8:
		return appendU64(dst, uint64(int64(x.Value(i)))^signBit)
	case *array.Int16:
		return appendU64(dst, uint64(int64(x.Value(i)))^signBit)
	case *array.Int32:
		return appendU64(dst, uint64(int64(x.Value(i)))^signBit)
	case *array.Int64:
		return appendU64(dst, uint64(x.Value(i))^signBit)
	case *array.Uint8:
		return appendU64(dst, uint64(x.Value(i)))
	case *array.Uint16:
		return appendU64(dst, uint64(x.Value(i)))
	case *array.Uint32:
		return appendU64(dst, uint64(x.Value(i)))
	case *array.Uint64:
		return appendU64(dst, x.Value(i))
	case *array.Float16:
		return appendU64(dst, Float64Key(float64(x.Value(i).Float32())))
	case *array.Float32:
		return appendU64(dst, Float64Key(float64(x.Value(i))))
	case *array.Float64:
		return appendU64(dst, Float64Key(x.Value(i)))
	case *array.Date32:
		return appendU64(dst, uint64(int64(x.Value(i)))^signBit)
	case *array.Date64:
		return appendU64(dst, uint64(x.Value(i))^signBit)
	case *array.Time32:
		return appendU64(dst, uint64(int64(x.Value(i)))^signBit)
	case *array.Time64:
		return appendU64(dst, uint64(x.Value(i))^signBit)
	case *array.Timestamp:
		return appendU64(dst, uint64(x.Value(i))^signBit)
	case *array.Duration:
		return appendU64(dst, uint64(x.Value(i))^signBit)
	case *array.Decimal32:
		return appendU64(dst, uint64(int64(x.Value(i)))^signBit)
	case *array.Decimal64:
		return appendU64(dst, uint64(int64(x.Value(i)))^signBit)
	case *array.Decimal128:
		v := x.Value(i)
		dst = appendU64(dst, uint64(v.HighBits())^signBit)
		return appendU64(dst, v.LowBits())
	case *array.Decimal256:
		w := x.Value(i).Array() // little-endian words
		dst = appendU64(dst, w[3]^signBit)
		dst = appendU64(dst, w[2])
		dst = appendU64(dst, w[1])
		return appendU64(dst, w[0])
	case *array.String:
		return appendBytesKey(dst, x.Value(i))
	case *array.LargeString:
		return appendBytesKey(dst, x.Value(i))
	case *array.StringView:
		return appendBytesKey(dst, x.Value(i))
	case *array.Binary:
		return appendBytesKey(dst, x.ValueString(i))
	case *array.LargeBinary:
		return appendBytesKey(dst, x.ValueString(i))
	case *array.BinaryView:
		return appendBytesKey(dst, x.ValueString(i))
	case *array.FixedSizeBinary:
		return append(dst, x.Value(i)...)
	}
	// not reached when NestedKeyCheck admitted the type
	panic(fmt.Sprintf("vec: no key for values of type %s", a.DataType()))
}

// DecodeNestedKey appends to bld (a builder of the nested type whose key
// b starts with) the value of that key and returns the rest of b.
func DecodeNestedKey(b []byte, bld array.Builder) ([]byte, error) {
	return decodeValueKey(b, bld)
}

var errBadKey = fmt.Errorf("vec: malformed nested key")

func decodeElemKey(b []byte, bld array.Builder) ([]byte, error) {
	if len(b) == 0 {
		return nil, errBadKey
	}
	switch b[0] {
	case 2:
		bld.AppendNull()
		return b[1:], nil
	case 1:
		return decodeValueKey(b[1:], bld)
	}
	return nil, errBadKey
}

// decodeListKey reads elements until the list's end marker, calling elem
// for each one that is present (0x01 or 0x02 first).
func decodeListKey(b []byte, elem func([]byte) ([]byte, error)) ([]byte, error) {
	for {
		if len(b) == 0 {
			return nil, errBadKey
		}
		if b[0] == 0 {
			return b[1:], nil
		}
		var err error
		if b, err = elem(b); err != nil {
			return nil, err
		}
	}
}

func u64(b []byte) (uint64, []byte, error) {
	if len(b) < 8 {
		return 0, nil, errBadKey
	}
	return binary.BigEndian.Uint64(b), b[8:], nil
}

func decodeBytesKey(b []byte) ([]byte, []byte, error) {
	var out []byte
	for i := 0; i+1 < len(b); i++ {
		if b[i] != 0 {
			out = append(out, b[i])
			continue
		}
		switch b[i+1] {
		case 0:
			return out, b[i+2:], nil
		case 0xFF:
			out = append(out, 0)
			i++
		default:
			return nil, nil, errBadKey
		}
	}
	return nil, nil, errBadKey
}

func decodeValueKey(b []byte, bld array.Builder) ([]byte, error) {
	elemOf := func(vb array.Builder) func([]byte) ([]byte, error) {
		return func(b []byte) ([]byte, error) { return decodeElemKey(b, vb) }
	}
	switch x := bld.(type) {
	case *array.MapBuilder:
		x.Append(true)
		kb, ib := x.KeyBuilder(), x.ItemBuilder()
		return decodeListKey(b, func(b []byte) ([]byte, error) {
			if b[0] != 1 {
				return nil, errBadKey
			}
			b, err := decodeElemKey(b[1:], kb)
			if err != nil {
				return nil, err
			}
			return decodeElemKey(b, ib)
		})
	case *array.ListBuilder:
		x.Append(true)
		return decodeListKey(b, elemOf(x.ValueBuilder()))
	case *array.LargeListBuilder:
		x.Append(true)
		return decodeListKey(b, elemOf(x.ValueBuilder()))
	case *array.FixedSizeListBuilder:
		x.Append(true)
		return decodeListKey(b, elemOf(x.ValueBuilder()))
	case *array.StructBuilder:
		x.Append(true)
		var err error
		for k := 0; k < x.NumField(); k++ {
			if b, err = decodeElemKey(b, x.FieldBuilder(k)); err != nil {
				return nil, err
			}
		}
		return b, nil
	case *array.NullBuilder:
		x.AppendNull()
		return b, nil
	case *array.BooleanBuilder:
		if len(b) == 0 {
			return nil, errBadKey
		}
		x.Append(b[0] == 1)
		return b[1:], nil
	case *array.StringBuilder, *array.LargeStringBuilder, *array.StringViewBuilder,
		*array.BinaryBuilder, *array.BinaryViewBuilder:
		v, rest, err := decodeBytesKey(b)
		if err != nil {
			return nil, err
		}
		switch y := x.(type) {
		case *array.StringBuilder:
			y.Append(string(v))
		case *array.LargeStringBuilder:
			y.Append(string(v))
		case *array.StringViewBuilder:
			y.Append(string(v))
		case *array.BinaryBuilder: // BINARY and LARGE_BINARY
			y.Append(v)
		case *array.BinaryViewBuilder:
			y.Append(v)
		}
		return rest, nil
	case *array.FixedSizeBinaryBuilder:
		w := x.Type().(*arrow.FixedSizeBinaryType).ByteWidth
		if len(b) < w {
			return nil, errBadKey
		}
		x.Append(b[:w])
		return b[w:], nil
	case *array.Decimal128Builder:
		hi, rest, err := u64(b)
		if err != nil {
			return nil, err
		}
		lo, rest, err := u64(rest)
		if err != nil {
			return nil, err
		}
		x.Append(decimal128.New(int64(hi^signBit), lo))
		return rest, nil
	case *array.Decimal256Builder:
		var w [4]uint64
		var err error
		rest := b
		for k := 3; k >= 0; k-- {
			if w[k], rest, err = u64(rest); err != nil {
				return nil, err
			}
		}
		x.Append(decimal256.New(w[3]^signBit, w[2], w[1], w[0]))
		return rest, nil
	}
	v, rest, err := u64(b)
	if err != nil {
		return nil, err
	}
	s := int64(v ^ signBit)
	switch x := bld.(type) {
	case *array.Int8Builder:
		x.Append(int8(s))
	case *array.Int16Builder:
		x.Append(int16(s))
	case *array.Int32Builder:
		x.Append(int32(s))
	case *array.Int64Builder:
		x.Append(s)
	case *array.Uint8Builder:
		x.Append(uint8(v))
	case *array.Uint16Builder:
		x.Append(uint16(v))
	case *array.Uint32Builder:
		x.Append(uint32(v))
	case *array.Uint64Builder:
		x.Append(v)
	case *array.Float16Builder:
		x.Append(float16.New(float32(float64FromKey(v))))
	case *array.Float32Builder:
		x.Append(float32(float64FromKey(v)))
	case *array.Float64Builder:
		x.Append(float64FromKey(v))
	case *array.Date32Builder:
		x.Append(arrow.Date32(s))
	case *array.Date64Builder:
		x.Append(arrow.Date64(s))
	case *array.Time32Builder:
		x.Append(arrow.Time32(s))
	case *array.Time64Builder:
		x.Append(arrow.Time64(s))
	case *array.TimestampBuilder:
		x.Append(arrow.Timestamp(s))
	case *array.DurationBuilder:
		x.Append(arrow.Duration(s))
	case *array.Decimal32Builder:
		x.Append(decimal.Decimal32(s))
	case *array.Decimal64Builder:
		x.Append(decimal.Decimal64(s))
	default:
		return nil, fmt.Errorf("vec: cannot decode a nested key into a %T", bld)
	}
	return rest, nil
}

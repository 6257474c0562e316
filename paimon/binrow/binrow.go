// Package binrow encodes and decodes Paimon's BinaryRow, BinaryArray and
// BinaryMap formats byte-for-byte as Paimon Java 1.x writes them (spec §5),
// computes fixed-bucket assignment over key rows (spec §9.2), and converts
// SimpleStats min/max rows (spec §8).
//
// # Go value convention
//
// Encode takes and Decode returns one Go value per field, following the
// literal convention of package predicate:
//
//	NULL                                   nil
//	BOOLEAN                                bool
//	TINYINT/SMALLINT/INT/BIGINT            int64
//	DATE                                   int64 (days since 1970-01-01)
//	TIME                                   int64 (millis of day)
//	FLOAT/DOUBLE                           float64 (FLOAT is stored as float32 bits)
//	DECIMAL(p,s)                           predicate.Decimal (Scale == s)
//	TIMESTAMP/TIMESTAMP_LTZ                predicate.Timestamp
//	CHAR/VARCHAR                           string
//	BINARY/VARBINARY/BLOB                  []byte
//	ARRAY                                  []any (elements by the same convention)
//	ROW                                    []any (one value per nested field)
//	MAP                                    MapValue (parallel Keys/Values)
//	MULTISET                               MapValue (Keys = elements, Values = int64 counts);
//	                                       Encode also accepts []any and counts duplicates
//	VARIANT                                VariantValue
//
// Encode also accepts Go's other integer kinds (int, int32, …), float32, and
// time.Time for timestamps (as wall clock in UTC), for convenience; Decode
// always returns the canonical types above.
//
// # Canonical bytes
//
// Encode produces exactly the bytes Java's BinaryRowWriter produces: header
// byte = RowKind, zeroed padding, strings and binaries of at most 7 bytes
// inlined in their slot, compact DECIMAL (p <= 18) and TIMESTAMP (p <= 3) in
// the slot, and, for a NULL non-compact DECIMAL/TIMESTAMP in a row, the 16/8
// var-part bytes still reserved with the offset in the slot. Java partitions
// are compared and hashed as raw bytes, so this matters.
//
// # Robustness
//
// Decoding never panics and never allocates more than a small multiple of
// its input: every offset and length is bounds-checked and corrupt input is
// reported as an error.
package binrow

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/big"
	"time"

	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// RowKind is the change kind stored in a BinaryRow's header byte.
type RowKind byte

// Row kinds as Java's RowKind byte values.
const (
	Insert       RowKind = 0 // +I
	UpdateBefore RowKind = 1 // -U
	UpdateAfter  RowKind = 2 // +U
	Delete       RowKind = 3 // -D
)

// String returns the short form (+I, -U, +U, -D).
func (k RowKind) String() string {
	switch k {
	case Insert:
		return "+I"
	case UpdateBefore:
		return "-U"
	case UpdateAfter:
		return "+U"
	case Delete:
		return "-D"
	}
	return fmt.Sprintf("RowKind(%d)", byte(k))
}

// MapValue is the Go value of a MAP (and MULTISET) column: Keys[i] maps to
// Values[i], in stored order. For MULTISET, Values hold int64 counts.
type MapValue struct {
	Keys   []any
	Values []any
}

// VariantValue is the Go value of a VARIANT column: the binary-encoded value
// and its metadata, as Paimon stores them.
type VariantValue struct {
	Value    []byte
	Metadata []byte
}

// ErrCorrupt is wrapped by every decoding error caused by malformed bytes.
var ErrCorrupt = errors.New("corrupt binary row")

// maxNesting bounds recursion through nested types while decoding.
const maxNesting = 64

// NullBitsSizeInBytes returns the width of the header+null-bit region of a
// row with the given arity: ((arity + 63 + 8) / 64) * 8.
func NullBitsSizeInBytes(arity int) int { return ((arity + 63 + 8) / 64) * 8 }

// FixedSize returns the size of the header, null bits and slots of a row
// with the given arity (the minimal size of such a row).
func FixedSize(arity int) int { return NullBitsSizeInBytes(arity) + 8*arity }

// Encode encodes values as a BinaryRow with RowKind +I. See the package
// documentation for the value convention.
func Encode(fields []types.DataType, values []any) ([]byte, error) {
	return EncodeKind(Insert, fields, values)
}

// EncodeKind encodes values as a BinaryRow with the given header RowKind.
func EncodeKind(kind RowKind, fields []types.DataType, values []any) ([]byte, error) {
	if len(fields) != len(values) {
		return nil, fmt.Errorf("binrow: %d values for %d fields", len(values), len(fields))
	}
	b, err := encodeRow(fields, values, 0)
	if err != nil {
		return nil, err
	}
	b[0] = byte(kind)
	return b, nil
}

// Decode decodes a BinaryRow whose fields have the given types. The row's
// RowKind is ignored (use NewRow to read it).
func Decode(fields []types.DataType, row []byte) ([]any, error) {
	r, err := NewRow(row, len(fields))
	if err != nil {
		return nil, err
	}
	return r.values(newDec(len(row)), fields, 0)
}

// Row is a read-only view of an encoded BinaryRow. It is cheap to create and
// copy; typed getters read single fields without decoding the others.
type Row struct {
	data  []byte
	arity int
	bits  int // NullBitsSizeInBytes(arity)
}

// NewRow wraps data as a row of the given arity after checking that the
// fixed-length part fits.
func NewRow(data []byte, arity int) (Row, error) {
	if arity < 0 {
		return Row{}, fmt.Errorf("binrow: negative arity %d", arity)
	}
	need := FixedSize(arity)
	if arity > len(data) || need > len(data) {
		return Row{}, fmt.Errorf("binrow: %w: row of arity %d needs at least %d bytes, have %d", ErrCorrupt, arity, need, len(data))
	}
	return Row{data: data, arity: arity, bits: NullBitsSizeInBytes(arity)}, nil
}

// Arity returns the number of fields.
func (r Row) Arity() int { return r.arity }

// Bytes returns the underlying encoded row.
func (r Row) Bytes() []byte { return r.data }

// Kind returns the header RowKind.
func (r Row) Kind() RowKind {
	if len(r.data) == 0 {
		return Insert
	}
	return RowKind(r.data[0])
}

// IsNull reports whether field pos is NULL. pos must be in [0, Arity).
func (r Row) IsNull(pos int) bool {
	i := pos + 8
	return r.data[i>>3]&(1<<(uint(i)&7)) != 0
}

func (r Row) slot(pos int) uint64 {
	o := r.bits + 8*pos
	return binary.LittleEndian.Uint64(r.data[o : o+8])
}

func (r Row) checkPos(pos int) error {
	if pos < 0 || pos >= r.arity {
		return fmt.Errorf("binrow: field %d out of range [0, %d)", pos, r.arity)
	}
	return nil
}

// Value decodes field pos of type t (nil for NULL).
func (r Row) Value(pos int, t types.DataType) (any, error) {
	if err := r.checkPos(pos); err != nil {
		return nil, err
	}
	return r.value(newDec(len(r.data)), pos, t, 0)
}

// Int64 returns an integer-like field (TINYINT..BIGINT, DATE, TIME,
// compact DECIMAL unscaled, compact TIMESTAMP millis). ok is false for NULL.
func (r Row) Int64(pos int, t types.DataType) (v int64, ok bool, err error) {
	if err := r.checkPos(pos); err != nil {
		return 0, false, err
	}
	if r.IsNull(pos) {
		return 0, false, nil
	}
	s := r.slot(pos)
	switch t.Root {
	case types.TinyInt:
		return int64(int8(s)), true, nil
	case types.SmallInt:
		return int64(int16(s)), true, nil
	case types.Int, types.Date, types.Time:
		return int64(int32(s)), true, nil
	case types.BigInt:
		return int64(s), true, nil
	case types.Decimal:
		if t.IsCompactDecimal() {
			return int64(s), true, nil
		}
	case types.Timestamp, types.TimestampLTZ:
		if t.IsCompactTimestamp() {
			return int64(s), true, nil
		}
	}
	return 0, false, fmt.Errorf("binrow: field %d of type %s is not a fixed-size integer", pos, t)
}

func (r Row) values(d *dec, fields []types.DataType, depth int) ([]any, error) {
	out := make([]any, len(fields))
	for i, t := range fields {
		v, err := r.value(d, i, t, depth)
		if err != nil {
			return nil, fmt.Errorf("field %d (%s): %w", i, t, err)
		}
		out[i] = v
	}
	return out, nil
}

func (r Row) value(d *dec, pos int, t types.DataType, depth int) (any, error) {
	if r.IsNull(pos) {
		return nil, nil
	}
	return d.decodeSlot(r.data, r.bits+8*pos, t, depth)
}

// dec carries the decoding budget that bounds the output size of one
// decode call: aliased var-part offsets could otherwise make a small
// corrupt input expand into an arbitrarily large value tree.
type dec struct{ remaining int }

func newDec(inputLen int) *dec { return &dec{remaining: 4*inputLen + 64} }

func (d *dec) spend(n int) error {
	d.remaining -= n
	if d.remaining < 0 {
		return fmt.Errorf("%w: decoded value larger than its input allows (aliased var-part offsets)", ErrCorrupt)
	}
	return nil
}

// varPart resolves an offset/length slot word against base, checking bounds.
func varPart(base []byte, word uint64) ([]byte, error) {
	off := word >> 32
	n := word & 0xFFFFFFFF
	if off > uint64(len(base)) || n > uint64(len(base))-off {
		return nil, fmt.Errorf("%w: var-length data [%d, +%d) beyond %d bytes", ErrCorrupt, off, n, len(base))
	}
	return base[off : off+n], nil
}

// readBytesWord decodes the string/binary encoding at base[slotOff:slotOff+8].
func readBytesWord(base []byte, slotOff int) ([]byte, error) {
	word := binary.LittleEndian.Uint64(base[slotOff : slotOff+8])
	if word&(1<<63) != 0 {
		n := int((word >> 56) & 0x7F)
		if n > 7 {
			return nil, fmt.Errorf("%w: inline length %d > 7", ErrCorrupt, n)
		}
		return base[slotOff : slotOff+n], nil
	}
	return varPart(base, word)
}

// decodeSlot decodes a non-null value of type t whose 8-byte slot (or, in
// arrays, element of elemSize bytes) starts at base[off]. base is the whole
// enclosing row or array, against which var-part offsets are resolved.
func (d *dec) decodeSlot(base []byte, off int, t types.DataType, depth int) (any, error) {
	if err := d.spend(1); err != nil {
		return nil, err
	}
	if depth > maxNesting {
		return nil, fmt.Errorf("%w: nesting deeper than %d", ErrCorrupt, maxNesting)
	}
	le := binary.LittleEndian
	switch t.Root {
	case types.Boolean:
		return base[off] != 0, nil
	case types.TinyInt:
		return int64(int8(base[off])), nil
	case types.SmallInt:
		return int64(int16(le.Uint16(base[off:]))), nil
	case types.Int, types.Date, types.Time:
		return int64(int32(le.Uint32(base[off:]))), nil
	case types.BigInt:
		return int64(le.Uint64(base[off:])), nil
	case types.Float:
		return float64(math.Float32frombits(le.Uint32(base[off:]))), nil
	case types.Double:
		return math.Float64frombits(le.Uint64(base[off:])), nil
	case types.Char, types.VarChar:
		b, err := readBytesWord(base, off)
		if err != nil {
			return nil, err
		}
		if err := d.spend(len(b)); err != nil {
			return nil, err
		}
		return string(b), nil
	case types.Binary, types.VarBinary, types.Blob:
		b, err := readBytesWord(base, off)
		if err != nil {
			return nil, err
		}
		if err := d.spend(len(b)); err != nil {
			return nil, err
		}
		return append([]byte{}, b...), nil
	case types.Decimal:
		word := le.Uint64(base[off:])
		if t.IsCompactDecimal() {
			return predicate.Decimal{Unscaled: big.NewInt(int64(word)), Scale: t.Scale}, nil
		}
		b, err := varPart(base, word)
		if err != nil {
			return nil, err
		}
		if len(b) == 0 || len(b) > 16 {
			return nil, fmt.Errorf("%w: decimal of %d bytes", ErrCorrupt, len(b))
		}
		return predicate.Decimal{Unscaled: fromTwosComplement(b), Scale: t.Scale}, nil
	case types.Timestamp, types.TimestampLTZ:
		word := le.Uint64(base[off:])
		if t.IsCompactTimestamp() {
			return predicate.Timestamp{Millis: int64(word)}, nil
		}
		b, err := varPart(base, word&^0xFFFFFFFF|8)
		if err != nil {
			return nil, err
		}
		nano := word & 0xFFFFFFFF
		if nano > 999_999 {
			return nil, fmt.Errorf("%w: nano-of-millisecond %d out of range", ErrCorrupt, nano)
		}
		return predicate.Timestamp{Millis: int64(le.Uint64(b)), NanoOfMilli: int32(nano)}, nil
	case types.Row:
		b, err := varPart(base, le.Uint64(base[off:]))
		if err != nil {
			return nil, err
		}
		nr, err := NewRow(b, len(t.Fields))
		if err != nil {
			return nil, err
		}
		return nr.values(d, types.RowType(t.Fields).Types(), depth+1)
	case types.Array:
		if t.Element == nil {
			return nil, fmt.Errorf("binrow: ARRAY type without element type")
		}
		b, err := varPart(base, le.Uint64(base[off:]))
		if err != nil {
			return nil, err
		}
		return d.decodeArray(b, *t.Element, depth+1)
	case types.Map, types.Multiset:
		b, err := varPart(base, le.Uint64(base[off:]))
		if err != nil {
			return nil, err
		}
		kt, vt, err := mapTypes(t)
		if err != nil {
			return nil, err
		}
		return d.decodeMap(b, kt, vt, depth+1)
	case types.Variant:
		b, err := varPart(base, le.Uint64(base[off:]))
		if err != nil {
			return nil, err
		}
		if err := d.spend(len(b)); err != nil {
			return nil, err
		}
		if len(b) < 4 {
			return nil, fmt.Errorf("%w: variant of %d bytes", ErrCorrupt, len(b))
		}
		vl := uint64(le.Uint32(b))
		if vl > uint64(len(b)-4) {
			return nil, fmt.Errorf("%w: variant value length %d beyond %d bytes", ErrCorrupt, vl, len(b)-4)
		}
		return VariantValue{
			Value:    append([]byte{}, b[4:4+vl]...),
			Metadata: append([]byte{}, b[4+vl:]...),
		}, nil
	}
	return nil, fmt.Errorf("binrow: unsupported type %s", t)
}

func mapTypes(t types.DataType) (k, v types.DataType, err error) {
	if t.Root == types.Multiset {
		if t.Element == nil {
			return k, v, fmt.Errorf("binrow: MULTISET type without element type")
		}
		return *t.Element, types.NewInt().NotNull(), nil
	}
	if t.Key == nil || t.Value == nil {
		return k, v, fmt.Errorf("binrow: MAP type without key/value types")
	}
	return *t.Key, *t.Value, nil
}

// fromTwosComplement converts a big-endian two's complement byte string
// (Java BigInteger.toByteArray) to a big.Int.
func fromTwosComplement(b []byte) *big.Int {
	v := new(big.Int).SetBytes(b)
	if len(b) > 0 && b[0]&0x80 != 0 {
		v.Sub(v, new(big.Int).Lsh(big.NewInt(1), uint(8*len(b))))
	}
	return v
}

// toTwosComplement is Java's BigInteger.toByteArray: minimal big-endian
// two's complement, at least one byte.
func toTwosComplement(v *big.Int) []byte {
	var n int
	if v.Sign() >= 0 {
		n = v.BitLen()/8 + 1
	} else {
		m := new(big.Int).Neg(v)
		m.Sub(m, big.NewInt(1)) // -v-1 has the same bitLength as Java's v.bitLength()
		n = m.BitLen()/8 + 1
	}
	out := make([]byte, n)
	if v.Sign() >= 0 {
		v.FillBytes(out)
		return out
	}
	u := new(big.Int).Add(v, new(big.Int).Lsh(big.NewInt(1), uint(8*n)))
	u.FillBytes(out)
	return out
}

// ---------------------------------------------------------------------------
// Encoding

func roundUp8(n int) int { return (n + 7) &^ 7 }

// encoder appends the var part after a pre-sized fixed part.
type encoder struct {
	buf []byte
}

func (e *encoder) putVar(b []byte, reserve int) int {
	c := len(e.buf)
	n := roundUp8(max(len(b), reserve))
	e.buf = append(e.buf, make([]byte, n)...)
	copy(e.buf[c:], b)
	return c
}

func encodeRow(fields []types.DataType, values []any, depth int) ([]byte, error) {
	if depth > maxNesting {
		return nil, fmt.Errorf("binrow: nesting deeper than %d", maxNesting)
	}
	if len(fields) != len(values) {
		return nil, fmt.Errorf("binrow: %d values for %d fields", len(values), len(fields))
	}
	bits := NullBitsSizeInBytes(len(fields))
	e := &encoder{buf: make([]byte, bits+8*len(fields))}
	for i, t := range fields {
		slotOff := bits + 8*i
		if values[i] == nil {
			nb := i + 8
			e.buf[nb>>3] |= 1 << (uint(nb) & 7)
			// Java reserves var space for null non-compact decimals/timestamps.
			switch {
			case t.Root == types.Decimal && !t.IsCompactDecimal():
				c := e.putVar(nil, 16)
				binary.LittleEndian.PutUint64(e.buf[slotOff:], uint64(c)<<32)
			case (t.Root == types.Timestamp || t.Root == types.TimestampLTZ) && !t.IsCompactTimestamp():
				c := e.putVar(nil, 8)
				binary.LittleEndian.PutUint64(e.buf[slotOff:], uint64(c)<<32)
			}
			continue
		}
		if err := e.encodeValue(slotOff, 8, t, values[i], depth); err != nil {
			return nil, fmt.Errorf("field %d (%s): %w", i, t, err)
		}
	}
	return e.buf, nil
}

// encodeValue writes non-null v of type t into the element at off (of
// elemSize bytes: 8 for row slots, 1/2/4/8 in arrays).
func (e *encoder) encodeValue(off, elemSize int, t types.DataType, v any, depth int) error {
	le := binary.LittleEndian
	switch t.Root {
	case types.Boolean:
		b, ok := v.(bool)
		if !ok {
			return typeErr(t, v)
		}
		if b {
			e.buf[off] = 1
		}
	case types.TinyInt, types.SmallInt, types.Int, types.BigInt, types.Date, types.Time:
		n, err := toInt64(t, v)
		if err != nil {
			return err
		}
		switch t.Root {
		case types.TinyInt:
			e.buf[off] = byte(n)
		case types.SmallInt:
			le.PutUint16(e.buf[off:], uint16(n))
		case types.BigInt:
			le.PutUint64(e.buf[off:], uint64(n))
		default:
			le.PutUint32(e.buf[off:], uint32(n))
		}
	case types.Float:
		f, err := toFloat(t, v)
		if err != nil {
			return err
		}
		bits := math.Float32bits(float32(f))
		if f != f {
			bits = 0x7fc00000 // Java writers canonicalize NaN (Float.NaN)
		}
		le.PutUint32(e.buf[off:], bits)
	case types.Double:
		f, err := toFloat(t, v)
		if err != nil {
			return err
		}
		bits := math.Float64bits(f)
		if f != f {
			bits = 0x7ff8000000000000 // Java writers canonicalize NaN (Double.NaN)
		}
		le.PutUint64(e.buf[off:], bits)
	case types.Char, types.VarChar, types.Binary, types.VarBinary, types.Blob:
		var b []byte
		switch x := v.(type) {
		case string:
			b = []byte(x)
		case []byte:
			b = x
		default:
			return typeErr(t, v)
		}
		if len(b) <= 7 {
			copy(e.buf[off:off+7], b)
			e.buf[off+7] = 0x80 | byte(len(b))
		} else {
			if uint64(len(b)) > math.MaxInt32 {
				return fmt.Errorf("value of %d bytes too large", len(b))
			}
			c := e.putVar(b, 0)
			le.PutUint64(e.buf[off:], uint64(c)<<32|uint64(len(b)))
		}
	case types.Decimal:
		unscaled, err := toUnscaled(t, v)
		if err != nil {
			return err
		}
		if t.IsCompactDecimal() {
			if !unscaled.IsInt64() {
				return fmt.Errorf("decimal %s does not fit DECIMAL(%d, %d)", unscaled, t.Precision, t.Scale)
			}
			le.PutUint64(e.buf[off:], uint64(unscaled.Int64()))
			return nil
		}
		b := toTwosComplement(unscaled)
		if len(b) > 16 {
			return fmt.Errorf("decimal %s does not fit 16 bytes", unscaled)
		}
		c := e.putVar(b, 16)
		le.PutUint64(e.buf[off:], uint64(c)<<32|uint64(len(b)))
	case types.Timestamp, types.TimestampLTZ:
		ts, err := toTimestamp(t, v)
		if err != nil {
			return err
		}
		if t.IsCompactTimestamp() {
			le.PutUint64(e.buf[off:], uint64(ts.Millis))
			return nil
		}
		var b [8]byte
		le.PutUint64(b[:], uint64(ts.Millis))
		c := e.putVar(b[:], 8)
		le.PutUint64(e.buf[off:], uint64(c)<<32|uint64(uint32(ts.NanoOfMilli)))
	case types.Row:
		vals, ok := v.([]any)
		if !ok {
			return typeErr(t, v)
		}
		ft := types.RowType(t.Fields).Types()
		nested, err := encodeRow(ft, vals, depth+1)
		if err != nil {
			return err
		}
		e.putNested(off, nested)
	case types.Array:
		vals, ok := v.([]any)
		if !ok || t.Element == nil {
			return typeErr(t, v)
		}
		arr, err := encodeArray(*t.Element, vals, depth+1)
		if err != nil {
			return err
		}
		e.putNested(off, arr)
	case types.Map, types.Multiset:
		mv, err := toMapValue(t, v)
		if err != nil {
			return err
		}
		kt, vt, err := mapTypes(t)
		if err != nil {
			return err
		}
		m, err := encodeMap(kt, vt, mv, depth+1)
		if err != nil {
			return err
		}
		e.putNested(off, m)
	case types.Variant:
		vv, ok := v.(VariantValue)
		if !ok {
			return typeErr(t, v)
		}
		b := make([]byte, 4, 4+len(vv.Value)+len(vv.Metadata))
		le.PutUint32(b, uint32(len(vv.Value)))
		b = append(append(b, vv.Value...), vv.Metadata...)
		e.putNested(off, b)
	default:
		return fmt.Errorf("binrow: unsupported type %s", t)
	}
	return nil
}

func (e *encoder) putNested(off int, b []byte) {
	c := e.putVar(b, 0)
	binary.LittleEndian.PutUint64(e.buf[off:], uint64(c)<<32|uint64(len(b)))
}

func typeErr(t types.DataType, v any) error {
	return fmt.Errorf("binrow: cannot encode %T as %s", v, t)
}

func toInt64(t types.DataType, v any) (int64, error) {
	var n int64
	switch x := v.(type) {
	case int64:
		n = x
	case int:
		n = int64(x)
	case int32:
		n = int64(x)
	case int16:
		n = int64(x)
	case int8:
		n = int64(x)
	case uint8:
		n = int64(x)
	case uint16:
		n = int64(x)
	case uint32:
		n = int64(x)
	default:
		return 0, typeErr(t, v)
	}
	var lo, hi int64
	switch t.Root {
	case types.TinyInt:
		lo, hi = math.MinInt8, math.MaxInt8
	case types.SmallInt:
		lo, hi = math.MinInt16, math.MaxInt16
	case types.BigInt:
		return n, nil
	default:
		lo, hi = math.MinInt32, math.MaxInt32
	}
	if n < lo || n > hi {
		return 0, fmt.Errorf("value %d out of range for %s", n, t)
	}
	return n, nil
}

func toFloat(t types.DataType, v any) (float64, error) {
	switch x := v.(type) {
	case float64:
		return x, nil
	case float32:
		return float64(x), nil
	}
	return 0, typeErr(t, v)
}

func toUnscaled(t types.DataType, v any) (*big.Int, error) {
	d, ok := v.(predicate.Decimal)
	if !ok {
		if p, ok2 := v.(*predicate.Decimal); ok2 && p != nil {
			d, ok = *p, true
		}
	}
	if !ok {
		return nil, typeErr(t, v)
	}
	u := d.Unscaled
	if u == nil {
		u = new(big.Int)
	}
	switch {
	case d.Scale == t.Scale:
		return u, nil
	case d.Scale < t.Scale:
		f := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(t.Scale-d.Scale)), nil)
		return new(big.Int).Mul(u, f), nil
	default:
		f := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(d.Scale-t.Scale)), nil)
		q, r := new(big.Int).QuoRem(u, f, new(big.Int))
		if r.Sign() != 0 {
			return nil, fmt.Errorf("decimal %s has more than %d fraction digits", d, t.Scale)
		}
		return q, nil
	}
}

func toTimestamp(t types.DataType, v any) (predicate.Timestamp, error) {
	switch x := v.(type) {
	case predicate.Timestamp:
		if x.NanoOfMilli < 0 || x.NanoOfMilli > 999_999 {
			return x, fmt.Errorf("nano-of-millisecond %d out of range", x.NanoOfMilli)
		}
		return x, nil
	case time.Time:
		// TIMESTAMP: the wall clock read as UTC; UnixMilli floors.
		// For TIMESTAMP_LTZ the instant is stored.
		wall := time.Date(x.Year(), x.Month(), x.Day(), x.Hour(), x.Minute(), x.Second(), x.Nanosecond(), time.UTC)
		if t.Root == types.TimestampLTZ {
			wall = x.UTC()
		}
		return predicate.Timestamp{Millis: wall.UnixMilli(), NanoOfMilli: int32(wall.Nanosecond() % 1_000_000)}, nil
	}
	return predicate.Timestamp{}, typeErr(t, v)
}

func toMapValue(t types.DataType, v any) (MapValue, error) {
	switch x := v.(type) {
	case MapValue:
		if len(x.Keys) != len(x.Values) {
			return x, fmt.Errorf("map with %d keys and %d values", len(x.Keys), len(x.Values))
		}
		return x, nil
	case *MapValue:
		if x != nil {
			return toMapValue(t, *x)
		}
	case []any:
		if t.Root == types.Multiset {
			// Count duplicates, keeping first-seen order.
			var mv MapValue
			idx := map[any]int{}
			for _, e := range x {
				key := e
				if b, ok := e.([]byte); ok {
					key = string(b)
				}
				if !comparable(key) {
					return mv, fmt.Errorf("multiset element %T is not comparable; pass a MapValue", e)
				}
				if i, ok := idx[key]; ok {
					mv.Values[i] = mv.Values[i].(int64) + 1
					continue
				}
				idx[key] = len(mv.Keys)
				mv.Keys = append(mv.Keys, e)
				mv.Values = append(mv.Values, int64(1))
			}
			return mv, nil
		}
	}
	return MapValue{}, typeErr(t, v)
}

func comparable(v any) bool {
	switch v.(type) {
	case nil, bool, int64, int, int32, float64, float32, string, predicate.Timestamp:
		return true
	}
	return false
}

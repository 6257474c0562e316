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

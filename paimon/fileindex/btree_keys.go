package fileindex

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/big"

	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// BTree global index keys, as Java's org.apache.paimon.globalindex.
// KeySerializer writes them. Fixed-width integers go through
// MemorySliceOutput (native order: little endian on every platform Paimon
// runs on; verified on the INT keys of the Java fixture):
//
//	BOOLEAN            1 byte, 1 = true, 0 = false
//	TINYINT            1 byte (two's complement)
//	SMALLINT           2 bytes LE
//	INT, DATE, TIME    4 bytes LE (days / millis of day for DATE / TIME)
//	BIGINT             8 bytes LE
//	FLOAT              4 bytes LE of Float.floatToIntBits
//	DOUBLE             8 bytes LE of Double.doubleToLongBits
//	DECIMAL(p <= 18)   8 bytes LE of the unscaled long
//	DECIMAL(p > 18)    BigInteger.toByteArray of the unscaled value (big endian)
//	CHAR, VARCHAR      the UTF-8 bytes (no length prefix)
//	TIMESTAMP[_LTZ](p) p <= 3: 8 bytes LE millis; p > 3: 8 bytes LE millis,
//	                   then varint nano-of-milli (0..999999)
//
// Other types (BYTES, ...) cannot carry a BTree index (Java's factory
// throws). The entries are compared here with the same order Java's
// comparators use (Float.compare / Double.compare for floats, unsigned bytes
// for strings, (millis, nanos) for timestamps), and the literals are
// converted with the same rules as the file indexes (probe): a literal
// without an exact key leaves the index unused.

// kindTSNanos is a TIMESTAMP of precision > 3 as a BTree key: key.i millis,
// key.n nano-of-milli.
const kindTSNanos kind = 100

// kindBigDecimal is a DECIMAL(p > 18) as a BTree key: key.s holds
// BigInteger.toByteArray of the unscaled value (big-endian two's
// complement, minimal length), compared numerically.
const kindBigDecimal kind = 101

// btreeKind is the key kind of a BTree index on a column of type t;
// kindNone when the keys are not decoded (CHAR: the
// literal rules of a padded CHAR are not vouched for, as for file indexes).
func btreeKind(t types.DataType) kind {
	switch t.Root {
	case types.Char:
		return kindNone
	case types.Decimal:
		if t.Precision <= 18 {
			return kindInt64
		}
		if t.Precision <= 38 {
			return kindBigDecimal
		}
		return kindNone
	case types.Timestamp, types.TimestampLTZ:
		if t.Precision <= 3 {
			return kindInt64
		}
		if t.Precision <= 9 {
			return kindTSNanos
		}
		return kindNone
	}
	return bitmapKind(t)
}

// decodeBTreeKey decodes one serialized key of kind k.
func decodeBTreeKey(k kind, b []byte) (key, error) {
	le := binary.LittleEndian
	want := k.width()
	switch k {
	case kindString:
		return key{s: string(b)}, nil
	case kindBigDecimal:
		if len(b) == 0 || len(b) > 17 { // 38 digits fit in 16 bytes (+ sign)
			return key{}, fmt.Errorf("DECIMAL key of %d bytes", len(b))
		}
		return key{s: string(b)}, nil
	case kindTSNanos:
		if len(b) < 9 {
			return key{}, fmt.Errorf("TIMESTAMP key of %d bytes", len(b))
		}
		n, m := binary.Uvarint(b[8:])
		if m <= 0 || 8+m != len(b) || n > 999_999 {
			return key{}, fmt.Errorf("TIMESTAMP key: bad nano-of-milli")
		}
		return key{i: int64(le.Uint64(b)), n: int32(n)}, nil
	}
	if want == 0 || len(b) != want {
		return key{}, fmt.Errorf("key of %d bytes, want %d", len(b), want)
	}
	switch k {
	case kindBool:
		if b[0] > 1 {
			return key{}, fmt.Errorf("BOOLEAN key %d", b[0])
		}
		return key{i: int64(b[0])}, nil
	case kindInt8:
		return key{i: int64(int8(b[0]))}, nil
	case kindInt16:
		return key{i: int64(int16(le.Uint16(b)))}, nil
	case kindInt32:
		return key{i: int64(int32(le.Uint32(b)))}, nil
	case kindInt64:
		return key{i: int64(le.Uint64(b))}, nil
	case kindFloat32:
		return key{f: float64(math.Float32frombits(le.Uint32(b)))}, nil
	case kindFloat64:
		return key{f: math.Float64frombits(le.Uint64(b))}, nil
	}
	return key{}, fmt.Errorf("key kind %d not decoded", k)
}

// encodeBTreeKey is the inverse of decodeBTreeKey (Java's serialize), for
// tests and writers.
func encodeBTreeKey(k kind, v key) []byte {
	le := binary.LittleEndian
	switch k {
	case kindString, kindBigDecimal:
		return []byte(v.s)
	case kindTSNanos:
		b := le.AppendUint64(nil, uint64(v.i))
		return binary.AppendUvarint(b, uint64(v.n))
	case kindBool, kindInt8:
		return []byte{byte(v.i)}
	case kindInt16:
		return le.AppendUint16(nil, uint16(v.i))
	case kindInt32:
		return le.AppendUint32(nil, uint32(v.i))
	case kindInt64:
		return le.AppendUint64(nil, uint64(v.i))
	case kindFloat32:
		if math.IsNaN(v.f) {
			return le.AppendUint32(nil, 0x7fc00000) // Float.floatToIntBits(NaN)
		}
		return le.AppendUint32(nil, math.Float32bits(float32(v.f)))
	case kindFloat64:
		if math.IsNaN(v.f) {
			return le.AppendUint64(nil, 0x7ff8000000000000) // Double.doubleToLongBits(NaN)
		}
		return le.AppendUint64(nil, math.Float64bits(v.f))
	}
	return nil
}

// btreeCompare orders two keys of kind k (Java's comparators).
func btreeCompare(k kind, a, b key) int {
	if k == kindBigDecimal {
		return twosComplement([]byte(a.s)).Cmp(twosComplement([]byte(b.s)))
	}
	if k == kindTSNanos {
		switch {
		case a.i != b.i:
			return cmpInt(a.i, b.i)
		default:
			return cmpInt(int64(a.n), int64(b.n))
		}
	}
	return k.compare(a, b)
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// btreeProbe converts a literal to the key a row equal to it carries
// (ok false: no exact key, the index must not be used). lower widens a
// float zero for lower bounds as boundProbe does.
func btreeProbe(t types.DataType, k kind, lit predicate.Literal, lower bool) (key, bool) {
	if k == kindBigDecimal {
		d, ok := lit.(predicate.Decimal)
		if !ok || d.Scale != t.Scale || d.Unscaled == nil {
			return key{}, false
		}
		return key{s: string(toByteArray(d.Unscaled))}, true
	}
	if k != kindTSNanos {
		return boundProbe(t, k, lit, lower)
	}
	ts, ok := lit.(predicate.Timestamp)
	if !ok || ts.NanoOfMilli < 0 || ts.NanoOfMilli > 999_999 {
		return key{}, false
	}
	// A literal finer than the column's precision has no equal row value.
	unit := int32(1)
	for range 9 - t.Precision {
		unit *= 10
	}
	if ts.NanoOfMilli%unit != 0 {
		return key{}, false
	}
	return key{i: ts.Millis, n: ts.NanoOfMilli}, true
}

// btreeEqProbes are the keys equal to lit (both zeros for a float zero).
func btreeEqProbes(t types.DataType, k kind, lit predicate.Literal) ([]key, bool) {
	if k != kindTSNanos && k != kindBigDecimal {
		return eqProbes(t, k, lit)
	}
	v, ok := btreeProbe(t, k, lit, false)
	if !ok {
		return nil, false
	}
	return []key{v}, true
}

// toByteArray is Java's BigInteger.toByteArray: the minimal big-endian
// two's complement bytes (at least one).
func toByteArray(v *big.Int) []byte {
	if v.Sign() >= 0 {
		b := v.Bytes()
		if len(b) == 0 || b[0]&0x80 != 0 {
			b = append([]byte{0}, b...)
		}
		return b
	}
	// -v - 1 has the complemented bits of v.
	m := new(big.Int).Neg(v)
	m.Sub(m, big.NewInt(1))
	b := m.Bytes()
	for i := range b {
		b[i] = ^b[i]
	}
	if len(b) == 0 || b[0]&0x80 == 0 {
		b = append([]byte{0xff}, b...)
	}
	return b
}

// twosComplement decodes big-endian two's complement bytes.
func twosComplement(b []byte) *big.Int {
	v := new(big.Int).SetBytes(b)
	if len(b) > 0 && b[0]&0x80 != 0 {
		v.Sub(v, new(big.Int).Lsh(big.NewInt(1), uint(8*len(b))))
	}
	return v
}

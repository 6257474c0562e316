package fileindex

import (
	"bytes"
	"math"

	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// kind is how an index stores the values of a column type (Java's
// BitmapTypeVisitor / KeyFactory / value mappers).
type kind int

const (
	kindNone    kind = iota // type not indexable
	kindBool                // 1 byte
	kindInt8                // TINYINT
	kindInt16               // SMALLINT
	kindInt32               // INT, DATE, TIME
	kindInt64               // BIGINT, TIMESTAMP (millis for p <= 3, micros above), DECIMAL(p <= 18) unscaled
	kindFloat32             // FLOAT
	kindFloat64             // DOUBLE
	kindString              // CHAR/VARCHAR: int32 length + bytes
)

// key is one decoded index value; i holds integers and booleans (0/1), f
// floats, s strings.
type key struct {
	i int64
	f float64
	s string
	n int32 // nano-of-milli of a BTree TIMESTAMP(p > 3) key (kindTSNanos)
}

// width is the serialized size of fixed-width kinds (0 for strings).
func (k kind) width() int {
	switch k {
	case kindBool, kindInt8:
		return 1
	case kindInt16:
		return 2
	case kindInt32, kindFloat32:
		return 4
	case kindInt64, kindFloat64:
		return 8
	}
	return 0
}

// minSize is the smallest serialized key (a string's length prefix).
func (k kind) minSize() int {
	if k == kindString {
		return 4
	}
	return k.width()
}

// read decodes one key of this kind.
func (k kind) read(c *cursor, what string) key {
	switch k {
	case kindBool:
		return key{i: int64(c.u8(what) & 1)}
	case kindInt8:
		return key{i: int64(int8(c.u8(what)))}
	case kindInt16:
		return key{i: int64(c.i16(what))}
	case kindInt32:
		return key{i: int64(c.i32(what))}
	case kindInt64:
		return key{i: c.i64(what)}
	case kindFloat32:
		return key{f: float64(math.Float32frombits(uint32(c.i32(what))))}
	case kindFloat64:
		return key{f: math.Float64frombits(uint64(c.i64(what)))}
	case kindString:
		n := c.count(what+" length", 1)
		return key{s: string(c.take(n, what))}
	}
	c.fail(what, 1)
	return key{}
}

// compare orders keys as the Java comparators do (BinaryString: unsigned
// bytes; floats: Float.compare).
func (k kind) compare(a, b key) int {
	switch k {
	case kindFloat32, kindFloat64:
		return javaFloatCompare(a.f, b.f)
	case kindString:
		return bytes.Compare([]byte(a.s), []byte(b.s))
	}
	switch {
	case a.i < b.i:
		return -1
	case a.i > b.i:
		return 1
	}
	return 0
}

// mapKey is a comparable form of a key for hash lookups with Java's
// equals semantics (floats by canonical bits: -0.0 ≠ 0.0, NaN = NaN).
func (k kind) mapKey(v key) key {
	switch k {
	case kindFloat32, kindFloat64:
		return key{i: canonicalBits(v.f)}
	}
	return v
}

// bitmapKind is the value kind of the bitmap index for t (BitmapTypeVisitor);
// kindNone for types it does not index.
func bitmapKind(t types.DataType) kind {
	switch t.Root {
	case types.Char, types.VarChar:
		return kindString
	case types.Boolean:
		return kindBool
	case types.TinyInt:
		return kindInt8
	case types.SmallInt:
		return kindInt16
	case types.Int, types.Date, types.Time:
		return kindInt32
	case types.BigInt, types.Timestamp, types.TimestampLTZ:
		return kindInt64
	case types.Float:
		return kindFloat32
	case types.Double:
		return kindFloat64
	}
	return kindNone
}

// rangeKind is the key kind of the range-bitmap index for t (KeyFactory).
func rangeKind(t types.DataType) kind {
	switch t.Root {
	case types.Decimal:
		if t.Precision <= 18 {
			return kindInt64
		}
		return kindNone
	case types.Timestamp, types.TimestampLTZ:
		if t.Precision <= 6 {
			return kindInt64
		}
		return kindNone
	}
	return bitmapKind(t)
}

// probe converts a predicate literal of column type t to the index key of
// kind k that a row equal to it carries. ok is false when the literal has no
// exact key (a fraction the column cannot hold, an out-of-range integer, a
// NaN, a precision the key drops): the caller then must not use the index.
// Float zero is returned as +0.0; callers that look up equality also probe
// -0.0 (SQL equates them, the index does not).
func probe(t types.DataType, k kind, lit predicate.Literal) (key, bool) {
	switch k {
	case kindBool:
		b, ok := lit.(bool)
		if !ok {
			return key{}, false
		}
		if b {
			return key{i: 1}, true
		}
		return key{}, true
	case kindInt8, kindInt16, kindInt32, kindInt64:
		return intProbe(t, k, lit)
	case kindFloat32, kindFloat64:
		f, ok := lit.(float64)
		if !ok || math.IsNaN(f) {
			return key{}, false
		}
		if k == kindFloat32 && float64(float32(f)) != f {
			return key{}, false
		}
		if f == 0 {
			f = 0 // +0.0
		}
		return key{f: f}, true
	case kindString:
		if t.Root != types.VarChar { // CHAR padding rules: not vouched for
			return key{}, false
		}
		s, ok := lit.(string)
		return key{s: s}, ok
	}
	return key{}, false
}

func intProbe(t types.DataType, k kind, lit predicate.Literal) (key, bool) {
	var v int64
	switch t.Root {
	case types.Timestamp, types.TimestampLTZ:
		ts, ok := lit.(predicate.Timestamp)
		if !ok || t.Precision > 6 {
			return key{}, false
		}
		if t.Precision <= 3 {
			if ts.NanoOfMilli != 0 {
				return key{}, false
			}
			return key{i: ts.Millis}, true
		}
		if ts.NanoOfMilli%1000 != 0 || ts.Millis > math.MaxInt64/1000 || ts.Millis < math.MinInt64/1000 {
			return key{}, false
		}
		return key{i: ts.Millis*1000 + int64(ts.NanoOfMilli/1000)}, true
	case types.Decimal:
		d, ok := lit.(predicate.Decimal)
		if !ok || t.Precision > 18 || d.Scale != t.Scale || d.Unscaled == nil || !d.Unscaled.IsInt64() {
			return key{}, false
		}
		return key{i: d.Unscaled.Int64()}, true
	default:
		i, ok := lit.(int64)
		if !ok {
			return key{}, false
		}
		v = i
	}
	var lo, hi int64
	switch k {
	case kindInt8:
		lo, hi = math.MinInt8, math.MaxInt8
	case kindInt16:
		lo, hi = math.MinInt16, math.MaxInt16
	case kindInt32:
		lo, hi = math.MinInt32, math.MaxInt32
	default:
		lo, hi = math.MinInt64, math.MaxInt64
	}
	if v < lo || v > hi {
		return key{}, false
	}
	return key{i: v}, true
}

// isFloat reports whether k holds floating-point keys.
func (k kind) isFloat() bool { return k == kindFloat32 || k == kindFloat64 }

// eqProbes are the keys whose rows equal lit: one key, or both zeros for a
// float zero.
func eqProbes(t types.DataType, k kind, lit predicate.Literal) ([]key, bool) {
	v, ok := probe(t, k, lit)
	if !ok {
		return nil, false
	}
	if k.isFloat() && v.f == 0 {
		return []key{{f: 0}, {f: math.Copysign(0, -1)}}, true
	}
	return []key{v}, true
}

// boundProbe converts the literal of a range comparison to a key, widening a
// float zero so that both zeros fall on the matching side in Java's order
// (-0.0 < 0.0): upper bounds (<, <=) use +0.0, lower bounds (>, >=) -0.0.
func boundProbe(t types.DataType, k kind, lit predicate.Literal, lower bool) (key, bool) {
	v, ok := probe(t, k, lit)
	if ok && k.isFloat() && v.f == 0 && lower {
		v.f = math.Copysign(0, -1)
	}
	return v, ok
}

// prefixProbe returns the prefix of a STARTS WITH leaf on a VARCHAR column
// (byte prefix, as the filter evaluates it).
func prefixProbe(t types.DataType, k kind, l *predicate.Leaf) (string, bool) {
	if k != kindString || t.Root != types.VarChar || len(l.Literals) != 1 {
		return "", false
	}
	s, ok := l.Literals[0].(string)
	return s, ok
}

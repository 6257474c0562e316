package binrow

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
	"time"

	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

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

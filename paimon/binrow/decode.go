package binrow

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/big"

	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

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

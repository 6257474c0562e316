package binrow

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// arrayElemSize is the fixed element width of a BinaryArray of t.
func arrayElemSize(t types.DataType) int {
	switch t.Root {
	case types.Boolean, types.TinyInt:
		return 1
	case types.SmallInt:
		return 2
	case types.Int, types.Float, types.Date, types.Time:
		return 4
	}
	return 8
}

// arrayHeaderSize is 4 bytes of element count plus the null bits, in 4-byte words.
func arrayHeaderSize(n int) int { return 4 + ((n+31)/32)*4 }

// EncodeArray encodes values as a BinaryArray of elem (as used for
// ARRAY columns and the key/value halves of BinaryMap).
func EncodeArray(elem types.DataType, values []any) ([]byte, error) {
	return encodeArray(elem, values, 0)
}

// DecodeArray decodes a BinaryArray of elem.
func DecodeArray(elem types.DataType, b []byte) ([]any, error) {
	return newDec(len(b)).decodeArray(b, elem, 0)
}

func encodeArray(elem types.DataType, values []any, depth int) ([]byte, error) {
	if depth > maxNesting {
		return nil, fmt.Errorf("binrow: nesting deeper than %d", maxNesting)
	}
	n := len(values)
	if n > math.MaxInt32/8 {
		return nil, fmt.Errorf("binrow: array of %d elements too large", n)
	}
	hdr := arrayHeaderSize(n)
	es := arrayElemSize(elem)
	e := &encoder{buf: make([]byte, roundUp8(hdr+es*n))}
	binary.LittleEndian.PutUint32(e.buf, uint32(n))
	for i, v := range values {
		if v == nil {
			// Java's array null setters only set the bit; the element stays zero
			// (no var space is reserved, unlike rows).
			e.buf[4+i>>3] |= 1 << (uint(i) & 7)
			continue
		}
		if err := e.encodeValue(hdr+es*i, es, elem, v, depth); err != nil {
			return nil, fmt.Errorf("element %d (%s): %w", i, elem, err)
		}
	}
	return e.buf, nil
}

func (d *dec) decodeArray(b []byte, elem types.DataType, depth int) ([]any, error) {
	if depth > maxNesting {
		return nil, fmt.Errorf("%w: nesting deeper than %d", ErrCorrupt, maxNesting)
	}
	if len(b) < 4 {
		return nil, fmt.Errorf("%w: array of %d bytes has no length word", ErrCorrupt, len(b))
	}
	n := int64(int32(binary.LittleEndian.Uint32(b)))
	es := int64(arrayElemSize(elem))
	if n < 0 {
		return nil, fmt.Errorf("%w: negative array length %d", ErrCorrupt, n)
	}
	hdr := 4 + ((n+31)/32)*4
	if hdr+es*n > int64(len(b)) {
		return nil, fmt.Errorf("%w: array of %d elements needs %d bytes, have %d", ErrCorrupt, n, hdr+es*n, len(b))
	}
	if err := d.spend(int(n)); err != nil {
		return nil, err
	}
	out := make([]any, n)
	for i := range int(n) {
		if b[4+i>>3]&(1<<(uint(i)&7)) != 0 {
			continue
		}
		off := int(hdr) + int(es)*i
		v, err := d.decodeSlot(b, off, elem, depth)
		if err != nil {
			return nil, fmt.Errorf("element %d: %w", i, err)
		}
		out[i] = v
	}
	return out, nil
}

// EncodeMap encodes a BinaryMap: int32 LE byte size of the key array, the
// key BinaryArray, then the value BinaryArray.
func EncodeMap(key, value types.DataType, m MapValue) ([]byte, error) {
	return encodeMap(key, value, m, 0)
}

// DecodeMap decodes a BinaryMap.
func DecodeMap(key, value types.DataType, b []byte) (MapValue, error) {
	return newDec(len(b)).decodeMap(b, key, value, 0)
}

func encodeMap(kt, vt types.DataType, m MapValue, depth int) ([]byte, error) {
	if len(m.Keys) != len(m.Values) {
		return nil, fmt.Errorf("binrow: map with %d keys and %d values", len(m.Keys), len(m.Values))
	}
	ka, err := encodeArray(kt, m.Keys, depth)
	if err != nil {
		return nil, fmt.Errorf("map keys: %w", err)
	}
	va, err := encodeArray(vt, m.Values, depth)
	if err != nil {
		return nil, fmt.Errorf("map values: %w", err)
	}
	out := make([]byte, 4, 4+len(ka)+len(va))
	binary.LittleEndian.PutUint32(out, uint32(len(ka)))
	return append(append(out, ka...), va...), nil
}

func (d *dec) decodeMap(b []byte, kt, vt types.DataType, depth int) (MapValue, error) {
	if len(b) < 4 {
		return MapValue{}, fmt.Errorf("%w: map of %d bytes", ErrCorrupt, len(b))
	}
	kn := uint64(binary.LittleEndian.Uint32(b))
	if kn > uint64(len(b)-4) {
		return MapValue{}, fmt.Errorf("%w: map key array of %d bytes beyond %d", ErrCorrupt, kn, len(b)-4)
	}
	keys, err := d.decodeArray(b[4:4+kn], kt, depth)
	if err != nil {
		return MapValue{}, fmt.Errorf("map keys: %w", err)
	}
	vals, err := d.decodeArray(b[4+kn:], vt, depth)
	if err != nil {
		return MapValue{}, fmt.Errorf("map values: %w", err)
	}
	if len(keys) != len(vals) {
		return MapValue{}, fmt.Errorf("%w: map with %d keys and %d values", ErrCorrupt, len(keys), len(vals))
	}
	return MapValue{Keys: keys, Values: vals}, nil
}

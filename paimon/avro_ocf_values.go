package paimon

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/hamba/avro/v2"
)

// errShort is returned when a value runs past the end of its buffer.
var errShort = errors.New("unexpected end of data")

type avroReader struct {
	b   []byte
	pos int
	// budget bounds the number of values decoded (values of type null take
	// no bytes, so the input size alone does not bound the work).
	budget int
	// names caches the field-name index of each record schema.
	names map[*avro.RecordSchema]map[string]int
	// skipPartition, when set, is asked about the _PARTITION field of each
	// top-level record; true skips the rest of the record without decoding
	// it (the record then decodes to a skippedRecord).
	skipPartition func(partition []byte) bool
}

// skippedRecord stands for a top-level record whose partition was pruned
// while decoding; kind is its _KIND when that field came first (else -1).
type skippedRecord struct{ kind int32 }

func newAvroReader(b []byte, names map[*avro.RecordSchema]map[string]int) avroReader {
	return avroReader{b: b, budget: 4*len(b) + 1<<16, names: names}
}

// avroRecord is a decoded record: values in writer-schema field order plus a
// shared name index (cheaper than a map per record).
type avroRecord struct {
	names map[string]int
	vals  []any
}

func (r *avroRecord) get(name string) (any, bool) {
	i, ok := r.names[name]
	if !ok {
		return nil, false
	}
	return r.vals[i], true
}

func (r *avroReader) remaining() int { return len(r.b) - r.pos }

func (r *avroReader) long() (int64, error) {
	var v uint64
	var shift uint
	for i := 0; ; i++ {
		if r.pos >= len(r.b) {
			return 0, errShort
		}
		if i >= 10 {
			return 0, errors.New("varint too long")
		}
		c := r.b[r.pos]
		r.pos++
		v |= uint64(c&0x7f) << shift
		if c < 0x80 {
			break
		}
		shift += 7
	}
	return int64(v>>1) ^ -int64(v&1), nil
}

func (r *avroReader) int() (int32, error) {
	v, err := r.long()
	if err != nil {
		return 0, err
	}
	if v < math.MinInt32 || v > math.MaxInt32 {
		return 0, fmt.Errorf("int value %d out of range", v)
	}
	return int32(v), nil
}

func (r *avroReader) fixed(n int) ([]byte, error) {
	if n < 0 || n > r.remaining() {
		return nil, errShort
	}
	b := r.b[r.pos : r.pos+n : r.pos+n]
	r.pos += n
	return b, nil
}

// bytes reads a length-prefixed byte string (a sub-slice, not a copy).
func (r *avroReader) bytes() ([]byte, error) {
	n, err := r.long()
	if err != nil {
		return nil, err
	}
	if n < 0 || n > int64(r.remaining()) {
		return nil, fmt.Errorf("bytes length %d exceeds the %d remaining bytes", n, r.remaining())
	}
	return r.fixed(int(n))
}

// decodeValue decodes one value of schema s.
func (r *avroReader) decodeValue(s avro.Schema, depth int) (any, error) {
	if depth > 64 {
		return nil, errors.New("schema nesting too deep")
	}
	r.budget--
	if r.budget < 0 {
		return nil, errors.New("too many values for the size of the data")
	}
	switch s := s.(type) {
	case *avro.RefSchema:
		return r.decodeValue(s.Schema(), depth+1)
	case *avro.NullSchema:
		return nil, nil
	case *avro.PrimitiveSchema:
		switch s.Type() {
		case avro.Null:
			return nil, nil
		case avro.Boolean:
			b, err := r.fixed(1)
			if err != nil {
				return nil, err
			}
			return b[0] != 0, nil
		case avro.Int:
			return r.int()
		case avro.Long:
			return r.long()
		case avro.Float:
			b, err := r.fixed(4)
			if err != nil {
				return nil, err
			}
			return math.Float32frombits(binary.LittleEndian.Uint32(b)), nil
		case avro.Double:
			b, err := r.fixed(8)
			if err != nil {
				return nil, err
			}
			return math.Float64frombits(binary.LittleEndian.Uint64(b)), nil
		case avro.Bytes:
			return r.bytes()
		case avro.String:
			b, err := r.bytes()
			if err != nil {
				return nil, err
			}
			return string(b), nil
		}
	case *avro.RecordSchema:
		names := r.names[s]
		if names == nil {
			names = make(map[string]int, len(s.Fields()))
			for i, f := range s.Fields() {
				names[f.Name()] = i
			}
			if r.names == nil {
				r.names = map[*avro.RecordSchema]map[string]int{}
			}
			r.names[s] = names
		}
		rec := &avroRecord{names: names, vals: make([]any, len(s.Fields()))}
		fields := s.Fields()
		for i, f := range fields {
			v, err := r.decodeValue(f.Type(), depth+1)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", f.Name(), err)
			}
			rec.vals[i] = v
			if r.skipPartition != nil && depth <= 2 && f.Name() == "_PARTITION" {
				if b, ok := v.([]byte); ok && r.skipPartition(b) {
					for _, rest := range fields[i+1:] {
						if err := r.skipValue(rest.Type(), depth+1); err != nil {
							return nil, fmt.Errorf("%s: %w", rest.Name(), err)
						}
					}
					kind := int32(-1)
					if k, ok := rec.get("_KIND"); ok {
						if k32, ok := k.(int32); ok {
							kind = k32
						}
					}
					return skippedRecord{kind: kind}, nil
				}
			}
		}
		return rec, nil
	case *avro.UnionSchema:
		idx, err := r.long()
		if err != nil {
			return nil, err
		}
		types := s.Types()
		if idx < 0 || idx >= int64(len(types)) {
			return nil, fmt.Errorf("union index %d out of range", idx)
		}
		return r.decodeValue(types[idx], depth+1)
	case *avro.ArraySchema:
		var out []any
		err := r.blocks(s.Items(), func() error {
			v, err := r.decodeValue(s.Items(), depth+1)
			if err != nil {
				return err
			}
			out = append(out, v)
			return nil
		})
		if err != nil {
			return nil, err
		}
		if out == nil {
			out = []any{}
		}
		return out, nil
	case *avro.MapSchema:
		out := map[string]any{}
		err := r.blocks(s.Values(), func() error {
			k, err := r.bytes()
			if err != nil {
				return err
			}
			v, err := r.decodeValue(s.Values(), depth+1)
			if err != nil {
				return err
			}
			out[string(k)] = v
			return nil
		})
		return out, err
	case *avro.EnumSchema:
		i, err := r.int()
		if err != nil {
			return nil, err
		}
		sym, ok := s.Symbol(int(i))
		if !ok {
			return nil, fmt.Errorf("enum index %d out of range", i)
		}
		return sym, nil
	case *avro.FixedSchema:
		return r.fixed(s.Size())
	}
	return nil, fmt.Errorf("unsupported Avro schema %s", s.Type())
}

// blocks iterates the items of an Avro array or map encoding.
// skipValue advances past one value of schema s without materialising it.
func (r *avroReader) skipValue(s avro.Schema, depth int) error {
	if depth > 64 {
		return errors.New("schema nesting too deep")
	}
	r.budget--
	if r.budget < 0 {
		return errors.New("too many values for the size of the data")
	}
	switch s := s.(type) {
	case *avro.RefSchema:
		return r.skipValue(s.Schema(), depth+1)
	case *avro.NullSchema:
		return nil
	case *avro.PrimitiveSchema:
		var err error
		switch s.Type() {
		case avro.Null:
		case avro.Boolean:
			_, err = r.fixed(1)
		case avro.Int, avro.Long:
			_, err = r.long()
		case avro.Float:
			_, err = r.fixed(4)
		case avro.Double:
			_, err = r.fixed(8)
		case avro.Bytes, avro.String:
			_, err = r.bytes()
		default:
			err = fmt.Errorf("unsupported Avro type %s", s.Type())
		}
		return err
	case *avro.RecordSchema:
		for _, f := range s.Fields() {
			if err := r.skipValue(f.Type(), depth+1); err != nil {
				return fmt.Errorf("%s: %w", f.Name(), err)
			}
		}
		return nil
	case *avro.UnionSchema:
		idx, err := r.long()
		if err != nil {
			return err
		}
		types := s.Types()
		if idx < 0 || idx >= int64(len(types)) {
			return fmt.Errorf("union index %d out of range", idx)
		}
		return r.skipValue(types[idx], depth+1)
	case *avro.ArraySchema:
		return r.blocks(s.Items(), func() error { return r.skipValue(s.Items(), depth+1) })
	case *avro.MapSchema:
		return r.blocks(s.Values(), func() error {
			if _, err := r.bytes(); err != nil {
				return err
			}
			return r.skipValue(s.Values(), depth+1)
		})
	case *avro.EnumSchema:
		_, err := r.int()
		return err
	case *avro.FixedSchema:
		_, err := r.fixed(s.Size())
		return err
	}
	return fmt.Errorf("unsupported Avro schema %s", s.Type())
}

func (r *avroReader) blocks(item avro.Schema, fn func() error) error {
	zeroSize := canBeEmpty(item, 0)
	total := int64(0)
	for {
		n, err := r.long()
		if err != nil {
			return err
		}
		if n == 0 {
			return nil
		}
		if n < 0 {
			if n == math.MinInt64 {
				return errors.New("invalid block count")
			}
			n = -n
			if _, err := r.long(); err != nil { // block size in bytes
				return err
			}
		}
		total += n
		// Every item takes at least one byte unless the item type can be empty;
		// items that can be empty are capped so a tiny input cannot loop forever.
		if (!zeroSize && n > int64(r.remaining())) || (zeroSize && total > 1<<16) {
			return fmt.Errorf("array/map block count %d exceeds the data", n)
		}
		for i := int64(0); i < n; i++ {
			if err := fn(); err != nil {
				return err
			}
		}
	}
}

// canBeEmpty reports whether a value of s can encode to zero bytes.
func canBeEmpty(s avro.Schema, depth int) bool {
	if depth > 64 {
		return true
	}
	switch s := s.(type) {
	case *avro.RefSchema:
		return canBeEmpty(s.Schema(), depth+1)
	case *avro.NullSchema:
		return true
	case *avro.PrimitiveSchema:
		return s.Type() == avro.Null
	case *avro.FixedSchema:
		return s.Size() == 0
	case *avro.RecordSchema:
		for _, f := range s.Fields() {
			if !canBeEmpty(f.Type(), depth+1) {
				return false
			}
		}
		return true
	}
	return false
}

package paimon

import (
	"bytes"
	"compress/flate"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"sync"

	"github.com/hamba/avro/v2"
	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/zstd"
)

// This file is a small, defensive Avro Object Container File reader and
// writer. Every length read from a file is checked against the bytes that are
// actually there before anything is allocated, and decompressed blocks are
// bounded, so corrupt or hostile input yields an error, never a panic or a
// huge allocation. Records are decoded generically against the WRITER schema
// embedded in the file (*avroRecord for records, unions unwrapped to the
// branch value), which lets the manifest readers match fields by name.

// maxBlockSize bounds one decompressed OCF block (Java writes ~64 KiB blocks).
const maxBlockSize = 64 << 20

var ocfMagic = []byte{'O', 'b', 'j', 1}

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

// ocfFile is a parsed container header.
type ocfFile struct {
	schema    avro.Schema
	schemaRaw []byte
	codec     string
	sync      []byte
	body      avroReader
	// skipPartition is handed to the record decoder (see avroReader).
	skipPartition func([]byte) bool
}

func parseOCF(data []byte) (*ocfFile, error) {
	if len(data) < 4 || !bytes.Equal(data[:4], ocfMagic) {
		return nil, errors.New("not an Avro object container file (bad magic)")
	}
	r := avroReader{b: data, pos: 4}
	meta := map[string][]byte{}
	for {
		n, err := r.long()
		if err != nil {
			return nil, fmt.Errorf("header: %w", err)
		}
		if n == 0 {
			break
		}
		if n < 0 {
			if n == math.MinInt64 {
				return nil, errors.New("header: invalid metadata count")
			}
			n = -n
			if _, err := r.long(); err != nil {
				return nil, fmt.Errorf("header: %w", err)
			}
		}
		if n > int64(r.remaining()) {
			return nil, fmt.Errorf("header: metadata count %d exceeds the file", n)
		}
		for i := int64(0); i < n; i++ {
			k, err := r.bytes()
			if err != nil {
				return nil, fmt.Errorf("header: %w", err)
			}
			v, err := r.bytes()
			if err != nil {
				return nil, fmt.Errorf("header: %w", err)
			}
			meta[string(k)] = v
		}
	}
	sync, err := r.fixed(16)
	if err != nil {
		return nil, fmt.Errorf("header: %w", err)
	}
	raw, ok := meta["avro.schema"]
	if !ok {
		return nil, errors.New("header: no avro.schema")
	}
	schema, err := parseAvroSchema(raw)
	if err != nil {
		return nil, fmt.Errorf("header: invalid writer schema: %w", err)
	}
	codec := string(meta["avro.codec"])
	if codec == "" {
		codec = "null"
	}
	return &ocfFile{schema: schema, schemaRaw: raw, codec: codec, sync: sync, body: avroReader{b: data, pos: r.pos}}, nil
}

// schemaCache memoises parsed writer schemas: every manifest of a table
// embeds the same schema text, and parsing it dominated planning large
// tables. Bounded so hostile files cannot grow it without limit.
var schemaCache struct {
	sync.Mutex
	m map[string]avro.Schema
}

const schemaCacheMax = 64

func parseAvroSchema(raw []byte) (avro.Schema, error) {
	schemaCache.Lock()
	s, ok := schemaCache.m[string(raw)]
	schemaCache.Unlock()
	if ok {
		return s, nil
	}
	s, err := parseAvroSchemaUncached(raw)
	if err != nil {
		return nil, err
	}
	schemaCache.Lock()
	if schemaCache.m == nil {
		schemaCache.m = map[string]avro.Schema{}
	}
	if len(schemaCache.m) < schemaCacheMax {
		schemaCache.m[string(raw)] = s
	}
	schemaCache.Unlock()
	return s, nil
}

func parseAvroSchemaUncached(raw []byte) (s avro.Schema, err error) {
	defer func() {
		if p := recover(); p != nil {
			s, err = nil, fmt.Errorf("schema parser failed: %v", p)
		}
	}()
	return avro.ParseBytesWithCache(raw, "", &avro.SchemaCache{})
}

var zstdDecoder, _ = zstd.NewReader(nil, zstd.WithDecoderMaxMemory(maxBlockSize), zstd.WithDecoderConcurrency(0))

func decompress(codec string, b []byte) ([]byte, error) {
	switch codec {
	case "null":
		return b, nil
	case "deflate":
		out, err := io.ReadAll(io.LimitReader(flate.NewReader(bytes.NewReader(b)), maxBlockSize+1))
		if err != nil {
			return nil, fmt.Errorf("deflate: %w", err)
		}
		if len(out) > maxBlockSize {
			return nil, errors.New("deflate block too large")
		}
		return out, nil
	case "snappy":
		if len(b) < 4 {
			return nil, errors.New("snappy block too short")
		}
		body, crc := b[:len(b)-4], binary.BigEndian.Uint32(b[len(b)-4:])
		n, err := s2.DecodedLen(body)
		if err != nil {
			return nil, fmt.Errorf("snappy: %w", err)
		}
		if n > maxBlockSize {
			return nil, errors.New("snappy block too large")
		}
		out, err := s2.Decode(make([]byte, n), body)
		if err != nil {
			return nil, fmt.Errorf("snappy: %w", err)
		}
		if crc32.ChecksumIEEE(out) != crc {
			return nil, errors.New("snappy block checksum mismatch")
		}
		return out, nil
	case "zstandard":
		out, err := zstdDecoder.DecodeAll(b, nil)
		if err != nil {
			return nil, fmt.Errorf("zstandard: %w", err)
		}
		return out, nil
	}
	return nil, fmt.Errorf("%w: Avro codec %q", ErrUnsupported, codec)
}

// nextBlock returns the record count and decompressed bytes of the next
// block, after checking it against the file (size, sync marker, codec);
// ok is false at the end of the file.
func (f *ocfFile) nextBlock() (count int64, data []byte, ok bool, err error) {
	r := &f.body
	if r.remaining() <= 0 {
		return 0, nil, false, nil
	}
	count, err = r.long()
	if err != nil {
		return 0, nil, false, fmt.Errorf("block header: %w", err)
	}
	size, err := r.long()
	if err != nil {
		return 0, nil, false, fmt.Errorf("block header: %w", err)
	}
	if count < 0 || size < 0 || size > int64(r.remaining()) {
		return 0, nil, false, fmt.Errorf("block of %d records and %d bytes exceeds the file (%d bytes left)", count, size, r.remaining())
	}
	comp, _ := r.fixed(int(size))
	sync, err := r.fixed(16)
	if err != nil {
		return 0, nil, false, errors.New("truncated block: missing sync marker")
	}
	if !bytes.Equal(sync, f.sync) {
		return 0, nil, false, errors.New("block sync marker mismatch")
	}
	data, err = decompress(f.codec, comp)
	if err != nil {
		return 0, nil, false, err
	}
	if count > int64(len(data)) && !canBeEmpty(f.schema, 0) {
		return 0, nil, false, fmt.Errorf("block claims %d records in %d bytes", count, len(data))
	}
	return count, data, true, nil
}

// eachBlock calls fn with the record count and decompressed bytes of every
// block of the container, in order.
func (f *ocfFile) eachBlock(fn func(count int64, data []byte) error) error {
	for {
		count, data, ok, err := f.nextBlock()
		if err != nil || !ok {
			return err
		}
		if err := fn(count, data); err != nil {
			return err
		}
	}
}

// each calls fn for every record of the container, in order.
func (f *ocfFile) each(fn func(v any) error) error {
	names := map[*avro.RecordSchema]map[string]int{}
	return f.eachBlock(func(count int64, data []byte) error {
		br := newAvroReader(data, names)
		br.skipPartition = f.skipPartition
		for i := int64(0); i < count; i++ {
			v, err := br.decodeValue(f.schema, 0)
			if err != nil {
				return fmt.Errorf("record: %w", err)
			}
			if err := fn(v); err != nil {
				return err
			}
		}
		if br.remaining() != 0 {
			return fmt.Errorf("block has %d trailing bytes", br.remaining())
		}
		return nil
	})
}

// ---- writing ----

type avroWriter struct{ buf []byte }

func (w *avroWriter) long(v int64) {
	u := uint64(v<<1) ^ uint64(v>>63)
	for u >= 0x80 {
		w.buf = append(w.buf, byte(u)|0x80)
		u >>= 7
	}
	w.buf = append(w.buf, byte(u))
}
func (w *avroWriter) int(v int32)     { w.long(int64(v)) }
func (w *avroWriter) bytes(b []byte)  { w.long(int64(len(b))); w.buf = append(w.buf, b...) }
func (w *avroWriter) string(s string) { w.long(int64(len(s))); w.buf = append(w.buf, s...) }
func (w *avroWriter) null()           { w.long(0) } // union branch 0
func (w *avroWriter) some()           { w.long(1) } // union branch 1
func (w *avroWriter) optInt(p *int32) {
	if p == nil {
		w.null()
		return
	}
	w.some()
	w.int(*p)
}
func (w *avroWriter) optLong(p *int64) {
	if p == nil {
		w.null()
		return
	}
	w.some()
	w.long(*p)
}
func (w *avroWriter) optString(p *string) {
	if p == nil {
		w.null()
		return
	}
	w.some()
	w.string(*p)
}
func (w *avroWriter) optBytes(b []byte) {
	if b == nil {
		w.null()
		return
	}
	w.some()
	w.bytes(b)
}
func (w *avroWriter) strings(ss []string) {
	if len(ss) > 0 {
		w.long(int64(len(ss)))
		for _, s := range ss {
			w.string(s)
		}
	}
	w.long(0)
}
func (w *avroWriter) optStrings(ss []string) {
	if ss == nil {
		w.null()
		return
	}
	w.some()
	w.strings(ss)
}

// ManifestCodec selects the OCF block codec for writing.
type ManifestCodec string

const (
	CodecZstandard ManifestCodec = "zstandard"
	CodecDeflate   ManifestCodec = "deflate"
	CodecSnappy    ManifestCodec = "snappy"
	CodecNull      ManifestCodec = "null"
)

// codecFor maps Paimon's manifest.compression option to an Avro codec name.
func codecFor(compression string) ManifestCodec {
	switch compression {
	case "", "zstd", "zstandard":
		return CodecZstandard
	case "none", "null", "uncompressed":
		return CodecNull
	case "deflate":
		return CodecDeflate
	case "snappy":
		return CodecSnappy
	}
	return CodecZstandard
}

// writeOCF writes a container file with the given schema JSON and records
// (each already Avro-encoded). Records are grouped into ~64 KiB blocks.
func writeOCF(schemaJSON string, codec ManifestCodec, zstdLevel int, records [][]byte) ([]byte, error) {
	var out avroWriter
	out.buf = append(out.buf, ocfMagic...)
	out.long(2)
	out.string("avro.schema")
	out.string(schemaJSON)
	out.string("avro.codec")
	out.string(string(codec))
	out.long(0)
	sync := make([]byte, 16)
	if _, err := rand.Read(sync); err != nil {
		return nil, err
	}
	out.buf = append(out.buf, sync...)
	var zenc *zstd.Encoder
	if codec == CodecZstandard {
		var err error
		zenc, err = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.EncoderLevelFromZstd(zstdLevel)),
			zstd.WithEncoderConcurrency(1), zstd.WithWindowSize(1<<20))
		if err != nil {
			return nil, err
		}
		defer zenc.Close()
	}
	flush := func(block []byte, n int) error {
		if n == 0 {
			return nil
		}
		comp, err := compress(codec, zenc, block)
		if err != nil {
			return err
		}
		out.long(int64(n))
		out.bytes(comp)
		out.buf = append(out.buf, sync...)
		return nil
	}
	var block []byte
	n := 0
	for _, rec := range records {
		block = append(block, rec...)
		n++
		if len(block) >= 64<<10 {
			if err := flush(block, n); err != nil {
				return nil, err
			}
			block, n = nil, 0
		}
	}
	if err := flush(block, n); err != nil {
		return nil, err
	}
	return out.buf, nil
}

func compress(codec ManifestCodec, zenc *zstd.Encoder, b []byte) ([]byte, error) {
	switch codec {
	case CodecNull:
		return b, nil
	case CodecDeflate:
		var buf bytes.Buffer
		w, err := flate.NewWriter(&buf, flate.DefaultCompression)
		if err != nil {
			return nil, err
		}
		w.Write(b)
		if err := w.Close(); err != nil {
			return nil, err
		}
		return buf.Bytes(), nil
	case CodecSnappy:
		out := s2.EncodeSnappy(nil, b)
		return binary.BigEndian.AppendUint32(out, crc32.ChecksumIEEE(b)), nil
	case CodecZstandard:
		return zenc.EncodeAll(b, nil), nil
	}
	return nil, fmt.Errorf("%w: Avro codec %q", ErrUnsupported, codec)
}

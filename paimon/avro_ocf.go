package paimon

import (
	"bytes"
	"compress/flate"
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

// This file (container and blocks), avro_ocf_values.go (value decoding) and
// avro_ocf_write.go (writing) form a small, defensive Avro Object Container
// File reader and writer. Every length read from a file is checked against the bytes that are
// actually there before anything is allocated, and decompressed blocks are
// bounded, so corrupt or hostile input yields an error, never a panic or a
// huge allocation. Records are decoded generically against the WRITER schema
// embedded in the file (*avroRecord for records, unions unwrapped to the
// branch value), which lets the manifest readers match fields by name.

// maxBlockSize bounds one decompressed OCF block (Java writes ~64 KiB blocks).
const maxBlockSize = 64 << 20

var ocfMagic = []byte{'O', 'b', 'j', 1}

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

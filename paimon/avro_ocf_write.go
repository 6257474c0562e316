package paimon

import (
	"bytes"
	"compress/flate"
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"hash/crc32"

	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/zstd"
)

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

package orc

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/klauspost/compress/flate"
	"github.com/klauspost/compress/snappy"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

const (
	// maxBlockSize bounds the compression block size a file may declare.
	maxBlockSize = 64 << 20
	// maxStreamBytes bounds the decompressed size of one stream or metadata
	// section, whatever the file claims.
	maxStreamBytes = 1 << 30
)

var errCorrupt = errors.New("corrupt data")

var (
	zstdOnce sync.Once
	zstdDec  *zstd.Decoder
	zstdErr  error
)

func zstdDecoder() (*zstd.Decoder, error) {
	zstdOnce.Do(func() {
		zstdDec, zstdErr = zstd.NewReader(nil,
			zstd.WithDecoderConcurrency(0),
			zstd.WithDecoderMaxMemory(maxBlockSize),
			zstd.WithDecoderMaxWindow(maxBlockSize))
	})
	return zstdDec, zstdErr
}

// codec decompresses ORC streams: a sequence of chunks, each with a 3-byte
// little-endian header holding (length<<1 | isOriginal).
type codec struct {
	kind      CompressionKind
	blockSize int
	scratch   []byte
}

func newCodec(kind CompressionKind, blockSize uint64) (*codec, error) {
	switch kind {
	case CompressionNone, CompressionZlib, CompressionSnappy, CompressionLZ4, CompressionZstd:
	default:
		return nil, fmt.Errorf("unsupported compression %v", kind)
	}
	if kind != CompressionNone && (blockSize == 0 || blockSize > maxBlockSize) {
		return nil, fmt.Errorf("%w: compression block size %d out of range", errCorrupt, blockSize)
	}
	return &codec{kind: kind, blockSize: int(blockSize)}, nil
}

// decode returns the decompressed content of a whole stream. With no
// compression the input is returned as is.
func (c *codec) decode(src []byte) ([]byte, error) {
	if c.kind == CompressionNone {
		return src, nil
	}
	var out []byte
	for len(src) > 0 {
		if len(src) < 3 {
			return nil, fmt.Errorf("%w: truncated compression chunk header", errCorrupt)
		}
		h := int(src[0]) | int(src[1])<<8 | int(src[2])<<16
		src = src[3:]
		n := h >> 1
		if n > len(src) {
			return nil, fmt.Errorf("%w: compression chunk of %d bytes exceeds remaining %d", errCorrupt, n, len(src))
		}
		chunk := src[:n]
		src = src[n:]
		if h&1 == 1 {
			if len(out)+n > maxStreamBytes {
				return nil, fmt.Errorf("%w: stream exceeds %d bytes", errCorrupt, maxStreamBytes)
			}
			if out == nil && len(src) == 0 {
				return chunk, nil // single original chunk: no copy
			}
			out = append(out, chunk...)
			continue
		}
		var err error
		out, err = c.decodeChunk(out, chunk)
		if err != nil {
			return nil, fmt.Errorf("%v chunk: %w", c.kind, err)
		}
		if len(out) > maxStreamBytes {
			return nil, fmt.Errorf("%w: stream exceeds %d bytes", errCorrupt, maxStreamBytes)
		}
	}
	return out, nil
}

// decodeChunk appends the decompressed chunk to dst; a chunk never expands
// beyond the block size.
func (c *codec) decodeChunk(dst, chunk []byte) ([]byte, error) {
	switch c.kind {
	case CompressionZlib:
		r := flate.NewReader(bytes.NewReader(chunk))
		defer r.Close()
		buf := bytes.NewBuffer(dst)
		n, err := io.Copy(buf, io.LimitReader(r, int64(c.blockSize)+1))
		if err != nil {
			return nil, err
		}
		if n > int64(c.blockSize) {
			return nil, fmt.Errorf("%w: chunk expands beyond block size %d", errCorrupt, c.blockSize)
		}
		return buf.Bytes(), nil
	case CompressionSnappy:
		n, err := snappy.DecodedLen(chunk)
		if err != nil {
			return nil, err
		}
		if n > c.blockSize {
			return nil, fmt.Errorf("%w: chunk expands to %d bytes, beyond block size %d", errCorrupt, n, c.blockSize)
		}
		if n > 64*len(chunk)+64 {
			// A snappy element of at most 3 bytes yields at most 64 bytes.
			return nil, fmt.Errorf("%w: %d-byte chunk claims %d decoded bytes", errCorrupt, len(chunk), n)
		}
		dst = grow(dst, n)
		got, err := snappy.Decode(dst[len(dst):len(dst)+n], chunk)
		if err != nil {
			return nil, err
		}
		return dst[:len(dst)+len(got)], nil
	case CompressionLZ4:
		// An LZ4 sequence expands at most 255-fold; size the output by
		// that rather than by the declared block size.
		limit := min(c.blockSize, 255*len(chunk)+16)
		dst = grow(dst, limit)
		n, err := lz4.UncompressBlock(chunk, dst[len(dst):len(dst)+limit])
		if err != nil {
			return nil, err
		}
		return dst[:len(dst)+n], nil
	case CompressionZstd:
		d, err := zstdDecoder()
		if err != nil {
			return nil, err
		}
		start := len(dst)
		out, err := d.DecodeAll(chunk, dst)
		if err != nil {
			return nil, err
		}
		if len(out)-start > c.blockSize {
			return nil, fmt.Errorf("%w: chunk expands beyond block size %d", errCorrupt, c.blockSize)
		}
		return out, nil
	}
	return nil, fmt.Errorf("unsupported compression %v", c.kind)
}

// grow makes room for n more bytes after len(b).
func grow(b []byte, n int) []byte {
	if cap(b)-len(b) >= n {
		return b
	}
	nb := make([]byte, len(b), len(b)+n+len(b)/2)
	copy(nb, b)
	return nb
}

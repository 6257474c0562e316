package orc

import (
	"bytes"
	"errors"
	"testing"

	"github.com/klauspost/compress/flate"
	"github.com/klauspost/compress/snappy"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

func chunkHeader(n int, original bool) []byte {
	v := n << 1
	if original {
		v |= 1
	}
	return []byte{byte(v), byte(v >> 8), byte(v >> 16)}
}

func compressWith(t *testing.T, kind CompressionKind, src []byte) []byte {
	t.Helper()
	switch kind {
	case CompressionZlib:
		var buf bytes.Buffer
		w, err := flate.NewWriter(&buf, flate.BestCompression)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(src)
		w.Close()
		return buf.Bytes()
	case CompressionSnappy:
		return snappy.Encode(nil, src)
	case CompressionLZ4:
		dst := make([]byte, lz4.CompressBlockBound(len(src)))
		var c lz4.Compressor
		n, err := c.CompressBlock(src, dst)
		if err != nil || n == 0 {
			t.Fatalf("lz4: %d, %v", n, err)
		}
		return dst[:n]
	case CompressionZstd:
		enc, err := zstd.NewWriter(nil)
		if err != nil {
			t.Fatal(err)
		}
		defer enc.Close()
		return enc.EncodeAll(src, nil)
	}
	t.Fatalf("no compressor for %v", kind)
	return nil
}

func TestCodecs(t *testing.T) {
	// The spec's header examples: 100,000 compressed bytes and 5 original.
	if h := chunkHeader(100000, false); !bytes.Equal(h, []byte{0x40, 0x0d, 0x03}) {
		t.Fatalf("header = % x", h)
	}
	if h := chunkHeader(5, true); !bytes.Equal(h, []byte{0x0b, 0x00, 0x00}) {
		t.Fatalf("header = % x", h)
	}
	part1 := bytes.Repeat([]byte("paimon orc chunk "), 200)
	part2 := []byte("stored as original")
	for _, kind := range []CompressionKind{CompressionZlib, CompressionSnappy, CompressionLZ4, CompressionZstd} {
		t.Run(kind.String(), func(t *testing.T) {
			c1 := compressWith(t, kind, part1)
			var stream []byte
			stream = append(stream, chunkHeader(len(c1), false)...)
			stream = append(stream, c1...)
			stream = append(stream, chunkHeader(len(part2), true)...)
			stream = append(stream, part2...)
			cd, err := newCodec(kind, 4096)
			if err != nil {
				t.Fatal(err)
			}
			got, err := cd.decode(stream)
			if err != nil {
				t.Fatal(err)
			}
			if want := append(append([]byte(nil), part1...), part2...); !bytes.Equal(got, want) {
				t.Fatalf("decoded %d bytes, want %d", len(got), len(want))
			}
			// A chunk expanding beyond the block size is rejected.
			small, _ := newCodec(kind, 1024)
			if _, err := small.decode(stream); err == nil {
				t.Error("chunk beyond block size accepted")
			}
			// Truncations are errors, not panics.
			for _, cut := range []int{1, 2, 3, 10, len(stream) - 1} {
				if _, err := cd.decode(stream[:cut]); err == nil {
					t.Errorf("stream cut at %d accepted", cut)
				}
			}
		})
	}
	none, _ := newCodec(CompressionNone, 0)
	if got, err := none.decode(part2); err != nil || !bytes.Equal(got, part2) {
		t.Errorf("NONE: %q, %v", got, err)
	}
	if _, err := newCodec(CompressionLZO, 1024); err == nil {
		t.Error("LZO accepted")
	}
	if _, err := newCodec(CompressionZstd, 1<<40); !errors.Is(err, errCorrupt) {
		t.Errorf("huge block size: err = %v", err)
	}
}

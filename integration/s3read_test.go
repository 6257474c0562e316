package integration

import (
	"bytes"
	"context"
	"io"
	"math/rand"
	"testing"

	"github.com/paimon-flightsql/paimon-flightsql/paimon/fileio"
)

// TestS3PrefetchVersitygw runs the network read path against the real
// server: the suffix-range open (size and ETag from Content-Range), tail
// reads, coalesced and split prefetches served to readers, direct reads
// around them, and the release of every block. (The fake-server tests in
// paimon/fileio/fileiotest count the requests.)
func TestS3PrefetchVersitygw(t *testing.T) {
	srv := startS3(t, "reads")
	o, err := fileio.S3OptionsFromCatalog(srv.options())
	if err != nil {
		t.Fatal(err)
	}
	o.Read = fileio.ReadPolicy{GapBytes: 64 << 10, MaxRequestBytes: 1 << 20}
	ctx := context.Background()
	s3io, err := fileio.NewS3(ctx, "s3://reads/wh", o)
	if err != nil {
		t.Fatal(err)
	}
	data := make([]byte, 5<<20+123)
	rand.New(rand.NewSource(7)).Read(data)
	if err := s3io.Overwrite(ctx, "big", data); err != nil {
		t.Fatal(err)
	}
	if err := s3io.Overwrite(ctx, "small", data[:1000]); err != nil {
		t.Fatal(err)
	}
	if err := s3io.Overwrite(ctx, "empty", nil); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"small", "empty"} {
		f, err := s3io.Open(ctx, name)
		if err != nil {
			t.Fatal(name, err)
		}
		want := data[:1000]
		if name == "empty" {
			want = nil
		}
		got := make([]byte, len(want)+10)
		n, err := f.ReadAt(got, 0)
		if f.Size() != int64(len(want)) || n != len(want) || err != io.EOF || !bytes.Equal(got[:n], want) {
			t.Fatalf("%s: size %d, read %d %v", name, f.Size(), n, err)
		}
		f.Close()
	}
	f, err := s3io.Open(ctx, "big")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if f.Size() != int64(len(data)) {
		t.Fatalf("size %d, want %d", f.Size(), len(data))
	}
	rs := []fileio.Range{{Off: 10, Len: 100 << 10}, {Off: 120 << 10, Len: 50 << 10}, {Off: 2 << 20, Len: 1500 << 10}, {Off: int64(len(data)) - 200<<10, Len: 100 << 10}}
	fileio.Prefetch(f, rs)
	// Reads straddling the announced ranges and the gaps between them.
	for _, r := range []fileio.Range{{Off: 0, Len: 300 << 10}, {Off: 2<<20 - 1000, Len: 1600 << 10}, {Off: int64(len(data)) - 250<<10, Len: 250 << 10}} {
		buf := make([]byte, r.Len)
		if _, err := f.ReadAt(buf, r.Off); err != nil && err != io.EOF {
			t.Fatalf("ReadAt %v: %v", r, err)
		}
		if !bytes.Equal(buf, data[r.Off:r.Off+r.Len]) {
			t.Fatalf("ReadAt %v: wrong bytes", r)
		}
	}
	if h := s3io.PrefetchHeld(); h != 0 {
		t.Fatalf("%d bytes held after every announced byte was read", h)
	}
}

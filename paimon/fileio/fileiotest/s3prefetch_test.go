package fileiotest_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math/rand"
	"net/http"
	"strings"
	"testing"

	"github.com/paimon-flightsql/paimon-flightsql/paimon/fileio"
)

func newFakeS3Policy(t *testing.T, pol fileio.ReadPolicy) (*fakeS3, *fileio.S3) {
	f, srv := newFakeS3(t)
	s, err := fileio.NewS3(context.Background(), "s3://bucket/wh", fileio.S3Options{
		Endpoint: srv.URL, AccessKey: "k", SecretKey: "s", PathStyle: true, MaxAttempts: 3, Read: pol,
	})
	if err != nil {
		t.Fatal(err)
	}
	return f, s
}

func randomBytes(n int) []byte {
	b := make([]byte, n)
	rand.New(rand.NewSource(int64(n))).Read(b)
	return b
}

func (f *fakeS3) gets() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, r := range f.requests {
		if strings.HasPrefix(r, "GET ") {
			n++
		}
	}
	return n
}

func (f *fakeS3) reset() {
	f.mu.Lock()
	f.requests, f.ranges = nil, nil
	f.mu.Unlock()
}

// readPieces reads r's ranges in pieces of step bytes and compares them
// with data.
func readPieces(t *testing.T, file fileio.File, data []byte, rs []fileio.Range, step int64) {
	t.Helper()
	for _, r := range rs {
		for off := r.Off; off < r.Off+r.Len; off += step {
			n := min(step, r.Off+r.Len-off)
			buf := make([]byte, n)
			if _, err := file.ReadAt(buf, off); err != nil {
				t.Fatalf("ReadAt(%d, %d): %v", off, n, err)
			}
			if !bytes.Equal(buf, data[off:off+n]) {
				t.Fatalf("ReadAt(%d, %d): wrong bytes", off, n)
			}
		}
	}
}

// Open is one GET of the tail (size, ETag and footer at once); announced
// ranges near each other become one GET; reads of announced bytes make no
// further request; the blocks are released once read.
func TestS3PrefetchCoalesces(t *testing.T) {
	f, s := newFakeS3Policy(t, fileio.ReadPolicy{GapBytes: 64 << 10, MaxRequestBytes: 1 << 20})
	ctx := context.Background()
	data := randomBytes(4 << 20)
	if err := s.Overwrite(ctx, "d/f.parquet", data); err != nil {
		t.Fatal(err)
	}
	f.reset()
	file, err := s.Open(ctx, "d/f.parquet")
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	if file.Size() != int64(len(data)) || f.gets() != 1 {
		t.Fatalf("open: size %d, %d GETs (%v)", file.Size(), f.gets(), f.requests)
	}
	// The footer (last 8 bytes, then the metadata) comes from the tail.
	readPieces(t, file, data, []fileio.Range{{Off: int64(len(data)) - 8, Len: 8}, {Off: int64(len(data)) - 5000, Len: 4992}}, 4096)
	if f.gets() != 1 {
		t.Fatalf("footer reads made requests: %v", f.requests)
	}
	// Three column chunks close together, one far away, one large.
	rs := []fileio.Range{{Off: 0, Len: 100 << 10}, {Off: 110 << 10, Len: 50 << 10}, {Off: 170 << 10, Len: 30 << 10}, {Off: 2 << 20, Len: 10 << 10}, {Off: 2200 << 10, Len: 1500 << 10}}
	f.reset()
	fileio.Prefetch(file, rs)
	readPieces(t, file, data, rs, 8<<10)
	// 1 GET for the first three, 1 for the fourth, 2 for the 1.5 MiB one (split at 1 MiB).
	if got := f.gets(); got != 4 {
		t.Fatalf("%d GETs for the announced ranges, want 4: %v", got, f.ranges)
	}
	if h := s.PrefetchHeld(); h != 0 {
		t.Fatalf("%d bytes still held after every announced byte was read", h)
	}
	// Reading them again (released) reads directly: still correct.
	f.reset()
	readPieces(t, file, data, rs[:1], 100<<10)
	if f.gets() != 1 {
		t.Fatalf("direct re-read: %v", f.ranges)
	}
	// Announced bytes inside the tail read at open cost no request.
	f.reset()
	fileio.Prefetch(file, []fileio.Range{{Off: int64(len(data)) - 10000, Len: 10000}})
	readPieces(t, file, data, []fileio.Range{{Off: int64(len(data)) - 10000, Len: 10000}}, 4096)
	if f.gets() != 0 {
		t.Fatalf("announced tail bytes were fetched: %v", f.ranges)
	}
	// A local file ignores announcements.
	fileio.Prefetch(bytes.NewReader(data), rs)
}

// Over the budget, announced ranges are read on demand, with the same bytes;
// closing a file releases its blocks.
func TestS3PrefetchBudget(t *testing.T) {
	f, s := newFakeS3Policy(t, fileio.ReadPolicy{GapBytes: 1, MaxRequestBytes: 1 << 20, BudgetBytes: 300 << 10, TailBytes: -1})
	ctx := context.Background()
	data := randomBytes(2 << 20)
	if err := s.Overwrite(ctx, "f", data); err != nil {
		t.Fatal(err)
	}
	f.reset()
	file, err := s.Open(ctx, "f")
	if err != nil {
		t.Fatal(err)
	}
	if f.gets() != 0 {
		t.Fatalf("TailBytes<0: open must be a HEAD: %v", f.requests)
	}
	get0, head0, put0, _, _ := s.RequestCounts()
	if get0 != 0 || head0 != 1 || put0 != 1 {
		t.Fatalf("request counts get %d head %d put %d, want 0 1 1", get0, head0, put0)
	}
	rs := []fileio.Range{{Off: 0, Len: 200 << 10}, {Off: 500 << 10, Len: 200 << 10}, {Off: 1 << 20, Len: 200 << 10}}
	fileio.Prefetch(file, rs)
	if h := s.PrefetchHeld(); h != 200<<10 {
		t.Fatalf("held %d, want only the first range (budget 300 KiB)", h)
	}
	readPieces(t, file, data, rs[1:], 64<<10) // on demand: 4 GETs each
	if got := f.gets(); got != 1+8 {
		t.Fatalf("%d GETs: %v", got, f.ranges)
	}
	file.Close()
	if h := s.PrefetchHeld(); h != 0 {
		t.Fatalf("%d bytes held after Close", h)
	}
}

// A failed background request is not an error by itself: the read that
// needs the bytes fetches them again and reports its own outcome. A body
// that breaks off is retried.
func TestS3PrefetchFailures(t *testing.T) {
	f, s := newFakeS3Policy(t, fileio.ReadPolicy{})
	ctx := context.Background()
	data := randomBytes(1 << 20)
	if err := s.Overwrite(ctx, "f", data); err != nil {
		t.Fatal(err)
	}
	file, err := s.Open(ctx, "f")
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	f.mu.Lock()
	f.fail = func(r *http.Request) (int, bool) {
		if r.Method == http.MethodGet && r.Header.Get("Range") == "bytes=0-99999" {
			return 500, false
		}
		return 0, false
	}
	f.mu.Unlock()
	rs := []fileio.Range{{Off: 0, Len: 100000}}
	fileio.Prefetch(file, rs)
	// The prefetch's 3 attempts fail; the direct read of the first half is
	// another range and succeeds.
	readPieces(t, file, data, []fileio.Range{{Off: 0, Len: 50000}}, 50000)
	f.mu.Lock()
	f.fail = nil
	f.breakBodies = 1
	f.mu.Unlock()
	readPieces(t, file, data, []fileio.Range{{Off: 200000, Len: 300000}}, 300000)
	if f.breakBodies != 0 {
		t.Fatal("the broken body was not served")
	}
	// The persistent failure of a direct read is reported.
	f.mu.Lock()
	f.fail = func(r *http.Request) (int, bool) {
		if r.Method == http.MethodGet {
			return 503, false
		}
		return 0, false
	}
	f.mu.Unlock()
	if _, err := file.ReadAt(make([]byte, 10), 600000); err == nil {
		t.Fatal("persistent 503: no error")
	}
}

// A cancelled query stops its reads, waiting ones included.
func TestS3ReadCancelled(t *testing.T) {
	f, s := newFakeS3Policy(t, fileio.ReadPolicy{})
	data := randomBytes(1 << 20)
	if err := s.Overwrite(context.Background(), "f", data); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	file, err := s.Open(ctx, "f")
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	cancel()
	fileio.Prefetch(file, []fileio.Range{{Off: 0, Len: 1000}})
	_, err = file.ReadAt(make([]byte, 1000), 0)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("read after cancel: %v", err)
	}
	_ = f
	_, err = file.ReadAt(make([]byte, 10), int64(len(data))-10) // the tail needs no request
	if err != nil && err != io.EOF {
		t.Fatalf("tail read: %v", err)
	}
}

// Empty objects have no satisfiable suffix range: Open falls back to HEAD.
func TestS3OpenEmpty(t *testing.T) {
	_, s := newFakeS3Policy(t, fileio.ReadPolicy{})
	ctx := context.Background()
	if err := s.Overwrite(ctx, "e", nil); err != nil {
		t.Fatal(err)
	}
	file, err := s.Open(ctx, "e")
	if err != nil || file.Size() != 0 {
		t.Fatalf("open empty: %v", err)
	}
	if _, err := file.ReadAt(make([]byte, 1), 0); err != io.EOF {
		t.Fatalf("read empty: %v", err)
	}
	file.Close()
}

func TestStoreIdentity(t *testing.T) {
	ctx := context.Background()
	mk := func(ep, root string) string {
		s, err := fileio.NewS3(ctx, root, fileio.S3Options{Endpoint: ep, AccessKey: "k", SecretKey: "s", Region: "eu-west-1"})
		if err != nil {
			t.Fatal(err)
		}
		return s.StoreIdentity()
	}
	a, b := mk("http://127.0.0.1:9000", "s3://b/wh"), mk("http://127.0.0.1:9001", "s3://b/wh")
	if a == b || a != mk("http://127.0.0.1:9000", "s3a://b/wh/") {
		t.Fatalf("identities %q %q", a, b)
	}
}

package fileio

import (
	"bytes"
	"context"
	"fmt"
	"math/rand"
	"sync/atomic"
	"testing"
)

func TestCoalesce(t *testing.T) {
	r := func(off, n int64) Range { return Range{Off: off, Len: n} }
	got := coalesce([]Range{r(100, 10), r(0, 10), r(15, 5), r(5, 10), r(200, 0), r(1000, 300)}, 10, 200)
	// 0..20 (overlaps merged), 100..110 too far; 1000..1300 split in two.
	want := []span{{r(0, 20), 20}, {r(100, 10), 10}, {r(1000, 150), 150}, {r(1150, 150), 150}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("coalesce = %v, want %v", got, want)
	}
	// Gaps are fetched but not needed.
	got = coalesce([]Range{r(0, 10), r(15, 5)}, 10, 1000)
	if fmt.Sprint(got) != fmt.Sprint([]span{{r(0, 20), 15}}) {
		t.Fatalf("gap: %v", got)
	}
}

// Announcements overlapping each other and earlier blocks fetch each byte
// once, and every block is released once its announced bytes are read.
func TestRangeCacheOverlaps(t *testing.T) {
	data := make([]byte, 1<<20)
	rand.New(rand.NewSource(1)).Read(data)
	var fetched atomic.Int64
	pool := newReadPool(ReadPolicy{GapBytes: 100, MaxRequestBytes: 1 << 20})
	c := newRangeCache(context.Background(), pool, func(ctx context.Context, off, n int64) ([]byte, error) {
		fetched.Add(n)
		return bytes.Clone(data[off : off+n]), nil
	})
	direct := func(p []byte, off int64) error { copy(p, data[off:]); return nil }
	c.prefetch([]Range{{Off: 1000, Len: 1000}}, int64(len(data)))
	c.prefetch([]Range{{Off: 500, Len: 600}, {Off: 1900, Len: 200}, {Off: 1950, Len: 100}}, int64(len(data)))
	if n := fetched.Load(); n > 0 && n != 1600 {
		// (fetches may still be running; the total is checked below)
		t.Logf("fetched so far %d", n)
	}
	buf := make([]byte, 1600)
	if err := c.readAt(context.Background(), buf, 500, direct); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf, data[500:2100]) {
		t.Fatal("wrong bytes")
	}
	if n := fetched.Load(); n != 1600 {
		t.Fatalf("fetched %d bytes for 1600 announced", n)
	}
	if h := pool.Held(); h != 0 {
		t.Fatalf("%d bytes held", h)
	}
	c.close()
}

package format

import (
	"bytes"
	"errors"
	"io"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// closableReader fails every read once closed, like a closed file handle.
type closableReader struct {
	r      io.ReaderAt
	closed atomic.Bool
	reads  atomic.Int64
}

func (c *closableReader) ReadAt(p []byte, off int64) (int, error) {
	if c.closed.Load() {
		return 0, errors.New("read of a closed handle")
	}
	c.reads.Add(1)
	return c.r.ReadAt(p, off)
}

// A second open of a cached file parses nothing and reads no footer bytes,
// reads its pages through its own handle (the handle of the open that
// parsed the footer is closed), and returns exactly what an uncached open
// returns, on the fast path and on the pqarrow path.
func TestFooterCacheReuse(t *testing.T) {
	mem := testutil.CheckedAllocator(t)
	rec := flatRecord(mem, 3000, 11)
	defer rec.Release()
	data := writeFlat(t, rec, writeVariants()[0].props)
	cache := NewFooterCache(8 << 20)
	key := FooterKey{Store: "root:/wh", Path: "f.parquet", Size: int64(len(data))}

	first := &closableReader{r: bytes.NewReader(data)}
	df1, err := OpenCached(first, key, "f.parquet", flatFields, cache)
	if err != nil {
		t.Fatal(err)
	}
	flat := append(append([]types.DataField(nil), flatFields[:nestedCol]...), flatFields[nestedCol+1:]...)
	// The first read builds the fast plan (parquet-go footer) through the first handle.
	r1 := readRecs(t, df1, ReadOptions{Fields: flat[:3], Allocator: mem, BatchSize: 700})
	r1.release()
	first.closed.Store(true)
	if s := cache.Stats(); s.Files != 1 || s.Misses != 1 || s.Hits != 0 || s.Bytes <= 0 {
		t.Fatalf("after first open: %+v", s)
	}

	second := &closableReader{r: bytes.NewReader(data)}
	df2, err := OpenCached(second, key, "f.parquet", flatFields, cache)
	if err != nil {
		t.Fatal(err)
	}
	if s := cache.Stats(); s.Hits != 1 || s.Misses != 1 {
		t.Fatalf("second open not a hit: %+v", s)
	}
	if n := second.reads.Load(); n != 0 {
		t.Fatalf("cached open read %d times", n)
	}
	ref, err := Open(bytes.NewReader(data), int64(len(data)), "f.parquet", flatFields)
	if err != nil {
		t.Fatal(err)
	}
	for _, opts := range []ReadOptions{
		{Fields: flat, Allocator: mem, BatchSize: 1000},
		{Fields: flat[3:9], Allocator: mem, RowGroups: []int{1}},
		{Fields: flatFields, Allocator: mem, BatchSize: 1000}, // nested column: pqarrow path
	} {
		got := readRecs(t, df2, opts)
		want := readRecs(t, ref, opts)
		if got.fast != want.fast {
			t.Fatalf("fast path %v, uncached %v", got.fast, want.fast)
		}
		compareResults(t, "cached", opts.Fields, got, want)
		got.release()
		want.release()
	}
	if second.reads.Load() == 0 {
		t.Fatal("the cached open read no page through its own handle")
	}
	for i := 0; i < df2.NumRowGroups(); i++ {
		g, w := df2.RowGroupStats(i, flat), ref.RowGroupStats(i, flat)
		if len(g.Columns) != len(w.Columns) || g.Rows != w.Rows {
			t.Fatalf("row group %d stats differ: %d/%d columns", i, len(g.Columns), len(w.Columns))
		}
	}

	// Another size or storage is another file.
	if df, err := OpenCached(bytes.NewReader(data), FooterKey{Store: "root:/other", Path: "f.parquet", Size: int64(len(data))}, "f.parquet", flatFields, cache); err != nil || df == nil {
		t.Fatal(err)
	}
	if s := cache.Stats(); s.Misses != 2 || s.Files != 2 {
		t.Fatalf("other storage: %+v", s)
	}
}

// The budget bounds what is held (least recently used evicted first); 0
// disables the cache; a nil store is never cached; a corrupt file is an
// error and is not cached.
func TestFooterCacheBudget(t *testing.T) {
	mem := testutil.CheckedAllocator(t)
	rec := flatRecord(mem, 200, 12)
	defer rec.Release()
	data := writeFlat(t, rec, nil)
	cache := NewFooterCache(1 << 30)
	key := func(p string) FooterKey { return FooterKey{Store: "s", Path: p, Size: int64(len(data))} }
	if _, err := OpenCached(bytes.NewReader(data), key("a.parquet"), "a.parquet", flatFields, cache); err != nil {
		t.Fatal(err)
	}
	one := cache.Stats().Bytes
	if one <= footerBaseBytes {
		t.Fatalf("entry accounted %d bytes", one)
	}
	cache.SetMaxBytes(one * 5)
	for _, p := range []string{"b.parquet", "c.parquet", "d.parquet", "e.parquet", "f.parquet", "g.parquet"} {
		if _, err := OpenCached(bytes.NewReader(data), key(p), p, flatFields, cache); err != nil {
			t.Fatal(err)
		}
		// Touch a.parquet: it stays the most recently used.
		if _, err := OpenCached(bytes.NewReader(data), key("a.parquet"), "a.parquet", flatFields, cache); err != nil {
			t.Fatal(err)
		}
	}
	s := cache.Stats()
	if s.Bytes > s.MaxBytes || s.Files != 5 || s.Evictions != 2 {
		t.Fatalf("budget not kept: %+v", s)
	}
	if cache.get(key("a.parquet")) == nil || cache.get(key("b.parquet")) != nil {
		t.Fatal("LRU order not kept")
	}
	cache.SetMaxBytes(0)
	if s := cache.Stats(); s.Files != 0 || s.Bytes != 0 {
		t.Fatalf("disabled cache holds %+v", s)
	}
	if _, err := OpenCached(bytes.NewReader(data), key("a.parquet"), "a.parquet", flatFields, cache); err != nil {
		t.Fatal(err)
	}
	if s := cache.Stats(); s.Files != 0 {
		t.Fatalf("disabled cache stored %+v", s)
	}
	cache.SetMaxBytes(1 << 30)
	if _, err := OpenCached(bytes.NewReader(data), FooterKey{Path: "a.parquet", Size: int64(len(data))}, "a.parquet", flatFields, cache); err != nil {
		t.Fatal(err)
	}
	bad := append([]byte(nil), data...)
	copy(bad[len(bad)-8:], []byte{0xff, 0xff, 0xff, 0x7f})
	if _, err := OpenCached(bytes.NewReader(bad), key("bad.parquet"), "bad.parquet", flatFields, cache); err == nil {
		t.Fatal("corrupt footer opened")
	}
	if s := cache.Stats(); s.Files != 0 {
		t.Fatalf("nil store or corrupt file cached: %+v", s)
	}
}

// The accounted size of an entry is at least what parsing the footer and
// building the fast plan allocates (a 105-column-like footer: many columns).
func TestFooterCacheAccounting(t *testing.T) {
	mem := testutil.CheckedAllocator(t)
	rec := flatRecord(mem, 5000, 13)
	defer rec.Release()
	data := writeFlat(t, rec, writeVariants()[0].props) // several row groups
	const n = 40
	held := make([]*ParquetFile, n)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := range held {
		df, err := OpenParquet(bytes.NewReader(data), int64(len(data)), "f.parquet", flatFields)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := df.fastPlan(); err != nil {
			t.Fatal(err)
		}
		held[i] = df
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	per := (int64(after.HeapAlloc) - int64(before.HeapAlloc)) / n
	acct := held[0].bytes
	t.Logf("footer %d bytes serialized, %d bytes held in memory per file, %d accounted (%.1f per serialized byte)",
		held[0].md.Size(), per, acct, float64(per)/float64(held[0].md.Size()))
	if per > acct {
		t.Fatalf("entry holds %d bytes, accounted %d", per, acct)
	}
	runtime.KeepAlive(held)
}

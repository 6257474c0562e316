package main

import (
	"context"
	"io"
	"testing"
)

// TestBuildAndScanTiny builds the lineitem table at the smallest scale,
// checks that it is reused, and runs the in-process scan cases (no DuckDB).
func TestBuildAndScanTiny(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	cfg := &config{warehouse: dir, scale: 0.0001, runs: 1, threads: 2, out: io.Discard}
	b, err := newBench(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer b.close()
	ti, err := b.wh.lineitem(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if ti.Rows != b.wh.sizes.lineitem {
		t.Fatalf("built %d rows, want %d", ti.Rows, b.wh.sizes.lineitem)
	}
	r, err := b.measure("scan", "full", "ours", func() (int64, error) { return b.scanTable(ctx, "lineitem", nil) })
	if err != nil {
		t.Fatal(err)
	}
	if r.Rows != ti.Rows || len(r.Runs) != 1 {
		t.Fatalf("scan result %+v, want %d rows in 1 run", r, ti.Rows)
	}
	// 1% of the sorted key, as the filter suite queries it.
	n, err := b.sql(ctx, "SELECT * FROM lineitem WHERE l_orderkey BETWEEN 1001 AND 1025")
	if err != nil {
		t.Fatal(err)
	}
	if n != 100 {
		t.Fatalf("sorted-key filter returned %d rows, want 100", n)
	}
	// A second warehouse handle reuses the table instead of rebuilding it.
	b2, err := newBench(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer b2.close()
	if _, err := b2.wh.lineitem(ctx); err != nil {
		t.Fatal(err)
	}
	// A different scale is refused rather than silently mixed.
	cfg3 := *cfg
	cfg3.scale = 0.0002
	b3, err := newBench(ctx, &cfg3)
	if err != nil {
		t.Fatal(err)
	}
	defer b3.close()
	if _, err := b3.wh.lineitem(ctx); err == nil {
		t.Fatal("reusing a warehouse built at another scale: no error")
	}
}

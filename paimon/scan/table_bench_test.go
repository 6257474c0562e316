package scan_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/fileio"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/scan"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/write"
)

// cpuSeconds is the user+system CPU time of this process so far.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	tv := func(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }
	return tv(ru.Utime) + tv(ru.Stime)
}

// drainScan plans and reads a whole table, returning the rows read.
func drainScan(b *testing.B, t *paimon.Table, cols []string, conc int) int64 {
	ctx := context.Background()
	s, err := scan.New(ctx, t, scan.Options{Columns: cols, Concurrency: conc})
	if err != nil {
		b.Fatal(err)
	}
	p, err := s.Plan(ctx)
	if err != nil {
		b.Fatal(err)
	}
	rd, err := s.Read(ctx, memory.DefaultAllocator, p.Splits)
	if err != nil {
		b.Fatal(err)
	}
	defer rd.Release()
	var rows int64
	for rd.Next() {
		rows += rd.RecordBatch().NumRows()
	}
	if err := rd.Err(); err != nil {
		b.Fatal(err)
	}
	return rows
}

// runScanBench times b.N drains and reports wall and CPU seconds per scan
// (CPU from getrusage: the machine is shared, so CPU-s is the steadier number).
func runScanBench(b *testing.B, t *paimon.Table, cols []string, conc int, wantRows int64) {
	drainScan(b, t, cols, conc) // warm the page cache and the pools
	b.ResetTimer()
	c0, w0 := cpuSeconds(), time.Now()
	var rows int64
	for i := 0; i < b.N; i++ {
		rows = drainScan(b, t, cols, conc)
	}
	wall, cpu := time.Since(w0).Seconds(), cpuSeconds()-c0
	b.StopTimer()
	if wantRows > 0 && rows != wantRows {
		b.Fatalf("read %d rows, want %d", rows, wantRows)
	}
	b.ReportMetric(wall/float64(b.N), "wall-s/op")
	b.ReportMetric(cpu/float64(b.N), "cpu-s/op")
	b.ReportMetric(float64(rows), "rows")
}

// BenchmarkTableScan scans a real table given by PAIMON_BENCH_TABLE (the
// table directory, e.g. the bench program's bench.db/lineitem): all columns
// and a 2-column projection, 2 splits at once. Skipped when unset (CI).
//
//	PAIMON_BENCH_TABLE=/tmp/bench-wh3/bench.db/lineitem go test ./paimon/scan/ \
//	    -run X -bench TableScan -benchtime 3x -cpuprofile cpu.out
func BenchmarkTableScan(b *testing.B) {
	dir := os.Getenv("PAIMON_BENCH_TABLE")
	if dir == "" {
		b.Skip("PAIMON_BENCH_TABLE not set")
	}
	ctx := context.Background()
	fio, err := fileio.NewLocal(dir)
	if err != nil {
		b.Fatal(err)
	}
	t, err := paimon.OpenTable(ctx, fio, ".", "")
	if err != nil {
		b.Fatal(err)
	}
	narrow := []string{"l_orderkey", "l_extendedprice"} // PAIMON_BENCH_NARROW=a,b overrides
	if c := os.Getenv("PAIMON_BENCH_NARROW"); c != "" {
		narrow = strings.Split(c, ",")
	}
	b.Run("full", func(b *testing.B) { runScanBench(b, t, nil, 2, 0) })
	b.Run("narrow", func(b *testing.B) { runScanBench(b, t, narrow, 2, 0) })
}

const dvBenchRows = 2_000_000

// BenchmarkDVScan compares a primary-key table in deletion-vector mode whose
// every 10th row was updated (so its files carry deletion vectors over 10%
// of their rows) with an append table holding the same live rows in the same
// order (one file per bucket of the DV table), so both scans decode equally
// compressible data. The tables are built under PAIMON_BENCH_DV_DIR (kept
// for the next run); skipped when unset (CI).
func BenchmarkDVScan(b *testing.B) {
	dir := os.Getenv("PAIMON_BENCH_DV_DIR")
	if dir == "" {
		b.Skip("PAIMON_BENCH_DV_DIR not set")
	}
	ctx := context.Background()
	fio, err := fileio.NewLocal(dir)
	if err != nil {
		b.Fatal(err)
	}
	open := func(name string) *paimon.Table {
		t, err := paimon.OpenTable(ctx, fio, write.TablePath("default", name), "")
		if err != nil {
			b.Fatal(err)
		}
		return t
	}
	exists := func(name string) bool {
		_, err := os.Stat(filepath.Join(dir, write.TablePath("default", name), "snapshot"))
		return err == nil
	}
	if !exists("dv") {
		wt, err := write.CreateTable(ctx, fio, "default", "dv", write.TableSpec{Fields: benchFields(), PrimaryKeys: []string{"k"},
			Options: map[string]string{"bucket": "2", "deletion-vectors.enabled": "true"}})
		if err != nil {
			b.Fatal(err)
		}
		for from := 0; from < dvBenchRows; from += dvBenchRows / 4 {
			writeBenchRows(b, ctx, wt, from, from+dvBenchRows/4, func(i int) int64 { return int64(i) })
		}
		writeBenchRows(b, ctx, wt, 0, dvBenchRows/10, func(i int) int64 { return int64(i * 10) })
	}
	dv := open("dv")
	if !exists("append_live") {
		wt, err := write.CreateTable(ctx, fio, "default", "append_live", write.TableSpec{Fields: benchFields(), Options: map[string]string{"bucket": "-1"}})
		if err != nil {
			b.Fatal(err)
		}
		s, err := scan.New(ctx, dv, scan.Options{Concurrency: 1})
		if err != nil {
			b.Fatal(err)
		}
		p, err := s.Plan(ctx)
		if err != nil {
			b.Fatal(err)
		}
		for _, sp := range p.Splits {
			rd, err := s.Read(ctx, memory.DefaultAllocator, []scan.Split{sp})
			if err != nil {
				b.Fatal(err)
			}
			w := wt.NewWriter(memory.DefaultAllocator)
			for rd.Next() {
				if err := w.Write(ctx, rd.RecordBatch()); err != nil {
					b.Fatal(err)
				}
			}
			if err := rd.Err(); err != nil {
				b.Fatal(err)
			}
			rd.Release()
			if _, err := w.Commit(ctx); err != nil {
				b.Fatal(err)
			}
		}
	}
	app := open("append_live")
	b.Run("append", func(b *testing.B) { runScanBench(b, app, nil, 2, dvBenchRows) })
	b.Run("dv", func(b *testing.B) { runScanBench(b, dv, nil, 2, dvBenchRows) })
}

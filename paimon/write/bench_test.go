package write

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/paimon/fileio"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// BenchmarkWriteLineitem measures append writes (rows/s) through the demo
// lineitem generator (generation included), 100k rows per op.
func BenchmarkWriteLineitem(b *testing.B) {
	ctx := context.Background()
	for i := 0; i < b.N; i++ {
		io, err := fileio.NewLocal(b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		if err := demoLineitem(ctx, io, memory.DefaultAllocator, 100_000, func(int64) {}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(100_000*b.N)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkBuildDemoScale1 builds the full demo warehouse at scale 1.
func BenchmarkBuildDemoScale1(b *testing.B) {
	for i := 0; i < b.N; i++ {
		start := time.Now()
		if err := BuildDemo(context.Background(), b.TempDir(), 1, nil); err != nil {
			b.Fatal(err)
		}
		b.Logf("scale 1 demo in %v", time.Since(start))
	}
}

// BenchmarkCompactDV measures deletion-vector lookup compaction: 200k keys
// at the top level, then 20k updates in level 0 compacted into DVs.
func BenchmarkCompactDV(b *testing.B) {
	ctx := context.Background()
	mem := memory.DefaultAllocator
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		io, err := fileio.NewLocal(b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		tbl, err := CreateTable(ctx, io, "default", "c", TableSpec{
			Fields:      []types.DataField{{Name: "k", Type: types.NewBigInt()}, {Name: "v", Type: types.NewString()}},
			PrimaryKeys: []string{"k"}, Options: map[string]string{"bucket": "2", "deletion-vectors.enabled": "true"}})
		if err != nil {
			b.Fatal(err)
		}
		write := func(n, step int, auto bool) {
			rows := make([][]any, 0, n)
			for k := 0; k < n; k++ {
				rows = append(rows, []any{int64(k * step), fmt.Sprintf("value-%d", k)})
			}
			rec := buildRecordB(b, mem, tbl.fields, rows)
			defer rec.Release()
			w := tbl.NewWriter(mem)
			w.AutoCompact = auto
			if err := w.Write(ctx, rec); err != nil {
				b.Fatal(err)
			}
			if _, err := w.Commit(ctx); err != nil {
				b.Fatal(err)
			}
		}
		write(200_000, 1, true)
		write(20_000, 10, false)
		b.StartTimer()
		if _, err := tbl.Compact(ctx, CompactOptions{Mem: mem}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(20_000*b.N)/b.Elapsed().Seconds(), "level0-rows/s")
}

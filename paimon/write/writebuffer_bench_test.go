package write

import (
	"context"
	"runtime"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/paimon/fileio"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// BenchmarkPKIngestWriteBuffer ingests 1M primary-key rows (4 columns) in
// 10k-row batches with a 4 mb and a 1 gb (= unbounded here) write buffer
// and reports rows/s and the peak live Go heap (sampled after a GC every
// 10 batches).
func BenchmarkPKIngestWriteBuffer(b *testing.B) {
	for _, size := range []string{"4 mb", "1 gb"} {
		b.Run(size, func(b *testing.B) {
			ctx := context.Background()
			const rows, batch = 1_000_000, 10_000
			var peak uint64
			for i := 0; i < b.N; i++ {
				io, err := fileio.NewLocal(b.TempDir())
				if err != nil {
					b.Fatal(err)
				}
				fields := []types.DataField{field("k", types.NewBigInt()), field("a", types.NewBigInt()), field("s", types.NewString()), field("d", types.NewDouble())}
				tbl, err := CreateTable(ctx, io, "default", "pk", TableSpec{Fields: fields, PrimaryKeys: []string{"k"},
					Options: map[string]string{"bucket": "1", "write-buffer-size": size}})
				if err != nil {
					b.Fatal(err)
				}
				runtime.GC()
				w := tbl.NewWriter(memory.DefaultAllocator)
				for off := 0; off < rows; off += batch {
					data := make([][]any, batch)
					for r := range data {
						k := int64((off + r) * 7919 % rows)
						data[r] = []any{k, int64(off + r), "value-string-of-some-length", float64(r)}
					}
					rec := buildRecordB(b, memory.DefaultAllocator, fields, data)
					if err := w.Write(ctx, rec); err != nil {
						b.Fatal(err)
					}
					rec.Release()
					var ms runtime.MemStats
					if off%(batch*10) == batch*9 {
						runtime.GC() // live heap, not garbage awaiting collection
						runtime.ReadMemStats(&ms)
						peak = max(peak, ms.HeapInuse)
					}
				}
				if _, err := w.Commit(ctx); err != nil {
					b.Fatal(err)
				}
				b.Logf("%s: %d flushes", size, w.Flushes)
			}
			b.ReportMetric(float64(rows*b.N)/b.Elapsed().Seconds(), "rows/s")
			b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
		})
	}
}

package planner

import (
	"context"
	"fmt"
	"hash/fnv"
	"os"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestSpillMeasureConcurrentSorts (PAIMON_SPILL_MEASURE=1, =sort, =other)
// runs 4 ORDER BYs
// at once over a 400k-row table, unlimited and under a 4 MiB query budget,
// and logs the time and the peak Go heap above the table's; the results
// must match. Then the same for a GROUP BY and a join (each with ORDER BY).
func TestSpillMeasureConcurrentSorts(t *testing.T) {
	if os.Getenv("PAIMON_SPILL_MEASURE") == "" {
		t.Skip("set PAIMON_SPILL_MEASURE=1 to measure")
	}
	e := spillEngine(t, memory.NewGoAllocator(), 400000, t.TempDir())
	sql := "SELECT id, g, d, v FROM big ORDER BY g, d DESC, id"
	run := func(opts map[string]string) (time.Duration, uint64, []string) {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		base := ms.HeapAlloc
		var peak atomic.Uint64
		stop := make(chan struct{})
		go func() {
			var m runtime.MemStats
			for {
				select {
				case <-stop:
					return
				case <-time.After(5 * time.Millisecond):
				}
				runtime.ReadMemStats(&m)
				if m.HeapAlloc > peak.Load() {
					peak.Store(m.HeapAlloc)
				}
			}
		}()
		start := time.Now()
		var wg sync.WaitGroup
		res := make([][]string, 4)
		for i := range res {
			wg.Go(func() {
				res[i] = spillQueryDigest(t, e, sql, opts)
			})
		}
		wg.Wait()
		el := time.Since(start)
		close(stop)
		for _, r := range res[1:] {
			if !slices.Equal(r, res[0]) {
				t.Error("concurrent runs differ")
			}
		}
		return el, peak.Load() - min(base, peak.Load()), res[0]
	}
	if os.Getenv("PAIMON_SPILL_MEASURE") == "sort" || os.Getenv("PAIMON_SPILL_MEASURE") == "1" {
		tu, hu, want := run(nil)
		ts, hs, got := run(map[string]string{MemoryLimitOption: "4MiB"})
		if !slices.Equal(got, want) {
			t.Fatal("spilled result differs")
		}
		t.Logf("4 concurrent ORDER BYs (digest %v): unlimited %s, peak heap +%d MiB; 4MiB budget (spilling) %s, peak heap +%d MiB",
			want, tu.Round(time.Millisecond), hu>>20, ts.Round(time.Millisecond), hs>>20)
	}
	for _, q := range []string{
		"SELECT g, count(*), sum(v), min(d) FROM big GROUP BY g ORDER BY g",
		"SELECT b.id, o.id FROM big b JOIN other o ON b.id = o.v ORDER BY b.id, o.id",
	} {
		if os.Getenv("PAIMON_SPILL_MEASURE") == "sort" {
			break
		}
		sql = q
		tu, hu, want := run(nil)
		ts, hs, got := run(map[string]string{MemoryLimitOption: "4MiB"})
		if !slices.Equal(got, want) {
			t.Fatalf("%s: spilled result differs", q)
		}
		t.Logf("4 concurrent %q: unlimited %s, peak heap +%d MiB; 4MiB budget %s, peak heap +%d MiB",
			q, tu.Round(time.Millisecond), hu>>20, ts.Round(time.Millisecond), hs>>20)
	}
}

// spillQueryDigest runs sql and returns its row count and an FNV digest of
// the rows in order (no rows kept: the heap measures the engine).
func spillQueryDigest(t *testing.T, e *Engine, sql string, opts map[string]string) []string {
	st, err := e.Prepare(context.Background(), sql, Session{Options: opts})
	if err != nil {
		t.Error(err)
		return nil
	}
	h := fnv.New64a()
	n := 0
	for p := range st.NumPartitions() {
		rdr, err := st.Execute(context.Background(), memory.NewGoAllocator(), []any{}, p)
		if err != nil {
			t.Error(err)
			return nil
		}
		for rdr.Next() {
			for _, r := range renderRows(rdr.RecordBatch()) {
				h.Write([]byte(r))
				h.Write([]byte{0})
				n++
			}
		}
		if err := rdr.Err(); err != nil {
			t.Error(err)
		}
		rdr.Release()
	}
	return []string{fmt.Sprint(n), fmt.Sprintf("%x", h.Sum64())}
}

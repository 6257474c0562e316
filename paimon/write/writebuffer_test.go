package write

import (
	"context"
	"fmt"
	"reflect"
	"sort"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/paimon/scan"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// TestWriteBufferFlushesLevel0Runs: with a small write-buffer-size a large
// primary-key ingest is flushed as several level-0 sorted runs in one
// commit; later records of a key (higher sequence numbers, in a later run)
// win when the reader merges the runs, and again after compaction.
func TestWriteBufferFlushesLevel0Runs(t *testing.T) {
	for _, opts := range []map[string]string{
		{"bucket": "2", "write-buffer-size": "8 kb"},
		{"bucket": "1", "write-buffer-size": "8 kb", "deletion-vectors.enabled": "true"},
		{"bucket": "1", "write-buffer-size": "8 kb", "merge-engine": "aggregation", "fields.v.aggregate-function": "sum", "fields.s.aggregate-function": "last_value"},
	} {
		t.Run(fmt.Sprint(opts), func(t *testing.T) {
			ctx := context.Background()
			mem := checkedMem(t)
			fields := []types.DataField{field("k", types.NewInt()), field("v", types.NewBigInt()), field("s", types.NewString())}
			tbl, err := CreateTable(ctx, newWarehouse(t), "default", "wb", TableSpec{Fields: fields, PrimaryKeys: []string{"k"}, Options: opts})
			if err != nil {
				t.Fatal(err)
			}
			agg := opts["merge-engine"] == "aggregation"
			const keys, rounds = 300, 8
			model := map[int64][2]any{}
			w := tbl.NewWriter(mem)
			for r := 0; r < rounds; r++ {
				var rows [][]any
				for k := int64(0); k < keys; k++ {
					if (k+int64(r))%3 == 0 {
						continue // not every key in every batch
					}
					v := k*10 + int64(r)
					s := fmt.Sprintf("r%d-k%d", r, k)
					rows = append(rows, []any{k, v, s})
					if agg {
						old, _ := model[k][0].(int64)
						model[k] = [2]any{old + v, s}
					} else {
						model[k] = [2]any{v, s}
					}
				}
				rec := buildRecord(t, mem, tbl.fields, rows)
				err := w.Write(ctx, rec)
				rec.Release()
				if err != nil {
					w.Abort(ctx)
					t.Fatal(err)
				}
			}
			if w.Flushes < 2 {
				t.Fatalf("write buffer flushed %d times, want several", w.Flushes)
			}
			if _, err := w.Commit(ctx); err != nil {
				t.Fatal(err)
			}
			var want []string
			for k, v := range model {
				want = append(want, fmt.Sprintf("%d|%v|%v", k, v[0], v[1]))
			}
			sort.Strings(want)
			if opts["deletion-vectors.enabled"] != "true" {
				// Several level-0 files in the APPEND snapshot.
				s, err := tbl.latestSnapshot(ctx)
				if err != nil {
					t.Fatal(err)
				}
				live, err := tbl.liveEntries(ctx, s)
				if err != nil {
					t.Fatal(err)
				}
				perBucket := map[int32]int{}
				for _, e := range live {
					if e.File.Level != 0 {
						t.Fatalf("file %s at level %d", e.File.FileName, e.File.Level)
					}
					perBucket[e.Bucket]++
				}
				for b, n := range perBucket {
					if n < 2 {
						t.Fatalf("bucket %d has %d level-0 file(s), want several runs", b, n)
					}
				}
				// Sequence numbers of the runs do not overlap per bucket.
				type rng struct{ lo, hi int64 }
				seen := map[int32][]rng{}
				for _, e := range live {
					for _, o := range seen[e.Bucket] {
						if e.File.MinSequenceNumber <= o.hi && o.lo <= e.File.MaxSequenceNumber {
							t.Fatalf("bucket %d: sequence ranges overlap", e.Bucket)
						}
					}
					seen[e.Bucket] = append(seen[e.Bucket], rng{e.File.MinSequenceNumber, e.File.MaxSequenceNumber})
				}
			}
			read := readBoth
			if agg { // the writer's own view does not merge aggregation tables
				read = func(t *testing.T, mem memory.Allocator, tbl *Table) []string {
					return readTable(t, mem, tbl, scan.Options{})
				}
			}
			if got := read(t, mem, tbl); !reflect.DeepEqual(got, want) {
				t.Fatalf("read: %d rows, want %d; first %v vs %v", len(got), len(want), head(got), head(want))
			}
			if _, err := tbl.Compact(ctx, CompactOptions{Full: true, Mem: mem}); err != nil {
				t.Fatal(err)
			}
			if got := readTable(t, mem, tbl, scan.Options{}); !reflect.DeepEqual(got, want) {
				t.Fatalf("after compaction: %v", head(got))
			}
		})
	}
}

func head(s []string) []string { return s[:min(len(s), 5)] }

// TestWriteBufferAbortRemovesFlushedFiles: files flushed before an Abort
// are deleted and no snapshot is made.
func TestWriteBufferAbortRemovesFlushedFiles(t *testing.T) {
	ctx := context.Background()
	mem := checkedMem(t)
	io := newWarehouse(t)
	fields := []types.DataField{field("k", types.NewInt()), field("v", types.NewBigInt())}
	tbl, err := CreateTable(ctx, io, "default", "wb", TableSpec{Fields: fields, PrimaryKeys: []string{"k"},
		Options: map[string]string{"bucket": "1", "write-buffer-size": "1 kb"}})
	if err != nil {
		t.Fatal(err)
	}
	w := tbl.NewWriter(mem)
	for r := 0; r < 4; r++ {
		var rows [][]any
		for k := int64(0); k < 200; k++ {
			rows = append(rows, []any{k, int64(r)})
		}
		rec := buildRecord(t, mem, tbl.fields, rows)
		if err := w.Write(ctx, rec); err != nil {
			t.Fatal(err)
		}
		rec.Release()
	}
	if w.Flushes == 0 || len(w.flushedFiles) == 0 {
		t.Fatal("nothing flushed")
	}
	files := append([]string(nil), w.flushedFiles...)
	w.Abort(ctx)
	for _, p := range files {
		if ok, _ := io.Exists(ctx, p); ok {
			t.Fatalf("flushed file %s left after Abort", p)
		}
	}
	if s, _ := tbl.latestSnapshot(ctx); s != nil {
		t.Fatal("snapshot after Abort")
	}
}

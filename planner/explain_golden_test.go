package planner

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/fileio"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/write"
)

// goldenWarehouse writes default.clicks: partitioned by day, 2 buckets on
// user, 8 commits each writing two days with user 0..9 and a value range
// [1000c, 1000c+999]. Every (day, bucket) holds one file.
func goldenWarehouse(t *testing.T, mem memory.Allocator) catalog.Catalog {
	return goldenWarehouseAt(t, mem, t.TempDir())
}

func goldenWarehouseAt(t *testing.T, mem memory.Allocator, dir string) catalog.Catalog {
	ctx := context.Background()
	fio, err := fileio.NewLocal(dir)
	if err != nil {
		t.Fatal(err)
	}
	wt, err := write.CreateTable(ctx, fio, "default", "clicks", write.TableSpec{
		Fields: []types.DataField{
			{Name: "day", Type: types.NewInt().NotNull()},
			{Name: "user", Type: types.NewBigInt()},
			{Name: "v", Type: types.NewBigInt()},
		},
		PartitionKeys: []string{"day"},
		Options:       map[string]string{"bucket": "2", "bucket-key": "user"},
	})
	if err != nil {
		t.Fatal(err)
	}
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "day", Type: arrow.PrimitiveTypes.Int32},
		{Name: "user", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "v", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	}, nil)
	for c := 0; c < 8; c++ {
		b := array.NewRecordBuilder(mem, sc)
		for d := 2 * c; d < 2*c+2; d++ {
			for u := 0; u < 10; u++ {
				b.Field(0).(*array.Int32Builder).Append(int32(d))
				b.Field(1).(*array.Int64Builder).Append(int64(u))
				b.Field(2).(*array.Int64Builder).Append(int64(1000*c + 10*d + u))
			}
		}
		rec := b.NewRecordBatch()
		b.Release()
		w := wt.NewWriter(mem)
		if err := w.Write(ctx, rec); err != nil {
			t.Fatal(err)
		}
		rec.Release()
		if _, err := w.Commit(ctx); err != nil {
			t.Fatal(err)
		}
	}
	return catalog.NewFS(fio, ".")
}

// TestExplainGolden checks EXPLAIN's pruning lines for each pruning level on
// a generated table (16 partitions × 2 buckets = 32 files in 8 manifests).
func TestExplainGolden(t *testing.T) {
	mem := testutil.CheckedAllocator(t)
	e := New(goldenWarehouse(t, mem), Options{})
	cases := []struct {
		sql  string
		want []string // lines that must appear, trimmed
	}{
		{"EXPLAIN SELECT * FROM clicks", []string{
			"manifests: 8 total, 0 pruned",
			"data files: 32 total, 0 pruned by partition, 0 by bucket, 0 by stats",
			"splits: 32",
		}},
		{"EXPLAIN SELECT * FROM clicks WHERE day = 5", []string{
			"pushed filter: day = 5",
			"manifests: 8 total, 7 pruned",
			"data files: 4 total, 2 pruned by partition, 0 by bucket, 0 by stats",
			"splits: 2",
		}},
		{"EXPLAIN SELECT * FROM clicks WHERE day BETWEEN 4 AND 7", []string{
			"manifests: 8 total, 6 pruned",
			"data files: 8 total, 0 pruned by partition, 0 by bucket, 0 by stats",
		}},
		{"EXPLAIN SELECT * FROM clicks WHERE user = 3", []string{
			"manifests: 8 total, 0 pruned",
			"data files: 32 total, 0 pruned by partition, 16 by bucket, 0 by stats",
			"splits: 16",
		}},
		{"EXPLAIN SELECT * FROM clicks WHERE v >= 3000 AND v < 4000", []string{
			"data files: 32 total, 0 pruned by partition, 0 by bucket, 28 by stats",
			"splits: 4",
		}},
		{"EXPLAIN SELECT v FROM clicks WHERE day = 9 AND user IN (1, 2) AND v > 99999", []string{
			"manifests: 8 total, 7 pruned",
			"data files: 4 total, 2 pruned by partition, 1 by bucket, 1 by stats", // users 1 and 2 share a bucket
			"splits: 0",
		}},
		{"EXPLAIN SELECT count(*) FROM clicks", []string{"Count: 160 rows from metadata (est rows=1)"}},
	}
	for _, c := range cases {
		t.Run(c.sql, func(t *testing.T) {
			rd, err := Run(context.Background(), e, c.sql, Session{}, mem)
			if err != nil {
				t.Fatal(err)
			}
			defer rd.Release()
			var lines []string
			for rd.Next() {
				col := rd.RecordBatch().Column(0).(*array.String)
				for i := 0; i < col.Len(); i++ {
					lines = append(lines, strings.TrimSpace(col.Value(i)))
				}
			}
			if err := rd.Err(); err != nil {
				t.Fatal(err)
			}
			have := map[string]bool{}
			for _, l := range lines {
				have[l] = true
			}
			for _, w := range c.want {
				if !have[w] {
					t.Errorf("missing %q in plan:\n%s", w, strings.Join(lines, "\n"))
				}
			}
		})
	}
	// EXPLAIN ANALYZE reads and reports row groups and rows.
	rd, err := Run(context.Background(), e, "EXPLAIN ANALYZE SELECT * FROM clicks WHERE day = 5", Session{}, mem)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Release()
	var all []string
	for rd.Next() {
		col := rd.RecordBatch().Column(0).(*array.String)
		for i := 0; i < col.Len(); i++ {
			all = append(all, strings.TrimSpace(col.Value(i)))
		}
	}
	text := strings.Join(all, "\n")
	if !strings.Contains(text, "row groups: 2 total, 0 skipped") || !strings.Contains(text, fmt.Sprintf("executed: %d rows", 10)) {
		t.Fatalf("EXPLAIN ANALYZE:\n%s", text)
	}
}

package scan_test

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/fileio"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/scan"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/write"
)

// A deletion-vector table reads every live row once, with the updated
// values, and ReadStats.RowsDeleted counts exactly the rows the vectors drop
// (the format readers ask for deleted positions per batch, so the count is
// added per range).
func TestDeletionVectorReadCountsDeletedRows(t *testing.T) {
	mem := testutil.CheckedAllocator(t)
	ctx := context.Background()
	fio, err := fileio.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	wt, err := write.CreateTable(ctx, fio, "default", "dv", write.TableSpec{
		Fields:      []types.DataField{{ID: 0, Name: "k", Type: types.NewBigInt().NotNull()}, {ID: 1, Name: "v", Type: types.NewBigInt()}},
		PrimaryKeys: []string{"k"},
		Options:     map[string]string{"bucket": "1", "deletion-vectors.enabled": "true"}})
	if err != nil {
		t.Fatal(err)
	}
	sc := arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int64}, {Name: "v", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil)
	commit := func(keys []int64, val func(int64) int64) {
		b := array.NewRecordBuilder(mem, sc)
		defer b.Release()
		for _, k := range keys {
			b.Field(0).(*array.Int64Builder).Append(k)
			b.Field(1).(*array.Int64Builder).Append(val(k))
		}
		rec := b.NewRecordBatch()
		defer rec.Release()
		w := wt.NewWriter(mem)
		if err := w.Write(ctx, rec); err != nil {
			t.Fatal(err)
		}
		if _, err := w.Commit(ctx); err != nil {
			t.Fatal(err)
		}
	}
	const n = 5000
	var all, updated []int64
	for k := int64(0); k < n; k++ {
		all = append(all, k)
		if k%7 == 3 {
			updated = append(updated, k)
		}
	}
	commit(all, func(k int64) int64 { return k })
	commit(updated, func(k int64) int64 { return -k })
	tbl, err := paimon.OpenTable(ctx, fio, write.TablePath("default", "dv"), "")
	if err != nil {
		t.Fatal(err)
	}
	s, err := scan.New(ctx, tbl, scan.Options{Concurrency: 2, BatchSize: 300})
	if err != nil {
		t.Fatal(err)
	}
	p, err := s.Plan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var st scan.ReadStats
	rd, err := s.ReadWithStats(ctx, mem, p.Splits, &st)
	if err != nil {
		t.Fatal(err)
	}
	seen := make([]bool, n)
	rows := 0
	for rd.Next() {
		rec := rd.RecordBatch()
		ks := rec.Column(0).(*array.Int64)
		vs := rec.Column(1).(*array.Int64)
		for i := 0; i < ks.Len(); i++ {
			k, v := ks.Value(i), vs.Value(i)
			want := k
			if k%7 == 3 {
				want = -k
			}
			if k < 0 || k >= n || seen[k] || v != want {
				t.Fatalf("row k=%d v=%d (seen before: %v), want v=%d", k, v, k >= 0 && k < n && seen[k], want)
			}
			seen[k] = true
			rows++
		}
	}
	if err := rd.Err(); err != nil {
		t.Fatal(err)
	}
	rd.Release()
	if rows != n {
		t.Fatalf("read %d rows, want %d", rows, n)
	}
	if got := st.RowsDeleted.Load(); got != int64(len(updated)) {
		t.Fatalf("RowsDeleted = %d, want %d", got, len(updated))
	}
}

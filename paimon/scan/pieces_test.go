package scan_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/fileio"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/scan"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/write"
)

// A large raw Parquet file cut into pieces (Options.SplitFileRows) is read
// exactly once in all: every row once, none lost, with row-group pruning
// and deletion vectors; the plan's row count stays exact; pieces survive
// Export/Open.
func TestFilePiecesCoverTheFileOnce(t *testing.T) {
	mem := testutil.CheckedAllocator(t)
	ctx := context.Background()
	fio, err := fileio.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	wt, err := write.CreateTable(ctx, fio, "default", "big", write.TableSpec{
		Fields:  []types.DataField{{ID: 0, Name: "k", Type: types.NewBigInt()}, {ID: 1, Name: "s", Type: types.NewString()}},
		Options: map[string]string{"deletion-vectors.enabled": "true"}})
	if err != nil {
		t.Fatal(err)
	}
	const n = 600_000 // five row groups of 131072 rows
	sc := arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int64, Nullable: true}, {Name: "s", Type: arrow.BinaryTypes.String, Nullable: true}}, nil)
	b := array.NewRecordBuilder(mem, sc)
	for k := int64(0); k < n; k++ {
		b.Field(0).(*array.Int64Builder).Append(k)
		b.Field(1).(*array.StringBuilder).Append("v")
	}
	rec := b.NewRecordBatch()
	b.Release()
	w := wt.NewWriter(mem)
	err = w.Write(ctx, rec)
	rec.Release()
	if err == nil {
		_, err = w.Commit(ctx)
	}
	if err != nil {
		t.Fatal(err)
	}
	kt := types.NewBigInt()
	leaf := func(op predicate.Op, v int64) predicate.Predicate {
		return &predicate.Leaf{Column: "k", FieldID: 0, Type: kt, Op: op, Literals: []any{v}}
	}
	// Deletion vectors on every 10th row.
	if _, err := wt.Delete(ctx, &predicate.Leaf{Column: "k", FieldID: 0, Type: kt, Op: predicate.In,
		Literals: func() []any {
			var l []any
			for k := int64(5); k < n; k += 10 {
				l = append(l, k)
			}
			return l
		}()}); err != nil {
		t.Fatal(err)
	}
	tbl, err := paimon.OpenTable(ctx, fio, write.TablePath("default", "big"), "")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		filter predicate.Predicate
		lo, hi int64
	}{
		{"all", nil, 0, n},
		{"row groups pruned", predicate.NewAnd(leaf(predicate.GtEq, 250_000), leaf(predicate.Lt, 400_000)), 250_000, 400_000},
	}
	for _, c := range cases {
		for _, rows := range []int64{0, 100_000, 30_000} {
			s, err := scan.New(ctx, tbl, scan.Options{Filter: c.filter, SplitFileRows: rows, Concurrency: 3, BatchSize: 7000})
			if err != nil {
				t.Fatal(err)
			}
			p, err := s.Plan(ctx)
			if err != nil {
				t.Fatal(err)
			}
			first := 0
			for _, sp := range p.Splits {
				if sp.FirstPiece() {
					first++
				}
			}
			if first != 1 || rows > 0 && len(p.Splits) < 2 {
				t.Fatalf("%s, %d rows a piece: %d splits, %d first pieces", c.name, rows, len(p.Splits), first)
			}
			if c.filter == nil {
				if cnt, exact := p.RowCount(nil); cnt != n-n/10 || !exact {
					t.Fatalf("%d rows a piece: RowCount %d (exact %v), want %d", rows, cnt, exact, n-n/10)
				}
			}
			// Through JSON, as tickets carry them.
			enc, err := json.Marshal(s.Export(p.Splits))
			if err != nil {
				t.Fatal(err)
			}
			var planned []scan.PlannedSplit
			if err := json.Unmarshal(enc, &planned); err != nil {
				t.Fatal(err)
			}
			splits, err := s.Open(ctx, planned)
			if err != nil {
				t.Fatal(err)
			}
			var st scan.ReadStats
			checkPieces(t, s, mem, splits, &st, c.lo, c.hi)
			if rows > 0 && c.filter != nil && st.RowGroupsSkipped.Load() == 0 {
				t.Errorf("%s: no row group skipped", c.name)
			}
			if got := st.RowGroupsTotal.Load(); got != 5 {
				t.Errorf("%s, %d rows a piece: RowGroupsTotal %d, want 5 (each row group in one piece)", c.name, rows, got)
			}
		}
	}
}

func checkPieces(t *testing.T, s *scan.Scan, mem memory.Allocator, splits []scan.Split, st *scan.ReadStats, lo, hi int64) {
	t.Helper()
	rd, err := s.ReadWithStats(context.Background(), mem, splits, st)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Release()
	seen := make([]bool, hi-lo)
	for rd.Next() {
		ks := rd.RecordBatch().Column(0).(*array.Int64)
		for i := 0; i < ks.Len(); i++ {
			k := ks.Value(i)
			if k < lo || k >= hi || seen[k-lo] || k%10 == 5 {
				t.Fatalf("row k=%d: outside [%d, %d), deleted, or read twice", k, lo, hi)
			}
			seen[k-lo] = true
		}
	}
	if err := rd.Err(); err != nil {
		t.Fatal(err)
	}
	for k, ok := range seen {
		if !ok && (lo+int64(k))%10 != 5 {
			t.Fatalf("row k=%d never read", lo+int64(k))
		}
	}
}

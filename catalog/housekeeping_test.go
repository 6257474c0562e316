package catalog

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/fileio"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/write"
)

// TestRunningScanPinsItsSnapshot: CALL sys.expire_snapshots (retain_max 1)
// does not expire the snapshot a planned or running scan reads; once the
// reader is released and the plan's pin lapses it can go.
func TestRunningScanPinsItsSnapshot(t *testing.T) {
	ctx := context.Background()
	mem := testutil.CheckedAllocator(t)
	io, err := fileio.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	wt, err := write.CreateTable(ctx, io, "default", "p", write.TableSpec{
		Fields: []types.DataField{{Name: "k", Type: types.NewBigInt()}},
	})
	if err != nil {
		t.Fatal(err)
	}
	sc := arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil)
	commit := func(v int64) {
		b := array.NewRecordBuilder(mem, sc)
		b.Field(0).(*array.Int64Builder).Append(v)
		rec := b.NewRecordBatch()
		b.Release()
		defer rec.Release()
		w := wt.NewWriter(mem)
		if err := w.Write(ctx, rec); err != nil {
			t.Fatal(err)
		}
		if _, err := w.Commit(ctx); err != nil {
			t.Fatal(err)
		}
	}
	commit(1)
	commit(2)
	cat := NewFS(io, ".")
	dt, err := cat.OpenDataTable(ctx, "default", "p", "")
	if err != nil {
		t.Fatal(err)
	}
	s, err := dt.NewScan(ctx, ScanRequest{Options: map[string]string{"scan.snapshot-id": "1"}})
	if err != nil {
		t.Fatal(err)
	}
	commit(3)
	if n, err := dt.ExpireSnapshots(ctx, ExpireRequest{RetainMax: 1}); err != nil || n != 0 {
		t.Fatalf("expired %d snapshots (%v) while snapshot 1 is planned", n, err)
	}
	rd, err := s.Read(ctx, s.Splits(), ReadOptions{Mem: mem})
	if err != nil {
		t.Fatal(err)
	}
	rows := 0
	for rd.Next() {
		rows += int(rd.RecordBatch().NumRows())
	}
	if rd.Err() != nil || rows != 1 {
		t.Fatalf("rows %d, err %v", rows, rd.Err())
	}
	rd.Release()
	// The plan's own pin (10 minutes) still holds snapshot 1.
	if n, err := dt.ExpireSnapshots(ctx, ExpireRequest{RetainMax: 1}); err != nil || n != 0 {
		t.Fatalf("expired %d (%v) within the plan's pin", n, err)
	}
}

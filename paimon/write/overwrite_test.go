package write

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/scan"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// TestOverwriteConcurrentAppend: an OVERWRITE commit deletes the files of
// its partitions as of the snapshot it lands on, so an append committed
// between the overwrite's writes and its commit is replaced in the
// overwritten partition and kept in the others (Java's
// OverwriteChangesProvider reads the latest snapshot on every attempt).
func TestOverwriteConcurrentAppend(t *testing.T) {
	ctx := context.Background()
	mem := testutil.CheckedAllocator(t)
	io := newWarehouse(t)
	fields := []types.DataField{field("id", types.NewInt()), field("dt", types.NewString())}
	tbl, err := CreateTable(ctx, io, "db", "t", TableSpec{Fields: fields, PartitionKeys: []string{"dt"}})
	if err != nil {
		t.Fatal(err)
	}
	write := func(w *Writer, rows [][]any) {
		t.Helper()
		rec := buildRecord(t, mem, fields, rows)
		defer rec.Release()
		if err := w.Write(ctx, rec); err != nil {
			t.Fatal(err)
		}
	}
	w := tbl.NewWriter(mem)
	write(w, [][]any{{int64(1), "a"}, {int64(2), "b"}})
	if _, err := w.Commit(ctx); err != nil {
		t.Fatal(err)
	}

	ow := tbl.NewWriter(mem)
	if err := ow.Overwrite(nil); err != nil {
		t.Fatal(err)
	}
	write(ow, [][]any{{int64(10), "a"}})
	// A concurrent append lands first, into both partitions.
	w2 := tbl.NewWriter(mem)
	write(w2, [][]any{{int64(3), "a"}, {int64(4), "b"}})
	if _, err := w2.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	id, err := ow.Commit(ctx)
	if err != nil {
		t.Fatal(err)
	}
	s, err := tbl.Meta().Snapshot(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if s.CommitKind != paimon.CommitOverwrite || s.ID != 3 || s.TotalRecordCount != 3 || s.DeltaRecordCount != -1 {
		t.Fatalf("overwrite snapshot: id %d kind %s total %d delta %d", s.ID, s.CommitKind, s.TotalRecordCount, s.DeltaRecordCount)
	}
	if got := strings.Join(readTable(t, mem, tbl, scan.Options{}), ","); got != "10|a,2|b,4|b" {
		t.Fatalf("after overwrite: %s", got)
	}

	// Static mode: a row outside the spec fails the commit and leaves no
	// snapshot; no rows empties the partition.
	s2 := *tbl.Schema()
	s2.Options = map[string]string{"dynamic-partition-overwrite": "false"}
	tbl2, err := newTable(io, tbl.root, paimon.MainBranch, tbl.meta, &s2)
	if err != nil {
		t.Fatal(err)
	}
	bad := tbl2.NewWriter(mem)
	if err := bad.Overwrite(map[string]string{"dt": "a"}); err != nil {
		t.Fatal(err)
	}
	write(bad, [][]any{{int64(5), "b"}})
	if _, err := bad.Commit(ctx); !errors.Is(err, ErrInvalid) {
		t.Fatalf("row outside the static partition: %v", err)
	}
	empty := tbl2.NewWriter(mem)
	if err := empty.Overwrite(map[string]string{"dt": "b"}); err != nil {
		t.Fatal(err)
	}
	if _, err := empty.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(readTable(t, mem, tbl, scan.Options{}), ","); got != "10|a" {
		t.Fatalf("after emptying dt=b: %s", got)
	}
	if err := tbl2.NewWriter(mem).Overwrite(map[string]string{"id": "1"}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("non-partition key in the spec: %v", err)
	}
}

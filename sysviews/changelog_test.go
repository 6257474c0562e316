package sysviews

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/write"
)

var pkFields = []types.DataField{
	{Name: "k", Type: types.NewBigInt().NotNull()},
	{Name: "v", Type: types.NewString()},
}

var pkFieldsWithKind = append(append([]types.DataField(nil), pkFields...), types.DataField{Name: write.RowKindColumn, Type: types.NewString()})

// pkTable creates db.<name> (primary key k, bucket 1) and commits each batch
// of (k, v, rowkind) rows as one snapshot.
func pkTable(t *testing.T, w *warehouse, name string, opts map[string]string, autoCompact bool, commits ...[][]any) *write.Table {
	t.Helper()
	ctx := context.Background()
	mem := testutil.CheckedAllocator(t)
	o := map[string]string{"bucket": "1", "file.format": "parquet"}
	for k, v := range opts {
		o[k] = v
	}
	tbl, err := write.CreateTable(ctx, w.io, "db", name, write.TableSpec{Fields: pkFields, PrimaryKeys: []string{"k"}, Options: o})
	if err != nil {
		t.Fatal(err)
	}
	for _, rows := range commits {
		wr := tbl.NewWriter(mem)
		wr.AutoCompact = autoCompact
		rec := record(t, mem, pkFieldsWithKind, rows)
		err := wr.Write(ctx, rec)
		rec.Release()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := wr.Commit(ctx); err != nil {
			t.Fatal(err)
		}
	}
	return tbl
}

func sortedRows(r *result) string {
	out := make([]string, len(r.rows))
	for i, row := range r.rows {
		out[i] = fmt.Sprint(row)
	}
	sort.Strings(out)
	return fmt.Sprint(out)
}

func TestAuditLogAndBinlogMergeOnRead(t *testing.T) {
	w := newWarehouse(t)
	pkTable(t, w, "mor", nil, false,
		[][]any{{int64(1), "a", "+I"}, {int64(2), "b", "+I"}, {int64(3), "c", "+I"}},
		[][]any{{int64(1), "a2", "+U"}, {int64(2), nil, "-D"}},
	)
	audit := getTable(t, w.cat, "db", "mor$audit_log")
	res, _ := read(t, audit, catalog.ScanRequest{})
	if joinStrings(res.cols) != "rowkind,k,v" {
		t.Fatalf("columns %v", res.cols)
	}
	// The latest record of each key with its kind; key 2 was deleted.
	if got := sortedRows(res); got != "[[+I 3 c] [+U 1 a2] [-D 2 <nil>]]" {
		t.Errorf("$audit_log = %s", got)
	}
	// The base table drops the deleted key.
	base, _ := read(t, getTable(t, w.cat, "db", "mor"), catalog.ScanRequest{})
	if got := sortedRows(base); got != "[[1 a2] [3 c]]" {
		t.Errorf("base = %s", got)
	}
	// Projection and time travel.
	res, _ = read(t, audit, catalog.ScanRequest{Columns: []string{"v", "rowkind"}, Options: map[string]string{"scan.snapshot-id": "1"}})
	if got := sortedRows(res); got != "[[a +I] [b +I] [c +I]]" {
		t.Errorf("$audit_log@1 = %s", got)
	}
	_, err := audit.NewScan(context.Background(), catalog.ScanRequest{Options: map[string]string{"scan.snapshot-id": "5"}})
	wantErr(t, err, "snapshot 5 does not exist", catalog.ErrNotFound)

	bin := getTable(t, w.cat, "db", "mor$binlog")
	if got := fmt.Sprint(bin.Schema().Field(1).Type, bin.Schema().Field(2).Type); got != "list<element: int64, nullable> list<element: utf8, nullable>" {
		t.Errorf("binlog types %s", got)
	}
	res, _ = read(t, bin, catalog.ScanRequest{})
	if got := sortedRows(res); got != "[[+I [3] [c]] [+U [1] [a2]] [-D [2] [<nil>]]]" {
		t.Errorf("$binlog = %s", got)
	}
}

func TestAuditLogDeletionVectors(t *testing.T) {
	w := newWarehouse(t)
	pkTable(t, w, "dv", map[string]string{"deletion-vectors.enabled": "true"}, true,
		[][]any{{int64(1), "a", "+I"}, {int64(2), "b", "+I"}},
		[][]any{{int64(1), "a2", "+I"}, {int64(3), "c", "+I"}},
	)
	// Snapshot 4 (compaction of the second write) marks the old row of key 1
	// in a deletion vector; $audit_log must not return it.
	files, sc := read(t, getTable(t, w.cat, "db", "dv$files"), catalog.ScanRequest{})
	if len(files.rows) == 0 || sc.Stats().SnapshotID != 4 {
		t.Fatalf("$files %v %+v", files.rows, sc.Stats())
	}
	compacted := 0
	for i := range files.rows {
		lvl := files.get(t, i, "level").(int64)
		src := files.get(t, i, "file_source")
		if (lvl > 0) != (src == "COMPACT") {
			t.Errorf("level %d with file_source %v", lvl, src)
		}
		if lvl > 0 {
			compacted++
		}
		mn, mx := files.get(t, i, "min_key").(string), files.get(t, i, "max_key").(string)
		if !strings.HasPrefix(mn, "[") || !strings.HasPrefix(mx, "[") || mn > mx {
			t.Errorf("keys %s %s", mn, mx)
		}
		if files.get(t, i, "min_sequence_number").(int64) > files.get(t, i, "max_sequence_number").(int64) {
			t.Errorf("sequence numbers %v", files.rows[i])
		}
	}
	if compacted == 0 {
		t.Errorf("no compacted file in %v", files.rows)
	}
	audit := getTable(t, w.cat, "db", "dv$audit_log")
	res, asc := read(t, audit, catalog.ScanRequest{})
	if got := sortedRows(res); got != "[[+I 1 a2] [+I 2 b] [+I 3 c]]" {
		t.Errorf("$audit_log = %s", got)
	}
	if asc.Stats().DeletionVectors == 0 {
		t.Errorf("no deletion vector used: %+v", asc.Stats())
	}
	// Append-only: every row is +I.
	w2 := newWarehouse(t)
	appendTable(t, w2)
	res, _ = read(t, getTable(t, w2.cat, "db", "events$audit_log"), catalog.ScanRequest{Columns: []string{"rowkind", "id"}})
	if got := sortedRows(res); got != "[[+I 1] [+I 2] [+I 3]]" {
		t.Errorf("append $audit_log = %s", got)
	}
}

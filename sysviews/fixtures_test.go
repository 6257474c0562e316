package sysviews

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
)

func TestFixtureSnapshots(t *testing.T) {
	const rel = "duckdb-paimon-polardb/data/testdb.db/testtbl"
	w := newWarehouse(t)
	w.copyFixture(t, rel, "testdb", "testtbl")
	var expected struct {
		Rows []struct {
			SnapshotID       int64  `json:"snapshot_id"`
			SchemaID         int64  `json:"schema_id"`
			CommitKind       string `json:"commit_kind"`
			TotalRecordCount int64  `json:"total_record_count"`
			DeltaRecordCount int64  `json:"delta_record_count"`
			Watermark        *int64 `json:"watermark"`
		} `json:"rows"`
	}
	b, err := os.ReadFile(filepath.Join(testutil.Fixture(t, rel), "expected", "snapshots.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &expected); err != nil {
		t.Fatal(err)
	}
	res, _ := read(t, getTable(t, w.cat, "testdb", "testtbl$snapshots"), catalog.ScanRequest{})
	if len(res.rows) != len(expected.Rows) {
		t.Fatalf("%d rows, want %d", len(res.rows), len(expected.Rows))
	}
	for i, e := range expected.Rows {
		want := fmt.Sprint(e.SnapshotID, e.SchemaID, e.CommitKind, e.TotalRecordCount, e.DeltaRecordCount, nil)
		got := fmt.Sprint(res.get(t, i, "snapshot_id"), res.get(t, i, "schema_id"), res.get(t, i, "commit_kind"),
			res.get(t, i, "total_record_count"), res.get(t, i, "delta_record_count"), res.get(t, i, "watermark"))
		if got != want {
			t.Errorf("row %d: %s, want %s", i, got, want)
		}
		// commit_time is the snapshot file's timeMillis.
		raw, err := os.ReadFile(filepath.Join(w.dir, "testdb.db", "testtbl", "snapshot", fmt.Sprintf("snapshot-%d", e.SnapshotID)))
		if err != nil {
			t.Fatal(err)
		}
		var s struct {
			TimeMillis int64  `json:"timeMillis"`
			CommitUser string `json:"commitUser"`
		}
		if err := json.Unmarshal(raw, &s); err != nil {
			t.Fatal(err)
		}
		if ct := res.get(t, i, "commit_time").(time.Time); ct.UnixMilli() != s.TimeMillis || res.get(t, i, "commit_user") != s.CommitUser {
			t.Errorf("row %d commit_time %v user %v, file %d %s", i, ct, res.get(t, i, "commit_user"), s.TimeMillis, s.CommitUser)
		}
	}
	// This table has ORC manifests: $files lists its 3 live data files.
	files, _, err := tryRead(t, getTable(t, w.cat, "testdb", "testtbl$files"), catalog.ScanRequest{})
	if err != nil {
		t.Fatalf("$files on ORC manifests: %v", err)
	}
	if len(files.rows) != 3 {
		t.Errorf("$files on ORC manifests: %d rows, want 3", len(files.rows))
	}
}

func TestFixtureTags(t *testing.T) {
	const rel = "paimon-cpp/orc/append_table_with_tag.db/append_table_with_tag"
	w := newWarehouse(t)
	w.copyFixture(t, rel, "db", "tagged")
	res, _ := read(t, getTable(t, w.cat, "db", "tagged$tags"), catalog.ScanRequest{})
	// expected/tags.json: tag "1" -> snapshot 1, schema 0, commit time
	// 1721614343270, 5 records, created 2026-02-04 06:08:10.000000012,
	// retained 3 s.
	want := fmt.Sprint([]any{"1", int64(1), int64(0), time.UnixMilli(1721614343270).UTC(), int64(5),
		time.Date(2026, 2, 4, 6, 8, 10, 0, time.UTC), "PT3S"})
	if len(res.rows) != 1 || fmt.Sprint(res.rows[0]) != want {
		t.Errorf("$tags = %v, want %s", res.rows, want)
	}
}

func TestFixtureFilesDV(t *testing.T) {
	const rel = "paimon-cpp/parquet/pk_table_scan_and_read_dv.db/pk_table_scan_and_read_dv"
	ctx := context.Background()
	w := newWarehouse(t)
	w.copyFixture(t, rel, "db", "dv")
	dt := getTable(t, w.cat, "db", "dv").(*catalog.DataTable)
	snap, err := dt.Paimon().LatestSnapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	res, _ := read(t, getTable(t, w.cat, "db", "dv$files"), catalog.ScanRequest{})
	if n := sumInt(column(res, "record_count")); n != snap.TotalRecordCount {
		t.Errorf("record_count sum %d, snapshot total %d", n, snap.TotalRecordCount)
	}
	for i := range res.rows {
		p := res.get(t, i, "file_path").(string)
		fi, err := os.Stat(filepath.Join(w.dir, p))
		if err != nil || fi.Size() != res.get(t, i, "file_size_in_bytes") {
			t.Errorf("%s: %v", p, err)
		}
		part := res.get(t, i, "partition").(string)
		if !strings.Contains(p, "/f1="+strings.Trim(part, "{}")+"/bucket-") {
			t.Errorf("file_path %s vs partition %s", p, part)
		}
		if mk := res.get(t, i, "min_key"); mk == nil || !strings.HasPrefix(mk.(string), "[") {
			t.Errorf("min_key %v", mk)
		}
	}
	// $manifests at every snapshot; $snapshots lists all snapshot files.
	snaps, _ := read(t, getTable(t, w.cat, "db", "dv$snapshots"), catalog.ScanRequest{})
	ents, _ := os.ReadDir(filepath.Join(w.dir, "db.db", "dv", "snapshot"))
	nfiles := 0
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), "snapshot-") {
			nfiles++
		}
	}
	if len(snaps.rows) != nfiles {
		t.Errorf("$snapshots %d rows, %d snapshot files", len(snaps.rows), nfiles)
	}
	man := getTable(t, w.cat, "db", "dv$manifests")
	for _, id := range column(snaps, "snapshot_id") {
		res, sc := read(t, man, catalog.ScanRequest{Options: map[string]string{"scan.snapshot-id": fmt.Sprint(id)}})
		if len(res.rows) == 0 || sc.Stats().SnapshotID != id {
			t.Errorf("snapshot %v: %d manifests", id, len(res.rows))
		}
	}
	// The $audit_log of a DV table matches the base table's rows.
	base, _ := read(t, dt, catalog.ScanRequest{})
	audit, _ := read(t, getTable(t, w.cat, "db", "dv$audit_log"), catalog.ScanRequest{})
	kept := &result{}
	for _, row := range audit.rows {
		switch row[0] {
		case "+I", "+U":
			kept.rows = append(kept.rows, row[1:])
		case "-D", "-U":
		default:
			t.Errorf("rowkind %v", row[0])
		}
	}
	if len(base.rows) == 0 || sortedRows(kept) != sortedRows(base) {
		t.Errorf("$audit_log rows %s, base %s", sortedRows(kept), sortedRows(base))
	}
}

// TestRowTrackingMetadata: $files, $snapshots and $manifests show the row
// tracking metadata of Paimon 1.2+ (first_row_id, write_cols, next_row_id,
// min/max_row_id) as Java's system tables do.
func TestRowTrackingMetadata(t *testing.T) {
	const name = "data_evolution_with_dense_stats"
	w := newWarehouse(t)
	w.copyDir(t, testutil.Round2Fixture(t, "paimon-cpp/parquet/"+name+".db/"+name), "db", "t")
	res, _ := read(t, getTable(t, w.cat, "db", "t$files"), catalog.ScanRequest{})
	var files []string
	for i := range res.rows {
		files = append(files, fmt.Sprint(res.get(t, i, "first_row_id"), res.get(t, i, "write_cols")))
	}
	if got := strings.Join(files, "|"); got != "0 [f0 f1 f2]|0 [f2 f3]" && got != "0 [f2 f3]|0 [f0 f1 f2]" {
		t.Fatalf("$files first_row_id/write_cols: %s", got)
	}
	res, _ = read(t, getTable(t, w.cat, "db", "t$snapshots"), catalog.ScanRequest{})
	if got := fmt.Sprint(res.get(t, len(res.rows)-1, "next_row_id")); got != "2" {
		t.Fatalf("$snapshots next_row_id %s", got)
	}
	// This table's writer left the manifest list's row ids out; the blob
	// table's has them.
	const blob = "append_table_with_multi_blob"
	w.copyDir(t, testutil.Round2Fixture(t, "paimon-cpp/parquet/"+blob+".db/"+blob), "db", "b")
	res, _ = read(t, getTable(t, w.cat, "db", "b$manifests"), catalog.ScanRequest{})
	if len(res.rows) == 0 {
		t.Fatal("no manifests")
	}
	for i := range res.rows {
		if got := fmt.Sprint(res.get(t, i, "min_row_id"), res.get(t, i, "max_row_id")); got != "0 9" {
			t.Fatalf("$manifests row %d min/max_row_id %s", i, got)
		}
	}
}

package scan

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/fileio"
)

// copyTableWithOptions copies a fixture table into a temp warehouse and adds
// options to every schema file; it returns the new table directory.
func copyTableWithOptions(t *testing.T, src string, opts map[string]string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "db.db", filepath.Base(src))
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	schemas, _ := filepath.Glob(filepath.Join(dst, "schema", "schema-*"))
	for _, p := range schemas {
		os.Chmod(p, 0o644)
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		s := string(data)
		var add []string
		for k, v := range opts {
			add = append(add, `"`+k+`" : "`+v+`"`)
		}
		if len(add) > 0 {
			s = strings.Replace(s, `"options" : {`, `"options" : {`+strings.Join(add, ", ")+",", 1)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// TestDeletionVectorsMergeOnRead: with deletion-vectors.merge-on-read, a
// batch read merges level 0 too (deletion vectors applied to the files they
// mark), which is what Paimon's streaming full plan returns.
func TestDeletionVectorsMergeOnRead(t *testing.T) {
	src := testutil.Fixture(t, "paimon-cpp/parquet/pk_table_scan_and_read_dv.db/pk_table_scan_and_read_dv")
	dir := copyTableWithOptions(t, src, map[string]string{"deletion-vectors.merge-on-read": "true"})
	for snap, file := range map[int64]string{1: "snapshot-1_full_plan_streaming.jsonl", 5: "snapshot-5_full_plan_streaming.jsonl", 6: "snapshot-6_latest_full_plan_streaming.jsonl"} {
		for _, np := range []bool{false, true} {
			got := readRows(t, dir, Options{SnapshotID: snap, Concurrency: 2, NoPruning: np})
			want := canonicalExpected(t, filepath.Join(src, "expected", file))
			sort.Strings(want)
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Fatalf("snapshot %d: got\n  %s\nwant\n  %s", snap, strings.Join(got, "\n  "), strings.Join(want, "\n  "))
			}
		}
	}
	// Without the option, level 0 stays invisible (batch semantics).
	if got := readRows(t, src, Options{SnapshotID: 1, Concurrency: 2}); len(got) != 0 {
		t.Fatalf("batch read of snapshot 1 returned %d rows", len(got))
	}
}

// TestPKClusteringOverride: files sorted by clustering columns read raw
// when deletion vectors make every row final, and a read that would need a
// merge by key is refused.
func TestPKClusteringOverride(t *testing.T) {
	src := testutil.Fixture(t, "paimon-cpp/parquet/pk_table_scan_and_read_dv.db/pk_table_scan_and_read_dv")
	dir := copyTableWithOptions(t, src, map[string]string{"pk-clustering-override": "true", "clustering.columns": "f3"})
	got := readRows(t, dir, Options{SnapshotID: 6, Concurrency: 2})
	want := canonicalExpected(t, filepath.Join(src, "expected", "snapshot-6.jsonl"))
	sort.Strings(want)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
	dir = copyTableWithOptions(t, src, map[string]string{"pk-clustering-override": "true", "clustering.columns": "f3", "deletion-vectors.merge-on-read": "true"})
	_, err := planTable(t, dir, Options{SnapshotID: 6})
	if !errors.Is(err, paimon.ErrUnsupported) || !strings.Contains(err.Error(), "pk-clustering-override") {
		t.Fatalf("err = %v", err)
	}
}

func planTable(t *testing.T, dir string, opts Options) (*Plan, error) {
	t.Helper()
	ctx := context.Background()
	fio, err := fileio.NewLocal(filepath.Dir(dir))
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := paimon.OpenTable(ctx, fio, filepath.Base(dir), "")
	if err != nil {
		return nil, err
	}
	sc, err := New(ctx, tbl, opts)
	if err != nil {
		return nil, err
	}
	return sc.Plan(ctx)
}

// TestPostponeBucket: postpone-bucket (-2) files are invisible to batch
// reads; with postpone.merge-on-read they would have to be merged, which is
// refused rather than silently dropped.
func TestPostponeBucket(t *testing.T) {
	src := testutil.Fixture(t, "paimon-cpp/parquet/pk_table_scan_and_read_mor.db/pk_table_scan_and_read_mor")
	ctx := context.Background()
	fio, err := fileio.NewLocal(filepath.Dir(src))
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := paimon.OpenTable(ctx, fio, filepath.Base(src), "")
	if err != nil {
		t.Fatal(err)
	}
	e := paimon.ManifestEntry{Bucket: -2, File: paimon.DataFileMeta{FileName: "data-postponed.parquet"}}
	s := &Scan{table: tbl, info: tableInfo{pk: true}}
	if ok, err := newPruner(s).entryMayMatch(&e); ok || err != nil {
		t.Fatalf("postpone file visible: %v %v", ok, err)
	}
	s.info.postponeMergeOnRead = true
	if _, err := newPruner(s).entryMayMatch(&e); !errors.Is(err, paimon.ErrUnsupported) || !strings.Contains(err.Error(), "postpone.merge-on-read") {
		t.Fatalf("err = %v", err)
	}
}

// TestUnsupportedFeatureRefused: a table feature the reader does not
// implement refuses the scan, naming the feature.
func TestUnsupportedFeatureRefused(t *testing.T) {
	src := testutil.Fixture(t, "paimon-cpp/parquet/append_09.db/append_09")
	dir := copyTableWithOptions(t, src, map[string]string{"chain-table.enabled": "true"})
	_, err := planTable(t, dir, Options{})
	if !errors.Is(err, paimon.ErrUnsupported) || !strings.Contains(err.Error(), "chain-table.enabled=true") {
		t.Fatalf("err = %v", err)
	}
}

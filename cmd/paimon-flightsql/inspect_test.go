package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
)

// fixtureTables lists every table directory (one holding schema/) under
// both fixture folders.
func fixtureTables(t *testing.T) []string {
	var out []string
	for _, root := range testutil.FixtureDirs(t) {
		filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
			if err == nil && info.IsDir() && info.Name() == "schema" && !strings.Contains(p, "/branch/") {
				out = append(out, filepath.Dir(p))
			}
			return nil
		})
	}
	if len(out) == 0 {
		t.Fatal("no fixture tables found")
	}
	return out
}

func TestInspectFixtures(t *testing.T) {
	for _, dir := range fixtureTables(t) {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run(context.Background(), []string{"inspect", dir, "--json"}, &out, &errb)
			if code != 0 {
				t.Fatalf("inspect exit %d: %s", code, errb.String())
			}
			var rep inspectReport
			if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
				t.Fatal(err)
			}
			snaps, _ := filepath.Glob(filepath.Join(dir, "snapshot", "snapshot-*"))
			if len(rep.Snapshots) != len(snaps) {
				t.Fatalf("%d snapshots reported, %d snapshot files", len(rep.Snapshots), len(snaps))
			}
			if len(snaps) == 0 {
				return
			}
			// Every manifest of the selected snapshot is shown, Avro or ORC.
			if len(rep.Manifests) == 0 {
				t.Fatalf("no manifests shown")
			}
			for _, m := range rep.Manifests {
				st, err := os.Stat(filepath.Join(dir, "manifest", m.FileName))
				if err != nil || st.Size() != m.FileSize || m.AddedFiles+m.DeletedFiles == 0 {
					t.Fatalf("manifest %+v: %v", m, err)
				}
			}
			last := rep.Snapshots[len(rep.Snapshots)-1]
			if rep.Selected != last.ID {
				t.Fatalf("selected snapshot %d, latest %d", rep.Selected, last.ID)
			}
			// totalRecordCount is the sum of the live files' row counts (spec §2.1).
			if rep.Totals.Rows != last.TotalRecord {
				t.Fatalf("live files hold %d rows, snapshot %d says totalRecordCount %d", rep.Totals.Rows, last.ID, last.TotalRecord)
			}
			// Row-tracking tables: the snapshot has a next row id beyond every
			// file's first row id + rows (Paimon 1.2+ fields). A file without
			// one (rewritten by compaction) stores _ROW_ID itself.
			if rep.Schema.OptionBool("row-tracking.enabled", false) {
				if last.NextRowID == nil {
					t.Fatalf("row-tracking table: snapshot %d shows no next_row_id", last.ID)
				}
				for _, f := range rep.Files {
					if f.FirstRowID != nil && *f.FirstRowID+f.RowCount > *last.NextRowID {
						t.Fatalf("row-tracking table: file %s first_row_id %v, rows %d, next_row_id %d", f.FileName, f.FirstRowID, f.RowCount, *last.NextRowID)
					}
				}
			}
			for _, f := range rep.Files {
				if f.ExternalPath != nil {
					continue // lives outside the table (data-file.external-paths)
				}
				p := filepath.Join(dir, f.Partition, "bucket-"+itoa(int64(f.Bucket)), f.FileName)
				st, err := os.Stat(p)
				if err != nil {
					t.Fatalf("live file missing on disk: %v", err)
				}
				if st.Size() != f.FileSize {
					t.Fatalf("%s: size %d on disk, %d in manifest", p, st.Size(), f.FileSize)
				}
			}
		})
	}
}

// TestInspectNewMetadata checks the Paimon 1.2–2.0 metadata fields inspect
// --json shows on the round-2 fixtures.
func TestInspectNewMetadata(t *testing.T) {
	inspect := func(rel string) inspectReport {
		t.Helper()
		dir := testutil.Round2Fixture(t, rel)
		var out, errb bytes.Buffer
		if code := run(context.Background(), []string{"inspect", dir, "--json"}, &out, &errb); code != 0 {
			t.Fatalf("inspect exit %d: %s", code, errb.String())
		}
		var rep inspectReport
		if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
			t.Fatal(err)
		}
		return rep
	}
	rep := inspect("paimon-cpp/parquet/data_evolution_with_dense_stats.db/data_evolution_with_dense_stats")
	if n := rep.Snapshots[len(rep.Snapshots)-1].NextRowID; n == nil || *n != 2 {
		t.Fatalf("next_row_id %v, want 2", n)
	}
	var cols []string
	for _, f := range rep.Files {
		if f.FirstRowID == nil || *f.FirstRowID != 0 {
			t.Fatalf("file %s first_row_id %v, want 0", f.FileName, f.FirstRowID)
		}
		cols = append(cols, strings.Join(f.WriteCols, ","))
	}
	if got := strings.Join(cols, "|"); got != "f0,f1,f2|f2,f3" {
		t.Fatalf("write_cols %q", got)
	}
	rep = inspect("paimon-cpp/parquet/append_with_global_index.db/append_with_global_index")
	if len(rep.IndexFiles) == 0 {
		t.Fatal("no index files shown")
	}
	for _, x := range rep.IndexFiles {
		if x.GlobalIndex == nil || x.GlobalIndex.RowRangeStart != 0 || x.GlobalIndex.RowRangeEnd != 7 {
			t.Fatalf("index file %s global_index %+v, want rows 0..7", x.FileName, x.GlobalIndex)
		}
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func TestInspectErrors(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"inspect"}, &out, &errb); code != 2 {
		t.Fatalf("missing path: exit %d", code)
	}
	errb.Reset()
	if code := run(context.Background(), []string{"inspect", t.TempDir()}, &out, &errb); code != 1 || !strings.Contains(errb.String(), "does not exist") {
		t.Fatalf("not a table: exit %d, %q", code, errb.String())
	}
	errb.Reset()
	if code := run(context.Background(), []string{"bogus"}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "unknown command") {
		t.Fatalf("unknown command: exit %d, %q", code, errb.String())
	}
}

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

// fixtureTables lists every table directory (one holding schema/) under the fixtures.
func fixtureTables(t *testing.T) []string {
	root := testutil.FixturesDir(t)
	var out []string
	filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
		if err == nil && info.IsDir() && info.Name() == "schema" && !strings.Contains(p, "/branch/") {
			out = append(out, filepath.Dir(p))
		}
		return nil
	})
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
			for _, f := range rep.Files {
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

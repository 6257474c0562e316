package scan

import (
	"encoding/json"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
)

// TestMixedFileFormats: a table whose data files are partly ORC (as written
// before ALTER TABLE SET ('file.format'='parquet')) and partly Parquet reads
// every file in its own format, whatever the table's file.format option
// says. Fixture tables are copied and about half of their data files (by a
// hash of the name) rewritten as ORC, manifests and DV index entries renamed.
func TestMixedFileFormats(t *testing.T) {
	root := testutil.FixturesDir(t)
	for _, rel := range []string{
		"paimon-cpp/parquet/pk_table_scan_and_read_dv.db/pk_table_scan_and_read_dv",
		"paimon-cpp/parquet/pk_table_scan_and_read_mor.db/pk_table_scan_and_read_mor",
		"paimon-cpp/parquet/append_table_with_alter_table.db/append_table_with_alter_table",
	} {
		t.Run(filepath.Base(rel), func(t *testing.T) {
			src := filepath.Join(root, rel)
			dst := filepath.Join(t.TempDir(), filepath.Base(src))
			copyTree(t, src, dst)
			pick := func(name string) bool { return crc32.ChecksumIEEE([]byte(name))%2 == 0 }
			if n := convertSomeToORC(t, dst, pick); n == 0 {
				t.Fatal("no file converted")
			}
			counts := map[string]int{}
			filepath.WalkDir(dst, func(p string, d fs.DirEntry, err error) error {
				if err == nil && !d.IsDir() {
					counts[filepath.Ext(p)]++
				}
				return nil
			})
			if counts[".orc"] == 0 || counts[".parquet"] == 0 {
				t.Fatalf("not a mixed table: %v", counts)
			}
			data, err := os.ReadFile(filepath.Join(src, "expected", "index.json"))
			if err != nil {
				t.Fatal(err)
			}
			var idx fixtureIndex
			if err := json.Unmarshal(data, &idx); err != nil {
				t.Fatal(err)
			}
			checked := 0
			for _, e := range idx.Expected {
				var q fixtureQuery
				if len(e.Query) == 0 || string(e.Query) == "null" || json.Unmarshal(e.Query, &q) != nil {
					continue
				}
				if q.Mode != "" || q.Incremental != "" || q.SystemTable != "" || q.Decode != "" || !strings.HasSuffix(e.File, ".jsonl") {
					continue
				}
				t.Run(e.File, func(t *testing.T) {
					runFixtureQuery(t, dst, filepath.Join(src, "expected", e.File), q)
				})
				checked++
			}
			if checked == 0 {
				t.Fatal("no expectation checked")
			}
		})
	}
}

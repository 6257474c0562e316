package planner

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/fileio"
)

// TestExplainFileIndex checks EXPLAIN's file-index line on the round-2
// fixtures: a bitmap embedded in the manifest skips a file at plan time, a
// range bitmap in a .index file skips rows while reading, and the
// file-index.read.enabled=false hint turns both off without changing rows.
func TestExplainFileIndex(t *testing.T) {
	dir := filepath.Join(filepath.Dir(testutil.FixturesDir(t)), "paimon-round2", "paimon-cpp", "parquet")
	if _, err := os.Stat(dir); err != nil {
		t.Skip("round-2 Paimon fixtures not found (expected ../shared/fixtures/paimon-round2); skipping")
	}
	mem := testutil.CheckedAllocator(t)
	fio, err := fileio.NewLocal(dir)
	if err != nil {
		t.Fatal(err)
	}
	e := New(catalog.NewFS(fio, "."), Options{})
	lines := func(sql string) string {
		t.Helper()
		rd, err := Run(context.Background(), e, sql, Session{}, mem)
		if err != nil {
			t.Fatal(err)
		}
		defer rd.Release()
		var out []string
		for rd.Next() {
			b := rd.RecordBatch()
			for c := 0; c < int(b.NumCols()); c++ {
				if col, ok := b.Column(c).(*array.String); ok {
					for i := 0; i < col.Len(); i++ {
						out = append(out, strings.TrimSpace(col.Value(i)))
					}
				}
			}
		}
		if err := rd.Err(); err != nil {
			t.Fatal(err)
		}
		return strings.Join(out, "\n")
	}
	cases := []struct{ sql, want string }{
		{"EXPLAIN SELECT * FROM append_with_bitmap.append_with_bitmap WHERE f1 = 15",
			"file index: 1 files (8 rows) skipped at plan by bitmap 1, 0 files and 0 rows skipped while reading"},
		{"EXPLAIN ANALYZE SELECT * FROM append_with_rangebitmap.append_with_rangebitmap WHERE f0 > 5",
			"file index: 0 files (0 rows) skipped at plan, 0 files and 4 rows skipped while reading"},
		{"EXPLAIN SELECT * FROM append_with_global_index.append_with_global_index WHERE f0 = 'Nobody'",
			"global index: 1 files skipped at plan"},
		{"EXPLAIN ANALYZE SELECT * FROM append_with_rangebitmap.append_with_rangebitmap WHERE f0 = 4",
			"file index: 0 files (0 rows) skipped at plan, 1 files and 8 rows skipped while reading"},
	}
	for _, c := range cases {
		if got := lines(c.sql); !strings.Contains(got, c.want) {
			t.Errorf("%s: missing %q in:\n%s", c.sql, c.want, got)
		}
	}
	off := "EXPLAIN ANALYZE SELECT * FROM append_with_rangebitmap.append_with_rangebitmap /*+ OPTIONS('file-index.read.enabled'='false') */ WHERE f0 > 5"
	if got := lines(off); strings.Contains(got, "file index:") || !strings.Contains(got, "executed: 4 rows") {
		t.Errorf("%s:\n%s", off, got)
	}
	for _, sql := range []string{
		"SELECT f5 FROM append_with_rangebitmap.append_with_rangebitmap WHERE f0 > 5 ORDER BY f5",
		"SELECT f5 FROM append_with_rangebitmap.append_with_rangebitmap /*+ OPTIONS('file-index.read.enabled'='false') */ WHERE f0 > 5 ORDER BY f5",
	} {
		if got := lines(sql); got != "row0\nrow3\nrow4\nrow7" {
			t.Errorf("%s: %q", sql, got)
		}
	}
}

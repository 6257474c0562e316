package scan

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/fileio"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
)

var (
	reOr      = regexp.MustCompile(`(?i)\s+OR\s+`)
	reCmp     = regexp.MustCompile(`^(\w+)\s*(>=|<=|<>|!=|=|>|<)\s*(.+)$`)
	reIn      = regexp.MustCompile(`(?i)^(\w+)\s+(NOT\s+)?IN\s*\((.*)\)$`)
	reIsNull  = regexp.MustCompile(`(?i)^(\w+)\s+IS\s+(NOT\s+)?NULL$`)
	cmpOps    = map[string]predicate.Op{">": predicate.Gt, ">=": predicate.GtEq, "<": predicate.Lt, "<=": predicate.LtEq, "=": predicate.Eq, "<>": predicate.NotEq, "!=": predicate.NotEq}
	quotedLit = regexp.MustCompile(`^'(.*)'$`)
)

// parseIndexFilter parses the row filters of the file-index fixtures:
// comparisons, [NOT] IN, IS [NOT] NULL, joined by OR.
func parseIndexFilter(sc *paimon.TableSchema, s string) (predicate.Predicate, error) {
	var ors []predicate.Predicate
	for _, atom := range reOr.Split(strings.TrimSpace(s), -1) {
		atom = strings.TrimSpace(atom)
		var col string
		var op predicate.Op
		var raw []string
		if m := reIsNull.FindStringSubmatch(atom); m != nil {
			col, op = m[1], predicate.IsNull
			if m[2] != "" {
				op = predicate.IsNotNull
			}
		} else if m := reIn.FindStringSubmatch(atom); m != nil {
			col, op = m[1], predicate.In
			if m[2] != "" {
				op = predicate.NotIn
			}
			for _, x := range strings.Split(m[3], ",") {
				raw = append(raw, strings.TrimSpace(x))
			}
		} else if m := reCmp.FindStringSubmatch(atom); m != nil {
			col, op, raw = m[1], cmpOps[m[2]], []string{strings.TrimSpace(m[3])}
		} else {
			return nil, fmt.Errorf("unsupported filter %q", atom)
		}
		f, ok := sc.FieldByName(col)
		if !ok {
			return nil, fmt.Errorf("filter column %s", col)
		}
		leaf := &predicate.Leaf{Column: f.Name, FieldID: f.ID, Type: f.Type, Op: op}
		for _, r := range raw {
			if m := quotedLit.FindStringSubmatch(r); m != nil {
				r = m[1]
			}
			lit, err := literalFor(f.Type, r)
			if err != nil {
				return nil, err
			}
			leaf.Literals = append(leaf.Literals, lit)
		}
		ors = append(ors, leaf)
	}
	return predicate.NewOr(ors...), nil
}

// parseIndexFilterAnd parses conjunctions (AND) of parseIndexFilter terms.
func parseIndexFilterAnd(sc *paimon.TableSchema, s string) (predicate.Predicate, error) {
	var ands []predicate.Predicate
	for _, part := range regexp.MustCompile(`(?i)\s+AND\s+`).Split(s, -1) {
		p, err := parseIndexFilter(sc, part)
		if err != nil {
			return nil, err
		}
		ands = append(ands, p)
	}
	return predicate.NewAnd(ands...), nil
}

type indexRun struct {
	rows []string
	plan *Plan
	read *ReadStats
}

// runIndexQuery reads a table with a filter, file indexes on or off.
func runIndexQuery(t *testing.T, tableDir string, filter string, noIndex bool) indexRun {
	t.Helper()
	return runIndexQueryWith(t, tableDir, filter, noIndex, parseIndexFilter)
}

// runIndexQueryAnd is runIndexQuery with AND-joined filters.
func runIndexQueryAnd(t *testing.T, tableDir string, filter string, noIndex bool) indexRun {
	t.Helper()
	return runIndexQueryWith(t, tableDir, filter, noIndex, parseIndexFilterAnd)
}

func runIndexQueryWith(t *testing.T, tableDir string, filter string, noIndex bool,
	parse func(*paimon.TableSchema, string) (predicate.Predicate, error)) indexRun {
	t.Helper()
	ctx := context.Background()
	mem := testutil.CheckedAllocator(t)
	fio, err := fileio.NewLocal(filepath.Dir(tableDir))
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := paimon.OpenTable(ctx, fio, filepath.Base(tableDir), "")
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{Concurrency: 2, NoFileIndex: noIndex}
	if filter != "" {
		sc, err := tbl.LatestSchema(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if opts.Filter, err = parse(sc, filter); err != nil {
			t.Fatal(err)
		}
	}
	sc, err := New(ctx, tbl, opts)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := sc.Plan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	stats := &ReadStats{}
	rd, err := sc.ReadWithStats(ctx, mem, plan.Splits, stats)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Release()
	out := indexRun{rows: []string{}, plan: plan, read: stats}
	for rd.Next() {
		out.rows = append(out.rows, canonicalBatch(t, rd.RecordBatch())...)
	}
	if err := rd.Err(); err != nil {
		t.Fatal(err)
	}
	sort.Strings(out.rows)
	return out
}

// TestFileIndexFixtures reads the file-index fixture tables with each
// expected filter, with file indexes used and ignored: both must equal the
// expected rows.
func TestFileIndexFixtures(t *testing.T) {
	root := testutil.Round2Dir(t)
	for _, rel := range []string{
		"paimon-cpp/parquet/append_with_bitmap.db/append_with_bitmap",
		"paimon-cpp/parquet/append_with_bitmap_alter_table.db/append_with_bitmap_alter_table",
		"paimon-cpp/parquet/append_with_rangebitmap.db/append_with_rangebitmap",
	} {
		dir := filepath.Join(root, rel)
		data, err := os.ReadFile(filepath.Join(dir, "expected", "index.json"))
		if err != nil {
			t.Fatal(err)
		}
		var idx struct {
			Expected []struct {
				File  string `json:"file"`
				Query struct {
					RowFilter string `json:"row_filter"`
				} `json:"query"`
			} `json:"expected"`
		}
		if err := json.Unmarshal(data, &idx); err != nil {
			t.Fatal(err)
		}
		for _, e := range idx.Expected {
			t.Run(filepath.Base(rel)+"/"+e.File, func(t *testing.T) {
				want := canonicalExpected(t, filepath.Join(dir, "expected", e.File))
				sort.Strings(want)
				if want == nil {
					want = []string{}
				}
				for _, noIndex := range []bool{false, true} {
					got := runIndexQuery(t, dir, e.Query.RowFilter, noIndex)
					if strings.Join(got.rows, "\n") != strings.Join(want, "\n") {
						t.Fatalf("filter %q (indexes ignored: %v): rows differ\n got (%d):\n  %s\nwant (%d):\n  %s", e.Query.RowFilter, noIndex,
							len(got.rows), strings.Join(got.rows, "\n  "), len(want), strings.Join(want, "\n  "))
					}
					if noIndex && (got.plan.Stats.FilesPrunedIndex != 0 || got.read.RowsSkippedIndex.Load() != 0) {
						t.Fatalf("indexes ignored but counted skips: %+v", got.plan.Stats)
					}
				}
			})
		}
	}
}

// TestFileIndexSkips checks that the indexes of the fixtures actually skip
// files and rows where they should, and nothing where they cannot.
func TestFileIndexSkips(t *testing.T) {
	root := testutil.Round2Dir(t)
	bitmap := filepath.Join(root, "paimon-cpp/parquet/append_with_bitmap.db/append_with_bitmap")
	alter := filepath.Join(root, "paimon-cpp/parquet/append_with_bitmap_alter_table.db/append_with_bitmap_alter_table")
	rangeBM := filepath.Join(root, "paimon-cpp/parquet/append_with_rangebitmap.db/append_with_rangebitmap")
	cases := []struct {
		dir, filter string
		rows        int
		// files skipped at plan time by an embedded index, files skipped
		// while reading, rows excluded while reading.
		planFiles, readFiles int
		readRows             int64
		types                string // index types credited with plan-time skips
	}{
		// f1 is 10 or 20: min/max cannot prune 15, the bitmap can.
		{bitmap, "f1 = 15", 0, 1, 0, 0, "bitmap"},
		{bitmap, "f1 = 30", 0, 0, 0, 0, ""}, // pruned by min/max first
		{bitmap, "f0 = 'Alice'", 2, 0, 0, 6, ""},
		{bitmap, "f0 = 'Alice' OR f1 = 20", 4, 0, 0, 4, ""},
		{bitmap, "f2 IS NULL", 1, 0, 0, 7, ""},
		{bitmap, "f3 = 11.1", 1, 0, 0, 0, ""}, // f3 has no index
		// Schema-1 file: f1 BIGINT index used; schema-0 file: f1 was INT,
		// its index is not used (retyped column).
		{alter, "f1 = 30", 2, 0, 0, 2, ""},
		// f4 was f0 in schema 0: both files' indexes answer by field id.
		{alter, "f4 = 'Alice'", 3, 0, 0, 9, ""},
		{alter, "f4 = 'Nobody'", 0, 1, 0, 0, "bitmap"}, // the other file: min/max
		// Range bitmap in a .index extra file: answered while reading.
		{rangeBM, "f0 = 4", 0, 0, 1, 8, ""},
		{rangeBM, "f0 > 5", 4, 0, 0, 4, ""},
		{rangeBM, "f1 >= 300", 4, 0, 0, 4, ""},
		{rangeBM, "f0 IS NULL", 2, 0, 0, 6, ""},
	}
	for _, c := range cases {
		t.Run(filepath.Base(c.dir)+"/"+c.filter, func(t *testing.T) {
			on := runIndexQuery(t, c.dir, c.filter, false)
			off := runIndexQuery(t, c.dir, c.filter, true)
			if strings.Join(on.rows, "\n") != strings.Join(off.rows, "\n") {
				t.Fatalf("rows with indexes %v, without %v", on.rows, off.rows)
			}
			if len(on.rows) != c.rows {
				t.Fatalf("%d rows, want %d", len(on.rows), c.rows)
			}
			st := on.plan.Stats
			if st.FilesPrunedIndex != c.planFiles || on.read.FilesSkippedIndex.Load() != int64(c.readFiles) || on.read.RowsSkippedIndex.Load() != c.readRows {
				t.Fatalf("index skipped %d files at plan, %d files and %d rows while reading; want %d, %d, %d",
					st.FilesPrunedIndex, on.read.FilesSkippedIndex.Load(), on.read.RowsSkippedIndex.Load(), c.planFiles, c.readFiles, c.readRows)
			}
			var types []string
			for k := range on.plan.IndexSkipsByType {
				types = append(types, k)
			}
			sort.Strings(types)
			if strings.Join(types, ",") != c.types {
				t.Fatalf("index types credited %v, want %q", types, c.types)
			}
		})
	}
}

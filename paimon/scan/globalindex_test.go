package scan

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/fileindex"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/fileio"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
)

const globalIndexTable = "paimon-cpp/parquet/append_with_global_index.db/append_with_global_index"

// TestGlobalIndexFixtureRows decodes the bitmap global indexes of the
// fixture (one per column f0, f1, f2 over row ids 0-7) and checks the row-id
// sets paimon-cpp's own test asserts: f0 = 'Alice' → {0,7}, f1 = 20 →
// {4,6,7}, f2 IS NULL → {7}.
func TestGlobalIndexFixtureRows(t *testing.T) {
	dir := filepath.Join(testutil.Round2Dir(t), globalIndexTable)
	ctx := context.Background()
	fio, err := fileio.NewLocal(filepath.Dir(dir))
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := paimon.OpenTable(ctx, fio, filepath.Base(dir), "")
	if err != nil {
		t.Fatal(err)
	}
	sc, err := tbl.LatestSchema(ctx)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		p    predicate.Predicate
		want []uint32
	}{
		{leafOn(sc, "f0", predicate.Eq, "Alice"), []uint32{0, 7}},
		{leafOn(sc, "f1", predicate.Eq, int64(20)), []uint32{4, 6, 7}},
		{leafOn(sc, "f2", predicate.IsNull), []uint32{7}},
		{leafOn(sc, "f0", predicate.In, "Bob", "Lucy"), []uint32{1, 4, 5}},
	}
	for _, c := range cases {
		s, err := New(ctx, tbl, Options{Filter: c.p})
		if err != nil {
			t.Fatal(err)
		}
		snap := s.Snapshot()
		fs, err := tbl.ReadFileSet(ctx, snap, nil)
		if err != nil {
			t.Fatal(err)
		}
		gis, err := s.globalIndexes(ctx, fs.IndexEntries)
		if err != nil {
			t.Fatal(err)
		}
		l := c.p.(*predicate.Leaf)
		if len(gis[l.FieldID]) != 1 {
			t.Fatalf("%s: %d global indexes for field %d", c.p, len(gis[l.FieldID]), l.FieldID)
		}
		g := gis[l.FieldID][0]
		rd, err := fileindex.Open(fileindex.Entry{Column: l.Column, Type: fileindex.TypeBitmap, Body: g.data}, l.Type, g.end-g.start+1)
		if err != nil || rd == nil {
			t.Fatalf("%s: open: %v", c.p, err)
		}
		res, err := rd.Eval(l)
		if err != nil {
			t.Fatal(err)
		}
		if !res.Selection().Equals(roaring.BitmapOf(c.want...)) {
			t.Fatalf("%s: row ids %v, want %v", c.p, res.Selection().ToArray(), c.want)
		}
	}
}

func leafOn(sc *paimon.TableSchema, col string, op predicate.Op, lits ...any) predicate.Predicate {
	f, _ := sc.FieldByName(col)
	return &predicate.Leaf{Column: col, FieldID: f.ID, Type: f.Type, Op: op, Literals: lits}
}

// TestGlobalIndexSkips: a filter the global index proves empty skips the
// table's data file at plan time; the same filter with indexes ignored reads
// the same (no) rows; a matching filter keeps the file.
func TestGlobalIndexSkips(t *testing.T) {
	dir := filepath.Join(testutil.Round2Dir(t), globalIndexTable)
	for _, c := range []struct {
		filter  string
		rows    int
		skipped int
	}{
		{"f0 = 'Nobody'", 0, 1}, // inside min/max: only the index can skip
		{"f1 = 15", 0, 1},
		{"f2 IS NULL AND f0 = 'Bob'", 0, 1},
		{"f0 = 'Alice'", 2, 0},
		{"f0 = 'Alice' OR f3 = 1.0", 2, 0}, // f3 has no index: nothing to skip
	} {
		on := runIndexQueryAnd(t, dir, c.filter, false)
		off := runIndexQueryAnd(t, dir, c.filter, true)
		if len(on.rows) != c.rows || len(off.rows) != c.rows {
			t.Fatalf("%s: %d rows with indexes, %d without; want %d", c.filter, len(on.rows), len(off.rows), c.rows)
		}
		if got := on.plan.Stats.FilesPrunedGlobalIndex; got != c.skipped {
			t.Fatalf("%s: global index skipped %d files, want %d", c.filter, got, c.skipped)
		}
		if off.plan.Stats.FilesPrunedGlobalIndex != 0 {
			t.Fatalf("%s: indexes ignored but the global index skipped files", c.filter)
		}
	}
}

// TestGlobalIndexGroups: a file is skipped only with every file whose row-id
// range overlaps it; files the index does not cover are never skipped; a
// field two overlapping files write (updated) is not answered by its index.
func TestGlobalIndexGroups(t *testing.T) {
	dir := filepath.Join(testutil.Round2Dir(t), globalIndexTable)
	ctx := context.Background()
	fio, err := fileio.NewLocal(filepath.Dir(dir))
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := paimon.OpenTable(ctx, fio, filepath.Base(dir), "")
	if err != nil {
		t.Fatal(err)
	}
	sc, err := tbl.LatestSchema(ctx)
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(ctx, tbl, Options{Filter: leafOn(sc, "f0", predicate.Eq, "Nobody")})
	if err != nil {
		t.Fatal(err)
	}
	fs, err := tbl.ReadFileSet(ctx, s.Snapshot(), nil)
	if err != nil {
		t.Fatal(err)
	}
	file := func(name string, first, rows int64, cols ...string) paimon.ManifestEntry {
		return paimon.ManifestEntry{File: paimon.DataFileMeta{FileName: name, FirstRowID: &first, RowCount: rows, WriteCols: cols}}
	}
	for _, c := range []struct {
		files []paimon.ManifestEntry
		want  string
	}{
		{[]paimon.ManifestEntry{file("a", 0, 8)}, "a"},
		{[]paimon.ManifestEntry{file("a", 0, 8), file("a2", 0, 8, "f3")}, "a a2"}, // same rows, both covered
		// a2 rewrote f0 of the same rows (a data-evolution update): the
		// index of f0 may predate it and is not used for them.
		{[]paimon.ManifestEntry{file("a", 0, 8), file("a2", 0, 8, "f0")}, ""},
		{[]paimon.ManifestEntry{file("a", 0, 8, "f0", "f1"), file("a2", 0, 8, "f0")}, ""},
		{[]paimon.ManifestEntry{file("a", 0, 8), file("b", 4, 8)}, ""},   // b is not covered: a stays
		{[]paimon.ManifestEntry{file("a", 0, 4), file("c", 20, 8)}, "a"}, // c is not covered
		{[]paimon.ManifestEntry{file("a", 0, 4), file("d", 4, 4), file("e", 8, 1)}, "a d"},
	} {
		skip, err := s.globalIndexSkips(ctx, fs.IndexEntries, c.files)
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		for _, f := range c.files {
			if skip[f.File.FileName] {
				if got != "" {
					got += " "
				}
				got += f.File.FileName
			}
		}
		if got != c.want {
			t.Errorf("files %v: skipped %q, want %q", c.files, got, c.want)
		}
	}
}

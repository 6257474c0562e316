package scan

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paimon-flightsql/paimon-flightsql/deletion"
	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/fileio"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
)

func evoEntry(name string, first, rows, maxSeq int64) paimon.ManifestEntry {
	return paimon.ManifestEntry{File: paimon.DataFileMeta{FileName: name, FirstRowID: &first, RowCount: rows, MaxSequenceNumber: maxSeq}}
}

func groupNames(gs [][]paimon.ManifestEntry) string {
	var parts []string
	for _, g := range gs {
		var names []string
		for _, e := range g {
			names = append(names, e.File.FileName)
		}
		parts = append(parts, strings.Join(names, ","))
	}
	return strings.Join(parts, " | ")
}

func TestEvolutionGroups(t *testing.T) {
	gs, err := evolutionGroups([]paimon.ManifestEntry{
		evoEntry("old.parquet", 0, 10, 1),
		evoEntry("b2.blob", 6, 4, 1),
		evoEntry("next.parquet", 10, 5, 3), // its own group: rows 10..14
		evoEntry("new.parquet", 0, 10, 2),
		evoEntry("b1.blob", 0, 6, 1),
	})
	if err != nil {
		t.Fatal(err)
	}
	// Data files newest first, then blob files by first row id.
	if got := groupNames(gs); got != "new.parquet,old.parquet,b1.blob,b2.blob | next.parquet" {
		t.Fatalf("groups %s", got)
	}
	if first, rows := groupRange(gs[0]); first != 0 || rows != 10 {
		t.Fatalf("range %d+%d", first, rows)
	}
	// Data files of one group must cover the same row ids.
	_, err = evolutionGroups([]paimon.ManifestEntry{evoEntry("a.parquet", 0, 10, 1), evoEntry("b.parquet", 5, 10, 2)})
	if err == nil || !strings.Contains(err.Error(), "overlap without covering the same row ids") {
		t.Fatalf("err = %v", err)
	}
	// Every file needs a first row id.
	e := evoEntry("x.parquet", 0, 1, 1)
	e.File.FirstRowID = nil
	if _, err := evolutionGroups([]paimon.ManifestEntry{e}); err == nil || !strings.Contains(err.Error(), "no _FIRST_ROW_ID") {
		t.Fatalf("err = %v", err)
	}
}

// TestDataEvolutionMerge reads the data-evolution fixture: the newer file's
// f2 wins, f0/f1 come from the older file, and a filter on the superseded
// value matches nothing, with and without pruning.
func TestDataEvolutionMerge(t *testing.T) {
	dir := round2Table(t, "data_evolution_with_dense_stats")
	want := `{"_ROW_ID":"0","f0":"Lily","f2":"102"}|{"_ROW_ID":"1","f0":"Alice","f2":"104"}`
	for _, np := range []bool{false, true} {
		got := strings.Join(readRows(t, dir, Options{Columns: []string{"f0", "f2", "_ROW_ID"}, NoPruning: np, Concurrency: 2}), "|")
		if got != want {
			t.Fatalf("got  %s\nwant %s", got, want)
		}
	}
	// Only f3 (newer file) and f1 (older file): both files are still read.
	got := strings.Join(readRows(t, dir, Options{Columns: []string{"f3", "f1"}, Concurrency: 1, BatchSize: 1}), "|")
	if got != `{"f1":"2","f3":"2.1"}|{"f1":"4","f3":"3.1"}` {
		t.Fatalf("got %s", got)
	}
}

// TestDataEvolutionGroupStats: a group is pruned by per-column statistics
// of the newest file that wrote each column (Java evolutionStats): the
// superseded f2 values of the older file never decide.
func TestDataEvolutionGroupStats(t *testing.T) {
	dir := round2Table(t, "data_evolution_with_dense_stats")
	sc, err := paimonSchema(t, dir)
	if err != nil {
		t.Fatal(err)
	}
	leaf := func(col string, op predicate.Op, v any) predicate.Predicate {
		f, _ := sc.FieldByName(col)
		return &predicate.Leaf{Column: col, FieldID: f.ID, Type: f.Type, Op: op, Literals: []any{v}}
	}
	for _, c := range []struct {
		filter predicate.Predicate
		splits int
	}{
		{leaf("f2", predicate.Eq, int64(12)), 0},    // only in the superseded column
		{leaf("f2", predicate.Eq, int64(102)), 1},   // the newer file's value
		{leaf("f1", predicate.Gt, int64(6)), 0},     // f1 only in the older file: its stats decide
		{leaf("f0", predicate.Eq, "Lily"), 1},       // likewise
		{leaf("f3", predicate.Gt, float64(100)), 1}, // stats-mode none: unknown
	} {
		plan, err := planTable(t, dir, Options{Filter: c.filter})
		if err != nil {
			t.Fatal(err)
		}
		if len(plan.Splits) != c.splits {
			t.Fatalf("%s: %d splits, want %d", c.filter, len(plan.Splits), c.splits)
		}
	}
}

func paimonSchema(t *testing.T, dir string) (*paimon.TableSchema, error) {
	plan, err := planTable(t, dir, Options{})
	if err != nil || plan == nil {
		return nil, err
	}
	fio, _ := fileio.NewLocal(filepath.Dir(dir))
	tbl, err := paimon.OpenTable(context.Background(), fio, filepath.Base(dir), "")
	if err != nil {
		return nil, err
	}
	return tbl.LatestSchema(context.Background())
}

// TestDataEvolutionDeletionVector: the anchor's (oldest data file's)
// deletion vector drops group rows; another file's vector is ignored, as in
// Java's DataEvolutionSplitRead.
func TestDataEvolutionDeletionVector(t *testing.T) {
	src := round2Table(t, "data_evolution_with_dense_stats")
	dir := copyTableWithOptions(t, src, nil)
	const anchor = "data-0a232b78-5051-451a-bdec-2aadffe6b2f0-0.parquet" // max seq 1
	const newer = "data-e2b40cb0-e953-45da-87d9-56951efbb4e3-0.parquet"  // max seq 2
	v1, _ := deletion.NewBitmap32Of(1)
	v0, _ := deletion.NewBitmap32Of(0)
	data, ranges, err := deletion.EncodeIndexFile([]deletion.NamedVector{{DataFile: anchor, Vector: v1}, {DataFile: newer, Vector: v0}})
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(dir, 0o755)
	os.MkdirAll(filepath.Join(dir, "index"), 0o755)
	if err := os.WriteFile(filepath.Join(dir, "index", "dv-test.index"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	fio, _ := fileio.NewLocal(filepath.Dir(dir))
	tbl, err := paimon.OpenTable(ctx, fio, filepath.Base(dir), "")
	if err != nil {
		t.Fatal(err)
	}
	sc, err := New(ctx, tbl, Options{Columns: []string{"f0", "f2", "_ROW_ID"}, Concurrency: 1})
	if err != nil {
		t.Fatal(err)
	}
	plan, err := sc.Plan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Splits) != 1 || !plan.Splits[0].Evolution {
		t.Fatalf("splits %+v", plan.Splits)
	}
	sp := plan.Splits[0]
	sp.Deletions = map[string]DeletionFile{}
	for _, r := range ranges {
		sp.Deletions[r.DataFile] = DeletionFile{Path: filepath.Base(dir) + "/index/dv-test.index", Offset: r.Offset, Length: r.Length, Cardinality: r.Cardinality}
	}
	rd, err := sc.Read(ctx, testutil.CheckedAllocator(t), []Split{sp})
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Release()
	var got []string
	for rd.Next() {
		got = append(got, canonicalBatch(t, rd.RecordBatch())...)
	}
	if err := rd.Err(); err != nil {
		t.Fatal(err)
	}
	if s := strings.Join(got, "|"); s != `{"_ROW_ID":"0","f0":"Lily","f2":"102"}` {
		t.Fatalf("got %s", s)
	}
}

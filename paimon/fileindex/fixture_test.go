package fileindex

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/fileio"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// round2 returns the round-2 fixture folder (beside ../paimon) or skips.
func round2(t testing.TB) string {
	dir := filepath.Join(filepath.Dir(testutil.FixturesDir(t)), "paimon-round2")
	if _, err := os.Stat(dir); err != nil {
		t.Skip("round-2 Paimon fixtures not found (expected ../shared/fixtures/paimon-round2); skipping")
	}
	return dir
}

// fixtureIndex is one data file's index container of a fixture table.
type fixtureIndex struct {
	file   paimon.DataFileMeta
	fields []types.DataField // the file's schema
	bytes  []byte
}

// fixtureIndexes returns the index containers of the latest snapshot of a
// round-2 fixture table, embedded or in .index extra files.
func fixtureIndexes(t testing.TB, rel string) []fixtureIndex {
	t.Helper()
	dir := filepath.Join(round2(t), rel)
	ctx := context.Background()
	fio, err := fileio.NewLocal(filepath.Dir(dir))
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := paimon.OpenTable(ctx, fio, filepath.Base(dir), "")
	if err != nil {
		t.Fatal(err)
	}
	id, _, err := tbl.LatestSnapshotID(ctx)
	if err != nil {
		t.Fatal(err)
	}
	snap, err := tbl.Snapshot(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	fs, err := tbl.ReadFileSet(ctx, snap, nil)
	if err != nil {
		t.Fatal(err)
	}
	var out []fixtureIndex
	for _, e := range fs.Entries {
		sc, err := tbl.Schema(ctx, e.File.SchemaID)
		if err != nil {
			t.Fatal(err)
		}
		fi := fixtureIndex{file: e.File, fields: sc.Fields, bytes: e.File.EmbeddedIndex}
		for _, x := range e.File.ExtraFiles {
			if strings.HasSuffix(x, ".index") {
				b, err := os.ReadFile(filepath.Join(dir, "bucket-0", x))
				if err != nil {
					t.Fatal(err)
				}
				fi.bytes = b
			}
		}
		if fi.bytes != nil {
			out = append(out, fi)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].file.SchemaID < out[j].file.SchemaID })
	return out
}

// evalOn evaluates a leaf on column col of one fixture index.
func evalOn(t *testing.T, fi fixtureIndex, col string, op predicate.Op, lits ...any) Result {
	t.Helper()
	c, err := Parse(fi.bytes, fi.file.FileName)
	if err != nil {
		t.Fatal(err)
	}
	var f types.DataField
	for _, x := range fi.fields {
		if x.Name == col {
			f = x
		}
	}
	leaf := &predicate.Leaf{Column: col, FieldID: f.ID, Type: f.Type, Op: op, Literals: lits}
	res, err := Evaluate(leaf, func(l *predicate.Leaf) ([]Reader, error) {
		var rs []Reader
		for _, e := range c.Lookup(l.Column) {
			r, err := Open(e, l.Type, fi.file.RowCount)
			if err != nil {
				return nil, err
			}
			if r != nil {
				rs = append(rs, r)
			}
		}
		return rs, nil
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func rowsOf(r Result) []uint32 {
	if r.IsRemain() {
		return nil
	}
	return r.Selection().ToArray()
}

func wantRows(t *testing.T, what string, r Result, want ...uint32) {
	t.Helper()
	if r.IsRemain() {
		t.Fatalf("%s: index did not answer (Remain), want rows %v", what, want)
	}
	got := rowsOf(r)
	if want == nil {
		want = []uint32{}
	}
	if !roaring.BitmapOf(got...).Equals(roaring.BitmapOf(want...)) {
		t.Fatalf("%s: rows %v, want %v", what, got, want)
	}
}

// TestFixtureBitmapV2 checks the embedded v2 bitmap indexes of
// append_with_bitmap against the rows its README lists:
// Alice,10,1 Bob,10,1 Emily,10,0 Tony,10,0 Lucy,20,1 Bob,10,1 Tony,20,0 Alice,20,null.
func TestFixtureBitmapV2(t *testing.T) {
	fis := fixtureIndexes(t, "paimon-cpp/parquet/append_with_bitmap.db/append_with_bitmap")
	if len(fis) != 1 || fis[0].file.RowCount != 8 {
		t.Fatalf("want one indexed file of 8 rows, got %d", len(fis))
	}
	fi := fis[0]
	c, err := Parse(fi.bytes, "x")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(c.Columns(), ","); got != "f0,f1,f2" {
		t.Fatalf("indexed columns %s", got)
	}
	for _, e := range c.Entries {
		if e.Type != TypeBitmap || e.Body[0] != bitmapV2 {
			t.Fatalf("column %s: %s version %d, want bitmap v2", e.Column, e.Type, e.Body[0])
		}
	}
	wantRows(t, "f0 = Alice", evalOn(t, fi, "f0", predicate.Eq, "Alice"), 0, 7)
	wantRows(t, "f0 = Bob", evalOn(t, fi, "f0", predicate.Eq, "Bob"), 1, 5)
	wantRows(t, "f0 = Nobody", evalOn(t, fi, "f0", predicate.Eq, "Nobody"))
	wantRows(t, "f0 IN", evalOn(t, fi, "f0", predicate.In, "Alice", "Bob", "Lucy"), 0, 1, 4, 5, 7)
	wantRows(t, "f0 NOT IN", evalOn(t, fi, "f0", predicate.NotIn, "Alice", "Bob", "Lucy"), 2, 3, 6)
	wantRows(t, "f1 = 20", evalOn(t, fi, "f1", predicate.Eq, int64(20)), 4, 6, 7)
	wantRows(t, "f1 = 30", evalOn(t, fi, "f1", predicate.Eq, int64(30)))
	wantRows(t, "f2 IS NULL", evalOn(t, fi, "f2", predicate.IsNull), 7)
	wantRows(t, "f2 IS NOT NULL", evalOn(t, fi, "f2", predicate.IsNotNull), 0, 1, 2, 3, 4, 5, 6)
	wantRows(t, "f2 = 0", evalOn(t, fi, "f2", predicate.Eq, int64(0)), 2, 3, 6)
	wantRows(t, "f1 > 10", evalOn(t, fi, "f1", predicate.Gt, int64(10)), 4, 6, 7)
	wantRows(t, "f0 < Bob", evalOn(t, fi, "f0", predicate.Lt, "Bob"), 0, 7)
}

// TestFixtureBitmapAlterTable checks the bitmap indexes (v2, although schema 0
// sets file-index.bitmap.version=1) of
// append_with_bitmap_alter_table (schema 0: f0 string, f1 int, f2 int;
// schema 1 after rename/retype: f1 bigint, f4 string, f5 int).
func TestFixtureBitmapAlterTable(t *testing.T) {
	fis := fixtureIndexes(t, "paimon-cpp/parquet/append_with_bitmap_alter_table.db/append_with_bitmap_alter_table")
	if len(fis) != 2 {
		t.Fatalf("want two indexed files, got %d", len(fis))
	}
	old, cur := fis[0], fis[1]
	for _, fi := range fis {
		c, err := Parse(fi.bytes, "x")
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range c.Entries {
			t.Logf("schema %d column %s: %s version %d", fi.file.SchemaID, e.Column, e.Type, e.Body[0])
		}
		t.Logf("schema %d file %s: columns %v", fi.file.SchemaID, fi.file.FileName, c.Columns())
	}
	wantRows(t, "old f0 = Alice", evalOn(t, old, "f0", predicate.Eq, "Alice"), 0, 7)
	wantRows(t, "old f1 = 10", evalOn(t, old, "f1", predicate.Eq, int64(10)), 0, 1, 2, 3, 5)
	wantRows(t, "old f2 IS NULL", evalOn(t, old, "f2", predicate.IsNull), 7)
	// snapshot 2 rows: 30,Alice,21.1,100 20,Emily,22.1,101 10,Bob,23.1,100 30,David,24.1,null
	wantRows(t, "new f1 = 30", evalOn(t, cur, "f1", predicate.Eq, int64(30)), 0, 3)
	wantRows(t, "new f4 = Alice", evalOn(t, cur, "f4", predicate.Eq, "Alice"), 0)
	wantRows(t, "new f5 = 100", evalOn(t, cur, "f5", predicate.Eq, int64(100)), 0, 2)
	wantRows(t, "new f5 IS NULL", evalOn(t, cur, "f5", predicate.IsNull), 3)
}

// TestFixtureRangeBitmap checks the range-bitmap .index file of
// append_with_rangebitmap: f0 = 17,3,5,7,9,null,null,10.
func TestFixtureRangeBitmap(t *testing.T) {
	fis := fixtureIndexes(t, "paimon-cpp/parquet/append_with_rangebitmap.db/append_with_rangebitmap")
	if len(fis) != 1 || fis[0].file.RowCount != 8 {
		t.Fatalf("want one indexed file of 8 rows, got %d", len(fis))
	}
	fi := fis[0]
	wantRows(t, "f0 = 17", evalOn(t, fi, "f0", predicate.Eq, int64(17)), 0)
	wantRows(t, "f0 = 4", evalOn(t, fi, "f0", predicate.Eq, int64(4)))
	wantRows(t, "f0 < 10", evalOn(t, fi, "f0", predicate.Lt, int64(10)), 1, 2, 3, 4)
	wantRows(t, "f0 <= 10", evalOn(t, fi, "f0", predicate.LtEq, int64(10)), 1, 2, 3, 4, 7)
	wantRows(t, "f0 > 5", evalOn(t, fi, "f0", predicate.Gt, int64(5)), 0, 3, 4, 7)
	wantRows(t, "f0 >= 6", evalOn(t, fi, "f0", predicate.GtEq, int64(6)), 0, 3, 4, 7)
	wantRows(t, "f0 > 17", evalOn(t, fi, "f0", predicate.Gt, int64(17)))
	wantRows(t, "f0 IS NULL", evalOn(t, fi, "f0", predicate.IsNull), 5, 6)
	wantRows(t, "f0 IN (3, 7)", evalOn(t, fi, "f0", predicate.In, int64(3), int64(7)), 1, 3)
	wantRows(t, "f0 NOT IN (3, 7)", evalOn(t, fi, "f0", predicate.NotIn, int64(3), int64(7)), 0, 2, 4, 7)
	wantRows(t, "f1 >= 300", evalOn(t, fi, "f1", predicate.GtEq, int64(300)), 2, 3, 4, 7)
	wantRows(t, "f2 > 3.3", evalOn(t, fi, "f2", predicate.Gt, float64(float32(3.3))), 3, 4, 7)
	wantRows(t, "f3 < 33.33", evalOn(t, fi, "f3", predicate.Lt, 33.33), 0, 1)
	wantRows(t, "f4 = 2024-01-09", evalOn(t, fi, "f4", predicate.Eq, int64(19731)), 4)
	if r := evalOn(t, fi, "f2", predicate.Eq, 3.3); !r.IsRemain() {
		t.Fatalf("f2 = 3.3 (not a float32): want Remain, got %v", rowsOf(r))
	}
}

// TestBuildRangeBitmapMatchesJava rebuilds the range-bitmap indexes of
// append_with_rangebitmap from its README rows and compares them byte for
// byte with the index Paimon Java wrote.
func TestBuildRangeBitmapMatchesJava(t *testing.T) {
	fis := fixtureIndexes(t, "paimon-cpp/parquet/append_with_rangebitmap.db/append_with_rangebitmap")
	c, err := Parse(fis[0].bytes, "x")
	if err != nil {
		t.Fatal(err)
	}
	f32 := func(f float32) any { return float64(f) }
	cols := map[string]struct {
		t    types.DataType
		vals []any
	}{
		"f0": {types.NewInt(), []any{int64(17), int64(3), int64(5), int64(7), int64(9), nil, nil, int64(10)}},
		"f1": {types.NewBigInt(), []any{int64(100), int64(200), int64(300), int64(400), int64(500), nil, nil, int64(600)}},
		"f2": {types.NewFloat(), []any{f32(1.1), f32(2.2), f32(3.3), f32(4.4), f32(5.5), nil, nil, f32(6.6)}},
		"f3": {types.NewDouble(), []any{11.11, 22.22, 33.33, 44.44, 55.55, nil, nil, 66.66}},
		"f4": {types.NewDate(), []any{int64(19739), int64(19725), int64(19727), int64(19729), int64(19731), nil, nil, int64(19732)}},
	}
	for name, col := range cols {
		es := c.Lookup(name)
		if len(es) != 1 || es[0].Type != TypeRangeBitmap {
			t.Fatalf("column %s: entries %v", name, es)
		}
		got, err := BuildRangeBitmap(col.t, col.vals, 16<<10)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(es[0].Body) {
			t.Errorf("column %s: built %x\n      Java wrote %x", name, got, es[0].Body)
		}
	}
}

// TestBuildBitmapMatchesJava rebuilds the bitmap v2 indexes of the integer
// columns of append_with_bitmap and append_with_bitmap_alter_table from
// their README rows and compares them byte for byte with Java's.
func TestBuildBitmapMatchesJava(t *testing.T) {
	i := func(v ...int64) []any {
		out := make([]any, len(v))
		for j, x := range v {
			if x == -999 {
				out[j] = nil
			} else {
				out[j] = x
			}
		}
		return out
	}
	const null = -999
	check := func(fi fixtureIndex, col string, typ types.DataType, vals []any) {
		t.Helper()
		c, err := Parse(fi.bytes, "x")
		if err != nil {
			t.Fatal(err)
		}
		es := c.Lookup(col)
		if len(es) != 1 {
			t.Fatalf("column %s: %d entries", col, len(es))
		}
		got, err := BuildBitmap(2, typ, vals)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(es[0].Body) {
			t.Errorf("column %s: built %x\n      Java wrote %x", col, got, es[0].Body)
		}
	}
	bm := fixtureIndexes(t, "paimon-cpp/parquet/append_with_bitmap.db/append_with_bitmap")[0]
	check(bm, "f1", types.NewInt(), i(10, 10, 10, 10, 20, 10, 20, 20))
	check(bm, "f2", types.NewInt(), i(1, 1, 0, 0, 1, 1, 0, null))
	alter := fixtureIndexes(t, "paimon-cpp/parquet/append_with_bitmap_alter_table.db/append_with_bitmap_alter_table")
	check(alter[0], "f1", types.NewInt(), i(10, 10, 10, 10, 20, 10, 20, 20))
	check(alter[1], "f1", types.NewBigInt(), i(30, 20, 10, 30))
	check(alter[1], "f5", types.NewInt(), i(100, 101, 100, null))
}

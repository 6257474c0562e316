package scan

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/fileindex"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/fileio"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// The rows of append_with_global_index (README; row id = position).
var giRows = map[int32][]any{
	0: {"Alice", "Bob", "Emily", "Tony", "Lucy", "Bob", "Tony", "Alice"},
	1: {int64(10), int64(10), int64(10), int64(10), int64(20), int64(10), int64(20), int64(20)},
	2: {int64(1), int64(1), int64(0), int64(0), int64(1), int64(1), int64(0), nil},
}

// btreeAppendTable copies append_with_global_index and replaces its bitmap
// global indexes (f0 STRING, f1 INT, f2 INT over row ids 0-7) by BTree
// global index files with the same rows, as Java's SortedGlobalIndexWriter
// writes them (ordinal = row id - range start). Fields in split get two
// files for the range (Java's recordsPerRange rotation: rows 0-3 and 4-7
// of the key order); with onlyFirst the second is left out of the index
// manifest, so the range is not fully covered.
func btreeAppendTable(t *testing.T, split map[int32]bool, onlyFirst bool) string {
	t.Helper()
	src := filepath.Join(testutil.Round2Dir(t), globalIndexTable)
	dir := filepath.Join(t.TempDir(), "db.db", filepath.Base(src))
	if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	str := types.NewString()
	typeOf := map[int32]types.DataType{0: str, 1: types.NewInt(), 2: types.NewInt()}
	write := func(name string, field int32, keep func(i int) bool) int64 {
		vals := slices.Clone(giRows[field])
		for i := range vals {
			if !keep(i) {
				vals[i] = fileindex.Absent
			}
		}
		body, err := fileindex.BuildBTree(typeOf[field], vals, 2)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "index", name), body, 0o644); err != nil {
			t.Fatal(err)
		}
		return int64(len(body))
	}
	mans, _ := filepath.Glob(filepath.Join(dir, "manifest", "index-manifest-*"))
	if len(mans) == 0 {
		t.Fatal("no index manifests in the copy")
	}
	for _, m := range mans {
		data, err := os.ReadFile(m)
		if err != nil {
			t.Fatal(err)
		}
		var out []paimon.IndexManifestEntry
		err = paimon.DecodeIndexManifest(filepath.Base(m), data, "avro", func(e paimon.IndexManifestEntry) error {
			gi := e.IndexFile.GlobalIndex
			if gi == nil {
				out = append(out, e)
				return nil
			}
			f := gi.IndexFieldID
			e.IndexFile.IndexType = btreeIndexType
			if !split[f] {
				e.IndexFile.FileSize = write(e.IndexFile.FileName, f, func(int) bool { return true })
				out = append(out, e)
				return nil
			}
			// Key order of the rows; the first four go to the first file.
			order := []int{0, 1, 2, 3, 4, 5, 6, 7}
			slices.SortStableFunc(order, func(a, b int) int { return strings.Compare(fmt.Sprint(giRows[f][a]), fmt.Sprint(giRows[f][b])) })
			first := map[int]bool{}
			for _, i := range order[:4] {
				first[i] = true
			}
			e2 := e
			e.IndexFile.FileSize = write(e.IndexFile.FileName, f, func(i int) bool { return first[i] })
			e.IndexFile.RowCount = 4
			out = append(out, e)
			e2.IndexFile.FileName += "-2"
			e2.IndexFile.FileSize = write(e2.IndexFile.FileName, f, func(i int) bool { return !first[i] })
			e2.IndexFile.RowCount = 4
			if !onlyFirst {
				out = append(out, e2)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		enc, err := paimon.EncodeIndexManifest(out, paimon.CodecNull, 0)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(m, enc, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestGlobalIndexBTreeAppend: BTree global indexes of a row-tracking
// (data-evolution) append table skip the file for filters no row matches,
// for STRING and INT keys and IS NULL, whether a range's index is one file
// or rotated over two; a range whose files do not hold every row is not
// used. Results equal those with indexes ignored.
func TestGlobalIndexBTreeAppend(t *testing.T) {
	cases := []struct {
		filter  string
		rows    int
		skipped int
	}{
		{"f0 = 'Nobody'", 0, 1}, // inside min/max: only the index can skip
		{"f0 IN ('Carl', 'Dora')", 0, 1},
		{"f0 > 'Tony'", 0, 1},
		{"f1 = 15", 0, 1},
		{"f2 IS NULL AND f0 = 'Bob'", 0, 1},
		{"f2 IS NULL AND f0 = 'Alice'", 1, 0},
		{"f0 = 'Alice'", 2, 0},
		{"f1 <> 10 AND f1 <> 20", 0, 1},
		{"f0 = 'Alice' OR f3 = 1.0", 2, 0}, // f3 has no index: nothing to skip
	}
	for _, split := range []map[int32]bool{nil, {0: true, 1: true, 2: true}} {
		dir := btreeAppendTable(t, split, false)
		for _, c := range cases {
			on := runIndexQueryAnd(t, dir, c.filter, false)
			off := runIndexQueryAnd(t, dir, c.filter, true)
			if len(on.rows) != c.rows || len(off.rows) != c.rows {
				t.Fatalf("split %v, %s: %d rows with indexes, %d without; want %d", split, c.filter, len(on.rows), len(off.rows), c.rows)
			}
			if got := on.plan.Stats.FilesPrunedGlobalIndex; got != c.skipped {
				t.Fatalf("split %v, %s: global index skipped %d files, want %d", split, c.filter, got, c.skipped)
			}
			t.Logf("split %v, %s: %d rows, %d files skipped, %d rows skipped reading", split, c.filter, len(on.rows), on.plan.Stats.FilesPrunedGlobalIndex, on.read.RowsSkippedIndex.Load())
		}
	}
	// Half of each range's rows indexed: nothing may be skipped.
	dir := btreeAppendTable(t, map[int32]bool{0: true, 1: true, 2: true}, true)
	for _, c := range cases {
		on := runIndexQueryAnd(t, dir, c.filter, false)
		if len(on.rows) != c.rows || on.plan.Stats.FilesPrunedGlobalIndex != 0 {
			t.Fatalf("incomplete index, %s: %d rows (want %d), %d files skipped", c.filter, len(on.rows), c.rows, on.plan.Stats.FilesPrunedGlobalIndex)
		}
	}
}

// TestGlobalIndexBTreeAppendRandom: random filters on the BTree-indexed
// columns read the same rows with the index used and ignored.
func TestGlobalIndexBTreeAppendRandom(t *testing.T) {
	dir := btreeAppendTable(t, map[int32]bool{1: true}, false)
	rng := rand.New(rand.NewPCG(14, 3))
	ops := []string{"=", "<>", "<", "<=", ">", ">="}
	names := []string{"'Alice'", "'Bob'", "'Carl'", "'Emily'", "'Lucy'", "'Tony'", "'Zed'", "''"}
	lit := func(col int) string {
		if col == 0 {
			return names[rng.IntN(len(names))]
		}
		return fmt.Sprint([]int{-1, 0, 1, 2, 10, 15, 20, 21}[rng.IntN(8)])
	}
	skipped := 0
	for q := 0; q < 40; q++ {
		col := rng.IntN(3)
		var f string
		switch rng.IntN(4) {
		case 0:
			f = fmt.Sprintf("f%d IS %sNULL", col, []string{"", "NOT "}[rng.IntN(2)])
		case 1:
			f = fmt.Sprintf("f%d %sIN (%s, %s)", col, []string{"", "NOT "}[rng.IntN(2)], lit(col), lit(col))
		case 2:
			f = fmt.Sprintf("f%d %s %s AND f%d %s %s", col, ops[rng.IntN(6)], lit(col), (col+1)%3, ops[rng.IntN(6)], lit((col+1)%3))
		default:
			f = fmt.Sprintf("f%d %s %s", col, ops[rng.IntN(6)], lit(col))
		}
		on := runIndexQueryAnd(t, dir, f, false)
		off := runIndexQueryAnd(t, dir, f, true)
		slices.Sort(on.rows)
		slices.Sort(off.rows)
		if !slices.Equal(on.rows, off.rows) {
			t.Fatalf("%s: %d rows with the index, %d without", f, len(on.rows), len(off.rows))
		}
		skipped += on.plan.Stats.FilesPrunedGlobalIndex
	}
	if skipped == 0 {
		t.Fatal("the btree global index never skipped the file: the test proves nothing")
	}
}

// TestGlobalIndexBTreeStale: a BTree global index with Java's
// DataEvolutionIndexSourceMeta (scan snapshot 5) is not used for a field
// that a data file overlapping its rows wrote with a larger sequence
// number (an update the index may miss); older writes and other fields do
// not disable it.
func TestGlobalIndexBTreeStale(t *testing.T) {
	dir := btreeAppendTable(t, nil, false)
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
	// Our manifest writer does not write _SOURCE_META: set it in memory.
	deix := binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint64(nil, deixMagic<<32|1), 5)
	idx := slices.Clone(fs.IndexEntries)
	n := 0
	for i := range idx {
		if gi := idx[i].IndexFile.GlobalIndex; gi != nil {
			g := *gi
			g.SourceMeta = deix
			idx[i].IndexFile.GlobalIndex = &g
			n++
		}
	}
	if n == 0 {
		t.Fatal("no global index entries")
	}
	if sc, ok := decodeDEIX(deix); !ok || sc != 5 {
		t.Fatalf("DEIX meta decodes to %d %v", sc, ok)
	}
	for _, bad := range [][]byte{deix[:15], append(slices.Clone(deix), 0), make([]byte, 16)} {
		if _, ok := decodeDEIX(bad); ok {
			t.Fatalf("%x decoded as DEIX", bad)
		}
	}
	file := func(name string, first, rows, seq int64, cols ...string) paimon.ManifestEntry {
		return paimon.ManifestEntry{File: paimon.DataFileMeta{FileName: name, FirstRowID: &first, RowCount: rows, MaxSequenceNumber: seq, WriteCols: cols}}
	}
	for _, c := range []struct {
		files []paimon.ManifestEntry
		want  bool
	}{
		{[]paimon.ManifestEntry{file("a", 0, 8, 5, "f0", "f1", "f2", "f3")}, true},
		{[]paimon.ManifestEntry{file("a", 0, 8, 6, "f0", "f1", "f2", "f3")}, false}, // written after the scan
		{[]paimon.ManifestEntry{file("a", 0, 8, 6, "f1", "f2", "f3"), file("b", 0, 8, 2, "f0")}, true},
		{[]paimon.ManifestEntry{file("a", 0, 4, 3), file("b", 4, 4, 9)}, false}, // b rewrote rows 4-7 of f0
	} {
		skip, err := s.globalIndexSkips(ctx, idx, c.files)
		if err != nil {
			t.Fatal(err)
		}
		if got := skip[c.files[0].File.FileName]; got != c.want {
			t.Errorf("files %v: skipped %v, want %v", c.files, got, c.want)
		}
	}
}

// TestGlobalIndexBTreeAppendNarrows: on the same table with data evolution
// off (a row-tracking append table: each file alone with its row ids), the
// kept file is read only at the positions the BTree index selects; the rows
// equal those with indexes ignored.
func TestGlobalIndexBTreeAppendNarrows(t *testing.T) {
	dir := btreeAppendTable(t, map[int32]bool{1: true}, false)
	sch := filepath.Join(dir, "schema", "schema-0")
	b, err := os.ReadFile(sch)
	if err != nil {
		t.Fatal(err)
	}
	nb := strings.Replace(string(b), `"data-evolution.enabled" : "true"`, `"data-evolution.enabled" : "false"`, 1)
	if nb == string(b) {
		t.Fatal("schema-0 has no data-evolution option to turn off")
	}
	if err := os.WriteFile(sch, []byte(nb), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		filter      string
		rows        int
		rowsSkipped int64
	}{
		{"f0 = 'Alice'", 2, 6},
		{"f1 = 20", 3, 5},
		{"f2 IS NULL", 1, 7},
		{"f0 IN ('Bob', 'Lucy') AND f1 = 10", 2, 6}, // rows {1,4,5} ∩ {0,1,2,3,5}
		{"f0 = 'Alice' OR f3 = 1.0", 2, 0},          // f3 has no index
	} {
		on := runIndexQueryAnd(t, dir, c.filter, false)
		off := runIndexQueryAnd(t, dir, c.filter, true)
		slices.Sort(on.rows)
		slices.Sort(off.rows)
		if len(on.rows) != c.rows || !slices.Equal(on.rows, off.rows) {
			t.Fatalf("%s: %d rows with the index, %d without; want %d", c.filter, len(on.rows), len(off.rows), c.rows)
		}
		if got := on.read.RowsSkippedIndex.Load(); got != c.rowsSkipped {
			t.Fatalf("%s: %d rows skipped reading, want %d", c.filter, got, c.rowsSkipped)
		}
		if off.read.RowsSkippedIndex.Load() != 0 {
			t.Fatalf("%s: indexes ignored but rows were skipped", c.filter)
		}
	}
}

package scan

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
)

const pkBTreeTable = "paimon-cpp/parquet/pk_btree_e2e.db/pk_btree_e2e"

// TestPKBTreeIndexRandom: on the Java-written primary-key table with a
// BTree global index on score, random filters on score (=, <>, <, <=, >,
// >=, IN, NOT IN, alone, ORed, or ANDed with another column) return the
// same rows with the index used as with it ignored; the index skips files
// at plan time and rows of the kept files at read time for some of them,
// and never with indexes off.
func TestPKBTreeIndexRandom(t *testing.T) {
	dir := filepath.Join(testutil.Round2Dir(t), pkBTreeTable)
	all := runIndexQueryAnd(t, dir, "", false)
	if len(all.rows) == 0 {
		t.Fatal("fixture table reads as empty")
	}
	rng := rand.New(rand.NewPCG(16, 14))
	ops := []string{"=", "<>", "<", "<=", ">", ">="}
	val := func() int { return rng.IntN(60) - 5 } // the scores and a little outside
	skippedTotal, rowsNarrowed, queries := 0, int64(0), 60
	if testing.Short() {
		queries = 15
	}
	for q := 0; q < queries; q++ {
		var f string
		switch rng.IntN(5) {
		case 0, 1:
			f = fmt.Sprintf("score %s %d", ops[rng.IntN(len(ops))], val())
		case 2:
			n := 1 + rng.IntN(4)
			vs := make([]string, n)
			for i := range vs {
				vs[i] = fmt.Sprint(val())
			}
			not := ""
			if rng.IntN(3) == 0 {
				not = "NOT "
			}
			f = fmt.Sprintf("score %sIN (%s)", not, strings.Join(vs, ", "))
		case 3:
			f = fmt.Sprintf("score = %d OR score = %d", val(), val())
		default:
			f = fmt.Sprintf("score %s %d AND id > %d", ops[rng.IntN(len(ops))], val(), rng.IntN(300))
		}
		on := runIndexQueryAnd(t, dir, f, false)
		off := runIndexQueryAnd(t, dir, f, true)
		slices.Sort(on.rows)
		slices.Sort(off.rows)
		if !slices.Equal(on.rows, off.rows) {
			t.Fatalf("%s: %d rows with the index, %d without", f, len(on.rows), len(off.rows))
		}
		if off.plan.Stats.FilesPrunedGlobalIndex != 0 {
			t.Fatalf("%s: indexes ignored but the global index skipped files", f)
		}
		if off.read.RowsSkippedIndex.Load() != 0 {
			t.Fatalf("%s: indexes ignored but rows were skipped by an index", f)
		}
		skippedTotal += on.plan.Stats.FilesPrunedGlobalIndex
		rowsNarrowed += on.read.RowsSkippedIndex.Load()
		t.Logf("%s: %d rows, %d of %d files skipped by the btree index, %d rows skipped reading", f, len(on.rows), on.plan.Stats.FilesPrunedGlobalIndex, on.plan.Stats.FilesTotal, on.read.RowsSkippedIndex.Load())
	}
	if skippedTotal == 0 || rowsNarrowed == 0 {
		t.Fatalf("the btree index skipped %d files and %d rows: the test proves nothing", skippedTotal, rowsNarrowed)
	}
	if n := runIndexQueryAnd(t, dir, "score IS NOT NULL", false).plan.Stats.FilesPrunedGlobalIndex; n != 0 {
		t.Fatalf("IS NOT NULL skipped %d files", n)
	}
	// No NULL score (no null bitmap in the index files): IS NULL is
	// answered "no row" by the index, so ORing it to an equality the index
	// answers skips as many files as the equality alone (a Remain answer
	// would make the OR skip nothing).
	orTested := false
	for x := 0; x < 60 && !orTested; x++ {
		eq := fmt.Sprintf("score = %d", x)
		alone := runIndexQueryAnd(t, dir, eq, false).plan.Stats.FilesPrunedGlobalIndex
		if alone == 0 {
			continue
		}
		orTested = true
		f := "score IS NULL OR " + eq
		on, off := runIndexQueryAnd(t, dir, f, false), runIndexQueryAnd(t, dir, f, true)
		slices.Sort(on.rows)
		slices.Sort(off.rows)
		if !slices.Equal(on.rows, off.rows) || on.plan.Stats.FilesPrunedGlobalIndex != alone {
			t.Fatalf("%s: %d rows with the index, %d without, %d files skipped (want %d)", f, len(on.rows), len(off.rows), on.plan.Stats.FilesPrunedGlobalIndex, alone)
		}
	}
	if !orTested {
		t.Fatal("no equality skipped a file")
	}

}

// TestGlobalIndexBGIXNotUsed: a global index file in Java's BGIX format
// (recognized by its footer magic) is not decoded: the scan reads exactly
// what it reads with indexes off and counts the file as unsupported.
func TestGlobalIndexBGIXNotUsed(t *testing.T) {
	src := filepath.Join(testutil.Round2Dir(t), globalIndexTable)
	dir := filepath.Join(t.TempDir(), "db.db", filepath.Base(src))
	if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	idx, err := filepath.Glob(filepath.Join(dir, "index", "bitmap-global-index-*.index"))
	if err != nil || len(idx) == 0 {
		t.Fatalf("no global index files in the copy: %v", err)
	}
	for _, p := range idx {
		// A BGIX footer: block handles, value count, version, magic (big endian).
		footer := make([]byte, 48)
		binary.BigEndian.PutUint32(footer[40:], 1)
		binary.BigEndian.PutUint32(footer[44:], bgixMagic)
		if err := os.WriteFile(p, footer, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	const filter = "f0 = 'Nobody'" // the real index skips a file for it
	on := runIndexQueryAnd(t, dir, filter, false)
	off := runIndexQueryAnd(t, dir, filter, true)
	slices.Sort(on.rows)
	slices.Sort(off.rows)
	if !slices.Equal(on.rows, off.rows) {
		t.Fatalf("%d rows with BGIX files present, %d with indexes off", len(on.rows), len(off.rows))
	}
	if on.plan.Stats.FilesPrunedGlobalIndex != 0 || on.plan.Stats.GlobalIndexesUnsupported == 0 {
		t.Fatalf("BGIX files: %d files skipped, %d unsupported; want 0 and > 0", on.plan.Stats.FilesPrunedGlobalIndex, on.plan.Stats.GlobalIndexesUnsupported)
	}
}

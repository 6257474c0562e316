package write

import (
	"context"
	"fmt"
	"sort"
	"testing"

	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// TestLookupCompactionSeed000 walks through the deletion-vector design of
// seed 000 step by step on one bucket.
func TestLookupCompactionSeed000(t *testing.T) {
	ctx := context.Background()
	mem := checkedMem(t)
	tbl, err := CreateTable(ctx, newWarehouse(t), "default", "dv", TableSpec{
		Fields:      []types.DataField{field("k", types.NewInt()), field("v", types.NewString())},
		PrimaryKeys: []string{"k"}, Options: map[string]string{"bucket": "1", "deletion-vectors.enabled": "true"}})
	if err != nil {
		t.Fatal(err)
	}
	model := map[int64]string{}
	write := func(v string, keys ...int64) {
		t.Helper()
		var rows [][]any
		for _, k := range keys {
			rows = append(rows, []any{k, v})
			model[k] = v
		}
		rec := buildRecord(t, mem, tbl.fields, rows)
		defer rec.Release()
		w := tbl.NewWriter(mem)
		w.AutoCompact = false
		if err := w.Write(ctx, rec); err != nil {
			t.Fatal(err)
		}
		if _, err := w.Commit(ctx); err != nil {
			t.Fatal(err)
		}
	}
	type state struct {
		levels map[string]int32  // file → level
		dvs    map[int32][]int64 // level → deleted positions
		snap   *paimon.Snapshot
	}
	look := func() state {
		t.Helper()
		s, err := tbl.latestSnapshot(ctx)
		if err != nil {
			t.Fatal(err)
		}
		live, err := tbl.liveEntries(ctx, s)
		if err != nil {
			t.Fatal(err)
		}
		idx, err := tbl.indexEntries(ctx, s)
		if err != nil {
			t.Fatal(err)
		}
		dvs, err := tbl.loadDVs(ctx, idx)
		if err != nil {
			t.Fatal(err)
		}
		st := state{levels: map[string]int32{}, dvs: map[int32][]int64{}, snap: s}
		for _, e := range live {
			st.levels[e.File.FileName] = e.File.Level
		}
		for f, bm := range dvs.dvs {
			lvl, ok := st.levels[f]
			if !ok {
				t.Fatalf("deletion vector of %s, which is not live", f)
			}
			for _, p := range bm.ToArray() {
				st.dvs[lvl] = append(st.dvs[lvl], int64(p))
			}
			sort.Slice(st.dvs[lvl], func(i, j int) bool { return st.dvs[lvl][i] < st.dvs[lvl][j] })
		}
		return st
	}
	compact := func(full bool) state {
		t.Helper()
		before, _ := tbl.latestSnapshot(ctx)
		if _, err := tbl.Compact(ctx, CompactOptions{Full: full, Mem: mem}); err != nil {
			t.Fatal(err)
		}
		st := look()
		if st.snap.ID != before.ID+1 || st.snap.CommitKind != paimon.CommitCompact {
			t.Fatalf("compaction made snapshot %d (%s) after %d: want exactly one COMPACT snapshot", st.snap.ID, st.snap.CommitKind, before.ID)
		}
		var want []string
		for k, v := range model {
			want = append(want, fmt.Sprintf("%d|%s", k, v))
		}
		if got := readBoth(t, mem, tbl); !equalStrings(got, sortedCopy(want)) {
			t.Fatalf("after compaction:\n got  %v\n want %v", got, sortedCopy(want))
		}
		return st
	}
	levelsOf := func(st state) []int32 {
		var ls []int32
		for _, l := range st.levels {
			ls = append(ls, l)
		}
		sort.Slice(ls, func(i, j int) bool { return ls[i] < ls[j] })
		return ls
	}

	write("a", 1, 2, 3, 4, 5, 6, 7, 8, 9, 10)
	st := compact(false)
	if fmt.Sprint(levelsOf(st)) != "[5]" || len(st.dvs) != 0 || st.snap.IndexManifest != nil {
		t.Fatalf("first compaction: levels %v dvs %v", levelsOf(st), st.dvs)
	}
	// Keys 1, 2 only in level 0: the level-5 rows (positions 0, 1) are deleted.
	write("b", 1, 2)
	st = compact(false)
	if fmt.Sprint(levelsOf(st)) != "[4 5]" || fmt.Sprint(st.dvs) != "map[5:[0 1]]" {
		t.Fatalf("second compaction: levels %v dvs %v", levelsOf(st), st.dvs)
	}
	idx1 := *st.snap.IndexManifest
	// Key 2 again: its live version is now in level 4 (position 1); key 3 in level 5.
	write("c", 2, 3)
	st = compact(false)
	if fmt.Sprint(levelsOf(st)) != "[3 4 5]" || fmt.Sprint(st.dvs) != "map[4:[1] 5:[0 1 2]]" {
		t.Fatalf("third compaction: levels %v dvs %v", levelsOf(st), st.dvs)
	}
	if *st.snap.IndexManifest == idx1 {
		t.Fatal("index manifest not rewritten")
	}
	write("d", 4)
	compact(false) // level 2
	write("e", 5)
	st = compact(false) // level 1
	if fmt.Sprint(levelsOf(st)) != "[1 2 3 4 5]" {
		t.Fatalf("levels %v", levelsOf(st))
	}
	// Level 1 is taken: level 0 is merged with level 1. Key 5 is in both
	// (no bitmap; the level-1 file is rewritten and its bitmap dropped);
	// key 6 is only in level 0 (level-5 position 5 deleted).
	write("f", 5, 6)
	st = compact(false)
	if fmt.Sprint(levelsOf(st)) != "[1 2 3 4 5]" || fmt.Sprint(st.dvs[5]) != "[0 1 2 3 4 5]" || len(st.dvs[1]) != 0 {
		t.Fatalf("merge with level 1: levels %v dvs %v", levelsOf(st), st.dvs)
	}
	// Full compaction: one top-level file, no deletion vectors.
	st = compact(true)
	if fmt.Sprint(levelsOf(st)) != "[5]" || len(st.dvs) != 0 {
		t.Fatalf("full compaction: levels %v dvs %v", levelsOf(st), st.dvs)
	}
	idx, _ := tbl.indexEntries(ctx, st.snap)
	if len(idx) != 0 {
		t.Fatalf("full compaction left %d index entries", len(idx))
	}
	// Nothing to do: no snapshot.
	if id, err := tbl.Compact(ctx, CompactOptions{Mem: mem}); err != nil || id != 0 {
		t.Fatalf("idle compaction: %d %v", id, err)
	}
}

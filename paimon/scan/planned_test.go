package scan

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/paimon-flightsql/paimon-flightsql/internal/bufpool"
	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/fileio"
)

// TestPlannedSplitRoundTrip: for every fixture table (append, primary key
// with merge-on-read and deletion vectors, partitioned, bucketed, with a
// fallback branch), the planned splits survive Export → JSON → Open on a
// scan created afresh (another node: no Plan), equal field by field, and
// read to the same rows as the planned splits.
func TestPlannedSplitRoundTrip(t *testing.T) {
	root := testutil.FixturesDir(t)
	dirs := map[string]bool{}
	filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
		if err == nil && info.Name() == "index.json" && filepath.Base(filepath.Dir(p)) == "expected" {
			dirs[filepath.Dir(filepath.Dir(p))] = true
		}
		return nil
	})
	if len(dirs) == 0 {
		t.Fatal("no fixture tables found")
	}
	var names []string
	for d := range dirs {
		names = append(names, d)
	}
	sort.Strings(names)
	sawFallback, sawDV, sawMerge := false, false, false
	for _, dir := range names {
		t.Run(strings.TrimPrefix(dir, root+"/"), func(t *testing.T) {
			ctx := context.Background()
			mem := testutil.CheckedAllocator(t)
			fio, err := fileio.NewLocal(filepath.Dir(dir))
			if err != nil {
				t.Fatal(err)
			}
			tbl, err := paimon.OpenTable(ctx, fio, filepath.Base(dir), "")
			if err != nil {
				t.Skipf("not a table: %v", err)
			}
			sc, err := New(ctx, tbl, Options{Concurrency: 2})
			if err != nil {
				t.Fatal(err)
			}
			plan, err := sc.Plan(ctx)
			if err != nil {
				t.Fatal(err)
			}
			b, err := json.Marshal(sc.Export(plan.Splits))
			if err != nil {
				t.Fatal(err)
			}
			var back []PlannedSplit
			if err := json.Unmarshal(b, &back); err != nil {
				t.Fatal(err)
			}
			// Another node: a fresh scan pinned to the splits' snapshot.
			other, err := New(ctx, tbl, Options{Concurrency: 2, SnapshotID: sc.SnapshotID()})
			if sc.SnapshotID() < 0 {
				other, err = New(ctx, tbl, Options{Concurrency: 2})
			}
			if err != nil {
				t.Fatal(err)
			}
			opened, err := other.Open(ctx, back)
			if err != nil {
				t.Fatal(err)
			}
			if len(opened) != len(plan.Splits) {
				t.Fatalf("%d splits opened, %d planned", len(opened), len(plan.Splits))
			}
			for i := range opened {
				want, got := plan.Splits[i], opened[i]
				if want.Branch() != got.Branch() {
					t.Fatalf("split %d: branch %q, want %q", i, got.Branch(), want.Branch())
				}
				sawFallback = sawFallback || want.owner != nil
				sawDV = sawDV || len(want.Deletions) > 0
				sawMerge = sawMerge || want.Merge
				want.owner, got.owner = nil, nil
				if !reflect.DeepEqual(want, got) {
					t.Fatalf("split %d differs after the round trip:\n got %+v\nwant %+v", i, got, want)
				}
			}
			rows := func(s *Scan, splits []Split, pool *bufpool.Pool) []string {
				rd, err := s.ReadSplits(ctx, splits, ReadOptions{Mem: mem, Pool: pool})
				if err != nil {
					t.Fatal(err)
				}
				defer rd.Release()
				var out []string
				for rd.Next() {
					out = append(out, canonicalBatch(t, rd.RecordBatch())...)
				}
				if err := rd.Err(); err != nil {
					t.Fatal(err)
				}
				sort.Strings(out)
				return out
			}
			pool := bufpool.New(mem, 1<<20)
			defer pool.Close()
			want, got := rows(sc, plan.Splits, nil), rows(other, opened, pool)
			if strings.Join(want, "\n") != strings.Join(got, "\n") {
				t.Fatalf("rows of opened splits differ:\n got %v\nwant %v", got, want)
			}
		})
	}
	if !sawFallback || !sawDV || !sawMerge {
		t.Errorf("fixtures did not cover fallback=%v dv=%v merge=%v", sawFallback, sawDV, sawMerge)
	}
}

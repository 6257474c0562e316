package scan_test

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/fileio"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/scan"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/write"
)

// planCacheTable writes a table over 24 days with scattered commits (every
// commit touches 8 random days, so merged manifests span many partitions),
// merged manifests, deletes (rewrite, deletion vectors or -D records by
// table kind) and a full compaction.
func planCacheTable(t *testing.T, mem memory.Allocator, name string, opts map[string]string, pk bool) *paimon.Table {
	ctx := context.Background()
	fio, err := fileio.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	o := map[string]string{"bucket": "2", "manifest.target-file-size": "6 kb", "manifest.merge-min-count": "3"}
	for k, v := range opts {
		o[k] = v
	}
	spec := write.TableSpec{Fields: pruneFields(), PartitionKeys: []string{"dt"}, Options: o}
	if pk {
		spec.Fields[1].Type = spec.Fields[1].Type.NotNull()
		spec.PrimaryKeys = []string{"dt", "k"}
	} else {
		o["bucket-key"] = "k"
	}
	wt, err := write.CreateTable(ctx, fio, "default", name, spec)
	if err != nil {
		t.Fatal(err)
	}
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "dt", Type: arrow.BinaryTypes.String},
		{Name: "k", Type: arrow.PrimitiveTypes.Int64, Nullable: !pk},
		{Name: "v", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	rng := rand.New(rand.NewSource(11))
	tbl, err := paimon.OpenTable(ctx, fio, write.TablePath("default", name), "")
	if err != nil {
		t.Fatal(err)
	}
	for c := 0; c < 12; c++ {
		b := array.NewRecordBuilder(mem, sc)
		for _, p := range rng.Perm(24)[:8] {
			for i := 0; i < 3; i++ {
				b.Field(0).(*array.StringBuilder).Append(day(p))
				b.Field(1).(*array.Int64Builder).Append(int64(c*3 + i))
				b.Field(2).(*array.Int64Builder).Append(int64(c*100 + p))
				b.Field(3).(*array.StringBuilder).Append(fmt.Sprint("s", c, p, i))
			}
		}
		rec := b.NewRecordBatch()
		b.Release()
		w := wt.NewWriter(mem)
		if err := w.Write(ctx, rec); err != nil {
			t.Fatal(err)
		}
		rec.Release()
		if _, err := w.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		sch, err := tbl.LatestSchema(ctx)
		if err != nil {
			t.Fatal(err)
		}
		switch c {
		case 4, 9: // delete some rows of some days
			pred := predicate.NewOr(leaf(sch, "dt", predicate.Eq, day(c%24)), leaf(sch, "k", predicate.Lt, int64(4)))
			if _, err := wt.DeleteWith(ctx, mem, pred); err != nil {
				t.Fatal(err)
			}
		case 6: // full compaction
			if _, err := wt.Compact(ctx, write.CompactOptions{Full: true, Mem: mem}); err != nil {
				t.Fatal(err)
			}
		}
	}
	return tbl
}

// comparablePlan drops what legitimately differs between a cached and an
// uncached plan (the cache counter).
func comparablePlan(p *scan.Plan) *scan.Plan {
	q := *p
	q.ManifestsCached = 0
	return &q
}

// Planning through the manifest cache, cold and warm, gives exactly the plan
// of reading every manifest file (same splits in the same order, same
// counters), for every snapshot of append, deletion-vector and primary-key
// tables written with deletes, compactions and manifest merges, for
// selective and full queries; and a warm plan reads the same rows.
func TestPlanCacheMatchesUncached(t *testing.T) {
	mem := testutil.CheckedAllocator(t)
	ctx := context.Background()
	cache := paimon.DefaultManifestCache()
	budget := cache.MaxBytes()
	defer cache.SetMaxBytes(budget)
	tables := map[string]*paimon.Table{
		"append": planCacheTable(t, mem, "append", nil, false),
		"dv":     planCacheTable(t, mem, "dv", map[string]string{"deletion-vectors.enabled": "true"}, false),
		"pk":     planCacheTable(t, mem, "pk", nil, true),
		"pk_dv":  planCacheTable(t, mem, "pk_dv", map[string]string{"deletion-vectors.enabled": "true"}, true),
	}
	for name, tbl := range tables {
		sc, err := tbl.LatestSchema(ctx)
		if err != nil {
			t.Fatal(err)
		}
		filters := map[string]predicate.Predicate{
			"none":      nil,
			"1day":      leaf(sc, "dt", predicate.Eq, day(5)),
			"3days":     leaf(sc, "dt", predicate.In, day(1), day(7), day(20)),
			"range":     predicate.NewAnd(leaf(sc, "dt", predicate.GtEq, day(10)), leaf(sc, "dt", predicate.Lt, day(14))),
			"day+key":   predicate.NewAnd(leaf(sc, "dt", predicate.Eq, day(3)), leaf(sc, "k", predicate.Eq, int64(7))),
			"nothing":   leaf(sc, "dt", predicate.Eq, "2099-01-01"),
			"valueonly": leaf(sc, "v", predicate.Gt, int64(900)),
		}
		snaps, err := tbl.Snapshots(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(snaps) < 14 {
			t.Fatalf("%s: %d snapshots", name, len(snaps))
		}
		cachedAny := 0
		for _, s := range snaps {
			for fname, f := range filters {
				o := scan.Options{Filter: f, SnapshotID: s.ID}
				plan := func() *scan.Plan {
					sp, err := scan.New(ctx, tbl, o)
					if err != nil {
						t.Fatal(err)
					}
					p, err := sp.Plan(ctx)
					if err != nil {
						t.Fatalf("%s snapshot %d %s: %v", name, s.ID, fname, err)
					}
					return p
				}
				cache.SetMaxBytes(0)
				want := plan()
				cache.SetMaxBytes(64 << 20)
				cache.Clear()
				cold := plan()
				warm := plan()
				what := fmt.Sprintf("%s snapshot %d %s", name, s.ID, fname)
				if cold.ManifestsCached != 0 || want.ManifestsCached != 0 {
					t.Errorf("%s: cached manifests on cold/uncached plans", what)
				}
				if n := warm.Stats.ManifestsTotal - warm.Stats.ManifestsPruned; warm.ManifestsCached != n {
					t.Errorf("%s: warm plan read %d of %d manifests from the cache", what, warm.ManifestsCached, n)
				}
				cachedAny += warm.ManifestsCached
				for label, got := range map[string]*scan.Plan{"cold": cold, "warm": warm} {
					if !reflect.DeepEqual(comparablePlan(got), comparablePlan(want)) {
						t.Errorf("%s: %s plan differs: stats %+v, want %+v; %d splits, want %d",
							what, label, got.Stats, want.Stats, len(got.Splits), len(want.Splits))
					}
				}
			}
		}
		if cachedAny == 0 {
			t.Errorf("%s: no manifest served from the cache", name)
		}
		// Rows: warm reads equal uncached reads (latest snapshot).
		for fname, f := range filters {
			cache.SetMaxBytes(0)
			want := readAll(t, ctx, mem, tbl, scan.Options{Filter: f})
			cache.SetMaxBytes(64 << 20)
			readAll(t, ctx, mem, tbl, scan.Options{Filter: f})
			got := readAll(t, ctx, mem, tbl, scan.Options{Filter: f})
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("%s %s: warm read %d rows, uncached %d", name, fname, len(got), len(want))
			}
		}
	}
}

// Fixture tables (Java-written): every snapshot plans the same through a
// cold and a warm cache as without it.
func TestPlanCacheFixtures(t *testing.T) {
	root := testutil.FixturesDir(t)
	ctx := context.Background()
	fio, err := fileio.NewLocal(root)
	if err != nil {
		t.Fatal(err)
	}
	cache := paimon.DefaultManifestCache()
	budget := cache.MaxBytes()
	defer cache.SetMaxBytes(budget)
	var dirs []string
	err = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() && d.Name() == "schema" && filepath.Base(filepath.Dir(filepath.Dir(p))) != "branch" {
			rel, _ := filepath.Rel(root, filepath.Dir(p))
			dirs = append(dirs, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) == 0 {
		t.Skip("no fixture tables")
	}
	checked := 0
	for _, d := range dirs {
		tbl, err := paimon.OpenTable(ctx, fio, d, "")
		if err != nil {
			t.Fatal(err)
		}
		snaps, err := tbl.Snapshots(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range snaps {
			plan := func() (*scan.Plan, error) {
				sp, err := scan.New(ctx, tbl, scan.Options{SnapshotID: s.ID})
				if err != nil {
					return nil, err
				}
				return sp.Plan(ctx)
			}
			cache.SetMaxBytes(0)
			want, err := plan()
			if err != nil {
				continue // tables this scan does not support fail alike below
			}
			cache.SetMaxBytes(64 << 20)
			cache.Clear()
			for _, label := range []string{"cold", "warm"} {
				got, err := plan()
				if err != nil {
					t.Fatalf("%s snapshot %d %s: %v", d, s.ID, label, err)
				}
				if !reflect.DeepEqual(comparablePlan(got), comparablePlan(want)) {
					t.Errorf("%s snapshot %d: %s plan differs", d, s.ID, label)
				}
			}
			checked++
		}
	}
	if checked == 0 {
		t.Fatal("no fixture snapshot planned")
	}
	t.Logf("%d fixture snapshots of %d tables", checked, len(dirs))
}

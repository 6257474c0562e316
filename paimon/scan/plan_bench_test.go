package scan_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/binrow"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/fileio"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/scan"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/write"
)

const planDays = 365

// buildPlanTable writes a metadata-only table of nFiles data files spread
// over 365 daily partitions × 4 buckets. Clustered: one manifest per 100
// files in partition order (as daily commits produce). Spanning: files in
// rounds of every (day, bucket), as commits writing every partition produce,
// in manifests of up to 20,000 entries (as manifest merges produce), so
// every manifest spans (almost) every partition and partition statistics
// prune none. Planning never opens data files, so none are written.
func buildPlanTable(b *testing.B, nFiles int, spanning bool) *paimon.Table {
	ctx := context.Background()
	fio, err := fileio.NewLocal(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	wt, err := write.CreateTable(ctx, fio, "default", "plan", write.TableSpec{
		Fields:        []types.DataField{{Name: "dt", Type: types.NewInt().NotNull()}, {Name: "v", Type: types.NewBigInt()}},
		PartitionKeys: []string{"dt"},
		Options:       map[string]string{"bucket": "4", "bucket-key": "v"},
	})
	if err != nil {
		b.Fatal(err)
	}
	t := wt.Meta()
	part := []types.DataType{types.NewInt().NotNull()}
	stat := []types.DataType{types.NewInt(), types.NewBigInt()}
	mopts := paimon.ManifestWriteOptions{}
	var metas []paimon.ManifestFileMeta
	perManifest := 100
	if spanning {
		perManifest = 20_000
	}
	zero := int64(0)
	for m := 0; m*perManifest < nFiles; m++ {
		var entries []paimon.ManifestEntry
		lo, hi := -1, -1
		for i := m * perManifest; i < min((m+1)*perManifest, nFiles); i++ {
			d := i * planDays / nFiles
			if spanning {
				d = (i / 4) % planDays
			}
			if lo < 0 || d < lo {
				lo = d
			}
			hi = max(hi, d)
			pb, err := binrow.Serialize(part, []any{int64(d)})
			if err != nil {
				b.Fatal(err)
			}
			vmin, vmax, err := binrow.EncodeSimpleStats(stat, binrow.SimpleStats{Min: []any{int64(d), int64(i * 1000)}, Max: []any{int64(d), int64(i*1000 + 999)}})
			if err != nil {
				b.Fatal(err)
			}
			entries = append(entries, paimon.ManifestEntry{
				Kind: paimon.FileKindAdd, Partition: pb, Bucket: int32(i % 4), TotalBuckets: 4,
				File: paimon.DataFileMeta{
					FileName: fmt.Sprintf("data-%08d.parquet", i), FileSize: 1 << 20, RowCount: 1000,
					MinKey: paimon.EmptyRowBytes(), MaxKey: paimon.EmptyRowBytes(),
					KeyStats: paimon.EmptyStats(), ValueStats: paimon.SimpleStats{MinValues: vmin, MaxValues: vmax, NullCounts: []*int64{&zero, &zero}},
					ExtraFiles: []string{}, DeleteRowCount: &zero,
				},
			})
		}
		pmin, pmax, err := binrow.EncodeSimpleStats(part, binrow.SimpleStats{Min: []any{int64(lo)}, Max: []any{int64(hi)}})
		if err != nil {
			b.Fatal(err)
		}
		meta, err := t.WriteManifest(ctx, fmt.Sprintf("manifest-plan-%d", m), entries,
			paimon.SimpleStats{MinValues: pmin, MaxValues: pmax, NullCounts: []*int64{&zero}}, 0, mopts)
		if err != nil {
			b.Fatal(err)
		}
		metas = append(metas, meta)
	}
	baseSize, err := t.WriteManifestList(ctx, "manifest-list-plan-base", nil, mopts)
	if err != nil {
		b.Fatal(err)
	}
	deltaSize, err := t.WriteManifestList(ctx, "manifest-list-plan-delta", metas, mopts)
	if err != nil {
		b.Fatal(err)
	}
	snap := &paimon.Snapshot{Version: 3, ID: 1, BaseManifestList: "manifest-list-plan-base", BaseManifestListSize: &baseSize,
		DeltaManifestList: "manifest-list-plan-delta", DeltaManifestListSize: &deltaSize, CommitUser: "bench",
		CommitIdentifier: 1, CommitKind: paimon.CommitAppend, TotalRecordCount: int64(nFiles) * 1000, DeltaRecordCount: int64(nFiles) * 1000}
	if err := t.CommitSnapshot(ctx, snap); err != nil {
		b.Fatal(err)
	}
	return t
}

// BenchmarkPlan measures planning time against the table's file count, for
// a full scan and for a query selecting one partition and one value range.
// Selective planning should stay flat: it opens only the manifests whose
// partition range matches.
func BenchmarkPlan(b *testing.B) {
	ctx := context.Background()
	for _, n := range []int{1_000, 10_000, 100_000} {
		t := buildPlanTable(b, n, false)
		sc, err := t.LatestSchema(ctx)
		if err != nil {
			b.Fatal(err)
		}
		dt, _ := sc.FieldByName("dt")
		v, _ := sc.FieldByName("v")
		selective := predicate.NewAnd(
			&predicate.Leaf{Column: "dt", FieldID: dt.ID, Type: dt.Type, Op: predicate.Eq, Literals: []any{int64(200)}},
			&predicate.Leaf{Column: "v", FieldID: v.ID, Type: v.Type, Op: predicate.Lt, Literals: []any{int64(n*1000*200/planDays + 2500)}},
		)
		for _, q := range []struct {
			name   string
			filter predicate.Predicate
		}{{"full", nil}, {"selective", selective}} {
			b.Run(fmt.Sprintf("files=%d/%s", n, q.name), func(b *testing.B) {
				var planned int
				for i := 0; i < b.N; i++ {
					s, err := scan.New(ctx, t, scan.Options{Filter: q.filter})
					if err != nil {
						b.Fatal(err)
					}
					p, err := s.Plan(ctx)
					if err != nil {
						b.Fatal(err)
					}
					planned = len(p.Splits)
				}
				b.ReportMetric(float64(planned), "splits")
			})
		}
	}
}

// BenchmarkPlanSpanning measures planning one day of 365 (and all files) on
// tables whose merged manifests span every partition, at ~1k/10k/100k files:
// nocache = reading every surviving manifest file (the manifest cache
// disabled), cold = the same with the cache filling (cleared before each
// run), warm = served from the process-wide manifest cache.
func BenchmarkPlanSpanning(b *testing.B) {
	ctx := context.Background()
	cache := paimon.DefaultManifestCache()
	defer cache.SetMaxBytes(cache.MaxBytes())
	for _, n := range []int{1_000, 10_000, 100_000} {
		t := buildPlanTable(b, n, true)
		sc, err := t.LatestSchema(ctx)
		if err != nil {
			b.Fatal(err)
		}
		dt, _ := sc.FieldByName("dt")
		day := &predicate.Leaf{Column: "dt", FieldID: dt.ID, Type: dt.Type, Op: predicate.Eq, Literals: []any{int64(200)}}
		for _, q := range []struct {
			name   string
			filter predicate.Predicate
		}{{"1day", day}, {"full", nil}} {
			b.Run(fmt.Sprintf("files=%d/%s/paired", n, q.name), func(b *testing.B) {
				benchPlanPaired(b, t, q.filter)
			})
			for _, mode := range []string{"nocache", "cold", "warm"} {
				b.Run(fmt.Sprintf("files=%d/%s/%s", n, q.name, mode), func(b *testing.B) {
					cache.Clear()
					budget := paimon.DefaultManifestCacheBytes
					if mode == "nocache" {
						budget = 0
					}
					cache.SetMaxBytes(budget)
					plan := func() *scan.Plan {
						s, err := scan.New(ctx, t, scan.Options{Filter: q.filter})
						if err != nil {
							b.Fatal(err)
						}
						p, err := s.Plan(ctx)
						if err != nil {
							b.Fatal(err)
						}
						return p
					}
					if mode == "warm" {
						plan()
					}
					var p *scan.Plan
					b.ResetTimer()
					for i := 0; i < b.N; i++ {
						if mode == "cold" {
							b.StopTimer()
							cache.Clear()
							b.StartTimer()
						}
						p = plan()
					}
					b.StopTimer()
					if mode == "warm" && p.ManifestsCached != p.Stats.ManifestsTotal-p.Stats.ManifestsPruned {
						b.Fatalf("warm plan read %d of %d manifests from the cache", p.ManifestsCached, p.Stats.ManifestsTotal)
					}
					b.ReportMetric(float64(len(p.Splits)), "splits")
					b.ReportMetric(float64(p.Stats.ManifestsTotal), "manifests")
					b.ReportMetric(float64(cache.Stats().Bytes)/(1<<20), "cacheMiB")
				})
			}
		}
	}
}

// benchPlanPaired runs nocache, cold and warm planning back to back in each
// iteration, alternating the order of nocache and cold (so a loaded machine
// slows all three alike), and reports the median of each in ms.
func benchPlanPaired(b *testing.B, t *paimon.Table, filter predicate.Predicate) {
	ctx := context.Background()
	cache := paimon.DefaultManifestCache()
	plan := func(budget int64, clear bool) time.Duration {
		cache.SetMaxBytes(budget)
		if clear {
			cache.Clear()
		}
		start := time.Now()
		s, err := scan.New(ctx, t, scan.Options{Filter: filter})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := s.Plan(ctx); err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
	var nocache, cold, warm []float64
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	for i := 0; i < b.N; i++ {
		if i%2 == 0 { // alternate the order of nocache and cold
			nocache = append(nocache, ms(plan(0, true)))
		}
		cold = append(cold, ms(plan(paimon.DefaultManifestCacheBytes, true)))
		warm = append(warm, ms(plan(paimon.DefaultManifestCacheBytes, false)))
		if i%2 == 1 {
			nocache = append(nocache, ms(plan(0, true)))
		}
	}
	med := func(v []float64) float64 { slices.Sort(v); return v[len(v)/2] }
	b.ReportMetric(med(nocache), "nocache-ms")
	b.ReportMetric(med(cold), "cold-ms")
	b.ReportMetric(med(warm), "warm-ms")
	b.ReportMetric(0, "ns/op")
}

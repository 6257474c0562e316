package write

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/paimon-flightsql/paimon-flightsql/paimon"
)

// ExpireOptions override the table's retention options for one
// ExpireSnapshots call; zero values mean "use the table option".
type ExpireOptions struct {
	RetainMin    int           // snapshot.num-retained.min
	RetainMax    int           // snapshot.num-retained.max
	TimeRetained time.Duration // snapshot.time-retained
	Limit        int           // snapshot.expire.limit
	// OlderThan, when set, makes snapshots created before it expirable
	// (instead of TimeRetained).
	OlderThan time.Time
	// NoTableDefaults: fields left zero take the defaults of Java's
	// ExpireConfig builder instead of the table options — retain at least
	// 1, at most unlimited, no time bound, no limit per call — as CALL
	// sys.expire_snapshots does.
	NoTableDefaults bool
	Now             time.Time // clock (time.Now when zero)
}

// fileRefs is a set of files referenced by snapshots or tags.
type fileRefs struct {
	data      map[string]bool // data file paths
	manifests map[string]bool // manifest, manifest-list and index-manifest names
	index     map[string]bool // index file paths
}

func newFileRefs() *fileRefs {
	return &fileRefs{data: map[string]bool{}, manifests: map[string]bool{}, index: map[string]bool{}}
}

// collect adds every file snapshot s references.
func (t *Table) collect(ctx context.Context, s *paimon.Snapshot, r *fileRefs, manifestCache map[string][]paimon.ManifestEntry) error {
	lists := []string{s.BaseManifestList, s.DeltaManifestList}
	if s.ChangelogManifestList != nil {
		lists = append(lists, *s.ChangelogManifestList)
	}
	var all [][]paimon.ManifestEntry
	for i, l := range lists {
		if l == "" {
			continue
		}
		r.manifests[l] = true
		metas, err := t.meta.ReadManifestList(ctx, l, "avro")
		if err != nil {
			return err
		}
		for _, m := range metas {
			r.manifests[m.FileName] = true
			es, ok := manifestCache[m.FileName]
			if !ok {
				if es, err = t.meta.ReadManifest(ctx, m.FileName, "avro"); err != nil {
					return err
				}
				manifestCache[m.FileName] = es
			}
			if i < 2 {
				all = append(all, es)
			} else { // changelog files
				for _, e := range es {
					p, err := t.dataFilePath(e.Partition, int(e.Bucket), e.File.FileName)
					if err != nil {
						return err
					}
					r.data[p] = true
				}
			}
		}
	}
	live, err := paimon.MergeEntries(all)
	if err != nil {
		return fmt.Errorf("snapshot %d: %w", s.ID, err)
	}
	for _, e := range live {
		p, err := t.dataFilePath(e.Partition, int(e.Bucket), e.File.FileName)
		if err != nil {
			return err
		}
		r.data[p] = true
		for _, x := range e.File.ExtraFiles {
			r.data[p[:len(p)-len(e.File.FileName)]+x] = true
		}
	}
	if s.IndexManifest != nil {
		r.manifests[*s.IndexManifest] = true
		idx, err := t.meta.ReadIndexManifest(ctx, *s.IndexManifest, "avro")
		if err != nil {
			return err
		}
		for _, e := range idx {
			p := t.indexPath(e.IndexFile.FileName)
			if t.schema.IndexFileInDataFileDir() {
				d, err := t.bucketDir(e.Partition, int(e.Bucket))
				if err != nil {
					return err
				}
				p = d + "/" + e.IndexFile.FileName
			}
			r.index[p] = true
		}
	}
	return nil
}

// ExpireSnapshots expires old snapshots of this branch as
// ExpireSnapshotsImpl does: keep at least RetainMin, expire beyond
// RetainMax, in between expire those older than TimeRetained, never expire
// snapshots at or after a consumer's nextSnapshot or a snapshot pinned by
// a scan of this process. Files are deleted only
// when no remaining snapshot or tag of any branch references them. It
// returns the number of snapshots expired.
func (t *Table) ExpireSnapshots(ctx context.Context, o ExpireOptions) (int, error) {
	const unlimited = int(^uint32(0) >> 1)
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	cutoff := int64(math.MinInt64) // snapshots created before cutoff (ms) may expire
	if o.NoTableDefaults {
		if o.RetainMin <= 0 {
			o.RetainMin = 1
		}
		if o.RetainMax <= 0 {
			o.RetainMax = unlimited
		}
		if o.Limit <= 0 {
			o.Limit = unlimited
		}
		if o.TimeRetained > 0 {
			cutoff = o.Now.Add(-o.TimeRetained).UnixMilli()
		}
	} else {
		if o.RetainMin <= 0 {
			o.RetainMin = t.opts.retainMin
		}
		if o.RetainMax <= 0 {
			o.RetainMax = t.opts.retainMax
		}
		if o.TimeRetained <= 0 {
			o.TimeRetained = t.opts.timeRetained
		}
		if o.Limit <= 0 {
			o.Limit = t.opts.expireLimit
		}
		cutoff = o.Now.Add(-o.TimeRetained).UnixMilli()
	}
	if !o.OlderThan.IsZero() {
		cutoff = o.OlderThan.UnixMilli()
	}
	if o.RetainMin < 1 || o.RetainMax < o.RetainMin {
		return 0, invalidf("snapshot retention: min %d, max %d", o.RetainMin, o.RetainMax)
	}
	earliest, ok, err := t.meta.EarliestSnapshotID(ctx)
	if err != nil || !ok {
		return 0, err
	}
	latest, _, err := t.meta.LatestSnapshotID(ctx)
	if err != nil {
		return 0, err
	}
	maxExclusive := latest - int64(o.RetainMin) + 1
	consumers, err := t.meta.Consumers(ctx)
	if err != nil {
		return 0, err
	}
	for _, c := range consumers {
		if c.NextSnapshot < maxExclusive {
			maxExclusive = c.NextSnapshot
		}
	}
	// Snapshots read by scans of this process stay (paimon.Table.PinSnapshot).
	if pinned, ok := t.meta.OldestPinnedSnapshot(); ok && pinned < maxExclusive {
		maxExclusive = pinned
	}
	forced := latest - int64(o.RetainMax) + 1
	end := earliest
	for ; end < maxExclusive && int(end-earliest) < o.Limit; end++ {
		if end < forced {
			continue
		}
		s, err := t.meta.Snapshot(ctx, end)
		if err != nil {
			return 0, err
		}
		if s.TimeMillis >= cutoff {
			break
		}
	}
	if end <= earliest {
		return 0, nil
	}
	cache := map[string][]paimon.ManifestEntry{}
	keep := newFileRefs()
	for id := end; id <= latest; id++ {
		s, err := t.meta.Snapshot(ctx, id)
		if err != nil {
			return 0, err
		}
		if err := t.collect(ctx, s, keep, cache); err != nil {
			return 0, err
		}
	}
	if err := t.collectOtherRefs(ctx, keep, cache); err != nil {
		return 0, err
	}
	drop := newFileRefs()
	for id := earliest; id < end; id++ {
		s, err := t.meta.Snapshot(ctx, id)
		if err != nil {
			return 0, err
		}
		if err := t.collect(ctx, s, drop, cache); err != nil {
			return 0, err
		}
	}
	del := func(p string) error {
		if err := t.io.Delete(ctx, p); err != nil {
			return fmt.Errorf("expire snapshots of %s: delete %s: %w", t.root, p, err)
		}
		return nil
	}
	for p := range drop.data {
		if !keep.data[p] {
			if err := del(p); err != nil {
				return 0, err
			}
		}
	}
	for n := range drop.manifests {
		if !keep.manifests[n] {
			if err := del(t.manifestPath(n)); err != nil {
				return 0, err
			}
		}
	}
	for p := range drop.index {
		if !keep.index[p] {
			if err := del(p); err != nil {
				return 0, err
			}
		}
	}
	for id := earliest; id < end; id++ {
		if err := del(t.snapshotPath(id)); err != nil {
			return 0, err
		}
	}
	if err := t.io.Overwrite(ctx, t.branchPath()+"/snapshot/EARLIEST", []byte(strconv.FormatInt(end, 10))); err != nil {
		return 0, err
	}
	return int(end - earliest), nil
}

// collectOtherRefs adds the files of every tag of every branch and of every
// snapshot of the other branches (they share data and manifest files).
func (t *Table) collectOtherRefs(ctx context.Context, r *fileRefs, cache map[string][]paimon.ManifestEntry) error {
	branches, err := t.meta.ListBranches(ctx)
	if err != nil {
		return err
	}
	all := append([]string{paimon.MainBranch}, branches...)
	for _, b := range all {
		bt, err := t.meta.Branch(ctx, b)
		if err != nil {
			return err
		}
		tags, err := bt.Tags(ctx)
		if err != nil {
			return err
		}
		for _, tg := range tags {
			s := tg.Snapshot
			if err := t.collect(ctx, &s, r, cache); err != nil {
				return err
			}
		}
		if b == t.branch {
			continue
		}
		snaps, err := bt.Snapshots(ctx)
		if err != nil {
			return err
		}
		for _, s := range snaps {
			if err := t.collect(ctx, s, r, cache); err != nil {
				return err
			}
		}
	}
	return nil
}

package write

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// manifestsOf returns the data manifests of a snapshot (base then delta).
func (t *Table) manifestsOf(ctx context.Context, s *paimon.Snapshot) ([]paimon.ManifestFileMeta, error) {
	base, err := t.meta.ReadManifestList(ctx, s.BaseManifestList, "avro")
	if err != nil {
		return nil, err
	}
	delta, err := t.meta.ReadManifestList(ctx, s.DeltaManifestList, "avro")
	if err != nil {
		return nil, err
	}
	return append(base, delta...), nil
}

// liveEntries returns the live data files (ADD entries) of a snapshot: the
// file set scans and system tables read (paimon.Table.ReadFileSet).
func (t *Table) liveEntries(ctx context.Context, s *paimon.Snapshot) ([]paimon.ManifestEntry, error) {
	if s == nil {
		return nil, nil
	}
	fs, err := t.meta.ReadFileSet(ctx, s, &paimon.FileSetOptions{ManifestFormat: "avro", SkipIndex: true})
	if err != nil {
		return nil, err
	}
	return fs.Entries, nil
}

// indexEntries returns the index manifest entries of a snapshot.
func (t *Table) indexEntries(ctx context.Context, s *paimon.Snapshot) ([]paimon.IndexManifestEntry, error) {
	if s == nil || s.IndexManifest == nil {
		return nil, nil
	}
	return t.meta.ReadIndexManifest(ctx, *s.IndexManifest, "avro")
}

// commitRequest is one atomic change to a table.
type commitRequest struct {
	kind    paimon.CommitKind
	entries []paimon.ManifestEntry // ADD and DELETE entries (DELETEs repeat the live identity)
	// Index changes: names of index files removed (must be live) and entries added.
	indexDeletes []string
	indexAdds    []paimon.IndexManifestEntry
	indexChange  bool
	// requireLive lists entry keys of data files that must still be live
	// (e.g. files whose deletion vectors this commit replaces).
	requireLive []paimon.ManifestEntry
	// hashBase: dynamic-bucket HASH index state the write assigned against.
	hashBase []hashBase
	// newFiles are the paths of data and index files written for this commit,
	// deleted when the commit fails for good.
	newFiles []string
	// overwrite makes this an OVERWRITE commit (overwrite.go): every live
	// data and index file of the partitions it matches in the snapshot the
	// commit lands on is deleted, then entries are added.
	overwrite *overwriteScope
}

// commit publishes req as snapshot latest+1, retrying on lost races. It
// fails with an error wrapping ErrConflict when a file this commit removes
// or depends on is no longer live.
// commit commits req as a new snapshot, then expires old snapshots by the
// table's retention options as Java does after every commit (unless the
// table is write-only). Expiry is maintenance: its failure does not undo or
// fail the commit; it is kept in LastExpireError and the next commit (or
// CALL sys.expire_snapshots) tries again.
func (t *Table) commit(ctx context.Context, req *commitRequest) (int64, error) {
	id, err := t.commitSnapshot(ctx, req)
	if err != nil || id == 0 || t.opts.writeOnly {
		return id, err
	}
	_, t.LastExpireError = t.ExpireSnapshots(context.WithoutCancel(ctx), ExpireOptions{})
	return id, nil
}

func (t *Table) commitSnapshot(ctx context.Context, req *commitRequest) (id int64, err error) {
	names := newNameFactory()
	var written []string // metadata files of this commit (kept on success)
	defer func() {
		if err != nil {
			for _, p := range append(written, req.newFiles...) {
				_ = t.io.Delete(context.WithoutCancel(ctx), p)
			}
		}
	}()
	writeFile := func(name string, data []byte) error {
		p := t.manifestPath(name)
		written = append(written, p)
		return t.io.Overwrite(ctx, p, data)
	}
	// The delta is independent of the base snapshot: write it once (an
	// overwrite's deletions depend on it: written per attempt).
	writeDelta := func(entries []paimon.ManifestEntry) (string, int64, int64, error) {
		var metas []paimon.ManifestFileMeta
		if len(entries) > 0 {
			m, err := t.writeManifest(ctx, names, entries, writeFile)
			if err != nil {
				return "", 0, 0, err
			}
			metas = append(metas, m)
		}
		list, size, err := t.writeManifestList(names, metas, writeFile)
		if err != nil {
			return "", 0, 0, err
		}
		var records int64
		for _, e := range entries {
			if e.Kind == paimon.FileKindAdd {
				records += e.File.RowCount
			} else {
				records -= e.File.RowCount
			}
		}
		return list, size, records, nil
	}
	var deltaList string
	var deltaSize, deltaRecords int64
	if req.overwrite == nil {
		if deltaList, deltaSize, deltaRecords, err = writeDelta(req.entries); err != nil {
			return 0, err
		}
	}
	wait := 10 * time.Millisecond
	for attempt := 0; ; attempt++ {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		attemptStart := len(written)
		latest, err := t.latestSnapshot(ctx)
		if err != nil {
			return 0, err
		}
		if req.overwrite != nil {
			entries, err := t.overwriteEntries(ctx, latest, req)
			if err != nil {
				return 0, err
			}
			if len(entries) == 0 && !req.indexChange {
				return 0, nil // nothing to replace, nothing to add
			}
			if deltaList, deltaSize, deltaRecords, err = writeDelta(entries); err != nil {
				return 0, err
			}
		}
		if err := t.checkConflicts(ctx, latest, req); err != nil {
			return 0, err
		}
		var baseMetas []paimon.ManifestFileMeta
		if latest != nil {
			if baseMetas, err = t.manifestsOf(ctx, latest); err != nil {
				return 0, err
			}
		}
		baseMetas, err = t.mergeManifests(ctx, names, baseMetas, writeFile)
		if err != nil {
			return 0, err
		}
		baseList, baseSize, err := t.writeManifestList(names, baseMetas, writeFile)
		if err != nil {
			return 0, err
		}
		var indexManifest *string
		if latest != nil {
			indexManifest = latest.IndexManifest
		}
		if req.indexChange {
			name, err := t.writeIndexManifest(ctx, names, latest, req, writeFile)
			if err != nil {
				return 0, err
			}
			indexManifest = &name
		}
		snap := &paimon.Snapshot{
			Version: 3, SchemaID: t.schema.ID, BaseManifestList: baseList, BaseManifestListSize: &baseSize,
			DeltaManifestList: deltaList, DeltaManifestListSize: &deltaSize, IndexManifest: indexManifest,
			CommitUser: t.commitUser, CommitIdentifier: math.MaxInt64, CommitKind: req.kind,
			TimeMillis: time.Now().UnixMilli(), DeltaRecordCount: deltaRecords,
		}
		var nextRowID int64
		snap.ID = 1
		if latest != nil {
			snap.ID = latest.ID + 1
			snap.TotalRecordCount = latest.TotalRecordCount
			snap.Watermark = latest.Watermark
			if latest.SchemaID == t.schema.ID {
				snap.Statistics = latest.Statistics
			}
			if latest.NextRowID != nil {
				nextRowID = *latest.NextRowID
			}
		}
		snap.NextRowID = &nextRowID
		snap.TotalRecordCount += deltaRecords
		data, err := snap.MarshalJSON()
		if err != nil {
			return 0, fmt.Errorf("encode snapshot %d: %w", snap.ID, err)
		}
		created, err := t.io.CreateIfAbsent(ctx, t.snapshotPath(snap.ID), data)
		if err != nil {
			return 0, fmt.Errorf("write snapshot %d of %s: %w", snap.ID, t.root, err)
		}
		if created {
			hint := []byte(strconv.FormatInt(snap.ID, 10))
			_ = t.io.Overwrite(ctx, t.branchPath()+"/snapshot/LATEST", hint)
			if snap.ID == 1 {
				_ = t.io.Overwrite(ctx, t.branchPath()+"/snapshot/EARLIEST", hint)
			}
			return snap.ID, nil
		}
		// Lost the race for snapshot-N: drop this attempt's base files and retry.
		for _, p := range written[attemptStart:] {
			_ = t.io.Delete(ctx, p)
		}
		written = written[:attemptStart]
		if attempt >= t.opts.commitMaxRetries {
			return 0, fmt.Errorf("%w: table %s: snapshot %d was taken by a concurrent commit and %d retries were exhausted", ErrConflict, t.root, snap.ID, attempt)
		}
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(wait):
		}
		if wait < time.Second {
			wait *= 2
		}
	}
}

func (t *Table) latestSnapshot(ctx context.Context) (*paimon.Snapshot, error) {
	id, ok, err := t.meta.LatestSnapshotID(ctx)
	if err != nil || !ok {
		return nil, err
	}
	return t.meta.Snapshot(ctx, id)
}

// checkConflicts verifies that every file req deletes or depends on is
// still live in latest (ConflictDetection).
func (t *Table) checkConflicts(ctx context.Context, latest *paimon.Snapshot, req *commitRequest) error {
	needData := len(req.requireLive) > 0
	for _, e := range req.entries {
		if e.Kind == paimon.FileKindDelete {
			needData = true
		}
	}
	if needData {
		live, err := t.liveEntries(ctx, latest)
		if err != nil {
			return err
		}
		set := make(map[paimon.FileIdentifier]bool, len(live))
		for i := range live {
			set[live[i].Identifier()] = true
		}
		for _, e := range req.entries {
			if e.Kind == paimon.FileKindDelete && !set[e.Identifier()] {
				return fmt.Errorf("%w: table %s: data file %s (bucket %d, level %d) was removed by a concurrent commit", ErrConflict, t.root, e.File.FileName, e.Bucket, e.File.Level)
			}
		}
		for _, e := range req.requireLive {
			if !set[e.Identifier()] {
				return fmt.Errorf("%w: table %s: data file %s (bucket %d), whose deletion vector this commit writes, was removed by a concurrent commit", ErrConflict, t.root, e.File.FileName, e.Bucket)
			}
		}
	}
	if len(req.hashBase) > 0 {
		idx, err := t.indexEntries(ctx, latest)
		if err != nil {
			return err
		}
		if err := t.checkHashBase(idx, req.hashBase); err != nil {
			return err
		}
	}
	if len(req.indexDeletes) > 0 {
		idx, err := t.indexEntries(ctx, latest)
		if err != nil {
			return err
		}
		set := map[string]bool{}
		for _, e := range idx {
			set[e.IndexFile.FileName] = true
		}
		for _, n := range req.indexDeletes {
			if !set[n] {
				return fmt.Errorf("%w: table %s: index file %s was replaced by a concurrent commit", ErrConflict, t.root, n)
			}
		}
	}
	return nil
}

func (t *Table) writeManifest(ctx context.Context, names *nameFactory, entries []paimon.ManifestEntry, writeFile func(string, []byte) error) (paimon.ManifestFileMeta, error) {
	data, err := t.encodeManifest(entries)
	if err != nil {
		return paimon.ManifestFileMeta{}, fmt.Errorf("encode manifest: %w", err)
	}
	name := names.next("manifest-", "")
	if err := writeFile(name, data); err != nil {
		return paimon.ManifestFileMeta{}, fmt.Errorf("write manifest %s: %w", name, err)
	}
	return t.manifestMeta(name, int64(len(data)), entries)
}

func (t *Table) writeManifestList(names *nameFactory, metas []paimon.ManifestFileMeta, writeFile func(string, []byte) error) (string, int64, error) {
	if metas == nil {
		metas = []paimon.ManifestFileMeta{}
	}
	data, err := t.encodeManifestList(metas)
	if err != nil {
		return "", 0, fmt.Errorf("encode manifest list: %w", err)
	}
	name := names.next("manifest-list-", "")
	if err := writeFile(name, data); err != nil {
		return "", 0, fmt.Errorf("write manifest list %s: %w", name, err)
	}
	return name, int64(len(data)), nil
}

// manifestMeta computes the manifest-list record of a manifest file.
func (t *Table) manifestMeta(name string, size int64, entries []paimon.ManifestEntry) (paimon.ManifestFileMeta, error) {
	m := paimon.ManifestFileMeta{FileName: name, FileSize: size, SchemaID: t.schema.ID}
	pt := t.partitionTypes()
	mins := make([]any, len(pt))
	maxs := make([]any, len(pt))
	nulls := make([]int64, len(pt))
	var minB, maxB, minL, maxL int32
	var maxSchema int64 = -1
	for i, e := range entries {
		if e.Kind == paimon.FileKindAdd {
			m.NumAddedFiles++
		} else {
			m.NumDeletedFiles++
		}
		if e.File.SchemaID > maxSchema {
			maxSchema = e.File.SchemaID
		}
		if i == 0 || e.Bucket < minB {
			minB = e.Bucket
		}
		if i == 0 || e.Bucket > maxB {
			maxB = e.Bucket
		}
		if i == 0 || e.File.Level < minL {
			minL = e.File.Level
		}
		if i == 0 || e.File.Level > maxL {
			maxL = e.File.Level
		}
		if len(pt) > 0 {
			vals, err := t.decodePartition(e.Partition)
			if err != nil {
				return m, err
			}
			for j, v := range vals {
				if v == nil {
					nulls[j]++
					continue
				}
				if mins[j] == nil || compareValues(v, mins[j]) < 0 {
					mins[j] = v
				}
				if maxs[j] == nil || compareValues(v, maxs[j]) > 0 {
					maxs[j] = v
				}
			}
		}
	}
	if maxSchema >= 0 {
		m.SchemaID = maxSchema
	}
	if len(entries) > 0 {
		m.MinBucket, m.MaxBucket, m.MinLevel, m.MaxLevel = &minB, &maxB, &minL, &maxL
	}
	var err error
	nullable := make([]types.DataType, len(pt))
	for i, p := range pt {
		nullable[i] = p.WithNullable(true)
	}
	if m.PartitionStats.MinValues, err = encodeSerialized(nullable, mins); err != nil {
		return m, err
	}
	if m.PartitionStats.MaxValues, err = encodeSerialized(nullable, maxs); err != nil {
		return m, err
	}
	m.PartitionStats.NullCounts = []*int64{}
	for i := range nulls {
		n := nulls[i]
		m.PartitionStats.NullCounts = append(m.PartitionStats.NullCounts, &n)
	}
	return m, nil
}

// mergeManifests implements ManifestFileMerger (paimon-format.md §10.3):
// a full compaction of the manifests that must change when they exceed
// manifest.full-compaction-threshold-size, else a minor compaction that
// merges runs of small manifests.
func (t *Table) mergeManifests(ctx context.Context, names *nameFactory, metas []paimon.ManifestFileMeta, writeFile func(string, []byte) error) ([]paimon.ManifestFileMeta, error) {
	target := t.opts.manifestTarget
	var mustChange int64
	for _, m := range metas {
		if m.NumDeletedFiles > 0 || m.FileSize < target {
			mustChange += m.FileSize
		}
	}
	merge := func(group []paimon.ManifestFileMeta) ([]paimon.ManifestFileMeta, error) {
		all := make([][]paimon.ManifestEntry, 0, len(group))
		var inSize int64
		var nIn int
		for _, m := range group {
			es, err := t.meta.ReadManifest(ctx, m.FileName, "avro")
			if err != nil {
				return nil, err
			}
			all = append(all, es)
			inSize += m.FileSize
			nIn += len(es)
		}
		folded, err := paimon.FoldEntries(all)
		if err != nil {
			return nil, err
		}
		if len(folded) == 0 {
			return nil, nil
		}
		// Order the merged entries by partition and bucket and roll the
		// output at manifest.target-file-size (as Java's rolling manifest
		// writer does): each output manifest then covers a narrow partition
		// range, so its _PARTITION_STATS let planners skip it. Order inside
		// a manifest carries no meaning; unmatched DELETEs refer to ADDs of
		// earlier manifests, which stay earlier in the list.
		sort.SliceStable(folded, func(i, j int) bool {
			if c := bytes.Compare(folded[i].Partition, folded[j].Partition); c != 0 {
				return c < 0
			}
			return folded[i].Bucket < folded[j].Bucket
		})
		perFile := len(folded)
		if inSize > 0 && nIn > 0 {
			perFile = max(1, int(target/max(1, inSize/int64(nIn))))
		}
		var out []paimon.ManifestFileMeta
		for start := 0; start < len(folded); start += perFile {
			m, err := t.writeManifest(ctx, names, folded[start:min(start+perFile, len(folded))], writeFile)
			if err != nil {
				return nil, err
			}
			out = append(out, m)
		}
		return out, nil
	}
	if mustChange >= t.opts.manifestFullThresh {
		var keep, group []paimon.ManifestFileMeta
		for _, m := range metas {
			if m.NumDeletedFiles > 0 || m.FileSize < target {
				group = append(group, m)
			} else {
				keep = append(keep, m)
			}
		}
		merged, err := merge(group)
		if err != nil {
			return nil, err
		}
		return append(keep, merged...), nil
	}
	var out, group []paimon.ManifestFileMeta
	var size int64
	for _, m := range metas {
		group = append(group, m)
		size += m.FileSize
		if size >= target {
			if len(group) > 1 {
				merged, err := merge(group)
				if err != nil {
					return nil, err
				}
				out = append(out, merged...)
			} else {
				out = append(out, group...)
			}
			group, size = nil, 0
		}
	}
	if len(group) >= t.opts.manifestMinCount {
		merged, err := merge(group)
		if err != nil {
			return nil, err
		}
		return append(out, merged...), nil
	}
	return append(out, group...), nil
}

func (t *Table) writeIndexManifest(ctx context.Context, names *nameFactory, latest *paimon.Snapshot, req *commitRequest, writeFile func(string, []byte) error) (string, error) {
	prev, err := t.indexEntries(ctx, latest)
	if err != nil {
		return "", err
	}
	drop := map[string]bool{}
	for _, n := range req.indexDeletes {
		drop[n] = true
	}
	out := []paimon.IndexManifestEntry{}
	for _, e := range prev {
		if !drop[e.IndexFile.FileName] {
			out = append(out, e)
		}
	}
	out = append(out, req.indexAdds...)
	data, err := t.encodeIndexManifest(out)
	if err != nil {
		return "", fmt.Errorf("encode index manifest: %w", err)
	}
	name := names.next("index-manifest-", "")
	if err := writeFile(name, data); err != nil {
		return "", fmt.Errorf("write index manifest %s: %w", name, err)
	}
	return name, nil
}

// compareValues orders two non-nil values of the same column in the
// predicate literal convention.
func compareValues(a, b any) int {
	switch x := a.(type) {
	case int64:
		y := b.(int64)
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	case float64:
		y := b.(float64)
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	case string:
		return strings.Compare(x, b.(string))
	case bool:
		y := b.(bool)
		switch {
		case x == y:
			return 0
		case !x:
			return -1
		}
		return 1
	case []byte:
		return bytes.Compare(x, b.([]byte))
	case predicate.Decimal:
		return x.Cmp(b.(predicate.Decimal))
	case predicate.Timestamp:
		return x.Cmp(b.(predicate.Timestamp))
	}
	panic(errors.New("write: compareValues: unsupported value type"))
}

package write

import (
	"context"
	"fmt"
	"sort"
	"sync"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/arrowrow"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/binrow"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/format"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// CompactOptions control Compact.
type CompactOptions struct {
	// Full merges every file of each bucket into one top-level run (and, with
	// deletion vectors, clears the bucket's deletion vectors).
	Full bool
	// Mem is the allocator for the data read and written (nil = Go allocator).
	Mem memory.Allocator
	// Progress, when set, is called after each bucket with done/total buckets.
	Progress func(done, total int64)
	// Partitions, when not nil, limits compaction to the partitions matching
	// one of the specs (partition key → value, as CALL sys.compact's
	// partitions argument 'k1=v1,k2=v2;k1=v3'); a key that is not a
	// partition key or a value that does not parse is an error.
	Partitions []map[string]string
}

// Compact compacts a table and commits the result as ONE
// COMPACT snapshot (data files and, with deletion vectors, the new index
// manifest together). It returns the snapshot id, or 0 when nothing needed
// compaction.
//
// With deletion-vectors.enabled (seed 000) a non-full compaction force-
// compacts level-0 files up: into a free level above the highest occupied
// one, or merged with level 1. A key found only in level 0 is looked up in
// the older levels and the older row's position is marked deleted in that
// file's deletion vector; keys present in both level 0 and a rewritten
// level need no bitmap; bitmaps of rewritten files are dropped; a new index
// file is written for each changed bucket. Without deletion vectors
// (merge-on-read) every bucket with more than one sorted run is merged into
// one file at the top level.
//
// For append tables, files with deletion vectors and runs of at least five
// small files (below half the target file size) are rewritten without the
// deleted rows; Full rewrites every bucket with more than one file.
func (t *Table) Compact(ctx context.Context, opts CompactOptions) (int64, error) {
	mem := opts.Mem
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	if !t.IsPrimaryKey() {
		return t.compactAppend(ctx, mem, opts)
	}
	latest, err := t.latestSnapshot(ctx)
	if err != nil || latest == nil {
		return 0, err
	}
	live, err := t.liveEntries(ctx, latest)
	if err != nil {
		return 0, err
	}
	if live, err = t.partitionFilter(live, opts.Partitions); err != nil {
		return 0, err
	}
	var dvs *dvIndex
	if t.DeletionVectors() {
		idx, err := t.indexEntries(ctx, latest)
		if err != nil {
			return 0, err
		}
		if dvs, err = t.loadDVs(ctx, idx); err != nil {
			return 0, err
		}
	}
	groups, order := groupByBucket(live)
	req := &commitRequest{kind: paimon.CommitCompact}
	names := newNameFactory()
	fail := func(err error) (int64, error) {
		for _, p := range req.newFiles {
			_ = t.io.Delete(context.WithoutCancel(ctx), p)
		}
		return 0, err
	}
	// Buckets compact in parallel, each into its own request; the requests
	// are merged in bucket order into one commit.
	reqs := make([]*commitRequest, len(order))
	var progressMu sync.Mutex
	var done int64
	err = parallel(ctx, len(order), func(i int) error {
		r := &commitRequest{}
		reqs[i] = r
		if err := t.compactBucket(ctx, mem, names, groups[order[i]], dvs, opts.Full, r); err != nil {
			return err
		}
		if opts.Progress != nil {
			progressMu.Lock()
			done++
			opts.Progress(done, int64(len(order)))
			progressMu.Unlock()
		}
		return nil
	})
	for _, r := range reqs {
		if r == nil {
			continue
		}
		req.entries = append(req.entries, r.entries...)
		req.indexDeletes = append(req.indexDeletes, r.indexDeletes...)
		req.indexAdds = append(req.indexAdds, r.indexAdds...)
		req.requireLive = append(req.requireLive, r.requireLive...)
		req.newFiles = append(req.newFiles, r.newFiles...)
		req.indexChange = req.indexChange || r.indexChange
	}
	if err != nil {
		return fail(err)
	}
	if len(req.entries) == 0 && !req.indexChange {
		return 0, nil
	}
	if t.beforeCommit != nil {
		t.beforeCommit()
	}
	return t.commit(ctx, req)
}

// kvRead holds the rows read from compaction inputs.
type kvRead struct {
	recs  []arrow.RecordBatch
	level []int32
}

func (r *kvRead) release() {
	for _, rec := range r.recs {
		rec.Release()
	}
}

func (t *Table) compactBucket(ctx context.Context, mem memory.Allocator, names *nameFactory, files []paimon.ManifestEntry, dvs *dvIndex, full bool, req *commitRequest) error {
	dvMode := dvs != nil
	maxLevel := int32(t.opts.numLevels - 1)
	var l0, upper []paimon.ManifestEntry
	for _, f := range files {
		if f.File.Level == 0 {
			l0 = append(l0, f)
		} else {
			upper = append(upper, f)
		}
	}
	hasDV := func(f paimon.ManifestEntry) bool { return dvMode && dvs.dvs[f.File.FileName] != nil }
	var inputs []paimon.ManifestEntry
	var outLevel int32
	if dvMode && !full {
		if len(l0) == 0 {
			return nil
		}
		minOcc := int32(-1)
		for _, f := range upper {
			if minOcc < 0 || f.File.Level < minOcc {
				minOcc = f.File.Level
			}
		}
		switch {
		case minOcc < 0:
			outLevel, inputs = maxLevel, l0
		case minOcc > 1:
			outLevel, inputs = minOcc-1, l0
		default:
			outLevel = 1
			inputs = append(inputs, l0...)
			for _, f := range upper {
				if f.File.Level == 1 {
					inputs = append(inputs, f)
				}
			}
		}
	} else {
		done := len(l0) == 0
		for _, f := range upper {
			if f.File.Level != maxLevel || (f.File.DeleteRowCount != nil && *f.File.DeleteRowCount > 0) || hasDV(f) {
				done = false
			}
		}
		if !full && len(upper) <= 1 && done {
			return nil
		}
		if full && done && len(upper) <= 1 {
			return nil
		}
		inputs, outLevel = files, maxLevel
	}
	inputSet := map[string]bool{}
	for _, f := range inputs {
		inputSet[f.File.FileName] = true
	}
	// Read the inputs (skipping rows already deleted by deletion vectors).
	readFields := append([]types.DataField{format.SequenceNumberField(), format.ValueKindField()}, t.fields...)
	var rd kvRead
	defer rd.release()
	var refs []rowRef
	for _, f := range inputs {
		var dv *roaring.Bitmap
		if dvMode {
			dv = dvs.dvs[f.File.FileName]
		}
		err := t.readFile(ctx, mem, &f, readFields, func(rec arrow.RecordBatch, first int64) error {
			rec.Retain()
			ri := int32(len(rd.recs))
			rd.recs = append(rd.recs, rec)
			rd.level = append(rd.level, f.File.Level)
			seq := rec.Column(0).(*array.Int64)
			for i := 0; i < int(rec.NumRows()); i++ {
				if dv != nil && dv.Contains(uint32(first+int64(i))) {
					continue
				}
				refs = append(refs, rowRef{rec: ri, row: int32(i), seq: seq.Value(i)})
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	const off = 2
	cmpKey := func(a, b rowRef) int {
		for _, ki := range t.pkIdx {
			if d := arrowrow.Compare(rd.recs[a.rec].Column(off+ki), int(a.row), rd.recs[b.rec].Column(off+ki), int(b.row)); d != 0 {
				return d
			}
		}
		return 0
	}
	perm := make([]int, len(refs))
	for i := range perm {
		perm[i] = i
	}
	rule := &t.merge
	sort.Slice(perm, func(i, j int) bool {
		a, b := refs[perm[i]], refs[perm[j]]
		if d := cmpKey(a, b); d != 0 {
			return d < 0
		}
		if !rule.simple() {
			return rule.cmpOrder(rd.recs[a.rec], a, rd.recs[b.rec], b, off) < 0
		}
		return a.seq < b.seq
	})
	recOf := func(r rowRef) arrow.RecordBatch { return rd.recs[r.rec] }
	kindOf := func(r rowRef) int8 { return rd.recs[r.rec].Column(1).(*array.Int8).Value(int(r.row)) }
	var group []rowRef
	// Deletion vectors of the bucket after this compaction.
	newDVs := map[string]*roaring.Bitmap{}
	changed := false
	var oldIndex []string
	if dvMode {
		bucketFiles := map[string]bool{}
		for _, f := range files {
			bucketFiles[f.File.FileName] = true
		}
		for _, e := range dvs.entries {
			if string(e.Partition) == string(files[0].Partition) && e.Bucket == files[0].Bucket {
				oldIndex = append(oldIndex, e.IndexFile.FileName)
			}
		}
		for _, f := range files {
			bm := dvs.dvs[f.File.FileName]
			if bm == nil {
				continue
			}
			if inputSet[f.File.FileName] || full {
				changed = true
				continue
			}
			newDVs[f.File.FileName] = bm.Clone()
		}
	}
	var lookup map[string][]dvLoc
	// Aggregation and partial-update with deletion vectors: Java's lookup
	// compaction (LookupMergeFunction + LookupChangelogMergeFunctionWrapper)
	// merges a key found only in level 0 with the looked-up live row of the
	// lowest higher level, and applies the merge function to every group,
	// lone records too, whenever level-0 files are compacted.
	withValues := dvMode && (rule.engine == engineAggregation || rule.engine == enginePartialUpdate)
	hasL0 := false
	for _, f := range inputs {
		hasL0 = hasL0 || f.File.Level == 0
	}
	lookupMerge := withValues && hasL0
	keyTypes := make([]types.DataType, len(t.pkIdx))
	for i, ki := range t.pkIdx {
		keyTypes[i] = t.fields[ki].Type
	}
	var out []mergedRow
	var lookedUp []rowRef
	keyVals := make([]any, len(t.pkIdx))
	for i := 0; i < len(perm); {
		j := i + 1
		for j < len(perm) && cmpKey(refs[perm[i]], refs[perm[j]]) == 0 {
			j++
		}
		inL0, inUpper := false, false
		for _, p := range perm[i:j] {
			if rd.level[refs[p].rec] == 0 {
				inL0 = true
			} else {
				inUpper = true
			}
		}
		win := perm[j-1]
		if dvMode && !full && inL0 && !inUpper {
			if lookup == nil {
				var err error
				if lookup, err = t.buildLookup(ctx, mem, files, inputSet, dvs, withValues, &rd); err != nil {
					return err
				}
			}
			r := refs[win]
			for c, ki := range t.pkIdx {
				keyVals[c] = arrowrow.Value(rd.recs[r.rec].Column(off+ki), int(r.row))
			}
			kb, err := binrow.Encode(keyTypes, keyVals)
			if err != nil {
				return err
			}
			var high *dvLoc
			for i, loc := range lookup[string(kb)] {
				if high == nil || loc.level < high.level {
					high = &lookup[string(kb)][i]
				}
			}
			if withValues && high != nil {
				lookedUp = append(lookedUp[:0], high.ref)
			}
			for _, loc := range lookup[string(kb)] {
				bm := newDVs[loc.file]
				if bm == nil {
					bm = roaring.New()
					newDVs[loc.file] = bm
				}
				bm.Add(uint32(loc.pos))
				changed = true
			}
		}
		group = group[:0]
		if len(lookedUp) > 0 {
			// KeyValueBuffer.insertInto: the looked-up row goes before the
			// first record it does not precede in (sequence.field, sequence).
			group = append(group, lookedUp...)
			lookedUp = lookedUp[:0]
		}
		for _, p := range perm[i:j] {
			group = append(group, refs[p])
		}
		if len(group) > j-i {
			sort.SliceStable(group, func(a, b int) bool {
				return rule.cmpOrder(rd.recs[group[a].rec], group[a], rd.recs[group[b].rec], group[b], off) < 0
			})
		}
		// The output is the top level or a deletion-vector level: a
		// winning retraction is dropped.
		m, ok, err := rule.merge(group, kindOf, recOf, off, len(t.fields), true, lookupMerge)
		if err != nil {
			return fmt.Errorf("table %s: compact bucket %d: %w", t.root, files[0].Bucket, err)
		}
		if ok {
			out = append(out, m)
		}
		i = j
	}
	// Write the merged run.
	part, bucket := files[0].Partition, int(files[0].Bucket)
	fw, err := t.newDataFileWriter(mem, names, part, bucket, outLevel, paimon.FileSourceCompact, 0)
	if err != nil {
		return err
	}
	err = writeMerged(ctx, mem, t, fw, out, off, recOf)
	var metas []paimon.DataFileMeta
	if err == nil {
		metas, err = fw.finish(ctx)
	}
	req.newFiles = append(req.newFiles, fw.written...)
	if err != nil {
		fw.abort(ctx)
		return err
	}
	for _, f := range inputs {
		d := f
		d.Kind = paimon.FileKindDelete
		req.entries = append(req.entries, d)
	}
	for _, m := range metas {
		req.entries = append(req.entries, paimon.ManifestEntry{Kind: paimon.FileKindAdd, Partition: part,
			Bucket: int32(bucket), TotalBuckets: files[0].TotalBuckets, File: m})
	}
	if changed {
		req.indexChange = true
		req.indexDeletes = append(req.indexDeletes, oldIndex...)
		if len(newDVs) > 0 {
			e, p, err := t.writeDVIndex(ctx, names, part, bucket, newDVs)
			if p != "" {
				req.newFiles = append(req.newFiles, p)
			}
			if err != nil {
				return err
			}
			req.indexAdds = append(req.indexAdds, e)
			for _, f := range files {
				if newDVs[f.File.FileName] != nil {
					req.requireLive = append(req.requireLive, f)
				}
			}
		}
	}
	return nil
}

type dvLoc struct {
	file  string
	pos   int64
	level int32
	ref   rowRef // withValues: the row, in rd
}

// buildLookup maps every live key of the bucket's files that are not
// compaction inputs (level >= 1) to its positions; withValues reads whole
// rows (sequence number, kind, fields) into rd and points dvLoc.ref at them.
func (t *Table) buildLookup(ctx context.Context, mem memory.Allocator, files []paimon.ManifestEntry, inputs map[string]bool, dvs *dvIndex, withValues bool, rd *kvRead) (map[string][]dvLoc, error) {
	out := map[string][]dvLoc{}
	keyFields := make([]types.DataField, len(t.pkIdx))
	keyTypes := make([]types.DataType, len(t.pkIdx))
	for i, ki := range t.pkIdx {
		keyFields[i] = t.fields[ki]
		keyTypes[i] = t.fields[ki].Type
	}
	vals := make([]any, len(keyFields))
	for _, f := range files {
		if inputs[f.File.FileName] || f.File.Level == 0 {
			continue
		}
		dv := dvs.dvs[f.File.FileName]
		name, level := f.File.FileName, f.File.Level
		fields := keyFields
		if withValues {
			fields = append([]types.DataField{format.SequenceNumberField(), format.ValueKindField()}, t.fields...)
		}
		err := t.readFile(ctx, mem, &f, fields, func(rec arrow.RecordBatch, first int64) error {
			ri := int32(-1)
			if withValues {
				rec.Retain()
				ri = int32(len(rd.recs))
				rd.recs = append(rd.recs, rec)
				rd.level = append(rd.level, level)
			}
			for i := 0; i < int(rec.NumRows()); i++ {
				pos := first + int64(i)
				if dv != nil && dv.Contains(uint32(pos)) {
					continue
				}
				loc := dvLoc{file: name, pos: pos, level: level}
				for c := range vals {
					if withValues {
						vals[c] = arrowrow.Value(rec.Column(2+t.pkIdx[c]), i)
					} else {
						vals[c] = arrowrow.Value(rec.Column(c), i)
					}
				}
				if withValues {
					loc.ref = rowRef{rec: ri, row: int32(i), seq: rec.Column(0).(*array.Int64).Value(i)}
				}
				kb, err := binrow.Encode(keyTypes, vals)
				if err != nil {
					return err
				}
				out[string(kb)] = append(out[string(kb)], loc)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// writeDVIndex writes one deletion-vector index file and returns its index
// manifest entry and path.
func (t *Table) writeDVIndex(ctx context.Context, names *nameFactory, part []byte, bucket int, dvs map[string]*roaring.Bitmap) (paimon.IndexManifestEntry, string, error) {
	data, ranges, err := encodeDVIndex(dvs, t.opts.dvBitmap64)
	if err != nil {
		return paimon.IndexManifestEntry{}, "", err
	}
	name := names.next("index-", "")
	p := t.indexPath(name)
	if t.schema.IndexFileInDataFileDir() {
		d, err := t.bucketDir(part, bucket)
		if err != nil {
			return paimon.IndexManifestEntry{}, "", err
		}
		p = d + "/" + name
	}
	if err := t.io.Overwrite(ctx, p, data); err != nil {
		return paimon.IndexManifestEntry{}, p, fmt.Errorf("write deletion vector index %s: %w", p, err)
	}
	return paimon.IndexManifestEntry{Kind: paimon.FileKindAdd, Partition: part, Bucket: int32(bucket), IndexFile: paimon.IndexFileMeta{
		IndexType: dvIndexType, FileName: name, FileSize: int64(len(data)), RowCount: int64(len(ranges)), DVRanges: ranges}}, p, nil
}

// groupByBucket groups entries by (partition, bucket), the groups in the
// order of their first entry.
func groupByBucket(entries []paimon.ManifestEntry) (map[string][]paimon.ManifestEntry, []string) {
	groups := map[string][]paimon.ManifestEntry{}
	var order []string
	for _, e := range entries {
		k := bucketKey(e.Partition, int(e.Bucket))
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], e)
	}
	return groups, order
}

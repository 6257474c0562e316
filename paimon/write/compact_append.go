package write

import (
	"context"
	"sort"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/paimon"
)

// compactAppend rewrites append files (see Compact).
func (t *Table) compactAppend(ctx context.Context, mem memory.Allocator, opts CompactOptions) (int64, error) {
	latest, err := t.latestSnapshot(ctx)
	if err != nil || latest == nil {
		return 0, err
	}
	live, err := t.liveEntries(ctx, latest)
	if err != nil {
		return 0, err
	}
	idx, err := t.indexEntries(ctx, latest)
	if err != nil {
		return 0, err
	}
	dvs, err := t.loadDVs(ctx, idx)
	if err != nil {
		return 0, err
	}
	selected, err := t.partitionFilter(live, opts.Partitions)
	if err != nil {
		return 0, err
	}
	groups, order := groupByBucket(selected)
	req := &commitRequest{kind: paimon.CommitCompact}
	names := newNameFactory()
	fail := func(err error) (int64, error) {
		for _, p := range req.newFiles {
			_ = t.io.Delete(context.WithoutCancel(ctx), p)
		}
		return 0, err
	}
	removed := map[string]bool{}
	for gi, k := range order {
		files := groups[k]
		sort.SliceStable(files, func(i, j int) bool { return files[i].File.MinSequenceNumber < files[j].File.MinSequenceNumber })
		var inputs []paimon.ManifestEntry
		if opts.Full {
			withDV := false
			for _, f := range files {
				withDV = withDV || dvs.dvs[f.File.FileName] != nil
			}
			if len(files) > 1 || withDV {
				inputs = files
			}
		} else {
			var small []paimon.ManifestEntry
			for _, f := range files {
				switch {
				case dvs.dvs[f.File.FileName] != nil:
					inputs = append(inputs, f)
				case f.File.FileSize < t.opts.targetFileSize/2:
					small = append(small, f)
				}
			}
			if len(small) >= 5 {
				inputs = append(inputs, small...)
			}
		}
		if len(inputs) == 0 {
			continue
		}
		minSeq := inputs[0].File.MinSequenceNumber
		for _, f := range inputs {
			minSeq = min(minSeq, f.File.MinSequenceNumber)
		}
		fw, err := t.newDataFileWriter(mem, names, files[0].Partition, int(files[0].Bucket), 0, paimon.FileSourceCompact, minSeq)
		if err != nil {
			return fail(err)
		}
		sc := fw.sc
		for _, f := range inputs {
			dv := dvs.dvs[f.File.FileName]
			err = t.readFile(ctx, mem, &f, t.fields, func(rec arrow.RecordBatch, first int64) error {
				var keep []int64
				if dv != nil {
					for r := 0; r < int(rec.NumRows()); r++ {
						if !dv.Contains(uint32(first + int64(r))) {
							keep = append(keep, int64(r))
						}
					}
				}
				cols := make([]arrow.Array, rec.NumCols())
				for c := range cols {
					if cols[c], err = retype(mem, rec.Column(c), sc.Field(c).Type, t.fields[c].Name); err != nil {
						for _, x := range cols[:c] {
							x.Release()
						}
						return err
					}
				}
				out := array.NewRecordBatch(sc, cols, rec.NumRows())
				for _, c := range cols {
					c.Release()
				}
				defer out.Release()
				if dv != nil {
					if len(keep) == 0 {
						return nil
					}
					sub, _, err := takeRows(mem, out, nil, keep)
					if err != nil {
						return err
					}
					defer sub.Release()
					return fw.write(ctx, sub)
				}
				return fw.write(ctx, out)
			})
			if err != nil {
				break
			}
		}
		var metas []paimon.DataFileMeta
		if err == nil {
			metas, err = fw.finish(ctx)
		}
		req.newFiles = append(req.newFiles, fw.written...)
		if err != nil {
			fw.abort(ctx)
			return fail(err)
		}
		for _, f := range inputs {
			d := f
			d.Kind = paimon.FileKindDelete
			req.entries = append(req.entries, d)
			removed[f.File.FileName] = true
		}
		for _, m := range metas {
			req.entries = append(req.entries, paimon.ManifestEntry{Kind: paimon.FileKindAdd, Partition: files[0].Partition,
				Bucket: files[0].Bucket, TotalBuckets: files[0].TotalBuckets, File: m})
		}
		if opts.Progress != nil {
			opts.Progress(int64(gi+1), int64(len(order)))
		}
	}
	// Index files holding vectors of rewritten files are rewritten without them.
	byName := map[string]*paimon.ManifestEntry{}
	for i := range live {
		byName[live[i].File.FileName] = &live[i]
	}
	for _, e := range dvs.entries {
		if e.IndexFile.DVRanges == nil {
			continue
		}
		touched := false
		rest := map[string]*roaring.Bitmap{}
		for _, r := range e.IndexFile.DVRanges {
			if removed[r.DataFileName] {
				touched = true
			} else if dvs.holder[r.DataFileName] == e.IndexFile.FileName {
				rest[r.DataFileName] = dvs.dvs[r.DataFileName]
			}
		}
		if !touched {
			continue
		}
		req.indexChange = true
		req.indexDeletes = append(req.indexDeletes, e.IndexFile.FileName)
		if len(rest) > 0 {
			ne, p, err := t.writeDVIndex(ctx, names, e.Partition, int(e.Bucket), rest)
			if p != "" {
				req.newFiles = append(req.newFiles, p)
			}
			if err != nil {
				return fail(err)
			}
			req.indexAdds = append(req.indexAdds, ne)
			for f := range rest {
				if le := byName[f]; le != nil {
					req.requireLive = append(req.requireLive, *le)
				}
			}
		}
	}
	if len(req.entries) == 0 {
		return 0, nil
	}
	if t.beforeCommit != nil {
		t.beforeCommit()
	}
	return t.commit(ctx, req)
}

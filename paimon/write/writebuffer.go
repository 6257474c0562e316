package write

import (
	"context"

	"github.com/paimon-flightsql/paimon-flightsql/paimon"
)

// finishFiles writes the buffered rows and closes every data file; it
// returns their ADD entries and paths. On error every file written is
// deleted.
func (w *Writer) finishFiles(ctx context.Context) ([]paimon.ManifestEntry, []string, error) {
	entries := w.flushed
	files := w.flushedFiles
	fail := func(err error) error {
		for _, fw := range w.app {
			fw.abort(ctx)
		}
		for _, p := range files {
			_ = w.t.io.Delete(context.WithoutCancel(ctx), p)
		}
		return err
	}
	// Flush buckets in parallel (sorting and encoding are per bucket).
	writers := make([]*dataFileWriter, len(w.order))
	results := make([][]paimon.DataFileMeta, len(w.order))
	err := parallel(ctx, len(w.order), func(i int) error {
		k := w.order[i]
		fw := w.app[k]
		if b := w.pk[k]; b != nil {
			if len(b.recs) == 0 {
				return nil // everything was flushed already
			}
			var err error
			if fw, err = w.t.newDataFileWriter(w.mem, w.names, b.partition, b.bucket, 0, paimon.FileSourceAppend, 0); err != nil {
				return err
			}
			writers[i] = fw
			if err := w.flushPK(ctx, b, fw); err != nil {
				return err
			}
		}
		writers[i] = fw
		metas, err := fw.finish(ctx)
		results[i] = metas
		return err
	})
	for _, fw := range writers {
		if fw != nil {
			files = append(files, fw.written...)
		}
	}
	if err != nil {
		for _, fw := range writers {
			if fw != nil {
				fw.abort(ctx)
			}
		}
		return nil, nil, fail(err)
	}
	for i, fw := range writers {
		if fw == nil {
			continue
		}
		for _, m := range results[i] {
			entries = append(entries, paimon.ManifestEntry{Kind: paimon.FileKindAdd, Partition: fw.partition,
				Bucket: int32(fw.bucket), TotalBuckets: int32(w.t.bucket), File: m})
		}
	}
	return entries, files, nil
}

// flushBuffer writes every buffered primary-key bucket as level-0 files
// (sorted and merged per key, sequence numbers continuing) and empties the
// buffer, as Java's MergeTreeWriter does when its write buffer is full:
// several level-0 sorted runs per bucket are normal, merge-on-read and
// compaction merge them by sequence number. The files join the commit.
func (w *Writer) flushBuffer(ctx context.Context) error {
	var keys []string
	for _, k := range w.order {
		if b := w.pk[k]; b != nil && len(b.recs) > 0 {
			keys = append(keys, k)
		}
	}
	writers := make([]*dataFileWriter, len(keys))
	results := make([][]paimon.DataFileMeta, len(keys))
	err := parallel(ctx, len(keys), func(i int) error {
		b := w.pk[keys[i]]
		fw, err := w.t.newDataFileWriter(w.mem, w.names, b.partition, b.bucket, 0, paimon.FileSourceAppend, 0)
		if err != nil {
			return err
		}
		writers[i] = fw
		if err := w.flushPK(ctx, b, fw); err != nil {
			return err
		}
		results[i], err = fw.finish(ctx)
		return err
	})
	for _, fw := range writers {
		if fw != nil {
			w.flushedFiles = append(w.flushedFiles, fw.written...)
		}
	}
	if err != nil {
		for _, fw := range writers {
			if fw != nil {
				fw.abort(ctx)
			}
		}
		return err
	}
	for i, k := range keys {
		b := w.pk[k]
		for _, m := range results[i] {
			w.flushed = append(w.flushed, paimon.ManifestEntry{Kind: paimon.FileKindAdd, Partition: b.partition,
				Bucket: int32(b.bucket), TotalBuckets: int32(w.t.bucket), File: m})
		}
		// The next run continues the bucket's sequence numbers.
		w.maxSeq[k] = w.nextSeq(k) + b.rows - 1
		for _, r := range b.recs {
			r.Release()
		}
		b.recs, b.kinds, b.rows = nil, nil, 0
	}
	w.buffered = 0
	w.Flushes++
	return nil
}

func (w *Writer) release() {
	for _, b := range w.pk {
		for _, r := range b.recs {
			r.Release()
		}
		b.recs = nil
	}
}

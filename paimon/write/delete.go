package write

import (
	"context"
	"fmt"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/arrowrow"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/format"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
)

// Delete deletes the rows of t matching pred (DELETE FROM t WHERE pred) and
// commits the change; it returns the number of rows deleted. See
// Table.Delete.
func Delete(ctx context.Context, t *Table, pred predicate.Predicate) (int64, error) {
	return t.Delete(ctx, pred)
}

// Delete deletes the rows matching pred and commits:
//   - append tables with deletion vectors: the matching positions are added
//     to the files' deletion vectors (new index files, data files untouched);
//   - other append tables: files with matches are rewritten without them
//     (an OVERWRITE snapshot);
//   - primary-key tables: -D records are written for the matching keys (and,
//     with deletion vectors, compacted into deletion vectors).
//
// A nil pred deletes nothing. It implements catalog.Deleter.
func (t *Table) Delete(ctx context.Context, pred predicate.Predicate) (int64, error) {
	return t.DeleteWith(ctx, nil, pred)
}

// DeleteWith is Delete with an explicit allocator (nil = Go allocator).
func (t *Table) DeleteWith(ctx context.Context, mem memory.Allocator, pred predicate.Predicate) (int64, error) {
	if pred == nil || pred == predicate.AlwaysFalse {
		return 0, nil
	}
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	for _, c := range predicate.Columns(pred) {
		if t.fields.FieldIndex(c) < 0 {
			return 0, invalidf("table %s: DELETE filter refers to unknown column %q", t.root, c)
		}
	}
	latest, err := t.latestSnapshot(ctx)
	if err != nil || latest == nil {
		return 0, err
	}
	switch {
	case t.IsPrimaryKey():
		return t.deletePK(ctx, mem, latest, pred)
	case t.DeletionVectors():
		req, n, err := t.deleteAppendDV(ctx, mem, latest, pred, nil)
		return t.commitDelete(ctx, req, n, err)
	default:
		req, n, err := t.deleteAppendRewrite(ctx, mem, latest, pred, nil)
		return t.commitDelete(ctx, req, n, err)
	}
}

// commitDelete commits req when rows were deleted; on error it removes the
// files req wrote.
func (t *Table) commitDelete(ctx context.Context, req *commitRequest, n int64, err error) (int64, error) {
	if err != nil || n == 0 {
		if req != nil {
			req.discard(ctx, t)
		}
		return 0, err
	}
	if _, err := t.commit(ctx, req); err != nil {
		return 0, err
	}
	return n, nil
}

// discard deletes the files written for an uncommitted request.
func (r *commitRequest) discard(ctx context.Context, t *Table) {
	for _, p := range r.newFiles {
		_ = t.io.Delete(context.WithoutCancel(ctx), p)
	}
	r.newFiles = nil
}

// matchedRows calls onMatch with the rows of rec at idx (nothing when idx is
// empty or onMatch nil).
func matchedRows(mem memory.Allocator, rec arrow.RecordBatch, idx []int64, onMatch func(arrow.RecordBatch) error) error {
	if onMatch == nil || len(idx) == 0 {
		return nil
	}
	sub, _, err := takeRows(mem, rec, nil, idx)
	if err != nil {
		return err
	}
	defer sub.Release()
	return onMatch(sub)
}

// matchMask evaluates pred on rec.
func matchMask(mem memory.Allocator, pred predicate.Predicate, rec arrow.RecordBatch) (*array.Boolean, error) {
	m, err := predicate.EvalArrow(pred, rec, mem)
	if err != nil {
		return nil, fmt.Errorf("evaluate DELETE filter %s: %w", pred, err)
	}
	return m, nil
}

func (t *Table) deletePK(ctx context.Context, mem memory.Allocator, latest *paimon.Snapshot, pred predicate.Predicate) (int64, error) {
	if e := t.merge.engine; e != engineDeduplicate {
		// These engines reject DELETE records, or ignore them (ignore-delete):
		// a DELETE would fail or silently remove nothing.
		return 0, fmt.Errorf("%w: table %s: DELETE on a merge-engine %s table is not supported (the engine does not accept DELETE records)", paimon.ErrUnsupported, t.root, e)
	}
	masks := map[arrow.RecordBatch]*array.Boolean{}
	defer func() {
		for _, m := range masks {
			m.Release()
		}
	}()
	bld := array.NewRecordBuilder(mem, format.ArrowSchema(t.fields))
	defer bld.Release()
	var n int64
	err := t.visibleRows(ctx, mem, latest, false, func(r visibleRow) error {
		m := masks[r.rec]
		if m == nil {
			var err error
			if m, err = matchMask(mem, pred, r.rec); err != nil {
				return err
			}
			masks[r.rec] = m
		}
		if !m.Value(r.row) {
			return nil
		}
		for c := range t.fields {
			arrowrow.AppendFrom(bld.Field(c), r.rec.Column(c), r.row)
		}
		n++
		return nil
	})
	if err != nil {
		return 0, err
	}
	if n == 0 {
		return 0, nil
	}
	rec := bld.NewRecordBatch()
	defer rec.Release()
	w := t.NewWriter(mem)
	if err := w.Delete(ctx, rec); err != nil {
		w.Abort(ctx)
		return 0, err
	}
	if _, err := w.Commit(ctx); err != nil {
		return 0, err
	}
	return n, nil
}

// deleteAppendDV marks the live rows matching pred deleted in the files'
// deletion vectors and returns the (uncommitted) request; onMatch, when
// set, receives the newly deleted rows (UPDATE writes their new versions).
func (t *Table) deleteAppendDV(ctx context.Context, mem memory.Allocator, latest *paimon.Snapshot, pred predicate.Predicate, onMatch func(arrow.RecordBatch) error) (*commitRequest, int64, error) {
	live, err := t.liveEntries(ctx, latest)
	if err != nil {
		return nil, 0, err
	}
	idx, err := t.indexEntries(ctx, latest)
	if err != nil {
		return nil, 0, err
	}
	dvs, err := t.loadDVs(ctx, idx)
	if err != nil {
		return nil, 0, err
	}
	updated := map[string]*roaring.Bitmap{}
	byName := map[string]*paimon.ManifestEntry{}
	var n int64
	for i := range live {
		e := &live[i]
		byName[e.File.FileName] = e
		old := dvs.dvs[e.File.FileName]
		var bm *roaring.Bitmap
		err := t.readFile(ctx, mem, e, t.fields, func(rec arrow.RecordBatch, first int64) error {
			m, err := matchMask(mem, pred, rec)
			if err != nil {
				return err
			}
			defer m.Release()
			var hit []int64
			for r := 0; r < m.Len(); r++ {
				pos := uint32(first + int64(r))
				if !m.IsValid(r) || !m.Value(r) || (old != nil && old.Contains(pos)) {
					continue
				}
				hit = append(hit, int64(r))
				if bm == nil {
					bm = roaring.New()
					if old != nil {
						bm = old.Clone()
					}
				}
				bm.Add(pos)
				n++
			}
			return matchedRows(mem, rec, hit, onMatch)
		})
		if err != nil {
			return nil, 0, err
		}
		if bm != nil {
			updated[e.File.FileName] = bm
		}
	}
	if n == 0 {
		return nil, 0, nil
	}
	// Group by (partition, bucket); replace every index file that holds a
	// vector of an updated file by one new file with all their vectors.
	type group struct {
		part    []byte
		bucket  int
		dvs     map[string]*roaring.Bitmap
		replace map[string]bool
	}
	groups := map[string]*group{}
	var order []string
	for name, bm := range updated {
		e := byName[name]
		k := bucketKey(e.Partition, int(e.Bucket))
		g := groups[k]
		if g == nil {
			g = &group{part: e.Partition, bucket: int(e.Bucket), dvs: map[string]*roaring.Bitmap{}, replace: map[string]bool{}}
			groups[k] = g
			order = append(order, k)
		}
		g.dvs[name] = bm
		if h, ok := dvs.holder[name]; ok {
			g.replace[h] = true
		}
	}
	for f, h := range dvs.holder {
		for _, g := range groups {
			if g.replace[h] && g.dvs[f] == nil {
				g.dvs[f] = dvs.dvs[f]
			}
		}
	}
	req := &commitRequest{kind: paimon.CommitAppend, indexChange: true}
	names := newNameFactory()
	for _, k := range order {
		g := groups[k]
		e, p, err := t.writeDVIndex(ctx, names, g.part, g.bucket, g.dvs)
		if p != "" {
			req.newFiles = append(req.newFiles, p)
		}
		if err != nil {
			return req, 0, err
		}
		req.indexAdds = append(req.indexAdds, e)
		for h := range g.replace {
			req.indexDeletes = append(req.indexDeletes, h)
		}
		for f := range g.dvs {
			if le := byName[f]; le != nil {
				req.requireLive = append(req.requireLive, *le)
			}
		}
	}
	return req, n, nil
}

// deleteAppendRewrite rewrites the live files holding rows that match pred
// without them and returns the (uncommitted) OVERWRITE request; onMatch,
// when set, receives the removed rows (UPDATE writes their new versions).
func (t *Table) deleteAppendRewrite(ctx context.Context, mem memory.Allocator, latest *paimon.Snapshot, pred predicate.Predicate, onMatch func(arrow.RecordBatch) error) (*commitRequest, int64, error) {
	live, err := t.liveEntries(ctx, latest)
	if err != nil {
		return nil, 0, err
	}
	req := &commitRequest{kind: paimon.CommitOverwrite}
	names := newNameFactory()
	fail := func(err error) (*commitRequest, int64, error) {
		return req, 0, err
	}
	var n int64
	for i := range live {
		e := &live[i]
		// First pass: count matches (most files have none).
		var matches int64
		err := t.readFile(ctx, mem, e, t.fields, func(rec arrow.RecordBatch, _ int64) error {
			m, err := matchMask(mem, pred, rec)
			if err != nil {
				return err
			}
			defer m.Release()
			for r := 0; r < m.Len(); r++ {
				if m.IsValid(r) && m.Value(r) {
					matches++
				}
			}
			return nil
		})
		if err != nil {
			return fail(err)
		}
		if matches == 0 {
			continue
		}
		n += matches
		fw, err := t.newDataFileWriter(mem, names, e.Partition, int(e.Bucket), 0, paimon.FileSourceAppend, e.File.MinSequenceNumber)
		if err != nil {
			return fail(err)
		}
		err = t.readFile(ctx, mem, e, t.fields, func(rec arrow.RecordBatch, _ int64) error {
			m, err := matchMask(mem, pred, rec)
			if err != nil {
				return err
			}
			kb := array.NewBooleanBuilder(mem)
			var hit []int64
			for r := 0; r < m.Len(); r++ {
				match := m.IsValid(r) && m.Value(r)
				kb.Append(!match) // rows where the filter is FALSE or UNKNOWN stay
				if match {
					hit = append(hit, int64(r))
				}
			}
			m.Release()
			if err := matchedRows(mem, rec, hit, onMatch); err != nil {
				kb.Release()
				return err
			}
			keep := kb.NewBooleanArray()
			kb.Release()
			defer keep.Release()
			out, err := predicate.FilterRecord(ctx, mem, rec, keep)
			if err != nil {
				return err
			}
			defer out.Release()
			cols := make([]arrow.Array, out.NumCols())
			for c := range cols {
				if cols[c], err = retype(mem, out.Column(c), fw.sc.Field(c).Type, t.fields[c].Name); err != nil {
					for _, x := range cols[:c] {
						x.Release()
					}
					return err
				}
			}
			wr := array.NewRecordBatch(fw.sc, cols, out.NumRows())
			for _, c := range cols {
				c.Release()
			}
			defer wr.Release()
			return fw.write(ctx, wr)
		})
		var metas []paimon.DataFileMeta
		if err == nil {
			metas, err = fw.finish(ctx)
		}
		req.newFiles = append(req.newFiles, fw.written...)
		if err != nil {
			fw.abort(ctx)
			return fail(err)
		}
		d := *e
		d.Kind = paimon.FileKindDelete
		req.entries = append(req.entries, d)
		for _, m := range metas {
			req.entries = append(req.entries, paimon.ManifestEntry{Kind: paimon.FileKindAdd, Partition: e.Partition,
				Bucket: e.Bucket, TotalBuckets: e.TotalBuckets, File: m})
		}
	}
	return req, n, nil
}

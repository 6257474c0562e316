package scan

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"reflect"
	"sync/atomic"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/fileio"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/format"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
)

// openFile opens a data file of the split for reading with the file's schema.
func (r *reader) openFile(sp *Split, f *paimon.DataFileMeta) (format.DataFile, func(), error) {
	owner := sp.scan(r.s)
	p, err := owner.DataFilePath(sp, f)
	if err != nil {
		return nil, nil, err
	}
	fileFields, err := owner.fileSchema(r.ctx, f.SchemaID)
	if err != nil {
		return nil, nil, fmt.Errorf("data file %s: %w", p, err)
	}
	fio, err := owner.DataFileIO(r.ctx, f.SchemaID)
	if err != nil {
		return nil, nil, fmt.Errorf("data file %s: %w", p, err)
	}
	// The manifest gives the size: an object store opens without a request
	// and a footer-cache hit reads no tail (data files are never replaced).
	var h fileio.File
	if so, ok := fio.(fileio.SizedOpener); ok && f.FileSize > 0 {
		h, err = so.OpenSized(r.ctx, p, f.FileSize)
	} else {
		h, err = fio.Open(r.ctx, p)
	}
	if err != nil {
		return nil, nil, damaged(fmt.Errorf("data file %s: %w", p, err))
	}
	df, err := format.OpenCached(h, format.FooterKey{Store: footerStore(fio), Path: p, Size: h.Size()}, p, fileFields, nil)
	if err != nil {
		h.Close()
		return nil, nil, damaged(err)
	}
	r.stats.FilesRead.Add(1)
	return df, func() { h.Close() }, nil
}

// dynamicSkip reports whether a raw file cannot hold a row satisfying the
// read's dynamic predicate, by the file's value statistics (evolved to the
// current schema like the planning filter's). Files without usable
// statistics are read.
func (r *reader) dynamicSkip(sp *Split, f *paimon.DataFileMeta) (bool, error) {
	p := r.dyn.Load()
	if p == nil || r.s.opts.NoPruning {
		return false, nil
	}
	ms, ok, err := sp.scan(r.s).fileValueStats(r.ctx, f)
	if err != nil || !ok {
		return false, err
	}
	if predicate.MayMatch(p, ms) {
		return false, nil
	}
	if sp.FirstPiece() {
		r.stats.FilesSkippedDynamic.Add(1)
	}
	return true, nil
}

// footerStore names the storage a FileIO reads, for the footer cache key:
// its root (local directory or bucket/prefix URI) when it has one, else
// the FileIO value itself when comparable, else nil (not cached).
func footerStore(fio fileio.FileIO) any {
	if e, ok := fio.(*fileio.External); ok && e != nil {
		// Data files are opened through the table's FileIO extended with
		// external roots (a new wrapper per scan): relative paths resolve
		// in the main FileIO, external ones are absolute URIs (unique on
		// their own), so the main FileIO names the storage.
		fio = e.FileIO
	}
	if r, ok := fio.(interface{ Root() string }); ok {
		return fmt.Sprintf("%T:%s", fio, r.Root())
	}
	if fio == nil || !reflect.TypeOf(fio).Comparable() {
		return nil
	}
	return fio
}

// rowGroups selects the row groups of the split's range (all without one)
// whose statistics may match the filter and the consumer's Dynamic
// predicate (a top-N bound, a join's key range); nil = all.
func (r *reader) rowGroups(sp *Split, df format.DataFile) []int {
	n := df.NumRowGroups()
	var in []bool // the row groups of sp.Range (nil = all)
	if sp.Range != nil {
		in = pieceRowGroups(sp, df)
	}
	dyn := r.dyn.Load()
	prune := !r.s.opts.NoPruning && (r.s.opts.Filter != nil || dyn != nil)
	keep := []int{}
	for i := 0; i < n; i++ {
		if in != nil && !in[i] {
			continue
		}
		r.stats.RowGroupsTotal.Add(1)
		if prune {
			st := df.RowGroupStats(i, r.s.statsCols())
			if r.s.opts.Filter != nil && !predicate.MayMatch(r.s.opts.Filter, st) || dyn != nil && !predicate.MayMatch(dyn, st) {
				r.stats.RowGroupsSkipped.Add(1)
				continue
			}
		}
		keep = append(keep, i)
	}
	if len(keep) == n {
		return nil
	}
	return keep
}

func (r *reader) readRawFile(sp *Split, f *paimon.DataFileMeta) error {
	sel, err := r.indexSelection(sp, f)
	if err != nil {
		return err
	}
	if sel != nil && sel.IsEmpty() {
		r.stats.FilesSkippedIndex.Add(1)
		r.stats.RowsSkippedIndex.Add(f.RowCount)
		return nil
	}
	if skip, err := r.dynamicSkip(sp, f); err != nil || skip {
		return err
	}
	df, closeFile, err := r.openFile(sp, f)
	if err != nil {
		return err
	}
	defer closeFile()
	var dv deletionVector
	if d, ok := sp.Deletions[f.FileName]; ok {
		if dv, err = sp.scan(r.s).loadDeletionVector(r.ctx, d, f.FileName); err != nil {
			return err
		}
	}
	rgs := r.rowGroups(sp, df)
	if rgs != nil && len(rgs) == 0 {
		return nil
	}
	var excl *roaring.Bitmap
	if sel != nil {
		if df.NumRows() != f.RowCount {
			return fmt.Errorf("%w: data file %s has %d rows, its manifest entry says %d", paimon.ErrCorrupt, df.Name(), df.NumRows(), f.RowCount)
		}
		excl = roaring.Flip(sel, 0, uint64(f.RowCount))
		r.stats.RowsSkippedIndex.Add(int64(excl.GetCardinality()))
		if rgs = r.selectedRowGroups(df, rgs, sel); rgs != nil && len(rgs) == 0 {
			return nil
		}
	}
	// The filter and the deletion vector are applied by the format reader:
	// the Parquet reader decodes the filter's columns first and materialises
	// the others only for the rows that survive (late materialisation).
	owner := sp.scan(r.s)
	opts := format.ReadOptions{Fields: owner.readCols, RowGroups: rgs, BatchSize: r.s.opts.BatchSize, Parallel: r.parallel, Allocator: r.mem, Filter: r.s.opts.Filter,
		NoPageIndex: r.s.opts.NoPruning, PageIndex: &r.stats.PageIndex}
	var filter predicate.Predicate
	if len(owner.tracking) > 0 || len(owner.descCols) > 0 {
		// Row-tracking columns are filled after decoding (from positions),
		// blob descriptors resolved: the filter, which may refer to them, is
		// applied afterwards.
		opts.Filter, filter = nil, r.s.opts.Filter
	} else {
		// the output columns come first in readCols, so the row filter's
		// column indexes are indexes of opts.Fields too
		opts.RowFilter = r.rowf
	}
	if dv != nil {
		opts.Deleted = countingDeleter{dv, &r.stats.RowsDeleted}
	}
	if excl != nil {
		sd := selectionDeleter{dv: dv, dvN: &r.stats.RowsDeleted, sel: sel, excl: excl, limit: f.RowCount}
		opts.Deleted = sd
		if sel.GetCardinality() < excl.GetCardinality() {
			opts.Deleted = sparseDeleter{sd}
		}
	}
	rr, err := df.Read(r.ctx, opts)
	if err != nil {
		return damaged(err)
	}
	defer rr.Release()
	for rr.Next() {
		b := rr.RecordBatch()
		if len(owner.tracking) > 0 {
			if b, err = fillTracking(r.mem, b, owner.readCols, owner.tracking, f, rowPositions(rr, int(b.NumRows()))); err != nil {
				return fmt.Errorf("data file %s: %w", df.Name(), err)
			}
		} else {
			b.Retain()
		}
		out, err := r.finishBatch(b, filter)
		b.Release()
		if err != nil {
			return fmt.Errorf("data file %s: %w", df.Name(), err)
		}
		if err := r.send(out); err != nil {
			return err
		}
	}
	return damaged(rr.Err())
}

// countingDeleter counts the rows a deletion vector drops. It is a
// format.RangeDeleter: the readers ask for the deleted positions of a whole
// batch at once, and the count is added once per batch.
type countingDeleter struct {
	dv deletionVector
	n  *atomic.Int64
}

func (c countingDeleter) IsDeleted(pos int64) bool {
	if c.dv.IsDeleted(pos) {
		c.n.Add(1)
		return true
	}
	return false
}

func (c countingDeleter) DeletedIn(from, to int64, fn func(pos int64)) {
	var n int64
	c.dv.DeletedIn(from, to, func(pos int64) {
		n++
		fn(pos)
	})
	if n > 0 {
		c.n.Add(n)
	}
}

var _ format.RangeDeleter = countingDeleter{}

// finishBatch applies filter (nil: none) to a batch of readCols and projects
// it to the output columns. It does not release b.
func (r *reader) finishBatch(b arrow.RecordBatch, filter predicate.Predicate) (arrow.RecordBatch, error) {
	if len(r.s.descCols) > 0 { // blob-descriptor-field: read the bytes referenced
		rb, err := r.resolveDescriptors(b, r.s.descCols)
		if err != nil {
			return nil, err
		}
		defer rb.Release()
		b = rb
	}
	cols := make([]arrow.Array, len(r.s.outCols))
	for i := range cols {
		cols[i] = b.Column(i) // readCols start with outCols
	}
	proj := array.NewRecordBatch(r.s.out, cols, b.NumRows())
	if filter == nil {
		return proj, nil
	}
	defer proj.Release()
	mask, err := predicate.EvalArrow(filter, b, r.mem)
	if err != nil {
		return nil, err
	}
	defer mask.Release()
	return predicate.FilterRecord(r.ctx, r.mem, proj, mask)
}

// damaged classifies an error met reading a data or deletion-vector file
// as data loss (paimon.ErrCorrupt; DataLoss over Flight): a missing,
// truncated or undecodable file named by the snapshot. Cancellations and
// errors that already carry a class pass unchanged.
func damaged(err error) error {
	var rfe *format.RowFilterError
	if errors.As(err, &rfe) {
		return rfe.Err // the consumer's own condition failed, not the file
	}
	switch {
	case err == nil, errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded),
		errors.Is(err, errLimitReached), errors.Is(err, paimon.ErrCorrupt),
		errors.Is(err, paimon.ErrUnsupported), errors.Is(err, paimon.ErrNotFound) && !errors.Is(err, fs.ErrNotExist):
		return err
	}
	return paimon.Errorf(paimon.ErrCorrupt, "%w", err)
}

// pieceRowGroups marks the row groups of the piece sp.Range: those whose
// first byte lies in it. When the file has no row group offsets, or one lies
// outside the file as the manifest sizes it, the first piece reads every
// row group and the others none (never a row twice or not at all).
func pieceRowGroups(sp *Split, df format.DataFile) []bool {
	n := df.NumRowGroups()
	offs := make([]int64, n)
	of, ok := df.(interface{ RowGroupOffset(int) int64 })
	for i := 0; ok && i < n; i++ {
		offs[i] = of.RowGroupOffset(i)
		ok = offs[i] >= 0 && offs[i] < sp.Files[0].FileSize
	}
	in := make([]bool, n)
	for i, o := range offs {
		in[i] = ok && o >= sp.Range.Start && o < sp.Range.End || !ok && sp.Range.Start == 0
	}
	return in
}

package scan

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"reflect"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/internal/bufpool"
	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/aggfunc"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/binrow"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/fileio"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/format"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"

	"github.com/paimon-flightsql/paimon-flightsql/internal/panics"
)

// ReadStats are counters filled in while reading.
type ReadStats struct {
	RowGroupsTotal   atomic.Int64
	RowGroupsSkipped atomic.Int64
	RowsDeleted      atomic.Int64 // rows dropped by deletion vectors
	FilesRead        atomic.Int64
	// FilesSkippedIndex counts files not read because their file indexes
	// left no candidate row; RowsSkippedIndex the rows file indexes excluded
	// (of skipped files and of files read with a row selection).
	FilesSkippedIndex atomic.Int64
	RowsSkippedIndex  atomic.Int64
	// FilesSkippedDynamic counts files not opened because their value
	// statistics cannot satisfy the read's dynamic predicate (a top-N bound).
	FilesSkippedDynamic atomic.Int64
	// PageIndex counts the rows of read row groups the Parquet page index
	// excluded (format.PageIndexStats).
	PageIndex format.PageIndexStats
}

// Read streams the rows of splits as Arrow batches with Schema(). Up to
// Concurrency splits are read at once; batches of different splits
// interleave (no order is promised). The caller owns the returned reader and
// must Release it, also when abandoning it early: that cancels the
// background reads and frees their batches. A batch is valid until the next
// call to Next; Retain it to keep it longer. Errors name the file at fault.
func (s *Scan) Read(ctx context.Context, mem memory.Allocator, splits []Split) (array.RecordReader, error) {
	return s.ReadWithStats(ctx, mem, splits, nil)
}

// ReadWithStats is Read that also fills stats (may be nil).
func (s *Scan) ReadWithStats(ctx context.Context, mem memory.Allocator, splits []Split, stats *ReadStats) (array.RecordReader, error) {
	return s.read(ctx, mem, nil, splits, stats, nil, nil)
}

// read is Read with an optional shared buffer pool (nil: one of its own).
func (s *Scan) read(ctx context.Context, mem memory.Allocator, shared *bufpool.Pool, splits []Split, stats *ReadStats, dyn *predicate.Dynamic, rowf format.RowFilter) (array.RecordReader, error) {
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	if stats == nil {
		stats = &ReadStats{}
	}
	ctx, cancel := context.WithCancelCause(ctx)
	// Batches of one scan have the same shapes over and over: recycle the
	// buffers the consumer releases instead of allocating (and zeroing, and
	// garbage-collecting) fresh ones for every batch (docs/benchmarks.md).
	// A pool given in the read options (the Flight server's per-query
	// pool, shared by the query's endpoints) is used as it is.
	var pool *bufpool.Pool
	own := shared == nil
	if own {
		pool = bufpool.New(mem, scanPoolIdleBytes)
	} else {
		pool = shared
	}
	r := &reader{
		s:       s,
		mem:     pool,
		pool:    pool,
		ownPool: own,
		ctx:     ctx,
		cancel:  cancel,
		out:     make(chan arrow.RecordBatch, s.opts.Concurrency),
		stats:   stats,
		refs:    1,
		limit:   s.opts.Limit,
		dyn:     dyn,
		rowf:    rowf,
	}
	// With fewer files than workers, file-level parallelism leaves cores
	// idle (e.g. a filter whose stats leave one file): decode the columns
	// of each batch concurrently instead (docs/benchmarks.md).
	files := 0
	for i := range splits {
		files += len(splits[i].Files)
	}
	r.parallel = files < s.opts.Concurrency
	tasks := make(chan int)
	workers := min(s.opts.Concurrency, len(splits))
	r.wg.Add(workers)
	for w := 0; w < workers; w++ {
		go func() {
			defer r.wg.Done()
			defer func() {
				if p := recover(); p != nil {
					r.fail(panics.Recovered("scan worker", p))
					for range tasks { // let the dispatcher finish
					}
				}
			}()
			for i := range tasks {
				if err := r.readSplit(&splits[i]); err != nil {
					r.fail(err)
				}
			}
		}()
	}
	go func() {
		defer func() {
			close(tasks)
			r.wg.Wait()
			close(r.out)
		}()
		for i := range splits {
			select {
			case tasks <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	return r, nil
}

type reader struct {
	s    *Scan
	mem  memory.Allocator
	pool *bufpool.Pool
	// ownPool: pool belongs to this reader (closed by Release).
	ownPool bool
	ctx     context.Context
	cancel  context.CancelCauseFunc
	out     chan arrow.RecordBatch
	wg      sync.WaitGroup
	stats   *ReadStats
	// parallel decodes the columns of a batch concurrently (few files).
	parallel bool
	// dyn, when set, skips raw files whose value statistics cannot satisfy
	// its current predicate (ReadOptions.Dynamic).
	dyn *predicate.Dynamic
	// rowf is ReadOptions.RowFilter, handed to the format reader of raw
	// data files.
	rowf format.RowFilter

	errMu sync.Mutex
	err   error

	cur      arrow.RecordBatch
	refs     int64
	limit    int64
	returned int64
	done     bool
}

var errLimitReached = errors.New("scan limit reached")

func (r *reader) fail(err error) {
	if err == nil || errors.Is(err, errLimitReached) {
		return
	}
	r.errMu.Lock()
	if r.err == nil && !(errors.Is(err, context.Canceled) && r.ctx.Err() != nil && context.Cause(r.ctx) == errLimitReached) {
		r.err = err
	}
	r.errMu.Unlock()
	r.cancel(err)
}

// send hands a batch to the consumer; it takes ownership of b.
func (r *reader) send(b arrow.RecordBatch) error {
	if b.NumRows() == 0 {
		b.Release()
		return nil
	}
	select {
	case r.out <- b:
		return nil
	case <-r.ctx.Done():
		b.Release()
		return context.Cause(r.ctx)
	}
}

func (r *reader) Schema() *arrow.Schema          { return r.s.out }
func (r *reader) RecordBatch() arrow.RecordBatch { return r.cur }
func (r *reader) Record() arrow.RecordBatch      { return r.cur }
func (r *reader) Retain()                        { atomic.AddInt64(&r.refs, 1) }

func (r *reader) Err() error {
	r.errMu.Lock()
	defer r.errMu.Unlock()
	if r.err != nil {
		return r.err
	}
	if r.done {
		return nil
	}
	if cause := context.Cause(r.ctx); cause != nil && cause != errLimitReached {
		return cause
	}
	return nil
}

func (r *reader) Next() bool {
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	if r.limit > 0 && r.returned >= r.limit {
		r.finish()
		return false
	}
	b, ok := <-r.out
	if !ok {
		r.done = r.ctx.Err() == nil || context.Cause(r.ctx) == errLimitReached
		return false
	}
	if r.limit > 0 && r.returned+b.NumRows() > r.limit {
		keep := r.limit - r.returned
		sl := b.NewSlice(0, keep)
		b.Release()
		b = sl
	}
	r.returned += b.NumRows()
	r.cur = b
	return true
}

// finish stops the producers after the limit was reached.
func (r *reader) finish() {
	if !r.done {
		r.done = true
		r.cancel(errLimitReached)
	}
}

func (r *reader) Release() {
	if atomic.AddInt64(&r.refs, -1) > 0 {
		return
	}
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	if r.ctx.Err() == nil {
		r.cancel(errLimitReached) // abandoned: stop quietly
	}
	for b := range r.out { // drain until the producers are gone
		b.Release()
	}
	if r.ownPool {
		r.pool.Close() // batches still retained by the caller free to mem later
	}
}

// scanPoolIdleBytes bounds the buffers a scan keeps for reuse; the in-flight
// batches (Concurrency decoding + Concurrency queued + one held) bound what
// is actually kept, a few tens of MiB for a 16-column scan.
const scanPoolIdleBytes = 256 << 20

// readSplit reads one split and sends its batches.
func (r *reader) readSplit(sp *Split) error {
	if sp.Merge {
		return r.readMergeSplit(sp)
	}
	if sp.Evolution {
		return r.readEvolutionSplit(sp)
	}
	for i := range sp.Files {
		if err := r.readRawFile(sp, &sp.Files[i]); err != nil {
			return err
		}
	}
	return nil
}

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
	r.stats.FilesSkippedDynamic.Add(1)
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

// rowGroups selects the row groups whose statistics may match the filter.
func (r *reader) rowGroups(df format.DataFile) []int {
	n := df.NumRowGroups()
	r.stats.RowGroupsTotal.Add(int64(n))
	if r.s.opts.Filter == nil || r.s.opts.NoPruning {
		return nil
	}
	var keep []int
	for i := 0; i < n; i++ {
		if predicate.MayMatch(r.s.opts.Filter, df.RowGroupStats(i, r.s.statsCols())) {
			keep = append(keep, i)
		} else {
			r.stats.RowGroupsSkipped.Add(1)
		}
	}
	if len(keep) == n {
		return nil
	}
	if keep == nil {
		keep = []int{}
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
	rgs := r.rowGroups(df)
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

// readMergeSplit merges the bucket's sorted runs and sends the result.
func (r *reader) readMergeSplit(sp *Split) error {
	owner := sp.scan(r.s)
	spec, fields, err := owner.mergeSpec()
	if err != nil {
		return err
	}
	runs, err := owner.sortedRuns(sp)
	if err != nil {
		return err
	}
	var srcs []BatchSource
	for _, run := range runs {
		srcs = append(srcs, &runSource{r: r, sp: sp, files: run, fields: fields})
	}
	mr, err := NewMergeReader(r.ctx, r.mem, spec, srcs)
	if err != nil {
		return err
	}
	defer mr.Release()
	for mr.Next() {
		out, err := r.finishBatch(mr.RecordBatch(), r.s.opts.Filter)
		if err != nil {
			return err
		}
		if err := r.send(out); err != nil {
			return err
		}
	}
	return mr.Err()
}

// runSource reads the files of one sorted run in order.
type runSource struct {
	r      *reader
	sp     *Split
	files  []*paimon.DataFileMeta
	fields []types.DataField
	idx    int
	cur    format.RecordReader
	close  func()
	dv     deletionVector
}

func (rs *runSource) Next(ctx context.Context) (arrow.RecordBatch, error) {
	for {
		if rs.cur == nil {
			if rs.idx >= len(rs.files) {
				return nil, nil
			}
			f := rs.files[rs.idx]
			rs.idx++
			df, closeFile, err := rs.r.openFile(rs.sp, f)
			if err != nil {
				return nil, err
			}
			rs.close = closeFile
			rs.dv = nil
			if d, ok := rs.sp.Deletions[f.FileName]; ok {
				if rs.dv, err = rs.sp.scan(rs.r.s).loadDeletionVector(ctx, d, f.FileName); err != nil {
					return nil, err
				}
			}
			opts := format.ReadOptions{Fields: rs.fields, BatchSize: rs.r.s.opts.BatchSize, Allocator: rs.r.mem}
			if rs.dv != nil {
				opts.Deleted = countingDeleter{rs.dv, &rs.r.stats.RowsDeleted}
			}
			rs.cur, err = df.Read(ctx, opts)
			if err != nil {
				rs.close()
				rs.close = nil
				return nil, damaged(err)
			}
		}
		if rs.cur.Next() {
			b := rs.cur.RecordBatch()
			b.Retain()
			return b, nil
		}
		err := damaged(rs.cur.Err())
		rs.cur.Release()
		rs.cur = nil
		rs.close()
		rs.close = nil
		if err != nil {
			return nil, err
		}
	}
}

func (rs *runSource) Close() {
	if rs.cur != nil {
		rs.cur.Release()
		rs.cur = nil
	}
	if rs.close != nil {
		rs.close()
		rs.close = nil
	}
}

// mergeSpec builds the merge input layout: trimmed-PK key columns,
// _SEQUENCE_NUMBER, _VALUE_KIND, then readCols and any sequence.field column.
func (s *Scan) mergeSpec() (MergeSpec, []types.DataField, error) {
	sc := s.schema
	var fields []types.DataField
	for _, k := range s.info.trimmedPK {
		fields = append(fields, format.KeyField(k))
	}
	nk := len(fields)
	fields = append(fields, format.SequenceNumberField(), format.ValueKindField())
	fields = append(fields, s.readCols...)
	spec := MergeSpec{SeqCol: nk, KindCol: nk + 1, Engine: s.info.mergeEngine, BatchSize: s.opts.BatchSize}
	for i := 0; i < nk; i++ {
		spec.KeyCols = append(spec.KeyCols, i)
	}
	for i := range s.readCols {
		spec.OutCols = append(spec.OutCols, nk+2+i)
	}
	spec.OutSchema = OutputSchema(s.readCols)
	rt := sc.RowType()
	for _, n := range sc.SequenceFields() {
		idx := fieldIndexByName(fields[nk+2:], n)
		if idx < 0 {
			i := rt.FieldIndex(n)
			if i < 0 {
				return spec, nil, fmt.Errorf("%w: sequence.field %q is not a column", paimon.ErrCorrupt, n)
			}
			fields = append(fields, rt[i])
			idx = len(fields) - 1 - (nk + 2)
		}
		spec.UserSeqCols = append(spec.UserSeqCols, nk+2+idx)
	}
	spec.UserSeqDesc = strings.EqualFold(sc.Option("sequence.field.sort-order", "ascending"), "descending")
	// ignore-delete with its fallback keys (Java's CoreOptions.IGNORE_DELETE;
	// there is no aggregation.ignore-delete, and Java's aggregation merge
	// function ignores the option: the writer drops retractions on input).
	spec.IgnoreDelete = aggfunc.IgnoreDelete(sc.Options)
	switch s.info.mergeEngine {
	case PartialUpdate:
		if err := aggfunc.CheckPartialUpdate(sc.Options); err != nil {
			return spec, nil, err
		}
		spec.RemoveRecordOnDelete = sc.OptionBool("partial-update.remove-record-on-delete", false)
	case Aggregation:
		spec.RemoveRecordOnDelete = sc.OptionBool("aggregation.remove-record-on-delete", false)
		pk := map[string]bool{}
		for _, n := range sc.PrimaryKeys {
			pk[n] = true
		}
		spec.Funcs = make([]*aggfunc.Func, len(s.readCols))
		for i, f := range s.readCols {
			if pk[f.Name] {
				spec.Aggs = append(spec.Aggs, AggPrimaryKey)
				spec.IgnoreRetract = append(spec.IgnoreRetract, false)
				spec.Funcs[i] = &aggfunc.Func{Name: aggfunc.PrimaryKey, Field: f.Name}
				continue
			}
			af, err := aggfunc.Parse(aggfunc.FuncName(sc.Options, f.Name, sc.SequenceFields()), f.Name, spec.OutSchema.Field(i).Type, sc.Option)
			if err != nil {
				return spec, nil, fmt.Errorf("%w: %v", paimon.ErrUnsupported, err)
			}
			spec.Funcs[i] = af
			spec.Aggs = append(spec.Aggs, AggFunc(af.Name))
			spec.IgnoreRetract = append(spec.IgnoreRetract, af.IgnoreRetract)
		}
	case Deduplicate, FirstRow:
	default:
		return spec, nil, fmt.Errorf("%w: merge engine %q is not supported yet", paimon.ErrUnsupported, s.info.mergeEngine)
	}
	return spec, fields, nil
}

// sortedRuns splits a bucket's files into sorted runs: every level-0 file is
// its own run; the files of each level >= 1 form one run, ordered by key
// (Paimon keeps files of one level from overlapping).
func (s *Scan) sortedRuns(sp *Split) ([][]*paimon.DataFileMeta, error) {
	byLevel := map[int32][]*paimon.DataFileMeta{}
	var runs [][]*paimon.DataFileMeta
	for i := range sp.Files {
		f := &sp.Files[i]
		if f.Level == 0 {
			runs = append(runs, []*paimon.DataFileMeta{f})
			continue
		}
		byLevel[f.Level] = append(byLevel[f.Level], f)
	}
	keyTypes := types.RowType(s.info.trimmedPK).Types()
	var levels []int32
	for l := range byLevel {
		levels = append(levels, l)
	}
	sort.Slice(levels, func(i, j int) bool { return levels[i] < levels[j] })
	for _, l := range levels {
		files := byLevel[l]
		keys := make([][]any, len(files))
		for i, f := range files {
			k, err := binrow.Deserialize(keyTypes, f.MinKey)
			if err != nil {
				return nil, fmt.Errorf("%w: _MIN_KEY of data file %s: %v", paimon.ErrCorrupt, f.FileName, err)
			}
			keys[i] = k
		}
		idx := make([]int, len(files))
		for i := range idx {
			idx[i] = i
		}
		sort.SliceStable(idx, func(a, b int) bool { return compareTuple(keys[idx[a]], keys[idx[b]]) < 0 })
		run := make([]*paimon.DataFileMeta, len(files))
		for i, j := range idx {
			run[i] = files[j]
		}
		runs = append(runs, run)
	}
	return runs, nil
}

func compareTuple(a, b []any) int {
	for i := range a {
		if i >= len(b) {
			return 1
		}
		switch {
		case a[i] == nil && b[i] == nil:
			continue
		case a[i] == nil:
			return -1
		case b[i] == nil:
			return 1
		}
		if c, ok := predicate.CompareLiterals(a[i], b[i]); ok && c != 0 {
			return c
		}
	}
	return len(a) - len(b)
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

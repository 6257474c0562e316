package scan

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/internal/bufpool"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/format"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"

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

package exec

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Spiller is one query's spill area: a temporary directory under a root
// (serve --spill-dir), created on the first run written, and a disk budget
// (its Parent the server-wide --spill-limit budget). Sorts, aggregations,
// DISTINCT and hash joins write runs of record batches here when their
// memory reservation fails.
//
// Close removes the directory and everything in it and returns the disk
// bytes to the budget; the query's owner calls it when the query ends,
// whatever the outcome (error, cancellation, panic in an operator). After
// Close, new runs fail.
type Spiller struct {
	root string
	disk *Budget
	// OnFile, when set, is told the size of each run file finished
	// (metrics).
	OnFile func(bytes int64)

	mu     sync.Mutex
	dir    string
	closed bool
	seq    int
	files  int // run files created (stats)
	bytes  int64
}

// NewSpiller returns a spill area under root ("" = the OS temp directory)
// whose files are accounted with disk (nil = unlimited).
func NewSpiller(root string, disk *Budget) *Spiller {
	if disk == nil {
		disk = NewBudget("query spill disk", 0)
	}
	return &Spiller{root: root, disk: disk}
}

// Dir is the query's spill directory ("" before the first run).
func (s *Spiller) Dir() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.dir
}

// Stats returns the number of run files created and the bytes of those
// finished.
func (s *Spiller) Stats() (files int, bytes int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.files, s.bytes
}

// Close removes the spill directory; safe more than once.
func (s *Spiller) Close() error {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	var err error
	if s.dir != "" {
		err = os.RemoveAll(s.dir)
	}
	s.disk.Close()
	return err
}

func (s *Spiller) newFile(kind string) (*os.File, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, errors.New("exec: spill area closed")
	}
	if s.dir == "" {
		if s.root != "" {
			if err := os.MkdirAll(s.root, 0o700); err != nil {
				return nil, fmt.Errorf("exec: spill directory: %w", err)
			}
		}
		d, err := os.MkdirTemp(s.root, "paimon-flightsql-spill-")
		if err != nil {
			return nil, fmt.Errorf("exec: spill directory: %w", err)
		}
		s.dir = d
	}
	s.seq++
	s.files++
	f, err := os.OpenFile(filepath.Join(s.dir, fmt.Sprintf("%s-%06d.arrows", kind, s.seq)), os.O_CREATE|os.O_EXCL|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("exec: spill file: %w", err)
	}
	return f, nil
}

// SpillWriter writes one run: an Arrow IPC stream, LZ4-compressed.
type SpillWriter struct {
	sp    *Spiller
	op    string
	f     *os.File
	bw    *bufio.Writer
	cw    *countingWriter
	w     *ipc.Writer
	rows  int64
	err   error
	done  bool
	total int64 // disk bytes reserved
}

type countingWriter struct {
	w   io.Writer
	sw  *SpillWriter
	err error
}

func (c *countingWriter) Write(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	if err := c.sw.sp.disk.Reserve(c.sw.op+" spill", int64(len(p))); err != nil {
		c.err = err
		return 0, err
	}
	c.sw.total += int64(len(p))
	n, err := c.w.Write(p)
	if err != nil {
		c.err = err
	}
	return n, err
}

// NewRun starts a run of batches of schema for operator op (named in
// errors). The caller Finishes or Aborts it.
func (s *Spiller) NewRun(op string, schema *arrow.Schema, mem memory.Allocator) (*SpillWriter, error) {
	f, err := s.newFile(op)
	if err != nil {
		return nil, err
	}
	sw := &SpillWriter{sp: s, op: op, f: f}
	sw.bw = bufio.NewWriterSize(f, 64<<10)
	sw.cw = &countingWriter{w: sw.bw, sw: sw}
	sw.w = ipc.NewWriter(sw.cw, ipc.WithSchema(schema), ipc.WithAllocator(mem), ipc.WithLZ4())
	return sw, nil
}

// Write appends b (not retained).
func (w *SpillWriter) Write(b arrow.RecordBatch) error {
	if w.err != nil {
		return w.err
	}
	if b.NumRows() == 0 {
		return nil
	}
	if err := w.w.Write(b); err != nil {
		w.err = w.wrap(err)
		return w.err
	}
	w.rows += b.NumRows()
	return nil
}

func (w *SpillWriter) wrap(err error) error {
	if w.cw.err != nil {
		err = w.cw.err
	}
	if errors.Is(err, ErrResourceExhausted) {
		return err
	}
	return fmt.Errorf("exec: %s spill: writing %s: %w", w.op, w.f.Name(), err)
}

// Rows is the number of rows written so far.
func (w *SpillWriter) Rows() int64 { return w.rows }

// Finish closes the file and returns the run.
func (w *SpillWriter) Finish() (*SpillRun, error) {
	if w.done {
		return nil, errors.New("exec: spill run finished twice")
	}
	if w.err == nil {
		if err := w.w.Close(); err != nil {
			w.err = w.wrap(err)
		} else if err := w.bw.Flush(); err != nil {
			w.err = w.wrap(err)
		}
	}
	if w.err != nil {
		w.Abort()
		return nil, w.err
	}
	w.done = true
	name := w.f.Name()
	if err := w.f.Close(); err != nil {
		os.Remove(name)
		w.sp.disk.Free(w.total)
		return nil, fmt.Errorf("exec: %s spill: closing %s: %w", w.op, name, err)
	}
	w.sp.mu.Lock()
	w.sp.bytes += w.total
	w.sp.mu.Unlock()
	if w.sp.OnFile != nil {
		w.sp.OnFile(w.total)
	}
	return &SpillRun{sp: w.sp, path: name, rows: w.rows, size: w.total}, nil
}

// Abort drops the run (the file is removed); safe after Finish (no-op).
func (w *SpillWriter) Abort() {
	if w.done {
		return
	}
	w.done = true
	if w.err == nil {
		w.err = errors.New("exec: spill run aborted")
	}
	w.w.Close()
	w.f.Close()
	os.Remove(w.f.Name())
	w.sp.disk.Free(w.total)
}

// SpillRun is a finished run file.
type SpillRun struct {
	sp      *Spiller
	path    string
	rows    int64
	size    int64
	removed bool
	mu      sync.Mutex
}

// Rows is the number of rows of the run.
func (r *SpillRun) Rows() int64 { return r.rows }

// Remove deletes the file and returns its disk bytes; safe more than once.
func (r *SpillRun) Remove() {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.removed {
		return
	}
	r.removed = true
	os.Remove(r.path)
	r.sp.disk.Free(r.size)
}

// Open reads the run back; its batches are allocated from mem.
func (r *SpillRun) Open(mem memory.Allocator) (*SpillReader, error) {
	f, err := os.Open(r.path)
	if err != nil {
		return nil, fmt.Errorf("exec: spill run: %w", err)
	}
	rd, err := ipc.NewReader(bufio.NewReaderSize(f, 64<<10), ipc.WithAllocator(mem))
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("exec: spill run %s: %w", r.path, err)
	}
	return &SpillReader{f: f, r: rd, path: r.path}, nil
}

// SpillReader reads a run's batches in the order written.
type SpillReader struct {
	f    *os.File
	r    *ipc.Reader
	path string
}

// Next returns the next batch (owned by the caller) or nil at the end.
func (r *SpillReader) Next() (arrow.RecordBatch, error) {
	if r.r == nil {
		return nil, nil
	}
	if r.r.Next() {
		b := r.r.RecordBatch()
		b.Retain()
		return b, nil
	}
	if err := r.r.Err(); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("exec: spill run %s: %w", r.path, err)
	}
	return nil, nil
}

// Close releases the reader; safe more than once.
func (r *SpillReader) Close() {
	if r.r != nil {
		r.r.Release()
		r.r = nil
		r.f.Close()
	}
}

// runScan is an Operator of one partition reading spill runs in order
// (the input of the per-partition passes of aggregation, DISTINCT and
// joins). It does not own the runs.
type runScan struct {
	schema *arrow.Schema
	runs   []*SpillRun
}

func (r *runScan) Schema() *arrow.Schema { return r.schema }
func (r *runScan) Children() []Operator  { return nil }
func (r *runScan) Partitions() int       { return 1 }
func (r *runScan) Explain() string       { return fmt.Sprintf("SpillScan runs=%d", len(r.runs)) }
func (r *runScan) Execute(tc *TaskCtx, p int) (Stream, error) {
	if p != 0 {
		return nil, fmt.Errorf("exec: SpillScan has one partition, not %d", p)
	}
	return &runScanStream{tc: tc, runs: r.runs}, nil
}

type runScanStream struct {
	tc   *TaskCtx
	runs []*SpillRun
	cur  *SpillReader
}

func (s *runScanStream) Next() (arrow.RecordBatch, error) {
	for {
		if err := s.tc.Err(); err != nil {
			return nil, err
		}
		if s.cur == nil {
			if len(s.runs) == 0 {
				return nil, nil
			}
			rd, err := s.runs[0].Open(s.tc.Mem)
			if err != nil {
				return nil, err
			}
			s.cur, s.runs = rd, s.runs[1:]
		}
		b, err := s.cur.Next()
		if err != nil {
			return nil, err
		}
		if b != nil {
			return b, nil
		}
		s.cur.Close()
		s.cur = nil
	}
}

func (s *runScanStream) Close() {
	if s.cur != nil {
		s.cur.Close()
		s.cur = nil
	}
	s.runs = nil
}

// spillLimit is the memory an operator may plan its spill buffers and
// chunks with: the smaller of the query's limit and its share of the
// server's (Budget.Share), 0 = unlimited.
func spillLimit(b *Budget) int64 { return b.Share() }

// canSpill reports whether err is a memory reservation failure the
// operator may answer by spilling.
func (tc *TaskCtx) canSpill(err error) bool {
	return tc.Spill != nil && errors.Is(err, ErrResourceExhausted)
}

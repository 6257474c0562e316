package orc

import (
	"context"
	"fmt"
	"math"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Bound restricts one top-level column to values within [Min, Max] (either
// may be nil for an open end) for stripe skipping. Min and Max use the Go
// types documented on ColumnStats: int64 for integer columns, float64 for
// floating point, string for string columns, int32 days for dates. Bounds on
// other column types are ignored, as are bounds whose Go type does not match.
type Bound struct {
	Column   int // top-level column index
	Min, Max any
}

// StripeMayMatch reports whether stripe i may hold rows satisfying all the
// bounds according to its statistics. It is conservative: without usable
// statistics it returns true.
func (f *File) StripeMayMatch(i int, bounds []Bound) bool {
	stats := f.StripeStats(i)
	if stats == nil {
		return true
	}
	for _, b := range bounds {
		if b.Column < 0 || b.Column >= len(f.schema.Root.Children) {
			continue
		}
		id := f.schema.Root.Children[b.Column].ID
		if id >= len(stats) {
			continue
		}
		s := stats[id]
		if s.NumValues == 0 && s.HasNullKnown {
			// Only nulls (or no rows): no value can lie within bounds.
			return false
		}
		if s.Min == nil {
			continue
		}
		if b.Max != nil && less(b.Max, s.Min) {
			return false
		}
		if b.Min != nil && less(s.Max, b.Min) {
			return false
		}
	}
	return true
}

// less compares two statistics values of the same Go type; values of
// different types are never ordered.
func less(a, b any) bool {
	switch x := a.(type) {
	case int64:
		y, ok := b.(int64)
		return ok && x < y
	case float64:
		y, ok := b.(float64)
		return ok && !math.IsNaN(x) && !math.IsNaN(y) && x < y
	case string:
		y, ok := b.(string)
		return ok && x < y
	case int32:
		y, ok := b.(int32)
		return ok && x < y
	}
	return false
}

// ReaderOptions configure a RecordReader.
type ReaderOptions struct {
	// Columns are the top-level columns to read (nil for all).
	Columns []int
	// BatchSize is the maximum number of rows per record (default 8192).
	BatchSize int
	// Bounds skip stripes whose statistics prove no row can match.
	Bounds []Bound
	// Stripes are the stripes to read, in ascending order (nil for all).
	Stripes []int
}

// RecordReader reads the stripes of a File as Arrow records of at most
// BatchSize rows. It implements array.RecordReader.
type RecordReader struct {
	refs    atomic.Int64
	ctx     context.Context
	f       *File
	mem     memory.Allocator
	opts    ReaderOptions
	types   []*Type
	schema  *arrow.Schema
	stripe  int // next stripe to open
	cur     *stripeReader
	curIdx  int
	rec     arrow.RecordBatch
	err     error
	skipped int
	// recStripe and recRow locate the current record's first row.
	recStripe int
	recRow    int64
}

var _ array.RecordReader = (*RecordReader)(nil)

// NewRecordReader returns a reader over all stripes of f that match opts.
func (f *File) NewRecordReader(ctx context.Context, mem memory.Allocator, opts ReaderOptions) (*RecordReader, error) {
	types, schema, err := f.projection(opts.Columns)
	if err != nil {
		return nil, err
	}
	if opts.BatchSize <= 0 {
		opts.BatchSize = 8192
	}
	for k, i := range opts.Stripes {
		if i < 0 || i >= f.NumStripes() || (k > 0 && i <= opts.Stripes[k-1]) {
			return nil, fmt.Errorf("orc %s: stripes %v not ascending within [0,%d)", f.name, opts.Stripes, f.NumStripes())
		}
	}
	r := &RecordReader{ctx: ctx, f: f, mem: mem, opts: opts, types: types, schema: schema}
	r.refs.Store(1)
	return r, nil
}

// Retain increases the reference count.
func (r *RecordReader) Retain() { r.refs.Add(1) }

// Release decreases the reference count, releasing the current record at zero.
func (r *RecordReader) Release() {
	if r.refs.Add(-1) == 0 && r.rec != nil {
		r.rec.Release()
		r.rec = nil
	}
}

// Schema returns the schema of the records.
func (r *RecordReader) Schema() *arrow.Schema { return r.schema }

// SkippedStripes returns how many stripes the bounds have excluded so far.
func (r *RecordReader) SkippedStripes() int { return r.skipped }

// Next advances to the next record; it returns false at the end or on error.
func (r *RecordReader) Next() bool {
	if r.rec != nil {
		r.rec.Release()
		r.rec = nil
	}
	if r.err != nil {
		return false
	}
	for r.cur == nil || r.cur.left == 0 {
		var i int
		if r.opts.Stripes != nil {
			if r.stripe >= len(r.opts.Stripes) {
				return false
			}
			i = r.opts.Stripes[r.stripe]
		} else {
			if r.stripe >= r.f.NumStripes() {
				return false
			}
			i = r.stripe
		}
		r.stripe++
		if r.f.StripeRows(i) == 0 {
			continue
		}
		if len(r.opts.Bounds) > 0 && !r.f.StripeMayMatch(i, r.opts.Bounds) {
			r.skipped++
			continue
		}
		if err := r.ctx.Err(); err != nil {
			r.err = err
			return false
		}
		sr, err := r.f.newStripeReader(i, r.types)
		if err != nil {
			r.err = err
			return false
		}
		r.cur, r.curIdx = sr, i
	}
	n := int(min(int64(r.opts.BatchSize), r.cur.left))
	r.recStripe, r.recRow = r.curIdx, r.f.StripeRows(r.curIdx)-r.cur.left
	rec, err := r.f.readBatch(r.cur, r.curIdx, r.mem, r.schema, n)
	if err != nil {
		r.err = err
		return false
	}
	r.rec = rec
	return true
}

// RecordBatch returns the current record, valid until the next call to Next.
func (r *RecordReader) RecordBatch() arrow.RecordBatch { return r.rec }

// Record returns the current record.
//
// Deprecated: use RecordBatch.
func (r *RecordReader) Record() arrow.RecordBatch { return r.rec }

// Position returns the stripe of the current record and the row within
// that stripe of its first row; a record never spans two stripes.
func (r *RecordReader) Position() (stripe int, row int64) { return r.recStripe, r.recRow }

// Err returns the error that stopped the reader, if any.
func (r *RecordReader) Err() error {
	return r.err
}

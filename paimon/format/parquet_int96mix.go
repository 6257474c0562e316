package format

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
)

// A read that cannot take the fast path (a nested column, ...) goes to
// pqarrow, which rejects the negative nanoseconds-of-day parquet-cpp writes
// for INT96 instants before 1970. When such a read includes flat INT96
// columns, they are decoded by the fast path (int96.go) and the other
// columns by pqarrow; both cut batches at the same positions (the fast path
// reproduces pqarrow's batching), and the zipped batches then go through
// Deleted and Filter like any other.

// readInt96Mixed starts such a split read, or returns ok=false when no
// requested column is a flat INT96 column the fast path decodes.
func (f *ParquetFile) readInt96Mixed(ctx context.Context, opts ReadOptions, mem memory.Allocator, cols []column,
	rgs []int, batch int) (_ RecordReader, ok bool, err error) {
	if opts.DisableFastPath {
		return nil, false, nil
	}
	st, err := f.fastPlan()
	if err != nil {
		return nil, false, nil
	}
	var fastIdx, slowIdx []int
	for i, c := range cols {
		if c.top >= 0 && c.top < len(st.cols) && st.cols[c.top] != nil && st.cols[c.top].kind == fkInt96 {
			fastIdx = append(fastIdx, i)
		} else {
			slowIdx = append(slowIdx, i)
		}
	}
	if len(fastIdx) == 0 || len(slowIdx) == 0 {
		return nil, false, nil
	}
	sub := func(idx []int) (ReadOptions, []column) {
		o := ReadOptions{RowGroups: rgs, BatchSize: batch, Parallel: opts.Parallel, Allocator: mem}
		cs := make([]column, len(idx))
		for k, i := range idx {
			o.Fields = append(o.Fields, opts.Fields[i])
			cs[k] = cols[i]
		}
		return o, cs
	}
	fo, fc := sub(fastIdx)
	so, _ := sub(slowIdx)
	so.DisableFastPath = true // pqarrow for the rest
	slow, err := f.Read(ctx, so)
	if err != nil {
		return nil, true, err
	}
	fast := f.newFastReader(ctx, st, fo, mem, fc, rgs, batch, nil)
	return &zipReader{
		ctx: ctx, name: f.name, mem: mem,
		batchCursor: batchCursor{schema: ArrowSchema(opts.Fields)},
		a:           fast, b: slow, aIdx: fastIdx, bIdx: slowIdx,
		filter: opts.Filter, deleted: opts.Deleted,
	}, true, nil
}

// zipReader joins the columns of two readers of the same rows.
type zipReader struct {
	batchCursor
	ctx        context.Context
	name       string
	mem        memory.Allocator
	a, b       RecordReader
	aIdx, bIdx []int // output column of each column of a / b
	filter     predicate.Predicate
	deleted    RowDeleter
}

func (r *zipReader) Release() {
	r.dropCurrent()
	if r.a != nil {
		r.a.Release()
		r.b.Release()
		r.a, r.b = nil, nil
	}
	r.done = true
}

func (r *zipReader) Next() bool {
	for {
		if !r.advance() {
			return false
		}
		if r.cancelled(r.ctx, r.name) {
			r.Release()
			return false
		}
		an, bn := r.a.Next(), r.b.Next()
		if !an || !bn {
			err := r.a.Err()
			if err == nil {
				err = r.b.Err()
			}
			if err == nil && an != bn {
				err = fmt.Errorf("read parquet file %s: the INT96 columns and the others end at different rows", r.name)
			}
			r.err = err
			r.Release()
			return false
		}
		ra, rb := r.a.RecordBatch(), r.b.RecordBatch()
		if r.a.FirstRow() != r.b.FirstRow() || ra.NumRows() != rb.NumRows() {
			r.err = fmt.Errorf("read parquet file %s: batches of the INT96 columns (%d rows at %d) and the others (%d rows at %d) differ",
				r.name, ra.NumRows(), r.a.FirstRow(), rb.NumRows(), r.b.FirstRow())
			r.Release()
			return false
		}
		out := make([]arrow.Array, len(r.aIdx)+len(r.bIdx))
		for k, i := range r.aIdx {
			out[i] = ra.Column(k)
		}
		for k, i := range r.bIdx {
			out[i] = rb.Column(k)
		}
		first, n := r.a.FirstRow(), ra.NumRows()
		full := array.NewRecordBatch(r.schema, out, n)
		r.first = first
		if r.filter == nil && r.deleted == nil {
			r.cur = full
			return true
		}
		sel, pos, err := selectRows(r.ctx, r.mem, full, first, r.filter, r.deleted)
		full.Release()
		if err != nil {
			r.err = fmt.Errorf("read parquet file %s: %w", r.name, err)
			r.Release()
			return false
		}
		if sel != nil {
			r.cur, r.rowPos = sel, pos
			return true
		}
	}
}

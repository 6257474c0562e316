package planner

import (
	"context"
	"fmt"
	"sort"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// op is a pull-based operator. next returns a batch the caller owns (and
// must Release), or nil at the end. close releases everything the operator
// holds, including its input; it is called once, possibly before the end.
type op interface {
	next(ctx context.Context) (arrow.RecordBatch, error)
	close()
}

// execEnv is shared by the operators of one execution.
type execEnv struct {
	mem       memory.Allocator
	params    []any
	batchSize int
}

// scanOp streams a scan reader's batches.
type scanOp struct{ rdr array.RecordReader }

func (s *scanOp) next(ctx context.Context) (arrow.RecordBatch, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if s.rdr.Next() {
		r := s.rdr.RecordBatch()
		r.Retain()
		return r, nil
	}
	if err := s.rdr.Err(); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return nil, nil
}

func (s *scanOp) close() { s.rdr.Release() }

// valuesOp emits fixed batches (owned by the operator until handed out).
type valuesOp struct{ recs []arrow.RecordBatch }

func (v *valuesOp) next(ctx context.Context) (arrow.RecordBatch, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(v.recs) == 0 {
		return nil, nil
	}
	r := v.recs[0]
	v.recs = v.recs[1:]
	return r, nil
}

func (v *valuesOp) close() {
	for _, r := range v.recs {
		r.Release()
	}
	v.recs = nil
}

// evalBool evaluates a boolean expression over rec into a selection
// vector: keep[i] is true when the expression is TRUE at row i.
func evalBool(e expr, rec arrow.RecordBatch, env *execEnv) ([]bool, int, error) {
	if keep, n, ok := fastCompare(e, rec); ok {
		return keep, n, nil
	}
	ev := &evalEnv{rec: rec, params: env.params}
	f, err := e.compile(ev)
	if err != nil {
		return nil, 0, err
	}
	n := int(rec.NumRows())
	keep := make([]bool, n)
	cnt := 0
	for i := range n {
		if v, ok := f(i).(bool); ok && v {
			keep[i] = true
			cnt++
		}
	}
	return keep, cnt, ev.err
}

// filterOp keeps the rows where all conditions are TRUE.
type filterOp struct {
	in    op
	conds []expr
	env   *execEnv
}

func (f *filterOp) next(ctx context.Context) (arrow.RecordBatch, error) {
	for {
		rec, err := f.in.next(ctx)
		if err != nil || rec == nil {
			return nil, err
		}
		out, err := f.apply(ctx, rec)
		rec.Release()
		if err != nil {
			return nil, err
		}
		if out != nil {
			return out, nil
		}
	}
}

// apply returns the filtered batch (nil when no row passes); rec stays owned by the caller.
func (f *filterOp) apply(ctx context.Context, rec arrow.RecordBatch) (arrow.RecordBatch, error) {
	var keep []bool
	total := int(rec.NumRows())
	cnt := total
	for _, c := range f.conds {
		k, n, err := evalBool(c, rec, f.env)
		if err != nil {
			return nil, err
		}
		if keep == nil {
			keep, cnt = k, n
		} else {
			cnt = 0
			for i := range keep {
				keep[i] = keep[i] && k[i]
				if keep[i] {
					cnt++
				}
			}
		}
		if cnt == 0 {
			return nil, nil
		}
	}
	if cnt == total {
		rec.Retain()
		return rec, nil
	}
	idx := make([]int64, 0, cnt)
	for i, k := range keep {
		if k {
			idx = append(idx, int64(i))
		}
	}
	return takeRecord(ctx, f.env.mem, rec, idx)
}

func (f *filterOp) close() { f.in.close() }

// takeRecord gathers rows idx of rec into a new batch (arrow compute Take).
func takeRecord(ctx context.Context, mem memory.Allocator, rec arrow.RecordBatch, idx []int64) (arrow.RecordBatch, error) {
	ib := array.NewInt64Builder(mem)
	ib.AppendValues(idx, nil)
	ind := ib.NewInt64Array()
	ib.Release()
	defer ind.Release()
	cctx := compute.WithAllocator(ctx, mem)
	cols := make([]arrow.Array, rec.NumCols())
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	for i := range cols {
		c, err := compute.TakeArray(cctx, rec.Column(i), ind)
		if err != nil {
			return nil, fmt.Errorf("take: %w", err)
		}
		cols[i] = c
	}
	return array.NewRecordBatch(rec.Schema(), cols, int64(len(idx))), nil
}

// projectOp computes output columns; plain column references are passed
// through without copying.
type projectOp struct {
	in     op
	exprs  []expr
	schema *arrow.Schema
	env    *execEnv
}

func (p *projectOp) next(ctx context.Context) (arrow.RecordBatch, error) {
	rec, err := p.in.next(ctx)
	if err != nil || rec == nil {
		return nil, err
	}
	defer rec.Release()
	return project(rec, p.exprs, p.schema, p.env)
}

func project(rec arrow.RecordBatch, exprs []expr, schema *arrow.Schema, env *execEnv) (arrow.RecordBatch, error) {
	cols := make([]arrow.Array, len(exprs))
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	for i, e := range exprs {
		a, err := evalArray(e, rec, env)
		if err != nil {
			return nil, err
		}
		cols[i] = a
	}
	return array.NewRecordBatch(schema, cols, rec.NumRows()), nil
}

// evalArray evaluates e over rec into a new array (the caller releases it).
func evalArray(e expr, rec arrow.RecordBatch, env *execEnv) (arrow.Array, error) {
	if c, ok := e.(*colRef); ok {
		a := rec.Column(c.idx)
		a.Retain()
		return a, nil
	}
	ev := &evalEnv{rec: rec, params: env.params}
	f, err := e.compile(ev)
	if err != nil {
		return nil, err
	}
	b := array.NewBuilder(env.mem, e.dataType())
	defer b.Release()
	n := int(rec.NumRows())
	b.Reserve(n)
	for i := range n {
		if err := appendValue(b, f(i)); err != nil {
			return nil, err
		}
	}
	if ev.err != nil {
		return nil, ev.err
	}
	return b.NewArray(), nil
}

func (p *projectOp) close() { p.in.close() }

// limitOp skips offset rows then passes at most limit rows (limit < 0: all),
// and stops pulling its input once done.
type limitOp struct {
	in            op
	offset, limit int64
}

func (l *limitOp) next(ctx context.Context) (arrow.RecordBatch, error) {
	for {
		if l.limit == 0 {
			return nil, nil
		}
		rec, err := l.in.next(ctx)
		if err != nil || rec == nil {
			return nil, err
		}
		n := rec.NumRows()
		if l.offset >= n {
			l.offset -= n
			rec.Release()
			continue
		}
		end := n
		if l.limit >= 0 && l.offset+l.limit < n {
			end = l.offset + l.limit
		}
		if l.offset > 0 || end < n {
			s := rec.NewSlice(l.offset, end)
			rec.Release()
			rec = s
		}
		l.offset = 0
		if l.limit >= 0 {
			l.limit -= rec.NumRows()
		}
		return rec, nil
	}
}

func (l *limitOp) close() { l.in.close() }

// distinctOp drops rows whose first n columns were already seen.
type distinctOp struct {
	in   op
	n    int
	seen map[string]struct{}
	env  *execEnv
}

func (d *distinctOp) next(ctx context.Context) (arrow.RecordBatch, error) {
	for {
		rec, err := d.in.next(ctx)
		if err != nil || rec == nil {
			return nil, err
		}
		gs := make([]func(int) any, d.n)
		for i := range gs {
			if gs[i], err = getter(rec.Column(i)); err != nil {
				rec.Release()
				return nil, fmt.Errorf("DISTINCT: %w", err)
			}
		}
		var idx []int64
		var kb keyBuf
		for i := range int(rec.NumRows()) {
			kb.reset()
			for _, g := range gs {
				kb.add(g(i))
			}
			k := kb.String()
			if _, ok := d.seen[k]; !ok {
				d.seen[k] = struct{}{}
				idx = append(idx, int64(i))
			}
		}
		if len(idx) == 0 {
			rec.Release()
			continue
		}
		if len(idx) == int(rec.NumRows()) {
			return rec, nil
		}
		out, err := takeRecord(ctx, d.env.mem, rec, idx)
		rec.Release()
		return out, err
	}
}

func (d *distinctOp) close() { d.in.close() }

// sortOp sorts its whole input (ORDER BY). With topN >= 0 it keeps only the
// first topN rows while consuming, bounding memory (top-N).
type sortOp struct {
	in    op
	keys  []sortKey
	topN  int64
	env   *execEnv
	buf   []arrow.RecordBatch
	rows  int64
	out   arrow.RecordBatch
	idx   []int64
	pos   int
	ready bool
	// threshold holds the sort key of the N-th row once N rows are kept.
	threshold []any
}

func (s *sortOp) next(ctx context.Context) (arrow.RecordBatch, error) {
	if !s.ready {
		if err := s.consume(ctx); err != nil {
			return nil, err
		}
		s.ready = true
	}
	if s.out == nil || s.pos >= len(s.idx) {
		return nil, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	end := min(s.pos+s.env.batchSize, len(s.idx))
	r, err := takeRecord(ctx, s.env.mem, s.out, s.idx[s.pos:end])
	s.pos = end
	return r, err
}

func (s *sortOp) consume(ctx context.Context) error {
	limit := int64(-1)
	if s.topN >= 0 {
		limit = max(2*s.topN, int64(s.env.batchSize))
	}
	for {
		rec, err := s.in.next(ctx)
		if err != nil {
			return err
		}
		if rec == nil {
			break
		}
		if s.threshold != nil {
			if rec, err = s.prefilter(ctx, rec); err != nil {
				return err
			}
			if rec == nil {
				continue
			}
		}
		s.buf = append(s.buf, rec)
		s.rows += rec.NumRows()
		if limit >= 0 && s.rows > limit {
			if err := s.compact(ctx, s.topN); err != nil {
				return err
			}
		}
	}
	return s.compact(ctx, s.topN)
}

// compact sorts the buffered rows into one batch keeping the first keep (< 0: all).
func (s *sortOp) compact(ctx context.Context, keep int64) error {
	if len(s.buf) == 0 {
		return nil
	}
	all, err := concatRecords(s.env.mem, s.buf)
	for _, r := range s.buf {
		r.Release()
	}
	s.buf = nil
	if err != nil {
		return err
	}
	idx, err := sortIndices(all, s.keys)
	if err != nil {
		all.Release()
		return err
	}
	if keep >= 0 && int64(len(idx)) > keep {
		idx = idx[:keep]
	}
	if s.out != nil {
		s.out.Release()
	}
	if keep >= 0 {
		// materialise the kept rows so the rest can be freed
		r, err := takeRecord(ctx, s.env.mem, all, idx)
		all.Release()
		if err != nil {
			return err
		}
		s.buf = []arrow.RecordBatch{r}
		s.rows = r.NumRows()
		s.out = r
		r.Retain()
		s.idx = make([]int64, r.NumRows())
		for i := range s.idx {
			s.idx[i] = int64(i)
		}
		if keep > 0 && r.NumRows() == keep {
			// Rows not strictly before the last kept row can never enter the top N.
			s.threshold = make([]any, len(s.keys))
			for i, k := range s.keys {
				g, err := getter(r.Column(k.col))
				if err != nil {
					return err
				}
				s.threshold[i] = g(int(keep - 1))
			}
		}
		return nil
	}
	s.out, s.idx = all, idx
	return nil
}

func (s *sortOp) close() {
	for _, r := range s.buf {
		r.Release()
	}
	s.buf = nil
	if s.out != nil {
		s.out.Release()
		s.out = nil
	}
	s.in.close()
}

// prefilter drops the rows of rec that sort at or after the threshold row;
// it takes ownership of rec and returns nil when no row is left.
func (s *sortOp) prefilter(ctx context.Context, rec arrow.RecordBatch) (arrow.RecordBatch, error) {
	gs := make([]func(int) any, len(s.keys))
	for i, k := range s.keys {
		g, err := getter(rec.Column(k.col))
		if err != nil {
			rec.Release()
			return nil, err
		}
		gs[i] = g
	}
	var idx []int64
	for r := range int(rec.NumRows()) {
		for i, k := range s.keys {
			c := compareNullsFirst(gs[i](r), s.threshold[i])
			if k.desc {
				c = -c
			}
			if c < 0 {
				idx = append(idx, int64(r))
			}
			if c != 0 {
				break
			}
		}
	}
	if len(idx) == int(rec.NumRows()) {
		return rec, nil
	}
	defer rec.Release()
	if len(idx) == 0 {
		return nil, nil
	}
	return takeRecord(ctx, s.env.mem, rec, idx)
}

func sortIndices(rec arrow.RecordBatch, keys []sortKey) ([]int64, error) {
	gs := make([]func(int) any, len(keys))
	for i, k := range keys {
		g, err := getter(rec.Column(k.col))
		if err != nil {
			return nil, fmt.Errorf("ORDER BY: %w", err)
		}
		gs[i] = g
	}
	n := int(rec.NumRows())
	idx := make([]int64, n)
	for i := range idx {
		idx[i] = int64(i)
	}
	// Read every key once (not once per comparison).
	vals := make([][]any, len(keys))
	for i, g := range gs {
		vals[i] = make([]any, n)
		for r := range n {
			vals[i][r] = g(r)
		}
	}
	sort.SliceStable(idx, func(a, b int) bool {
		for i, k := range keys {
			c := compareNullsFirst(vals[i][idx[a]], vals[i][idx[b]])
			if c != 0 {
				if k.desc {
					return c > 0
				}
				return c < 0
			}
		}
		return false
	})
	return idx, nil
}

// compareNullsFirst orders values with NULL smallest.
func compareNullsFirst(a, b any) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return -1
	case b == nil:
		return 1
	}
	c, _ := compareValues(a, b)
	return c
}

// concatRecords concatenates batches of one schema into a new batch.
func concatRecords(mem memory.Allocator, recs []arrow.RecordBatch) (arrow.RecordBatch, error) {
	if len(recs) == 1 {
		recs[0].Retain()
		return recs[0], nil
	}
	schema := recs[0].Schema()
	cols := make([]arrow.Array, schema.NumFields())
	var rows int64
	for _, r := range recs {
		rows += r.NumRows()
	}
	for i := range cols {
		parts := make([]arrow.Array, len(recs))
		for j, r := range recs {
			parts[j] = r.Column(i)
		}
		c, err := array.Concatenate(parts, mem)
		if err != nil {
			for _, x := range cols[:i] {
				x.Release()
			}
			return nil, fmt.Errorf("concatenate: %w", err)
		}
		cols[i] = c
	}
	out := array.NewRecordBatch(schema, cols, rows)
	for _, c := range cols {
		c.Release()
	}
	return out, nil
}

// opReader adapts an operator tree to array.RecordReader.
type opReader struct {
	refs   atomic.Int64
	ctx    context.Context
	schema *arrow.Schema
	root   op
	cur    arrow.RecordBatch
	err    error
	done   bool
}

func newOpReader(ctx context.Context, schema *arrow.Schema, root op) *opReader {
	r := &opReader{ctx: ctx, schema: schema, root: root}
	r.refs.Store(1)
	return r
}

func (r *opReader) Retain() { r.refs.Add(1) }

func (r *opReader) Release() {
	if r.refs.Add(-1) != 0 {
		return
	}
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	if r.root != nil {
		r.root.close()
		r.root = nil
	}
}

func (r *opReader) Schema() *arrow.Schema { return r.schema }

func (r *opReader) Next() bool {
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	if r.done || r.root == nil {
		return false
	}
	for {
		rec, err := r.root.next(r.ctx)
		if err != nil {
			r.err, r.done = err, true
			return false
		}
		if rec == nil {
			r.done = true
			return false
		}
		if rec.NumRows() == 0 {
			rec.Release()
			continue
		}
		r.cur = rec
		return true
	}
}

func (r *opReader) RecordBatch() arrow.RecordBatch { return r.cur }

// Record is the deprecated name of RecordBatch.
func (r *opReader) Record() arrow.RecordBatch { return r.cur }

func (r *opReader) Err() error { return r.err }

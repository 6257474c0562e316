package exec

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"

	"github.com/paimon-flightsql/paimon-flightsql/internal/panics"
)

// Sort orders all rows of every input partition by Keys. Ties keep input
// order (within a partition; partitions in index order). Fetch >= 0 means
// only the first Fetch rows are wanted (top-N: a bounded heap per input
// partition, so memory stays proportional to Fetch).
type Sort struct {
	Input Operator
	Keys  []SortKey
	Fetch int64
	// Bound, when set with Fetch > 0, is told the first key's value of the
	// n-th row whenever a partition's top-N tightens (TopNBound).
	Bound *TopNBound
}

func (s *Sort) Schema() *arrow.Schema { return s.Input.Schema() }
func (s *Sort) Children() []Operator  { return []Operator{s.Input} }
func (s *Sort) Partitions() int       { return 1 }
func (s *Sort) Explain() string {
	out := "Sort " + FormatSortKeys(s.Keys)
	if s.Fetch >= 0 {
		out += fmt.Sprintf(" fetch=%d", s.Fetch)
	}
	return out
}

// FormatSortKeys renders keys as in an ORDER BY clause.
func FormatSortKeys(keys []SortKey) string {
	parts := make([]string, len(keys))
	for i, k := range keys {
		p := k.Expr.String()
		if k.Desc {
			p += " DESC"
		}
		// SQL's default is NULLS LAST for ASC and NULLS FIRST for DESC.
		if k.NullsFirst != k.Desc {
			if k.NullsFirst {
				p += " NULLS FIRST"
			} else {
				p += " NULLS LAST"
			}
		}
		parts[i] = p
	}
	return strings.Join(parts, ", ")
}

func (s *Sort) Execute(tc *TaskCtx, p int) (Stream, error) {
	if p != 0 {
		return nil, fmt.Errorf("exec: Sort has one partition, not %d", p)
	}
	types := make([]arrow.DataType, len(s.Keys))
	exprs := make([]vec.Expr, len(s.Keys))
	for i, k := range s.Keys {
		types[i], exprs[i] = k.Expr.Type(), k.Expr
	}
	enc, err := NewKeyEncoder(types, Orders(s.Keys))
	if err != nil {
		return nil, err
	}
	if s.Fetch == 0 {
		return &sliceStream{tc: tc}, nil
	}
	return &lazyStream{start: func() (Stream, error) {
		if s.Fetch > 0 {
			return s.runTopN(tc, enc, exprs)
		}
		if tc.Spill != nil {
			return s.runExternal(tc, enc, exprs)
		}
		return s.runFull(tc, enc, exprs)
	}}, nil
}

// lazyStream starts its work at the first Next.
type lazyStream struct {
	start  func() (Stream, error)
	s      Stream
	closed bool
}

func (l *lazyStream) Next() (arrow.RecordBatch, error) {
	if l.closed {
		return nil, errors.New("exec: Next on a closed stream")
	}
	if l.s == nil {
		s, err := l.start()
		if err != nil {
			return nil, err
		}
		l.s = s
	}
	return l.s.Next()
}

func (l *lazyStream) Close() {
	l.closed = true
	if l.s != nil {
		l.s.Close()
		l.s = nil
	}
}

// runPartitions runs fn over the stream of every partition of op, the
// partitions concurrently; the first error cancels the others.
func runPartitions(tc *TaskCtx, op Operator, fn func(tc *TaskCtx, part int, s Stream) error) error {
	run := func(tc *TaskCtx, p int) (err error) {
		defer func() {
			if r := recover(); r != nil {
				err = panics.Recovered(fmt.Sprintf("partition %d of %s", p, op.Explain()), r)
			}
		}()
		s, err := op.Execute(tc, p)
		if err != nil {
			return err
		}
		defer s.Close()
		return fn(tc, p, s)
	}
	np := op.Partitions()
	if np == 1 {
		return run(tc, 0)
	}
	ctx, cancel := context.WithCancel(tc.Ctx)
	defer cancel()
	ctc := *tc
	ctc.Ctx = ctx
	errs := make([]error, np)
	var wg sync.WaitGroup
	for p := 0; p < np; p++ {
		wg.Go(func() {
			if err := run(&ctc, p); err != nil {
				errs[p] = err
				cancel()
			}
		})
	}
	wg.Wait()
	if err := tc.Err(); err != nil {
		return err
	}
	var first error
	for _, err := range errs {
		if err != nil && !errors.Is(err, context.Canceled) {
			return err
		}
		if first == nil {
			first = err
		}
	}
	return first
}

// evalKeys evaluates exprs over b (the caller releases the arrays).
func evalKeys(ec *vec.Ctx, b arrow.RecordBatch, exprs []vec.Expr) ([]arrow.Array, error) {
	cols := make([]arrow.Array, len(exprs))
	for i, e := range exprs {
		a, err := e.Eval(ec, b)
		if err != nil {
			releaseArrays(cols)
			return nil, err
		}
		cols[i] = a
	}
	return cols, nil
}

func releaseArrays(as []arrow.Array) {
	for _, a := range as {
		if a != nil {
			a.Release()
		}
	}
}

// sortRun is what one input partition materialised.
type sortRun struct {
	batches []arrow.RecordBatch
	keys    KeyRows
}

// reservation tracks bytes reserved with the budget by one operator.
type reservation struct {
	mu  sync.Mutex
	b   *Budget
	op  string
	res int64
}

func (r *reservation) grow(n int64) error {
	if n <= 0 {
		return nil
	}
	if err := r.b.Reserve(r.op, n); err != nil {
		return err
	}
	r.mu.Lock()
	r.res += n
	r.mu.Unlock()
	return nil
}

// mergeWait bounds how long a merge waits for memory other queries hold.
const mergeWait = 10 * time.Second

// growWait is grow for the least a spilled operator needs to make progress
// (one batch per merged run): when the budget says no it retries as other
// queries free memory (they keep to their share and spill, so they do),
// until the query's context ends or mergeWait passed; then it fails with
// the budget's error.
func (r *reservation) growWait(tc *TaskCtx, n int64) error {
	err := r.grow(n)
	if err == nil || !errors.Is(err, ErrResourceExhausted) || r.b.Parent == nil ||
		(r.b.limit > 0 && r.b.Used()+n > r.b.limit) {
		return err // over the query's own limit: nobody else frees that
	}
	deadline := time.Now().Add(mergeWait)
	for pause := time.Millisecond; ; pause = min(2*pause, 20*time.Millisecond) {
		t := time.NewTimer(pause)
		select {
		case <-tc.Ctx.Done():
			t.Stop()
			return tc.Ctx.Err()
		case <-t.C:
		}
		if err = r.grow(n); err == nil || !errors.Is(err, ErrResourceExhausted) || time.Now().After(deadline) {
			return err
		}
	}
}

func (r *reservation) shrink(n int64) {
	r.mu.Lock()
	n = min(n, r.res)
	r.res -= n
	r.mu.Unlock()
	r.b.Free(n)
}

func (r *reservation) freeAll() {
	r.mu.Lock()
	n := r.res
	r.res = 0
	r.mu.Unlock()
	r.b.Free(n)
}

// materialise reads every partition of op, evaluating and encoding the key
// segments of each batch (one encoder and expression list per segment).
// Batches and keys come back in partition order.
func materialise(tc *TaskCtx, op Operator, res *reservation, encs []*KeyEncoder, exprs [][]vec.Expr, perBatch func(ec *vec.Ctx, part int, b arrow.RecordBatch) error) ([]arrow.RecordBatch, []*KeyRows, error) {
	np := op.Partitions()
	runs := make([][]arrow.RecordBatch, np)
	keys := make([][]KeyRows, np)
	for p := range keys {
		keys[p] = make([]KeyRows, len(encs))
	}
	err := runPartitions(tc, op, func(tc *TaskCtx, p int, s Stream) error {
		ec := tc.EvalCtx()
		return drain(s, func(b arrow.RecordBatch) error {
			if err := tc.Err(); err != nil {
				return err
			}
			if b.NumRows() == 0 {
				return nil
			}
			if err := res.grow(batchBytes(b)); err != nil {
				return err
			}
			b.Retain()
			runs[p] = append(runs[p], b)
			for k, enc := range encs {
				kr := &keys[p][k]
				before := kr.Bytes()
				cols, err := evalKeys(ec, b, exprs[k])
				if err != nil {
					return err
				}
				err = enc.Encode(kr, cols)
				releaseArrays(cols)
				if err != nil {
					return err
				}
				if err := res.grow(kr.Bytes() - before); err != nil {
					return err
				}
			}
			if perBatch != nil {
				return perBatch(ec, p, b)
			}
			return nil
		})
	})
	var all []arrow.RecordBatch
	for _, r := range runs {
		all = append(all, r...)
	}
	if err != nil {
		releaseAll(all)
		return nil, nil, err
	}
	total := int64(0)
	for _, b := range all {
		total += b.NumRows()
	}
	if total > math.MaxInt32 {
		releaseAll(all)
		return nil, nil, fmt.Errorf("%w: %s over %d rows, at most %d fit", ErrResourceExhausted, res.op, total, math.MaxInt32)
	}
	segs := make([]*KeyRows, len(encs))
	for k := range encs {
		if np == 1 {
			segs[k] = &keys[0][k]
			continue
		}
		var m KeyRows
		for p := range keys {
			m.AppendRows(&keys[p][k])
		}
		if err := res.grow(m.Bytes()); err != nil {
			releaseAll(all)
			return nil, nil, err
		}
		for p := range keys {
			res.shrink(keys[p][k].Bytes())
			keys[p][k] = KeyRows{}
		}
		segs[k] = &m
	}
	return all, segs, nil
}

func (s *Sort) runFull(tc *TaskCtx, enc *KeyEncoder, exprs []vec.Expr) (Stream, error) {
	res := &reservation{b: tc.Budget, op: "Sort"}
	bs, segs, err := materialise(tc, s.Input, res, []*KeyEncoder{enc}, [][]vec.Expr{exprs}, nil)
	if err != nil {
		res.freeAll()
		return nil, err
	}
	n := int(segs[0].N)
	if err := res.grow(int64(n) * 4); err != nil {
		releaseAll(bs)
		res.freeAll()
		return nil, err
	}
	perm, err := sortPerm(tc.Ctx, segs, n)
	keyBytes := segs[0].Bytes()
	segs[0] = nil
	res.shrink(keyBytes)
	if err != nil {
		releaseAll(bs)
		res.freeAll()
		return nil, err
	}
	return &gatherStream{tc: tc, schema: s.Input.Schema(), bs: bs, starts: chunkStarts(bs), order: perm, res: res}, nil
}

// gatherStream emits rows order (global row numbers over bs) in batches of
// tc.BatchSize, followed by the columns extra (already in output order).
type gatherStream struct {
	tc     *TaskCtx
	schema *arrow.Schema
	bs     []arrow.RecordBatch
	starts []int64
	order  []int32  // global row numbers, or
	locs   []rowLoc // rows already located
	extra  []arrow.Array
	pos    int
	res    *reservation
}

func (g *gatherStream) Next() (arrow.RecordBatch, error) {
	if err := g.tc.Err(); err != nil {
		return nil, err
	}
	n := len(g.order)
	if g.locs != nil {
		n = len(g.locs)
	}
	if g.pos >= n {
		g.Close()
		return nil, nil
	}
	bsz := g.tc.BatchSize
	if bsz <= 0 {
		bsz = 4096
	}
	end := min(n, g.pos+bsz)
	var locs []rowLoc
	if g.locs != nil {
		locs = g.locs[g.pos:end]
	} else {
		locs = locate(g.starts, g.order[g.pos:end])
	}
	var extra []arrow.Array
	for _, e := range g.extra {
		sl := arrowSlice(e, g.pos, end)
		extra = append(extra, sl)
	}
	out, err := gatherBatches(g.tc.Ctx, g.tc.Mem, g.schema, g.bs, locs, extra)
	releaseArrays(extra)
	if err != nil {
		return nil, err
	}
	g.pos = end
	return out, nil
}

func (g *gatherStream) Close() {
	releaseAll(g.bs)
	releaseArrays(g.extra)
	g.bs, g.extra, g.order, g.locs = nil, nil, nil, nil
	if g.res != nil {
		g.res.freeAll()
	}
}

func arrowSlice(a arrow.Array, i, j int) arrow.Array {
	return array.NewSlice(a, int64(i), int64(j))
}

package exec

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"

	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

const (
	jpProbe = iota // probing left batches
	jpTail         // right/full: emitting the unmatched build rows
	jpDone
)

// joinStream probes one partition (right/full joins: every left
// partition) against the shared build side.
type joinStream struct {
	c    *joinCore
	tc   *TaskCtx
	ec   *vec.Ctx
	cctx context.Context // compute context allocating from tc.Mem
	sh   *joinShared
	b    *joinBuild

	left  Stream
	parts []int // right/full: left partitions not opened yet
	phase int
	err   error

	// The current probe batch.
	cur      arrow.RecordBatch
	keys     []arrow.Array
	gids     []int32 // candidate list id per row, -1: none
	nulls    []bool  // rows with a NULL in a non-null-safe key (nil: none)
	nullBuf  []bool
	n        int
	row, pos int    // expansion cursor: row, position in its list
	matched  []bool // rows with a match (left/full with filter, semi/anti/mark)
	nullSeen []bool // nested-loop mark: a pair's filter was NULL
	markBuf  []bool // hash mark: unmatched rows whose mark is NULL
	late     []int32
	lateOK   bool // late (left/full rows whose candidates all failed) computed
	latePos  int

	buildMatched []bool // right/full
	tailPos      int

	li, ri []int32 // pair scratch
}

func newJoinStream(c *joinCore, tc *TaskCtx) *joinStream {
	return &joinStream{c: c, tc: tc, ec: tc.EvalCtx(), cctx: compute.WithAllocator(tc.Ctx, tc.Mem)}
}

func (s *joinStream) batchSize() int {
	if s.tc.BatchSize > 0 {
		return s.tc.BatchSize
	}
	return 4096
}

func (s *joinStream) Next() (arrow.RecordBatch, error) {
	if s.err != nil {
		return nil, s.err
	}
	out, err := s.next()
	if err != nil {
		s.err = err
		s.dropCur()
		return nil, err
	}
	return out, nil
}

func (s *joinStream) next() (arrow.RecordBatch, error) {
	if s.phase == jpDone {
		return nil, nil
	}
	if s.b == nil {
		if err := s.tc.Err(); err != nil {
			return nil, err
		}
		b, err := s.sh.get(s.c, s.tc)
		if err != nil {
			return nil, err
		}
		s.b = b
		switch s.c.typ {
		case RightJoin, FullJoin:
			s.buildMatched = make([]bool, b.n)
		case RightSemiJoin, RightAntiJoin:
			if err := s.probeConcurrently(); err != nil {
				return nil, err
			}
		}
	}
	for {
		if err := s.tc.Err(); err != nil {
			return nil, err
		}
		out, err := s.step()
		if err != nil {
			return nil, err
		}
		if out == nil {
			if s.phase == jpDone {
				return nil, nil
			}
			continue
		}
		if out.NumRows() > 0 {
			return out, nil
		}
		out.Release()
	}
}

// step does one bounded piece of work; it returns a batch or nil.
func (s *joinStream) step() (arrow.RecordBatch, error) {
	typ := s.c.typ
	switch s.phase {
	case jpProbe:
		if s.cur == nil {
			if s.b.n == 0 && (typ == InnerJoin || typ == SemiJoin || typ == RightJoin || typ == RightSemiJoin || typ == RightAntiJoin) {
				s.phase = jpDone // nothing can match
				return nil, nil
			}
			rb, err := s.nextLeft()
			if err != nil {
				return nil, err
			}
			if rb == nil {
				if typ == RightJoin || typ == FullJoin {
					s.phase = jpTail
				} else {
					s.phase = jpDone
				}
				return nil, nil
			}
			if err := s.startBatch(rb); err != nil {
				return nil, err
			}
		}
		if s.row < s.n {
			return s.expandChunk()
		}
		return s.finishBatch()
	case jpTail:
		return s.tailChunk()
	}
	return nil, nil
}

func (s *joinStream) nextLeft() (arrow.RecordBatch, error) {
	want := s.c.left.Schema()
	for {
		if s.left == nil {
			if len(s.parts) == 0 {
				return nil, nil
			}
			in, err := s.c.left.Execute(s.tc, s.parts[0])
			if err != nil {
				return nil, err
			}
			s.parts = s.parts[1:]
			s.left = in
		}
		rb, err := s.left.Next()
		if err != nil {
			return nil, err
		}
		if rb == nil {
			s.left.Close()
			s.left = nil
			continue
		}
		if rb.NumRows() == 0 {
			rb.Release()
			continue
		}
		if err := joinCheckBatch(want, rb); err != nil {
			rb.Release()
			return nil, fmt.Errorf("exec: %s probe side: %w", s.c.name, err)
		}
		return rb, nil
	}
}

func joinResize[T any](x []T, n int) []T {
	if cap(x) < n {
		return make([]T, n)
	}
	x = x[:n]
	clear(x)
	return x
}

// startBatch takes rb as the current probe batch and finds each row's
// candidate list.
func (s *joinStream) startBatch(rb arrow.RecordBatch) error {
	c, b := s.c, s.b
	s.cur, s.n = rb, int(rb.NumRows())
	s.row, s.pos, s.late, s.lateOK, s.latePos = 0, 0, s.late[:0], false, 0
	s.gids = joinResize(s.gids, s.n)
	s.nulls = nil
	if c.nested {
		g := int32(0)
		if b.n == 0 {
			g = -1
		}
		for i := range s.gids {
			s.gids[i] = g
		}
	} else {
		s.keys = joinResize(s.keys, len(c.leftKeys))
		for i, e := range c.leftKeys {
			a, err := e.Eval(s.ec, rb)
			if err != nil {
				return err
			}
			s.keys[i] = a
			if a.Len() != s.n || !arrow.TypeEqual(a.DataType(), c.keyTypes[i]) {
				return fmt.Errorf("exec: %s: left key %s evaluated to %d values of %s, want %d of %s", c.name, e, a.Len(), a.DataType(), s.n, c.keyTypes[i])
			}
		}
		if err := b.table.Lookup(s.keys, s.gids); err != nil {
			return err
		}
		s.nulls = joinNullRows(s.keys, c.nullSafe, s.n, s.nullBuf)
		if s.nulls != nil {
			s.nullBuf = s.nulls
		}
		for i, g := range s.gids {
			if g >= 0 && (s.nulls != nil && s.nulls[i] || b.offsets[g+1] == b.offsets[g]) {
				s.gids[i] = -1
			}
		}
	}
	switch c.typ {
	case SemiJoin, AntiJoin, MarkJoin, LeftJoin, FullJoin:
		s.matched = joinResize(s.matched, s.n)
	}
	if (c.nested || c.markFilter) && c.typ == MarkJoin {
		s.nullSeen = joinResize(s.nullSeen, s.n)
	}
	if c.filter == nil && (c.typ == SemiJoin || c.typ == AntiJoin || c.typ == MarkJoin) {
		for i, g := range s.gids {
			s.matched[i] = g >= 0
		}
		s.row = s.n // no pairs to look at
	}
	if c.filter == nil && (c.typ == RightSemiJoin || c.typ == RightAntiJoin) {
		offs, rows, bm := b.offsets, b.rows, s.buildMatched
		for _, g := range s.gids {
			if g >= 0 {
				for _, r := range rows[offs[g]:offs[g+1]] {
					bm[r] = true
				}
			}
		}
		s.row = s.n
	}
	return nil
}

func (s *joinStream) dropCur() {
	if s.cur != nil {
		s.cur.Release()
		s.cur = nil
	}
	for i, k := range s.keys {
		if k != nil {
			k.Release()
			s.keys[i] = nil
		}
	}
	s.n, s.row, s.pos = 0, 0, 0
}

// expandChunk lists the next candidate pairs (at most a batch) and turns
// them into output (or match flags).
func (s *joinStream) expandChunk() (arrow.RecordBatch, error) {
	bs := s.batchSize()
	typ := s.c.typ
	inlineUnmatched := typ == LeftJoin || typ == FullJoin
	skipMatched := typ == SemiJoin || typ == AntiJoin || typ == MarkJoin
	skipBuild := typ == RightSemiJoin || typ == RightAntiJoin // build rows already matched
	offs, rows := s.b.offsets, s.b.rows
	li, ri := s.li[:0], s.ri[:0]
	for s.row < s.n && len(li) < bs {
		i := s.row
		g := s.gids[i]
		if g < 0 || skipMatched && s.matched[i] {
			if g < 0 && inlineUnmatched {
				li = append(li, int32(i))
				ri = append(ri, -1)
			}
			s.row, s.pos = s.row+1, 0
			continue
		}
		lo, hi := int(offs[g])+s.pos, int(offs[g+1])
		k := min(hi-lo, bs-len(li))
		for _, r := range rows[lo : lo+k] {
			if skipBuild && s.buildMatched[r] {
				continue
			}
			li = append(li, int32(i))
			ri = append(ri, r)
		}
		if lo+k == hi {
			s.row, s.pos = s.row+1, 0
		} else {
			s.pos += k
		}
	}
	s.li, s.ri = li, ri
	if len(li) == 0 {
		return nil, nil
	}
	return s.emitPairs(li, ri)
}

// emitPairs applies the filter to candidate pairs (ri -1: a left row
// without candidates, kept as is), records matches, and returns the
// joined rows for inner/left/right/full joins.
func (s *joinStream) emitPairs(li, ri []int32) (arrow.RecordBatch, error) {
	c := s.c
	if c.filter == nil {
		if s.buildMatched != nil {
			for _, r := range ri {
				if r >= 0 {
					s.buildMatched[r] = true
				}
			}
		}
		if c.typ == RightSemiJoin || c.typ == RightAntiJoin {
			return nil, nil
		}
		return s.gatherPairs(li, ri)
	}
	mask, err := s.evalFilter(li, ri)
	if err != nil {
		return nil, err
	}
	kept := 0
	for k, l := range li {
		r := ri[k]
		if r >= 0 {
			if !mask.IsValid(k) || !mask.Value(k) {
				if s.nullSeen != nil && mask.IsNull(k) {
					s.nullSeen[l] = true
				}
				continue
			}
			if s.matched != nil {
				s.matched[l] = true
			}
			if s.buildMatched != nil {
				s.buildMatched[r] = true
			}
		}
		li[kept], ri[kept] = l, r
		kept++
	}
	mask.Release()
	switch c.typ {
	case SemiJoin, AntiJoin, MarkJoin, RightSemiJoin, RightAntiJoin:
		return nil, nil
	}
	if kept == 0 {
		return nil, nil
	}
	return s.gatherPairs(li[:kept], ri[:kept])
}

// evalFilter evaluates the filter over pairs, gathering only the columns
// it reads.
func (s *joinStream) evalFilter(li, ri []int32) (*array.Boolean, error) {
	c := s.c
	nl := s.cur.NumCols()
	cols := make([]arrow.Array, len(c.filterCols))
	defer func() {
		for _, a := range cols {
			if a != nil {
				a.Release()
			}
		}
	}()
	for k, j := range c.filterCols {
		var err error
		if j < int(nl) {
			cols[k], err = s.take(s.cur.Column(j), li)
		} else {
			cols[k], err = s.take(s.b.batch.Column(j-int(nl)), ri)
		}
		if err != nil {
			return nil, err
		}
	}
	cb := array.NewRecordBatch(c.cschema, cols, int64(len(li)))
	defer cb.Release()
	m, err := c.cfilter.Eval(s.ec, cb)
	if err != nil {
		return nil, err
	}
	mask, ok := m.(*array.Boolean)
	if !ok || mask.Len() != len(li) {
		m.Release()
		return nil, fmt.Errorf("exec: %s: filter %s did not evaluate to %d BOOLEAN values", c.name, c.filter, len(li))
	}
	return mask, nil
}

// gatherPairs builds output rows: left row li[k] joined with right row
// ri[k] (-1: NULLs; a -1 in li is not allowed).
func (s *joinStream) gatherPairs(li, ri []int32) (arrow.RecordBatch, error) {
	nl := int(s.cur.NumCols())
	cols := make([]arrow.Array, s.c.schema.NumFields())
	ok := false
	defer func() {
		if !ok {
			for _, a := range cols {
				if a != nil {
					a.Release()
				}
			}
		}
	}()
	if joinIsIdentity(li, s.n) {
		for j := 0; j < nl; j++ {
			cols[j] = s.cur.Column(j)
			cols[j].Retain()
		}
	} else {
		for j := 0; j < nl; j++ {
			a, err := s.take(s.cur.Column(j), li)
			if err != nil {
				return nil, err
			}
			cols[j] = a
		}
	}
	if err := s.gatherRight(cols[nl:], ri); err != nil {
		return nil, err
	}
	ok = true
	out := array.NewRecordBatch(s.c.schema, cols, int64(len(li)))
	for _, a := range cols {
		a.Release()
	}
	return out, nil
}

// gatherRight fills cols with the build columns at rows ri (-1: NULL).
func (s *joinStream) gatherRight(cols []arrow.Array, ri []int32) error {
	any := false
	for _, r := range ri {
		if r >= 0 {
			any = true
			break
		}
	}
	bb := s.b.batch
	if !any {
		for j := range cols {
			cols[j] = array.MakeArrayOfNull(s.tc.Mem, bb.Column(j).DataType(), len(ri))
		}
		return nil
	}
	for j := range cols {
		a, err := s.take(bb.Column(j), ri)
		if err != nil {
			return err
		}
		cols[j] = a
	}
	return nil
}

// tailChunk emits the next build rows no probe row matched (right/full;
// right anti), or those some probe row matched (right semi).
func (s *joinStream) tailChunk() (arrow.RecordBatch, error) {
	bs := s.batchSize()
	ri := s.ri[:0]
	want := s.c.typ == RightSemiJoin
	if s.tailPos >= len(s.buildMatched) {
		s.phase = jpDone
		return nil, nil
	}
	for s.tailPos < len(s.buildMatched) && len(ri) < bs {
		if s.buildMatched[s.tailPos] == want {
			ri = append(ri, int32(s.tailPos))
		}
		s.tailPos++
	}
	s.ri = ri
	if len(ri) == 0 {
		return nil, nil
	}
	nl := s.c.left.Schema().NumFields()
	if s.c.typ == RightSemiJoin || s.c.typ == RightAntiJoin {
		nl = 0 // right fields only
	}
	cols := make([]arrow.Array, s.c.schema.NumFields())
	for j := 0; j < nl; j++ {
		cols[j] = array.MakeArrayOfNull(s.tc.Mem, s.c.schema.Field(j).Type, len(ri))
	}
	if err := s.gatherRight(cols[nl:], ri); err != nil {
		for _, a := range cols {
			if a != nil {
				a.Release()
			}
		}
		return nil, err
	}
	out := array.NewRecordBatch(s.c.schema, cols, int64(len(ri)))
	for _, a := range cols {
		a.Release()
	}
	return out, nil
}

// finishBatch ends the current probe batch: left/full rows whose
// candidates all failed the filter, semi/anti/mark results.
func (s *joinStream) finishBatch() (arrow.RecordBatch, error) {
	c := s.c
	if (c.typ == LeftJoin || c.typ == FullJoin) && c.filter != nil {
		if !s.lateOK {
			for i, g := range s.gids {
				if g >= 0 && !s.matched[i] {
					s.late = append(s.late, int32(i))
				}
			}
			s.lateOK = true
		}
		if s.latePos < len(s.late) {
			k := min(len(s.late)-s.latePos, s.batchSize())
			li := s.late[s.latePos : s.latePos+k]
			s.latePos += k
			ri := joinResize(s.ri, k)
			for j := range ri {
				ri[j] = -1
			}
			s.ri = ri
			return s.gatherPairs(li, ri)
		}
	}
	var out arrow.RecordBatch
	var err error
	switch c.typ {
	case SemiJoin:
		out, err = s.selectRows(true)
	case AntiJoin:
		out, err = s.selectRows(false)
	case MarkJoin:
		out, err = s.markBatch()
	}
	s.dropCur()
	return out, err
}

// selectRows returns the current batch's rows whose matched flag is want.
func (s *joinStream) selectRows(want bool) (arrow.RecordBatch, error) {
	idx := s.li[:0]
	for i := 0; i < s.n; i++ {
		if s.matched[i] == want {
			idx = append(idx, int32(i))
		}
	}
	s.li = idx
	switch len(idx) {
	case 0:
		return nil, nil
	case s.n:
		return array.NewRecordBatch(s.c.schema, s.cur.Columns(), s.cur.NumRows()), nil
	}
	cols := make([]arrow.Array, s.cur.NumCols())
	for j := range cols {
		a, err := s.take(s.cur.Column(j), idx)
		if err != nil {
			for _, x := range cols[:j] {
				x.Release()
			}
			return nil, err
		}
		cols[j] = a
	}
	out := array.NewRecordBatch(s.c.schema, cols, int64(len(idx)))
	for _, a := range cols {
		a.Release()
	}
	return out, nil
}

func (s *joinStream) Close() {
	s.dropCur()
	if s.left != nil {
		s.left.Close()
		s.left = nil
	}
	s.parts = nil
	if s.sh != nil {
		s.c.releaseShared(s.tc, s.sh)
		s.sh = nil
	}
	s.b = nil
	s.phase = jpDone
}

// take gathers src at idx (NULL where idx < 0).
func (s *joinStream) take(src arrow.Array, idx []int32) (arrow.Array, error) {
	return joinTake(s.cctx, s.tc, src, idx)
}

// probeConcurrently runs the probe phase of a right semi/anti join: one
// worker per CPU takes left partitions in turn, each probing into its own
// build-row marks; the marks are OR-ed into s.buildMatched and the stream
// moves on to emitting the build rows.
func (s *joinStream) probeConcurrently() error {
	c := s.c
	if s.b.n == 0 { // nothing to emit, nothing to probe
		s.buildMatched, s.phase = nil, jpTail
		return nil
	}
	np := max(1, c.left.Partitions())
	workers := max(1, min(np, runtime.GOMAXPROCS(0)))
	ctx, cancel := context.WithCancel(s.tc.Ctx)
	defer cancel()
	ptc := *s.tc
	ptc.Ctx = ctx
	marks := make([][]bool, workers)
	var (
		next     atomic.Int64
		wg       sync.WaitGroup
		errMu    sync.Mutex
		firstErr error
	)
	fail := func(err error) {
		errMu.Lock()
		if firstErr == nil || errors.Is(firstErr, context.Canceled) && !errors.Is(err, context.Canceled) {
			firstErr = err
		}
		errMu.Unlock()
		cancel()
	}
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sub := newJoinStream(c, &ptc)
			sub.b = s.b
			sub.buildMatched = make([]bool, s.b.n)
			marks[w] = sub.buildMatched
			defer func() {
				if r := recover(); r != nil {
					fail(fmt.Errorf("exec: internal error in %s: %v\n%s", c.name, r, debug.Stack()))
				}
				sub.dropCur()
				if sub.left != nil {
					sub.left.Close()
				}
			}()
			for {
				p := int(next.Add(1) - 1)
				if p >= np {
					return
				}
				in, err := c.left.Execute(&ptc, p)
				if err != nil {
					fail(err)
					return
				}
				sub.left, sub.phase = in, jpProbe
				for sub.phase == jpProbe && sub.left != nil {
					if err := ptc.Err(); err != nil {
						fail(err)
						return
					}
					out, err := sub.step()
					if err != nil {
						fail(err)
						return
					}
					if out != nil { // right semi/anti probes emit nothing
						out.Release()
					}
				}
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		if err := s.tc.Err(); err != nil {
			return err
		}
		return firstErr
	}
	bm := make([]bool, s.b.n)
	for _, m := range marks {
		for i, v := range m {
			if v {
				bm[i] = true
			}
		}
	}
	s.buildMatched = bm
	s.phase = jpTail
	return nil
}

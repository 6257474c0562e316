package exec

import (
	"context"
	"fmt"

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
		if s.c.typ == RightJoin || s.c.typ == FullJoin {
			s.buildMatched = make([]bool, b.n)
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
			if s.b.n == 0 && (typ == InnerJoin || typ == SemiJoin || typ == RightJoin) {
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
	if c.nested && c.typ == MarkJoin {
		s.nullSeen = joinResize(s.nullSeen, s.n)
	}
	if c.filter == nil && (c.typ == SemiJoin || c.typ == AntiJoin || c.typ == MarkJoin) {
		for i, g := range s.gids {
			s.matched[i] = g >= 0
		}
		s.row = s.n // no pairs to look at
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
	case SemiJoin, AntiJoin, MarkJoin:
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

// tailChunk emits the next build rows no probe row matched (right/full).
func (s *joinStream) tailChunk() (arrow.RecordBatch, error) {
	bs := s.batchSize()
	ri := s.ri[:0]
	for s.tailPos < len(s.buildMatched) && len(ri) < bs {
		if !s.buildMatched[s.tailPos] {
			ri = append(ri, int32(s.tailPos))
		}
		s.tailPos++
	}
	s.ri = ri
	if s.tailPos >= len(s.buildMatched) {
		s.phase = jpDone
	}
	if len(ri) == 0 {
		return nil, nil
	}
	nl := s.c.left.Schema().NumFields()
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

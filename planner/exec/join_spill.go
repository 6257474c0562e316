package exec

import (
	"errors"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

// Grace hash join (tc.Spill set): when the build side does not fit (the
// shared build fails with ResourceExhausted before the stream returned a
// row), both sides are written to spillFanout runs by a hash of their join
// keys — the right side once per execution, shared by the probe streams,
// the left side per probe stream (its own left partition; every left
// partition for the one-partition right/full/right semi/right anti joins)
// — and bucket k of the left is joined with bucket k of the right by a
// HashJoin of the same type, keys and filter over the two runs (spilling
// again, with other hash bits, if a bucket is still too large). Rows can
// only match within a bucket, and a row whose key is NULL lands in some
// bucket and finds no match there, exactly as in one join; so inner, left,
// right, full, semi, anti, right semi and right anti joins give the same
// rows (in another order). Mark joins are not spilled: their NULL mark
// depends on the whole right side (any right row at all, any NULL key),
// which a bucket does not see; they keep failing with ResourceExhausted.

// graceShared is the right side's buckets of one execution.
type graceShared struct {
	refs int
	// sem lets one probe stream of the execution at a time join a bucket
	// (their builds would otherwise add up).
	sem  chan struct{}
	once sync.Once
	runs []*SpillRun
	err  error
}

// graceable reports whether h may spill under tc.
func (h *HashJoin) graceable(tc *TaskCtx) bool {
	if tc.Spill == nil || h.Type == MarkJoin || len(h.LeftKeys) == 0 {
		return false
	}
	for i := range h.LeftKeys {
		if !arrow.TypeEqual(h.LeftKeys[i].Type(), h.RightKeys[i].Type()) {
			return false
		}
	}
	return true
}

func (h *HashJoin) acquireGrace(tc *TaskCtx) *graceShared {
	h.gmu.Lock()
	defer h.gmu.Unlock()
	if h.grace == nil {
		h.grace = map[*TaskCtx]*graceShared{}
	}
	g := h.grace[tc]
	if g == nil {
		g = &graceShared{sem: make(chan struct{}, 1)}
		h.grace[tc] = g
	}
	g.refs++
	return g
}

func (h *HashJoin) releaseGrace(tc *TaskCtx, g *graceShared) {
	h.gmu.Lock()
	g.refs--
	last := g.refs == 0
	if last && h.grace[tc] == g {
		delete(h.grace, tc)
	}
	h.gmu.Unlock()
	if last {
		g.once.Do(func() { g.err = errors.New("exec: HashJoin closed") })
		removeRuns(g.runs)
		g.runs = nil
	}
}

// rightBuckets partitions the right side once per execution.
func (h *HashJoin) rightBuckets(tc *TaskCtx, g *graceShared) ([]*SpillRun, error) {
	g.once.Do(func() {
		g.runs, g.err = partitionInput(tc, h.Right, nil, h.RightKeys, h.NullSafe, h.spillDepth)
	})
	return g.runs, g.err
}

// partitionInput writes the partitions parts of op (nil = all) to buckets
// by keys.
func partitionInput(tc *TaskCtx, op Operator, parts []int, keys []vec.Expr, nullSafe []bool, depth int) ([]*SpillRun, error) {
	p, err := newSpillPartitioner(tc, "join", op.Schema(), keys, depth)
	if err != nil {
		return nil, err
	}
	p.spread = make([]bool, len(keys))
	for i := range keys {
		p.spread[i] = i >= len(nullSafe) || !nullSafe[i]
	}
	add := func(tc *TaskCtx, _ int, st Stream) error {
		ec := tc.EvalCtx()
		return drain(st, func(b arrow.RecordBatch) error {
			if err := tc.Err(); err != nil {
				return err
			}
			return p.add(ec, b, nil)
		})
	}
	if parts == nil {
		err = runPartitions(tc, op, add)
	} else {
		for _, i := range parts {
			var st Stream
			if st, err = op.Execute(tc, i); err != nil {
				break
			}
			err = add(tc, i, st)
			st.Close()
			if err != nil {
				break
			}
		}
	}
	if err != nil {
		p.abort()
		return nil, err
	}
	return p.finish()
}

// graceStream is one probe stream that falls back to the grace join.
type graceStream struct {
	h     *HashJoin
	tc    *TaskCtx
	parts []int // the left partitions this stream probes
	inner Stream
	g     *graceShared
	sent  bool // the in-memory join returned a batch: no fallback

	left []*SpillRun // this stream's left buckets (owned)
	k    int         // next bucket
	out  *SpillRun   // the current bucket's result (owned)
	sub  Stream      // reads out
}

func (s *graceStream) Next() (arrow.RecordBatch, error) {
	if s.inner != nil {
		b, err := s.inner.Next()
		if err == nil || s.sent || !s.tc.canSpill(err) {
			s.sent = s.sent || b != nil
			return b, err
		}
		s.inner.Close()
		s.inner = nil
		if e := s.tc.Err(); e != nil {
			return nil, e
		}
		if _, err := s.h.rightBuckets(s.tc, s.g); err != nil {
			return nil, err
		}
		s.left, err = partitionInput(s.tc, s.h.Left, s.parts, s.h.LeftKeys, s.h.NullSafe, s.h.spillDepth)
		if err != nil {
			return nil, err
		}
	}
	right, err := s.h.rightBuckets(s.tc, s.g)
	if err != nil {
		return nil, err
	}
	for {
		if err := s.tc.Err(); err != nil {
			return nil, err
		}
		if s.sub == nil {
			if s.k >= spillFanout {
				return nil, nil
			}
			k := s.k
			s.k++
			if !s.h.bucketNeeded(s.left[k] != nil, right[k] != nil) {
				s.left[k].Remove()
				continue
			}
			out, err := s.joinBucket(k, right[k])
			s.left[k].Remove()
			if err != nil {
				return nil, err
			}
			if out == nil {
				continue
			}
			s.out = out
			s.sub = &runScanStream{tc: s.tc, runs: []*SpillRun{out}}
		}
		b, err := s.sub.Next()
		if err != nil {
			return nil, err
		}
		if b != nil {
			return b, nil
		}
		s.sub.Close()
		s.sub = nil
		s.out.Remove()
		s.out = nil
	}
}

// joinBucket joins left bucket k with right, one stream of the execution
// at a time, writing the result to a run (nil when empty): the bucket's
// build is released before the stream returns, so no lock is held between
// Next calls.
func (s *graceStream) joinBucket(k int, right *SpillRun) (*SpillRun, error) {
	select {
	case s.g.sem <- struct{}{}:
	case <-s.tc.Ctx.Done():
		return nil, s.tc.Err()
	}
	defer func() { <-s.g.sem }()
	sub, err := NewHashJoin(bucketScan(s.h.Left.Schema(), s.left[k]), bucketScan(s.h.Right.Schema(), right), s.h.Type, s.h.LeftKeys, s.h.RightKeys, s.h.Filter, s.h.NullSafe)
	if err != nil {
		return nil, err
	}
	sub.spillDepth = s.h.spillDepth + 1
	st, err := sub.Execute(s.tc, 0)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	var w *SpillWriter
	for {
		b, err := st.Next()
		if err == nil && b != nil && w == nil {
			w, err = s.tc.Spill.NewRun("join", sub.Schema(), s.tc.Mem)
		}
		if err == nil && b != nil {
			err = w.Write(b)
		}
		if b != nil {
			b.Release()
		}
		if err != nil {
			if w != nil {
				w.Abort()
			}
			return nil, err
		}
		if b == nil {
			break
		}
	}
	if w == nil {
		return nil, nil
	}
	return w.Finish()
}

// bucketNeeded reports whether a bucket with these sides can give rows.
func (h *HashJoin) bucketNeeded(left, right bool) bool {
	switch h.Type {
	case LeftJoin, AntiJoin:
		return left
	case RightJoin, RightAntiJoin:
		return right
	case FullJoin:
		return left || right
	}
	return left && right
}

func bucketScan(schema *arrow.Schema, r *SpillRun) *runScan {
	if r == nil {
		return &runScan{schema: schema}
	}
	return &runScan{schema: schema, runs: []*SpillRun{r}}
}

func (s *graceStream) Close() {
	if s.inner != nil {
		s.inner.Close()
		s.inner = nil
	}
	if s.sub != nil {
		s.sub.Close()
		s.sub = nil
	}
	removeRuns(s.left)
	s.left = nil
	s.out.Remove()
	s.out = nil
	if s.g != nil {
		s.h.releaseGrace(s.tc, s.g)
		s.g = nil
	}
}

// executeSpillable is Execute with the grace fallback when tc spills.
func (h *HashJoin) executeSpillable(tc *TaskCtx, p int, s Stream) Stream {
	if !h.graceable(tc) {
		return s
	}
	parts := []int{p}
	if h.Type.probesAll() {
		parts = parts[:0]
		for i := 0; i < h.Left.Partitions(); i++ {
			parts = append(parts, i)
		}
	}
	return &graceStream{h: h, tc: tc, parts: parts, inner: s, g: h.acquireGrace(tc)}
}

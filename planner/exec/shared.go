package exec

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-flightsql/paimon-flightsql/internal/panics"
)

// SharedResult is a subplan read by several operators of one plan (a WITH
// query referenced more than once): its Input is computed once per
// execution and its batches, per partition, are held until every reader
// is done. Readers are SharedRead operators made by NewReader; the plan's
// root is a SharedScope listing it, which releases whatever is still held
// when the execution ends.
//
// An execution is identified by its Budget (the TaskCtx copies that
// operators make for their goroutines share it; a TaskCtx without one is
// its own execution). The held bytes are reserved with that Budget as
// "WITH <name>": over it the query fails with ErrResourceExhausted naming
// the WITH query (the result is not spilled).
//
// The result is released when every reader partition has been executed
// and closed and none is open; a reader executed after that computes it
// again (correct, only slower). Readers return the batches of Input's
// partition p, in Input's order, for their own partition p.
type SharedResult struct {
	Name  string
	Input Operator

	readers int // SharedRead operators (planning time)
	mu      sync.Mutex
	runs    map[any]*sharedRun
}

// sharedRun is the result of one execution.
type sharedRun struct {
	load   sync.Mutex // held while computing
	done   bool
	parts  [][]arrow.RecordBatch
	bytes  int64
	budget *Budget
	err    error
	// open: reader streams not closed; closed: reader streams closed;
	// released: parts were released (by the last reader or the scope).
	open, closed int
	released     bool
}

// NewReader returns one more reader of s. Planning time only, before the
// first Execute.
func (s *SharedResult) NewReader() *SharedRead {
	s.readers++
	return &SharedRead{Src: s}
}

// Readers is the number of readers made by NewReader.
func (s *SharedResult) Readers() int { return s.readers }

func sharedKey(tc *TaskCtx) any {
	if tc.Budget != nil {
		return tc.Budget
	}
	return tc
}

func (s *SharedResult) acquire(tc *TaskCtx) *sharedRun {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.runs == nil {
		s.runs = map[any]*sharedRun{}
	}
	k := sharedKey(tc)
	r := s.runs[k]
	if r == nil {
		r = &sharedRun{}
		s.runs[k] = r
	}
	r.open++
	return r
}

// closeReader records that a reader stream of r closed; the last one
// releases r when every reader partition has been read.
func (s *SharedResult) closeReader(tc *TaskCtx, r *sharedRun) {
	s.mu.Lock()
	r.open--
	r.closed++
	last := r.open == 0 && r.closed >= s.readers*max(1, s.Input.Partitions())
	if last {
		s.detach(tc, r)
	}
	s.mu.Unlock()
	if last {
		r.release()
	}
}

// detach removes r from the runs (s.mu held).
func (s *SharedResult) detach(tc *TaskCtx, r *sharedRun) {
	k := sharedKey(tc)
	if s.runs[k] == r {
		delete(s.runs, k)
	}
}

// end releases the result of tc's execution, if any (SharedScope).
func (s *SharedResult) end(tc *TaskCtx) {
	s.mu.Lock()
	r := s.runs[sharedKey(tc)]
	if r != nil {
		s.detach(tc, r)
	}
	s.mu.Unlock()
	if r != nil {
		r.release()
	}
}

// release drops the held batches and their reservation (waits for a
// computation in progress).
func (r *sharedRun) release() {
	r.load.Lock()
	defer r.load.Unlock()
	if r.released {
		return
	}
	r.released = true
	for _, bs := range r.parts {
		releaseAll(bs)
	}
	r.parts = nil
	r.budget.Free(r.bytes)
	r.bytes = 0
}

// get computes the result on first use and returns partition p's batches,
// each retained for the caller.
func (s *SharedResult) get(tc *TaskCtx, r *sharedRun, p int) ([]arrow.RecordBatch, error) {
	r.load.Lock()
	defer r.load.Unlock()
	if r.released {
		return nil, fmt.Errorf("exec: the shared result of WITH %s was released before it was read", s.Name)
	}
	if !r.done {
		parts, bytes, err := s.compute(tc)
		if err != nil {
			// A reader whose own context ended (a LIMIT above it stopped
			// early) leaves the computation to the next reader.
			if tc.Err() == nil {
				r.done, r.err = true, err
			}
			return nil, err
		}
		r.done, r.parts, r.bytes, r.budget = true, parts, bytes, tc.Budget
	}
	if r.err != nil {
		return nil, r.err
	}
	out := make([]arrow.RecordBatch, len(r.parts[p]))
	for i, b := range r.parts[p] {
		b.Retain()
		out[i] = b
	}
	return out, nil
}

// compute drains every partition of Input concurrently, reserving each
// batch's bytes.
func (s *SharedResult) compute(tc *TaskCtx) ([][]arrow.RecordBatch, int64, error) {
	n := max(1, s.Input.Partitions())
	ctx, cancel := context.WithCancel(tc.Ctx)
	defer cancel()
	ptc := *tc
	ptc.Ctx = ctx
	parts := make([][]arrow.RecordBatch, n)
	errs := make([]error, n)
	bytes := make([]int64, n)
	var wg sync.WaitGroup
	for p := 0; p < n; p++ {
		wg.Go(func() {
			defer func() {
				if x := recover(); x != nil {
					errs[p] = panics.Recovered(fmt.Sprintf("WITH %s partition %d", s.Name, p), x)
					cancel()
				}
			}()
			if err := s.drain(&ptc, p, &parts[p], &bytes[p]); err != nil {
				errs[p] = err
				cancel()
			}
		})
	}
	wg.Wait()
	total := int64(0)
	for _, b := range bytes {
		total += b
	}
	var first error
	for _, err := range errs {
		if err != nil && (first == nil || errors.Is(first, context.Canceled) && !errors.Is(err, context.Canceled)) {
			first = err
		}
	}
	if first != nil {
		if err := tc.Err(); err != nil {
			first = err
		}
		for _, bs := range parts {
			releaseAll(bs)
		}
		tc.Budget.Free(total)
		return nil, 0, first
	}
	return parts, total, nil
}

func (s *SharedResult) drain(tc *TaskCtx, p int, out *[]arrow.RecordBatch, bytes *int64) error {
	return drainPartition(tc, s.Input, p, "WITH "+s.Name, func(nb int64) error {
		return tc.Budget.Reserve(fmt.Sprintf("WITH %s (its result is held for %d readers)", s.Name, s.readers), nb)
	}, func(b arrow.RecordBatch, nb int64) {
		*bytes += nb
		*out = append(*out, b)
	})
}

// SharedRead reads a SharedResult: partition p returns the batches of the
// result's partition p.
type SharedRead struct {
	Src *SharedResult
}

func (r *SharedRead) Schema() *arrow.Schema { return r.Src.Input.Schema() }

// Children is empty: the shared input is the SharedScope's child.
func (r *SharedRead) Children() []Operator { return nil }
func (r *SharedRead) Partitions() int      { return max(1, r.Src.Input.Partitions()) }
func (r *SharedRead) Explain() string {
	return fmt.Sprintf("ReadShared WITH %s", r.Src.Name)
}

func (r *SharedRead) Execute(tc *TaskCtx, p int) (Stream, error) {
	if tc == nil {
		return nil, fmt.Errorf("exec: ReadShared: nil TaskCtx")
	}
	if p < 0 || p >= r.Partitions() {
		return nil, fmt.Errorf("exec: ReadShared has %d partitions, not partition %d", r.Partitions(), p)
	}
	return &sharedStream{src: r.Src, tc: tc, run: r.Src.acquire(tc), p: p}, nil
}

type sharedStream struct {
	src    *SharedResult
	tc     *TaskCtx
	run    *sharedRun
	p      int
	loaded bool
	closed bool
	queue  []arrow.RecordBatch
}

func (s *sharedStream) Next() (arrow.RecordBatch, error) {
	if s.closed {
		return nil, nil
	}
	if err := s.tc.Err(); err != nil {
		return nil, err
	}
	if !s.loaded {
		bs, err := s.src.get(s.tc, s.run, s.p)
		if err != nil {
			return nil, err
		}
		s.queue, s.loaded = bs, true
	}
	if len(s.queue) == 0 {
		return nil, nil
	}
	b := s.queue[0]
	s.queue[0] = nil
	s.queue = s.queue[1:]
	return b, nil
}

func (s *sharedStream) Close() {
	if s.closed {
		return
	}
	s.closed = true
	releaseAll(s.queue)
	s.queue = nil
	s.src.closeReader(s.tc, s.run)
}

// SharedScope is the root of a plan with shared results: it runs Input
// (its partitions merged into one stream) and, when that stream closes,
// releases each shared result still held for the execution. Children are
// the shared inputs, then Input (EXPLAIN shows each shared subplan once).
type SharedScope struct {
	Input  Operator
	Shared []*SharedResult
}

func (s *SharedScope) Schema() *arrow.Schema { return s.Input.Schema() }
func (s *SharedScope) Children() []Operator {
	out := make([]Operator, 0, len(s.Shared)+1)
	for _, r := range s.Shared {
		out = append(out, r.Input)
	}
	return append(out, s.Input)
}
func (s *SharedScope) Partitions() int { return 1 }
func (s *SharedScope) Explain() string {
	parts := make([]string, len(s.Shared))
	for i, r := range s.Shared {
		parts[i] = fmt.Sprintf("%s (computed once, %d readers)", r.Name, r.readers)
	}
	return "WithShared " + strings.Join(parts, ", ")
}

func (s *SharedScope) Execute(tc *TaskCtx, p int) (Stream, error) {
	if p != 0 {
		return nil, fmt.Errorf("exec: WithShared has one partition, not %d", p)
	}
	in, err := (&Coalesce{Input: s.Input}).Execute(tc, 0)
	if err != nil {
		s.end(tc)
		return nil, err
	}
	return &scopeStream{s: s, tc: tc, in: in}, nil
}

func (s *SharedScope) end(tc *TaskCtx) {
	for _, r := range s.Shared {
		r.end(tc)
	}
}

type scopeStream struct {
	s      *SharedScope
	tc     *TaskCtx
	in     Stream
	closed bool
}

func (s *scopeStream) Next() (arrow.RecordBatch, error) {
	if s.closed {
		return nil, nil
	}
	return s.in.Next()
}

func (s *scopeStream) Close() {
	if s.closed {
		return
	}
	s.closed = true
	s.in.Close()
	s.s.end(s.tc)
}

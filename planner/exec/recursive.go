package exec

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

// DefaultMaxRecursion is the number of rounds of a recursive term a
// RecursiveUnion runs, when its MaxIterations is 0, before it fails.
const DefaultMaxRecursion = 100_000

// WorkTable is the working table of one RecursiveUnion: what its Step's
// WorkScan reads. It is a planning-time identity; its rows live in the
// TaskCtx of each round (so concurrent executions of one plan do not
// share them).
type WorkTable struct {
	Name string
	S    *arrow.Schema
}

// workFrame binds a WorkTable to its rows for the TaskCtx of one round;
// parent is the frame of an enclosing recursive query's round.
type workFrame struct {
	parent  *workFrame
	wt      *WorkTable
	batches []arrow.RecordBatch
}

// WorkScan reads its WorkTable: the rows the previous round of the
// enclosing RecursiveUnion added. One partition.
type WorkScan struct {
	Work *WorkTable
}

func (w *WorkScan) Schema() *arrow.Schema { return w.Work.S }
func (w *WorkScan) Children() []Operator  { return nil }
func (w *WorkScan) Partitions() int       { return 1 }
func (w *WorkScan) Explain() string       { return "WorkTable WITH RECURSIVE " + w.Work.Name }

func (w *WorkScan) Execute(tc *TaskCtx, p int) (Stream, error) {
	if tc == nil {
		return nil, fmt.Errorf("exec: WorkTable: nil TaskCtx")
	}
	if p != 0 {
		return nil, fmt.Errorf("exec: WorkTable has one partition, not %d", p)
	}
	for f := tc.work; f != nil; f = f.parent {
		if f.wt == w.Work {
			out := make([]arrow.RecordBatch, len(f.batches))
			for i, b := range f.batches {
				b.Retain()
				out[i] = b
			}
			return &batchesStream{tc: tc, queue: out}, nil
		}
	}
	return nil, fmt.Errorf("exec: the working table of WITH RECURSIVE %s is read outside its recursive query", w.Work.Name)
}

// batchesStream returns batches it owns.
type batchesStream struct {
	tc    *TaskCtx
	queue []arrow.RecordBatch
}

func (s *batchesStream) Next() (arrow.RecordBatch, error) {
	if err := s.tc.Err(); err != nil {
		return nil, err
	}
	if len(s.queue) == 0 {
		return nil, nil
	}
	b := s.queue[0]
	s.queue[0] = nil
	s.queue = s.queue[1:]
	return b, nil
}

func (s *batchesStream) Close() {
	releaseAll(s.queue)
	s.queue = nil
}

// RecursiveUnion is WITH RECURSIVE name AS (Anchor UNION [ALL] Step): it
// returns Anchor's rows, then runs Step round after round, each round
// reading (through a WorkScan of Work) the rows the previous round added
// and returning the rows it adds, until a round adds none. With Distinct
// a row equal to one already returned (NULLs equal, KeyTable semantics) is
// not added. Rows stream out as they are added; one partition.
//
// Bounds: the working table and the rows being added are held, and with
// Distinct every distinct row's key; their bytes are reserved with
// tc.Budget (the error names the WITH query). More than MaxIterations
// rounds (0: DefaultMaxRecursion) fail with ErrResourceExhausted; the
// context is checked at every batch.
//
// Anchor's and Step's batches must have Work.S's column types (names and
// nullability may differ: every batch is returned with Work.S).
type RecursiveUnion struct {
	Name          string
	Anchor, Step  Operator
	Work          *WorkTable
	Distinct      bool
	MaxIterations int
}

func (u *RecursiveUnion) Schema() *arrow.Schema { return u.Work.S }
func (u *RecursiveUnion) Children() []Operator  { return []Operator{u.Anchor, u.Step} }
func (u *RecursiveUnion) Partitions() int       { return 1 }
func (u *RecursiveUnion) Explain() string {
	op := "UNION ALL"
	if u.Distinct {
		op = "UNION"
	}
	return fmt.Sprintf("RecursiveUnion WITH RECURSIVE %s %s (at most %d rounds)", u.Name, op, u.maxIterations())
}

func (u *RecursiveUnion) maxIterations() int {
	if u.MaxIterations > 0 {
		return u.MaxIterations
	}
	return DefaultMaxRecursion
}

func (u *RecursiveUnion) Execute(tc *TaskCtx, p int) (Stream, error) {
	if tc == nil {
		return nil, fmt.Errorf("exec: RecursiveUnion: nil TaskCtx")
	}
	if p != 0 {
		return nil, fmt.Errorf("exec: RecursiveUnion has one partition, not %d", p)
	}
	s := &recursiveStream{u: u, tc: tc, ec: tc.EvalCtx()}
	if u.Distinct {
		types := make([]arrow.DataType, u.Work.S.NumFields())
		for i, f := range u.Work.S.Fields() {
			types[i] = f.Type
		}
		s.kt = NewKeyTable(types)
	}
	return s, nil
}

type recursiveStream struct {
	u       *RecursiveUnion
	tc      *TaskCtx
	ec      *vec.Ctx
	in      Stream // the anchor or the running round (nil between them)
	started bool
	rounds  int
	done    bool
	closed  bool

	work      []arrow.RecordBatch // the running round's working table
	workBytes int64
	next      []arrow.RecordBatch // rows added by the running round
	nextBytes int64

	kt     KeyTable // Distinct: every row returned
	ktHeld int64
	gids   []int32
	idx    []int32
}

func (s *recursiveStream) Next() (arrow.RecordBatch, error) {
	for {
		if s.done || s.closed {
			return nil, nil
		}
		if err := s.tc.Err(); err != nil {
			return nil, err
		}
		if s.in == nil {
			if err := s.startRound(); err != nil {
				return nil, err
			}
			continue
		}
		b, err := s.in.Next()
		if err != nil {
			return nil, err
		}
		if b == nil {
			s.in.Close()
			s.in = nil
			continue
		}
		out, err := s.add(b)
		if err != nil {
			return nil, err
		}
		if out != nil {
			return out, nil
		}
	}
}

// startRound starts the anchor, or the next round over the rows the last
// one added (done when it added none).
func (s *recursiveStream) startRound() error {
	if !s.started {
		s.started = true
		in, err := (&Coalesce{Input: s.u.Anchor}).Execute(s.tc, 0)
		if err != nil {
			return err
		}
		s.in = in
		return nil
	}
	s.dropWork()
	s.work, s.workBytes = s.next, s.nextBytes
	s.next, s.nextBytes = nil, 0
	if len(s.work) == 0 {
		s.done = true
		return nil
	}
	s.rounds++
	if max := s.u.maxIterations(); s.rounds > max {
		return fmt.Errorf("%w: WITH RECURSIVE %s did not finish within %d rounds of its recursive term (infinite recursion? add a condition that stops it, or use UNION instead of UNION ALL to stop at repeated rows)", ErrResourceExhausted, s.u.Name, max)
	}
	rtc := new(TaskCtx)
	*rtc = *s.tc
	rtc.work = &workFrame{parent: s.tc.work, wt: s.u.Work, batches: s.work}
	in, err := (&Coalesce{Input: s.u.Step}).Execute(rtc, 0)
	if err != nil {
		return err
	}
	s.in = in
	return nil
}

// add takes b (a batch of the anchor or a round), keeps its new rows for
// the next round and returns them (nil when none).
func (s *recursiveStream) add(b arrow.RecordBatch) (arrow.RecordBatch, error) {
	want := s.u.Work.S
	if b.NumRows() == 0 {
		b.Release()
		return nil, nil
	}
	if err := joinCheckBatch(want, b); err != nil {
		b.Release()
		return nil, fmt.Errorf("exec: WITH RECURSIVE %s: %w", s.u.Name, err)
	}
	out := array.NewRecordBatch(want, b.Columns(), b.NumRows())
	b.Release()
	if s.kt != nil {
		var err error
		if out, err = s.dedupe(out); err != nil || out == nil {
			return nil, err
		}
	}
	nb := joinBatchBytes(out)
	if err := s.tc.Budget.Reserve(fmt.Sprintf("WITH RECURSIVE %s (the rows of one round)", s.u.Name), nb); err != nil {
		out.Release()
		return nil, err
	}
	out.Retain()
	s.next = append(s.next, out)
	s.nextBytes += nb
	return out, nil
}

// dedupe returns b's rows not returned before (nil when none); it takes b.
func (s *recursiveStream) dedupe(b arrow.RecordBatch) (arrow.RecordBatch, error) {
	n := int(b.NumRows())
	before := int32(s.kt.Len())
	s.gids = ktResize(s.gids, n)
	if err := s.kt.Insert(b.Columns(), s.gids); err != nil {
		b.Release()
		return nil, err
	}
	if now := s.kt.Bytes() + 4*int64(cap(s.gids)+cap(s.idx)); now > s.ktHeld {
		if err := s.tc.Budget.Reserve(fmt.Sprintf("WITH RECURSIVE %s (the distinct rows of UNION)", s.u.Name), now-s.ktHeld); err != nil {
			b.Release()
			return nil, err
		}
		s.ktHeld = now
	}
	var out arrow.RecordBatch
	var err error
	out, s.idx, err = firstSeen(s.ec, b, s.gids[:n], before, s.idx)
	return out, err
}

func (s *recursiveStream) dropWork() {
	releaseAll(s.work)
	s.work = nil
	s.tc.Budget.Free(s.workBytes)
	s.workBytes = 0
}

func (s *recursiveStream) Close() {
	if s.closed {
		return
	}
	s.closed = true
	if s.in != nil {
		s.in.Close()
		s.in = nil
	}
	s.dropWork()
	releaseAll(s.next)
	s.next = nil
	s.tc.Budget.Free(s.nextBytes + s.ktHeld)
	s.nextBytes, s.ktHeld = 0, 0
	s.kt = nil
}

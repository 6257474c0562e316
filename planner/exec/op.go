package exec

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/internal/bufpool"
	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

// ErrResourceExhausted: a query went over its memory budget.
var ErrResourceExhausted = errors.New("resource exhausted")

// Operator is a node of a physical plan.
type Operator interface {
	// Schema of the batches every partition's stream returns.
	Schema() *arrow.Schema
	// Children are the inputs.
	Children() []Operator
	// Partitions is the number of output partitions (>= 1).
	Partitions() int
	// Execute starts the stream of one partition.
	Execute(tc *TaskCtx, partition int) (Stream, error)
	// Explain is this node's one-line description for EXPLAIN (no children).
	Explain() string
}

// Stream is a pull-based sequence of batches.
type Stream interface {
	// Next returns the next batch (owned by the caller) or nil at the end.
	Next() (arrow.RecordBatch, error)
	// Close releases everything; safe at any point and more than once.
	Close()
}

// TaskCtx is what every stream of one query execution shares.
type TaskCtx struct {
	Ctx       context.Context
	Mem       memory.Allocator
	Params    []any
	BatchSize int // rows per batch produced by operators that build batches (default 4096)
	Budget    *Budget
	// Pool, when set, recycles the Arrow buffers of scans across the
	// executions of a query (the Flight server's per-query pool); it is
	// handed to catalog reads in their read options.
	Pool *bufpool.Pool
	// Spill, when set, lets Sort, HashAggregate, Distinct and HashJoin
	// write to local disk when their memory reservation fails (spill.go);
	// nil = they fail with ErrResourceExhausted instead.
	Spill *Spiller
	// Eval returns a fresh vec.Ctx for one stream (expressions evaluate with it).
	now vec.Ctx
	// work binds the working tables of the recursive queries whose round
	// this task runs in (recursive.go).
	work *workFrame
}

// NewTaskCtx returns a TaskCtx; budget may be nil (unlimited).
func NewTaskCtx(ctx context.Context, mem memory.Allocator, params []any, budget *Budget) *TaskCtx {
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	if budget == nil {
		budget = NewBudget("query memory", 0)
	}
	vc := vec.NewCtx(ctx, mem, params)
	return &TaskCtx{Ctx: ctx, Mem: mem, Params: params, BatchSize: 4096, Budget: budget, now: *vc}
}

// EvalCtx returns a vec.Ctx for one stream (same statement time for all).
func (tc *TaskCtx) EvalCtx() *vec.Ctx {
	c := tc.now
	return &c
}

// Err returns the context's error, if any.
func (tc *TaskCtx) Err() error { return tc.Ctx.Err() }

// Budget accounts the bytes operators hold. Limit 0 means unlimited.
//
// A query's budget may draw from a Parent (the server-wide budget, serve
// --memory-limit): Reserve succeeds only when both have room, so the sum
// of all queries' reservations stays under the parent's limit; Free
// returns the bytes to both.
type Budget struct {
	name  string
	limit int64
	used  atomic.Int64
	mu    sync.Mutex
	peak  int64
	// Parent, when set, is charged for every reservation too. Set it
	// before the first Reserve (or create the budget with NewChild).
	Parent *Budget
	closed atomic.Bool
	// children counts the open budgets made by NewChild on this one (the
	// running queries sharing the server budget); registered marks a
	// budget counted in its parent's children.
	children   atomic.Int64
	registered bool
}

// NewChild returns a budget of limit bytes drawing from b (b may be nil),
// counted among b's children until it is closed: Share divides b's limit
// among them.
func (b *Budget) NewChild(name string, limit int64) *Budget {
	c := NewBudget(name, limit)
	if b != nil {
		c.Parent, c.registered = b, true
		b.children.Add(1)
	}
	return c
}

// Children is the number of open budgets made by NewChild on b.
func (b *Budget) Children() int64 {
	if b == nil {
		return 0
	}
	return b.children.Load()
}

// Share is the memory this budget may plan on holding: its own limit,
// capped by each ancestor's limit divided among that ancestor's open
// children (the queries running at once); 0 = unlimited. Spilling
// operators size their buffers by it, so that concurrent queries under
// one server budget each keep to their part instead of racing for all of
// it (the one that loses would fail where it could have spilled).
func (b *Budget) Share() int64 {
	var share int64
	capTo := func(l int64) {
		if l > 0 && (share == 0 || l < share) {
			share = l
		}
	}
	for c := b; c != nil; c = c.Parent {
		l := c.limit
		if n := c.children.Load(); n > 1 && l > 0 {
			l /= n
		}
		capTo(l)
	}
	return share
}

// NewBudget returns a budget of limit bytes (0 = unlimited).
func NewBudget(name string, limit int64) *Budget { return &Budget{name: name, limit: limit} }

// Reserve accounts n more bytes for op, or fails with ErrResourceExhausted.
func (b *Budget) Reserve(op string, n int64) error {
	if b == nil || n <= 0 {
		return nil
	}
	u := b.used.Add(n)
	if b.limit > 0 && u > b.limit {
		b.used.Add(-n)
		return fmt.Errorf("%w: %s over the %s budget of %d bytes (%d in use, %d more requested)", ErrResourceExhausted, op, b.name, b.limit, u-n, n)
	}
	if err := b.Parent.Reserve(op, n); err != nil {
		b.used.Add(-n)
		return err
	}
	b.mu.Lock()
	if u > b.peak {
		b.peak = u
	}
	b.mu.Unlock()
	return nil
}

// Free returns n bytes.
func (b *Budget) Free(n int64) {
	if b != nil && n > 0 {
		b.used.Add(-n)
		if !b.closed.Load() {
			b.Parent.Free(n)
		}
	}
}

// Close returns to the parent whatever is still reserved (an operator that
// failed before freeing must not shrink the server-wide budget for good).
// Later Frees only update this budget.
func (b *Budget) Close() {
	if b == nil || b.closed.Swap(true) {
		return
	}
	if b.registered {
		b.Parent.children.Add(-1)
	}
	if n := b.used.Load(); n > 0 {
		b.Parent.Free(n)
	}
}

// Used is the number of bytes reserved now; Peak the most ever reserved.
func (b *Budget) Used() int64 { return b.used.Load() }
func (b *Budget) Peak() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.peak
}

// Limit is the budget's size (0 = unlimited).
func (b *Budget) Limit() int64 {
	if b == nil {
		return 0
	}
	return b.limit
}

// SortKey orders by an expression.
type SortKey struct {
	Expr       vec.Expr
	Desc       bool
	NullsFirst bool
}

// JoinType of HashJoin / NestedLoopJoin.
type JoinType int

const (
	InnerJoin JoinType = iota
	LeftJoin           // all left rows, right columns NULL where no match
	RightJoin          // all right rows
	FullJoin           // both
	SemiJoin           // left rows with a match (left columns only)
	AntiJoin           // left rows without a match (left columns only)
	// MarkJoin outputs every left row plus one BOOLEAN column "mark": TRUE
	// when a match exists, FALSE when none, NULL when no match exists but
	// the comparison met a NULL (SQL's x IN (subquery) / NOT IN semantics:
	// the left key is NULL and the right side is non-empty, or the right side
	// holds a NULL key).
	MarkJoin
	// RightSemiJoin outputs the right rows with a match (right columns
	// only): SemiJoin with the sides' roles swapped, so the side to emit is
	// the one built (the planner picks it when it is the smaller input).
	RightSemiJoin
	// RightAntiJoin outputs the right rows without a match (right columns
	// only; a row with a NULL key has none).
	RightAntiJoin
)

func (j JoinType) String() string {
	return [...]string{"inner", "left", "right", "full", "semi", "anti", "mark", "right semi", "right anti"}[j]
}

// probesAll reports whether the join emits (some of) the build side's rows
// after probing: right, full, right semi and right anti joins.
func (j JoinType) probesAll() bool {
	return j == RightJoin || j == FullJoin || j == RightSemiJoin || j == RightAntiJoin
}

// drain is a helper for tests and Collect: reads every batch of s.
func drain(s Stream, fn func(arrow.RecordBatch) error) error {
	defer s.Close()
	for {
		b, err := s.Next()
		if err != nil {
			return err
		}
		if b == nil {
			return nil
		}
		err = fn(b)
		b.Release()
		if err != nil {
			return err
		}
	}
}

// Collect executes every partition of op in turn and returns all batches
// (the caller releases them).
func Collect(tc *TaskCtx, op Operator) ([]arrow.RecordBatch, error) {
	var out []arrow.RecordBatch
	for p := 0; p < op.Partitions(); p++ {
		s, err := op.Execute(tc, p)
		if err != nil {
			releaseAll(out)
			return nil, err
		}
		if err := drain(s, func(b arrow.RecordBatch) error { b.Retain(); out = append(out, b); return nil }); err != nil {
			releaseAll(out)
			return nil, err
		}
	}
	return out, nil
}

func releaseAll(bs []arrow.RecordBatch) {
	for _, b := range bs {
		b.Release()
	}
}

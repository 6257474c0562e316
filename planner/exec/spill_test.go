package exec

import (
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

const spillTestBudget = 64 << 10

// spillMem is a checked allocator asserted empty after the test's tables
// are released (cleanups run last-registered first).
func spillMem(t *testing.T) *memory.CheckedAllocator {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	t.Cleanup(func() { mem.AssertSize(t, 0) })
	return mem
}

// spillTable is a randomized table of string, decimal, int64 and int32 key
// columns (NULLs included) plus a payload, about 100x spillTestBudget.
func spillTable(t testing.TB, mem memory.Allocator, seed uint64, rows, domain, parts int) *jtTable {
	rng := rand.New(rand.NewPCG(seed, 7))
	tb := jtNewTable(mem, "c", []string{"string", "decimal", "int64", "int32", "int64"}, jtRandVals(rng, rows, 4, domain, 10), parts, 1000)
	t.Cleanup(tb.release)
	return tb
}

func tableBytes(tb *jtTable) int64 {
	var n int64
	for _, p := range tb.op.Parts {
		for _, b := range p {
			n += batchBytes(b)
		}
	}
	return n
}

// spillRun executes op with a tiny budget and a spill area under a fresh
// root; it returns the rows in output order, the spiller and the error.
func spillRun(t *testing.T, mem memory.Allocator, op Operator, limit int64, spill bool) ([]string, *Spiller, error) {
	t.Helper()
	tc := jtTC(mem, 512, NewBudget("query memory", limit))
	var sp *Spiller
	if spill {
		sp = NewSpiller(t.TempDir(), NewBudget("query spill disk", 0))
		tc.Spill = sp
	}
	bs, err := Collect(tc, op)
	defer releaseAll(bs)
	if tc.Budget.Used() != 0 {
		t.Errorf("%s: %d bytes still reserved after the run", op.Explain(), tc.Budget.Used())
	}
	var rows []string
	for _, b := range bs {
		for r := 0; r < int(b.NumRows()); r++ {
			parts := make([]string, b.NumCols())
			for c := range parts {
				parts[c] = jtCell(b.Column(c), r)
			}
			rows = append(rows, strings.Join(parts, "|"))
		}
	}
	return rows, sp, err
}

// spillCheckClean closes sp and checks nothing is left on disk.
func spillCheckClean(t *testing.T, sp *Spiller) {
	t.Helper()
	dir := sp.Dir()
	files, bytes := sp.Stats()
	if err := sp.Close(); err != nil {
		t.Fatal(err)
	}
	if dir != "" {
		ents, err := os.ReadDir(dir)
		if err == nil && len(ents) > 0 {
			t.Errorf("spill dir %s still holds %d files", dir, len(ents))
		}
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			t.Errorf("spill dir %s not removed: %v", dir, err)
		}
	}
	if sp.disk.Used() != 0 {
		t.Errorf("%d disk bytes still reserved", sp.disk.Used())
	}
	t.Logf("spilled %d files, %d bytes", files, bytes)
}

// spillLeftovers counts the files left in sp's directory before Close
// (operators remove their runs when their streams close).
func spillLeftovers(sp *Spiller) int {
	if sp.Dir() == "" {
		return 0
	}
	ents, _ := os.ReadDir(sp.Dir())
	return len(ents)
}

func spillSortKeys() []SortKey {
	kinds := []string{"string", "decimal", "int64", "int32"}
	ks := jtKeyExprs(kinds, []int{0, 1, 3})
	return []SortKey{{Expr: ks[0]}, {Expr: ks[1], Desc: true}, {Expr: ks[2], NullsFirst: true}}
}

func TestSortSpillMatchesInMemory(t *testing.T) {
	for _, parts := range []int{1, 3} {
		mem := spillMem(t)
		tb := spillTable(t, mem, uint64(parts), 130000, 300, parts)
		if n := tableBytes(tb); n < 95*spillTestBudget {
			t.Fatalf("table of %d bytes is not ~100x the budget", n)
		}
		op := &Sort{Input: tb.op, Keys: spillSortKeys(), Fetch: -1}
		want, _, err := spillRun(t, mem, op, 0, false)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := spillRun(t, mem, op, spillTestBudget, false); !errors.Is(err, ErrResourceExhausted) {
			t.Fatalf("without spilling: %v, want ResourceExhausted", err)
		}
		got, sp, err := spillRun(t, mem, op, spillTestBudget, true)
		if err != nil {
			t.Fatal(err)
		}
		if files, _ := sp.Stats(); files < 2 {
			t.Errorf("parts=%d: %d runs spilled", parts, files)
		}
		if n := spillLeftovers(sp); n != 0 {
			t.Errorf("%d run files left after the stream closed", n)
		}
		spillCheckClean(t, sp)
		if len(got) != len(want) {
			t.Fatalf("parts=%d: %d rows, want %d", parts, len(got), len(want))
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("parts=%d: row %d = %s, want %s", parts, i, got[i], want[i])
			}
		}
		// A budget that fits: the same, nothing spilled.
		got, sp, err = spillRun(t, mem, op, 1<<30, true)
		if err != nil || len(got) != len(want) {
			t.Fatalf("big budget: %d rows, %v", len(got), err)
		}
		if files, _ := sp.Stats(); files != 0 {
			t.Errorf("big budget spilled %d runs", files)
		}
		spillCheckClean(t, sp)
	}
}

// spillCancelOp cancels the query after n batches of its input.
type spillCancelOp struct {
	Operator
	cancel context.CancelFunc
	after  int
}

func (c *spillCancelOp) Execute(tc *TaskCtx, p int) (Stream, error) {
	s, err := c.Operator.Execute(tc, p)
	if err != nil {
		return nil, err
	}
	return &spillCancelStream{Stream: s, op: c}, nil
}

type spillCancelStream struct {
	Stream
	op *spillCancelOp
	n  int
}

func (s *spillCancelStream) Next() (arrow.RecordBatch, error) {
	s.n++
	if s.n == s.op.after {
		s.op.cancel()
	}
	return s.Stream.Next()
}

// spillFailOp fails after n batches.
type spillFailOp struct {
	Operator
	after int
}

var errSpillTest = errors.New("input broke")

func (c *spillFailOp) Execute(tc *TaskCtx, p int) (Stream, error) {
	s, err := c.Operator.Execute(tc, p)
	if err != nil {
		return nil, err
	}
	return &spillFailStream{Stream: s, after: c.after}, nil
}

type spillFailStream struct {
	Stream
	after, n int
}

func (s *spillFailStream) Next() (arrow.RecordBatch, error) {
	s.n++
	if s.n >= s.after {
		return nil, errSpillTest
	}
	return s.Stream.Next()
}

// spillAbort runs mk(input) over a spilling input that is cancelled or
// fails midway and checks the error, leaks and the spill directory.
func spillAbort(t *testing.T, mk func(in Operator) Operator) {
	for _, mode := range []string{"cancel", "error"} {
		mem := spillMem(t)
		tb := spillTable(t, mem, 5, 40000, 2000, 2)
		ctx, cancel := context.WithCancel(context.Background())
		var in Operator = &spillCancelOp{Operator: tb.op, cancel: cancel, after: 15}
		if mode == "error" {
			in = &spillFailOp{Operator: tb.op, after: 15}
		}
		tc := jtTC(mem, 512, NewBudget("query memory", spillTestBudget))
		tc.Ctx = ctx
		sp := NewSpiller(t.TempDir(), nil)
		tc.Spill = sp
		bs, err := Collect(tc, mk(in))
		releaseAll(bs)
		cancel()
		if mode == "cancel" && !errors.Is(err, context.Canceled) {
			t.Errorf("cancel: %v", err)
		}
		if mode == "error" && !errors.Is(err, errSpillTest) {
			t.Errorf("error: %v", err)
		}
		if files, _ := sp.Stats(); files == 0 {
			t.Errorf("%s: nothing spilled before the abort", mode)
		}
		if n := spillLeftovers(sp); n != 0 {
			t.Errorf("%s: %d run files left", mode, n)
		}
		if tc.Budget.Used() != 0 {
			t.Errorf("%s: %d bytes still reserved", mode, tc.Budget.Used())
		}
		spillCheckClean(t, sp)
	}
}

func TestSortSpillAbort(t *testing.T) {
	spillAbort(t, func(in Operator) Operator { return &Sort{Input: in, Keys: spillSortKeys(), Fetch: -1} })
}

func TestSpillDiskBudget(t *testing.T) {
	mem := spillMem(t)
	tb := spillTable(t, mem, 9, 40000, 300, 1)
	tc := jtTC(mem, 512, NewBudget("query memory", spillTestBudget))
	server := NewBudget("server spill disk (--spill-limit)", 100<<10)
	disk := NewBudget("query spill disk", 0)
	disk.Parent = server
	sp := NewSpiller(t.TempDir(), disk)
	tc.Spill = sp
	bs, err := Collect(tc, &Sort{Input: tb.op, Keys: spillSortKeys(), Fetch: -1})
	releaseAll(bs)
	if !errors.Is(err, ErrResourceExhausted) || !strings.Contains(err.Error(), "--spill-limit") {
		t.Fatalf("err = %v, want ResourceExhausted naming --spill-limit", err)
	}
	if n := spillLeftovers(sp); n != 0 {
		t.Errorf("%d run files left", n)
	}
	spillCheckClean(t, sp)
	if server.Used() != 0 {
		t.Errorf("server disk budget holds %d bytes", server.Used())
	}
}

// spillCompareSorted checks op gives the same rows (in any order) with a
// tiny budget and spilling as unlimited, fails over budget without
// spilling, and leaves nothing behind.
func spillCompareSorted(t *testing.T, mem memory.Allocator, op Operator, budget int64, minFiles int) {
	t.Helper()
	want, _, err := spillRun(t, mem, op, 0, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := spillRun(t, mem, op, budget, false); !errors.Is(err, ErrResourceExhausted) {
		t.Fatalf("without spilling: %v, want ResourceExhausted", err)
	}
	got, sp, err := spillRun(t, mem, op, budget, true)
	if err != nil {
		t.Fatal(err)
	}
	if files, _ := sp.Stats(); files < minFiles {
		t.Errorf("%d runs spilled, want at least %d", files, minFiles)
	}
	if n := spillLeftovers(sp); n != 0 {
		t.Errorf("%d run files left after the stream closed", n)
	}
	spillCheckClean(t, sp)
	slices.Sort(got)
	slices.Sort(want)
	if len(got) != len(want) {
		t.Fatalf("%d rows, want %d", len(got), len(want))
	}
	if d := jtDiff(got, want); d != "" {
		t.Fatalf("spilled result differs: %s", d)
	}
	t.Logf("%d rows match", len(got))
}

func spillAgg(t *testing.T, in Operator) *HashAggregate {
	kinds := []string{"string", "decimal", "int64", "int32", "int64"}
	c := jtKeyExprs(kinds, []int{0, 1, 2, 3, 4})
	h, err := NewHashAggregate(in, []vec.Expr{c[0], c[3]}, nil, []AggExpr{
		{Func: "COUNT_STAR"},
		{Func: "SUM", Args: []vec.Expr{c[4]}},
		{Func: "SUM", Args: []vec.Expr{c[1]}},
		{Func: "MIN", Args: []vec.Expr{c[2]}},
		{Func: "MAX", Args: []vec.Expr{c[1]}},
		{Func: "COUNT", Args: []vec.Expr{c[2]}, Distinct: true},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func TestAggregateSpillMatchesInMemory(t *testing.T) {
	for _, parts := range []int{1, 3} {
		mem := spillMem(t)
		// Many groups (string x int32 keys over a wide domain).
		tb := spillTable(t, mem, uint64(10+parts), 130000, 40000, parts)
		// The aggregation's fixed state (hash table, six accumulators)
		// is tens of KiB, so its budget is 4x the others' (the data is
		// still 25x the budget).
		spillCompareSorted(t, mem, spillAgg(t, tb.op), 4*spillTestBudget, spillFanout/2)
	}
}

func TestAggregateSpillAbort(t *testing.T) {
	spillAbort(t, func(in Operator) Operator { return spillAgg(t, in) })
}

func TestAggregateSpillSkewFails(t *testing.T) {
	// Two groups, each a STRING_AGG of half the rows: no partitioning helps.
	mem := spillMem(t)
	tb := spillTable(t, mem, 3, 100000, 1, 1) // keys: 0 or NULL
	kinds := []string{"string", "decimal", "int64", "int32", "int64"}
	c := jtKeyExprs(kinds, []int{0, 1, 2, 3, 4})
	h, err := NewHashAggregate(tb.op, []vec.Expr{c[3]}, nil, []AggExpr{{Func: "STRING_AGG", Args: []vec.Expr{c[0]}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, sp, err := spillRun(t, mem, h, spillTestBudget, true)
	if !errors.Is(err, ErrResourceExhausted) || !strings.Contains(err.Error(), "query memory") {
		t.Fatalf("err = %v, want ResourceExhausted naming the budget", err)
	}
	if n := spillLeftovers(sp); n != 0 {
		t.Errorf("%d run files left", n)
	}
	spillCheckClean(t, sp)
}

func TestDistinctSpillMatchesInMemory(t *testing.T) {
	for _, parts := range []int{1, 3} {
		mem := spillMem(t)
		tb := spillTable(t, mem, uint64(20+parts), 130000, 3000, parts)
		spillCompareSorted(t, mem, &Distinct{Input: tb.op}, spillTestBudget, spillFanout/2)
	}
}

func TestDistinctSpillAbort(t *testing.T) {
	spillAbort(t, func(in Operator) Operator { return &Distinct{Input: in} })
}

// spillJoinTables are two tables of string, decimal, int64 key columns and
// an int64 payload (NULL keys included), keyed on a wide domain.
func spillJoinTables(t *testing.T, mem memory.Allocator, rows int) (*jtTable, *jtTable) {
	kinds := []string{"string", "decimal", "int64", "int64"}
	mk := func(seed uint64, prefix string, parts int) *jtTable {
		rng := rand.New(rand.NewPCG(seed, 11))
		tb := jtNewTable(mem, prefix, kinds, jtRandVals(rng, rows, 3, rows/2, 5), parts, 1000)
		t.Cleanup(tb.release)
		return tb
	}
	return mk(31, "l", 2), mk(32, "r", 2)
}

func TestJoinSpillMatchesInMemory(t *testing.T) {
	mem := spillMem(t)
	L, R := spillJoinTables(t, mem, 30000)
	kinds := []string{"string", "decimal", "int64", "int64"}
	for i, typ := range []JoinType{InnerJoin, LeftJoin, RightJoin, FullJoin, SemiJoin, AntiJoin, RightSemiJoin, RightAntiJoin} {
		var filter vec.Expr
		if i%2 == 1 {
			filter = jtSumFilter(3, 7)
		}
		keys := []int{0, 1}
		nullSafe := []bool{false, typ == FullJoin}
		h, err := NewHashJoin(L.op, R.op, typ, jtKeyExprs(kinds, keys), jtKeyExprs(kinds, keys), filter, nullSafe)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(typ.String(), func(t *testing.T) {
			spillCompareSorted(t, mem, h, spillTestBudget, spillFanout)
		})
	}
}

func TestJoinSpillMarkStaysExhausted(t *testing.T) {
	mem := spillMem(t)
	L, R := spillJoinTables(t, mem, 20000)
	kinds := []string{"string", "decimal", "int64", "int64"}
	h, err := NewHashJoin(L.op, R.op, MarkJoin, jtKeyExprs(kinds, []int{0}), jtKeyExprs(kinds, []int{0}), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, sp, err := spillRun(t, mem, h, spillTestBudget, true)
	if !errors.Is(err, ErrResourceExhausted) || !strings.Contains(err.Error(), "query memory") {
		t.Fatalf("mark join: %v, want ResourceExhausted naming the budget", err)
	}
	spillCheckClean(t, sp)
}

func TestJoinSpillAbort(t *testing.T) {
	mem := spillMem(t)
	_, R := spillJoinTables(t, mem, 30000)
	kinds := []string{"string", "decimal", "int64", "int64", "int64"}
	spillAbort(t, func(in Operator) Operator {
		// The spill table's first two columns are string, decimal too.
		h, err := NewHashJoin(in, R.op, LeftJoin, jtKeyExprs(kinds, []int{0, 1}), jtKeyExprs(kinds, []int{0, 1}), nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		return h
	})
}

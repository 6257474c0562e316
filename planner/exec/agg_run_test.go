package exec

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

// aggRandBatch: k (int64, card 300), s (string, card 20), x (int64 with
// NULLs), d (decimal), f (bool).
func aggRandBatch(mem memory.Allocator, rng *rand.Rand, n int) arrow.RecordBatch {
	k, s, x, d, f := make([]any, n), make([]any, n), make([]any, n), make([]any, n), make([]any, n)
	for i := range n {
		k[i] = rng.IntN(300)
		s[i] = fmt.Sprintf("s%d", rng.IntN(20))
		if rng.IntN(10) > 0 {
			x[i] = rng.Int64N(1<<62) - 1<<61
		}
		if rng.IntN(10) > 0 {
			d[i] = decimal128.FromI64(rng.Int64N(1 << 62)).Mul(decimal128.FromI64(1 << 20))
		}
		if rng.IntN(10) > 0 {
			f[i] = rng.IntN(2) == 0
		}
		if i%97 == 0 {
			k[i] = nil
		}
	}
	return aggBatch([]string{"k", "s", "x", "d", "f"},
		aggArr(mem, arrow.PrimitiveTypes.Int64, k...),
		aggArr(mem, arrow.BinaryTypes.String, s...),
		aggArr(mem, arrow.PrimitiveTypes.Int64, x...),
		aggArr(mem, &arrow.Decimal128Type{Precision: 38, Scale: 3}, d...),
		aggArr(mem, arrow.FixedWidthTypes.Boolean, f...),
	)
}

func aggRandAggs(s *arrow.Schema) []AggExpr {
	c := func(n string) vec.Expr { return aggColumn(s, n) }
	return []AggExpr{
		aggE("COUNT_STAR", "n"), aggE("COUNT", "cx", c("x")), aggE("SUM", "sx", c("x")), aggE("SUM", "sd", c("d")),
		aggE("MIN", "mix", c("x")), aggE("MAX", "mas", c("s")), aggE("MIN", "mid", c("d")), aggE("BOOL_OR", "bo", c("f")),
		{Func: "COUNT", Args: []vec.Expr{c("s")}, Distinct: true, Name: "cds"},
		{Func: "SUM", Args: []vec.Expr{c("x")}, Filter: c("f"), Name: "sxf"},
		{Func: "COUNT", Args: []vec.Expr{c("x"), c("s")}, Distinct: true, Filter: c("f"), Name: "cdxs"},
	}
}

// Several partitions and any batch size give exactly the single-partition
// result.
func TestAggPartitionsEqualSerial(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rng := rand.New(rand.NewPCG(1, 2))
	b := aggRandBatch(mem, rng, 20000)
	b.Retain()
	s := b.Schema()
	one := aggSplit(b, 1, 1<<30)
	many := aggSplit(b, 7, 333)
	defer aggReleaseValues(one)
	defer aggReleaseValues(many)
	for _, groups := range [][]vec.Expr{{aggColumn(s, "k")}, {aggColumn(s, "s")}, {aggColumn(s, "k"), aggColumn(s, "s")}, nil} {
		var sets [][]int
		if len(groups) == 2 {
			sets = [][]int{{0, 1}, {1}, {}}
		}
		want := aggRows(t, aggTC(mem, nil), aggMust(t, one, groups, aggRandAggs(s), sets))
		tc := aggTC(mem, nil)
		tc.BatchSize = 100
		got := aggRows(t, tc, aggMust(t, many, groups, aggRandAggs(s), sets))
		if len(want) == 0 || strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("groups %v: %d rows vs %d; first %q vs %q", groups, len(got), len(want), got[:min(1, len(got))], want[:min(1, len(want))])
		}
	}
}

func TestAggBudget(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rng := rand.New(rand.NewPCG(3, 4))
	v := aggSplit(aggRandBatch(mem, rng, 20000), 3, 1000)
	defer aggReleaseValues(v)
	s := v.Schema()
	budget := NewBudget("query memory", 20000)
	h := aggMust(t, v, []vec.Expr{aggColumn(s, "x")}, aggRandAggs(s), nil)
	_, err := Collect(aggTC(mem, budget), h)
	if !errors.Is(err, ErrResourceExhausted) || !strings.Contains(err.Error(), "HashAggregate") {
		t.Fatalf("over budget: %v", err)
	}
	if budget.Used() != 0 {
		t.Fatalf("%d bytes still reserved", budget.Used())
	}
	// Within budget: the bytes are reserved while the result is read and
	// released on Close.
	budget = NewBudget("query memory", 1<<30)
	st, err := h.Execute(aggTC(mem, budget), 0)
	if err != nil {
		t.Fatal(err)
	}
	b, err := st.Next()
	if err != nil || b == nil {
		t.Fatal(err)
	}
	b.Release()
	if budget.Used() <= 0 || budget.Peak() < budget.Used() {
		t.Fatalf("used %d peak %d", budget.Used(), budget.Peak())
	}
	st.Close()
	st.Close()
	if budget.Used() != 0 {
		t.Fatalf("%d bytes still reserved after Close", budget.Used())
	}
}

// aggSource is an input of parts partitions, each yielding batches
// (forever when batches < 0); fail makes partition 1 fail after a batch;
// onBatch runs before each batch.
type aggSource struct {
	mem     memory.Allocator
	parts   int
	batches int
	fail    bool
	onBatch func()
	open    atomic.Int64
}

var aggSourceSchema = arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil)

func (a *aggSource) Schema() *arrow.Schema { return aggSourceSchema }
func (a *aggSource) Children() []Operator  { return nil }
func (a *aggSource) Partitions() int       { return a.parts }
func (a *aggSource) Explain() string       { return "aggSource" }
func (a *aggSource) Execute(tc *TaskCtx, p int) (Stream, error) {
	a.open.Add(1)
	return &aggSourceStream{a: a, tc: tc, p: p}, nil
}

type aggSourceStream struct {
	a      *aggSource
	tc     *TaskCtx
	p, i   int
	closed bool
}

func (s *aggSourceStream) Next() (arrow.RecordBatch, error) {
	if err := s.tc.Err(); err != nil {
		return nil, err
	}
	if s.a.batches >= 0 && s.i >= s.a.batches {
		return nil, nil
	}
	if s.a.fail && s.p == 1 && s.i == 1 {
		return nil, errors.New("disk on fire")
	}
	if s.a.onBatch != nil {
		s.a.onBatch()
	}
	s.i++
	vals := make([]any, 100)
	for i := range vals {
		vals[i] = s.i*1000 + i
	}
	return aggBatch([]string{"k"}, aggArr(s.a.mem, arrow.PrimitiveTypes.Int64, vals...)), nil
}

func (s *aggSourceStream) Close() {
	if !s.closed {
		s.closed = true
		s.a.open.Add(-1)
	}
}

func aggWaitGoroutines(t *testing.T, before int) {
	t.Helper()
	for i := 0; i < 100 && runtime.NumGoroutine() > before; i++ {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Fatalf("%d goroutines, %d before", n, before)
	}
}

func TestAggCancelAndErrors(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	before := runtime.NumGoroutine()
	aggs := []AggExpr{aggE("COUNT_STAR", "n"), {Func: "COUNT", Args: []vec.Expr{aggColumn(aggSourceSchema, "k")}, Distinct: true, Name: "d"}}
	k := []vec.Expr{aggColumn(aggSourceSchema, "k")}

	// Cancelled while the (endless) input is being read.
	ctx, cancel := context.WithCancel(context.Background())
	var seen atomic.Int64
	src := &aggSource{mem: mem, parts: 4, batches: -1, onBatch: func() {
		if seen.Add(1) == 50 {
			cancel()
		}
	}}
	budget := NewBudget("q", 0)
	tc := NewTaskCtx(ctx, mem, nil, budget)
	_, err := Collect(tc, aggMust(t, src, k, aggs, nil))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v", err)
	}
	if src.open.Load() != 0 || budget.Used() != 0 {
		t.Fatalf("%d input streams open, %d bytes reserved", src.open.Load(), budget.Used())
	}
	// Cancelled before it starts.
	_, err = Collect(tc, aggMust(t, &aggSource{mem: mem, parts: 2, batches: 3}, k, aggs, nil))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled before: %v", err)
	}
	// An input partition fails: the error, the others stopped.
	src = &aggSource{mem: mem, parts: 3, batches: -1, fail: true}
	_, err = Collect(aggTC(mem, nil), aggMust(t, src, k, aggs, nil))
	if err == nil || !strings.Contains(err.Error(), "disk on fire") || src.open.Load() != 0 {
		t.Fatalf("failing input: %v (%d open)", err, src.open.Load())
	}
	// Close from another goroutine while Next aggregates an endless input.
	src = &aggSource{mem: mem, parts: 2, batches: -1}
	st, err := aggMust(t, src, k, aggs, nil).Execute(aggTC(mem, budget), 0)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error)
	go func() {
		_, err := st.Next()
		done <- err
	}()
	time.Sleep(20 * time.Millisecond)
	st.Close()
	if err := <-done; err == nil {
		t.Fatal("Next over an endless input returned no error after Close")
	}
	if src.open.Load() != 0 || budget.Used() != 0 {
		t.Fatalf("after Close: %d input streams open, %d bytes reserved", src.open.Load(), budget.Used())
	}
	aggWaitGoroutines(t, before)
}

func TestAggAbandoned(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	src := &aggSource{mem: mem, parts: 3, batches: 5}
	h := aggMust(t, src, []vec.Expr{aggColumn(aggSourceSchema, "k")}, []AggExpr{aggE("COUNT_STAR", "n")}, nil)
	budget := NewBudget("q", 0)
	tc := aggTC(mem, budget)
	tc.BatchSize = 7
	// Closed before the first Next, after one batch, and read to the end.
	for _, reads := range []int{0, 1, 1 << 30} {
		st, err := h.Execute(tc, 0)
		if err != nil {
			t.Fatal(err)
		}
		rows := 0
		for i := 0; i < reads; i++ {
			b, err := st.Next()
			if err != nil {
				t.Fatal(err)
			}
			if b == nil {
				break
			}
			if b.NumRows() > 7 {
				t.Fatalf("batch of %d rows", b.NumRows())
			}
			rows += int(b.NumRows())
			b.Release()
		}
		st.Close()
		if reads > 1 && rows != 500 {
			t.Fatalf("%d groups, want 500", rows)
		}
		if budget.Used() != 0 || src.open.Load() != 0 {
			t.Fatalf("reads=%d: %d bytes reserved, %d streams open", reads, budget.Used(), src.open.Load())
		}
		if b, err := st.Next(); b != nil || err != nil {
			t.Fatalf("Next after Close: %v %v", b, err)
		}
	}
}

func benchAgg(b *testing.B, groups func(s *arrow.Schema) []vec.Expr, aggs func(s *arrow.Schema) []AggExpr) {
	mem := memory.NewGoAllocator()
	rng := rand.New(rand.NewPCG(5, 6))
	const rows, batch = 1 << 20, 4096
	v := &Values{Parts: make([][]arrow.RecordBatch, 1)}
	for r := 0; r < rows; r += batch {
		kb := ktRandom(mem, rng, arrow.PrimitiveTypes.Int64, batch, 1000, 0)
		sb := ktRandom(mem, rng, arrow.BinaryTypes.String, batch, 1000, 0)
		xb := ktRandom(mem, rng, arrow.PrimitiveTypes.Int64, batch, 1<<20, 5)
		bt := aggBatch([]string{"k", "s", "x"}, kb, sb, xb)
		v.S = bt.Schema()
		v.Parts[0] = append(v.Parts[0], bt)
	}
	op := aggValuesOp{v}
	h, err := NewHashAggregate(op, groups(v.S), nil, aggs(v.S), nil)
	if err != nil {
		b.Fatal(err)
	}
	tc := aggTC(mem, nil)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		bs, err := Collect(tc, h)
		if err != nil {
			b.Fatal(err)
		}
		releaseAll(bs)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*rows), "ns/row")
}

func BenchmarkAggInt64SumCount(b *testing.B) {
	benchAgg(b, func(s *arrow.Schema) []vec.Expr { return []vec.Expr{aggColumn(s, "k")} },
		func(s *arrow.Schema) []AggExpr {
			return []AggExpr{aggE("SUM", "s", aggColumn(s, "x")), aggE("COUNT", "c", aggColumn(s, "x")), aggE("COUNT_STAR", "n")}
		})
}

func BenchmarkAggStringSumCount(b *testing.B) {
	benchAgg(b, func(s *arrow.Schema) []vec.Expr { return []vec.Expr{aggColumn(s, "s")} },
		func(s *arrow.Schema) []AggExpr {
			return []AggExpr{aggE("SUM", "s", aggColumn(s, "x")), aggE("COUNT_STAR", "n")}
		})
}

func BenchmarkAggCountDistinct(b *testing.B) {
	benchAgg(b, func(s *arrow.Schema) []vec.Expr { return []vec.Expr{aggColumn(s, "k")} },
		func(s *arrow.Schema) []AggExpr {
			return []AggExpr{{Func: "COUNT", Args: []vec.Expr{aggColumn(s, "s")}, Distinct: true, Name: "d"}}
		})
}

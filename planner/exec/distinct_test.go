package exec

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

func TestDistinct(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	nan := math.NaN()
	mk := func() arrow.RecordBatch {
		return aggBatch([]string{"a", "s", "f"},
			aggArr(mem, arrow.PrimitiveTypes.Int64, 1, 1, nil, nil, 2, 1, 2, 3),
			aggArr(mem, arrow.BinaryTypes.String, "x", "x", nil, nil, "a long string value", "y", "a long string value", "x"),
			aggArr(mem, arrow.PrimitiveTypes.Float64, 0.0, math.Copysign(0, -1), nan, nan, 1.0, 0.0, 1.0, nil),
		)
	}
	want := []string{"1|x|0", "NULL|NULL|NaN", "2|a long string value|1", "1|y|0", "3|x|NULL"}
	for _, split := range []struct{ parts, size int }{{1, 100}, {3, 1}, {2, 3}} {
		v := aggSplit(mk(), split.parts, split.size)
		d := &Distinct{Input: v}
		if d.Partitions() != 1 || !d.Schema().Equal(v.Schema()) {
			t.Fatal("Distinct shape")
		}
		aggCheck(t, aggRows(t, aggTC(mem, nil), d), want...)
		aggReleaseValues(v)
	}
	// Streaming: the first batch comes out before the input ends, in input
	// order within the partition.
	v := aggSplit(mk(), 1, 2)
	defer aggReleaseValues(v)
	st, err := (&Distinct{Input: v}).Execute(aggTC(mem, nil), 0)
	if err != nil {
		t.Fatal(err)
	}
	var firsts []string
	for {
		b, err := st.Next()
		if err != nil {
			t.Fatal(err)
		}
		if b == nil {
			break
		}
		firsts = append(firsts, aggCell(b.Column(0), 0))
		b.Release()
	}
	st.Close()
	if strings.Join(firsts, ",") != "1,NULL,2,3" {
		t.Fatalf("first rows of the emitted batches: %v", firsts)
	}
}

func TestDistinctRandomPartitions(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rng := rand.New(rand.NewPCG(9, 9))
	b := aggRandBatch(mem, rng, 5000)
	// Project to the low-cardinality columns so there are duplicates.
	cols := []arrow.Array{b.Column(1), b.Column(4)}
	for _, c := range cols {
		c.Retain()
	}
	b.Release()
	nb := aggBatch([]string{"s", "f"}, cols...)
	nb.Retain()
	one, many := aggSplit(nb, 1, 1<<30), aggSplit(nb, 5, 77)
	defer aggReleaseValues(one)
	defer aggReleaseValues(many)
	want := aggRows(t, aggTC(mem, nil), &Distinct{Input: one})
	got := aggRows(t, aggTC(mem, nil), &Distinct{Input: many})
	if len(want) != 60 || !slices.Equal(got, want) {
		t.Fatalf("%d vs %d distinct rows", len(got), len(want))
	}
}

func TestDistinctBudgetCancelAbandon(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	budget := NewBudget("q", 4096)
	src := &aggSource{mem: mem, parts: 2, batches: 50}
	_, err := Collect(aggTC(mem, budget), &Distinct{Input: src})
	if !errors.Is(err, ErrResourceExhausted) || !strings.Contains(err.Error(), "Distinct") {
		t.Fatalf("over budget: %v", err)
	}
	if budget.Used() != 0 || src.open.Load() != 0 {
		t.Fatalf("%d bytes reserved, %d open", budget.Used(), src.open.Load())
	}
	// Abandoned after one batch of an endless input.
	budget = NewBudget("q", 0)
	src = &aggSource{mem: mem, parts: 3, batches: -1}
	st, err := (&Distinct{Input: src}).Execute(aggTC(mem, budget), 0)
	if err != nil {
		t.Fatal(err)
	}
	b, err := st.Next()
	if err != nil || b == nil {
		t.Fatal(err)
	}
	b.Release()
	st.Close()
	st.Close()
	if budget.Used() != 0 || src.open.Load() != 0 {
		t.Fatalf("abandoned: %d bytes reserved, %d open", budget.Used(), src.open.Load())
	}
	// Cancelled.
	ctx, cancel := context.WithCancel(context.Background())
	src = &aggSource{mem: mem, parts: 2, batches: -1}
	st, err = (&Distinct{Input: src}).Execute(NewTaskCtx(ctx, mem, nil, nil), 0)
	if err != nil {
		t.Fatal(err)
	}
	b, _ = st.Next()
	b.Release()
	cancel()
	if _, err := st.Next(); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v", err)
	}
	st.Close()
	if src.open.Load() != 0 {
		t.Fatalf("%d open after cancel", src.open.Load())
	}
}

package exec

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// ltCounting wraps an operator and counts opened, closed and pulled streams.
type ltCounting struct {
	Operator
	opened, closed, pulls atomic.Int64
	failPart              int // partition whose first Next fails (-1: none)
	slow                  time.Duration
}

func (c *ltCounting) Execute(tc *TaskCtx, p int) (Stream, error) {
	s, err := c.Operator.Execute(tc, p)
	if err != nil {
		return nil, err
	}
	c.opened.Add(1)
	return &ltStream{c: c, s: s, fail: p == c.failPart}, nil
}

type ltStream struct {
	c      *ltCounting
	s      Stream
	fail   bool
	closed sync.Once
}

func (s *ltStream) Next() (arrow.RecordBatch, error) {
	s.c.pulls.Add(1)
	if s.fail {
		return nil, errors.New("boom")
	}
	if s.c.slow > 0 {
		time.Sleep(s.c.slow)
	}
	return s.s.Next()
}

func (s *ltStream) Close() {
	s.closed.Do(func() { s.c.closed.Add(1) })
	s.s.Close()
}

func ltIDs(t *testing.T, tc *TaskCtx, op Operator) []int64 {
	t.Helper()
	bs, err := Collect(tc, op)
	if err != nil {
		t.Fatal(err)
	}
	defer releaseAll(bs)
	var ids []int64
	for _, b := range bs {
		ids = append(ids, b.Column(0).(*array.Int64).Int64Values()...)
	}
	return ids
}

func TestLimitAcrossPartitions(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	r := rand.New(rand.NewPCG(4, 4))
	rows := stRandRows(r, 600, 10)
	src := stSource(mem, r, rows, 5)
	defer src.releaseAllParts()
	all := ltIDs(t, NewTaskCtx(context.Background(), mem, nil, nil), &Coalesce{Input: &LocalLimit{Input: src, Fetch: -1}})
	if len(all) != len(rows) {
		t.Fatalf("%d rows", len(all))
	}
	var inOrder []int64 // partition order
	for _, p := range src.Parts {
		for _, b := range p {
			inOrder = append(inOrder, b.Column(0).(*array.Int64).Int64Values()...)
		}
	}
	for _, c := range []struct{ off, fetch int64 }{{0, -1}, {0, 0}, {0, 1}, {5, 10}, {119, 3}, {120, 200}, {599, 10}, {600, 1}, {1000, 5}, {17, -1}} {
		cnt := &ltCounting{Operator: src, failPart: -1}
		tc := NewTaskCtx(context.Background(), mem, nil, nil)
		got := ltIDs(t, tc, &Limit{Input: cnt, Offset: c.off, Fetch: c.fetch})
		lo := min(int(c.off), len(inOrder))
		hi := len(inOrder)
		if c.fetch >= 0 {
			hi = min(hi, lo+int(c.fetch))
		}
		if want := inOrder[lo:hi]; !slices.Equal(got, want) {
			t.Fatalf("offset %d fetch %d: got %v, want %v", c.off, c.fetch, got, want)
		}
		if cnt.opened.Load() != cnt.closed.Load() {
			t.Fatalf("offset %d fetch %d: %d streams opened, %d closed", c.off, c.fetch, cnt.opened.Load(), cnt.closed.Load())
		}
		if c.fetch == 0 && cnt.opened.Load() != 0 {
			t.Fatal("LIMIT 0 opened its input")
		}
		if c.fetch == 1 && c.off == 0 && cnt.opened.Load() != 1 {
			t.Fatalf("LIMIT 1 opened %d partitions", cnt.opened.Load())
		}
	}
	// LocalLimit per partition
	cnt := &ltCounting{Operator: src, failPart: -1}
	got := ltIDs(t, NewTaskCtx(context.Background(), mem, nil, nil), &Coalesce{Input: &LocalLimit{Input: cnt, Fetch: 7}})
	if len(got) != 7*len(src.Parts) {
		t.Fatalf("LocalLimit 7 over %d partitions: %d rows", len(src.Parts), len(got))
	}
}

func TestCoalesceManyPartitions(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	r := rand.New(rand.NewPCG(8, 8))
	rows := stRandRows(r, 5000, 10)
	src := stSource(mem, r, rows, 64)
	defer src.releaseAllParts()
	cnt := &ltCounting{Operator: src, failPart: -1}
	got := ltIDs(t, NewTaskCtx(context.Background(), mem, nil, nil), &Coalesce{Input: cnt})
	slices.Sort(got)
	for i, id := range got {
		if id != int64(i) {
			t.Fatalf("row %d is id %d", i, id)
		}
	}
	if len(got) != len(rows) || cnt.opened.Load() != 64 || cnt.closed.Load() != 64 {
		t.Fatalf("%d rows, %d opened, %d closed", len(got), cnt.opened.Load(), cnt.closed.Load())
	}
	// CoalesceBatches keeps the rows and makes batches of >= target rows
	tc := NewTaskCtx(context.Background(), mem, nil, nil)
	bs, err := Collect(tc, &Coalesce{Input: &CoalesceBatches{Input: src, Target: 100}})
	if err != nil {
		t.Fatal(err)
	}
	n := int64(0)
	small := 0
	for _, b := range bs {
		n += b.NumRows()
		if b.NumRows() < 100 {
			small++
		}
	}
	releaseAll(bs)
	if n != int64(len(rows)) || small > 64 {
		t.Fatalf("CoalesceBatches: %d rows, %d small batches", n, small)
	}
}

func TestCoalesceAbandonErrorCancel(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	r := rand.New(rand.NewPCG(2, 2))
	rows := stRandRows(r, 4000, 10)
	src := stSource(mem, r, rows, 16)
	defer src.releaseAllParts()
	// abandoned after one batch: every partition's stream closed, queue released
	cnt := &ltCounting{Operator: src, failPart: -1}
	s, err := (&Coalesce{Input: cnt}).Execute(NewTaskCtx(context.Background(), mem, nil, nil), 0)
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.Next()
	if err != nil || b == nil {
		t.Fatalf("first batch: %v", err)
	}
	b.Release()
	s.Close()
	s.Close()
	if cnt.opened.Load() != cnt.closed.Load() {
		t.Fatalf("%d opened, %d closed after Close", cnt.opened.Load(), cnt.closed.Load())
	}
	// a failing partition
	cnt = &ltCounting{Operator: src, failPart: 5}
	if _, err := Collect(NewTaskCtx(context.Background(), mem, nil, nil), &Coalesce{Input: cnt}); err == nil || err.Error() != "boom" {
		t.Fatalf("want boom, got %v", err)
	}
	if cnt.opened.Load() != cnt.closed.Load() {
		t.Fatalf("%d opened, %d closed after the error", cnt.opened.Load(), cnt.closed.Load())
	}
	// cancellation while partitions are slow
	ctx, cancel := context.WithCancel(context.Background())
	cnt = &ltCounting{Operator: src, failPart: -1, slow: time.Millisecond}
	s, _ = (&Coalesce{Input: cnt}).Execute(NewTaskCtx(ctx, mem, nil, nil), 0)
	b, err = s.Next()
	if err != nil {
		t.Fatal(err)
	}
	b.Release()
	cancel()
	for {
		b, err = s.Next()
		if err != nil || b == nil {
			break
		}
		b.Release()
	}
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("want context.Canceled, got %v", err)
	}
	s.Close()
	if cnt.opened.Load() != cnt.closed.Load() {
		t.Fatalf("%d opened, %d closed after cancel", cnt.opened.Load(), cnt.closed.Load())
	}
	// bounded queue: a consumer that does not read does not make the
	// producers read everything
	cnt = &ltCounting{Operator: src, failPart: -1}
	s, _ = (&Coalesce{Input: cnt}).Execute(NewTaskCtx(context.Background(), mem, nil, nil), 0)
	b, _ = s.Next()
	b.Release()
	time.Sleep(20 * time.Millisecond)
	if p := cnt.pulls.Load(); p > 16*4 {
		t.Fatalf("%d pulls with 16 partitions and a queue of 32", p)
	}
	s.Close()
}

package exec

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// TestBudgetParent: query budgets draw from a server-wide parent; the
// parent's limit fails a reservation that fits the query's own budget, and
// Close returns what a failed operator never freed.
func TestBudgetParent(t *testing.T) {
	server := NewBudget("server memory (--memory-limit)", 100)
	a := NewBudget("query.memory-limit", 80)
	a.Parent = server
	b := NewBudget("query.memory-limit", 80)
	b.Parent = server
	if err := a.Reserve("Sort", 60); err != nil {
		t.Fatal(err)
	}
	err := b.Reserve("HashJoin", 50)
	if !errors.Is(err, ErrResourceExhausted) || !strings.Contains(err.Error(), "--memory-limit") {
		t.Fatalf("over the server budget: %v", err)
	}
	if b.Used() != 0 || server.Used() != 60 {
		t.Fatalf("a refused reservation must leave nothing behind: query %d, server %d", b.Used(), server.Used())
	}
	if err := b.Reserve("HashJoin", 40); err != nil {
		t.Fatal(err)
	}
	if err := a.Reserve("Sort", 30); err == nil {
		t.Fatal("query budget of 80 accepted 90")
	}
	a.Free(60)
	if server.Used() != 40 {
		t.Fatalf("server used %d after a's free, want 40", server.Used())
	}
	b.Close() // b "forgot" its 40 bytes
	if server.Used() != 0 {
		t.Fatalf("server used %d after closing b, want 0", server.Used())
	}
	b.Free(40) // a late free after Close touches only b
	if server.Used() != 0 || b.Used() != 0 {
		t.Fatalf("late free: server %d, query %d", server.Used(), b.Used())
	}
	var none *Budget
	if none.Limit() != 0 || none.Reserve("x", 1) != nil {
		t.Fatal("nil budget")
	}
	none.Free(1)
	none.Close()
}

// TestBudgetShare: the server budget is divided among the open query
// budgets made with NewChild; a query's own smaller limit wins; Close
// (once) leaves the share to the others; and growWait waits for memory
// another query frees, but not for its own limit.
func TestBudgetShare(t *testing.T) {
	server := NewBudget("server memory (--memory-limit)", 1000)
	a := server.NewChild("query.memory-limit", 4000)
	if got := a.Share(); got != 1000 {
		t.Fatalf("alone: share %d, want 1000", got)
	}
	b := server.NewChild("query.memory-limit", 200)
	if got, want := a.Share(), int64(500); got != want || b.Share() != 200 {
		t.Fatalf("two queries: shares %d, %d; want %d, 200", got, b.Share(), want)
	}
	b.Close()
	b.Close()
	if got := a.Share(); got != 1000 || server.Children() != 1 {
		t.Fatalf("after Close: share %d, %d children; want 1000, 1", got, server.Children())
	}
	var none *Budget
	if none.NewChild("q", 0).Share() != 0 {
		t.Fatal("no server budget: share must be unlimited (0)")
	}

	c := server.NewChild("query.memory-limit", 0)
	if err := a.Reserve("Sort", 900); err != nil {
		t.Fatal(err)
	}
	tc := NewTaskCtx(t.Context(), nil, nil, c)
	r := &reservation{b: c, op: "Sort"}
	go func() {
		time.Sleep(50 * time.Millisecond)
		a.Free(900)
	}()
	if err := r.growWait(tc, 500); err != nil {
		t.Fatalf("growWait while another query frees: %v", err)
	}
	r.freeAll()
	own := server.NewChild("query.memory-limit", 100)
	ro := &reservation{b: own, op: "Sort"}
	start := time.Now()
	if err := ro.growWait(NewTaskCtx(t.Context(), nil, nil, own), 200); !errors.Is(err, ErrResourceExhausted) || time.Since(start) > time.Second {
		t.Fatalf("over its own limit: %v after %v, want ResourceExhausted at once", err, time.Since(start))
	}
}

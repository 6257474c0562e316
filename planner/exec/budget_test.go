package exec

import (
	"errors"
	"strings"
	"testing"
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

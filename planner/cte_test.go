package planner

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
	"github.com/paimon-flightsql/paimon-flightsql/planner/exec"
)

// TestSharedCTEResults: queries reading a WITH query two or three times
// (computed once) return the rows of the same query with the WITH query
// written out at each use (computed each time), on checked allocators —
// also when a reader stops early (LIMIT) or is never executed (the probe
// side of a join whose build side is empty).
func TestSharedCTEResults(t *testing.T) {
	e, _ := newTestEngine(t, testutil.CheckedAllocator(t))
	const body = "(SELECT id, name, qty, amount FROM orders WHERE id > 1)"
	for _, c := range []struct{ shared, inlined string }{
		{"WITH t AS " + body + " SELECT a.id, b.name FROM t a JOIN t b ON a.qty = b.qty",
			"SELECT a.id, b.name FROM " + body + " a JOIN " + body + " b ON a.qty = b.qty"},
		{"WITH t AS " + body + " SELECT id FROM t UNION ALL SELECT qty FROM t WHERE name = 'apple' UNION ALL SELECT count(*) FROM t",
			"SELECT id FROM " + body + " t UNION ALL SELECT qty FROM " + body + " t WHERE name = 'apple' UNION ALL SELECT count(*) FROM " + body + " t"},
		{"WITH t AS " + body + " SELECT id, (SELECT count(*) FROM t t2 WHERE t2.name = t.name) FROM t",
			"SELECT id, (SELECT count(*) FROM " + body + " t2 WHERE t2.name = t.name) FROM " + body + " t"},
		{"WITH t AS " + body + " SELECT name FROM t WHERE amount = (SELECT max(amount) FROM t)",
			"SELECT name FROM " + body + " t WHERE amount = (SELECT max(amount) FROM " + body + " t)"},
		{"WITH g AS (SELECT name, sum(qty) AS q FROM orders GROUP BY name) SELECT a.name, a.q, b.q FROM g a LEFT JOIN g b ON a.q < b.q",
			"SELECT a.name, a.q, b.q FROM (SELECT name, sum(qty) AS q FROM orders GROUP BY name) a LEFT JOIN (SELECT name, sum(qty) AS q FROM orders GROUP BY name) b ON a.q < b.q"},
		{"WITH t AS " + body + " SELECT id FROM t UNION ALL SELECT id FROM t LIMIT 1",
			"SELECT id FROM " + body + " t UNION ALL SELECT id FROM " + body + " t LIMIT 1"},
		{"WITH t AS " + body + " SELECT a.id FROM t a JOIN (SELECT id FROM t WHERE id < 0) b ON a.id = b.id",
			"SELECT a.id FROM " + body + " a JOIN (SELECT id FROM " + body + " t WHERE id < 0) b ON a.id = b.id"},
		{"WITH t AS " + body + " SELECT id FROM t WHERE id NOT IN (SELECT qty FROM t)",
			"SELECT id FROM " + body + " t WHERE id NOT IN (SELECT qty FROM " + body + " t)"},
	} {
		plan := strings.Join(runQuery(t, e, "EXPLAIN "+c.shared), "\n")
		if !strings.Contains(plan, "WithShared t") && !strings.Contains(plan, "WithShared g") {
			t.Errorf("%s: the plan does not share the WITH query:\n%s", c.shared, plan)
		}
		got, want := runQuery(t, e, c.shared), runQuery(t, e, c.inlined)
		if strings.Contains(c.shared, "LIMIT 1") {
			if len(got) != 1 || len(want) != 1 {
				t.Errorf("%s: %d rows, want 1", c.shared, len(got))
			}
			continue
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s:\n got %v\nwant %v", c.shared, got, want)
		}
	}
}

// TestSharedCTEOnce: a WITH query read once is inlined (no shared result).
func TestSharedCTEOnce(t *testing.T) {
	e, _ := newTestEngine(t, testutil.CheckedAllocator(t))
	plan := strings.Join(runQuery(t, e, "EXPLAIN WITH t AS (SELECT id FROM orders) SELECT id FROM t WHERE id > 2"), "\n")
	if strings.Contains(plan, "Shared") {
		t.Errorf("a WITH query read once is shared:\n%s", plan)
	}
}

// TestSharedCTEBudget: the held result counts against the memory budget;
// over it the query fails naming the WITH query, and the bytes are
// returned afterwards.
func TestSharedCTEBudget(t *testing.T) {
	mem := testutil.CheckedAllocator(t)
	_, cat := newTestEngine(t, mem)
	const q = "WITH held AS (SELECT id, name FROM orders WHERE id > 1) SELECT id FROM held UNION ALL SELECT id FROM held"
	tiny := exec.NewBudget("server memory (--memory-limit)", 1)
	_, err := countRows(context.Background(), t, New(cat, Options{Memory: tiny}), q)
	if !errors.Is(err, exec.ErrResourceExhausted) || !strings.Contains(err.Error(), "WITH held") {
		t.Fatalf("shared WITH query under a 1-byte budget: %v, want ResourceExhausted naming WITH held", err)
	}
	big := exec.NewBudget("server memory (--memory-limit)", 1<<30)
	n, err := countRows(context.Background(), t, New(cat, Options{Memory: big}), q)
	if err != nil || n != 14 {
		t.Fatalf("%s: %d rows, %v; want 14", q, n, err)
	}
	if big.Used() != 0 {
		t.Fatalf("%d bytes still drawn from the budget after the query", big.Used())
	}
	if big.Peak() == 0 {
		t.Fatal("the shared result never drew from the budget")
	}
}

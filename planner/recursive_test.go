package planner

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
	"github.com/paimon-flightsql/paimon-flightsql/planner/exec"
)

// TestRecursiveResults: WITH RECURSIVE answers against rows written out,
// on checked allocators (runQuery): counting, UNION ending a cyclic walk,
// a recursive query read twice, joined, and in a subquery.
func TestRecursiveResults(t *testing.T) {
	e, _ := newTestEngine(t, testutil.CheckedAllocator(t))
	count := func(n int) []string {
		var out []string
		for i := 1; i <= n; i++ {
			out = append(out, fmt.Sprint(i))
		}
		return out
	}
	for _, c := range []struct {
		sql  string
		want []string
	}{
		{"WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t WHERE n < 20) SELECT n FROM t", count(20)},
		// batch size 2: rounds of many batches
		{"WITH RECURSIVE t(n) AS (SELECT id FROM orders UNION ALL SELECT n + 8 FROM t WHERE n + 8 <= 40) SELECT n FROM t", count(40)},
		// a cycle 1 → 2 → ... → 5 → 1 ends under UNION
		{"WITH RECURSIVE t(n) AS (SELECT 1 UNION SELECT n % 5 + 1 FROM t) SELECT n FROM t", count(5)},
		// UNION removes duplicates inside the anchor too
		{"WITH RECURSIVE t(name) AS (SELECT name FROM orders WHERE name IS NOT NULL UNION SELECT name FROM t) SELECT name FROM t",
			[]string{"Durian", "apple", "banana", "cherry"}},
		// same name, the orders reachable from id 1 (apple): 1, 5, 8
		{"WITH RECURSIVE r(id, name) AS (SELECT id, name FROM orders WHERE id = 1 UNION SELECT o.id, o.name FROM r JOIN orders o ON o.name = r.name) SELECT id FROM r",
			[]string{"1", "5", "8"}},
		{"WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t WHERE n < 3) SELECT a.n, b.n FROM t a, t b WHERE a.n <= b.n",
			[]string{"1|1", "1|2", "1|3", "2|2", "2|3", "3|3"}},
		{"WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t WHERE n < 8) SELECT id FROM orders WHERE id IN (SELECT n * 2 FROM t)",
			[]string{"2", "4", "6", "8"}},
		{"SELECT (WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t WHERE n < 10) SELECT sum(n) FROM t)", []string{"55"}},
		// a WITH RECURSIVE list whose queries do not recurse
		{"WITH RECURSIVE a AS (SELECT 1 AS x), b AS (SELECT x + 1 AS y FROM a UNION ALL SELECT 7) SELECT y FROM b", []string{"2", "7"}},
		// the recursive reference on the preserved side of outer and semi joins
		{"WITH RECURSIVE t(n, name) AS (SELECT 1, CAST('x' AS VARCHAR) UNION ALL SELECT n + 1, o.name FROM t LEFT JOIN orders o ON o.id = t.n + 1 WHERE n < 4) SELECT n, name FROM t",
			[]string{"1|x", "2|banana", "3|NULL", "4|cherry"}},
		{"WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t WHERE n < 10 AND EXISTS (SELECT 1 FROM orders WHERE orders.id = t.n + 1 AND orders.name IS NOT NULL)) SELECT n FROM t",
			[]string{"1", "2"}},
		// a correlated scalar subquery and LATERAL over the reference's
		// columns (decorrelation copies the reference into their domain)
		{"WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT (SELECT n + 1) FROM t WHERE n < 3) SELECT n FROM t", []string{"1", "2", "3"}},
		{"WITH RECURSIVE t(n, m) AS (SELECT 1, 0 UNION ALL SELECT n + 1, l.m FROM t, LATERAL (SELECT n * 2 AS m) l WHERE n < 3) SELECT n, m FROM t",
			[]string{"1|0", "2|2", "3|4"}},
		// a filter above is not pushed into the anchor
		{"WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t WHERE n < 5) SELECT n FROM t WHERE n > 3", []string{"4", "5"}},
		// a shared WITH query read in every round and by the main query
		{"WITH RECURSIVE e AS (SELECT id AS src, id + 1 AS dst FROM orders WHERE id < 6), r(n) AS (SELECT 1 UNION SELECT e.dst FROM r JOIN e ON e.src = r.n) SELECT r.n, (SELECT count(*) FROM e WHERE e.src <= r.n) FROM r",
			[]string{"1|1", "2|2", "3|3", "4|4", "5|5", "6|5"}},
		// nested: a WITH RECURSIVE inside the recursive term
		{"WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + (WITH RECURSIVE u(m) AS (SELECT 1 UNION ALL SELECT m + 1 FROM u WHERE m < 3) SELECT max(m) FROM u) FROM t WHERE n < 10) SELECT n FROM t",
			[]string{"1", "4", "7", "10"}},
	} {
		got := runQuery(t, e, c.sql)
		slices.Sort(got)
		want := slices.Clone(c.want)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s:\n got %v\nwant %v", c.sql, got, want)
		}
	}
}

// TestRecursiveLimits: infinite recursion fails after the configured
// number of rounds, over the memory budget it fails naming the WITH
// query, and a cancelled context stops it; the bytes are returned and
// nothing leaks (checked allocators).
func TestRecursiveLimits(t *testing.T) {
	mem := testutil.CheckedAllocator(t)
	_, cat := newTestEngine(t, mem)
	const forever = "WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n FROM t) SELECT n FROM t"
	_, err := countRows(context.Background(), t, New(cat, Options{MaxRecursion: 50}), forever)
	if !errors.Is(err, exec.ErrResourceExhausted) || !strings.Contains(err.Error(), "WITH RECURSIVE t did not finish within 50 rounds") {
		t.Errorf("infinite recursion with MaxRecursion 50: %v", err)
	}
	n, err := countRows(context.Background(), t, New(cat, Options{MaxRecursion: 50}), "WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t WHERE n < 50) SELECT n FROM t")
	if err != nil || n != 50 {
		t.Errorf("49 rounds under MaxRecursion 50: %d rows, %v", n, err)
	}

	budget := exec.NewBudget("server memory (--memory-limit)", 64<<10)
	doubling := "WITH RECURSIVE t(n, s) AS (SELECT 1, CAST('x' AS VARCHAR) UNION ALL SELECT n + 1, s || s FROM t) SELECT n FROM t"
	_, err = countRows(context.Background(), t, New(cat, Options{Memory: budget}), doubling)
	if !errors.Is(err, exec.ErrResourceExhausted) || !strings.Contains(err.Error(), "WITH RECURSIVE t") {
		t.Errorf("growing rows under a 64 KiB budget: %v, want ResourceExhausted naming WITH RECURSIVE t", err)
	}
	if used := budget.Used(); used != 0 {
		t.Errorf("%d bytes still reserved after the failed query", used)
	}
	distinct := "WITH RECURSIVE t(n) AS (SELECT 1 UNION SELECT n + 1 FROM t) SELECT n FROM t"
	_, err = countRows(context.Background(), t, New(cat, Options{Memory: budget, MaxRecursion: 1 << 30}), distinct)
	if !errors.Is(err, exec.ErrResourceExhausted) || !strings.Contains(err.Error(), "WITH RECURSIVE t") {
		t.Errorf("UNION of ever new rows under a 64 KiB budget: %v", err)
	}
	if used := budget.Used(); used != 0 {
		t.Errorf("%d bytes still reserved after the failed query", used)
	}

	// rows stream out: a LIMIT above an endless UNION ALL stops it
	n, err = countRows(context.Background(), t, New(cat, Options{MaxRecursion: 1 << 30}), "WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t) SELECT n FROM t LIMIT 7")
	if err != nil || n != 7 {
		t.Errorf("LIMIT 7 over an endless recursion: %d rows, %v", n, err)
	}
	n, err = countRows(context.Background(), t, New(cat, Options{}), "EXPLAIN ANALYZE WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t WHERE n < 30) SELECT n FROM t")
	if err != nil || n == 0 {
		t.Errorf("EXPLAIN ANALYZE: %d rows, %v", n, err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err = countRows(ctx, t, New(cat, Options{MaxRecursion: 1 << 30}), forever)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("infinite recursion under a 100ms deadline: %v", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("cancellation took %v", d)
	}
}

// TestRecursiveConcurrent: one prepared statement executed concurrently
// (each execution has its own working tables).
func TestRecursiveConcurrent(t *testing.T) {
	mem := testutil.CheckedAllocator(t)
	e, _ := newTestEngine(t, mem)
	const q = "WITH RECURSIVE r(id, name, d) AS (SELECT id, name, 0 FROM orders WHERE id = 2 UNION ALL SELECT o.id, o.name, r.d + 1 FROM r JOIN orders o ON o.id = r.id + 1 WHERE r.d < 5) SELECT id, d FROM r"
	st, err := e.Prepare(context.Background(), q, Session{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"2|0", "3|1", "4|2", "5|3", "6|4", "7|5"}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			var got []string
			rdr, err := st.Execute(context.Background(), mem, []any{}, 0)
			if err != nil {
				t.Error(err)
				return
			}
			defer rdr.Release()
			for rdr.Next() {
				got = append(got, renderRows(rdr.RecordBatch())...)
			}
			if err := rdr.Err(); err != nil {
				t.Error(err)
				return
			}
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Errorf("got %v, want %v", got, want)
			}
		})
	}
	wg.Wait()
}

package planner

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
	"github.com/paimon-flightsql/paimon-flightsql/planner/exec"
)

// orChain is "SELECT count(*) FROM orders WHERE id = 0 OR id = 1 ..." of
// about n bytes.
func orChain(n int) string {
	var b strings.Builder
	b.WriteString("SELECT count(*) FROM orders WHERE id = 0")
	for i := 1; b.Len() < n; i++ {
		fmt.Fprintf(&b, " OR id = %d", i%100000)
	}
	return b.String()
}

func notChain(n int) string {
	return "SELECT count(*) FROM orders WHERE " + strings.Repeat("NOT ", n) + "id = 1"
}

func countRows(ctx context.Context, t *testing.T, e *Engine, sql string) (int64, error) {
	t.Helper()
	mem := testutil.CheckedAllocator(t)
	st, err := e.Prepare(ctx, sql, Session{})
	if err != nil {
		return 0, err
	}
	var n int64
	for p := range st.NumPartitions() {
		rdr, err := st.Execute(ctx, mem, []any{}, p)
		if err != nil {
			return 0, err
		}
		for rdr.Next() {
			rec := rdr.RecordBatch()
			n += rec.NumRows()
		}
		err = rdr.Err()
		rdr.Release()
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

func TestStatementLimits(t *testing.T) {
	mem := testutil.CheckedAllocator(t)
	e, cat := newTestEngine(t, mem)
	start := time.Now()
	_, err := e.Prepare(context.Background(), notChain(40000), Session{})
	if !errors.Is(err, catalog.ErrInvalid) || !strings.Contains(err.Error(), "--max-expression-depth") {
		t.Fatalf("40k NOT chain under the default limit: got %v, want an invalid-statement error naming the limit", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("refusing the NOT chain took %v", d)
	}
	small := New(cat, Options{MaxStatementBytes: 1000})
	_, err = small.Prepare(context.Background(), orChain(2000), Session{})
	if !errors.Is(err, catalog.ErrInvalid) || !strings.Contains(err.Error(), "--max-statement-bytes") {
		t.Fatalf("2 kB statement with a 1 kB limit: got %v", err)
	}
	// Below the limits, prefix operators still work.
	for sql, want := range map[string]string{
		"SELECT NOT NOT true, - - 1, 1 - -1, NOT (NOT false)": "true|1|2|false",
		"SELECT NOT NOT NULL IS NULL":                         "true",
	} {
		got := runQuery(t, e, sql)
		if len(got) != 1 || got[0] != want {
			t.Errorf("%s = %v, want %s", sql, got, want)
		}
	}
}

// TestLongChainsLinearAndCancellable: the 1 MB OR chain and the 40k NOT
// chain (limits lifted) plan in linear time with the right answer, and stop
// promptly when their context ends.
func TestLongChainsLinearAndCancellable(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	mem := testutil.CheckedAllocator(t)
	_, cat := newTestEngine(t, mem)
	e := New(cat, Options{MaxExpressionDepth: -1, BatchSize: 2})
	or := orChain(1 << 20)
	var in strings.Builder
	in.WriteString("SELECT count(*) FROM orders WHERE name IN ('x0'")
	for i := 1; i < 10000; i++ {
		fmt.Fprintf(&in, ", 'x%d'", i)
	}
	in.WriteString(", 'a')")
	for _, q := range []struct {
		name, sql string
	}{{"1 MB OR chain", or}, {"40k NOT chain", notChain(40000)}, {"10k IN list", in.String()}} {
		start := time.Now()
		n, err := countRows(context.Background(), t, e, q.sql)
		if err != nil || n != 1 {
			t.Fatalf("%s: %d rows, %v", q.name, n, err)
		}
		t.Logf("%s (%d bytes): %v", q.name, len(q.sql), time.Since(start))
		if d := time.Since(start); d > 20*time.Second {
			t.Fatalf("%s took %v: not linear", q.name, d)
		}
		for _, timeout := range []time.Duration{0, 20 * time.Millisecond} {
			ctx, cancel := context.WithTimeout(context.Background(), timeout)
			start := time.Now()
			_, err := countRows(ctx, t, e, q.sql)
			cancel()
			if timeout > 0 && err == nil && time.Since(start) < 2*timeout {
				continue // finished before the timeout (the IN list is fast)
			}
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("%s with a %v timeout: got %v, want DeadlineExceeded", q.name, timeout, err)
			}
			d := time.Since(start)
			t.Logf("%s with a %v timeout: stopped after %v", q.name, timeout, d)
			if d > 5*time.Second {
				t.Fatalf("%s with a %v timeout stopped after %v", q.name, timeout, d)
			}
		}
	}
}

// TestServerMemoryBudget: queries draw from Options.Memory; over it they
// fail with ResourceExhausted naming the server budget, and every finished
// query gives its bytes back.
func TestServerMemoryBudget(t *testing.T) {
	mem := testutil.CheckedAllocator(t)
	_, cat := newTestEngine(t, mem)
	tiny := exec.NewBudget("server memory (--memory-limit)", 1)
	e := New(cat, Options{Memory: tiny})
	_, err := countRows(context.Background(), t, e, "SELECT * FROM orders ORDER BY name, id")
	if !errors.Is(err, exec.ErrResourceExhausted) || !strings.Contains(err.Error(), "--memory-limit") {
		t.Fatalf("ORDER BY under a 1-byte server budget: %v", err)
	}
	big := exec.NewBudget("server memory (--memory-limit)", 1<<30)
	e = New(cat, Options{Memory: big})
	for _, q := range []string{
		"SELECT * FROM orders ORDER BY name, id",
		"SELECT name, count(*) FROM orders GROUP BY name",
		"SELECT a.id FROM orders a JOIN orders b ON a.id = b.id",
		"SELECT DISTINCT name FROM orders",
	} {
		if _, err := countRows(context.Background(), t, e, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if big.Used() != 0 {
			t.Fatalf("%s: %d bytes still drawn from the server budget after the query", q, big.Used())
		}
	}
	if big.Peak() == 0 {
		t.Fatal("the queries never drew from the server budget")
	}
}

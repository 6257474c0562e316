package planner

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
)

// TestTableFuncParams: ? in table function and UNNEST arguments bind at
// execution.
func TestTableFuncParams(t *testing.T) {
	e, _ := newTestEngine(t, testutil.CheckedAllocator(t))
	for _, c := range []struct {
		q    string
		p    []any
		want []string
	}{
		{"SELECT * FROM range(?)", []any{int64(3)}, []string{"0", "1", "2"}},
		{"SELECT * FROM generate_series(?, ?, ?)", []any{int64(5), int64(1), int64(-2)}, []string{"1", "3", "5"}},
		{"SELECT unnest([?, 2]) AS x", []any{int64(7)}, []string{"2", "7"}},
		{"SELECT id, x FROM orders, unnest([id, ?]) u(x) WHERE id < 3", []any{int64(9)}, []string{"1|1", "1|9", "2|2", "2|9"}},
	} {
		rows, err := tryQuery(t, e, c.q, c.p...)
		if err != nil {
			t.Errorf("%s: %v", c.q, err)
			continue
		}
		slices.Sort(rows)
		if !slices.Equal(rows, c.want) {
			t.Errorf("%s: %v, want %v", c.q, rows, c.want)
		}
	}
}

// TestTableFuncCancel: an aggregate over a range of 2^63 rows stops when
// the query's context is cancelled.
func TestTableFuncCancel(t *testing.T) {
	mem := testutil.CheckedAllocator(t)
	e, _ := newTestEngine(t, mem)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	rd, err := Run(ctx, e, "SELECT COUNT(*) FROM range(9223372036854775807)", Session{}, mem)
	if err == nil {
		for rd.Next() {
		}
		err = rd.Err()
		rd.Release()
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want the context's deadline", err)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Fatalf("stopped after %v", d)
	}
}

package planner

import (
	"strings"
	"testing"

	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
)

// TestFastAggMatchesRowPath runs aggregation queries through the vectorized
// path and the row-at-a-time path and requires identical results.
func TestFastAggMatchesRowPath(t *testing.T) {
	mem := testutil.CheckedAllocator(t)
	e, _ := newTestEngine(t, mem)
	queries := []string{
		"SELECT count(*) FROM orders",
		"SELECT count(*), count(qty), sum(qty), avg(qty), min(qty), max(qty) FROM orders",
		"SELECT name, count(*), sum(amount), avg(amount), min(amount), max(amount) FROM orders GROUP BY name ORDER BY name",
		"SELECT name, dt, sum(price), min(price), max(price), avg(price) FROM orders GROUP BY name, dt ORDER BY name, dt",
		"SELECT qty, count(id), sum(id) FROM orders GROUP BY qty ORDER BY qty",
		"SELECT dt, max(id) FROM orders WHERE id > 2 GROUP BY dt ORDER BY dt",
		"SELECT name, min(dt), max(dt), count(dt) FROM orders GROUP BY name ORDER BY name",
		"SELECT count(*), sum(qty) FROM orders WHERE id > 100",
		"SELECT name, count(*) FROM orders WHERE id > 100 GROUP BY name",
	}
	for _, q := range queries {
		fast := runQuery(t, e, q)
		disableFastAgg = true
		slow := runQuery(t, e, q)
		disableFastAgg = false
		if strings.Join(fast, "\n") != strings.Join(slow, "\n") {
			t.Errorf("%s\n fast %q\n slow %q", q, fast, slow)
		}
		if len(fast) == 0 && !strings.Contains(q, "GROUP BY") {
			t.Errorf("%s: no row", q)
		}
	}
	// The fast path is really taken for plain-column aggregates, and not for
	// shapes it does not handle.
	before := fastAggUsed.Load()
	runQuery(t, e, "SELECT name, sum(amount) FROM orders GROUP BY name")
	if fastAggUsed.Load() != before+1 {
		t.Fatal("plain GROUP BY did not use the vectorized path")
	}
	runQuery(t, e, "SELECT upper(name), count(DISTINCT qty) FROM orders GROUP BY upper(name)")
	if fastAggUsed.Load() != before+1 {
		t.Fatal("expression GROUP BY / DISTINCT must use the row path")
	}
}

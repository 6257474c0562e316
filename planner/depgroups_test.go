package planner

import (
	"context"
	"strings"
	"testing"

	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
)

// TestDependentGroupKeys: a GROUP BY key computed from other keys that are
// plain columns (GROUP BY c, c - 1) is computed after grouping by c alone
// (the HashAggregate keys c only); the answers equal those of the query
// grouping by c and computing the expression in the SELECT list, with
// NULLs, strings, dates and decimals, and an expression that overflows
// still fails. Float columns (-0 and +0 one key) are not reduced.
func TestDependentGroupKeys(t *testing.T) {
	mem := testutil.CheckedAllocator(t)
	e := New(goldenWarehouse(t, mem), Options{})
	ctas, err := Run(context.Background(), e, "CREATE TABLE deps AS SELECT CASE WHEN v % 7 = 0 THEN NULL ELSE user END AS u, "+
		"CASE WHEN v % 5 = 0 THEN NULL ELSE 'k' || CAST(v % 13 AS VARCHAR) END AS s, day, CAST(v % 17 AS DECIMAL(10,2)) * 0.25 AS d, "+
		"CAST(v % 3 AS DOUBLE) - 1 AS f, DATE '2024-01-01' + CAST(v % 40 AS INTEGER) AS dt, v FROM clicks", Session{}, mem)
	if err != nil {
		t.Fatal(err)
	}
	ctas.Release()
	rows := func(sql string) string {
		got, err := tryQuery(t, e, sql)
		if err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		return strings.Join(got, "\n")
	}
	cases := []struct{ reduced, ref, groups string }{
		{"SELECT u, u - 1, u * 3, COUNT(*), SUM(v) FROM deps GROUP BY u, u - 1, u * 3 ORDER BY 1",
			"SELECT u, u - 1, u * 3, COUNT(*), SUM(v) FROM deps GROUP BY u ORDER BY 1", "groups=[deps.u AS u]"},
		{"SELECT s, UPPER(s) AS us, LENGTH(s) AS l, day, day + 1 AS d1, COUNT(*) FROM deps GROUP BY s, UPPER(s), LENGTH(s), day, day + 1 ORDER BY 1, 4",
			"SELECT s, UPPER(s) AS us, LENGTH(s) AS l, day, day + 1 AS d1, COUNT(*) FROM deps GROUP BY s, day ORDER BY 1, 4", "groups=[deps.s AS s, deps.day AS day]"},
		{"SELECT dt, EXTRACT(YEAR FROM dt) AS y, d, d * 2 AS d2, MIN(v) FROM deps GROUP BY dt, EXTRACT(YEAR FROM dt), d, d * 2 ORDER BY 1, 3",
			"SELECT dt, EXTRACT(YEAR FROM dt) AS y, d, d * 2 AS d2, MIN(v) FROM deps GROUP BY dt, d ORDER BY 1, 3", "groups=[deps.dt AS dt, deps.d AS d]"},
		{"SELECT u - 1 AS a, u, COUNT(DISTINCT s) FROM deps GROUP BY u - 1, u ORDER BY 2",
			"SELECT u - 1 AS a, u, COUNT(DISTINCT s) FROM deps GROUP BY u ORDER BY 2", "groups=[deps.u AS u]"},
	}
	for _, c := range cases {
		if got, want := rows(c.reduced), rows(c.ref); got != want || got == "" {
			t.Errorf("%s:\n got %s\nwant %s", c.reduced, got, want)
		}
		plan := rows("EXPLAIN " + c.reduced)
		if !strings.Contains(plan, "HashAggregate "+c.groups+" ") {
			t.Errorf("%s: the aggregate does not group by %s alone:\n%s", c.reduced, c.groups, plan)
		}
	}
	// A float key is not reduced (its -0 and +0 are one key).
	if plan := rows("EXPLAIN SELECT f, f * 2 FROM deps GROUP BY f, f * 2"); !strings.Contains(plan, "(deps.f * 2)]") {
		t.Errorf("float key reduced:\n%s", plan)
	}
	if _, err := tryQuery(t, e, "SELECT v, v * 9223372036854775807 FROM deps GROUP BY v, v * 9223372036854775807"); err == nil {
		t.Error("an overflowing dependent key did not fail")
	}
}

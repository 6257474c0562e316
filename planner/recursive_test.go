package planner

import (
	"testing"

	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
)

func TestRecursiveSmoke(t *testing.T) {
	e, _ := newTestEngine(t, testutil.CheckedAllocator(t))
	for _, q := range []string{
		"SELECT typeof(1), typeof(x) FROM (SELECT 1 AS x) s",
		"EXPLAIN WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + CAST(1 AS BIGINT) FROM t WHERE n < 5) SELECT n, typeof(n) AS ty FROM t",
		"WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t WHERE n < 5) SELECT n FROM t",
		"EXPLAIN WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t WHERE n < 5) SELECT n FROM t",
		"WITH RECURSIVE t(n, f) AS (SELECT 1, CAST(1 AS BIGINT) UNION ALL SELECT n + 1, f * (n + 1) FROM t WHERE n < 10) SELECT * FROM t",
		"WITH RECURSIVE t(id, name) AS (SELECT id, name FROM orders WHERE id = 1 UNION SELECT o.id, o.name FROM t JOIN orders o ON o.name = t.name) SELECT * FROM t ORDER BY id",
	} {
		t.Log(q)
		for _, r := range runQuery(t, e, q) {
			t.Log(r)
		}
	}
}

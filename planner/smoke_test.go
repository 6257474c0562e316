package planner

import (
	"testing"

	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
)

func TestSmoke(t *testing.T) {
	e, _ := newTestEngine(t, testutil.CheckedAllocator(t))
	for _, q := range []string{
		"SELECT 1",
		"SELECT * FROM orders",
		"SELECT id, name FROM orders WHERE price > 1 ORDER BY id DESC LIMIT 3",
		"SELECT name, COUNT(*), SUM(qty), AVG(price), MIN(dt), MAX(amount) FROM orders GROUP BY name ORDER BY name",
		"SELECT COUNT(*) FROM orders",
		"EXPLAIN SELECT id FROM orders WHERE dt >= DATE '2024-02-01' AND name LIKE 'ap%'",
		`SELECT "name", CAST(price AS DOUBLE) FROM "orders" WHERE name = 'it''s "x"'`,
		"SELECT DISTINCT name FROM orders",
		"SELECT EXTRACT(YEAR FROM dt), SUBSTRING(name FROM 2 FOR 3) FROM orders",
	} {
		rows := runQuery(t, e, q)
		t.Logf("%s\n  %v", q, rows)
	}
}

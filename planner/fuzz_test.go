package planner

import (
	"context"
	"testing"

	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
)

// FuzzPrepare checks that no SQL text makes Prepare or Execute panic.
func FuzzPrepare(f *testing.F) {
	for _, s := range []string{
		"SELECT id, UPPER(name) FROM orders WHERE price > 1 ORDER BY id LIMIT 2",
		"SELECT name, COUNT(*), SUM(amount), AVG(qty) FROM orders GROUP BY name HAVING COUNT(*) > 1",
		"SELECT CASE WHEN qty > 1 THEN 'a' ELSE 'b' END, CAST(dt AS VARCHAR) FROM orders",
		"SELECT DISTINCT EXTRACT(YEAR FROM ts), DATE_TRUNC('month', dt) FROM orders",
		"SELECT COALESCE(name, 1), id / 0, -amount FROM orders WHERE name LIKE '%a_'",
		"EXPLAIN SELECT * FROM orders WHERE id IN (1, 2) AND NOT (qty BETWEEN 1 AND 2)",
		"SELECT 1", "SHOW TABLES", "CALL sys.compact('orders')",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		mem := testutil.CheckedAllocator(t)
		e, _ := newTestEngine(t, mem)
		st, err := e.Prepare(context.Background(), sql, Session{})
		if err != nil || st.IsUpdate() || len(st.ParamTypes()) > 0 {
			return
		}
		rdr, err := st.Execute(context.Background(), mem, []any{}, 0)
		if err != nil {
			return
		}
		for rdr.Next() {
		}
		rdr.Release()
	})
}

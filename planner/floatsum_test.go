package planner

import (
	"strings"
	"testing"

	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
)

// TestCompensatedFloatSums: SUM and AVG of DOUBLE are correctly rounded
// (compensated), so they do not depend on the order rows and partial states
// are added in: 1e16 + 1 - 1e16 is 1 (a plain running sum says 0), and the
// mean of three -582.79 is -582.79 (DOUBLE or DECIMAL).
func TestCompensatedFloatSums(t *testing.T) {
	mem := testutil.CheckedAllocator(t)
	e := New(goldenWarehouse(t, mem), Options{})
	for _, c := range []struct{ sql, want string }{
		{"SELECT SUM(x) FROM (VALUES (CAST(1e16 AS DOUBLE)), (CAST(1 AS DOUBLE)), (CAST(-1e16 AS DOUBLE))) t(x)", "1"},
		{"SELECT AVG(x) FROM (VALUES (CAST(-582.79 AS DOUBLE)), (CAST(-582.79 AS DOUBLE)), (CAST(-582.79 AS DOUBLE))) t(x)", "-582.79"},
		{"SELECT SUM(x) FROM (VALUES (CAST('Infinity' AS DOUBLE)), (CAST(1 AS DOUBLE))) t(x)", "+Inf"},
		// AVG of a DECIMAL: the unscaled sum over count × 10^scale, one rounding.
		{"SELECT AVG(x) FROM (VALUES (CAST(-582.79 AS DECIMAL(10, 2))), (CAST(-582.79 AS DECIMAL(10, 2))), (CAST(-582.79 AS DECIMAL(10, 2)))) t(x)", "-582.79"},
		{"SELECT SUM(x) FROM (VALUES (CAST('Infinity' AS DOUBLE)), (CAST('-Infinity' AS DOUBLE))) t(x)", "NaN"},
	} {
		got := strings.Join(runQuery(t, e, c.sql), "|")
		if got != c.want {
			t.Errorf("%s: got %s, want %s", c.sql, got, c.want)
		}
	}
}

package planner

import (
	"strings"
	"testing"

	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
)

// TestStatAggregates covers the aggregates added for DuckDB parity: grouped,
// ungrouped, with NULLs and empty inputs. Expected values were computed by
// hand / with DuckDB's definitions.
func TestStatAggregates(t *testing.T) {
	e, _ := newTestEngine(t, testutil.CheckedAllocator(t))
	const xy = "(VALUES (1, 1, 2.0, 'a'), (1, 2, 4.0, 'b'), (1, 3, 7.0, 'b'), (1, NULL, 1.0, 'c'), (2, 5, NULL, 'x'), (2, 6, 6.0, 'x'), (3, NULL, NULL, NULL)) t(g, x, y, s)"
	cases := []struct{ sql, want string }{
		{"SELECT g, COVAR_POP(y, x), COVAR_SAMP(y, x), REGR_COUNT(y, x) FROM " + xy + " GROUP BY g ORDER BY g",
			"1|1.6666666666666667|2.5|3; 2|0|NULL|1; 3|NULL|NULL|0"},
		{"SELECT g, ROUND(REGR_SLOPE(y, x), 12), ROUND(REGR_INTERCEPT(y, x), 12), REGR_AVGX(y, x), REGR_AVGY(y, x), REGR_SXX(y, x) FROM " + xy + " GROUP BY g ORDER BY g",
			"1|2.5|-0.666666666667|2|4.333333333333333|2; 2|NULL|NULL|6|6|0; 3|NULL|NULL|NULL|NULL|NULL"},
		{"SELECT ROUND(CORR(y, x), 12), ROUND(REGR_R2(y, x), 12) FROM " + xy + " WHERE g = 1", "0.993399267799|0.986842105263"},
		{"SELECT CORR(y, x) FROM " + xy + " WHERE g = 2", "NaN"},
		{"SELECT g, ARG_MAX(s, y), ARG_MIN(s, y), MAX_BY(x, y), MIN_BY(s, x) FROM " + xy + " GROUP BY g ORDER BY g",
			"1|b|c|3|a; 2|x|x|6|x; 3|NULL|NULL|NULL|NULL"},
		{"SELECT ARG_MAX(id, price), ARG_MIN(name, qty) FROM orders", "6|Durian"},
		{"SELECT g, MODE(s) FROM " + xy + " GROUP BY g ORDER BY g", "1|b; 2|x; 3|NULL"},
		{"SELECT MODE(name) FROM orders", "apple"},
		{"SELECT APPROX_COUNT_DISTINCT(name), APPROX_COUNT_DISTINCT(qty) FROM orders", "4|7"},
		{"SELECT g, BIT_AND(x), BIT_OR(x), BIT_XOR(x) FROM " + xy + " GROUP BY g ORDER BY g", "1|0|3|0; 2|4|7|3; 3|NULL|NULL|NULL"},
		{"SELECT BIT_AND(-x), BIT_OR(-x) FROM " + xy + " WHERE g = 2", "-6|-5"},
		{"SELECT g, PRODUCT(y), ROUND(GEOMEAN(y), 12) FROM " + xy + " GROUP BY g ORDER BY g", "1|56|2.735564799735; 2|6|6; 3|NULL|NULL"},
		{"SELECT COUNT(*), CORR(x, x), MODE(x), ARG_MAX(x, x), BIT_OR(x), PRODUCT(x), REGR_COUNT(x, x) FROM " + xy + " WHERE g = 99", "0|NULL|NULL|NULL|NULL|NULL|0"},
		{"SELECT STDDEV_POP(x), VAR_SAMP(x) FROM (VALUES (2), (4), (4), (4), (5), (5), (7), (9)) t(x)", "2|4.571428571428571"},
	}
	for _, c := range cases {
		got, err := tryQuery(t, e, c.sql)
		if err != nil {
			t.Errorf("%s: %v", c.sql, err)
			continue
		}
		if g := strings.Join(got, "; "); g != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.sql, g, c.want)
		}
	}
}

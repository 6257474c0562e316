package planner

import (
	"strings"
	"testing"

	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
)

// TestStatAggregates covers the aggregates added for DuckDB parity: grouped,
// ungrouped, with NULLs and empty inputs. Expected values were computed by
// hand / with DuckDB's definitions. Floating results are rounded: partial
// states merge in partition order, which may change the last bit.
func TestStatAggregates(t *testing.T) {
	e, _ := newTestEngine(t, testutil.CheckedAllocator(t))
	const xy = "(VALUES (1, 1, 2.0, 'a'), (1, 2, 4.0, 'b'), (1, 3, 7.0, 'b'), (1, NULL, 1.0, 'c'), (2, 5, NULL, 'x'), (2, 6, 6.0, 'x'), (3, NULL, NULL, NULL)) t(g, x, y, s)"
	cases := []struct{ sql, want string }{
		{"SELECT g, ROUND(COVAR_POP(y, x), 12), ROUND(COVAR_SAMP(y, x), 12), REGR_COUNT(y, x) FROM " + xy + " GROUP BY g ORDER BY g",
			"1|1.666666666667|2.5|3; 2|0|NULL|1; 3|NULL|NULL|0"},
		{"SELECT g, ROUND(REGR_SLOPE(y, x), 12), ROUND(REGR_INTERCEPT(y, x), 12), ROUND(REGR_AVGX(y, x), 12), ROUND(REGR_AVGY(y, x), 12), ROUND(REGR_SXX(y, x), 12) FROM " + xy + " GROUP BY g ORDER BY g",
			"1|2.5|-0.666666666667|2|4.333333333333|2; 2|NULL|NULL|6|6|0; 3|NULL|NULL|NULL|NULL|NULL"},
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
		{"SELECT ROUND(STDDEV_POP(x), 9), ROUND(VAR_SAMP(x), 9) FROM (VALUES (2), (4), (4), (4), (5), (5), (7), (9)) t(x)", "2|4.571428571"},
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

// TestWindowFrameSQL runs RANGE offset, GROUPS and EXCLUDE frames and the
// window variants of the new aggregates through the SQL front end.
func TestWindowFrameSQL(t *testing.T) {
	e, _ := newTestEngine(t, testutil.CheckedAllocator(t))
	cases := []struct{ sql, want string }{
		{"SELECT id, SUM(qty) OVER (ORDER BY qty RANGE BETWEEN 5 PRECEDING AND 2 FOLLOWING) FROM orders ORDER BY id",
			"1|35; 2|20; 3|NULL; 4|6; 5|23; 6|1; 7|30; 8|30"},
		{"SELECT id, COUNT(*) OVER (ORDER BY qty DESC NULLS FIRST RANGE BETWEEN 5 PRECEDING AND 5 FOLLOWING) FROM orders ORDER BY id",
			"1|4; 2|1; 3|1; 4|4; 5|4; 6|2; 7|1; 8|3"},
		{"SELECT id, COUNT(*) OVER (ORDER BY amount RANGE BETWEEN 0.5 PRECEDING AND CURRENT ROW) FROM orders ORDER BY id",
			"1|2; 2|1; 3|1; 4|2; 5|1; 6|2; 7|1; 8|1"},
		{"SELECT id, COUNT(*) OVER (ORDER BY price RANGE BETWEEN 0.25 PRECEDING AND 0.25 FOLLOWING) FROM orders ORDER BY id",
			"1|3; 2|2; 3|1; 4|1; 5|3; 6|1; 7|2; 8|3"},
		{"SELECT id, COUNT(*) OVER (ORDER BY dt RANGE BETWEEN INTERVAL 10 DAY PRECEDING AND CURRENT ROW) FROM orders ORDER BY id",
			"1|1; 2|2; 3|1; 4|1; 5|2; 6|1; 7|2; 8|3"},
		{"SELECT id, COUNT(*) OVER (ORDER BY ts RANGE BETWEEN INTERVAL '1 month' PRECEDING AND INTERVAL '1 day' FOLLOWING) FROM orders ORDER BY id",
			"1|2; 2|2; 3|1; 4|2; 5|2; 6|4; 7|5; 8|5"},
		{"SELECT id, SUM(qty) OVER (ORDER BY name GROUPS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM orders ORDER BY id",
			"1|31; 2|80; 3|5; 4|55; 5|31; 6|1; 7|80; 8|31"},
		{"SELECT id, SUM(qty) OVER (ORDER BY name ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING EXCLUDE GROUP) FROM orders ORDER BY id",
			"1|56; 2|36; 3|86; 4|81; 5|56; 6|85; 7|36; 8|56"},
		{"SELECT id, MIN(qty) OVER (ORDER BY id ROWS BETWEEN CURRENT ROW AND 2 FOLLOWING EXCLUDE CURRENT ROW) FROM orders ORDER BY id",
			"1|20; 2|5; 3|5; 4|1; 5|1; 6|12; 7|12; 8|NULL"},
		{"SELECT id, COUNT(*) OVER (ORDER BY name RANGE BETWEEN CURRENT ROW AND CURRENT ROW EXCLUDE TIES), FIRST_VALUE(id) OVER (ORDER BY name ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING EXCLUDE TIES) FROM orders ORDER BY id",
			"1|1|6; 2|1|6; 3|1|6; 4|1|6; 5|1|6; 6|1|6; 7|1|6; 8|1|6"},
		{"SELECT id, ROUND(STDDEV_SAMP(qty) OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING), 6), MODE(name) OVER (), ARG_MAX(id, qty) OVER (PARTITION BY name) FROM orders ORDER BY id",
			"1|7.071068|apple|8; 2|7.071068|apple|7; 3|10.606602|apple|NULL; 4|2.12132|apple|4; 5|3.511885|apple|8; 6|15.132746|apple|6; 7|14.640128|apple|7; 8|12.727922|apple|8"},
		{"SELECT id, COUNT(DISTINCT name) OVER (), COUNT(DISTINCT name) OVER (ORDER BY id), SUM(DISTINCT price) OVER (ORDER BY id ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) FROM orders ORDER BY id",
			"1|4|1|1.5; 2|4|2|1.75; 3|4|2|1.75; 4|4|3|3.25; 5|4|3|4.75; 6|4|4|14.25; 7|4|4|11.55; 8|4|4|11.3"},
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

// TestWindowFrameErrors: frames the engine refuses name what is wrong.
func TestWindowFrameErrors(t *testing.T) {
	e, _ := newTestEngine(t, testutil.CheckedAllocator(t))
	for _, c := range []struct{ sql, want string }{
		{"SELECT SUM(qty) OVER (ORDER BY qty, id RANGE BETWEEN 1 PRECEDING AND CURRENT ROW) FROM orders", "exactly one ORDER BY column"},
		{"SELECT SUM(qty) OVER (RANGE BETWEEN 1 PRECEDING AND CURRENT ROW) FROM orders", "exactly one ORDER BY column"},
		{"SELECT SUM(qty) OVER (ORDER BY qty RANGE BETWEEN 1.5 PRECEDING AND CURRENT ROW) FROM orders", "not an integer"},
		{"SELECT SUM(qty) OVER (ORDER BY qty RANGE BETWEEN INTERVAL 1 DAY PRECEDING AND CURRENT ROW) FROM orders", "a number is needed"},
		{"SELECT SUM(qty) OVER (ORDER BY dt RANGE BETWEEN 3 PRECEDING AND CURRENT ROW) FROM orders", "an INTERVAL is needed"},
		{"SELECT SUM(qty) OVER (ORDER BY name RANGE BETWEEN 3 PRECEDING AND CURRENT ROW) FROM orders", "over ORDER BY values of type"},
		{"SELECT SUM(qty) OVER (ORDER BY amount RANGE BETWEEN 0.125 PRECEDING AND CURRENT ROW) FROM orders", "more decimals"},
		{"SELECT SUM(qty) OVER (ORDER BY qty RANGE BETWEEN -1 PRECEDING AND CURRENT ROW) FROM orders", "negative"},
		{"SELECT SUM(qty) OVER (ORDER BY qty GROUPS BETWEEN -1 PRECEDING AND CURRENT ROW) FROM orders", "non-negative"},
		{"SELECT SUM(qty) OVER (ORDER BY qty ROWS BETWEEN 1 PRECEDING AND CURRENT ROW EXCLUDE OTHERS) FROM orders", "after EXCLUDE"},
		{"SELECT RANK(DISTINCT id) OVER (ORDER BY qty) FROM orders", "DISTINCT is only allowed in aggregate"},
	} {
		_, err := tryQuery(t, e, c.sql)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.sql, err, c.want)
		}
	}
}

package planner

import (
	"strings"
	"testing"

	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
)

// TestBitwise checks the bitwise operators against DuckDB 1.5's answers
// (values and operator precedence: ||, |, &, <<, >> share one
// left-associative level, ~ takes everything that binds tighter).
func TestBitwise(t *testing.T) {
	e, _ := newTestEngine(t, testutil.CheckedAllocator(t))
	for _, c := range []struct{ sql, want string }{
		{`SELECT 1 | 2 & 3, 6 & 3 << 1, 1 << 2 | 1, ~1 + 1, ~ 1 | 2, - 1 & 3, 2 + 3 & 6, 6 & 3 + 2`, "3|4|5|-3|-2|3|4|4"},
		{`SELECT 12 >> 1 >> 1 << 3, 1 | 2 = 3, 3 = 1 | 2, (2 | 4) = 6, 2 * 3 ^ 2, -2 ^ 2, 2 ^ 3 ^ 2`, "24|true|true|true|18|4|64"},
		{`SELECT 'a' || 'b' || 'c', xor(5, 3), bit_count(-1), bit_count(CAST(-1 AS BIGINT)), bit_count(CAST(-1 AS TINYINT)), ~0, ~CAST(5 AS BIGINT)`, "abc|6|32|64|8|-1|-6"},
		{`SELECT 8 >> 64, 8 >> -1, -8 >> 1, -8 >> 100, 0 << 100, 123 >> 31, -123 >> 31, -123 >> 32, CAST(-7 AS TINYINT) >> 7`, "0|0|-4|0|0|0|-1|0|-1"},
		{`SELECT CAST(1 AS BIGINT) << 62, CAST(63 AS TINYINT) << 1, 5 & NULL, NULL << 2, '3' & 1`, "4611686018427387904|126|NULL|NULL|1"},
		{`SELECT typeof(1 | 2), typeof(CAST(1 AS TINYINT) & 3), typeof(CAST(1 AS TINYINT) & 300), typeof(5000000000 & 1), typeof(bit_count(5)), typeof(qty << 1), typeof(~qty) FROM orders WHERE id = 1`,
			"INTEGER|TINYINT|INTEGER|BIGINT|TINYINT|INTEGER|INTEGER"},
		{`SELECT id, qty & 6, qty | 1, qty << 2, qty >> 1, ~qty, xor(qty, id), bit_count(qty), (qty - 11) >> 40 FROM orders ORDER BY id`,
			"1|2|11|40|5|-11|11|2|0\n2|4|21|80|10|-21|22|2|0\n3|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL\n4|4|5|20|2|-6|1|2|0\n" +
				"5|0|9|32|4|-9|13|1|0\n6|0|1|4|0|-2|7|1|0\n7|6|31|120|15|-31|25|4|0\n8|4|13|48|6|-13|4|2|0"},
		{`SELECT typeof((qty - 11) >> 40), bit_count(qty - 11), typeof(xor(qty, id)) FROM orders WHERE id = 1`, "INTEGER|32|BIGINT"},
	} {
		got := strings.Join(runQuery(t, e, c.sql), "\n")
		if got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.sql, got, c.want)
		}
	}
	for _, c := range []struct{ sql, want string }{
		{`SELECT 1 << 31`, "overflow in left shift (1 << 31)"},
		{`SELECT 1 << 40`, "left-shift value 40 is out of range"},
		{`SELECT CAST(1 AS BIGINT) << 63`, "overflow in left shift"},
		{`SELECT -1 << 1`, "cannot left-shift negative number -1"},
		{`SELECT 1 << -1`, "cannot left-shift by negative number -1"},
		{`SELECT 1 << CAST(31 AS TINYINT)`, "left-shift value 31 is out of range"},
		{`SELECT 1.5 & 1`, "integer"},
		{`SELECT CAST(1.5 AS DOUBLE) | 1`, "integer"},
		{`SELECT 3 & true`, "integer"},
		{`SELECT bit_count(3.5)`, "integer"},
		{`SELECT ~~5`, "~~"},
		{`SELECT paimon_bit_or FROM orders`, "reserved"},
		{`SELECT 'a' || 'b' & 'c'`, "integer"},
	} {
		_, err := tryQuery(t, e, c.sql)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err %v, want %q", c.sql, err, c.want)
		}
	}
}

// TestTypeofDuckDB checks TYPEOF's names against DuckDB 1.5's.
func TestTypeofDuckDB(t *testing.T) {
	e, _ := newTestEngine(t, testutil.CheckedAllocator(t))
	got := strings.Join(runQuery(t, e, `SELECT typeof(1), typeof(-1), typeof(5000000000), typeof(qty + 1), typeof(qty * qty), typeof(id + qty), typeof(CAST(1 AS BIGINT)), typeof(CAST(1 AS TINYINT) + 1), typeof(1 + 1), typeof(qty / 2), typeof(1.5), typeof(price), typeof(amount), typeof(name), typeof(dt), typeof(ts), typeof(qty % 3), typeof(CAST(qty AS BIGINT)) FROM orders WHERE id = 1`), "\n")
	want := "INTEGER|INTEGER|BIGINT|INTEGER|INTEGER|BIGINT|BIGINT|TINYINT|INTEGER|DOUBLE|DECIMAL(2,1)|DOUBLE|DECIMAL(10,2)|VARCHAR|DATE|TIMESTAMP|INTEGER|BIGINT"
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// TestIntervalScale checks INTERVAL × DOUBLE and INTERVAL ÷ number
// against DuckDB 1.5's answers (months, days, microseconds).
func TestIntervalScale(t *testing.T) {
	e, _ := newTestEngine(t, testutil.CheckedAllocator(t))
	for _, c := range []struct{ sql, want string }{
		{`SELECT INTERVAL '3 months 5 days 00:00:00.000007' / 2, INTERVAL '-7 days -1 hour' / 3, INTERVAL '1 year' / -5, INTERVAL '1 microsecond' / 2`,
			`{"months":1,"days":17,"nanoseconds":43200000004000}|{"months":0,"days":-2,"nanoseconds":-30000000000000}|{"months":-2,"days":-12,"nanoseconds":0}|{"months":0,"days":0,"nanoseconds":0}`},
		{`SELECT INTERVAL '1 day' * 1.5, INTERVAL '15 minutes' * CAST(2.0 AS DOUBLE), INTERVAL '1 month' * 0.5, 1.5 * INTERVAL '1 day', INTERVAL '1 month' / 2.5, INTERVAL '1 month 1 day' * 1.1`,
			`{"months":0,"days":1,"nanoseconds":43200000000000}|{"months":0,"days":0,"nanoseconds":1800000000000}|{"months":0,"days":15,"nanoseconds":0}|{"months":0,"days":1,"nanoseconds":43200000000000}|{"months":0,"days":12,"nanoseconds":0}|{"months":1,"days":4,"nanoseconds":8640000000000}`},
		{`SELECT INTERVAL '1 day' / 0, INTERVAL '1 day' / 0.0, INTERVAL '3 microseconds' / 2, INTERVAL '-3 microseconds' / 2, INTERVAL '5 microseconds' * 0.5, INTERVAL '1 microsecond' * 1.5`,
			`NULL|NULL|{"months":0,"days":0,"nanoseconds":2000}|{"months":0,"days":0,"nanoseconds":-2000}|{"months":0,"days":0,"nanoseconds":2000}|{"months":0,"days":0,"nanoseconds":2000}`},
		{`SELECT INTERVAL '2 months' / 7, INTERVAL '1 month' / 7, INTERVAL '1 month' * CAST(0.1234567891 AS DOUBLE), INTERVAL '1 day' / 7, INTERVAL '1 month' / 9, INTERVAL '11 months' / 13`,
			`{"months":0,"days":8,"nanoseconds":49371465600000}|{"months":0,"days":4,"nanoseconds":24685689600000}|{"months":0,"days":3,"nanoseconds":60800025600000}|{"months":0,"days":0,"nanoseconds":12342857143000}|{"months":0,"days":3,"nanoseconds":28799971200000}|{"months":0,"days":25,"nanoseconds":33230736000000}`},
	} {
		got := strings.Join(runQuery(t, e, c.sql), "\n")
		if got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.sql, got, c.want)
		}
	}
	for _, c := range []struct{ sql, want string }{
		{`SELECT INTERVAL '1 month' * CAST('nan' AS DOUBLE)`, "out of range"},
		{`SELECT INTERVAL '1 month' * 1e10`, "out of range"},
	} {
		_, err := tryQuery(t, e, c.sql)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err %v, want %q", c.sql, err, c.want)
		}
	}
}

// TestTimestampZoneText checks timestamp strings with a zone as DuckDB
// 1.5 (session zone UTC) reads them: TIMESTAMPTZ applies the offset,
// TIMESTAMP keeps the wall time.
func TestTimestampZoneText(t *testing.T) {
	e, _ := newTestEngine(t, testutil.CheckedAllocator(t))
	for _, c := range []struct{ sql, want string }{
		{`SELECT CAST('2024-03-05 10:11:12+02' AS TIMESTAMPTZ) = TIMESTAMP '2024-03-05 08:11:12', CAST('2024-03-05 10:11:12Z' AS TIMESTAMPTZ) = TIMESTAMP '2024-03-05 10:11:12', CAST('2024-03-05 10:11:12.5-03:30' AS TIMESTAMPTZ) = TIMESTAMP '2024-03-05 13:41:12.5'`, "true|true|true"},
		{`SELECT CAST('2024-03-05T10:11:12+0530' AS TIMESTAMPTZ) = TIMESTAMP '2024-03-05 04:41:12', CAST('2024-03-05 10:11:12+02:00:30' AS TIMESTAMPTZ) = TIMESTAMP '2024-03-05 08:10:42', CAST('2024-03-05 01:00:00+02' AS TIMESTAMPTZ) = TIMESTAMP '2024-03-04 23:00:00'`, "true|true|true"},
		{`SELECT CAST('2024-03-05 10:11:12+02' AS TIMESTAMP) = TIMESTAMP '2024-03-05 10:11:12', CAST('2024-03-05 10:11:12 UTC' AS TIMESTAMPTZ) = TIMESTAMP '2024-03-05 10:11:12', CAST('2024-03-05 10:11:12+02' AS TIMESTAMPTZ) < CAST('2024-03-05 09:11:12+00' AS TIMESTAMPTZ)`, "true|true|true"},
	} {
		got := strings.Join(runQuery(t, e, c.sql), "\n")
		if got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.sql, got, c.want)
		}
	}
	for _, sql := range []string{
		`SELECT CAST('2024-03-05 10:11:12+2' AS TIMESTAMPTZ)`,
		`SELECT CAST('2024-03-05 10:11:12 +02:00' AS TIMESTAMPTZ)`,
		`SELECT CAST('2024-03-05 10:11:12 Europe/Berlin' AS TIMESTAMPTZ)`,
		`SELECT CAST('2024-03-05 10:11:12+02:60' AS TIMESTAMPTZ)`,
	} {
		if _, err := tryQuery(t, e, sql); err == nil || !strings.Contains(err.Error(), "invalid TIMESTAMP") {
			t.Errorf("%s: err %v, want invalid TIMESTAMP", sql, err)
		}
	}
}

// TestListCompare checks list comparisons against DuckDB 1.5's answers.
func TestListCompare(t *testing.T) {
	e, _ := newTestEngine(t, testutil.CheckedAllocator(t))
	for _, c := range []struct{ sql, want string }{
		{`SELECT [1,2] = [1,2], [1,2] < [1,3], [1,2] < [1,2,0], [2] > [1,5], [1,NULL] = [1,NULL], [1,NULL] < [1,2], [1,2] < [1,NULL], [1, 2] <> [1]`,
			"true|true|true|true|true|false|true|true"},
		{`SELECT ['a','b'] < ['b'], [1,2] = NULL, ([1,2]) IS DISTINCT FROM ([1,2]), [CAST(1.5 AS DOUBLE), CAST('nan' AS DOUBLE)] = [CAST(1.5 AS DOUBLE), CAST('nan' AS DOUBLE)], [[1,2],[3]] < [[1,2],[4]]`,
			"true|NULL|false|true|true"},
		{`SELECT id FROM orders WHERE [qty, id] > [10, 1] ORDER BY id`, "2\n3\n7\n8"},
		{`SELECT [NULL] = [1], [NULL] > [1], [1, 2] IN ([1, 2], [3]), [[1, 2], [3]] < [NULL], [qty] = [NULL, 1] FROM orders WHERE id = 1`, "false|true|true|true|false"},
	} {
		got := strings.Join(runQuery(t, e, c.sql), "\n")
		if got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.sql, got, c.want)
		}
	}
}

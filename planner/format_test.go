package planner

import (
	"strings"
	"testing"

	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
)

// TestFormatPrintf checks FORMAT and PRINTF against DuckDB 1.5's answers.
func TestFormatPrintf(t *testing.T) {
	e, _ := newTestEngine(t, testutil.CheckedAllocator(t))
	for _, c := range []struct{ sql, want string }{
		{`SELECT format('{}-{}', 'a', 42), format('{} {}', 1.5, CAST(2.5 AS DOUBLE)), format('{}', NULL), format('{}', 'x', 'y'), format('{1} {0}', 'a', 'b'), format('{{}} {}', 1)`,
			"a-42|1.5 2.5|NULL|x|b a|{} 1"},
		{`SELECT format('{:d}', 42), format('{:5d}|', 42), format('{:<5}|', 'ab'), format('{:>5}|', 'ab'), format('{:^6}|', 'ab'), format('{:05d}', 42), format('{:.2f}', 3.14159), format('{:x}', 255)`,
			"42|   42||ab   ||   ab||  ab  ||00042|3.14|ff"},
		{`SELECT format('{}', CAST(1e20 AS DOUBLE)), format('{}', CAST(0.1 AS DOUBLE)), format('{}', CAST(1.0 AS DOUBLE)), format('{}', CAST(100 AS DOUBLE)), format('{}', true), format('{}', DATE '2024-01-02'), format('{}', TIMESTAMP '2024-01-02 03:04:05')`,
			"1e+20|0.1|1.0|100.0|true|2024-01-02|2024-01-02 03:04:05"},
		{`SELECT format('{}', 1.50), format(NULL, 1), format('{}', CAST(1e-7 AS DOUBLE)), format('{}', CAST(1e16 AS DOUBLE)), format('{}', CAST(1e15 AS DOUBLE)), format('{}', CAST(0.30000000000000004 AS DOUBLE)), format('{}', -CAST(0.0 AS DOUBLE))`,
			"1.5|NULL|1e-07|1e+16|1000000000000000.0|0.30000000000000004|-0.0"},
		{`SELECT format('{:e}', 1234.5), format('{:+}', 5), format('{:#x}', 255), format('{:b}', 5), format('{:.1f}', 0.25), format('{:.1f}', 0.35), format('{:.0f}', 2.5), format('{:*^7}', 'ab')`,
			"1.234500e+03|+5|0xff|101|0.2|0.3|2|**ab***"},
		{`SELECT format('{:>5}', 42), format('{:<5}|', 42), format('{:5}|', 'ab'), format('{:5}|', 42), format('{:.2}', 'abcdef'), format('{:f}', CAST(1e20 AS DOUBLE)), format('{:x}', -255), format('{:>6}', true)`,
			"   42|42   ||ab   ||   42||ab|100000000000000000000.000000|-ff|  true"},
		{`SELECT format('{}', CAST(1.5 AS FLOAT)), format('{}', CAST(0.1 AS FLOAT)), format('{}', 'é'), format('{:f}', 2.5), format('{:>8.2f}', 3.14159), format('{:08.2f}', -3.14159)`,
			"1.5|0.10000000149011612|é|2.500000|    3.14|-0003.14"},
		{`SELECT printf('%d %s', 42, 'x'), printf('%05d', 42), printf('%5.2f|', 3.14159), printf('%-5s|', 'ab'), printf('%x %X %o', 255, 255, 8), printf('%%'), printf('%s', NULL), printf('%d', NULL)`,
			"42 x|00042| 3.14||ab   ||ff FF 10|%|NULL|NULL"},
		{`SELECT printf('%.3s', 'abcdef'), printf('%+d', 5), printf('% d', 5), printf('%10.4f|', -3.5), printf(NULL, 1), printf('%5s|', 'é'), printf('%lld', CAST(5 AS BIGINT)), printf('%ld', 5), printf('%u', 5)`,
			"abc|+5| 5|   -3.5000||NULL|    é||5|5|5"},
		{`SELECT printf('%s', DATE '2024-01-02'), printf('%s', true), printf('%d', true), printf('%f', CAST(2.5 AS DECIMAL(3,1))), printf('%f', 2.5), printf('%x', -1), printf('%x', CAST(-255 AS BIGINT)), printf('%d', 9223372036854775807)`,
			"2024-01-02|true|1|2.500000|2.500000|ffffffffffffffff|ffffffffffffff01|9223372036854775807"},
		{`SELECT printf('%.3f', CAST(1e20 AS DOUBLE)), printf('%.2f', CAST(0.1 AS FLOAT)), printf('%5.1s|', 'abc'), printf('%c', 65), printf('%.2e', 1234.5), printf('%g', 1234.5), printf('%e', 12345.678), printf('%g', 0.0001), printf('%i', 7)`,
			"100000000000000000000.000|0.10|    a||A|1.23e+03|1234.5|1.234568e+04|0.0001|7"},
		{`SELECT printf('%.1f', 0.25), printf('%.1f', 0.35), printf('%.0f', 2.5), printf('%08.2f', -3.14159), printf('%5d|', -42), printf('%.2f', 1.005)`,
			"0.2|0.3|2|-0003.14|  -42||1.00"},
		{`SELECT id, format('{}: {} ({:.2f})', name, qty, price), printf('%-8s|%3d', name, qty) FROM orders ORDER BY id`,
			"1|apple: 10 (1.50)|apple   | 10\n2|banana: 20 (0.25)|banana  | 20\n3|NULL|NULL\n4|cherry: 5 (3.00)|cherry  |  5\n" +
				"5|apple: 8 (1.75)|apple   |  8\n6|Durian: 1 (9.50)|Durian  |  1\n7|banana: 30 (0.30)|banana  | 30\n8|apple: 12 (1.50)|apple   | 12"},
		{`SELECT format('{:+}', CAST(1.5 AS DOUBLE)), format('{: }', 5), format('{:#o}', 8), format('{:X}', 255), format('{:E}', 1234.5), format('{:>+6}', 5), format('{:08}', 5), format('{:+08d}', -5)`,
			"+1.5| 5|010|FF|1.234500E+03|    +5|00000005|-0000005"},
		{`SELECT printf('%5.1f|%-6.2e|', 3.14159, 1234.5), printf('%#x %#o', 255, 8), printf('%G', 0.00001234), printf('%+.3e', -0.0001234)`,
			"  3.1|1.23e+03||0xff 010|1.234E-05|-1.234e-04"},
		{`SELECT printf('%f', CAST('inf' AS DOUBLE)), format('{}', CAST('inf' AS DOUBLE)), format('{:f}', CAST('nan' AS DOUBLE)), printf('%5.1f|', CAST('inf' AS DOUBLE))`,
			"inf|inf|nan|  inf|"},
	} {
		got := strings.Join(runQuery(t, e, c.sql), "\n")
		if got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.sql, got, c.want)
		}
	}
	for _, c := range []struct{ sql, want string }{
		{`SELECT format('{} {}', 1)`, "argument index 1 is out of range"},
		{`SELECT format('{:s}', 5)`, `invalid type specifier "s" for formatting a value of type int`},
		{`SELECT format('{:d}', 2.5)`, `invalid type specifier "d"`},
		{`SELECT format('{0} {}', 1, 2)`, "cannot switch from manual to automatic"},
		{`SELECT format('{:,}', 1234567)`, "format specifier {:,} is not supported"},
		{`SELECT format('{:.3}', CAST(3.14159 AS DOUBLE))`, "not supported"},
		{`SELECT format('{', 1)`, "unmatched"},
		{`SELECT format(name, 1) FROM orders`, "constant format string"},
		{`SELECT printf('%s', 5)`, `invalid type specifier "s"`},
		{`SELECT printf('%s', 1.5)`, `invalid type specifier "s" for formatting a value of type float`},
		{`SELECT printf('%d', '5')`, `invalid type specifier "d"`},
		{`SELECT printf('%f', 2)`, `invalid type specifier "f"`},
		{`SELECT printf('%s %s', 'a')`, "argument index 1 is out of range"},
		{`SELECT printf('%-05d', 42)`, "not supported"},
		{`SELECT printf('%99999999d', 1)`, "width at most 65536"},
		{`SELECT format('{:99999999d}', 1)`, "not supported"},
		{`SELECT printf('%n', 1)`, `conversion "%n" is not supported`},
		{`SELECT printf('%*d', 1, 2)`, "not supported"},
		{`SELECT format('{}', [1, 2])`, "not supported"},
	} {
		_, err := tryQuery(t, e, c.sql)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err %v, want %q", c.sql, err, c.want)
		}
	}
}

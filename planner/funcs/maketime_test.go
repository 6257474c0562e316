package funcs

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
)

// Expected values are DuckDB 1.5's (checked by integration/sqlsuite/bi.sql).

func TestMakeTimestampAndIntervalEpoch(t *testing.T) {
	iv := func(m, d int32, ns int64) v {
		return v{T: arrow.FixedWidthTypes.MonthDayNanoInterval, X: arrow.MonthDayNanoInterval{Months: m, Days: d, Nanoseconds: ns}}
	}
	ep := func(x v, want string) tc { return tc{"date_part", []v{K(S("epoch")), x}, want, "DOUBLE"} }
	runCases(t, []tc{
		{"make_timestamp", []v{I(2024), I(1), I(2), I(3), I(4), F(5.5)}, "2024-01-02 03:04:05.5", "TIMESTAMP"},
		{"make_timestamp", []v{I(2024), I(2), I(29), I(23), I(59), F(1.000001)}, "2024-02-29 23:59:01.000001", ""},
		{"make_timestamp", []v{I(1969), I(12), I(31), I(23), I(59), F(59.5)}, "1969-12-31 23:59:59.5", ""},
		{"make_timestamp", []v{I(2024), I(12), I(31), I(24), I(0), F(0)}, "2025-01-01 00:00:00", ""},
		{"make_timestamp", []v{I(2024), I(1), I(1), I(24), I(0), F(0.5)}, "ERR:timestamp out of range", ""},
		{"make_timestamp", []v{I(2024), I(2), I(30), I(0), I(0), F(0)}, "ERR:timestamp out of range", ""},
		{"make_timestamp", []v{I(2024), I(1), I(1), I(0), I(60), F(0)}, "ERR:timestamp out of range", ""},
		{"make_timestamp", []v{I(2024), I(1), I(1), I(0), I(0), F(nan())}, "ERR:timestamp out of range", ""},
		{"make_timestamp", []v{I(2024), N(tInt64), I(1), I(0), I(0), F(0)}, "NULL", ""},
		{"make_timestamp", []v{I(1700000000123456)}, "2023-11-14 22:13:20.123456", "TIMESTAMP"},
		{"make_timestamp", []v{I(1), I(2)}, "ERR:MAKE_TIMESTAMP", ""},
		{"make_time", []v{I(13), I(14), F(15.25)}, "13:14:15.250000", "TIME"},
		{"make_time", []v{I(1), I(60), F(0)}, "ERR:time out of range", ""},
		{"make_time", []v{I(24), I(0), F(0)}, "ERR:time out of range", ""},
		ep(iv(14, 3, 7201_500_000_000), "3.70080015e+07"),
		ep(iv(-12, 0, 0), "-3.15576e+07"),
		ep(iv(0, -2, -1_250_000_000), "-172801.25"),
		ep(iv(25, -40, 0), "6.22512e+07"),
		ep(N(arrow.FixedWidthTypes.MonthDayNanoInterval), "NULL"),
	})
}

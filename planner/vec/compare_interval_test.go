package vec

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
)

func TestCompareIntervals(t *testing.T) {
	iv := func(m, d int32, ns int64) arrow.MonthDayNanoInterval {
		return arrow.MonthDayNanoInterval{Months: m, Days: d, Nanoseconds: ns}
	}
	const h = int64(3_600_000_000_000)
	for _, c := range []struct {
		a, b arrow.MonthDayNanoInterval
		want int
	}{
		{iv(1, 0, 0), iv(0, 30, 0), 0},    // 1 month = 30 days
		{iv(0, 0, 36*h), iv(0, 1, 0), 1},  // 36 hours > 1 day
		{iv(12, 0, 0), iv(0, 365, 0), -1}, // 1 year = 360 days here
		{iv(0, -1, 0), iv(0, 0, h), -1},   // -1 day < 1 hour
		{iv(0, 2, 0), iv(0, 0, 48*h), 0},  // 2 days = 48 hours
		{iv(1, -1, 0), iv(0, 29, 0), 1},   // no borrowing: months compare first (as DuckDB)
		{iv(0, 0, 720*h), iv(1, 0, 0), 0}, // 720 hours = 1 month
		{iv(0, 0, -1), iv(0, 0, 0), -1},
	} {
		if got := CompareIntervals(c.a, c.b); got != c.want {
			t.Errorf("CompareIntervals(%v, %v) = %d, want %d", c.a, c.b, got, c.want)
		}
		if got := CompareIntervals(c.b, c.a); got != -c.want {
			t.Errorf("CompareIntervals(%v, %v) = %d, want %d", c.b, c.a, got, -c.want)
		}
	}
}

func TestCompareIntervalKernel(t *testing.T) {
	m := musts(t)
	x := newTB(t)
	typ := arrow.FixedWidthTypes.MonthDayNanoInterval
	a := x.col("a", typ, `[{"months":1,"days":0,"nanoseconds":0}, {"months":0,"days":0,"nanoseconds":129600000000000}, null, {"months":0,"days":-1,"nanoseconds":0}]`)
	b := x.col("b", typ, `[{"months":0,"days":30,"nanoseconds":0}, {"months":0,"days":1,"nanoseconds":0}, {"months":0,"days":1,"nanoseconds":0}, null]`)
	x.want(m(NewCompare("=", a, b)), nil, 0, "true,false,NULL,NULL")
	x.want(m(NewCompare(">", a, b)), nil, 0, "false,true,NULL,NULL")
	x.want(m(NewCompare("<=", b, a)), nil, 0, "true,true,NULL,NULL")
	x.want(m(NewCompare("is distinct from", a, b)), nil, 0, "false,true,true,true")
	day, err := IntervalLiteral("1 day", "")
	if err != nil {
		t.Fatal(err)
	}
	x.want(m(NewCompare(">=", a, day)), nil, 0, "true,true,NULL,false")
	x.want(m(NewCompare("<", day, a)), nil, 0, "true,true,NULL,false")
}

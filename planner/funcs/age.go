package funcs

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

// AGE(a, b) is the INTERVAL from b to a in calendar fields (DuckDB's
// Interval::GetAge, PostgreSQL's age): the field-wise differences of
// year, month, day, hour, minute, second and microsecond, taken from the
// later value minus the earlier one, with negative fields borrowed from
// the next larger one (a day borrows the length of the earlier value's
// month), then negated when a < b; months = 12·years + months, the time
// fields become the interval's time part. AGE(a) is AGE(CURRENT_DATE, a)
// (the statement's date in UTC at midnight).
func init() { register("AGE", nil, bindAge) }

func bindAge(name string, args []vec.Expr) (*vec.BoundFunc, error) {
	if err := arity(name, args, 1, 2); err != nil {
		return nil, err
	}
	ts := make([]arrow.DataType, len(args))
	for i := range args {
		t, err := temporalArg(name, args, i)
		if err != nil {
			return nil, err
		}
		ts[i] = t
	}
	ival := arrow.FixedWidthTypes.MonthDayNanoInterval
	return &vec.BoundFunc{Ret: ival, ArgTypes: ts, NullOnNullInput: true,
		Kernel: func(c *vec.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
			var x, y instantReader
			if len(a) == 2 {
				x, y = instants(ts[0], a[0], n), instants(ts[1], a[1], n)
			} else {
				today := floorDiv(c.Now.Unix(), 86400)
				x = func(int) (int64, int64, int64, bool) { return today, 0, 0, true }
				y = instants(ts[0], a[0], n)
			}
			out := newFixed[arrow.MonthDayNanoInterval](c.Mem, n)
			for i := range n {
				d1, t1, _, _ := x(i)
				d2, t2, _, _ := y(i)
				out.vals[i] = ageOf(d1, t1, d2, t2)
			}
			return out.finish(ival, n, andValidity(c.Mem, n, a...)), nil
		}}, nil
}

// ageOf is AGE of (days d1, time of day t1 µs) and (d2, t2).
func ageOf(d1, t1, d2, t2 int64) arrow.MonthDayNanoInterval {
	y1, m1, dd1 := civilFromDays(d1)
	y2, m2, dd2 := civilFromDays(d2)
	f1 := [4]int64{t1 / 3_600_000_000, t1 / 60_000_000 % 60, t1 / 1_000_000 % 60, t1 % 1_000_000}
	f2 := [4]int64{t2 / 3_600_000_000, t2 / 60_000_000 % 60, t2 / 1_000_000 % 60, t2 % 1_000_000}
	yd, md, dd := y1-y2, m1-m2, dd1-dd2
	h, mi, s, us := f1[0]-f2[0], f1[1]-f2[1], f1[2]-f2[2], f1[3]-f2[3]
	less := d1 < d2 || d1 == d2 && t1 < t2
	if less {
		yd, md, dd, h, mi, s, us = -yd, -md, -dd, -h, -mi, -s, -us
	}
	for us < 0 {
		us += 1_000_000
		s--
	}
	for s < 0 {
		s += 60
		mi--
	}
	for mi < 0 {
		mi += 60
		h--
	}
	for h < 0 {
		h += 24
		dd--
	}
	for dd < 0 {
		// DuckDB borrows the length of the earlier value's month.
		if less {
			dd += daysInMonth(y1, m1)
		} else {
			dd += daysInMonth(y2, m2)
		}
		md--
	}
	for md < 0 {
		md += 12
		yd--
	}
	if less {
		yd, md, dd, h, mi, s, us = -yd, -md, -dd, -h, -mi, -s, -us
	}
	micros := ((h*60+mi)*60+s)*1_000_000 + us
	return arrow.MonthDayNanoInterval{Months: int32(yd*12 + md), Days: int32(dd), Nanoseconds: micros * 1000}
}

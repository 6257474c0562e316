package vec

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
)

// Interval comparison follows DuckDB (Interval::Normalize): an interval
// (months, days, time) is normalized by carrying whole 30-day months out of
// the days and the time and whole 24-hour days out of the time (divisions
// truncate toward zero), then compared field by field. So INTERVAL '1 month'
// = INTERVAL '30 days' and INTERVAL '36 hours' > INTERVAL '1 day'.
const nanosPerMonth = 30 * int64(nanosPerDay)

// normInterval returns the normalized (months, days, nanoseconds) of v.
func normInterval(v arrow.MonthDayNanoInterval) (int64, int64, int64) {
	months, days, ns := int64(v.Months), int64(v.Days), v.Nanoseconds
	dm := days / 30
	nm := ns / nanosPerMonth
	days -= dm * 30
	ns -= nm * nanosPerMonth
	nd := ns / nanosPerDay
	ns -= nd * nanosPerDay
	return months + dm + nm, days + nd, ns
}

// CompareIntervals is the three-way comparison of a and b (-1, 0, 1).
func CompareIntervals(a, b arrow.MonthDayNanoInterval) int {
	am, ad, an := normInterval(a)
	bm, bd, bn := normInterval(b)
	switch {
	case am != bm:
		return cmp3(am, bm)
	case ad != bd:
		return cmp3(ad, bd)
	}
	return cmp3(an, bn)
}

func cmp3(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func intervalCmp(op cmpOp, x, y operand, out []byte) {
	xs := fixedValues[arrow.MonthDayNanoInterval](x.arr)
	ys, yc := view[arrow.MonthDayNanoInterval](y)
	for i, v := range xs {
		if cmpHolds(op, CompareIntervals(v, at(ys, yc, i))) {
			bitutil.SetBit(out, i)
		}
	}
}

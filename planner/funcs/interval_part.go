package funcs

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

// EXTRACT(part FROM interval) / DATE_PART(part, interval), as DuckDB: each
// part reads one field of the (months, days, time) interval, with no
// carrying between fields (INTERVAL '36 hours' has 0 days and hour 36).
// Divisions truncate toward zero. EPOCH is DOUBLE seconds counting a year
// as 365.25 days and a month as 30 days (DuckDB's EpochOperator); the other
// parts are refused.
var intervalParts = map[string]func(months, days, nanos int64) int64{
	"year":        func(m, _, _ int64) int64 { return m / 12 },
	"month":       func(m, _, _ int64) int64 { return m % 12 },
	"quarter":     func(m, _, _ int64) int64 { return (m%12)/3 + 1 },
	"decade":      func(m, _, _ int64) int64 { return m / 120 },
	"century":     func(m, _, _ int64) int64 { return m / 1200 },
	"millennium":  func(m, _, _ int64) int64 { return m / 12000 },
	"day":         func(_, d, _ int64) int64 { return d },
	"hour":        func(_, _, ns int64) int64 { return ns / 3_600_000_000_000 },
	"minute":      func(_, _, ns int64) int64 { return ns % 3_600_000_000_000 / 60_000_000_000 },
	"second":      func(_, _, ns int64) int64 { return ns % 60_000_000_000 / 1_000_000_000 },
	"millisecond": func(_, _, ns int64) int64 { return ns % 60_000_000_000 / 1_000_000 },
	"microsecond": func(_, _, ns int64) int64 { return ns % 60_000_000_000 / 1_000 },
}

func isIntervalT(t arrow.DataType) bool { return t != nil && t.ID() == arrow.INTERVAL_MONTH_DAY_NANO }

// bindIntervalPart binds the part (a constant, already checked) of an
// INTERVAL MONTH_DAY_NANO argument.
func bindIntervalPart(name, part string, args []vec.Expr) (*vec.BoundFunc, error) {
	if part == "epoch" {
		return bindIntervalEpoch(name, args), nil
	}
	f, ok := intervalParts[part]
	if !ok {
		return nil, unsupportedf("%s: %s of an INTERVAL is not supported", name, part)
	}
	return &vec.BoundFunc{Ret: tInt64, ArgTypes: []arrow.DataType{args[0].Type(), args[1].Type()}, NullOnNullInput: true,
		Kernel: func(c *vec.Ctx, in []arrow.Array, n int) (arrow.Array, error) {
			iv, ok := in[1].(*array.MonthDayNanoInterval)
			if !ok {
				return nil, invalidf("%s: argument is %s, not an INTERVAL", name, in[1].DataType())
			}
			b := array.NewInt64Builder(c.Mem)
			defer b.Release()
			b.Reserve(n)
			for i := range n {
				if iv.IsNull(i) {
					b.AppendNull()
					continue
				}
				v := iv.Value(i)
				b.Append(f(int64(v.Months), int64(v.Days), v.Nanoseconds))
			}
			return b.NewArray(), nil
		}}, nil
}

// intervalEpoch is DuckDB's EPOCH of an interval: whole years count 365.25
// days, the remaining months 30 days each, plus the days and the time.
func intervalEpoch(v arrow.MonthDayNanoInterval) float64 {
	years := int64(v.Months) / 12
	days := 365*years + 30*(int64(v.Months)%12) + int64(v.Days)
	secs := days*86_400 + years*(86_400/4)
	return float64(secs) + float64(v.Nanoseconds/1_000)/1e6
}

func bindIntervalEpoch(name string, args []vec.Expr) *vec.BoundFunc {
	return &vec.BoundFunc{Ret: tFloat64, ArgTypes: []arrow.DataType{args[0].Type(), args[1].Type()}, NullOnNullInput: true,
		Kernel: func(c *vec.Ctx, in []arrow.Array, n int) (arrow.Array, error) {
			iv, ok := in[1].(*array.MonthDayNanoInterval)
			if !ok {
				return nil, invalidf("%s: argument is %s, not an INTERVAL", name, in[1].DataType())
			}
			b := array.NewFloat64Builder(c.Mem)
			defer b.Release()
			b.Reserve(n)
			for i := range n {
				if iv.IsNull(i) {
					b.AppendNull()
					continue
				}
				b.Append(intervalEpoch(iv.Value(i)))
			}
			return b.NewArray(), nil
		}}
}

package funcs

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

// EXTRACT(part FROM interval) / DATE_PART(part, interval), as DuckDB: each
// part reads one field of the (months, days, time) interval, with no
// carrying between fields (INTERVAL '36 hours' has 0 days and hour 36).
// Divisions truncate toward zero. EPOCH and the other parts are refused.
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

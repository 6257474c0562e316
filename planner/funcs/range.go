package funcs

import (
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

// RANGE(stop), RANGE(start, stop[, step]) and GENERATE_SERIES(...) as
// scalars return the BIGINT (or, over TIMESTAMP/DATE bounds with an
// INTERVAL step, TIMESTAMP) list the table functions of the same names
// produce as rows (DuckDB): stop excluded by RANGE, included by
// GENERATE_SERIES; start 0 and step 1 by default; NULL when an argument
// is NULL; a step of 0 (or one going away from stop) gives an empty list.
// The table functions in FROM stream; a scalar list is built whole, so
// one batch of results may hold at most maxRangeElems elements.
func init() {
	register("RANGE", nil, bindRange)
	register("GENERATE_SERIES", nil, bindRange)
}

// maxRangeElems bounds the elements of one batch of scalar range lists
// (8 bytes each).
const maxRangeElems = 1 << 24

func bindRange(name string, args []vec.Expr) (*vec.BoundFunc, error) {
	if len(args) < 1 || len(args) > 3 {
		return nil, invalidf("%s takes 1 to 3 BIGINT arguments, not %d", name, len(args))
	}
	incl := name == "GENERATE_SERIES"
	for _, a := range args[:min(2, len(args))] {
		if id := a.Type().ID(); id == arrow.TIMESTAMP || id == arrow.DATE32 {
			return bindTimeRange(name, args, incl)
		}
	}
	types := make([]arrow.DataType, len(args))
	for i, a := range args {
		if t := a.Type(); !vec.IsInteger(t) && t.ID() != arrow.NULL {
			return nil, invalidf("%s(%s) is not defined: it takes BIGINT arguments, or TIMESTAMP, TIMESTAMP, INTERVAL", name, typeNames(argTypesOf(args)))
		}
		types[i] = arrow.PrimitiveTypes.Int64
	}
	ret := listOf(arrow.PrimitiveTypes.Int64)
	return &vec.BoundFunc{Ret: ret, ArgTypes: types, NullOnNullInput: true, Kernel: func(c *vec.Ctx, as []arrow.Array, n int) (arrow.Array, error) {
		ints := make([]*array.Int64, len(as))
		for i, a := range as {
			ints[i] = a.(*array.Int64)
		}
		offs := make([]int32, n+1)
		has := make([]bool, n)
		type span struct{ start, step, count int64 }
		spans := make([]span, n)
		total := int64(0)
		for r := range n {
			null := false
			for _, a := range ints {
				null = null || a.IsNull(r)
			}
			var start, stop, step int64 = 0, 0, 1
			switch len(ints) {
			case 1:
				stop = ints[0].Value(r)
			case 2:
				start, stop = ints[0].Value(r), ints[1].Value(r)
			default:
				start, stop, step = ints[0].Value(r), ints[1].Value(r), ints[2].Value(r)
			}
			if !null {
				has[r] = true
				cnt := rangeCount(start, stop, step, incl)
				if cnt > maxRangeElems-uint64(total) {
					return nil, invalidf("%s: the lists of one batch would have more than %d elements (in FROM, %s streams its rows)", name, maxRangeElems, name)
				}
				spans[r] = span{start, step, int64(cnt)}
				total += int64(cnt)
			}
			offs[r+1] = int32(total)
		}
		b := array.NewInt64Builder(c.Mem)
		defer b.Release()
		b.Reserve(int(total))
		for _, s := range spans {
			v := s.start
			for k := int64(0); k < s.count; k++ {
				b.UnsafeAppend(v)
				v += s.step // wraps only after the last element
			}
		}
		vals := b.NewArray()
		defer vals.Release()
		return listArray(c.Mem, ret, offs, vals, has), nil
	}}, nil
}

func argTypesOf(args []vec.Expr) []arrow.DataType {
	out := make([]arrow.DataType, len(args))
	for i, a := range args {
		out[i] = a.Type()
	}
	return out
}

// rangeCount is the number of values start, start+step, ... before stop
// (through stop when incl), without overflow (saturating at 2^64 - 1);
// 0 for a zero step.
func rangeCount(start, stop, step int64, incl bool) uint64 {
	var diff, s uint64
	switch {
	case step > 0:
		if start > stop || start == stop && !incl {
			return 0
		}
		diff, s = uint64(stop)-uint64(start), uint64(step)
	case step < 0:
		if start < stop || start == stop && !incl {
			return 0
		}
		diff = uint64(start) - uint64(stop)
		s = uint64(-(step + 1)) + 1 // |step|, also for math.MinInt64
	default:
		return 0
	}
	if incl {
		return min(diff/s, math.MaxUint64-1) + 1 // 2^64 values saturate
	}
	return diff/s + min(diff%s, 1)
}

// bindTimeRange is RANGE/GENERATE_SERIES(TIMESTAMP, TIMESTAMP, INTERVAL)
// (DATE arguments are TIMESTAMPs): a TIMESTAMP list, each value the
// previous plus the interval (as the table function); a zero interval
// gives an empty list, one mixing signs is an error (DuckDB's answers).
func bindTimeRange(name string, args []vec.Expr, incl bool) (*vec.BoundFunc, error) {
	if len(args) != 3 || args[2].Type().ID() != arrow.INTERVAL_MONTH_DAY_NANO && args[2].Type().ID() != arrow.NULL {
		return nil, invalidf("%s(%s) is not defined: a TIMESTAMP range takes (TIMESTAMP, TIMESTAMP, INTERVAL)", name, typeNames(argTypesOf(args)))
	}
	for _, a := range args[:2] {
		if t, ok := a.Type().(*arrow.TimestampType); ok && t.TimeZone != "" {
			return nil, unsupportedf("%s over TIMESTAMP WITH TIME ZONE", name)
		}
	}
	ts := &arrow.TimestampType{Unit: arrow.Microsecond}
	ret := listOf(ts)
	types := []arrow.DataType{ts, ts, arrow.FixedWidthTypes.MonthDayNanoInterval}
	return &vec.BoundFunc{Ret: ret, ArgTypes: types, NullOnNullInput: true, Kernel: func(c *vec.Ctx, as []arrow.Array, n int) (arrow.Array, error) {
		start, stop := as[0].(*array.Timestamp), as[1].(*array.Timestamp)
		step := as[2].(*array.MonthDayNanoInterval)
		offs := make([]int32, n+1)
		has := make([]bool, n)
		b := array.NewTimestampBuilder(c.Mem, ts)
		defer b.Release()
		total := 0
		for r := range n {
			offs[r+1] = int32(total)
			if start.IsNull(r) || stop.IsNull(r) || step.IsNull(r) {
				continue
			}
			has[r] = true
			iv := step.Value(r)
			var neg bool
			switch {
			case iv.Months == 0 && iv.Days == 0 && iv.Nanoseconds == 0:
				continue
			case iv.Months >= 0 && iv.Days >= 0 && iv.Nanoseconds >= 0:
			case iv.Months <= 0 && iv.Days <= 0 && iv.Nanoseconds <= 0:
				neg = true
			default:
				return nil, invalidf("%s: an interval mixing positive and negative parts is not supported", name)
			}
			v, end := int64(start.Value(r)), int64(stop.Value(r))
			for neg && (v > end || incl && v == end) || !neg && (v < end || incl && v == end) {
				if total >= maxRangeElems {
					return nil, invalidf("%s: the lists of one batch would have more than %d elements (in FROM, %s streams its rows)", name, maxRangeElems, name)
				}
				b.Append(arrow.Timestamp(v))
				total++
				next, ok := vec.TimestampPlus(v, iv, arrow.Microsecond)
				if !ok {
					break
				}
				v = next
			}
			offs[r+1] = int32(total)
		}
		vals := b.NewArray()
		defer vals.Release()
		return listArray(c.Mem, ret, offs, vals, has), nil
	}}, nil
}

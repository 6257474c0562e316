package funcs

import (
	"math"
	"math/bits"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

// DATE_DIFF / DATE_SUB (DuckDB: boundaries crossed vs whole parts
// elapsed), DATE_ADD, MAKE_DATE, LAST_DAY, TO_TIMESTAMP, FROM_UNIXTIME,
// EPOCH_MS, CURRENT_DATE / CURRENT_TIMESTAMP / NOW, TO_DATE and the old
// engine's PAIMON_TODATE / PAIMON_TOTIMESTAMP (casts).

func init() {
	register("DATE_DIFF", []string{"DATEDIFF"}, bindDateDiff(false))
	register("DATE_SUB", []string{"DATESUB"}, bindDateSub)
	register("DATE_ADD", nil, bindDateAdd(false))
	register("MAKE_DATE", nil, bindMakeDate)
	register("LAST_DAY", nil, bindLastDay)
	register("TO_TIMESTAMP", nil, bindFromEpoch("UTC"))
	register("FROM_UNIXTIME", nil, bindFromEpoch(""))
	register("EPOCH_MS", nil, bindEpochMs)
	register("CURRENT_DATE", []string{"TODAY"}, bindNow(true))
	register("CURRENT_TIMESTAMP", []string{"NOW", "GET_CURRENT_TIMESTAMP"}, bindNow(false))
	register("TO_DATE", []string{"PAIMON_TODATE"}, bindToDate)
	register("PAIMON_TOTIMESTAMP", nil, bindCastTo(tTSus))
}

// instant is a DATE or TIMESTAMP read as days, micros within the day and
// micros since the epoch (ok false: beyond the microsecond range).
type instantReader func(i int) (days, tod, us int64, ok bool)

func instants(t arrow.DataType, a arrow.Array, n int) instantReader {
	if t.ID() == arrow.DATE32 {
		ds := fixedN[int32](a, n)
		return func(i int) (int64, int64, int64, bool) {
			d := int64(ds[i])
			return d, 0, d * 86_400_000_000, true
		}
	}
	sc := scaleOf(t)
	vs := fixedN[int64](a, n)
	return func(i int) (int64, int64, int64, bool) {
		d, tod := sc.split(vs[i])
		tod = (tod/sc.perSec)*1_000_000 + sc.micros(tod%sc.perSec)
		hi, lo := bits.Mul64(uint64(absI(d)), 86_400_000_000)
		if hi != 0 || lo > math.MaxInt64/2 {
			return d, tod, 0, false
		}
		return d, tod, d*86_400_000_000 + tod, true
	}
}

func absI(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

func diffArgs(name string, args []vec.Expr) (string, arrow.DataType, error) {
	if err := arity(name, args, 3, 3); err != nil {
		return "", nil, err
	}
	if err := wantString(name, args, 0); err != nil {
		return "", nil, err
	}
	ps, null, ok := constString(args[0])
	if !ok {
		return "", nil, unsupportedf("%s with a part that is not a constant (%s)", name, args[0])
	}
	t1, err := temporalArg(name, args, 1)
	if err != nil {
		return "", nil, err
	}
	t2, err := temporalArg(name, args, 2)
	if err != nil {
		return "", nil, err
	}
	t, err := vec.CommonType(t1, t2)
	if err != nil {
		return "", nil, invalidf("%s: %v", name, err)
	}
	if null {
		return "", t, nil
	}
	part, err := canonPart(name, ps)
	if err != nil {
		return "", nil, err
	}
	return part, t, nil
}

// DATE_DIFF(part, a, b): the number of part boundaries between a and b.
func bindDateDiff(elapsed bool) func(string, []vec.Expr) (*vec.BoundFunc, error) {
	return func(name string, args []vec.Expr) (*vec.BoundFunc, error) {
		part, t, err := diffArgs(name, args)
		if err != nil {
			return nil, err
		}
		at := []arrow.DataType{args[0].Type(), t, t}
		if part == "" {
			return &vec.BoundFunc{Ret: tInt64, ArgTypes: at, AlwaysNullable: true,
				Kernel: func(c *vec.Ctx, _ []arrow.Array, n int) (arrow.Array, error) { return nullArray(c.Mem, tInt64, n), nil }}, nil
		}
		f, err := diffFunc(name, part, elapsed)
		if err != nil {
			return nil, err
		}
		return &vec.BoundFunc{Ret: tInt64, ArgTypes: at, NullOnNullInput: true,
			Kernel: func(c *vec.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
				valid := andValidity(c.Mem, n, a[1], a[2])
				m := maskOf(valid)
				x, y := instants(t, a[1], n), instants(t, a[2], n)
				out := newFixed[int64](c.Mem, n)
				for i := range n {
					if !m.ok(i) {
						continue
					}
					d1, t1, u1, ok1 := x(i)
					d2, t2, u2, ok2 := y(i)
					r, ok := f(d1, t1, u1, d2, t2, u2)
					if !ok || !ok1 || !ok2 {
						out.buf.Release()
						if valid != nil {
							valid.Release()
						}
						return nil, invalidf("%s: %s difference out of range", name, part)
					}
					out.vals[i] = r
				}
				return out.finish(tInt64, n, valid), nil
			}}, nil
	}
}

type diffFn func(d1, t1, u1, d2, t2, u2 int64) (int64, bool)

func monthsOf(d int64) int64 { y, m, _ := civilFromDays(d); return y*12 + m - 1 }

func diffFunc(name, part string, elapsed bool) (diffFn, error) {
	byMicros := func(unit int64) diffFn {
		if elapsed {
			return func(_, _, u1, _, _, u2 int64) (int64, bool) { return (u2 - u1) / unit, true }
		}
		return func(_, _, u1, _, _, u2 int64) (int64, bool) { return floorDiv(u2, unit) - floorDiv(u1, unit), true }
	}
	byMonths := func(k int64) diffFn {
		if elapsed {
			return func(d1, t1, _, d2, t2, _ int64) (int64, bool) { return monthsElapsed(d1, t1, d2, t2) / k, true }
		}
		return nil
	}
	yearDiv := func(k int64) diffFn {
		return func(d1, _, _, d2, _, _ int64) (int64, bool) {
			y1, _, _ := civilFromDays(d1)
			y2, _, _ := civilFromDays(d2)
			return y2/k - y1/k, true
		}
	}
	switch part {
	case "microsecond":
		return func(_, _, u1, _, _, u2 int64) (int64, bool) { return u2 - u1, true }, nil
	case "millisecond":
		return byMicros(1000), nil
	case "second", "epoch":
		return byMicros(1_000_000), nil
	case "minute":
		return byMicros(60_000_000), nil
	case "hour":
		return byMicros(3_600_000_000), nil
	case "day", "dow", "isodow", "doy", "julian":
		if elapsed {
			return byMicros(86_400_000_000), nil
		}
		return func(d1, _, _, d2, _, _ int64) (int64, bool) { return d2 - d1, true }, nil
	case "week", "yearweek":
		if elapsed {
			return byMicros(7 * 86_400_000_000), nil
		}
		return func(d1, _, _, d2, _, _ int64) (int64, bool) { return (d2 - d1) / 7, true }, nil
	case "month", "quarter", "year", "decade", "century", "millennium":
		k := map[string]int64{"month": 1, "quarter": 3, "year": 12, "decade": 120, "century": 1200, "millennium": 12000}[part]
		if elapsed {
			return byMonths(k), nil
		}
		switch part {
		case "month":
			return func(d1, _, _, d2, _, _ int64) (int64, bool) { return monthsOf(d2) - monthsOf(d1), true }, nil
		case "quarter":
			return func(d1, _, _, d2, _, _ int64) (int64, bool) {
				return floorDiv(monthsOf(d2), 3) - floorDiv(monthsOf(d1), 3), true
			}, nil
		case "year":
			return yearDiv(1), nil
		case "decade":
			return yearDiv(10), nil
		case "century":
			return yearDiv(100), nil
		}
		return yearDiv(1000), nil
	case "isoyear":
		return func(d1, _, _, d2, _, _ int64) (int64, bool) {
			y1, _ := isoWeek(d1)
			y2, _ := isoWeek(d2)
			return y2 - y1, true
		}, nil
	}
	return nil, invalidf("%s: unsupported part %q", name, part)
}

// addMonths adds k months to a day, clamping the day of month.
func addMonths(d, k int64) int64 {
	y, m, dd := civilFromDays(d)
	tot := y*12 + m - 1 + k
	ny, nm := floorDiv(tot, 12), tot-floorDiv(tot, 12)*12+1
	return daysFromCivil(ny, nm, min(dd, daysInMonth(ny, nm)))
}

// monthsElapsed counts whole months from (d1, t1) to (d2, t2).
func monthsElapsed(d1, t1, d2, t2 int64) int64 {
	md := monthsOf(d2) - monthsOf(d1)
	c := addMonths(d1, md)
	switch {
	case md > 0 && (c > d2 || c == d2 && t1 > t2):
		md--
	case md < 0 && (c < d2 || c == d2 && t1 < t2):
		md++
	}
	return md
}

// DATE_SUB(part, a, b): whole parts elapsed (DuckDB); DATE_SUB(t,
// interval) subtracts an interval.
func bindDateSub(name string, args []vec.Expr) (*vec.BoundFunc, error) {
	if len(args) == 2 {
		return bindDateAdd(true)(name, args)
	}
	return bindDateDiff(true)(name, args)
}

// DATE_ADD(t, interval): months (day clamped to the month's end), then days,
// then the time; a DATE gives a TIMESTAMP like DuckDB.
func bindDateAdd(negate bool) func(string, []vec.Expr) (*vec.BoundFunc, error) {
	return func(name string, args []vec.Expr) (*vec.BoundFunc, error) {
		if err := arity(name, args, 2, 2); err != nil {
			return nil, err
		}
		t, err := temporalArg(name, args, 0)
		if err != nil {
			return nil, err
		}
		if it := args[1].Type(); it.ID() != arrow.INTERVAL_MONTH_DAY_NANO && !isNullT(it) {
			return nil, argTypeErr(name, 1, args[1], "INTERVAL")
		}
		rt := t
		if t.ID() == arrow.DATE32 {
			rt = tTSus
		}
		sc := scaleOf(rt)
		ival := arrow.FixedWidthTypes.MonthDayNanoInterval
		return &vec.BoundFunc{Ret: rt, ArgTypes: []arrow.DataType{t, ival}, NullOnNullInput: true,
			Kernel: func(c *vec.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
				valid := andValidity(c.Mem, n, a...)
				m := maskOf(valid)
				var dates []int32
				var tss []int64
				if t.ID() == arrow.DATE32 {
					dates = fixedN[int32](a[0], n)
				} else {
					tss = fixedN[int64](a[0], n)
				}
				iv := fixedN[arrow.MonthDayNanoInterval](a[1], n)
				out := newFixed[int64](c.Mem, n)
				for i := range n {
					if !m.ok(i) {
						continue
					}
					var d, v int64
					ok := true
					if dates != nil {
						d = int64(dates[i])
						v, ok = daysToTS(d, sc)
					} else {
						v = tss[i]
						d, _ = sc.split(v)
					}
					mo, dd, ns := int64(iv[i].Months), int64(iv[i].Days), iv[i].Nanoseconds
					if negate {
						mo, dd, ns = -mo, -dd, -ns
					}
					shift, ok2 := daysToTS(addMonths(d, mo)+dd-d, sc)
					r := v
					if ok && ok2 {
						r, ok = addChecked(v, shift)
					} else {
						ok = false
					}
					if ok {
						r, ok = addChecked(r, ns/(1_000_000_000/sc.perSec))
					}
					if !ok {
						out.buf.Release()
						if valid != nil {
							valid.Release()
						}
						return nil, invalidf("%s: result out of the TIMESTAMP range", name)
					}
					out.vals[i] = r
				}
				return out.finish(rt, n, valid), nil
			}}, nil
	}
}

func addChecked(a, b int64) (int64, bool) {
	s := a + b
	return s, (b >= 0) == (s >= a)
}

// MAKE_DATE(y, m, d): an invalid date is an error.
func bindMakeDate(name string, args []vec.Expr) (*vec.BoundFunc, error) {
	if err := arity(name, args, 3, 3); err != nil {
		return nil, err
	}
	if err := wantInt(name, args, 0, 1, 2); err != nil {
		return nil, err
	}
	return &vec.BoundFunc{Ret: tDate, ArgTypes: types(tInt64, 3), NullOnNullInput: true,
		Kernel: func(c *vec.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
			valid := andValidity(c.Mem, n, a...)
			m := maskOf(valid)
			y, mo, d := fixedN[int64](a[0], n), fixedN[int64](a[1], n), fixedN[int64](a[2], n)
			out := newFixed[int32](c.Mem, n)
			for i := range n {
				if !m.ok(i) {
					continue
				}
				if mo[i] < 1 || mo[i] > 12 || y[i] < -5_000_000 || y[i] > 5_000_000 || d[i] < 1 || d[i] > daysInMonth(y[i], mo[i]) {
					out.buf.Release()
					if valid != nil {
						valid.Release()
					}
					return nil, invalidf("%s: date out of range: %d-%d-%d", name, y[i], mo[i], d[i])
				}
				out.vals[i] = int32(daysFromCivil(y[i], mo[i], d[i]))
			}
			return out.finish(tDate, n, valid), nil
		}}, nil
}

// LAST_DAY(t): the last day of t's month (DATE).
func bindLastDay(name string, args []vec.Expr) (*vec.BoundFunc, error) {
	if err := arity(name, args, 1, 1); err != nil {
		return nil, err
	}
	t, err := temporalArg(name, args, 0)
	if err != nil {
		return nil, err
	}
	return &vec.BoundFunc{Ret: tDate, ArgTypes: []arrow.DataType{t}, NullOnNullInput: true,
		Kernel: func(c *vec.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
			x := instants(t, a[0], n)
			out := newFixed[int32](c.Mem, n)
			for i := range n {
				d, _, _, _ := x(i)
				y, m, _ := civilFromDays(d)
				out.vals[i] = int32(daysFromCivil(y, m, daysInMonth(y, m)))
			}
			return out.finish(tDate, n, andValidity(c.Mem, n, a[0])), nil
		}}, nil
}

// TO_TIMESTAMP(seconds) (TIMESTAMP zone UTC, DuckDB's TIMESTAMPTZ) and
// FROM_UNIXTIME(seconds) (TIMESTAMP): fractional seconds kept to the
// microsecond; out of range is an error.
func bindFromEpoch(tz string) func(string, []vec.Expr) (*vec.BoundFunc, error) {
	rt := &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: tz}
	return func(name string, args []vec.Expr) (*vec.BoundFunc, error) {
		if err := arity(name, args, 1, 1); err != nil {
			return nil, err
		}
		if _, err := numArgType(name, args, 0, tFloat64); err != nil {
			return nil, err
		}
		return &vec.BoundFunc{Ret: rt, ArgTypes: []arrow.DataType{tFloat64}, NullOnNullInput: true,
			Kernel: func(c *vec.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
				return mapNum(c.Mem, a[0], n, rt, func(s float64) (int64, error) {
					us := math.Round(s * 1e6)
					if math.IsNaN(us) || us >= math.MaxInt64 || us <= math.MinInt64 {
						return 0, invalidf("%s: %v seconds is out of the TIMESTAMP range", name, s)
					}
					return int64(us), nil
				})
			}}, nil
	}
}

// EPOCH_MS(t): milliseconds since the epoch (BIGINT).
func bindEpochMs(name string, args []vec.Expr) (*vec.BoundFunc, error) {
	if err := arity(name, args, 1, 1); err != nil {
		return nil, err
	}
	t, err := temporalArg(name, args, 0)
	if err != nil {
		return nil, err
	}
	return &vec.BoundFunc{Ret: tInt64, ArgTypes: []arrow.DataType{t}, NullOnNullInput: true,
		Kernel: func(c *vec.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
			x := instants(t, a[0], n)
			out := newFixed[int64](c.Mem, n)
			for i := range n {
				d, tod, _, _ := x(i)
				out.vals[i] = d*86_400_000 + floorDiv(tod, 1000)
			}
			return out.finish(tInt64, n, andValidity(c.Mem, n, a[0])), nil
		}}, nil
}

// CURRENT_DATE / CURRENT_TIMESTAMP / NOW: the statement time vec.Ctx.Now
// (UTC), the same for every row.
func bindNow(date bool) func(string, []vec.Expr) (*vec.BoundFunc, error) {
	rt := arrow.DataType(&arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"})
	if date {
		rt = tDate
	}
	return func(name string, args []vec.Expr) (*vec.BoundFunc, error) {
		if err := arity(name, args, 0, 0); err != nil {
			return nil, err
		}
		return &vec.BoundFunc{Ret: rt, ArgTypes: []arrow.DataType{},
			Kernel: func(c *vec.Ctx, _ []arrow.Array, n int) (arrow.Array, error) {
				if c.Now.IsZero() {
					return nil, invalidf("%s: the statement time is not set", name)
				}
				if date {
					out := newFixed[int32](c.Mem, n)
					d := int32(floorDiv(c.Now.Unix(), 86400))
					for i := range out.vals {
						out.vals[i] = d
					}
					return out.finish(rt, n, nil), nil
				}
				out := newFixed[int64](c.Mem, n)
				us := c.Now.UnixMicro()
				for i := range out.vals {
					out.vals[i] = us
				}
				return out.finish(rt, n, nil), nil
			}}, nil
	}
}

// bindCastTo is CAST(x AS t) as a function (the old engine's
// PAIMON_TODATE, PAIMON_TOTIMESTAMP).
func bindCastTo(t arrow.DataType) func(string, []vec.Expr) (*vec.BoundFunc, error) {
	return func(name string, args []vec.Expr) (*vec.BoundFunc, error) {
		if err := arity(name, args, 1, 1); err != nil {
			return nil, err
		}
		from := args[0].Type()
		if !isStrT(from) && !isNullT(from) && from.ID() != arrow.DATE32 && !isTST(from) {
			return nil, argTypeErr(name, 0, args[0], "VARCHAR, DATE or TIMESTAMP")
		}
		if isStrT(from) {
			from = tString
		}
		return &vec.BoundFunc{Ret: t, ArgTypes: []arrow.DataType{from}, NullOnNullInput: true,
			Kernel: func(c *vec.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
				return vec.CastArray(c.Mem, a[0], t)
			}}, nil
	}
}

// TO_DATE(x) is CAST(x AS DATE); TO_DATE(s, format) parses with a
// strptime format.
func bindToDate(name string, args []vec.Expr) (*vec.BoundFunc, error) {
	if err := arity(name, args, 1, 2); err != nil {
		return nil, err
	}
	if len(args) == 1 {
		return bindCastTo(tDate)(name, args)
	}
	return bindStrptime(name, args, tDate)
}

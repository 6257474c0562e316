package funcs

import (
	"math"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

// Date parts: DATE_PART / DATEPART / EXTRACT (PAIMON_EXTRACT) and the
// one-part functions (YEAR, MONTH, ..., PAIMON_YEAR, ...), DATE_TRUNC.
// DuckDB's parts: millisecond and microsecond include the seconds
// (12.345678 s -> 12345 ms), dow is 0 = Sunday, isodow 1 = Monday, week is
// the ISO week, epoch is DOUBLE seconds (also for DATE), julian is DOUBLE.

func floorDiv(a, b int64) int64 { return vec.FloorDiv(a, b) }

func daysFromCivil(y, m, d int64) int64 { return vec.DaysFromCivil(y, m, d) }

func civilFromDays(z int64) (y, m, d int64) { return vec.CivilFromDays(z) }

func isLeap(y int64) bool { return y%4 == 0 && (y%100 != 0 || y%400 == 0) }

func daysInMonth(y, m int64) int64 { return vec.DaysInMonth(y, m) }

// weekday: 0 = Sunday (1970-01-01 was a Thursday).
func weekday(days int64) int64 { return floorDiv(days+4, 7)*-7 + days + 4 }

// isoWeek returns the ISO year and week of a day.
func isoWeek(days int64) (year, week int64) {
	wd := (weekday(days) + 6) % 7 // 0 = Monday
	thu := days - wd + 3          // the Thursday of this ISO week
	y, _, _ := civilFromDays(thu)
	jan1 := daysFromCivil(y, 1, 1)
	return y, (thu-jan1)/7 + 1
}

// tsScale is a timestamp unit: values per second and per day.
type tsScale struct{ perSec, perDay int64 }

func scaleOf(t arrow.DataType) tsScale {
	var ps int64 = 1_000_000
	if tt, ok := t.(*arrow.TimestampType); ok {
		switch tt.Unit {
		case arrow.Second:
			ps = 1
		case arrow.Millisecond:
			ps = 1000
		case arrow.Nanosecond:
			ps = 1_000_000_000
		}
	}
	return tsScale{ps, ps * 86400}
}

// split breaks a timestamp into days and the value within the day.
func (s tsScale) split(v int64) (days, tod int64) {
	days = floorDiv(v, s.perDay)
	return days, v - days*s.perDay
}

// micros converts a value within a second to microseconds.
func (s tsScale) micros(frac int64) int64 {
	switch s.perSec {
	case 1:
		return 0
	case 1000:
		return frac * 1000
	case 1_000_000_000:
		return frac / 1000
	}
	return frac
}

// temporalArg checks a DATE or TIMESTAMP argument; a constant string is
// read as a TIMESTAMP. It returns the type the kernel reads.
func temporalArg(name string, args []vec.Expr, i int) (arrow.DataType, error) {
	t := args[i].Type()
	switch {
	case t.ID() == arrow.DATE32:
		return tDate, nil
	case isTST(t):
		if tz := t.(*arrow.TimestampType).TimeZone; tz != "" && !strings.EqualFold(tz, "UTC") {
			return nil, unsupportedf("%s: TIMESTAMP with time zone %q (only UTC)", name, tz)
		}
		return t, nil
	case isNullT(t):
		return tDate, nil
	}
	if _, ok := vec.IsConst(args[i]); ok && isStrT(t) {
		return tTSus, nil
	}
	return nil, argTypeErr(name, i, args[i], "DATE or TIMESTAMP")
}

// datePart is one part extractor over (days, time of day in micros).
type datePart struct {
	double bool // DOUBLE result (epoch, julian)
	f      func(days, us int64) int64
	fd     func(days, us int64) float64
}

var partAliases = map[string]string{}

func init() {
	for canon, names := range map[string][]string{
		"year":        {"years", "y", "yr", "yrs"},
		"month":       {"months", "mon", "mons"},
		"day":         {"days", "d", "dayofmonth"},
		"decade":      {"decades", "dec", "decs"},
		"century":     {"centuries", "c", "cent", "cents"},
		"millennium":  {"millennia", "millenium", "mil", "mils"},
		"microsecond": {"microseconds", "us", "usec", "usecs", "usecond", "useconds"},
		"millisecond": {"milliseconds", "ms", "msec", "msecs", "msecond", "mseconds"},
		"second":      {"seconds", "s", "sec", "secs"},
		"minute":      {"minutes", "m", "min", "mins"},
		"hour":        {"hours", "h", "hr", "hrs"},
		"week":        {"weeks", "w", "weekofyear"},
		"dow":         {"dayofweek", "weekday"},
		"doy":         {"dayofyear"},
		"quarter":     {"quarters"},
		"isodow":      nil, "isoyear": nil, "yearweek": nil, "epoch": nil, "era": nil, "julian": nil,
		"timezone": nil, "timezone_hour": nil, "timezone_minute": nil,
	} {
		partAliases[canon] = canon
		for _, n := range names {
			partAliases[n] = canon
		}
	}
}

// canonPart resolves a part name (any case, DuckDB's abbreviations).
func canonPart(name, p string) (string, error) {
	c, ok := partAliases[strings.ToLower(strings.TrimSpace(p))]
	if !ok {
		return "", invalidf("%s: unknown date part %q", name, p)
	}
	return c, nil
}

func ymd(days int64) (int64, int64, int64) { return civilFromDays(days) }

func truncDiv(a, b int64) int64 { return a / b }

var dateParts = map[string]datePart{
	"year":    {f: func(d, _ int64) int64 { y, _, _ := ymd(d); return y }},
	"month":   {f: func(d, _ int64) int64 { _, m, _ := ymd(d); return m }},
	"day":     {f: func(d, _ int64) int64 { _, _, dd := ymd(d); return dd }},
	"quarter": {f: func(d, _ int64) int64 { _, m, _ := ymd(d); return (m-1)/3 + 1 }},
	"decade":  {f: func(d, _ int64) int64 { y, _, _ := ymd(d); return truncDiv(y, 10) }},
	"century": {f: func(d, _ int64) int64 {
		y, _, _ := ymd(d)
		if y > 0 {
			return (y-1)/100 + 1
		}
		return y/100 - 1
	}},
	"millennium": {f: func(d, _ int64) int64 {
		y, _, _ := ymd(d)
		if y > 0 {
			return (y-1)/1000 + 1
		}
		return y/1000 - 1
	}},
	"era": {f: func(d, _ int64) int64 {
		if y, _, _ := ymd(d); y > 0 {
			return 1
		}
		return 0
	}},
	"dow":      {f: func(d, _ int64) int64 { return weekday(d) }},
	"isodow":   {f: func(d, _ int64) int64 { return (weekday(d)+6)%7 + 1 }},
	"doy":      {f: func(d, _ int64) int64 { y, _, _ := ymd(d); return d - daysFromCivil(y, 1, 1) + 1 }},
	"week":     {f: func(d, _ int64) int64 { _, w := isoWeek(d); return w }},
	"isoyear":  {f: func(d, _ int64) int64 { y, _ := isoWeek(d); return y }},
	"yearweek": {f: func(d, _ int64) int64 { y, w := isoWeek(d); return y*100 + w }},
	"hour":     {f: func(_, us int64) int64 { return us / 3_600_000_000 }},
	"minute":   {f: func(_, us int64) int64 { return us / 60_000_000 % 60 }},
	"second":   {f: func(_, us int64) int64 { return us / 1_000_000 % 60 }},
	"millisecond": {f: func(_, us int64) int64 {
		return us % 60_000_000 / 1000
	}},
	"microsecond":     {f: func(_, us int64) int64 { return us % 60_000_000 }},
	"timezone":        {f: func(_, _ int64) int64 { return 0 }},
	"timezone_hour":   {f: func(_, _ int64) int64 { return 0 }},
	"timezone_minute": {f: func(_, _ int64) int64 { return 0 }},
	"epoch": {double: true, fd: func(d, us int64) float64 {
		return float64(d)*86400 + float64(us)/1e6
	}},
	"julian": {double: true, fd: func(d, us int64) float64 {
		return float64(d+2440588) + float64(us)/86400e6
	}},
}

// partKernel evaluates a part over a DATE or TIMESTAMP array.
func partKernel(p datePart, t arrow.DataType) vec.Kernel {
	rt := arrow.DataType(tInt64)
	if p.double {
		rt = tFloat64
	}
	return func(c *vec.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
		src := a[len(a)-1]
		valid := andValidity(c.Mem, n, src)
		if p.double {
			out := newFixed[float64](c.Mem, n)
			if t.ID() == arrow.DATE32 {
				for i, d := range fixedN[int32](src, n) {
					out.vals[i] = p.fd(int64(d), 0)
				}
			} else {
				sc := scaleOf(t)
				for i, v := range fixedN[int64](src, n) {
					d, tod := sc.split(v)
					out.vals[i] = p.fd(d, (tod/sc.perSec)*1_000_000+sc.micros(tod%sc.perSec))
				}
			}
			return out.finish(rt, n, valid), nil
		}
		out := newFixed[int64](c.Mem, n)
		if t.ID() == arrow.DATE32 {
			for i, d := range fixedN[int32](src, n) {
				out.vals[i] = p.f(int64(d), 0)
			}
		} else {
			sc := scaleOf(t)
			for i, v := range fixedN[int64](src, n) {
				d, tod := sc.split(v)
				out.vals[i] = p.f(d, (tod/sc.perSec)*1_000_000+sc.micros(tod%sc.perSec))
			}
		}
		return out.finish(rt, n, valid), nil
	}
}

// bindPartOf binds a fixed part (YEAR(t), ...).
func bindPartOf(part string) func(string, []vec.Expr) (*vec.BoundFunc, error) {
	return func(name string, args []vec.Expr) (*vec.BoundFunc, error) {
		if err := arity(name, args, 1, 1); err != nil {
			return nil, err
		}
		t, err := temporalArg(name, args, 0)
		if err != nil {
			return nil, err
		}
		p := dateParts[part]
		rt := arrow.DataType(tInt64)
		if p.double {
			rt = tFloat64
		}
		return &vec.BoundFunc{Ret: rt, ArgTypes: []arrow.DataType{t}, NullOnNullInput: true, Kernel: partKernel(p, t)}, nil
	}
}

// DATE_PART(part, t): part must be a constant string.
func bindDatePart(name string, args []vec.Expr) (*vec.BoundFunc, error) {
	if err := arity(name, args, 2, 2); err != nil {
		return nil, err
	}
	if err := wantString(name, args, 0); err != nil {
		return nil, err
	}
	if isIntervalT(args[1].Type()) {
		ps, null, ok := constString(args[0])
		if !ok || null {
			return nil, unsupportedf("%s of an INTERVAL with a part that is not a constant (%s)", name, args[0])
		}
		part, err := canonPart(name, ps)
		if err != nil {
			return nil, err
		}
		return bindIntervalPart(name, part, args)
	}
	t, err := temporalArg(name, args, 1)
	if err != nil {
		return nil, err
	}
	ps, null, ok := constString(args[0])
	if !ok {
		return nil, unsupportedf("%s with a part that is not a constant (%s)", name, args[0])
	}
	if null {
		return &vec.BoundFunc{Ret: tInt64, ArgTypes: []arrow.DataType{args[0].Type(), t}, AlwaysNullable: true,
			Kernel: func(c *vec.Ctx, _ []arrow.Array, n int) (arrow.Array, error) { return nullArray(c.Mem, tInt64, n), nil }}, nil
	}
	part, err := canonPart(name, ps)
	if err != nil {
		return nil, err
	}
	p := dateParts[part]
	rt := arrow.DataType(tInt64)
	if p.double {
		rt = tFloat64
	}
	return &vec.BoundFunc{Ret: rt, ArgTypes: []arrow.DataType{args[0].Type(), t}, NullOnNullInput: true, Kernel: partKernel(p, t)}, nil
}

func init() {
	register("DATE_PART", []string{"DATEPART", "EXTRACT", "PAIMON_EXTRACT"}, bindDatePart)
	for _, f := range []struct {
		name, part string
		aliases    []string
	}{
		{"YEAR", "year", []string{"PAIMON_YEAR"}},
		{"QUARTER", "quarter", []string{"PAIMON_QUARTER"}},
		{"MONTH", "month", []string{"PAIMON_MONTH"}},
		{"DAY", "day", []string{"DAYOFMONTH", "PAIMON_DAY"}},
		{"HOUR", "hour", []string{"PAIMON_HOUR"}},
		{"MINUTE", "minute", []string{"PAIMON_MINUTE"}},
		{"SECOND", "second", []string{"PAIMON_SECOND"}},
		{"MILLISECOND", "millisecond", nil},
		{"MICROSECOND", "microsecond", nil},
		{"DAYOFWEEK", "dow", []string{"WEEKDAY"}},
		{"ISODOW", "isodow", nil},
		{"DAYOFYEAR", "doy", nil},
		{"WEEK", "week", []string{"WEEKOFYEAR"}},
		{"YEARWEEK", "yearweek", nil},
		{"ISOYEAR", "isoyear", nil},
		{"DECADE", "decade", nil},
		{"CENTURY", "century", nil},
		{"MILLENNIUM", "millennium", nil},
		{"ERA", "era", nil},
		{"EPOCH", "epoch", nil},
	} {
		register(f.name, f.aliases, bindPartOf(f.part))
	}
	register("DATE_TRUNC", []string{"DATETRUNC"}, bindDateTrunc)
}

// truncDays truncates a day number to the start of a calendar part.
func truncDays(part string, d int64) int64 {
	y, m, _ := civilFromDays(d)
	switch part {
	case "millennium":
		return daysFromCivil(floorDiv(y, 1000)*1000, 1, 1)
	case "century":
		return daysFromCivil(floorDiv(y, 100)*100, 1, 1)
	case "decade":
		return daysFromCivil(floorDiv(y, 10)*10, 1, 1)
	case "year":
		return daysFromCivil(y, 1, 1)
	case "quarter":
		return daysFromCivil(y, (m-1)/3*3+1, 1)
	case "month":
		return daysFromCivil(y, m, 1)
	case "week":
		return d - (weekday(d)+6)%7
	case "isoyear":
		iy, _ := isoWeek(d)
		jan4 := daysFromCivil(iy, 1, 4)
		return jan4 - (weekday(jan4)+6)%7
	}
	return d // day
}

// DATE_TRUNC(part, t): part is a constant string; the result is a
// TIMESTAMP (microseconds for a DATE argument, the argument's type for a
// TIMESTAMP), as in DuckDB 1.5.
func bindDateTrunc(name string, args []vec.Expr) (*vec.BoundFunc, error) {
	if err := arity(name, args, 2, 2); err != nil {
		return nil, err
	}
	if err := wantString(name, args, 0); err != nil {
		return nil, err
	}
	t, err := temporalArg(name, args, 1)
	if err != nil {
		return nil, err
	}
	rt := t
	if t.ID() == arrow.DATE32 {
		rt = tTSus
	}
	ps, null, ok := constString(args[0])
	if !ok {
		return nil, unsupportedf("%s with a part that is not a constant (%s)", name, args[0])
	}
	at := []arrow.DataType{args[0].Type(), t}
	if null {
		return &vec.BoundFunc{Ret: rt, ArgTypes: at, AlwaysNullable: true,
			Kernel: func(c *vec.Ctx, _ []arrow.Array, n int) (arrow.Array, error) { return nullArray(c.Mem, rt, n), nil }}, nil
	}
	part, err := canonPart(name, ps)
	if err != nil {
		return nil, err
	}
	switch part {
	case "dow", "isodow", "doy", "julian":
		part = "day"
	case "yearweek":
		part = "week"
	case "epoch":
		part = "second"
	case "era", "timezone", "timezone_hour", "timezone_minute":
		return nil, invalidf("%s: cannot truncate to %q", name, ps)
	}
	sc := scaleOf(rt)
	var unit int64 // sub-day truncation step in rt's unit (0: calendar part)
	switch part {
	case "hour":
		unit = 3600 * sc.perSec
	case "minute":
		unit = 60 * sc.perSec
	case "second":
		unit = sc.perSec
	case "millisecond":
		unit = max(sc.perSec/1000, 1)
	case "microsecond":
		unit = max(sc.perSec/1_000_000, 1)
	}
	return &vec.BoundFunc{Ret: rt, ArgTypes: at, NullOnNullInput: true,
		Kernel: func(c *vec.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
			src := a[1]
			valid := andValidity(c.Mem, n, src)
			out := newFixed[int64](c.Mem, n)
			if t.ID() == arrow.DATE32 {
				m := maskOf(valid)
				for i, d := range fixedN[int32](src, n) {
					if !m.ok(i) {
						continue
					}
					dd := int64(d)
					if unit == 0 {
						dd = truncDays(part, dd)
					}
					v, ok := daysToTS(dd, sc)
					if !ok {
						out.buf.Release()
						if valid != nil {
							valid.Release()
						}
						return nil, invalidf("%s: DATE %d days from 1970 is outside the TIMESTAMP range", name, d)
					}
					out.vals[i] = v
				}
				return out.finish(rt, n, valid), nil
			}
			in := fixedN[int64](src, n)
			if unit > 0 {
				for i, v := range in {
					r := (v%unit + unit) % unit
					if v < math.MinInt64+r {
						out.buf.Release()
						if valid != nil {
							valid.Release()
						}
						return nil, invalidf("%s: TIMESTAMP out of range", name)
					}
					out.vals[i] = v - r
				}
				return out.finish(rt, n, valid), nil
			}
			m := maskOf(valid)
			for i, v := range in {
				if !m.ok(i) {
					continue
				}
				d, _ := sc.split(v)
				r, ok := daysToTS(truncDays(part, d), sc)
				if !ok {
					out.buf.Release()
					if valid != nil {
						valid.Release()
					}
					return nil, invalidf("%s: TIMESTAMP out of range", name)
				}
				out.vals[i] = r
			}
			return out.finish(rt, n, valid), nil
		}}, nil
}

// daysToTS converts a day number to a timestamp of scale sc (false: out of
// range).
func daysToTS(d int64, sc tsScale) (int64, bool) {
	lim := math.MaxInt64 / sc.perDay
	if d > lim || d < -lim {
		return 0, false
	}
	return d * sc.perDay, true
}

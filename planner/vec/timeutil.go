package vec

import (
	"math"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Calendar arithmetic (proleptic Gregorian, days since 1970-01-01), parsing
// and formatting of DATE, TIMESTAMP, TIME and INTERVAL values.

const nanosPerDay = 86400 * 1e9

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// daysFromCivil is Howard Hinnant's algorithm.
func daysFromCivil(y, m, d int64) int64 {
	if m <= 2 {
		y--
	}
	era := floorDiv(y, 400)
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

func civilFromDays(z int64) (y, m, d int64) {
	z += 719468
	era := floorDiv(z, 146097)
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	y = yoe + era*400
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d = doy - (153*mp+2)/5 + 1
	if mp < 10 {
		m = mp + 3
	} else {
		m = mp - 9
	}
	if m <= 2 {
		y++
	}
	return
}

func isLeap(y int64) bool { return y%4 == 0 && (y%100 != 0 || y%400 == 0) }

func daysIn(y, m int64) int64 {
	switch m {
	case 2:
		if isLeap(y) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// addMonths adds months to a day number, clamping the day of month
// (2024-01-31 + 1 month = 2024-02-29).
func addMonths(days int64, months int64) int64 {
	if months == 0 {
		return days
	}
	y, m, d := civilFromDays(days)
	t := y*12 + (m - 1) + months
	y, m = floorDiv(t, 12), t-floorDiv(t, 12)*12+1
	d = min(d, daysIn(y, m))
	return daysFromCivil(y, m, d)
}

func unitsPerSec(u arrow.TimeUnit) int64 {
	switch u {
	case arrow.Second:
		return 1
	case arrow.Millisecond:
		return 1e3
	case arrow.Microsecond:
		return 1e6
	}
	return 1e9
}

func unitsPerDay(u arrow.TimeUnit) int64 { return 86400 * unitsPerSec(u) }

func digits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// parseDateText parses YYYY-MM-DD (year of 1 to 6 digits, optionally
// negative; month and day of 1 or 2 digits) into a day number.
func parseDateText(s string) (int64, bool) {
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	ys, rest, ok1 := strings.Cut(s, "-")
	ms, ds, ok2 := strings.Cut(rest, "-")
	if !ok1 || !ok2 || !digits(ys) || !digits(ms) || !digits(ds) || len(ys) > 6 || len(ms) > 2 || len(ds) > 2 {
		return 0, false
	}
	y, _ := strconv.ParseInt(ys, 10, 64)
	m, _ := strconv.ParseInt(ms, 10, 64)
	d, _ := strconv.ParseInt(ds, 10, 64)
	if neg {
		y = -y
	}
	if m < 1 || m > 12 || d < 1 || d > daysIn(y, m) {
		return 0, false
	}
	return daysFromCivil(y, m, d), true
}

// parseDate parses a DATE string (spaces trimmed).
func parseDate(s string) (int32, error) {
	d, ok := parseDateText(strings.TrimSpace(s))
	if !ok || d < math.MinInt32 || d > math.MaxInt32 {
		return 0, invalidf("invalid DATE %q (want YYYY-MM-DD)", s)
	}
	return int32(d), nil
}

// parseClock parses HH:MM[:SS[.fffffffff]] into nanoseconds of day and the
// number of fractional digits.
func parseClock(s string) (int64, int, bool) {
	hs, rest, ok := strings.Cut(s, ":")
	if !ok || !digits(hs) || len(hs) > 2 {
		return 0, 0, false
	}
	ms, ss, hasSec := strings.Cut(rest, ":")
	if !digits(ms) || len(ms) != 2 {
		return 0, 0, false
	}
	h, _ := strconv.ParseInt(hs, 10, 64)
	m, _ := strconv.ParseInt(ms, 10, 64)
	var sec, frac int64
	fd := 0
	if hasSec {
		is, fs, hasFrac := strings.Cut(ss, ".")
		if !digits(is) || len(is) != 2 {
			return 0, 0, false
		}
		sec, _ = strconv.ParseInt(is, 10, 64)
		if hasFrac {
			if !digits(fs) || len(fs) > 9 {
				return 0, 0, false
			}
			fd = len(fs)
			frac, _ = strconv.ParseInt(fs+strings.Repeat("0", 9-len(fs)), 10, 64)
		}
	}
	if h > 24 || m > 59 || sec > 59 || h == 24 && (m != 0 || sec != 0 || frac != 0) {
		return 0, 0, false
	}
	return ((h*60+m)*60+sec)*1e9 + frac, fd, true
}

// parseTimestampText parses YYYY-MM-DD[( |T)HH:MM[:SS[.f]]] with an
// optional zone (Z, UTC, ±HH, ±HHMM, ±HH:MM, ±HH:MM:SS; see tzOffset)
// into days and nanoseconds of day (wall time, the zone not applied), and
// the count of fractional digits.
func parseTimestampText(s string) (days, nod int64, fd int, ok bool) {
	days, nod, fd, _, ok = parseTimestampZone(s)
	return days, nod, fd, ok
}

// parseTimestampZone is parseTimestampText that also returns the zone's
// offset from UTC in seconds (0 without a zone).
func parseTimestampZone(s string) (days, nod int64, fd int, off int64, ok bool) {
	s = strings.TrimSpace(s)
	dpart, tpart := s, ""
	if i := strings.IndexAny(s, " T"); i >= 0 {
		dpart, tpart = s[:i], strings.TrimSpace(s[i+1:])
	}
	days, ok = parseDateText(dpart)
	if !ok {
		return 0, 0, 0, 0, false
	}
	if tpart == "" {
		return days, 0, 0, 0, true
	}
	tpart, off, ok = tzOffset(tpart)
	if !ok {
		return 0, 0, 0, 0, false
	}
	nod, fd, ok = parseClock(tpart)
	return days, nod, fd, off, ok
}

// tzOffset cuts a zone off the clock text: Z, UTC (also after a space), or
// a sign and HH, HHMM, HH:MM or HH:MM:SS right after the clock (DuckDB's
// forms). It returns the clock and the offset east of UTC in seconds.
func tzOffset(t string) (string, int64, bool) {
	for _, z := range []string{" UTC", "UTC", "Z"} {
		if strings.HasSuffix(t, z) {
			return strings.TrimSpace(strings.TrimSuffix(t, z)), 0, true
		}
	}
	i := strings.LastIndexAny(t, "+-")
	if i < 0 {
		return t, 0, true
	}
	clock, z := t[:i], t[i+1:]
	if strings.HasSuffix(clock, " ") {
		return t, 0, false
	}
	var h, m, sec string
	switch {
	case len(z) == 2:
		h = z
	case len(z) == 4 && digits(z):
		h, m = z[:2], z[2:]
	case len(z) == 5 && z[2] == ':':
		h, m = z[:2], z[3:]
	case len(z) == 8 && z[2] == ':' && z[5] == ':':
		h, m, sec = z[:2], z[3:5], z[6:]
	default:
		return t, 0, false
	}
	if m == "" {
		m = "00"
	}
	if sec == "" {
		sec = "00"
	}
	if !digits(h) || !digits(m) || !digits(sec) {
		return t, 0, false
	}
	hv, _ := strconv.ParseInt(h, 10, 64)
	mv, _ := strconv.ParseInt(m, 10, 64)
	sv, _ := strconv.ParseInt(sec, 10, 64)
	if mv > 59 || sv > 59 {
		return t, 0, false
	}
	off := (hv*60+mv)*60 + sv
	if t[i] == '-' {
		off = -off
	}
	return clock, off, true
}

// tsFromParts combines days and nanoseconds of day into a timestamp of unit
// u (sub-unit digits truncated), false on overflow.
func tsFromParts(days, nod int64, u arrow.TimeUnit) (int64, bool) {
	upd := unitsPerDay(u)
	if days > math.MaxInt64/upd || days < math.MinInt64/upd {
		return 0, false
	}
	v := days * upd
	part := nod / (1e9 / unitsPerSec(u))
	r := v + part
	if (r > v) != (part > 0) && part != 0 {
		return 0, false
	}
	return r, true
}

// parseTimestamp parses a TIMESTAMP of unit u; with utc (a TIMESTAMP WITH
// TIME ZONE target) a zone in the text is applied (the instant in UTC),
// else it is ignored and the wall time kept, as DuckDB does.
func parseTimestamp(s string, u arrow.TimeUnit, utc bool) (int64, error) {
	days, nod, _, off, ok := parseTimestampZone(s)
	if ok && utc {
		nod -= off * 1e9
		for nod < 0 {
			nod += 86400e9
			days--
		}
		for nod >= 86400e9 {
			nod -= 86400e9
			days++
		}
	}
	if ok {
		if v, ok2 := tsFromParts(days, nod, u); ok2 {
			return v, nil
		}
	}
	return 0, invalidf("invalid TIMESTAMP %q (want YYYY-MM-DD[ HH:MM:SS[.ffffff]][±HH[:MM[:SS]]|Z])", s)
}

func pad(v int64, w int) string {
	s := strconv.FormatInt(v, 10)
	for len(s) < w {
		s = "0" + s
	}
	return s
}

func formatDate(days int64) string {
	y, m, d := civilFromDays(days)
	ys := pad(y, 4)
	if y < 0 {
		ys = "-" + pad(-y, 4)
	}
	return ys + "-" + pad(m, 2) + "-" + pad(d, 2)
}

// formatClock renders nanoseconds of day as HH:MM:SS[.ffffff...] (the
// fraction trimmed of trailing zeros).
func formatClock(nod int64) string {
	sec := nod / 1e9
	frac := nod % 1e9
	s := pad(sec/3600, 2) + ":" + pad(sec/60%60, 2) + ":" + pad(sec%60, 2)
	if frac != 0 {
		s += "." + strings.TrimRight(pad(frac, 9), "0")
	}
	return s
}

func formatTimestamp(v int64, u arrow.TimeUnit) string {
	upd := unitsPerDay(u)
	days := floorDiv(v, upd)
	rem := v - days*upd
	return formatDate(days) + " " + formatClock(rem*(1e9/unitsPerSec(u)))
}

func formatInterval(iv arrow.MonthDayNanoInterval) string {
	var parts []string
	plural := func(n int64, w string) {
		if n == 1 || n == -1 {
			parts = append(parts, strconv.FormatInt(n, 10)+" "+w)
		} else {
			parts = append(parts, strconv.FormatInt(n, 10)+" "+w+"s")
		}
	}
	y, mo := int64(iv.Months)/12, int64(iv.Months)%12
	if y != 0 {
		plural(y, "year")
	}
	if mo != 0 {
		plural(mo, "month")
	}
	if iv.Days != 0 {
		plural(int64(iv.Days), "day")
	}
	if iv.Nanoseconds != 0 || len(parts) == 0 {
		ns := iv.Nanoseconds
		sign := ""
		if ns < 0 {
			sign = "-"
			ns = -ns
		}
		h := ns / (3600 * 1e9)
		rest := ns - h*3600*1e9
		c := formatClock(rest)
		parts = append(parts, sign+pad(h, 2)+c[2:])
	}
	return strings.Join(parts, " ")
}

// castTemporal converts between DATE, TIMESTAMP (any unit) and TIME.
func castTemporal(mem memory.Allocator, a arrow.Array, to arrow.DataType) (arrow.Array, error) {
	from := a.DataType()
	n := a.Len()
	bad := func(i int) error {
		return invalidf("cannot CAST %s to %s: out of range", formatValue(a, i), TypeName(to))
	}
	switch {
	case from.ID() == arrow.DATE32 && isTimestamp(to):
		src := fixedValues[int32](a)
		upd := unitsPerDay(tsUnit(to))
		o := newOut[int64](mem, n)
		lim := math.MaxInt64 / upd
		for i, d := range src {
			if int64(d) > lim || int64(d) < -lim {
				if a.IsValid(i) {
					o.buf.Release()
					return nil, bad(i)
				}
				continue
			}
			o.vals[i] = int64(d) * upd
		}
		return o.finish(to, n, copyValidity(mem, a)), nil
	case isTimestamp(from) && to.ID() == arrow.DATE32:
		src := fixedValues[int64](a)
		upd := unitsPerDay(tsUnit(from))
		o := newOut[int32](mem, n)
		for i, v := range src {
			o.vals[i] = int32(floorDiv(v, upd)) // always fits: |v/upd| < 2^31 for any unit >= s? checked below
			if d := floorDiv(v, upd); d != int64(o.vals[i]) && a.IsValid(i) {
				o.buf.Release()
				return nil, bad(i)
			}
		}
		return o.finish(to, n, copyValidity(mem, a)), nil
	case isTimestamp(from) && isTimestamp(to):
		src := fixedValues[int64](a)
		fu, tu := unitsPerSec(tsUnit(from)), unitsPerSec(tsUnit(to))
		o := newOut[int64](mem, n)
		if tu >= fu {
			k := tu / fu
			lim := math.MaxInt64 / k
			for i, v := range src {
				if v > lim || v < -lim {
					if a.IsValid(i) {
						o.buf.Release()
						return nil, bad(i)
					}
					continue
				}
				o.vals[i] = v * k
			}
		} else {
			k := fu / tu
			for i, v := range src {
				o.vals[i] = floorDiv(v, k)
			}
		}
		return o.finish(to, n, copyValidity(mem, a)), nil
	case (isTimestamp(from) || isTime(from)) && isTime(to):
		nods := make([]int64, n)
		for i := range nods {
			nods[i] = nanosOfDay(a, i)
		}
		return timeOut(mem, a, nods, to), nil
	}
	return nil, invalidf("cannot CAST %s to %s", TypeName(from), TypeName(to))
}

// nanosOfDay returns row i of a TIMESTAMP or TIME array as nanoseconds
// since midnight.
func nanosOfDay(a arrow.Array, i int) int64 {
	switch t := a.DataType().(type) {
	case *arrow.TimestampType:
		v := fixedValues[int64](a)[i]
		upd := unitsPerDay(t.Unit)
		return (v - floorDiv(v, upd)*upd) * (1e9 / unitsPerSec(t.Unit))
	case *arrow.Time32Type:
		return int64(fixedValues[int32](a)[i]) * (1e9 / unitsPerSec(t.Unit))
	case *arrow.Time64Type:
		return fixedValues[int64](a)[i] * (1e9 / unitsPerSec(t.Unit))
	}
	return 0
}

func timeOut(mem memory.Allocator, a arrow.Array, nods []int64, to arrow.DataType) arrow.Array {
	n := len(nods)
	switch t := to.(type) {
	case *arrow.Time32Type:
		o := newOut[int32](mem, n)
		for i, v := range nods {
			o.vals[i] = int32(v / (1e9 / unitsPerSec(t.Unit)))
		}
		return o.finish(to, n, copyValidity(mem, a))
	case *arrow.Time64Type:
		o := newOut[int64](mem, n)
		for i, v := range nods {
			o.vals[i] = v / (1e9 / unitsPerSec(t.Unit))
		}
		return o.finish(to, n, copyValidity(mem, a))
	}
	return nil
}

// The proleptic Gregorian calendar, shared with planner/funcs (one
// calendar for the engine).

// DaysFromCivil is the day number (0 = 1970-01-01) of y-m-d.
func DaysFromCivil(y, m, d int64) int64 { return daysFromCivil(y, m, d) }

// CivilFromDays is the y-m-d of a day number.
func CivilFromDays(z int64) (y, m, d int64) { return civilFromDays(z) }

// DaysInMonth is the number of days of month m of year y.
func DaysInMonth(y, m int64) int64 { return daysIn(y, m) }

// FloorDiv divides rounding toward negative infinity.
func FloorDiv(a, b int64) int64 { return floorDiv(a, b) }

// TimestampPlus adds an interval to a timestamp of unit u (months calendar-
// wise with the day clamped, then days, then the time part); false on
// overflow.
func TimestampPlus(v int64, iv arrow.MonthDayNanoInterval, u arrow.TimeUnit) (int64, bool) {
	return tsPlus(v, iv, u)
}

// NegInterval negates iv; false when a field would overflow.
func NegInterval(iv arrow.MonthDayNanoInterval) (arrow.MonthDayNanoInterval, bool) {
	return negIval(iv)
}

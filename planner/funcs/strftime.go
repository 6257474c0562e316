package funcs

import (
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

// STRFTIME(t, format) and STRPTIME(s, format) / TO_DATE(s, format) with
// DuckDB's specifiers: %Y %y %m %-m %d %-d %e? (no: DuckDB rejects it) %H
// %-H %I %-I %M %-M %S %-S %p %j %-j %a %A %b %h %B %f (microseconds) %g
// (milliseconds) %n (nanoseconds) %u %w %U %W %V %G %z %Z %c %x %X %%.
// The format must be a constant (parsed once at bind); an unknown
// specifier is an error.

func init() {
	register("STRFTIME", nil, bindStrftime)
	register("STRPTIME", nil, func(name string, args []vec.Expr) (*vec.BoundFunc, error) {
		if err := arity(name, args, 2, 2); err != nil {
			return nil, err
		}
		return bindStrptime(name, args, tTSus)
	})
}

var (
	dayNames   = []string{"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"}
	monthNames = []string{"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"}
)

// fmtItem is a literal (spec 0) or a specifier (with '-': no padding).
type fmtItem struct {
	spec  byte
	nopad bool
	lit   string
}

func parseFormat(name, f string) ([]fmtItem, error) {
	var items []fmtItem
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			items = append(items, fmtItem{lit: lit.String()})
			lit.Reset()
		}
	}
	for i := 0; i < len(f); i++ {
		if f[i] != '%' {
			lit.WriteByte(f[i])
			continue
		}
		i++
		if i >= len(f) {
			return nil, invalidf("%s: format %q ends with %%", name, f)
		}
		nopad := false
		if f[i] == '-' {
			nopad = true
			i++
			if i >= len(f) {
				return nil, invalidf("%s: format %q ends with %%-", name, f)
			}
		}
		c := f[i]
		switch c {
		case '%':
			lit.WriteByte('%')
			continue
		case 'c':
			flush()
			items = append(items, fmtItem{spec: 'Y'}, fmtItem{lit: "-"}, fmtItem{spec: 'm'}, fmtItem{lit: "-"}, fmtItem{spec: 'd'},
				fmtItem{lit: " "}, fmtItem{spec: 'H'}, fmtItem{lit: ":"}, fmtItem{spec: 'M'}, fmtItem{lit: ":"}, fmtItem{spec: 'S'})
			continue
		case 'x':
			flush()
			items = append(items, fmtItem{spec: 'Y'}, fmtItem{lit: "-"}, fmtItem{spec: 'm'}, fmtItem{lit: "-"}, fmtItem{spec: 'd'})
			continue
		case 'X':
			flush()
			items = append(items, fmtItem{spec: 'H'}, fmtItem{lit: ":"}, fmtItem{spec: 'M'}, fmtItem{lit: ":"}, fmtItem{spec: 'S'})
			continue
		case 'Y', 'y', 'm', 'd', 'H', 'I', 'M', 'S', 'p', 'j', 'a', 'A', 'b', 'h', 'B', 'f', 'g', 'n', 'u', 'w', 'U', 'W', 'V', 'G', 'z', 'Z':
		default:
			return nil, invalidf("%s: unrecognized format specifier %%%c in %q", name, c, f)
		}
		if c == 'h' {
			c = 'b'
		}
		flush()
		items = append(items, fmtItem{spec: c, nopad: nopad})
	}
	flush()
	return items, nil
}

func pad(b []byte, v int64, width int, nopad bool) []byte {
	if v < 0 {
		b = append(b, '-')
		v = -v
	}
	s := strconv.AppendInt(nil, v, 10)
	if !nopad {
		for k := len(s); k < width; k++ {
			b = append(b, '0')
		}
	}
	return append(b, s...)
}

// formatTime appends the formatted instant (days, micros of day).
func formatTime(b []byte, items []fmtItem, days, us int64) []byte {
	y, m, d := civilFromDays(days)
	h, mi, s := us/3_600_000_000, us/60_000_000%60, us/1_000_000%60
	frac := us % 1_000_000
	wd := weekday(days)
	doy := days - daysFromCivil(y, 1, 1) + 1
	for _, it := range items {
		if it.spec == 0 {
			b = append(b, it.lit...)
			continue
		}
		switch it.spec {
		case 'Y':
			b = pad(b, y, 4, it.nopad)
		case 'y':
			b = pad(b, (y%100+100)%100, 2, it.nopad)
		case 'm':
			b = pad(b, m, 2, it.nopad)
		case 'd':
			b = pad(b, d, 2, it.nopad)
		case 'H':
			b = pad(b, h, 2, it.nopad)
		case 'I':
			hh := h % 12
			if hh == 0 {
				hh = 12
			}
			b = pad(b, hh, 2, it.nopad)
		case 'M':
			b = pad(b, mi, 2, it.nopad)
		case 'S':
			b = pad(b, s, 2, it.nopad)
		case 'p':
			if h < 12 {
				b = append(b, "AM"...)
			} else {
				b = append(b, "PM"...)
			}
		case 'j':
			b = pad(b, doy, 3, it.nopad)
		case 'a':
			b = append(b, dayNames[wd][:3]...)
		case 'A':
			b = append(b, dayNames[wd]...)
		case 'b':
			b = append(b, monthNames[m-1][:3]...)
		case 'B':
			b = append(b, monthNames[m-1]...)
		case 'f':
			b = pad(b, frac, 6, false)
		case 'g':
			b = pad(b, frac/1000, 3, false)
		case 'n':
			b = pad(b, frac*1000, 9, false)
		case 'u':
			b = pad(b, (wd+6)%7+1, 1, false)
		case 'w':
			b = pad(b, wd, 1, false)
		case 'U': // week of year, Sunday first
			b = pad(b, (doy+6-wd)/7, 2, it.nopad)
		case 'W': // week of year, Monday first
			b = pad(b, (doy+6-(wd+6)%7)/7, 2, it.nopad)
		case 'V':
			_, w := isoWeek(days)
			b = pad(b, w, 2, it.nopad)
		case 'G':
			iy, _ := isoWeek(days)
			b = pad(b, iy, 4, it.nopad)
		case 'z':
			b = append(b, "+00"...)
		case 'Z':
		}
	}
	return b
}

func bindStrftime(name string, args []vec.Expr) (*vec.BoundFunc, error) {
	if err := arity(name, args, 2, 2); err != nil {
		return nil, err
	}
	t, err := temporalArg(name, args, 0)
	if err != nil {
		return nil, err
	}
	if err := wantString(name, args, 1); err != nil {
		return nil, err
	}
	f, null, ok := constString(args[1])
	if !ok {
		return nil, unsupportedf("%s with a format that is not a constant (%s)", name, args[1])
	}
	at := []arrow.DataType{t, args[1].Type()}
	if null {
		return &vec.BoundFunc{Ret: tString, ArgTypes: at, AlwaysNullable: true,
			Kernel: func(c *vec.Ctx, _ []arrow.Array, n int) (arrow.Array, error) {
				return nullArray(c.Mem, tString, n), nil
			}}, nil
	}
	items, err := parseFormat(name, f)
	if err != nil {
		return nil, err
	}
	return &vec.BoundFunc{Ret: tString, ArgTypes: at, NullOnNullInput: true,
		Kernel: func(c *vec.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
			x := instants(t, a[0], n)
			v := validOf(a[0])
			out := newStrOut(c.Mem, n, n*len(f)*2)
			var buf []byte
			for i := range n {
				if !v.ok(i) {
					out.add(nil)
					continue
				}
				d, tod, _, _ := x(i)
				buf = formatTime(buf[:0], items, d, tod)
				out.add(buf)
			}
			return out.finish(andValidity(c.Mem, n, a[0]))
		}}, nil
}

// parseTime reads s with items; false when it does not match.
func parseTime(items []fmtItem, s string) (days, us int64, ok bool) {
	y, m, d := int64(1900), int64(1), int64(1)
	var h, mi, sec, frac int64
	pm, hasAMPM := false, false
	doy := int64(-1)
	num := func(maxDigits int) (int64, bool) {
		neg := false
		if len(s) > 0 && (s[0] == '-' || s[0] == '+') && maxDigits > 4 {
			neg = s[0] == '-'
			s = s[1:]
		}
		k := 0
		var v int64
		for k < len(s) && k < maxDigits && s[k] >= '0' && s[k] <= '9' {
			v = v*10 + int64(s[k]-'0')
			k++
		}
		if k == 0 {
			return 0, false
		}
		s = s[k:]
		if neg {
			v = -v
		}
		return v, true
	}
	name := func(list []string, short bool) (int64, bool) {
		for i, nm := range list {
			if short {
				nm = nm[:3]
			}
			if len(s) >= len(nm) && strings.EqualFold(s[:len(nm)], nm) {
				s = s[len(nm):]
				return int64(i), true
			}
		}
		return 0, false
	}
	for _, it := range items {
		var good bool
		switch it.spec {
		case 0:
			good = strings.HasPrefix(s, it.lit)
			if good {
				s = s[len(it.lit):]
			}
		case 'Y', 'G':
			y, good = num(7)
		case 'y':
			var yy int64
			if yy, good = num(2); good {
				if yy < 69 {
					y = 2000 + yy
				} else {
					y = 1900 + yy
				}
			}
		case 'm':
			m, good = num(2)
		case 'd':
			d, good = num(2)
		case 'H', 'I':
			h, good = num(2)
		case 'M':
			mi, good = num(2)
		case 'S':
			sec, good = num(2)
		case 'j':
			doy, good = num(3)
		case 'f', 'g', 'n':
			digits := map[byte]int{'f': 6, 'g': 3, 'n': 9}[it.spec]
			before := len(s)
			frac, good = num(digits)
			for k := before - len(s); k < 6; k++ {
				frac *= 10
			}
			for k := before - len(s); k > 6; k-- {
				frac /= 10
			}
		case 'p':
			hasAMPM, good = true, true
			switch {
			case len(s) >= 2 && strings.EqualFold(s[:2], "PM"):
				pm = true
				s = s[2:]
			case len(s) >= 2 && strings.EqualFold(s[:2], "AM"):
				s = s[2:]
			default:
				good = false
			}
		case 'a':
			_, good = name(dayNames, true)
		case 'A':
			_, good = name(dayNames, false)
		case 'b':
			var mm int64
			if mm, good = name(monthNames, true); good {
				m = mm + 1
			}
		case 'B':
			var mm int64
			if mm, good = name(monthNames, false); good {
				m = mm + 1
			}
		case 'u', 'w':
			_, good = num(1)
		case 'U', 'W', 'V':
			_, good = num(2)
		case 'z', 'Z':
			good = true
		}
		if !good {
			return 0, 0, false
		}
	}
	if s != "" {
		return 0, 0, false
	}
	if hasAMPM {
		if h < 1 || h > 12 {
			return 0, 0, false
		}
		h %= 12
		if pm {
			h += 12
		}
	}
	if m < 1 || m > 12 || d < 1 || d > daysInMonth(y, m) || h > 23 || mi > 59 || sec > 59 {
		return 0, 0, false
	}
	days = daysFromCivil(y, m, d)
	if doy >= 0 {
		if doy < 1 || doy > 365 || doy == 366 && !isLeap(y) {
			return 0, 0, false
		}
		days = daysFromCivil(y, 1, 1) + doy - 1
	}
	return days, h*3_600_000_000 + mi*60_000_000 + sec*1_000_000 + frac, true
}

// bindStrptime parses strings with a constant format into rt (DATE or
// TIMESTAMP); a string that does not match is an error naming it.
func bindStrptime(name string, args []vec.Expr, rt arrow.DataType) (*vec.BoundFunc, error) {
	if err := wantString(name, args, 0, 1); err != nil {
		return nil, err
	}
	f, null, ok := constString(args[1])
	if !ok {
		return nil, unsupportedf("%s with a format that is not a constant (%s)", name, args[1])
	}
	at := types(tString, 2)
	if null {
		return &vec.BoundFunc{Ret: rt, ArgTypes: at, AlwaysNullable: true,
			Kernel: func(c *vec.Ctx, _ []arrow.Array, n int) (arrow.Array, error) { return nullArray(c.Mem, rt, n), nil }}, nil
	}
	items, err := parseFormat(name, f)
	if err != nil {
		return nil, err
	}
	return &vec.BoundFunc{Ret: rt, ArgTypes: at, NullOnNullInput: true,
		Kernel: func(c *vec.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
			s, err := strsOf(a[0])
			if err != nil {
				return nil, err
			}
			valid := andValidity(c.Mem, n, a[0])
			m := maskOf(valid)
			fail := func(err error) (arrow.Array, error) {
				if valid != nil {
					valid.Release()
				}
				return nil, err
			}
			if rt.ID() == arrow.DATE32 {
				out := newFixed[int32](c.Mem, n)
				for i := range n {
					if !m.ok(i) {
						continue
					}
					d, _, ok := parseTime(items, string(s.at(i)))
					if !ok || d > 1<<31-1 || d < -(1<<31) {
						out.buf.Release()
						return fail(invalidf("%s: could not parse %q with format %q", name, s.at(i), f))
					}
					out.vals[i] = int32(d)
				}
				return out.finish(rt, n, valid), nil
			}
			out := newFixed[int64](c.Mem, n)
			for i := range n {
				if !m.ok(i) {
					continue
				}
				d, us, ok := parseTime(items, string(s.at(i)))
				var v int64
				if ok {
					v, ok = daysToTS(d, tsScale{1_000_000, 86_400_000_000})
				}
				if ok {
					v, ok = addChecked(v, us)
				}
				if !ok {
					out.buf.Release()
					return fail(invalidf("%s: could not parse %q with format %q", name, s.at(i), f))
				}
				out.vals[i] = v
			}
			return out.finish(rt, n, valid), nil
		}}, nil
}

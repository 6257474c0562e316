package format

// Date, time and timestamp conversions of Paimon Java's DateTimeUtils and
// BinaryStringUtils (see javaconv.go).

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// --- dates, times and timestamps (DateTimeUtils) ---

// javaInt2 / javaInt4 are DateTimeUtils.int2/int4: fixed-width digits of
// i with Java's truncating arithmetic (odd characters for out-of-range values, as Java).
func javaInt2(b *strings.Builder, i int32) {
	b.WriteRune(rune('0' + (i/10)%10))
	b.WriteRune(rune('0' + i%10))
}

func javaInt4(b *strings.Builder, i int32) {
	b.WriteRune(rune('0' + (i/1000)%10))
	b.WriteRune(rune('0' + (i/100)%10))
	b.WriteRune(rune('0' + (i/10)%10))
	b.WriteRune(rune('0' + i%10))
}

// javaFormatDate is DateTimeUtils.formatDate (Julian-day arithmetic in int).
func javaFormatDate(date int32) string {
	var b strings.Builder
	j := date + 2440588 + 32044
	g := j / 146097
	dg := j % 146097
	c := (dg/36524 + 1) * 3 / 4
	dc := dg - c*36524
	bb := dc / 1461
	db := dc % 1461
	a := (db/365 + 1) * 3 / 4
	da := db - a*365
	y := g*400 + c*100 + bb*4 + a
	m := (da*5+308)/153 - 2
	d := da - (m+4)*153/5 + 122
	javaInt4(&b, y-4800+(m+2)/12)
	b.WriteByte('-')
	javaInt2(&b, (m+2)%12+1)
	b.WriteByte('-')
	javaInt2(&b, d+1)
	return b.String()
}

// javaFormatTime is DateTimeUtils.formatTimestampMillis(time, precision)
// (TIME → STRING): hh:mm:ss, then for precision > 0 fraction digits until
// the rest is zero (at least one digit).
func javaFormatTime(t int32, precision int) string {
	for t < 0 {
		t += millisPerDay
	}
	var b strings.Builder
	h := t / 3600000
	t2 := t % 3600000
	m := t2 / 60000
	t3 := t2 % 60000
	s := t3 / 1000
	ms := t3 % 1000
	javaInt2(&b, h)
	b.WriteByte(':')
	javaInt2(&b, m)
	b.WriteByte(':')
	javaInt2(&b, s)
	if precision > 0 {
		b.WriteByte('.')
		for precision > 0 {
			b.WriteRune(rune('0' + ms/100))
			ms = ms % 100 * 10
			if ms == 0 {
				break
			}
			precision--
		}
	}
	return b.String()
}

// javaLocalDateTime is Timestamp.toLocalDateTime's fields (proleptic Gregorian, UTC).
func javaLocalDateTime(ts javaTS) time.Time {
	day := floorDiv(ts.millis, millisPerDay)
	ms := ts.millis - day*millisPerDay
	return time.Unix(day*86400, 0).UTC().Add(time.Duration(ms)*time.Millisecond + time.Duration(ts.nanos))
}

// javaFormatTimestamp is DateTimeUtils.formatTimestamp(ts, precision): the
// nano-of-second fraction with trailing zeros removed down to precision digits.
func javaFormatTimestamp(ts javaTS, precision int) string {
	t := javaLocalDateTime(ts)
	frac := fmt.Sprintf("%09d", t.Nanosecond())
	for len(frac) > precision && strings.HasSuffix(frac, "0") {
		frac = frac[:len(frac)-1]
	}
	var b strings.Builder
	javaInt4(&b, int32(t.Year()))
	b.WriteByte('-')
	javaInt2(&b, int32(t.Month()))
	b.WriteByte('-')
	javaInt2(&b, int32(t.Day()))
	b.WriteByte(' ')
	javaInt2(&b, int32(t.Hour()))
	b.WriteByte(':')
	javaInt2(&b, int32(t.Minute()))
	b.WriteByte(':')
	javaInt2(&b, int32(t.Second()))
	if frac != "" {
		b.WriteByte('.')
		b.WriteString(frac)
	}
	return b.String()
}

// javaTruncateTimestamp is DateTimeUtils.truncate(ts, precision): nothing
// when the fraction has at most precision significant digits; else for
// precision <= 3 the millis are cut toward zero ((l / 10^n) * 10^n, as Java
// does, also for negative values) and the nanos dropped, for precision > 3
// the nanos-of-millisecond are cut.
func javaTruncateTimestamp(ts javaTS, precision int) javaTS {
	nano := javaLocalDateTime(ts).Nanosecond()
	frac := fmt.Sprintf("%09d", nano)
	sig := len(strings.TrimRight(frac, "0"))
	if sig <= precision {
		return ts
	}
	if precision <= 3 {
		p := javaPow10[3-precision]
		return javaTS{millis: ts.millis / p * p}
	}
	p := int32(javaPow10[9-precision])
	return javaTS{millis: ts.millis, nanos: ts.nanos / p * p}
}

// javaIsNumeric is StringUtils.isNumeric: an optional '-' then at least one
// Unicode digit (Character.isDigit).
func javaIsNumeric(s string) bool {
	if s == "" {
		return false
	}
	if s[0] == '-' {
		if len(s) == 1 {
			return false
		}
		s = s[1:]
	}
	for _, r := range s {
		if !unicode.IsDigit(r) {
			return false
		}
	}
	return true
}

func isASCIIInteger(s string) bool {
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

func atoiJava(s string) (int, bool) {
	s = strings.TrimSpace(s)
	if !isASCIIInteger(s) {
		return 0, false
	}
	v, err := strconv.Atoi(s)
	return v, err == nil && v <= math.MaxInt32
}

// javaParseDate is BinaryStringUtils.toDate: a numeric string is a day
// count (toInt); else DateTimeUtils.parseDate (y[-m[-d]], anything after
// the first space ignored, year 0..9999, validated day).
func javaParseDate(s string) (int32, error) {
	if javaIsNumeric(s) {
		v, err := javaStringToIntegral(s, 32)
		return int32(v), err
	}
	bad := fmt.Errorf("For input string: '%s'.", s)
	in := s
	if ws := strings.Index(in, " "); ws > 0 {
		in = in[:ws]
	}
	var y, m, d int
	var ok bool
	parts := strings.SplitN(in, "-", 3)
	if y, ok = atoiJava(parts[0]); !ok {
		return 0, bad
	}
	m, d = 1, 1
	if len(parts) > 1 {
		if m, ok = atoiJava(parts[1]); !ok {
			return 0, bad
		}
	}
	if len(parts) > 2 {
		if d, ok = atoiJava(parts[2]); !ok {
			return 0, bad
		}
	}
	if !javaLegalDate(y, m, d) {
		return 0, bad
	}
	return int32(daysFromCivil(y, m, d)), nil
}

func javaLeap(y int) bool { return y%400 == 0 || (y%4 == 0 && y%100 != 0) }

// javaLegalDate is DateTimeUtils.isIllegalDate (which returns true for a LEGAL date).
func javaLegalDate(y, m, d int) bool {
	if y < 0 || y > 9999 || m < 1 || m > 12 || d < 1 || d > 31 {
		return false
	}
	if m == 2 && d > 28 && !(javaLeap(y) && d == 29) {
		return false
	}
	if d == 31 {
		switch m {
		case 1, 3, 5, 7, 8, 10, 12:
			return true
		}
		return false
	}
	return true
}

// daysFromCivil is DateTimeUtils.ymdToUnixDate (proleptic Gregorian).
func daysFromCivil(y, m, d int) int64 {
	a := (14 - m) / 12
	yy := y + 4800 - a
	mm := m + 12*a - 3
	julian := d + (153*mm+2)/5 + 365*yy + yy/4 - yy/100 + yy/400 - 32045
	return int64(julian - 2440588)
}

// javaParseTime is BinaryStringUtils.toTime: a numeric string is a
// millisecond count; else DateTimeUtils.parseTime (h[:m[:s[.fff]]] with an
// optional [+-]hh[:mm] offset added as Java adds it).
func javaParseTime(v string) (int32, error) {
	if javaIsNumeric(v) {
		x, err := javaStringToIntegral(v, 32)
		return int32(x), err
	}
	bad := fmt.Errorf("For input string: '%s'.", v)
	end := len(v)
	op := -1
	tz := strings.IndexByte(v, '-')
	if tz < 0 {
		tz = strings.IndexByte(v, '+')
		op = 1
	}
	tzH, tzM := 0, 0
	var ok bool
	if tz >= 0 {
		end = tz
		rest := v[tz+1:]
		if c3 := strings.IndexByte(rest, ':'); c3 < 0 {
			if tzH, ok = atoiJava(rest); !ok {
				return 0, bad
			}
		} else {
			if tzH, ok = atoiJava(rest[:c3]); !ok {
				return 0, bad
			}
			if tzM, ok = atoiJava(rest[c3+1:]); !ok {
				return 0, bad
			}
		}
	}
	// Java takes these substrings without checking their order; a begin
	// after the end throws (StringIndexOutOfBoundsException): an error here.
	sub := func(from, to int) (int, bool) {
		if from > to || to > len(v) {
			return 0, false
		}
		return atoiJava(v[from:to])
	}
	var h, m, s, ms int
	c1 := strings.IndexByte(v, ':')
	if c1 < 0 {
		if h, ok = sub(0, end); !ok {
			return 0, bad
		}
	} else {
		if h, ok = sub(0, c1); !ok {
			return 0, bad
		}
		c2 := indexFrom(v, ':', c1+1)
		if c2 < 0 {
			if m, ok = sub(c1+1, end); !ok {
				return 0, bad
			}
		} else {
			if m, ok = sub(c1+1, c2); !ok {
				return 0, bad
			}
			dot := indexFrom(v, '.', c2)
			if dot < 0 {
				if s, ok = sub(c2+1, end); !ok {
					return 0, bad
				}
			} else {
				if s, ok = sub(c2+1, dot); !ok {
					return 0, bad
				}
				if dot+1 > end {
					return 0, bad
				}
				ms = javaParseFraction(strings.TrimSpace(v[dot+1 : end]))
			}
		}
	}
	h += op * tzH
	m += op * tzM
	return int32(h*3600000 + m*60000 + s*1000 + ms), nil
}

func indexFrom(s string, c byte, from int) int {
	if from > len(s) {
		return -1
	}
	if i := strings.IndexByte(s[from:], c); i >= 0 {
		return i + from
	}
	return -1
}

// javaParseFraction is DateTimeUtils.parseFraction with multiplier 100:
// milliseconds from fraction digits, rounding on the fourth digit.
func javaParseFraction(v string) int {
	mult, r := 100, 0
	for i := 0; i < len(v); i++ {
		c := v[i]
		x := 0
		if c >= '0' && c <= '9' {
			x = int(c - '0')
		}
		r += mult * x
		if mult < 10 {
			if i+1 < len(v) && v[i+1] >= '5' {
				r++
			}
			break
		}
		mult /= 10
	}
	return r
}

// javaParseTimestamp is BinaryStringUtils.toTimestamp(input, precision)
// (ltz false: a numeric string is an epoch count in the unit of the
// precision, 0/3/6/9 only) and toTimestamp(input, precision, tz) (ltz true,
// zone UTC): DateTimeUtils.DEFAULT_TIMESTAMP_FORMATTER
// "yyyy-[MM][M]-[dd][d][ [HH][H]:[mm][m]:[ss][s][.fraction]]" or
// "...T[HH][H]:[mm][m][:[ss][s][.fraction]]", resolved SMART (day clamped to
// the month's length, 24:00:00 is the next midnight), nanos floored to precision.
func javaParseTimestamp(s string, precision int, ltz bool) (javaTS, error) {
	if !ltz && javaIsNumeric(s) {
		v, err := javaStringToIntegral(s, 64)
		if err != nil {
			return javaTS{}, err
		}
		var millis int64
		var nanos int64
		switch precision {
		case 0:
			millis = v * 1000
		case 3:
			millis = v
		case 6:
			millis, nanos = v/1000, v%1000*1000
		case 9:
			millis, nanos = v/1000000, v%1000000
		default:
			return javaTS{}, fmt.Errorf("Unsupported precision: %d", precision)
		}
		if nanos < 0 {
			nanos += 1000000
			millis--
		}
		return javaTS{millis: millis, nanos: int32(nanos)}, nil
	}
	bad := fmt.Errorf("Text '%s' could not be parsed", s)
	p := &tsParser{s: s}
	year, ok := p.digits(4, 9) // YEAR_OF_ERA is at most 999999999
	if !ok || !p.lit('-') {
		return javaTS{}, bad
	}
	month, ok := p.digits(1, 2)
	if !ok || !p.lit('-') {
		return javaTS{}, bad
	}
	day, ok := p.digits(1, 2)
	if !ok {
		return javaTS{}, bad
	}
	var hour, minute, sec, nano int
	if p.pos < len(s) {
		switch {
		case p.lit(' '):
			if hour, ok = p.digits(1, 2); !ok || !p.lit(':') {
				return javaTS{}, bad
			}
			if minute, ok = p.digits(1, 2); !ok || !p.lit(':') {
				return javaTS{}, bad
			}
			if sec, ok = p.digits(1, 2); !ok {
				return javaTS{}, bad
			}
			nano = p.fraction()
		case p.lit('T'):
			if hour, ok = p.digits(1, 2); !ok || !p.lit(':') {
				return javaTS{}, bad
			}
			if minute, ok = p.digits(1, 2); !ok {
				return javaTS{}, bad
			}
			if p.lit(':') {
				if sec, ok = p.digits(1, 2); !ok {
					return javaTS{}, bad
				}
				nano = p.fraction()
			}
		default:
			return javaTS{}, bad
		}
	}
	if p.pos != len(s) || nano < 0 {
		return javaTS{}, bad
	}
	if year < 1 || month < 1 || month > 12 || day < 1 || day > 31 || hour > 24 || minute > 59 || sec > 59 {
		return javaTS{}, bad
	}
	extraDay := int64(0)
	if hour == 24 {
		if minute != 0 || sec != 0 || nano != 0 {
			return javaTS{}, bad
		}
		hour, extraDay = 0, 1
	}
	if ml := monthLength(year, month); day > ml {
		day = ml
	}
	if precision == 0 {
		nano = 0
	} else if precision < 9 {
		q := int(javaPow10[9-precision])
		nano = nano / q * q
	}
	days := daysFromCivil(year, month, day) + extraDay
	if days > math.MaxInt64/millisPerDay-1 || days < math.MinInt64/millisPerDay+1 {
		return javaTS{}, fmt.Errorf("Text '%s': year %d out of the timestamp range", s, year)
	}
	nod := int64(hour)*3600e9 + int64(minute)*60e9 + int64(sec)*1e9 + int64(nano)
	return javaTS{millis: days*millisPerDay + nod/1000000, nanos: int32(nod % 1000000)}, nil
}

func monthLength(y, m int) int {
	switch m {
	case 2:
		if javaLeap(y) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

type tsParser struct {
	s   string
	pos int
}

func (p *tsParser) digits(min, max int) (int, bool) {
	start := p.pos
	for p.pos < len(p.s) && p.pos-start < max && p.s[p.pos] >= '0' && p.s[p.pos] <= '9' {
		p.pos++
	}
	if p.pos-start < min {
		return 0, false
	}
	v, err := strconv.Atoi(p.s[start:p.pos])
	return v, err == nil
}

func (p *tsParser) lit(c byte) bool {
	if p.pos < len(p.s) && p.s[p.pos] == c {
		p.pos++
		return true
	}
	return false
}

// fraction parses an optional '.' and up to 9 digits as nanoseconds.
func (p *tsParser) fraction() int {
	if !p.lit('.') {
		return 0
	}
	start := p.pos
	for p.pos < len(p.s) && p.pos-start < 9 && p.s[p.pos] >= '0' && p.s[p.pos] <= '9' {
		p.pos++
	}
	d := p.s[start:p.pos]
	if d == "" {
		return 0
	}
	v, _ := strconv.Atoi(d + strings.Repeat("0", 9-len(d)))
	return v
}

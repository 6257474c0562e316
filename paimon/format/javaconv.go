package format

// Scalar conversions with the semantics of Paimon Java's cast rules
// (paimon-common org.apache.paimon.casting.*, BinaryStringUtils,
// DateTimeUtils, DecimalUtils). Every function names the Java method it
// mirrors; cast.go applies them to Arrow arrays.

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

const millisPerDay = 86400000

// javaTS is Paimon's org.apache.paimon.data.Timestamp: epoch milliseconds
// plus nanoseconds within the millisecond (0..999999).
type javaTS struct {
	millis int64
	nanos  int32
}

// --- numeric narrowing (JLS §5.1.3, Number.xxxValue) ---

// javaF2L is Java's (long) d: NaN → 0, saturating at the long range, else truncation.
func javaF2L(d float64) int64 {
	switch {
	case d != d:
		return 0
	case d >= 9.223372036854775807e18:
		return math.MaxInt64
	case d <= -9.223372036854775808e18:
		return math.MinInt64
	}
	return int64(d)
}

// javaF2I is Java's (int) d: NaN → 0, saturating at the int range, else truncation.
func javaF2I(d float64) int32 {
	switch {
	case d != d:
		return 0
	case d >= 2147483647:
		return math.MaxInt32
	case d <= -2147483648:
		return math.MinInt32
	}
	return int32(d)
}

// --- BinaryStringUtils.toBoolean ---

var (
	javaTrueStrings  = []string{"t", "true", "y", "yes", "1"}
	javaFalseStrings = []string{"f", "false", "n", "no", "0"}
)

// javaStringToBoolean is BinaryStringUtils.toBoolean: the lower-cased string
// must be one of t/true/y/yes/1 or f/false/n/no/0 (no trimming).
func javaStringToBoolean(s string) (bool, error) {
	l := strings.ToLower(s)
	for _, t := range javaTrueStrings {
		if l == t {
			return true, nil
		}
	}
	for _, f := range javaFalseStrings {
		if l == f {
			return false, nil
		}
	}
	return false, fmt.Errorf("Cannot parse '%s' as BOOLEAN.", s)
}

// --- BinaryStringUtils.toLong / toInt / toShort / toByte ---

func numberFormat(s, reason string) error {
	return fmt.Errorf("For input string: '%s'. %s", s, reason)
}

// javaStringToIntegral is BinaryStringUtils.toLong (bits 64) or toInt (bits
// 32): optional sign, ASCII digits, an optional '.' followed by digits that
// are checked and dropped (truncation); no whitespace; overflow is an error.
func javaStringToIntegral(s string, bits int) (int64, error) {
	if len(s) == 0 {
		return 0, numberFormat(s, "Input is empty.")
	}
	i := 0
	neg := s[0] == '-'
	if neg || s[0] == '+' {
		i++
		if len(s) == 1 {
			return 0, numberFormat(s, "Input has only positive or negative symbol.")
		}
	}
	minV := int64(math.MinInt64)
	if bits == 32 {
		minV = math.MinInt32
	}
	stop := minV / 10
	var r int64
	for i < len(s) {
		b := s[i]
		i++
		if b == '.' {
			break
		}
		if b < '0' || b > '9' {
			return 0, numberFormat(s, "Invalid character found.")
		}
		if r < stop {
			return 0, numberFormat(s, "Overflow.")
		}
		r = r*10 - int64(b-'0')
		if r < minV || r > 0 {
			return 0, numberFormat(s, "Overflow.")
		}
	}
	for ; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, numberFormat(s, "Invalid character found.")
		}
	}
	if !neg {
		r = -r
		if r < 0 || (bits == 32 && r > math.MaxInt32) {
			return 0, numberFormat(s, "Overflow.")
		}
	}
	return r, nil
}

// javaStringToNarrow is BinaryStringUtils.toShort / toByte: toInt, then an
// overflow error when the value does not fit.
func javaStringToNarrow(s string, bits int) (int64, error) {
	v, err := javaStringToIntegral(s, 32)
	if err != nil {
		return 0, err
	}
	lim := int64(1) << (bits - 1)
	if v < -lim || v >= lim {
		return 0, numberFormat(s, "Overflow.")
	}
	return v, nil
}

// javaParseDouble is Double.parseDouble (bits 64) / Float.parseFloat (bits
// 32): leading and trailing characters <= ' ' are ignored; an optional sign;
// "NaN", "Infinity", a decimal with optional exponent, or a hexadecimal
// floating literal (0x...p...); an optional f/F/d/D suffix.
func javaParseDouble(s string, bits int) (float64, error) {
	t := strings.TrimFunc(s, func(r rune) bool { return r <= ' ' })
	bad := fmt.Errorf("For input string: \"%s\"", s)
	if t == "" {
		return 0, bad
	}
	body := t
	sign := ""
	if body[0] == '+' || body[0] == '-' {
		sign, body = body[:1], body[1:]
	}
	switch body {
	case "NaN":
		return math.NaN(), nil
	case "Infinity":
		if sign == "-" {
			return math.Inf(-1), nil
		}
		return math.Inf(1), nil
	}
	if n := len(body); n > 0 && strings.ContainsRune("fFdD", rune(body[n-1])) {
		body = body[:n-1]
	}
	if body == "" {
		return 0, bad
	}
	hex := len(body) > 2 && body[0] == '0' && (body[1] == 'x' || body[1] == 'X')
	if !hex && !validJavaDecimal(body) {
		return 0, bad
	}
	if hex && !strings.ContainsAny(body, "pP") {
		return 0, bad
	}
	v, err := strconv.ParseFloat(sign+body, bits)
	if err != nil {
		var ne *strconv.NumError
		if errors.As(err, &ne) && ne.Err == strconv.ErrRange {
			return v, nil // ±Inf or 0, as Java rounds
		}
		return 0, bad
	}
	return v, nil
}

// validJavaDecimal reports whether s is digits[.digits][e[sign]digits] with
// at least one digit in the mantissa (Java's FloatingDecimal grammar).
func validJavaDecimal(s string) bool {
	i, digits := 0, 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
		digits++
	}
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			digits++
		}
	}
	if digits == 0 {
		return false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		e := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			e++
		}
		if e == 0 {
			return false
		}
	}
	return i == len(s)
}

// --- BigDecimal ---

// javaBigDecimal parses new BigDecimal(String): [sign] digits [. digits]
// [e [sign] digits], at least one digit, no whitespace. It returns the
// unscaled value and the scale.
func javaBigDecimal(s string) (*big.Int, int, error) {
	bad := fmt.Errorf("Character array is missing \"exponent\" mark 'e' or 'E'. (new BigDecimal(%q))", s)
	if s == "" {
		return nil, 0, fmt.Errorf("new BigDecimal(\"\"): zero length")
	}
	i := 0
	neg := false
	if s[0] == '+' || s[0] == '-' {
		neg = s[0] == '-'
		i++
	}
	var digits strings.Builder
	scale := 0
	seenDot := false
	for ; i < len(s); i++ {
		c := s[i]
		if c >= '0' && c <= '9' {
			digits.WriteByte(c)
			if seenDot {
				scale++
			}
			continue
		}
		if c == '.' && !seenDot {
			seenDot = true
			continue
		}
		break
	}
	if digits.Len() == 0 {
		return nil, 0, bad
	}
	if i < len(s) {
		if s[i] != 'e' && s[i] != 'E' {
			return nil, 0, bad
		}
		exp, err := strconv.ParseInt(s[i+1:], 10, 32)
		if err != nil || len(s[i+1:]) == 0 || s[i+1] == ' ' {
			return nil, 0, bad
		}
		scale -= int(exp)
	}
	u, _ := new(big.Int).SetString(digits.String(), 10)
	if neg {
		u.Neg(u)
	}
	return u, scale, nil
}

var bigTen = big.NewInt(10)

func pow10Big(n int) *big.Int {
	return new(big.Int).Exp(bigTen, big.NewInt(int64(n)), nil)
}

// javaSetScaleHalfUp is BigDecimal.setScale(scale, RoundingMode.HALF_UP) on
// unscaled u with scale from.
func javaSetScaleHalfUp(u *big.Int, from, to int) *big.Int {
	if to >= from {
		return new(big.Int).Mul(u, pow10Big(to-from))
	}
	d := pow10Big(from - to)
	q, r := new(big.Int).QuoRem(u, d, new(big.Int))
	// HALF_UP: round away from zero when |r| >= d/2.
	r2 := new(big.Int).Abs(r)
	r2.Lsh(r2, 1)
	if r2.Cmp(d) >= 0 {
		if u.Sign() < 0 {
			q.Sub(q, big.NewInt(1))
		} else {
			q.Add(q, big.NewInt(1))
		}
	}
	return q
}

// javaDecimalDigits is BigDecimal.precision() of unscaled u: its number of
// decimal digits (1 for zero).
func javaDecimalDigits(u *big.Int) int {
	if u.Sign() == 0 {
		return 1
	}
	return len(new(big.Int).Abs(u).String())
}

// javaFromBigDecimal is Decimal.fromBigDecimal(bd, precision, scale): round
// HALF_UP to scale; nil (SQL NULL) when the result needs more than precision digits.
func javaFromBigDecimal(u *big.Int, from, precision, scale int) *big.Int {
	r := javaSetScaleHalfUp(u, from, scale)
	if javaDecimalDigits(r) > precision {
		return nil
	}
	return r
}

// javaDecimalToPlainString is BigDecimal.toPlainString (Decimal.toString).
func javaDecimalToPlainString(u *big.Int, scale int) string {
	s := new(big.Int).Abs(u).String()
	neg := u.Sign() < 0
	if scale > 0 {
		if len(s) <= scale {
			s = strings.Repeat("0", scale-len(s)+1) + s
		}
		s = s[:len(s)-scale] + "." + s[len(s)-scale:]
	} else if scale < 0 && u.Sign() != 0 {
		s += strings.Repeat("0", -scale)
	}
	if neg {
		return "-" + s
	}
	return s
}

// javaDecimalToIntegral is DecimalUtils.castToIntegral: setScale(0, DOWN).longValue()
// (the low 64 bits of the truncated value).
func javaDecimalToIntegral(u *big.Int, scale int) int64 {
	q := new(big.Int).Quo(u, pow10Big(scale))
	lo := new(big.Int).And(q, new(big.Int).SetUint64(math.MaxUint64))
	return int64(lo.Uint64())
}

var javaPow10 = func() [19]int64 {
	var p [19]int64
	p[0] = 1
	for i := 1; i < len(p); i++ {
		p[i] = p[i-1] * 10
	}
	return p
}()

// javaDecimalToDouble is DecimalUtils.doubleValue: for a compact decimal
// (precision <= 18) (double) unscaled / POW10[scale] — two roundings, as
// Java — else BigDecimal.doubleValue (correctly rounded).
func javaDecimalToDouble(u *big.Int, precision, scale int) float64 {
	if precision <= 18 && u.IsInt64() && scale >= 0 && scale < len(javaPow10) {
		return float64(u.Int64()) / float64(javaPow10[scale])
	}
	f, _ := strconv.ParseFloat(javaDecimalToPlainString(u, scale), 64)
	return f
}

// --- Double.toString / Float.toString ---

// javaDoubleToString is Double.toString (bits 64) or Float.toString (bits
// 32) of JDK 19+: the shortest decimal that reads back as the same value;
// plain notation with at least one fractional digit for 1e-3 <= |v| < 1e7,
// else computerized scientific notation (1.0E10, 1.5E-5).
func javaDoubleToString(v float64, bits int) string {
	switch {
	case math.IsNaN(v):
		return "NaN"
	case math.IsInf(v, 1):
		return "Infinity"
	case math.IsInf(v, -1):
		return "-Infinity"
	case v == 0:
		if math.Signbit(v) {
			return "-0.0"
		}
		return "0.0"
	}
	e := strconv.FormatFloat(v, 'e', -1, bits) // d.ddde±XX
	neg := e[0] == '-'
	if neg {
		e = e[1:]
	}
	mant, expS, _ := strings.Cut(e, "e")
	exp, _ := strconv.Atoi(expS)
	digits := strings.Replace(mant, ".", "", 1)
	var out string
	abs := math.Abs(v)
	if abs >= 1e-3 && abs < 1e7 {
		pt := exp + 1 // digits before the point
		switch {
		case pt <= 0:
			out = "0." + strings.Repeat("0", -pt) + digits
		case pt >= len(digits):
			out = digits + strings.Repeat("0", pt-len(digits)) + ".0"
		default:
			out = digits[:pt] + "." + digits[pt:]
		}
	} else {
		frac := digits[1:]
		if frac == "" {
			frac = "0"
		}
		out = digits[:1] + "." + frac + "E" + strconv.Itoa(exp)
	}
	if neg {
		return "-" + out
	}
	return out
}

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
	year, ok := p.digits(4, 10)
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

// javaToCharacterString is BinaryStringUtils.toCharacterString: cut to the
// target length in characters, CHAR pads with spaces.
func javaToCharacterString(s string, length int, isChar bool) string {
	n := utf8.RuneCountInString(s)
	if n > length {
		i := 0
		for k := 0; k < length; k++ {
			_, w := utf8.DecodeRuneInString(s[i:])
			i += w
		}
		return s[:i]
	}
	if n < length && isChar {
		return s + strings.Repeat(" ", length-n)
	}
	return s
}

// javaToBinaryString is BinaryStringUtils.toBinaryString: BINARY(n) pads
// with zero bytes or cuts to n, VARBINARY(n) cuts when longer.
func javaToBinaryString(b []byte, length int, isFixed bool) []byte {
	if len(b) == length {
		return b
	}
	if isFixed {
		out := make([]byte, length)
		copy(out, b)
		return out
	}
	if len(b) <= length {
		return b
	}
	return b[:length]
}

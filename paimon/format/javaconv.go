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

package vec

import (
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/scalar"
)

// Literal constructors for the SQL front end.

// NumberLiteral types a numeric literal: integers are BIGINT (beyond BIGINT,
// DECIMAL(38,0) when it has at most 38 digits), 0.06 is an exact
// DECIMAL(2,2) (precision = digits, scale = fractional digits), 1e5 and
// 1.5E-3 are DOUBLE.
func NumberLiteral(text string) (*Literal, error) {
	s := strings.TrimSpace(text)
	s = strings.ReplaceAll(s, "_", "")
	if s == "" {
		return nil, invalidf("empty numeric literal")
	}
	if strings.ContainsAny(s, "eE") {
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			return nil, invalidf("invalid numeric literal %s", text)
		}
		return NewLiteral(scalar.NewFloat64Scalar(f)), nil
	}
	if !strings.ContainsAny(s, ".") {
		if v, err := strconv.ParseInt(s, 10, 64); err == nil {
			return NewLiteral(scalar.NewInt64Scalar(v)), nil
		}
		n, prec, _, ok := parseDecimalText(s)
		if !ok {
			if prec > 38 {
				return nil, invalidf("integer literal %s has more than 38 digits", text)
			}
			return nil, invalidf("invalid numeric literal %s", text)
		}
		_ = prec
		return NewLiteral(scalar.NewDecimal128Scalar(n, DecimalType(38, 0))), nil
	}
	n, prec, scale, ok := parseDecimalText(s)
	if !ok {
		if prec > 38 {
			return nil, invalidf("numeric literal %s has more than 38 digits (DECIMAL holds 38)", text)
		}
		return nil, invalidf("invalid numeric literal %s", text)
	}
	return NewLiteral(scalar.NewDecimal128Scalar(n, DecimalType(prec, scale))), nil
}

// StringLiteral is a VARCHAR constant.
func StringLiteral(s string) *Literal { return NewLiteral(scalar.NewStringScalar(s)) }

// BoolLiteral is TRUE or FALSE.
func BoolLiteral(b bool) *Literal { return NewLiteral(scalar.NewBooleanScalar(b)) }

// DateLiteral parses DATE 'YYYY-MM-DD'.
func DateLiteral(s string) (*Literal, error) {
	d, err := parseDate(s)
	if err != nil {
		return nil, err
	}
	return NewLiteral(scalar.NewDate32Scalar(arrow.Date32(d))), nil
}

// TimestampLiteral parses TIMESTAMP 'YYYY-MM-DD[ HH:MM:SS[.fffffffff]]':
// microseconds, nanoseconds when more than 6 fractional digits are given.
func TimestampLiteral(s string) (*Literal, error) {
	days, nod, fd, ok := parseTimestampText(s)
	if !ok {
		return nil, invalidf("invalid TIMESTAMP %q (want YYYY-MM-DD[ HH:MM:SS[.ffffff]])", s)
	}
	u := arrow.Microsecond
	if fd > 6 {
		u = arrow.Nanosecond
	}
	v, ok := tsFromParts(days, nod, u)
	if !ok {
		return nil, invalidf("TIMESTAMP %q is out of range", s)
	}
	t := &arrow.TimestampType{Unit: u}
	return NewLiteral(scalar.NewTimestampScalar(arrow.Timestamp(v), t)), nil
}

// IntervalLiteral builds INTERVAL 'value' unit as a MonthDayNano interval.
// With unit == "" the value is PostgreSQL text ('3 days', '1 year 2 months',
// '1 day 02:30:00', '2 hours ago').
func IntervalLiteral(value string, unit string) (*Literal, error) {
	var iv arrow.MonthDayNanoInterval
	var err error
	if strings.TrimSpace(unit) == "" {
		iv, err = parseIntervalText(value)
	} else {
		iv, err = intervalOf(strings.TrimSpace(value), unit)
	}
	if err != nil {
		return nil, err
	}
	return NewLiteral(scalar.NewMonthDayNanoIntervalScalar(iv)), nil
}

// intervalUnit maps a unit name to (months, days, nanos) per 1.
func intervalUnit(u string) (months, days int64, nanos int64, ok bool) {
	switch strings.ToLower(strings.TrimSpace(u)) {
	case "year", "years", "y", "yr", "yrs":
		return 12, 0, 0, true
	case "quarter", "quarters":
		return 3, 0, 0, true
	case "month", "months", "mon", "mons":
		return 1, 0, 0, true
	case "week", "weeks", "w":
		return 0, 7, 0, true
	case "day", "days", "d":
		return 0, 1, 0, true
	case "hour", "hours", "h", "hr", "hrs":
		return 0, 0, 3600e9, true
	case "minute", "minutes", "min", "mins", "m":
		return 0, 0, 60e9, true
	case "second", "seconds", "s", "sec", "secs":
		return 0, 0, 1e9, true
	case "millisecond", "milliseconds", "ms", "msec", "msecs":
		return 0, 0, 1e6, true
	case "microsecond", "microseconds", "us", "usec", "usecs":
		return 0, 0, 1e3, true
	case "nanosecond", "nanoseconds", "ns":
		return 0, 0, 1, true
	}
	return 0, 0, 0, false
}

// intervalOf is value × unit; value may be signed and fractional (a
// fraction of a month-based unit is an error; of days or weeks, it becomes
// time).
func intervalOf(value, unit string) (arrow.MonthDayNanoInterval, error) {
	var iv arrow.MonthDayNanoInterval
	mo, dd, ns, ok := intervalUnit(unit)
	if !ok {
		return iv, invalidf("unknown INTERVAL unit %s", unit)
	}
	r, ok := new(big.Rat).SetString(strings.TrimSpace(value))
	if !ok || strings.ContainsAny(value, "/") {
		return iv, invalidf("invalid INTERVAL value %q", value)
	}
	bad := invalidf("INTERVAL '%s' %s is out of range", value, unit)
	switch {
	case mo != 0:
		if !r.IsInt() {
			return iv, invalidf("INTERVAL '%s' %s: a fraction of a %s is not supported", value, unit, strings.ToLower(unit))
		}
		m := new(big.Int).Mul(r.Num(), big.NewInt(mo))
		if !m.IsInt64() || m.Int64() > math.MaxInt32 || m.Int64() < math.MinInt32 {
			return iv, bad
		}
		iv.Months = int32(m.Int64())
	case dd != 0:
		whole := new(big.Int).Quo(r.Num(), r.Denom()) // truncated toward zero
		d := new(big.Int).Mul(whole, big.NewInt(dd))
		if !d.IsInt64() || d.Int64() > math.MaxInt32 || d.Int64() < math.MinInt32 {
			return iv, bad
		}
		iv.Days = int32(d.Int64())
		frac := new(big.Rat).Sub(r, new(big.Rat).SetInt(whole))
		n := new(big.Rat).Mul(frac, new(big.Rat).SetInt64(dd*nanosPerDay))
		iv.Nanoseconds = roundRat(n)
	default:
		n := new(big.Rat).Mul(r, new(big.Rat).SetInt64(ns))
		x := new(big.Int).Quo(n.Num(), n.Denom())
		if !x.IsInt64() {
			return iv, bad
		}
		iv.Nanoseconds = x.Int64()
	}
	return iv, nil
}

func roundRat(r *big.Rat) int64 {
	q, m := new(big.Int).QuoRem(r.Num(), r.Denom(), new(big.Int))
	if m.Abs(m).Lsh(m, 1).Cmp(r.Denom()) >= 0 {
		q.Add(q, big.NewInt(int64(r.Sign())))
	}
	return q.Int64()
}

// parseIntervalText parses PostgreSQL-style interval text.
func parseIntervalText(s string) (arrow.MonthDayNanoInterval, error) {
	var out arrow.MonthDayNanoInterval
	fields := strings.Fields(strings.ToLower(s))
	if len(fields) > 0 && fields[0] == "@" {
		fields = fields[1:]
	}
	ago := false
	if len(fields) > 0 && fields[len(fields)-1] == "ago" {
		ago = true
		fields = fields[:len(fields)-1]
	}
	if len(fields) == 0 {
		return out, invalidf("invalid INTERVAL %q", s)
	}
	var months, days, nanos int64
	add := func(iv arrow.MonthDayNanoInterval) bool {
		months += int64(iv.Months)
		days += int64(iv.Days)
		n := nanos + iv.Nanoseconds
		if (n > nanos) != (iv.Nanoseconds > 0) && iv.Nanoseconds != 0 {
			return false
		}
		nanos = n
		return true
	}
	for i := 0; i < len(fields); i++ {
		f := fields[i]
		if strings.Contains(f, ":") {
			neg := strings.HasPrefix(f, "-")
			c := strings.TrimLeft(f, "+-")
			if strings.Count(c, ":") == 1 {
				c += ":00"
			}
			nod, _, ok := parseClockAny(c)
			if !ok {
				return out, invalidf("invalid INTERVAL %q", s)
			}
			if neg {
				nod = -nod
			}
			if !add(arrow.MonthDayNanoInterval{Nanoseconds: nod}) {
				return out, invalidf("INTERVAL %q is out of range", s)
			}
			continue
		}
		val, unit := f, ""
		// "3days" or "3 days"
		j := 0
		for j < len(f) && (f[j] == '-' || f[j] == '+' || f[j] == '.' || f[j] >= '0' && f[j] <= '9') {
			j++
		}
		if j < len(f) {
			val, unit = f[:j], f[j:]
		} else if i+1 < len(fields) {
			i++
			unit = fields[i]
		} else {
			return out, invalidf("invalid INTERVAL %q: %s has no unit", s, f)
		}
		iv, err := intervalOf(val, unit)
		if err != nil {
			return out, invalidf("invalid INTERVAL %q: %v", s, err)
		}
		if !add(iv) {
			return out, invalidf("INTERVAL %q is out of range", s)
		}
	}
	if ago {
		months, days, nanos = -months, -days, -nanos
	}
	if months > math.MaxInt32 || months < math.MinInt32 || days > math.MaxInt32 || days < math.MinInt32 || nanos == math.MinInt64 {
		return out, invalidf("INTERVAL %q is out of range", s)
	}
	return arrow.MonthDayNanoInterval{Months: int32(months), Days: int32(days), Nanoseconds: nanos}, nil
}

// parseClockAny is parseClock without the 24-hour limit (interval times).
func parseClockAny(s string) (int64, int, bool) {
	hs, rest, ok := strings.Cut(s, ":")
	if !ok || !digits(hs) || len(hs) > 9 {
		return 0, 0, false
	}
	h, _ := strconv.ParseInt(hs, 10, 64)
	nod, fd, ok := parseClock("00:" + rest)
	if !ok {
		return 0, 0, false
	}
	return h*3600e9 + nod, fd, true
}

// decimalScalar builds a DECIMAL scalar from unscaled digits.
func decimalScalar(n decimal128.Num, p, s int32) scalar.Scalar {
	return scalar.NewDecimal128Scalar(n, DecimalType(p, s))
}

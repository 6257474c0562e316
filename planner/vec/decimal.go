package vec

import (
	"math"
	"math/big"
	"math/bits"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

// Exact DECIMAL helpers over decimal128.Num: checked arithmetic, HALF_UP
// rescaling, parsing and formatting.

type num = decimal128.Num

var pow10i64 = func() [19]int64 {
	var p [19]int64
	p[0] = 1
	for i := 1; i < 19; i++ {
		p[i] = p[i-1] * 10
	}
	return p
}()

func pow10Num(k int32) num { return decimal128.GetScaleMultiplier(int(k)) }

// asInt64 reports whether n fits an int64 (and returns it).
func asInt64(n num) (int64, bool) {
	lo, hi := n.LowBits(), n.HighBits()
	if (hi == 0 && int64(lo) >= 0) || (hi == -1 && int64(lo) < 0) {
		return int64(lo), true
	}
	return 0, false
}

// fitsPrec reports |n| < 10^p.
func fitsPrec(n num, p int32) bool {
	if p >= 39 {
		return true
	}
	if v, ok := asInt64(n); ok && p >= 19 {
		_ = v
		return true
	}
	return n.FitsInPrecision(p)
}

// addNum returns a+b, false on 128-bit overflow.
func addNum(a, b num) (num, bool) {
	r := a.Add(b)
	if (a.HighBits() < 0) == (b.HighBits() < 0) && (r.HighBits() < 0) != (a.HighBits() < 0) {
		return r, false
	}
	return r, true
}

func subNum(a, b num) (num, bool) {
	r := a.Sub(b)
	if (a.HighBits() < 0) != (b.HighBits() < 0) && (r.HighBits() < 0) != (a.HighBits() < 0) {
		return r, false
	}
	return r, true
}

// mulNum returns a*b exactly, false when it does not fit 128 bits.
func mulNum(a, b num) (num, bool) {
	x, ok1 := asInt64(a)
	y, ok2 := asInt64(b)
	if ok1 && ok2 {
		neg := (x < 0) != (y < 0)
		ux, uy := absU(x), absU(y)
		hi, lo := bits.Mul64(ux, uy)
		r := decimal128.New(int64(hi), lo) // |r| < 2^126
		if neg {
			r = r.Negate()
		}
		return r, true
	}
	p := new(big.Int).Mul(a.BigInt(), b.BigInt())
	if p.BitLen() > 127 {
		return num{}, false
	}
	return decimal128.FromBigInt(p), true
}

func absU(x int64) uint64 {
	if x < 0 {
		return uint64(-x) // MinInt64 wraps to 2^63, which is right as uint64
	}
	return uint64(x)
}

// rescale converts n from scale `from` to scale `to`, rounding HALF_UP
// (away from zero on ties) when the scale shrinks; false on overflow.
func rescale(n num, from, to int32) (num, bool) {
	switch {
	case to == from:
		return n, true
	case to > from:
		d := to - from
		if d > 38 {
			return num{}, n.Sign() == 0
		}
		return mulNum(n, pow10Num(d))
	}
	d := from - to
	if d > 38 {
		return num{}, true
	}
	if v, ok := asInt64(n); ok && d <= 18 {
		p := pow10i64[d]
		q, r := v/p, v%p
		if r >= (p+1)/2 {
			q++
		} else if -r >= (p+1)/2 {
			q--
		}
		return decimal128.FromI64(q), true
	}
	q, r := new(big.Int).QuoRem(n.BigInt(), pow10Num(d).BigInt(), new(big.Int))
	r.Abs(r).Lsh(r, 1)
	if r.Cmp(pow10Num(d).BigInt()) >= 0 {
		q.Add(q, big.NewInt(int64(n.Sign())))
	}
	return decimal128.FromBigInt(q), true
}

// cmpNum compares two Nums.
func cmpNum(a, b num) int {
	ah, bh := a.HighBits(), b.HighBits()
	if ah != bh {
		if ah < bh {
			return -1
		}
		return 1
	}
	al, bl := a.LowBits(), b.LowBits()
	switch {
	case al < bl:
		return -1
	case al > bl:
		return 1
	}
	return 0
}

// formatNum renders n at scale s ("1.50", "-0.07").
func formatNum(n num, s int32) string {
	var digits string
	neg := n.Sign() < 0
	if v, ok := asInt64(n); ok && v != math.MinInt64 {
		if neg {
			v = -v
		}
		digits = uitoa(uint64(v))
	} else {
		b := n.BigInt()
		digits = b.Abs(b).String()
	}
	if s > 0 {
		if len(digits) <= int(s) {
			digits = strings.Repeat("0", int(s)-len(digits)+1) + digits
		}
		k := len(digits) - int(s)
		digits = digits[:k] + "." + digits[k:]
	}
	if neg {
		return "-" + digits
	}
	return digits
}

func uitoa(v uint64) string {
	var b [20]byte
	i := len(b)
	for {
		i--
		b[i] = byte('0' + v%10)
		v /= 10
		if v == 0 {
			break
		}
	}
	return string(b[i:])
}

// parseDecimalText parses a plain decimal number ("-12.340", "+.5", "7.")
// into its unscaled digits, precision and scale (exponents are not
// accepted here). ok is false for anything else or more than 38 digits.
func parseDecimalText(s string) (n num, prec, scale int32, ok bool) {
	if s == "" {
		return n, 0, 0, false
	}
	neg := false
	if s[0] == '+' || s[0] == '-' {
		neg = s[0] == '-'
		s = s[1:]
	}
	intPart, frac, hasDot := strings.Cut(s, ".")
	if intPart == "" && frac == "" || strings.ContainsAny(frac, ".") {
		return n, 0, 0, false
	}
	_ = hasDot
	for _, part := range []string{intPart, frac} {
		for i := 0; i < len(part); i++ {
			if part[i] < '0' || part[i] > '9' {
				return n, 0, 0, false
			}
		}
	}
	digits := strings.TrimLeft(intPart, "0") + frac
	scale = int32(len(frac))
	sig := strings.TrimLeft(digits, "0")
	prec = int32(len(sig))
	if prec < scale {
		prec = scale
	}
	if prec == 0 {
		prec = 1
	}
	if prec > 38 {
		return n, prec, scale, false
	}
	if len(sig) <= 18 {
		var v int64
		for i := 0; i < len(sig); i++ {
			v = v*10 + int64(sig[i]-'0')
		}
		if neg {
			v = -v
		}
		return decimal128.FromI64(v), prec, scale, true
	}
	b, _ := new(big.Int).SetString(sig, 10)
	if neg {
		b.Neg(b)
	}
	return decimal128.FromBigInt(b), prec, scale, true
}

// parseDecimalTo parses s (plain or with an exponent) into DECIMAL(p,s),
// rounding HALF_UP; ok false when it is not a number or does not fit.
func parseDecimalTo(s string, p, sc int32) (num, bool) {
	mant, exp := s, int64(0)
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		mant = s[:i]
		e, ok := parseSmallInt(s[i+1:])
		if !ok {
			return num{}, false
		}
		exp = e
	}
	n, _, scale, ok := parseDecimalText(mant)
	if !ok {
		// more than 38 digits: go through big.Rat
		r, ok2 := new(big.Rat).SetString(s)
		if !ok2 {
			return num{}, false
		}
		return ratToNum(r, p, sc)
	}
	eff := int64(scale) - exp
	if eff < -76 || eff > 76 {
		r, ok2 := new(big.Rat).SetString(s)
		if !ok2 {
			return num{}, false
		}
		return ratToNum(r, p, sc)
	}
	var out num
	if eff >= 0 && eff <= 38 {
		out, ok = rescale(n, int32(eff), sc)
	} else {
		r, _ := new(big.Rat).SetString(s)
		return ratToNum(r, p, sc)
	}
	if !ok || !fitsPrec(out, p) {
		return num{}, false
	}
	return out, true
}

func parseSmallInt(s string) (int64, bool) {
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-'
		s = s[1:]
	}
	if s == "" || len(s) > 6 {
		return 0, false
	}
	var v int64
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		v = v*10 + int64(s[i]-'0')
	}
	if neg {
		v = -v
	}
	return v, true
}

// ratToNum rounds r HALF_UP to scale sc and checks precision p.
func ratToNum(r *big.Rat, p, sc int32) (num, bool) {
	scaled := new(big.Rat).Mul(r, new(big.Rat).SetInt(pow10Num(sc).BigInt()))
	q, rem := new(big.Int).QuoRem(scaled.Num(), scaled.Denom(), new(big.Int))
	rem.Abs(rem).Lsh(rem, 1)
	if rem.Cmp(scaled.Denom()) >= 0 {
		q.Add(q, big.NewInt(int64(scaled.Sign())))
	}
	if q.BitLen() > 127 {
		return num{}, false
	}
	out := decimal128.FromBigInt(q)
	return out, fitsPrec(out, p)
}

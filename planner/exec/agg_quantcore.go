package exec

import (
	"context"
	"math"
	"math/big"
	"math/bits"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/scalar"
)

// quantFrac is a QUANTILE fraction q in [0, 1]: f always; num/den (den > 0)
// when q was an exact DECIMAL constant (QUANTILE_DISC then picks its index
// with integer arithmetic, as DuckDB does for a DECIMAL fraction).
type quantFrac struct {
	f        float64
	num, den uint64
}

// quantFracOf reads a constant fraction.
func quantFracOf(s scalar.Scalar) (quantFrac, bool) {
	if d, ok := s.(*scalar.Decimal128); ok && d.IsValid() {
		scale := d.Type.(*arrow.Decimal128Type).Scale
		q := quantFrac{f: d.Value.ToFloat64(scale)}
		if scale >= 0 && scale <= 38 && d.Value.Sign() >= 0 {
			num := d.Value.BigInt()
			den := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scale)), nil)
			// The nearest float64 (ToFloat64 makes 0.3 0.30000000000000004,
			// which moves (n-1)·q across an integer).
			q.f, _ = new(big.Rat).SetFrac(num, den).Float64()
			g := new(big.Int).GCD(nil, nil, num, den)
			if g.Sign() > 0 {
				num.Quo(num, g)
				den.Quo(den, g)
			}
			if num.IsUint64() && den.IsUint64() {
				q.num, q.den = num.Uint64(), den.Uint64()
			}
		}
		return q, true
	}
	if i, ok := s.(*scalar.Int64); ok && i.IsValid() && i.Value >= 0 && i.Value <= 1 {
		return quantFrac{f: float64(i.Value), num: uint64(i.Value), den: 1}, true
	}
	f, ok := aggConstFloat(s)
	return quantFrac{f: f}, ok
}

// discIndex is QUANTILE_DISC's 0-based index among n (> 0) sorted values:
// max(1, n - floor(n - n·q)) - 1, i.e. max(1, ceil(n·q)) - 1 (DuckDB's
// formula; exact for a DECIMAL fraction, in float64 otherwise).
func (q quantFrac) discIndex(n int) int {
	var floored int
	if q.den > 0 && q.num <= q.den {
		// floor(n·(den-num)/den) with a 128-bit product.
		hi, lo := bits.Mul64(uint64(n), q.den-q.num)
		quo, _ := bits.Div64(hi, lo, q.den) // hi < den: the quotient is at most n
		floored = int(quo)
	} else {
		// float64(...) keeps the product rounded (no fused multiply-add).
		floored = int(math.Floor(float64(n) - float64(float64(n)*q.f)))
	}
	return min(max(1, n-floored)-1, n-1)
}

// contPos is QUANTILE_CONT's position among n (> 0) sorted values: the
// indexes below and above RN = (n-1)·q and the fraction d = RN - lo.
func (q quantFrac) contPos(n int) (lo, hi int, d float64) {
	rn := float64(float64(n-1) * q.f)
	flo, fhi := math.Floor(rn), math.Ceil(rn)
	lo, hi = int(flo), int(fhi)
	if hi > n-1 {
		hi = n - 1
	}
	if lo > hi {
		lo = hi
	}
	return lo, hi, rn - flo
}

// quantInterpFloat is DuckDB's DOUBLE interpolation lo·(1-d) + hi·d.
func quantInterpFloat(x0, x1, d float64) float64 { return float64(x0*(1-d)) + float64(x1*d) }

// two53 bounds the integers a float64 holds exactly.
const two53 = 1 << 53

// quantInterpDec interpolates two DECIMAL values (unscaled, x0 <= x1) of
// precision prec at fraction d in [0, 1), as DuckDB 1.5 does:
//   - precision <= 18 (DuckDB holds the value in an int64 or smaller):
//     x0 + trunc(float64(x1 - x0)·d), so the result rounds down;
//   - precision > 18 (a hugeint): trunc(float64(x0)·(1-d) + float64(x1)·d),
//     which rounds towards zero. DuckDB converts to float64 also when the
//     values do not fit its 53 bits and so loses digits; there we compute
//     the same expression exactly instead (x0 + (x1-x0)·d truncated towards
//     zero), a documented deviation.
func quantInterpDec(x0, x1 decimal128.Num, d float64, prec int32) decimal128.Num {
	if prec <= 18 {
		a, b := int64(x0.LowBits()), int64(x1.LowBits())
		return decimal128.FromI64(a + int64(float64(float64(b-a)*d)))
	}
	if fitsExactFloat(x0) && fitsExactFloat(x1) {
		a, b := float64(int64(x0.LowBits())), float64(int64(x1.LowBits()))
		return decimal128.FromI64(int64(float64(a*(1-d)) + float64(b*d)))
	}
	lo := new(big.Rat).SetInt(x0.BigInt())
	diff := new(big.Rat).SetInt(new(big.Int).Sub(x1.BigInt(), x0.BigInt()))
	df := new(big.Rat)
	df.SetFloat64(d)
	lo.Add(lo, diff.Mul(diff, df))
	// big.Int.Quo truncates towards zero.
	return decimal128.FromBigInt(new(big.Int).Quo(lo.Num(), lo.Denom()))
}

// fitsExactFloat reports whether the unscaled value n is an int64 within
// ±2^53 (so DuckDB's conversion to float64 is exact).
func fitsExactFloat(n decimal128.Num) bool {
	hi, lo := n.HighBits(), n.LowBits()
	if hi == 0 {
		return lo <= two53
	}
	if hi == -1 {
		return int64(lo) < 0 && int64(lo) >= -two53
	}
	return false
}

// quantDiscOrdered reports whether QUANTILE_DISC over t runs as an
// ordered aggregate (types other than DOUBLE/DECIMAL with an order).
func quantDiscOrdered(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.NULL, arrow.DECIMAL128, arrow.FLOAT16, arrow.FLOAT32, arrow.FLOAT64,
		arrow.LIST, arrow.LARGE_LIST, arrow.FIXED_SIZE_LIST, arrow.STRUCT, arrow.MAP:
		return false
	}
	return Orderable(t)
}

// quantDiscFinish picks each group's QUANTILE_DISC value: perm lists the
// non-NULL rows sorted by group then value, gs[r] is row r's group.
func quantDiscFinish(mem memory.Allocator, q quantFrac, n int, vals arrow.Array, gs []int32, perm []int32) (arrow.Array, error) {
	idx := make([]int32, n)
	valid := make([]bool, n)
	for s := 0; s < len(perm); {
		g := gs[perm[s]]
		e := s
		for e < len(perm) && gs[perm[e]] == g {
			e++
		}
		idx[g], valid[g] = perm[s+q.discIndex(e-s)], true
		s = e
	}
	return takeInt32(context.Background(), mem, vals, idx, valid)
}

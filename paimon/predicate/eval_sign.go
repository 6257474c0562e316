package predicate

import (
	"math"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

// Branch-free comparison loops. Filter results on real data are
// unpredictable, so a compare-and-branch per row mispredicts about half
// the time; these loops compute the result from the sign of v - lit
// instead. The callers guarantee that v - lit and lit - v cannot overflow
// an int64 (narrow integer columns; DECIMAL values below 10^18 with the
// literal clamped to ±10^18).

// signLoop writes tri(v op lit) for vals[0], vals[stride], ... into out.
func signLoop(vals []int64, stride int, lit int64, op Op, out []uint8) {
	n := len(out)
	if n == 0 {
		return
	}
	_ = vals[(n-1)*stride]
	switch op {
	case Lt: // v - lit < 0
		for i := range out {
			out[i] = uint8(uint64(vals[i*stride]-lit)>>63) << 1
		}
	case GtEq:
		for i := range out {
			out[i] = (uint8(uint64(vals[i*stride]-lit)>>63) ^ 1) << 1
		}
	case Gt: // lit - v < 0
		for i := range out {
			out[i] = uint8(uint64(lit-vals[i*stride])>>63) << 1
		}
	case LtEq:
		for i := range out {
			out[i] = (uint8(uint64(lit-vals[i*stride])>>63) ^ 1) << 1
		}
	case Eq: // d | -d has the sign bit set iff d != 0
		for i := range out {
			d := vals[i*stride] - lit
			out[i] = (uint8(uint64(d|-d)>>63) ^ 1) << 1
		}
	case NotEq:
		for i := range out {
			d := vals[i*stride] - lit
			out[i] = uint8(uint64(d|-d)>>63) << 1
		}
	}
}

// narrowLoop is signLoop for 8-, 16- and 32-bit columns (DATE included);
// lit is clamped just outside the type's range, which changes no result.
func narrowLoop[T ~int8 | ~int16 | ~int32](vals []T, lit int64, op Op, out []uint8) {
	lit = max(min(lit, math.MaxInt32+1), math.MinInt32-1)
	out = out[:len(vals)]
	switch op {
	case Lt:
		for i, v := range vals {
			out[i] = uint8(uint64(int64(v)-lit)>>63) << 1
		}
	case GtEq:
		for i, v := range vals {
			out[i] = (uint8(uint64(int64(v)-lit)>>63) ^ 1) << 1
		}
	case Gt:
		for i, v := range vals {
			out[i] = uint8(uint64(lit-int64(v))>>63) << 1
		}
	case LtEq:
		for i, v := range vals {
			out[i] = (uint8(uint64(lit-int64(v))>>63) ^ 1) << 1
		}
	case Eq:
		for i, v := range vals {
			d := int64(v) - lit
			out[i] = (uint8(uint64(d|-d)>>63) ^ 1) << 1
		}
	case NotEq:
		for i, v := range vals {
			d := int64(v) - lit
			out[i] = uint8(uint64(d|-d)>>63) << 1
		}
	}
}

// decCmpLoop compares DECIMAL values of precision <= 18 (each fits an
// int64, held in the low word) with lit. ok=false when some value does
// not fit (a value beyond the declared precision: a damaged file); out is
// then garbage.
func decCmpLoop(vals []decimal128.Num, lit decimal128.Num, op Op, out []uint8) (ok bool) {
	var bad int64
	for i := range vals {
		v := vals[i]
		x := int64(v.LowBits())
		// beyond the 18 digits, or not a sign-extended int64
		bad |= v.HighBits() ^ x>>63
		if x >= dec18 || x <= -dec18 {
			bad = 1
		}
	}
	if bad != 0 {
		return false
	}
	var x int64
	switch {
	case lit.Greater(decimal128.FromI64(dec18)):
		x = dec18
	case lit.Less(decimal128.FromI64(-dec18)):
		x = -dec18
	default:
		x = int64(lit.LowBits())
	}
	if len(vals) == 0 {
		return true
	}
	// the low words, as int64s, every other one (decimal128.Num is {lo, hi})
	words := unsafe.Slice((*int64)(unsafe.Pointer(unsafe.SliceData(vals))), 2*len(vals))
	signLoop(words, 2, x, op, out[:len(vals)])
	return true
}

// dec18 is 10^18: |v| < dec18 for every DECIMAL value of precision <= 18.
const dec18 = 1_000_000_000_000_000_000

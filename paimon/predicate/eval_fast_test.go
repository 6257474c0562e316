package predicate

import (
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestFastLeafMatchesReference checks the typed comparison loops against
// values compared in Go, NULLs included, for every operator.
func TestFastLeafMatchesReference(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rng := rand.New(rand.NewPCG(7, 11))
	const n = 500
	raw := make([]int64, n)
	valid := make([]bool, n)
	for i := range raw {
		raw[i] = rng.Int64N(21) - 10
		valid[i] = rng.IntN(5) != 0
	}
	i32 := array.NewInt32Builder(mem)
	i64 := array.NewInt64Builder(mem)
	d32 := array.NewDate32Builder(mem)
	dec := array.NewDecimal128Builder(mem, &arrow.Decimal128Type{Precision: 10, Scale: 2})
	big2 := array.NewDecimal128Builder(mem, &arrow.Decimal128Type{Precision: 38, Scale: 2})
	str := array.NewStringBuilder(mem)
	i16 := array.NewInt16Builder(mem)
	for i, v := range raw {
		if !valid[i] {
			i32.AppendNull()
			i64.AppendNull()
			d32.AppendNull()
			dec.AppendNull()
			big2.AppendNull()
			str.AppendNull()
			i16.AppendNull()
			continue
		}
		i32.Append(int32(v))
		i64.Append(v)
		d32.Append(arrow.Date32(v))
		dec.Append(decimal128.FromI64(v * 100))
		big2.Append(decimal128.FromBigInt(bigScaled(v)))
		str.Append(strOf(v))
		i16.Append(int16(v))
	}
	cols := []arrow.Array{i32.NewArray(), i64.NewArray(), d32.NewArray(), dec.NewArray(), big2.NewArray(), str.NewArray(), i16.NewArray()}
	for _, b := range []array.Builder{i32, i64, d32, dec, big2, str, i16} {
		b.Release()
	}
	defer func() {
		for _, c := range cols {
			c.Release()
		}
	}()
	ops := []Op{Eq, NotEq, Lt, LtEq, Gt, GtEq, In, NotIn}
	litOf := func(ci int, v int64) any {
		switch ci {
		case 3:
			return Decimal{Unscaled: big.NewInt(v * 100), Scale: 2}
		case 4:
			return Decimal{Unscaled: bigScaled(v), Scale: 2}
		case 5:
			return strOf(v)
		}
		return v
	}
	for ci, col := range cols {
		for _, op := range ops {
			for lit := int64(-11); lit <= 11; lit += 3 {
				set := []int64{lit}
				if op == In || op == NotIn {
					set = []int64{lit, lit + 1, -lit}
				}
				l := &Leaf{Op: op}
				for _, v := range set {
					l.Literals = append(l.Literals, litOf(ci, v))
				}
				out := make([]uint8, n)
				if !fastLeaf(l, col, out) {
					t.Fatalf("column %d op %v: fast path not taken", ci, op)
				}
				for i, v := range raw {
					want := tUnknown
					if valid[i] {
						if op == In || op == NotIn {
							want = tFalse
							if slices.Contains(set, v) == (op == In) {
								want = tTrue
							}
						} else {
							want = refCmp(v, lit, op)
						}
					}
					if out[i] != want {
						t.Fatalf("column %d: %d %v %d = %d, want %d", ci, v, op, lit, out[i], want)
					}
				}
			}
		}
	}
}

// bigScaled is v·10^20: a DECIMAL(38,2) whose high 64 bits are in use.
func bigScaled(v int64) *big.Int {
	return new(big.Int).Mul(big.NewInt(v), new(big.Int).Exp(big.NewInt(10), big.NewInt(20), nil))
}

// strOf maps -11..11 to one-byte strings in the same order.
func strOf(v int64) string { return string(rune('a' + v + 12)) }

// TestDecimalSmallPrecisionEdges: a DECIMAL(18, 0) column compared with
// literals beyond ±2^63 (clamped), and a value beyond its declared
// precision (a damaged file) that must still compare exactly.
func TestDecimalSmallPrecisionEdges(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	b := array.NewDecimal128Builder(mem, &arrow.Decimal128Type{Precision: 18, Scale: 0})
	huge := new(big.Int).Lsh(big.NewInt(1), 70) // beyond the precision and int64
	vals := []*big.Int{big.NewInt(-999999999999999999), big.NewInt(0), big.NewInt(999999999999999999)}
	for _, v := range vals {
		b.Append(decimal128.FromBigInt(v))
	}
	arr := b.NewArray()
	b.Release()
	defer arr.Release()
	for _, tc := range []struct {
		lit  *big.Int
		op   Op
		want []uint8
	}{
		{huge, Lt, []uint8{tTrue, tTrue, tTrue}},
		{new(big.Int).Neg(huge), Gt, []uint8{tTrue, tTrue, tTrue}},
		{huge, Eq, []uint8{tFalse, tFalse, tFalse}},
		{big.NewInt(0), GtEq, []uint8{tFalse, tTrue, tTrue}},
	} {
		out := make([]uint8, 3)
		if !fastLeaf(&Leaf{Op: tc.op, Literals: []Literal{Decimal{Unscaled: tc.lit, Scale: 0}}}, arr, out) {
			// literals beyond 126 bits leave the fast path; these do not
			t.Fatalf("%v %v: fast path not taken", tc.op, tc.lit)
		}
		if !slices.Equal(out, tc.want) {
			t.Errorf("%v %v: got %v, want %v", tc.op, tc.lit, out, tc.want)
		}
	}
	// damaged: a value of 2^70 in a DECIMAL(18, 0) column
	b2 := array.NewDecimal128Builder(mem, &arrow.Decimal128Type{Precision: 18, Scale: 0})
	b2.Append(decimal128.FromBigInt(huge))
	b2.Append(decimal128.FromI64(5))
	bad := b2.NewArray()
	b2.Release()
	defer bad.Release()
	out := make([]uint8, 2)
	if !fastLeaf(&Leaf{Op: Gt, Literals: []Literal{Decimal{Unscaled: big.NewInt(10), Scale: 0}}}, bad, out) {
		t.Fatal("fast path not taken")
	}
	if !slices.Equal(out, []uint8{tTrue, tFalse}) {
		t.Errorf("damaged value: got %v, want [TRUE FALSE]", out)
	}
}

// TestNarrowLoopExtremeLiterals: comparisons of 8- and 32-bit columns with
// literals far outside their range (clamped) and at the range's edges.
func TestNarrowLoopExtremeLiterals(t *testing.T) {
	v8 := []int8{math.MinInt8, -1, 0, 1, math.MaxInt8}
	v32 := []int32{math.MinInt32, -1, 0, 1, math.MaxInt32}
	lits := []int64{math.MinInt64, math.MinInt32 - 1, math.MinInt32, math.MinInt8, -1, 0, 1,
		math.MaxInt8, math.MaxInt32, math.MaxInt32 + 1, math.MaxInt64}
	for _, op := range []Op{Eq, NotEq, Lt, LtEq, Gt, GtEq} {
		for _, lit := range lits {
			out := make([]uint8, 5)
			narrowLoop(v8, lit, op, out)
			for i, v := range v8 {
				if want := refCmp(int64(v), lit, op); out[i] != want {
					t.Errorf("int8 %d %v %d = %d, want %d", v, op, lit, out[i], want)
				}
			}
			narrowLoop(v32, lit, op, out)
			for i, v := range v32 {
				if want := refCmp(int64(v), lit, op); out[i] != want {
					t.Errorf("int32 %d %v %d = %d, want %d", v, op, lit, out[i], want)
				}
			}
		}
	}
}

// refCmp is the reference result of v op lit (a comparison operator).
func refCmp(v, lit int64, op Op) uint8 {
	var c bool
	switch op {
	case Eq:
		c = v == lit
	case NotEq:
		c = v != lit
	case Lt:
		c = v < lit
	case LtEq:
		c = v <= lit
	case Gt:
		c = v > lit
	case GtEq:
		c = v >= lit
	}
	if c {
		return tTrue
	}
	return tFalse
}

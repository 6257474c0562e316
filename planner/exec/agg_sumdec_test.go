package exec

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

var sumDec38 = new(big.Int).Exp(big.NewInt(10), big.NewInt(38), nil)

// sumDecDraw draws an unscaled DECIMAL(38) value of one of several kinds:
// small, around ±2^63 (int64 overflow), near 10^38, near 10^37.
func sumDecDraw(rng *rand.Rand, kind int) *big.Int {
	var v *big.Int
	switch kind {
	case 0:
		v = big.NewInt(rng.Int64N(1_000_000) - 500_000)
	case 1:
		v = new(big.Int).Lsh(big.NewInt(1), 63)
		v.Sub(v, big.NewInt(rng.Int64N(1000)))
	case 2:
		v = new(big.Int).Sub(sumDec38, big.NewInt(1+rng.Int64N(1000)))
	default:
		v = new(big.Int).Quo(sumDec38, big.NewInt(10+rng.Int64N(10)))
	}
	if rng.IntN(2) == 0 {
		v.Neg(v)
	}
	return v
}

// TestAggSumDecimalsExact checks SUM(decimal) against math/big on random
// values (groups, NULLs via the mask, sliced arrays, scales 0–10) and that
// totals past 38 digits are errors.
func TestAggSumDecimalsExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(42, 99))
	mixes := []struct {
		name  string
		kinds []int
	}{
		{"small", []int{0}},
		{"int64edge", []int{0, 1}},
		{"int64edgeOnly", []int{1}},
		{"mixed", []int{0, 1, 3}},
		{"near38", []int{0, 2}},
		{"near37", []int{1, 3}},
	}
	for iter := 0; iter < 120; iter++ {
		mix := mixes[iter%len(mixes)]
		scale := int32(rng.IntN(11))
		groups := 1 + rng.IntN(5)
		rows := 1 + rng.IntN(3000)
		off := rng.IntN(7)
		masked := rng.IntN(2) == 0
		t.Run(fmt.Sprintf("%d_%s_s%d_g%d_n%d_mask%v", iter, mix.name, scale, groups, rows, masked), func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			dt := &arrow.Decimal128Type{Precision: 38, Scale: scale}
			b := array.NewDecimal128Builder(mem, dt)
			defer b.Release()
			vals := make([]*big.Int, rows)
			for i := 0; i < off; i++ {
				b.Append(decimal128.FromBigInt(sumDecDraw(rng, 2))) // before the slice
			}
			for i := range vals {
				vals[i] = sumDecDraw(rng, mix.kinds[rng.IntN(len(mix.kinds))])
				b.Append(decimal128.FromBigInt(vals[i]))
			}
			b.Append(decimal128.FromBigInt(sumDecDraw(rng, 2))) // after the slice
			full := b.NewArray()
			defer full.Release()
			col := array.NewSlice(full, int64(off), int64(off+rows))
			defer col.Release()

			var mask []byte
			if masked {
				mask = make([]byte, bitutil.BytesForBits(int64(rows)))
			}
			gids := make([]int32, rows)
			want := make([]*big.Int, groups)
			cnt := make([]int64, groups)
			for g := range want {
				want[g] = new(big.Int)
			}
			for i := range gids {
				g := int32(rng.IntN(groups))
				gids[i] = g
				if masked {
					if rng.IntN(5) == 0 {
						continue // NULL (or filtered) row
					}
					bitutil.SetBit(mask, i)
				}
				want[g].Add(want[g], vals[i])
				cnt[g]++
			}
			check := func(t *testing.T, a *aggSum) {
				for g := 0; g < groups; g++ {
					got, err := a.total(g)
					over := new(big.Int).Abs(want[g]).Cmp(sumDec38) >= 0
					if over {
						if err == nil || !strings.Contains(err.Error(), "out of the range") {
							t.Fatalf("group %d: sum %s past 38 digits gave %s, %v", g, want[g], got.BigInt(), err)
						}
						continue
					}
					if err != nil {
						t.Fatalf("group %d: %v (want %s)", g, err, want[g])
					}
					if got.BigInt().Cmp(want[g]) != 0 || a.cnt[g] != cnt[g] {
						t.Fatalf("group %d: got %s (count %d), want %s (count %d)", g, got.BigInt(), a.cnt[g], want[g], cnt[g])
					}
				}
			}
			// in two batches through update (sliced input), then merged
			half := rows / 2
			a1 := &aggSum{name: "s", scale: scale}
			a1.resize(groups)
			c1 := array.NewSlice(col, 0, int64(half))
			c2 := array.NewSlice(col, int64(half), int64(rows))
			defer c1.Release()
			defer c2.Release()
			var m1, m2 []byte
			if masked {
				m1 = make([]byte, bitutil.BytesForBits(int64(half)))
				m2 = make([]byte, bitutil.BytesForBits(int64(rows-half)))
				bitutil.CopyBitmap(mask, 0, half, m1, 0)
				bitutil.CopyBitmap(mask, half, rows-half, m2, 0)
			}
			if err := a1.update([]arrow.Array{c1}, m1, gids[:half]); err != nil {
				t.Fatal(err)
			}
			a2 := &aggSum{name: "s", scale: scale}
			a2.resize(groups)
			if err := a2.update([]arrow.Array{c2}, m2, gids[half:]); err != nil {
				t.Fatal(err)
			}
			id := make([]int32, groups)
			for g := range id {
				id[g] = int32(g)
			}
			if err := a1.merge(a2, id); err != nil {
				t.Fatal(err)
			}
			check(t, a1)
			// and against the old kernel on the whole slice
			ab := &aggSum{name: "s", scale: scale}
			ab.resize(groups)
			vs, err := aggValues[decimal128.Num](col)
			if err != nil {
				t.Fatal(err)
			}
			aggSumDecimalsBaseline(ab, vs, mask, gids)
			check(t, ab)
		})
	}
}

// BenchmarkAggSumDecimals: SUM(decimal) over 1M rows into 4 groups (Q1
// shape) and 1 group, with and without a NULL mask, before and after.
func BenchmarkAggSumDecimals(b *testing.B) {
	const n = 1 << 20
	rng := rand.New(rand.NewPCG(5, 6))
	vals := make([]decimal128.Num, n)
	for i := range vals {
		vals[i] = decimal128.FromI64(rng.Int64N(10_000_000_000_000)) // DECIMAL(38,6)-typed Q1 products
	}
	mask := make([]byte, n/8)
	for i := range mask {
		mask[i] = 0xff &^ byte(1<<(i%8))
	}
	for _, groups := range []int{1, 4} {
		gids := make([]int32, n)
		for i := range gids {
			gids[i] = int32(rng.IntN(groups))
		}
		for _, withMask := range []bool{false, true} {
			var m []byte
			if withMask {
				m = mask
			}
			for _, side := range []string{"before", "after"} {
				b.Run(fmt.Sprintf("g%d/mask=%v/%s", groups, withMask, side), func(b *testing.B) {
					a := &aggSum{name: "s", scale: 6}
					a.resize(groups)
					for b.Loop() {
						if side == "before" {
							aggSumDecimalsBaseline(a, vals, m, gids)
						} else {
							aggSumDecimals(a, vals, m, gids)
						}
					}
					b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/row")
				})
			}
		}
	}
}

package exec

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// sumIntDraw draws a BIGINT of one of several kinds: small, near ±2^63,
// uniform over the whole range (ClickBench UserID-like).
func sumIntDraw(rng *rand.Rand, kind int) int64 {
	switch kind {
	case 0:
		return rng.Int64N(1_000_000) - 500_000
	case 1:
		if rng.IntN(2) == 0 {
			return math.MaxInt64 - rng.Int64N(1000)
		}
		return math.MinInt64 + rng.Int64N(1000)
	default:
		return int64(rng.Uint64())
	}
}

// TestAggSumInt64Exact checks SUM/AVG(BIGINT) (the wrap-counting kernel)
// against math/big: one group (the branch-free loop) and several, NULLs via
// the mask, sliced arrays, sums far past int64 in both directions, two
// batches merged into a state that also summed INT32 values.
func TestAggSumInt64Exact(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 13))
	mixes := [][]int{{0}, {1}, {2}, {0, 1}, {0, 1, 2}}
	for iter := 0; iter < 100; iter++ {
		kinds := mixes[iter%len(mixes)]
		groups := 1 + rng.IntN(4)
		if iter%3 == 0 {
			groups = 1
		}
		rows := 1 + rng.IntN(4000)
		off := rng.IntN(5)
		masked := rng.IntN(2) == 0
		t.Run(fmt.Sprintf("%d_k%v_g%d_n%d_mask%v", iter, kinds, groups, rows, masked), func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			b := array.NewInt64Builder(mem)
			defer b.Release()
			for i := 0; i < off; i++ {
				b.Append(math.MaxInt64) // before the slice
			}
			vals := make([]int64, rows)
			// Runs of one sign push the sum far past ±2^63 (many wraps one way).
			sign := int64(1)
			for i := range vals {
				if rng.IntN(200) == 0 {
					sign = -sign
				}
				v := sumIntDraw(rng, kinds[rng.IntN(len(kinds))])
				if (v < 0) != (sign < 0) && v != math.MinInt64 && rng.IntN(4) != 0 {
					v = -v
				}
				vals[i] = v
				b.Append(v)
			}
			b.Append(math.MaxInt64) // after the slice
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
				g := int32(0)
				if groups > 1 {
					g = int32(rng.IntN(groups))
				}
				gids[i] = g
				if masked {
					if rng.IntN(5) == 0 {
						continue
					}
					bitutil.SetBit(mask, i)
				}
				want[g].Add(want[g], big.NewInt(vals[i]))
				cnt[g]++
			}
			// a1 first sums one INT32 value 7 per group (the branchy kernel), then half the BIGINTs.
			a1 := &aggSum{name: "s"}
			a1.resize(groups)
			i32 := array.NewInt32Builder(mem)
			seed := make([]int32, groups)
			for g := range seed {
				i32.Append(7)
				seed[g] = int32(g)
				want[g].Add(want[g], big.NewInt(7))
				cnt[g]++
			}
			ic := i32.NewArray()
			i32.Release()
			defer ic.Release()
			if err := a1.update([]arrow.Array{ic}, nil, seed); err != nil {
				t.Fatal(err)
			}
			half := rows / 2
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
			a2 := &aggSum{name: "s"}
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
			out, err := a1.finish(mem)
			if err != nil {
				t.Fatal(err)
			}
			defer out.Release()
			res := out.(*array.Decimal128)
			for g := 0; g < groups; g++ {
				if res.IsNull(g) != (cnt[g] == 0) {
					t.Fatalf("group %d: null %v with %d rows", g, res.IsNull(g), cnt[g])
				}
				if got := res.Value(g).BigInt(); cnt[g] > 0 && got.Cmp(want[g]) != 0 {
					t.Fatalf("group %d: got %s, want %s", g, got, want[g])
				}
				if a1.cnt[g] != cnt[g] {
					t.Fatalf("group %d: count %d, want %d", g, a1.cnt[g], cnt[g])
				}
			}
		})
	}
}

// BenchmarkAggSumInt64: SUM(BIGINT) of UserID-like values (an int64 sum
// overflows every few rows) over 1M rows, one group.
func BenchmarkAggSumInt64(b *testing.B) {
	const n = 1 << 20
	rng := rand.New(rand.NewPCG(5, 6))
	bl := array.NewInt64Builder(memory.NewGoAllocator())
	for i := 0; i < n; i++ {
		bl.Append(int64(rng.Uint64() >> 1))
	}
	col := bl.NewArray()
	defer col.Release()
	gids := make([]int32, n)
	for _, kernel := range []string{"branchy", "wrapcount"} {
		b.Run(kernel, func(b *testing.B) {
			a := &aggSum{name: "s"}
			a.resize(1)
			for b.Loop() {
				var err error
				if kernel == "branchy" {
					err = aggSumInts[int64](a, col, nil, gids)
				} else {
					err = aggSumInt64(a, col, nil, gids)
				}
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

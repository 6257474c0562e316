package exec

import (
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

// aggSumDecimalsBaseline is aggSumDecimals before the rewrite, kept only as
// the "before" side of the benchmarks and as a second reference.
func aggSumDecimalsBaseline(a *aggSum, vals []decimal128.Num, mask []byte, gids []int32) {
	vals = vals[:len(gids)]
	cnt, s := a.cnt, a.s
	for r, g := range gids {
		if mask != nil && !bitutil.BitIsSet(mask, r) {
			continue
		}
		cnt[g]++
		v := vals[r]
		x := int64(v.LowBits())
		if v.HighBits() != x>>63 { // needs more than 64 bits
			a.add128(g, v)
			continue
		}
		old := s[g]
		sum := old + x
		if (old^sum)&(x^sum) < 0 {
			a.add128(g, decimal128.FromI64(old))
			sum = x
		}
		s[g] = sum
	}
}

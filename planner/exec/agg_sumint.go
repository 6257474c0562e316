package exec

import "github.com/apache/arrow-go/v18/arrow"

// aggSumInt64 adds BIGINT values with two's-complement wrap-around in s:
// an add that overflows (the operands share a sign the result lacks) wraps
// by exactly ∓2⁶⁴, which carry counts (+1 when v ≥ 0, −1 when v < 0), so
// s + carry·2⁶⁴ stays the exact sum with no branch in the loop.
func aggSumInt64(a *aggSum, col arrow.Array, mask []byte, gids []int32) error {
	vals, err := aggValues[int64](col)
	if err != nil {
		return err
	}
	vals = vals[:len(gids)]
	if a.carry == nil {
		a.carry = make([]int64, len(a.s), cap(a.s))
	}
	cnt, s, carry := a.cnt, a.s, a.carry[:len(a.s)]
	if mask == nil {
		if aggOneGroup(gids) {
			g := gids[0]
			sum, c := s[g], carry[g]
			for _, v := range vals {
				old := sum
				sum = old + v
				c -= (((old ^ sum) & (v ^ sum)) >> 63) * ((v >> 63) | 1)
			}
			s[g], carry[g] = sum, c
			cnt[g] += int64(len(vals))
			return nil
		}
		for r, g := range gids {
			v := vals[r]
			cnt[g]++
			old := s[g]
			sum := old + v
			carry[g] -= (((old ^ sum) & (v ^ sum)) >> 63) * ((v >> 63) | 1)
			s[g] = sum
		}
		return nil
	}
	mask = mask[:(len(gids)+7)/8]
	for r, g := range gids {
		if mask[r>>3]&(1<<(r&7)) == 0 {
			continue
		}
		v := vals[r]
		cnt[g]++
		old := s[g]
		sum := old + v
		carry[g] -= (((old ^ sum) & (v ^ sum)) >> 63) * ((v >> 63) | 1)
		s[g] = sum
	}
	return nil
}

// aggOneGroup reports whether every row is in the same group (an
// aggregation without GROUP BY, or a batch of one key).
func aggOneGroup(gids []int32) bool {
	if len(gids) == 0 {
		return false
	}
	g := gids[0]
	for _, x := range gids {
		if x != g {
			return false
		}
	}
	return true
}

package funcs

import (
	"math"
	"testing"
)

// TestRangeCount checks the closed-form count against stepping, for
// small arguments, and at the int64 limits.
func TestRangeCount(t *testing.T) {
	for start := int64(-6); start <= 6; start++ {
		for stop := int64(-6); stop <= 6; stop++ {
			for step := int64(-4); step <= 4; step++ {
				for _, incl := range []bool{false, true} {
					want := uint64(0)
					if step != 0 {
						for v := start; step > 0 && (v < stop || incl && v == stop) || step < 0 && (v > stop || incl && v == stop); v += step {
							want++
						}
					}
					if got := rangeCount(start, stop, step, incl); got != want {
						t.Fatalf("rangeCount(%d, %d, %d, %v) = %d, want %d", start, stop, step, incl, got, want)
					}
				}
			}
		}
	}
	for _, c := range []struct {
		start, stop, step int64
		incl              bool
		want              uint64
	}{
		{math.MinInt64, math.MaxInt64, 1, false, math.MaxUint64},
		{math.MinInt64, math.MaxInt64, math.MaxInt64, false, 3},
		{math.MaxInt64, math.MinInt64, math.MinInt64, false, 2},
		{math.MaxInt64, math.MinInt64, math.MinInt64, true, 2},
		{0, math.MaxInt64, math.MaxInt64, true, 2},
		{math.MaxInt64 - 1, math.MaxInt64, 1, true, 2},
		{math.MinInt64, math.MaxInt64, 1, true, math.MaxUint64}, // 2^64 saturates
	} {
		if got := rangeCount(c.start, c.stop, c.step, c.incl); got != c.want {
			t.Errorf("rangeCount(%d, %d, %d, %v) = %d, want %d", c.start, c.stop, c.step, c.incl, got, c.want)
		}
	}
}

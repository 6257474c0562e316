package format

import (
	"slices"
	"testing"
)

// keeper keeps the listed positions (and offers nothing but KeptIn).
type keeper []int64

func (k keeper) IsDeleted(pos int64) bool { return !slices.Contains(k, pos) }

func (k keeper) KeptIn(from, to int64, fn func(pos int64)) {
	for _, p := range k {
		if p >= from && p < to {
			fn(p)
		}
	}
}

// TestKeptRowsRangeKeeper: a RangeKeeper's kept positions become the
// selection; keeping everything is "nothing deleted" (nil), nothing an empty
// selection; out-of-range and repeated positions are ignored.
func TestKeptRowsRangeKeeper(t *testing.T) {
	cases := []struct {
		k     keeper
		first int64
		n     int
		want  []int32
	}{
		{keeper{10, 12, 15}, 10, 6, []int32{0, 2, 5}},
		{keeper{10, 11, 12}, 10, 3, nil},
		{keeper{}, 10, 3, []int32{}},
		{keeper{3, 10, 10, 11, 99}, 10, 3, []int32{0, 1}},
	}
	for _, c := range cases {
		got := keptRows(c.k, c.first, c.n, nil)
		if (got == nil) != (c.want == nil) || !slices.Equal(got, c.want) {
			t.Errorf("keeper %v from %d n %d: %v, want %v", c.k, c.first, c.n, got, c.want)
		}
	}
}

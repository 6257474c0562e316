package exec

import (
	"context"
	"fmt"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

// TestWindowFloatSumCompensated: window SUM/AVG of DOUBLE are compensated
// like the grouped aggregate, in every frame shape (growing, shrinking,
// sliding, whole partition) and either sort direction: on values whose
// naive running sums lose the small addends (1e16 + 1 == 1e16), every
// frame's SUM is the exactly rounded sum and AVG that sum divided by the
// count.
func TestWindowFloatSumCompensated(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	r := rand.New(rand.NewPCG(7, 7))
	const n = 300
	rows := make([]wtRow, n)
	for i := range rows {
		o := int64(i)
		var x float64
		switch i % 4 {
		case 0:
			x = 1e16
		case 2:
			x = -1e16
		default:
			x = float64(r.IntN(9)+1) / 4
		}
		if i%37 == 5 {
			x = -582.79
		}
		rows[i] = wtRow{id: int64(i), o: &o, x: &x}
		if i%29 == 3 {
			rows[i].x = nil
		}
	}
	exact := func(lo, hi int) (float64, int64) { // SUM over rows[lo:hi] (by o)
		s := new(big.Float).SetPrec(512)
		c := int64(0)
		for _, w := range rows[max(lo, 0):min(hi, n)] {
			if w.x != nil {
				s.Add(s, new(big.Float).SetFloat64(*w.x))
				c++
			}
		}
		f, _ := s.Float64()
		return f, c
	}
	fr := func(sk int, so int64, ek int, eo int64) *Frame {
		return &Frame{Rows: true, Start: FrameBound{Kind: sk, Offset: so}, End: FrameBound{Kind: ek, Offset: eo}}
	}
	frames := []struct {
		f      *Frame
		lo, hi func(i int) int // frame of the row at position i (by o ascending)
	}{
		{fr(UnboundedPreceding, 0, CurrentRow, 0), func(int) int { return 0 }, func(i int) int { return i + 1 }},
		{fr(CurrentRow, 0, UnboundedFollowing, 0), func(i int) int { return i }, func(int) int { return n }},
		{fr(Preceding, 3, Following, 2), func(i int) int { return i - 3 }, func(i int) int { return i + 3 }},
		{fr(Preceding, 40, Preceding, 1), func(i int) int { return i - 40 }, func(i int) int { return i }},
		{fr(UnboundedPreceding, 0, UnboundedFollowing, 0), func(int) int { return 0 }, func(int) int { return n }},
	}
	for _, desc := range []bool{false, true} {
		func() {
			src := wtSource(mem, r, rows, 2)
			defer src.releaseAllParts()
			var funcs []WindowFunc
			for k, f := range frames {
				funcs = append(funcs, WindowFunc{Func: "SUM", Args: []vec.Expr{wtCol(4)}, Frame: f.f, Name: fmt.Sprintf("s%d", k)},
					WindowFunc{Func: "AVG", Args: []vec.Expr{wtCol(4)}, Frame: f.f, Name: fmt.Sprintf("a%d", k)})
			}
			w := &Window{Input: src, OrderBy: []SortKey{{Expr: wtCol(2), Desc: desc}}, Funcs: funcs}
			tc := NewTaskCtx(context.Background(), mem, nil, nil)
			bs, err := Collect(tc, w)
			if err != nil {
				t.Fatal(err)
			}
			defer releaseAll(bs)
			row := 0
			for _, b := range bs {
				for i := 0; i < int(b.NumRows()); i++ {
					pos := int(b.Column(2).(*array.Int64).Value(i)) // o = position ascending
					for k, f := range frames {
						lo, hi := f.lo(pos), f.hi(pos)
						if desc { // the frame runs over the mirrored positions
							q := n - 1 - pos // sorted position; o = n-1-q'
							lo, hi = n-min(f.hi(q), n), n-max(f.lo(q), 0)
						}
						want, cnt := exact(lo, hi)
						s, a := b.Column(wtSchema.NumFields()+2*k), b.Column(wtSchema.NumFields()+2*k+1)
						if cnt == 0 {
							if s.IsValid(i) || a.IsValid(i) {
								t.Fatalf("desc=%v frame %s row %d: SUM/AVG of no value not NULL", desc, f.f, pos)
							}
							continue
						}
						got := s.(*array.Float64).Value(i)
						if got != want {
							t.Fatalf("desc=%v frame %s row %d: SUM = %v, want %v", desc, f.f, pos, got, want)
						}
						if got, want := a.(*array.Float64).Value(i), want/float64(cnt); got != want {
							t.Fatalf("desc=%v frame %s row %d: AVG = %v, want %v", desc, f.f, pos, got, want)
						}
					}
					row++
				}
			}
			if row != n {
				t.Fatalf("%d rows, want %d", row, n)
			}
		}()
	}
}

package exec

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/scalar"

	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

// BenchmarkWindowFrames compares frame kinds over 100k rows in one
// partition ordered by a key with ~20 rows per value: the RANGE, GROUPS
// and EXCLUDE frames must cost about what a ROWS frame of similar width
// does (no O(n·w) evaluation).
func BenchmarkWindowFrames(b *testing.B) {
	mem := memory.NewGoAllocator()
	r := rand.New(rand.NewPCG(1, 2))
	rows := wtRand(r, 100_000, 1, 5000)
	src := wtSource(mem, r, rows, 1)
	defer src.releaseAllParts()
	x, o := wtCol(4), wtCol(2)
	num := func(v int64) scalar.Scalar { return scalar.NewInt64Scalar(v) }
	frames := []struct {
		name string
		fr   *Frame
	}{
		{"rows±1000", &Frame{Rows: true, Start: FrameBound{Kind: Preceding, Offset: 1000}, End: FrameBound{Kind: Following, Offset: 1000}}},
		{"range±50", &Frame{Start: FrameBound{Kind: Preceding, Value: num(50)}, End: FrameBound{Kind: Following, Value: num(50)}}},
		{"groups±50", &Frame{Groups: true, Start: FrameBound{Kind: Preceding, Offset: 50}, End: FrameBound{Kind: Following, Offset: 50}}},
		{"range±50-exclude-ties", &Frame{Start: FrameBound{Kind: Preceding, Value: num(50)}, End: FrameBound{Kind: Following, Value: num(50)}, Exclude: ExcludeTies}},
	}
	for _, fn := range []struct {
		name string
		args []vec.Expr
	}{{"SUM", []vec.Expr{x}}, {"MAX", []vec.Expr{x}}, {"STDDEV_SAMP", []vec.Expr{x}}} {
		for _, f := range frames {
			b.Run(fn.name+"/"+f.name, func(b *testing.B) {
				w := &Window{Input: src, OrderBy: []SortKey{{Expr: o}}, Funcs: []WindowFunc{{Func: fn.name, Args: fn.args, Frame: f.fr, Name: "w"}}}
				for b.Loop() {
					bs, err := Collect(NewTaskCtx(context.Background(), mem, nil, nil), w)
					if err != nil {
						b.Fatal(err)
					}
					releaseAll(bs)
				}
			})
		}
	}
}

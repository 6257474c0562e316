package exec

import (
	"context"
	"fmt"
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

// BenchmarkWindowSlide compares the sliding evaluators with the generic
// path (each frame fed to the accumulator) on 5000 rows in one partition,
// and runs them alone on 100k rows (where the generic path hits its cap).
func BenchmarkWindowSlide(b *testing.B) {
	mem := memory.NewGoAllocator()
	half := vec.NewLiteral(scalar.NewFloat64Scalar(0.5))
	frames := []struct {
		name string
		fr   *Frame
	}{
		{"running", nil},
		{"rows±100", &Frame{Rows: true, Start: FrameBound{Kind: Preceding, Offset: 100}, End: FrameBound{Kind: Following, Offset: 100}}},
	}
	funcs := []struct {
		name string
		args []vec.Expr
	}{{"QUANTILE_CONT", []vec.Expr{wtCol(4), half}}, {"MODE", []vec.Expr{wtCol(3)}}, {"BIT_OR", []vec.Expr{wtCol(3)}}}
	for _, n := range []int{5000, 100_000} {
		r := rand.New(rand.NewPCG(1, 2))
		rows := wtRand(r, n, 1, n/20)
		src := wtSource(mem, r, rows, 1)
		for _, fn := range funcs {
			for _, f := range frames {
				for _, generic := range []bool{false, true} {
					if generic && n > 5000 {
						continue
					}
					name := fmt.Sprintf("%s/%s/n=%d/sliding", fn.name, f.name, n)
					if generic {
						name = fmt.Sprintf("%s/%s/n=%d/generic", fn.name, f.name, n)
					}
					b.Run(name, func(b *testing.B) {
						winSlideOff = generic
						defer func() { winSlideOff = false }()
						w := &Window{Input: src, OrderBy: []SortKey{{Expr: wtCol(2)}}, Funcs: []WindowFunc{{Func: fn.name, Args: fn.args, Frame: f.fr, Name: "w"}}}
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
		src.releaseAllParts()
	}
}

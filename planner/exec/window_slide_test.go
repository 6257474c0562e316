package exec

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/scalar"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

// wtSlideFuncs are the aggregates with a sliding evaluator.
func wtSlideFuncs(t *testing.T) []WindowFunc {
	v, x, s := wtCol(3), wtCol(4), wtCol(5)
	f64 := func(q float64) vec.Expr { return vec.NewLiteral(scalar.NewFloat64Scalar(q)) }
	pos, err := vec.NewCompare(">", v, wtInt(0))
	if err != nil {
		t.Fatal(err)
	}
	return []WindowFunc{
		{Func: "MODE", Args: []vec.Expr{v}},
		{Func: "MODE", Args: []vec.Expr{s}},
		{Func: "QUANTILE_CONT", Args: []vec.Expr{x, f64(0.5)}},
		{Func: "QUANTILE_CONT", Args: []vec.Expr{x, f64(0.3)}},
		{Func: "QUANTILE_DISC", Args: []vec.Expr{x, f64(0.7)}},
		{Func: "QUANTILE_DISC", Args: []vec.Expr{x, f64(0)}},
		{Func: "COUNT", Args: []vec.Expr{s}, Distinct: true},
		{Func: "BIT_AND", Args: []vec.Expr{v}},
		{Func: "BIT_OR", Args: []vec.Expr{v}, Distinct: true},
		{Func: "BIT_XOR", Args: []vec.Expr{v}},
		{Func: "BOOL_AND", Args: []vec.Expr{pos}},
		{Func: "BOOL_OR", Args: []vec.Expr{pos}},
		{Func: "ANY_VALUE", Args: []vec.Expr{s}},
		{Func: "ANY_VALUE", Args: []vec.Expr{v}},
		{Func: "ARG_MAX", Args: []vec.Expr{s, v}},
		{Func: "ARG_MIN", Args: []vec.Expr{v, x}},
		{Func: "ARG_MAX", Args: []vec.Expr{x, s}},
		{Func: "PRODUCT", Args: []vec.Expr{x}},
		{Func: "GEOMEAN", Args: []vec.Expr{x}},
		{Func: "SUM", Args: []vec.Expr{v}, Distinct: true},
		{Func: "AVG", Args: []vec.Expr{x}, Distinct: true},
		{Func: "QUANTILE_CONT", Args: []vec.Expr{x, f64(0.5)}, Distinct: true},
		{Func: "BIT_XOR", Args: []vec.Expr{v}, Distinct: true},
		{Func: "PRODUCT", Args: []vec.Expr{x}, Distinct: true},
	}
}

// TestWindowSlideMatchesGeneric runs the aggregates with a sliding
// evaluator over every frame shape of the reference test, in larger
// partitions, and compares them with the generic path (each frame fed to
// the HashAggregate accumulator), which defines their semantics (ties of
// MODE, the first row of ANY_VALUE, ...).
func TestWindowSlideMatchesGeneric(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	seen := map[*Frame]bool{}
	var frames []*Frame
	for _, c := range wtCases() {
		if c.frame != nil && !seen[c.frame] {
			seen[c.frame] = true
			frames = append(frames, c.frame)
		}
	}
	frames = append(frames, nil, &Frame{Rows: true, Start: FrameBound{Kind: Preceding, Offset: 40}, End: FrameBound{Kind: Following, Offset: 25}})
	defer func() { winSlideOff = false }()
	for seed := uint64(0); seed < 4; seed++ {
		r := rand.New(rand.NewPCG(seed, 5))
		rows := wtRand(r, 200+r.IntN(400), 1+r.IntN(3), 1+r.IntN(60))
		src := wtSource(mem, r, rows, 1+r.IntN(3))
		for _, fr := range frames {
			ord := SortOrder{Desc: r.IntN(2) == 0, NullsFirst: r.IntN(2) == 0}
			var funcs []WindowFunc
			for k, f := range wtSlideFuncs(t) {
				f.Frame, f.Name = fr, fmt.Sprintf("f%d", k)
				funcs = append(funcs, f)
			}
			w := &Window{Input: src, Funcs: funcs, PartitionBy: []vec.Expr{wtCol(1)},
				OrderBy: []SortKey{{Expr: wtCol(2), Desc: ord.Desc, NullsFirst: ord.NullsFirst}, {Expr: wtCol(0)}}}
			if rangeOffsets(fr) {
				w.OrderBy = w.OrderBy[:1]
			}
			run := func(off bool) []arrow.RecordBatch {
				winSlideOff = off
				tc := NewTaskCtx(context.Background(), mem, nil, nil)
				bs, err := Collect(tc, w)
				if err != nil {
					t.Fatalf("seed %d frame %v (generic %v): %v", seed, fr, off, err)
				}
				return bs
			}
			fast, slow := run(false), run(true)
			if len(fast) != len(slow) {
				t.Fatalf("batch counts differ")
			}
			for b := range fast {
				for k := range funcs {
					c := wtSchema.NumFields() + k
					if !wtSameColumn(fast[b].Column(c), slow[b].Column(c)) {
						t.Fatalf("seed %d frame %v: %s(%v) sliding\n%v\ngeneric\n%v", seed, fr, funcs[k].Func, funcs[k].Args, fast[b].Column(c), slow[b].Column(c))
					}
				}
			}
			releaseAll(fast)
			releaseAll(slow)
		}
		src.releaseAllParts()
	}
}

// TestWindowSlideBigFrames runs MEDIAN and MODE over running and sliding
// frames of a partition whose frames hold far more rows in total than the
// generic path's cap (which they used to hit).
func TestWindowSlideBigFrames(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	r := rand.New(rand.NewPCG(3, 3))
	rows := wtRand(r, 12000, 1, 3000)
	src := wtSource(mem, r, rows, 1)
	defer src.releaseAllParts()
	x, v := wtCol(4), wtCol(3)
	half := vec.NewLiteral(scalar.NewFloat64Scalar(0.5))
	old := genericWindowWork
	genericWindowWork = 1 << 20 // the generic path would feed ~18M rows (running) and ~100M (±5000)
	defer func() { genericWindowWork = old }()
	for _, fr := range []*Frame{nil, {Rows: true, Start: FrameBound{Kind: Preceding, Offset: 5000}, End: FrameBound{Kind: Following, Offset: 5000}}} {
		w := &Window{Input: src, OrderBy: []SortKey{{Expr: wtCol(2)}}, Funcs: []WindowFunc{
			{Func: "QUANTILE_CONT", Args: []vec.Expr{x, half}, Frame: fr, Name: "m"},
			{Func: "MODE", Args: []vec.Expr{v}, Frame: fr, Name: "d"},
		}}
		bs, err := Collect(NewTaskCtx(context.Background(), mem, nil, nil), w)
		if err != nil {
			t.Fatalf("frame %v: %v", fr, err)
		}
		releaseAll(bs)
	}
	// STRING_AGG has no sliding evaluator: the cap names it and the frame.
	w := &Window{Input: src, OrderBy: []SortKey{{Expr: wtCol(2)}}, Funcs: []WindowFunc{
		{Func: "STRING_AGG", Args: []vec.Expr{wtCol(5), vec.NewLiteral(scalar.NewStringScalar(","))}, Name: "s"},
	}}
	_, err := Collect(NewTaskCtx(context.Background(), mem, nil, nil), w)
	if err == nil || !errors.Is(err, catalog.ErrUnsupported) || !strings.Contains(err.Error(), "STRING_AGG over RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW") {
		t.Fatalf("STRING_AGG over 12000 running frames: %v", err)
	}
}

// wtSameColumn compares two result columns, DOUBLE within 1e-9 relative
// (a segment tree multiplies in another association order).
func wtSameColumn(a, b arrow.Array) bool {
	fa, ok1 := a.(*array.Float64)
	fb, ok2 := b.(*array.Float64)
	if !ok1 || !ok2 {
		return array.Equal(a, b)
	}
	if fa.Len() != fb.Len() {
		return false
	}
	for i := 0; i < fa.Len(); i++ {
		if fa.IsNull(i) != fb.IsNull(i) {
			return false
		}
		x, y := fa.Value(i), fb.Value(i)
		if fa.IsNull(i) || x == y || (math.IsNaN(x) && math.IsNaN(y)) {
			continue
		}
		if math.Abs(x-y) > 1e-9*math.Max(1, math.Abs(y)) {
			return false
		}
	}
	return true
}

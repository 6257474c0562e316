package exec

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/scalar"

	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

type wtRow struct {
	id      int64
	p, o, v *int64
	x       *float64
	s       *string
}

var wtSchema = arrow.NewSchema([]arrow.Field{
	{Name: "id", Type: arrow.PrimitiveTypes.Int64},
	{Name: "p", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "o", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "v", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "x", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
}, nil)

func wtCol(i int) vec.Expr {
	f := wtSchema.Field(i)
	return &vec.Column{Index: i, Name: f.Name, T: f.Type, Null: f.Nullable}
}

func wtInt(v int64) vec.Expr { return vec.NewLiteral(scalar.NewInt64Scalar(v)) }

func wtRand(r *rand.Rand, n, parts, ords int) []wtRow {
	rows := make([]wtRow, n)
	opt := func(v int64) *int64 {
		if r.IntN(7) == 0 {
			return nil
		}
		return &v
	}
	for i := range rows {
		rows[i] = wtRow{id: int64(i), p: opt(int64(r.IntN(parts))), o: opt(int64(r.IntN(ords))), v: opt(int64(r.IntN(21) - 10))}
		if r.IntN(7) != 0 {
			x := float64(r.IntN(100))/4 - 5
			rows[i].x = &x
		}
		if r.IntN(7) != 0 {
			s := fmt.Sprintf("s%02d", r.IntN(30))
			rows[i].s = &s
		}
	}
	return rows
}

func wtSource(mem memory.Allocator, r *rand.Rand, rows []wtRow, parts int) *stValues {
	src := &stValues{S: wtSchema, Parts: make([][]arrow.RecordBatch, parts)}
	for lo, p := 0, 0; lo < len(rows); p = (p + 1) % parts {
		hi := min(len(rows), lo+1+r.IntN(40))
		b := array.NewRecordBuilder(mem, wtSchema)
		for _, w := range rows[lo:hi] {
			b.Field(0).(*array.Int64Builder).Append(w.id)
			for k, v := range []*int64{w.p, w.o, w.v} {
				if v == nil {
					b.Field(1 + k).AppendNull()
				} else {
					b.Field(1 + k).(*array.Int64Builder).Append(*v)
				}
			}
			if w.x == nil {
				b.Field(4).AppendNull()
			} else {
				b.Field(4).(*array.Float64Builder).Append(*w.x)
			}
			if w.s == nil {
				b.Field(5).AppendNull()
			} else {
				b.Field(5).(*array.StringBuilder).Append(*w.s)
			}
		}
		src.Parts[p] = append(src.Parts[p], b.NewRecordBatch())
		b.Release()
		lo = hi
	}
	return src
}

// wtOrderRows returns rows in input order (partition after partition, as
// the source lays them out).
func wtInputOrder(src *stValues) []int64 {
	var ids []int64
	for _, p := range src.Parts {
		for _, b := range p {
			ids = append(ids, b.Column(0).(*array.Int64).Int64Values()...)
		}
	}
	return ids
}

// wtRef computes the expected output of a window function naively.
type wtRef struct {
	rows      []wtRow // sorted
	parted    bool
	ordered   bool
	ord       SortOrder
	partStart []int
	partEnd   []int
	peerS     []int
	peerE     []int
	cache     map[*Frame][][]int
	grp       []int // peer group number within the partition
}

func newWtRef(rows []wtRow, parted, ordered bool, ord SortOrder) *wtRef {
	w := &wtRef{rows: slices.Clone(rows), parted: parted, ordered: ordered, ord: ord}
	pc := func(a, b wtRow) int {
		if !parted {
			return 0
		}
		return stNullCmp(a.p, b.p, SortOrder{NullsFirst: true}, cmp.Compare[int64])
	}
	oc := func(a, b wtRow) int {
		if !ordered {
			return 0
		}
		return stNullCmp(a.o, b.o, ord, cmp.Compare[int64])
	}
	slices.SortStableFunc(w.rows, func(a, b wtRow) int {
		if c := pc(a, b); c != 0 {
			return c
		}
		return oc(a, b)
	})
	n := len(w.rows)
	w.partStart, w.partEnd, w.peerS, w.peerE = make([]int, n), make([]int, n), make([]int, n), make([]int, n)
	for i := range w.rows {
		ps := i
		for ps > 0 && pc(w.rows[ps-1], w.rows[i]) == 0 {
			ps--
		}
		pe := i + 1
		for pe < n && pc(w.rows[pe], w.rows[i]) == 0 {
			pe++
		}
		gs, ge := i, i+1
		for gs > ps && oc(w.rows[gs-1], w.rows[i]) == 0 {
			gs--
		}
		for ge < pe && oc(w.rows[ge], w.rows[i]) == 0 {
			ge++
		}
		w.partStart[i], w.partEnd[i], w.peerS[i], w.peerE[i] = ps, pe, gs, ge
	}
	return w
}

// frame returns the frame rows of row i, naively.
func (w *wtRef) frame(f *Frame, i int) []int {
	if w.cache == nil {
		w.cache = map[*Frame][][]int{}
	}
	c := w.cache[f]
	if c == nil {
		c = make([][]int, len(w.rows))
		w.cache[f] = c
	}
	if c[i] == nil {
		c[i] = append(w.frameOf(f, i), -1)
	}
	return c[i][:len(c[i])-1]
}

func (w *wtRef) frameOf(f *Frame, i int) []int {
	if f == nil {
		f = defaultFrame
	}
	// group numbers (GROUPS) of the partition's rows
	if w.grp == nil {
		w.grp = make([]int, len(w.rows))
		for k := range w.rows {
			if k > w.partStart[k] {
				w.grp[k] = w.grp[k-1]
				if w.peerS[k] == k {
					w.grp[k]++
				}
			}
		}
	}
	grp := func(j int) int { return w.grp[j] }
	gi := grp(i)
	vi := w.rows[i].o
	// offset of a RANGE bound: key moved toward larger values by d
	val := func(b FrameBound) int64 { return b.Value.(*scalar.Int64).Value }
	// within reports whether o_j is on the inner side of bound b of row i
	// (start: not before it; end: not after it) in the sort direction.
	within := func(b FrameBound, j int, start bool) bool {
		oj := w.rows[j].o
		if vi == nil { // NULL current row: offsets select its peers
			if start {
				return j >= w.peerS[i]
			}
			return j < w.peerE[i]
		}
		if oj == nil { // NULL rows sit at one end of the partition
			if start {
				return j > i
			}
			return j < i
		}
		t := *vi
		d := val(b)
		if b.Kind == Preceding {
			d = -d
		}
		if w.ord.Desc {
			d = -d
		}
		t += d
		c := cmp.Compare(*oj, t)
		if w.ord.Desc {
			c = -c
		}
		if start {
			return c >= 0
		}
		return c <= 0
	}
	var out []int
	for j := w.partStart[i]; j < w.partEnd[i]; j++ {
		okS, okE := false, false
		gj := 0
		if f.Groups {
			gj = grp(j)
		}
		switch {
		case f.Start.Kind == UnboundedPreceding:
			okS = true
		case f.Groups && f.Start.Kind == Preceding:
			okS = int64(gi-gj) <= f.Start.Offset
		case f.Groups && f.Start.Kind == Following:
			okS = int64(gj-gi) >= f.Start.Offset
		case !f.Rows && !f.Groups && f.Start.Value != nil:
			okS = within(f.Start, j, true)
		case f.Start.Kind == Preceding:
			okS = int64(i-j) <= f.Start.Offset
		case f.Start.Kind == CurrentRow:
			okS = j >= i || (!f.Rows && j >= w.peerS[i])
		case f.Start.Kind == Following:
			okS = int64(j-i) >= f.Start.Offset
		}
		switch {
		case f.End.Kind == UnboundedFollowing:
			okE = true
		case f.Groups && f.End.Kind == Preceding:
			okE = int64(gi-gj) >= f.End.Offset
		case f.Groups && f.End.Kind == Following:
			okE = int64(gj-gi) <= f.End.Offset
		case !f.Rows && !f.Groups && f.End.Value != nil:
			okE = within(f.End, j, false)
		case f.End.Kind == Following:
			okE = int64(j-i) <= f.End.Offset
		case f.End.Kind == CurrentRow:
			okE = j <= i || (!f.Rows && j < w.peerE[i])
		case f.End.Kind == Preceding:
			okE = int64(i-j) >= f.End.Offset
		}
		peer := j >= w.peerS[i] && j < w.peerE[i]
		switch f.Exclude {
		case ExcludeCurrentRow:
			okS = okS && j != i
		case ExcludeGroup:
			okS = okS && !peer
		case ExcludeTies:
			okS = okS && (j == i || !peer)
		}
		if okS && okE {
			out = append(out, j)
		}
	}
	return out
}

func (w *wtRef) eval(fn string, f *Frame, i int, a1, a2 int64) any {
	r := w.rows
	ps, pe := w.partStart[i], w.partEnd[i]
	fr := w.frame(f, i)
	switch fn {
	case "ROW_NUMBER":
		return int64(i - ps + 1)
	case "RANK":
		return int64(w.peerS[i] - ps + 1)
	case "DENSE_RANK":
		d := int64(0)
		for j := ps; j <= i; j++ {
			if w.peerS[j] == j {
				d++
			}
		}
		return d
	case "PERCENT_RANK":
		if pe-ps == 1 {
			return 0.0
		}
		return float64(w.peerS[i]-ps) / float64(pe-ps-1)
	case "CUME_DIST":
		return float64(w.peerE[i]-ps) / float64(pe-ps)
	case "NTILE":
		// bucket sizes differ by at most one, larger first
		n, b := int64(pe-ps), a1
		j := int64(i - ps)
		for k, start := int64(0), int64(0); k < b; k++ {
			size := n / b
			if k < n%b {
				size++
			}
			if j < start+size {
				return k + 1
			}
			start += size
		}
		return nil
	case "LAG", "LEAD":
		t := i - int(a1)
		if fn == "LEAD" {
			t = i + int(a1)
		}
		if t >= ps && t < pe {
			if r[t].v == nil {
				return nil
			}
			return *r[t].v
		}
		if a2 != math.MinInt64 {
			return a2
		}
		return nil
	case "FIRST_VALUE", "LAST_VALUE", "NTH_VALUE":
		k := 0
		switch fn {
		case "LAST_VALUE":
			k = len(fr) - 1
		case "NTH_VALUE":
			k = int(a1) - 1
		}
		if k < 0 || k >= len(fr) || r[fr[k]].v == nil {
			return nil
		}
		return *r[fr[k]].v
	case "COUNT_STAR":
		return int64(len(fr))
	}
	var vs []int64
	var xs []float64
	var ss []string
	for _, j := range fr {
		if r[j].v != nil {
			vs = append(vs, *r[j].v)
		}
		if r[j].x != nil {
			xs = append(xs, *r[j].x)
		}
		if r[j].s != nil {
			ss = append(ss, *r[j].s)
		}
	}
	switch fn {
	case "COUNT":
		return int64(len(vs))
	case "SUM", "AVG":
		if len(vs) == 0 {
			return nil
		}
		s := int64(0)
		for _, v := range vs {
			s += v
		}
		if fn == "AVG" {
			return float64(s) / float64(len(vs))
		}
		return s
	case "SUMX", "AVGX":
		if len(xs) == 0 {
			return nil
		}
		s := 0.0
		for _, v := range xs {
			s += v
		}
		if fn == "AVGX" {
			return s / float64(len(xs))
		}
		return s
	case "MIN", "MAX":
		if len(vs) == 0 {
			return nil
		}
		if fn == "MIN" {
			return slices.Min(vs)
		}
		return slices.Max(vs)
	case "VAR_SAMP":
		if len(vs) < 2 {
			return nil
		}
		m := 0.0
		for _, v := range vs {
			m += float64(v)
		}
		m /= float64(len(vs))
		q := 0.0
		for _, v := range vs {
			q += (float64(v) - m) * (float64(v) - m)
		}
		return q / float64(len(vs)-1)
	case "COVAR_POP":
		var ps [][2]float64
		for _, j := range fr {
			if r[j].v != nil && r[j].x != nil {
				ps = append(ps, [2]float64{float64(*r[j].v), *r[j].x})
			}
		}
		if len(ps) == 0 {
			return nil
		}
		my, mx := 0.0, 0.0
		for _, p := range ps {
			my, mx = my+p[0], mx+p[1]
		}
		my, mx = my/float64(len(ps)), mx/float64(len(ps))
		c := 0.0
		for _, p := range ps {
			c += (p[0] - my) * (p[1] - mx)
		}
		return c / float64(len(ps))
	case "COUNT_DISTINCT", "SUM_DISTINCT":
		set := map[int64]bool{}
		sum := int64(0)
		for _, v := range vs {
			if !set[v] {
				set[v] = true
				sum += v
			}
		}
		if fn == "COUNT_DISTINCT" {
			return int64(len(set))
		}
		if len(set) == 0 {
			return nil
		}
		return sum
	case "BIT_OR":
		if len(vs) == 0 {
			return nil
		}
		b := int64(0)
		for _, v := range vs {
			b |= v
		}
		return b
	case "MEDIANX":
		if len(xs) == 0 {
			return nil
		}
		xs = slices.Clone(xs)
		slices.Sort(xs)
		h := float64(len(xs)-1) * 0.5
		lo := int(math.Floor(h))
		if lo+1 < len(xs) {
			return xs[lo] + (h-float64(lo))*(xs[lo+1]-xs[lo])
		}
		return xs[lo]
	case "MINS", "MAXS":
		if len(ss) == 0 {
			return nil
		}
		if fn == "MINS" {
			return slices.Min(ss)
		}
		return slices.Max(ss)
	}
	panic("unknown " + fn)
}

// wtValue reads row i of a result column as a Go value.
func wtValue(a arrow.Array, i int) any {
	if a.IsNull(i) {
		return nil
	}
	switch c := a.(type) {
	case *array.Int64:
		return c.Value(i)
	case *array.Float64:
		return c.Value(i)
	case *array.String:
		return c.Value(i)
	case *array.Decimal128:
		return int64(c.Value(i).LowBits())
	}
	return fmt.Sprintf("unexpected %s", a.DataType())
}

func wtEqual(got, want any) bool {
	gf, ok1 := got.(float64)
	wf, ok2 := want.(float64)
	if ok1 && ok2 {
		return gf == wf || math.Abs(gf-wf) <= 1e-9*math.Max(1, math.Abs(wf))
	}
	return got == want
}

type wtCase struct {
	fn    string // reference name
	call  string // function
	args  []vec.Expr
	frame *Frame
	a1    int64 // constant argument for the reference
	a2    int64 // LAG default (MinInt64 = none)
	// distinct: the aggregate of the frame's distinct values
	distinct bool
}

func wtCases() []wtCase {
	v, x, s := wtCol(3), wtCol(4), wtCol(5)
	none := int64(math.MinInt64)
	fr := func(rows bool, sk int, so int64, ek int, eo int64) *Frame {
		return &Frame{Rows: rows, Start: FrameBound{Kind: sk, Offset: so}, End: FrameBound{Kind: ek, Offset: eo}}
	}
	ex := func(rows bool, sk int, so int64, ek int, eo int64, x int) *Frame {
		f := fr(rows, sk, so, ek, eo)
		f.Exclude = x
		return f
	}
	grp := func(sk int, so int64, ek int, eo int64, x int) *Frame {
		f := ex(false, sk, so, ek, eo, x)
		f.Groups = true
		return f
	}
	rng := func(sk int, so int64, ek int, eo int64, x int) *Frame {
		f := ex(false, sk, 0, ek, 0, x)
		if sk == Preceding || sk == Following {
			f.Start.Value = scalar.NewInt64Scalar(so)
		}
		if ek == Preceding || ek == Following {
			f.End.Value = scalar.NewInt64Scalar(eo)
		}
		return f
	}
	frames := []*Frame{
		nil,
		fr(true, Preceding, 2, CurrentRow, 0),
		fr(true, CurrentRow, 0, UnboundedFollowing, 0),
		fr(true, Preceding, 1, Following, 1),
		fr(true, UnboundedPreceding, 0, UnboundedFollowing, 0),
		fr(false, CurrentRow, 0, UnboundedFollowing, 0),
		fr(false, UnboundedPreceding, 0, CurrentRow, 0),
		fr(true, Following, 3, Following, 5),
		fr(true, Preceding, 5, Preceding, 2),
		fr(true, Preceding, math.MaxInt64, Following, math.MaxInt64),
		rng(Preceding, 2, Following, 1, 0),
		rng(Preceding, 0, Following, 0, 0),
		rng(Following, 1, Following, 3, 0),
		rng(UnboundedPreceding, 0, Preceding, 1, 0),
		rng(Preceding, 3, UnboundedFollowing, 0, 0),
		rng(Preceding, 2, Following, 2, ExcludeCurrentRow),
		rng(Preceding, 1, CurrentRow, 0, ExcludeTies),
		grp(Preceding, 1, Following, 1, 0),
		grp(Following, 1, UnboundedFollowing, 0, 0),
		grp(Preceding, 2, Preceding, 1, 0),
		grp(Preceding, 1, Following, 1, ExcludeTies),
		grp(CurrentRow, 0, Following, 2, ExcludeGroup),
		ex(true, Preceding, 2, Following, 2, ExcludeCurrentRow),
		ex(false, UnboundedPreceding, 0, CurrentRow, 0, ExcludeGroup),
		ex(true, UnboundedPreceding, 0, UnboundedFollowing, 0, ExcludeTies),
		ex(false, UnboundedPreceding, 0, UnboundedFollowing, 0, ExcludeCurrentRow),
		ex(true, CurrentRow, 0, Following, 2, ExcludeCurrentRow),
	}
	cs := []wtCase{
		{fn: "ROW_NUMBER", call: "row_number"}, {fn: "RANK", call: "RANK"}, {fn: "DENSE_RANK", call: "DENSE_RANK"},
		{fn: "PERCENT_RANK", call: "PERCENT_RANK"}, {fn: "CUME_DIST", call: "CUME_DIST"},
		{fn: "NTILE", call: "NTILE", args: []vec.Expr{wtInt(3)}, a1: 3},
		{fn: "NTILE", call: "NTILE", args: []vec.Expr{wtInt(100)}, a1: 100},
		{fn: "LAG", call: "LAG", args: []vec.Expr{v}, a1: 1, a2: none},
		{fn: "LAG", call: "LAG", args: []vec.Expr{v, wtInt(2), wtInt(-99)}, a1: 2, a2: -99},
		{fn: "LEAD", call: "LEAD", args: []vec.Expr{v}, a1: 1, a2: none},
		{fn: "LEAD", call: "LEAD", args: []vec.Expr{v, wtInt(3)}, a1: 3, a2: none},
		{fn: "LEAD", call: "LEAD", args: []vec.Expr{v, wtInt(0)}, a1: 0, a2: none},
	}
	for fi, f := range frames {
		cs = append(cs,
			wtCase{fn: "FIRST_VALUE", call: "FIRST_VALUE", args: []vec.Expr{v}, frame: f},
			wtCase{fn: "LAST_VALUE", call: "LAST_VALUE", args: []vec.Expr{v}, frame: f},
			wtCase{fn: "NTH_VALUE", call: "NTH_VALUE", args: []vec.Expr{v, wtInt(2)}, frame: f, a1: 2},
			wtCase{fn: "SUM", call: "SUM", args: []vec.Expr{v}, frame: f},
			wtCase{fn: "AVG", call: "AVG", args: []vec.Expr{v}, frame: f},
			wtCase{fn: "SUMX", call: "SUM", args: []vec.Expr{x}, frame: f},
			wtCase{fn: "AVGX", call: "AVG", args: []vec.Expr{x}, frame: f},
			wtCase{fn: "COUNT", call: "COUNT", args: []vec.Expr{v}, frame: f},
			wtCase{fn: "COUNT_STAR", call: "COUNT_STAR", frame: f},
			wtCase{fn: "MIN", call: "MIN", args: []vec.Expr{v}, frame: f},
			wtCase{fn: "MAX", call: "MAX", args: []vec.Expr{v}, frame: f},
			wtCase{fn: "MINS", call: "MIN", args: []vec.Expr{s}, frame: f},
			wtCase{fn: "MAXS", call: "MAX", args: []vec.Expr{s}, frame: f},
		)
		if fi%2 == 0 { // the aggregates of the generic and moments paths
			cs = append(cs,
				wtCase{fn: "VAR_SAMP", call: "VAR_SAMP", args: []vec.Expr{v}, frame: f},
				wtCase{fn: "COVAR_POP", call: "COVAR_POP", args: []vec.Expr{v, x}, frame: f},
				wtCase{fn: "BIT_OR", call: "BIT_OR", args: []vec.Expr{v}, frame: f},
				wtCase{fn: "COUNT_DISTINCT", call: "COUNT", args: []vec.Expr{v}, frame: f, distinct: true},
				wtCase{fn: "SUM_DISTINCT", call: "SUM", args: []vec.Expr{v}, frame: f, distinct: true},
				wtCase{fn: "MEDIANX", call: "QUANTILE_CONT", args: []vec.Expr{x, vec.NewLiteral(scalar.NewFloat64Scalar(0.5))}, frame: f},
			)
		}
	}
	return cs
}

func TestWindowAgainstReference(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	all := wtCases()
	for seed := uint64(0); seed < 8; seed++ {
		r := rand.New(rand.NewPCG(seed, 11))
		rows := wtRand(r, 1+r.IntN(400), 1+r.IntN(6), 1+r.IntN(8))
		src := wtSource(mem, r, rows, 1+r.IntN(3))
		inOrder := make([]wtRow, 0, len(rows))
		for _, id := range wtInputOrder(src) {
			inOrder = append(inOrder, rows[id])
		}
		for _, shape := range []struct{ parted, ordered bool }{{true, true}, {false, true}, {true, false}, {false, false}} {
			ord := SortOrder{Desc: r.IntN(2) == 0, NullsFirst: r.IntN(2) == 0}
			var cases []wtCase
			for _, c := range all {
				if shape.ordered || !rangeOffsets(c.frame) { // RANGE offsets need ORDER BY
					cases = append(cases, c)
				}
			}
			funcs := make([]WindowFunc, len(cases))
			for i, c := range cases {
				funcs[i] = WindowFunc{Func: c.call, Args: c.args, Frame: c.frame, Name: fmt.Sprintf("f%d", i), Distinct: c.distinct}
			}
			w := &Window{Input: src, Funcs: funcs}
			if shape.parted {
				w.PartitionBy = []vec.Expr{wtCol(1)}
			}
			if shape.ordered {
				w.OrderBy = []SortKey{{Expr: wtCol(2), Desc: ord.Desc, NullsFirst: ord.NullsFirst}}
			}
			ref := newWtRef(inOrder, shape.parted, shape.ordered, ord)
			tc := NewTaskCtx(context.Background(), mem, nil, nil)
			tc.BatchSize = 1 + r.IntN(64)
			bs, err := Collect(tc, w)
			if err != nil {
				t.Fatalf("seed %d %+v: %v", seed, shape, err)
			}
			if got, want := w.Schema().NumFields(), wtSchema.NumFields()+len(funcs); got != want {
				t.Fatalf("schema has %d fields, want %d", got, want)
			}
			row := 0
			for _, b := range bs {
				if !b.Schema().Equal(w.Schema()) {
					t.Fatalf("batch schema %s, want %s", b.Schema(), w.Schema())
				}
				for i := 0; i < int(b.NumRows()); i++ {
					if id := b.Column(0).(*array.Int64).Value(i); id != ref.rows[row].id {
						t.Fatalf("seed %d %+v: row %d is id %d, want %d", seed, shape, row, id, ref.rows[row].id)
					}
					for k, c := range cases {
						got := wtValue(b.Column(wtSchema.NumFields()+k), i)
						want := ref.eval(c.fn, c.frame, row, c.a1, c.a2)
						if !wtEqual(got, want) {
							t.Fatalf("seed %d %+v: %s(%v) %v at row %d (id %d): got %v, want %v", seed, shape, c.call, c.args, c.frame, row, ref.rows[row].id, got, want)
						}
					}
					row++
				}
			}
			releaseAll(bs)
			if row != len(rows) {
				t.Fatalf("%d rows out, want %d", row, len(rows))
			}
			if tc.Budget.Used() != 0 {
				t.Fatalf("budget holds %d bytes", tc.Budget.Used())
			}
		}
		src.releaseAllParts()
	}
}

func TestWindowErrors(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	r := rand.New(rand.NewPCG(1, 1))
	rows := wtRand(r, 500, 3, 5)
	src := wtSource(mem, r, rows, 2)
	defer src.releaseAllParts()
	bad := []WindowFunc{
		{Func: "NOPE", Name: "a"},
		{Func: "SUM", Args: []vec.Expr{wtCol(5)}, Name: "a"},
		{Func: "LAG", Args: []vec.Expr{wtCol(3), wtCol(5)}, Name: "a"},
		{Func: "ROW_NUMBER", Args: []vec.Expr{wtCol(3)}, Name: "a"},
		{Func: "SUM", Args: []vec.Expr{wtCol(3)}, Frame: &Frame{Rows: true, Start: FrameBound{Kind: UnboundedFollowing}, End: FrameBound{Kind: UnboundedFollowing}}, Name: "a"},
		{Func: "SUM", Args: []vec.Expr{wtCol(3)}, Frame: &Frame{Rows: true, Start: FrameBound{Kind: CurrentRow}, End: FrameBound{Kind: Preceding, Offset: 1}}, Name: "a"},
		{Func: "SUM", Args: []vec.Expr{wtCol(3)}, Frame: &Frame{Rows: false, Start: FrameBound{Kind: Preceding, Offset: 1}, End: FrameBound{Kind: CurrentRow}}, Name: "a"},
		{Func: "SUM", Args: []vec.Expr{wtCol(3)}, Frame: &Frame{Rows: true, Start: FrameBound{Kind: Preceding, Offset: -1}, End: FrameBound{Kind: CurrentRow}}, Name: "a"},
		{Func: "NTILE", Args: []vec.Expr{wtInt(0)}, Name: "a"},
		{Func: "NTH_VALUE", Args: []vec.Expr{wtCol(3), wtInt(-1)}, Name: "a"},
	}
	for _, f := range bad {
		tc := NewTaskCtx(context.Background(), mem, nil, nil)
		_, err := Collect(tc, &Window{Input: src, OrderBy: []SortKey{{Expr: wtCol(2)}}, Funcs: []WindowFunc{f}})
		if err == nil {
			t.Fatalf("%s %v %v: no error", f.Func, f.Args, f.Frame)
		}
		if tc.Budget.Used() != 0 {
			t.Fatalf("budget holds %d bytes", tc.Budget.Used())
		}
	}
	// budget, cancellation, abandonment
	funcs := []WindowFunc{{Func: "ROW_NUMBER", Name: "rn"}, {Func: "SUM", Args: []vec.Expr{wtCol(3)}, Name: "s"}}
	w := &Window{Input: src, PartitionBy: []vec.Expr{wtCol(1)}, OrderBy: []SortKey{{Expr: wtCol(2)}}, Funcs: funcs}
	tc := NewTaskCtx(context.Background(), mem, nil, NewBudget("test", 4000))
	if _, err := Collect(tc, w); !errors.Is(err, ErrResourceExhausted) {
		t.Fatalf("want ErrResourceExhausted, got %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Collect(NewTaskCtx(ctx, mem, nil, nil), w); !errors.Is(err, context.Canceled) {
		t.Fatalf("want context.Canceled, got %v", err)
	}
	tc = NewTaskCtx(context.Background(), mem, nil, nil)
	tc.BatchSize = 10
	s, err := w.Execute(tc, 0)
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.Next()
	if err != nil || b == nil {
		t.Fatalf("first batch: %v", err)
	}
	b.Release()
	s.Close()
	if tc.Budget.Used() != 0 {
		t.Fatalf("budget holds %d bytes after Close", tc.Budget.Used())
	}
}

func TestWindowResultTypes(t *testing.T) {
	i64, f64 := arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Float64
	dec := &arrow.Decimal128Type{Precision: 10, Scale: 3}
	for _, c := range []struct {
		fn   string
		args []arrow.DataType
		want arrow.DataType
	}{
		{"ROW_NUMBER", nil, i64}, {"rank", nil, i64}, {"NTILE", []arrow.DataType{arrow.PrimitiveTypes.Int32}, i64},
		{"CUME_DIST", nil, f64}, {"SUM", []arrow.DataType{arrow.PrimitiveTypes.Int32}, &arrow.Decimal128Type{Precision: 38}},
		{"SUM", []arrow.DataType{dec}, &arrow.Decimal128Type{Precision: 38, Scale: 3}}, {"SUM", []arrow.DataType{arrow.PrimitiveTypes.Float32}, f64},
		{"AVG", []arrow.DataType{dec}, f64}, {"LAG", []arrow.DataType{arrow.BinaryTypes.String}, arrow.BinaryTypes.String},
		{"MAX", []arrow.DataType{arrow.FixedWidthTypes.Date32}, arrow.FixedWidthTypes.Date32}, {"COUNT", []arrow.DataType{arrow.BinaryTypes.String}, i64},
	} {
		got, err := WindowResultType(c.fn, c.args)
		if err != nil || !arrow.TypeEqual(got, c.want) {
			t.Fatalf("%s%v: %v %v, want %v", c.fn, c.args, got, err, c.want)
		}
	}
}

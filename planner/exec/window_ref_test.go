package exec

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/scalar"
)

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
	case "QDISCX":
		if len(xs) == 0 {
			return nil
		}
		xs = slices.Clone(xs)
		slices.Sort(xs)
		return xs[max(1, int(math.Ceil(float64(len(xs))*0.7)))-1]
	case "MODE": // ties: the value whose first row in the frame comes first
		cnt := map[int64]int{}
		var best *int64
		for _, v := range vs {
			cnt[v]++
		}
		for _, v := range vs {
			if best == nil || cnt[v] > cnt[*best] {
				best = &v
			}
		}
		if best == nil {
			return nil
		}
		return *best
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

package exec

import (
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

// Sliding window aggregates: for frames without an exclusion, every row's
// frame [fs, fe) has non-decreasing fs and fe within a partition (ROWS,
// RANGE and GROUPS bounds over sorted keys, NULL keys forming one group at
// an end), so the frame of the next row is reached by removing rows at the
// frame's start and adding rows at its end: O(n) add/remove calls per
// partition whatever the frame (running, anchored at the partition end,
// sliding). Aggregates whose state supports removal of the oldest row run
// here:
//
//   - QUANTILE_CONT/DISC (MEDIAN): a Fenwick tree over the ranks of the
//     partition's sorted values; the k-th smallest is an O(log n) descent.
//   - MODE: counts per distinct value and a max-heap of (count, first row
//     in the frame) with lazy deletion; ties keep the value whose first
//     occurrence in the frame comes first, as the accumulator (which sees
//     the frame in row order).
//   - COUNT(DISTINCT ...): counts per distinct argument tuple.
//   - BIT_AND/BIT_OR/BIT_XOR: counts of set bits; BOOL_AND/BOOL_OR: counts
//     of true and false; ANY_VALUE: the first row with a value.
//
// With an EXCLUDE clause the multiset states (all but MODE and ANY_VALUE)
// drop the excluded rows around each row's evaluation (O(1) per row for
// EXCLUDE CURRENT ROW, the peer group for GROUP and TIES, capped).
//
// A frame that moves backward (not expected from the frame definitions;
// handled for safety) empties the state and refills it, and that work is
// capped like the generic path.

// winSlider is an aggregate state over a frame [cs, ce): add(j) appends
// row ce = j, remove(j) drops row cs = j (always the oldest row).
type winSlider interface {
	part(ps, pe int) // a new partition starts (the state is empty)
	add(j int)
	remove(j int)
	emit(i int) // records row i's result from the current state
	result(tc *TaskCtx) (arrow.Array, error)
}

// orderFree reports whether s's state is a multiset (any row can be
// removed, not only the oldest): such evaluators also serve frames with
// an EXCLUDE clause.
func orderFree(s winSlider) bool {
	switch s.(type) {
	case *quantSlider, *distinctSlider, *bitsSlider, *boolSlider:
		return true
	}
	return false
}

// winSlideOff forces the generic path (tests compare both).
var winSlideOff = false

// newWinSlider returns the sliding evaluator of sp, or nil when sp has
// none (the caller keeps the generic path).
func newWinSlider(tc *TaskCtx, sp *aggSpec, args []arrow.Array, n int) (winSlider, error) {
	if winSlideOff || sp.ordered {
		return nil, nil
	}
	if sp.distinct {
		switch sp.fn {
		case "COUNT", "BIT_AND", "BIT_OR", "BOOL_AND", "BOOL_OR", "ANY_VALUE":
		default:
			return nil, nil
		}
	}
	var mbuf []byte
	m, err := aggMask(&mbuf, n, nil, args, sp.skipNulls)
	if err != nil {
		return nil, err
	}
	valid := func(j int) bool { return m == nil || bitutil.BitIsSet(m, j) }
	switch sp.fn {
	case "QUANTILE_CONT", "QUANTILE_DISC":
		return newQuantSlider(sp, args[0], valid, n)
	case "MODE":
		return newModeSlider(args[0], valid, n)
	case "COUNT":
		if sp.distinct {
			return newDistinctSlider(args, valid, n)
		}
	case "BIT_AND", "BIT_OR", "BIT_XOR":
		return newBitsSlider(sp, args, m, n)
	case "BOOL_AND", "BOOL_OR":
		return newBoolSlider(sp, args, m, n)
	case "ANY_VALUE":
		return newAnySlider(args[0], valid, n), nil
	}
	return nil, nil
}

// runWinSlider moves s over every row's frame.
func runWinSlider(tc *TaskCtx, fn string, frame string, fm *frameSet, s winSlider, parts func(func(ps, pe int) error) error) error {
	var work int64
	var rs, gaps [][2]int
	return parts(func(ps, pe int) error {
		s.part(ps, pe)
		cs, ce := ps, ps
		for i := ps; i < pe; i++ {
			if (i-ps)&0xfff == 0xfff {
				if err := tc.Err(); err != nil {
					return err
				}
			}
			ts, te := fm.at(i)
			te = max(te, ts)
			if ts < cs || te < ce { // the frame moved backward: refill
				work += int64(ce-cs) + int64(te-ts)
				if work > genericWindowWork {
					return winUnsupportedf("window aggregate %s over %s: frames move backward and need more than %d row visits", fn, frame, genericWindowWork)
				}
				for ; cs < ce; cs++ {
					s.remove(cs)
				}
				cs, ce = ts, ts
			}
			for ; cs < min(ts, ce); cs++ {
				s.remove(cs)
			}
			if ce < ts {
				cs, ce = ts, ts
			}
			for ; ce < te; ce++ {
				s.add(ce)
			}
			if fm.excl == ExcludeNoOthers {
				s.emit(i)
				continue
			}
			// EXCLUDE: take the excluded rows out for this row only
			// (order-insensitive states; O(excluded rows), capped).
			rs = fm.ranges(i, rs)
			gaps = gaps[:0]
			lo := cs
			for _, r := range rs {
				if lo < r[0] {
					gaps = append(gaps, [2]int{lo, r[0]})
				}
				lo = r[1]
			}
			if lo < ce {
				gaps = append(gaps, [2]int{lo, ce})
			}
			for _, g := range gaps {
				work += 2 * int64(g[1]-g[0])
				if work > genericWindowWork {
					return winUnsupportedf("window aggregate %s over %s: the excluded rows need more than %d row visits", fn, frame, genericWindowWork)
				}
				for j := g[0]; j < g[1]; j++ {
					s.remove(j)
				}
			}
			s.emit(i)
			for _, g := range gaps {
				for j := g[0]; j < g[1]; j++ {
					s.add(j)
				}
			}
		}
		for ; cs < ce; cs++ {
			s.remove(cs)
		}
		return nil
	})
}

// ---- QUANTILE / MEDIAN ---------------------------------------------------------

type quantSlider struct {
	q     quantFrac
	disc  bool
	vals  []float64
	dvals []decimal128.Num // DECIMAL argument (dec set)
	dec   *arrow.Decimal128Type
	valid func(int) bool
	rank  []int32 // row -> 1-based position in its partition's sorted values
	bit   []int32
	cnt   int
	out   []float64
	dout  []decimal128.Num
	has   []bool
	idx   []int32 // the partition's valid rows, sorted by value
}

func newQuantSlider(sp *aggSpec, x arrow.Array, valid func(int) bool, n int) (winSlider, error) {
	s := &quantSlider{q: sp.qf, disc: sp.fn == "QUANTILE_DISC", valid: valid, rank: make([]int32, n), has: make([]bool, n)}
	switch c := x.(type) {
	case *array.Float64:
		s.vals = c.Float64Values()
		s.out = make([]float64, n)
	case *array.Decimal128:
		s.dvals = c.Values()
		s.dec = c.DataType().(*arrow.Decimal128Type)
		s.dout = make([]decimal128.Num, n)
	case *array.Null:
		s.valid = func(int) bool { return false }
		s.out = make([]float64, n)
	default:
		return nil, winInvalidf("QUANTILE over %s (want DOUBLE or DECIMAL)", x.DataType())
	}
	return s, nil
}

func (s *quantSlider) part(ps, pe int) {
	s.idx = s.idx[:0]
	for j := ps; j < pe; j++ {
		if s.valid(j) {
			s.idx = append(s.idx, int32(j))
		}
	}
	if s.dec != nil {
		slices.SortFunc(s.idx, func(a, b int32) int { return s.dvals[a].Cmp(s.dvals[b]) })
	} else {
		slices.SortFunc(s.idx, func(a, b int32) int { return aggCmpFloat(s.vals[a], s.vals[b]) })
	}
	for k, j := range s.idx {
		s.rank[j] = int32(k + 1)
	}
	s.bit = aggGrow(s.bit[:0], len(s.idx)+1)
	clear(s.bit)
	s.cnt = 0
}

func (s *quantSlider) upd(j, d int) {
	if !s.valid(j) {
		return
	}
	s.cnt += d
	for k := int(s.rank[j]); k < len(s.bit); k += k & -k {
		s.bit[k] += int32(d)
	}
}

func (s *quantSlider) add(j int)    { s.upd(j, 1) }
func (s *quantSlider) remove(j int) { s.upd(j, -1) }

// kth returns the row of the k-th smallest (0-based) value in the frame.
func (s *quantSlider) kth(k int) int32 {
	pos, rem := 0, int32(k+1)
	step := 1
	for step*2 < len(s.bit) {
		step *= 2
	}
	for ; step > 0; step >>= 1 {
		if nx := pos + step; nx < len(s.bit) && s.bit[nx] < rem {
			pos = nx
			rem -= s.bit[nx]
		}
	}
	return s.idx[pos] // position pos+1 (1-based)
}

func (s *quantSlider) emit(i int) {
	n := s.cnt
	if n == 0 {
		return
	}
	s.has[i] = true
	if s.dec != nil {
		s.dout[i] = quantPickDec(s.q, s.disc, n, func(k int) decimal128.Num { return s.dvals[s.kth(k)] }, s.dec.Precision)
		return
	}
	s.out[i] = quantPickFloat(s.q, s.disc, n, func(k int) float64 { return s.vals[s.kth(k)] })
}

func (s *quantSlider) result(tc *TaskCtx) (arrow.Array, error) {
	if s.dec != nil {
		return aggFixedArray(tc.Mem, s.dec, s.dout, s.has), nil
	}
	return aggFixedArray(tc.Mem, arrow.PrimitiveTypes.Float64, s.out, s.has), nil
}

// ---- MODE ------------------------------------------------------------------------

type modeEnt struct{ c, f, id int32 }

type modeSlider struct {
	x     arrow.Array
	valid func(int) bool
	ids   []int32 // row -> value id
	next  []int32 // row -> next row with the same value (or n)
	cnt   []int32 // value id -> count in the frame
	first []int32 // value id -> first row in the frame
	live  int
	heap  []modeEnt
	locs  []rowLoc
}

func newModeSlider(x arrow.Array, valid func(int) bool, n int) (winSlider, error) {
	kt := NewKeyTable([]arrow.DataType{x.DataType()})
	s := &modeSlider{x: x, valid: valid, ids: make([]int32, n), next: make([]int32, n), locs: make([]rowLoc, n)}
	if err := kt.Insert([]arrow.Array{x}, s.ids); err != nil {
		return nil, err
	}
	k := kt.Len()
	s.cnt, s.first = make([]int32, k), make([]int32, k)
	last := make([]int32, k)
	for i := range last {
		last[i] = int32(n)
	}
	for j := n - 1; j >= 0; j-- {
		s.next[j] = last[s.ids[j]]
		last[s.ids[j]] = int32(j)
	}
	return s, nil
}

func (s *modeSlider) part(ps, pe int) { s.heap = s.heap[:0] }

// above orders the heap: larger count first, then earlier first row.
func (a modeEnt) above(b modeEnt) bool { return a.c > b.c || (a.c == b.c && a.f < b.f) }

func (s *modeSlider) push(e modeEnt) {
	h := append(s.heap, e)
	k := len(h) - 1
	for k > 0 {
		p := (k - 1) / 2
		if !h[k].above(h[p]) {
			break
		}
		h[k], h[p] = h[p], h[k]
		k = p
	}
	s.heap = h
	if len(h) > 4*s.live+1024 {
		s.compact()
	}
}

func (s *modeSlider) pop() {
	h := s.heap
	last := len(h) - 1
	h[0] = h[last]
	h = h[:last]
	k := 0
	for {
		l, best := 2*k+1, k
		if l < len(h) && h[l].above(h[best]) {
			best = l
		}
		if l+1 < len(h) && h[l+1].above(h[best]) {
			best = l + 1
		}
		if best == k {
			break
		}
		h[k], h[best] = h[best], h[k]
		k = best
	}
	s.heap = h
}

func (s *modeSlider) current(e modeEnt) bool { return s.cnt[e.id] == e.c && s.first[e.id] == e.f }

// compact drops stale heap entries (a value's (count, first) never
// returns to an earlier state, so current entries are unique per value).
func (s *modeSlider) compact() {
	h := s.heap[:0]
	for _, e := range s.heap {
		if s.current(e) {
			h = append(h, e)
		}
	}
	s.heap = h
	for k := len(h)/2 - 1; k >= 0; k-- {
		for j := k; ; {
			l, best := 2*j+1, j
			if l < len(h) && h[l].above(h[best]) {
				best = l
			}
			if l+1 < len(h) && h[l+1].above(h[best]) {
				best = l + 1
			}
			if best == j {
				break
			}
			h[j], h[best] = h[best], h[j]
			j = best
		}
	}
}

func (s *modeSlider) add(j int) {
	if !s.valid(j) {
		return
	}
	id := s.ids[j]
	if s.cnt[id] == 0 {
		s.first[id] = int32(j)
		s.live++
	}
	s.cnt[id]++
	s.push(modeEnt{s.cnt[id], s.first[id], id})
}

func (s *modeSlider) remove(j int) {
	if !s.valid(j) {
		return
	}
	id := s.ids[j]
	s.cnt[id]--
	if s.cnt[id] == 0 {
		s.live--
		return
	}
	// j was the value's first row in the frame; its next row is in it.
	s.first[id] = s.next[j]
	s.push(modeEnt{s.cnt[id], s.first[id], id})
}

func (s *modeSlider) emit(i int) {
	for len(s.heap) > 0 && !s.current(s.heap[0]) {
		s.pop()
	}
	s.locs[i] = rowLoc{-1, 0}
	if len(s.heap) > 0 {
		s.locs[i] = rowLoc{0, s.heap[0].f}
	}
}

func (s *modeSlider) result(tc *TaskCtx) (arrow.Array, error) {
	return gatherColumn(tc.Ctx, tc.Mem, s.x.DataType(), []arrow.Array{s.x}, s.locs)
}

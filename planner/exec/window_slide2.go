package exec

import (
	"math/bits"

	"github.com/apache/arrow-go/v18/arrow"
)

// Sliding evaluators with counting states (see window_slide.go).

// ---- COUNT(DISTINCT ...) -----------------------------------------------------

type distinctSlider struct {
	valid func(int) bool
	ids   []int32
	cnt   []int32
	live  int64
	out   []int64
}

func newDistinctSlider(args []arrow.Array, valid func(int) bool, n int) (winSlider, error) {
	types := make([]arrow.DataType, len(args))
	for k, a := range args {
		types[k] = a.DataType()
	}
	kt := NewKeyTable(types)
	s := &distinctSlider{valid: valid, ids: make([]int32, n), out: make([]int64, n)}
	if err := kt.Insert(args, s.ids); err != nil {
		return nil, err
	}
	s.cnt = make([]int32, kt.Len())
	return s, nil
}

func (s *distinctSlider) part(ps, pe int) {}
func (s *distinctSlider) add(j int) {
	if s.valid(j) {
		if s.cnt[s.ids[j]] == 0 {
			s.live++
		}
		s.cnt[s.ids[j]]++
	}
}
func (s *distinctSlider) remove(j int) {
	if s.valid(j) {
		s.cnt[s.ids[j]]--
		if s.cnt[s.ids[j]] == 0 {
			s.live--
		}
	}
}
func (s *distinctSlider) emit(i int) { s.out[i] = s.live }
func (s *distinctSlider) result(tc *TaskCtx) (arrow.Array, error) {
	return buildInt64(tc.Mem, s.out, nil), nil
}

// ---- BIT_AND / BIT_OR / BIT_XOR ---------------------------------------------------

// bitsSlider counts, per bit position, the frame's values with that bit
// set. Values are read through the accumulator itself (one group per row),
// so the conversion to 64 bits and the result type are the grouped ones.
type bitsSlider struct {
	fn   string
	v    []uint64 // row values (the per-row accumulator's state)
	has  []bool
	ones [64]int32
	n    int32
	res  *aggBits
}

func newBitsSlider(sp *aggSpec, args []arrow.Array, mask []byte, n int) (winSlider, error) {
	rows := &aggBits{fn: sp.fn, dt: sp.out}
	rows.resize(n)
	gids := make([]int32, n)
	for j := range gids {
		gids[j] = int32(j)
	}
	if err := rows.update(args[:1], mask, gids); err != nil {
		return nil, err
	}
	res := &aggBits{fn: sp.fn, dt: sp.out}
	res.resize(n)
	return &bitsSlider{fn: sp.fn, v: rows.v, has: rows.has, res: res}, nil
}

func (s *bitsSlider) part(ps, pe int) {}
func (s *bitsSlider) upd(j int, d int32) {
	if !s.has[j] {
		return
	}
	s.n += d
	for x := s.v[j]; x != 0; x &= x - 1 {
		s.ones[bits.TrailingZeros64(x)] += d
	}
}
func (s *bitsSlider) add(j int)    { s.upd(j, 1) }
func (s *bitsSlider) remove(j int) { s.upd(j, -1) }
func (s *bitsSlider) emit(i int) {
	if s.n == 0 {
		return
	}
	var x uint64
	for b, c := range s.ones {
		var set bool
		switch s.fn {
		case "BIT_AND":
			set = c == s.n
		case "BIT_OR":
			set = c > 0
		default:
			set = c&1 == 1
		}
		if set {
			x |= 1 << b
		}
	}
	s.res.v[i], s.res.has[i] = x, true
}
func (s *bitsSlider) result(tc *TaskCtx) (arrow.Array, error) { return s.res.finish(tc.Mem) }

// ---- BOOL_AND / BOOL_OR ------------------------------------------------------------

type boolSlider struct {
	and    bool
	v      []int8 // row values: -1 none, 0 false, 1 true
	nt, nf int32
	res    *aggBool
}

func newBoolSlider(sp *aggSpec, args []arrow.Array, mask []byte, n int) (winSlider, error) {
	mode := aggModeMax
	if sp.fn == "BOOL_AND" {
		mode = aggModeMin
	}
	rows := &aggBool{mode: mode}
	rows.resize(n)
	gids := make([]int32, n)
	for j := range gids {
		gids[j] = int32(j)
	}
	if err := rows.update(args[:1], mask, gids); err != nil {
		return nil, err
	}
	res := &aggBool{mode: mode}
	res.resize(n)
	return &boolSlider{and: sp.fn == "BOOL_AND", v: rows.v, res: res}, nil
}

func (s *boolSlider) part(ps, pe int) {}
func (s *boolSlider) upd(j int, d int32) {
	switch s.v[j] {
	case 0:
		s.nf += d
	case 1:
		s.nt += d
	}
}
func (s *boolSlider) add(j int)    { s.upd(j, 1) }
func (s *boolSlider) remove(j int) { s.upd(j, -1) }
func (s *boolSlider) emit(i int) {
	switch {
	case s.nt+s.nf == 0:
	case s.and && s.nf > 0, !s.and && s.nt == 0:
		s.res.v[i] = 0
	default:
		s.res.v[i] = 1
	}
}
func (s *boolSlider) result(tc *TaskCtx) (arrow.Array, error) { return s.res.finish(tc.Mem) }

// ---- ANY_VALUE: the frame's first row with a value ----------------------------------

type anySlider struct {
	x        arrow.Array
	next     []int32 // row -> first valid row at or after it (n: none)
	lo, size int
	locs     []rowLoc
}

func newAnySlider(x arrow.Array, valid func(int) bool, n int) winSlider {
	s := &anySlider{x: x, next: make([]int32, n+1), locs: make([]rowLoc, n)}
	s.next[n] = int32(n)
	for j := n - 1; j >= 0; j-- {
		s.next[j] = s.next[j+1]
		if valid(j) {
			s.next[j] = int32(j)
		}
	}
	return s
}

func (s *anySlider) part(ps, pe int) { s.size = 0 }
func (s *anySlider) add(j int) {
	if s.size == 0 {
		s.lo = j
	}
	s.size++
}
func (s *anySlider) remove(j int) { s.size--; s.lo = j + 1 }
func (s *anySlider) emit(i int) {
	s.locs[i] = rowLoc{-1, 0}
	if s.size > 0 {
		if k := int(s.next[s.lo]); k < s.lo+s.size {
			s.locs[i] = rowLoc{0, int32(k)}
		}
	}
}
func (s *anySlider) result(tc *TaskCtx) (arrow.Array, error) {
	return gatherColumn(tc.Ctx, tc.Mem, s.x.DataType(), []arrow.Array{s.x}, s.locs)
}

// ---- PRODUCT / GEOMEAN ---------------------------------------------------------------

// evalProduct computes PRODUCT (GEOMEAN: the sum of logarithms) over each
// frame: forward (backward) accumulation for frames anchored at the
// partition start (end), a segment tree of partial products otherwise
// (O(log w) per range; the association order differs from a left-to-right
// product only in the last bits). Row values come from the accumulator
// with one group per row, and results go through its finish.
func evalProduct(tc *TaskCtx, wd *winData, sp *aggSpec, fm *frameSet, args []arrow.Array, parts func(func(ps, pe int) error) error) (arrow.Array, error) {
	n := wd.n
	geo := sp.fn == "GEOMEAN"
	var mbuf []byte
	m, err := aggMask(&mbuf, n, nil, args[:1], sp.skipNulls)
	if err != nil {
		return nil, err
	}
	rows := &aggProduct{geo: geo}
	rows.resize(n)
	gids := make([]int32, n)
	for j := range gids {
		gids[j] = int32(j)
	}
	if err := rows.update(args[:1], m, gids); err != nil {
		return nil, err
	}
	type pv struct {
		v float64
		n int64
	}
	comb := func(a, b pv) pv {
		switch {
		case a.n == 0:
			return b
		case b.n == 0:
			return a
		case geo:
			return pv{a.v + b.v, a.n + b.n}
		}
		return pv{a.v * b.v, a.n + b.n}
	}
	leaf := func(j int) pv { return pv{rows.v[j], rows.n[j]} }
	res := &aggProduct{geo: geo}
	res.resize(n)
	set := func(i int, p pv) { res.v[i], res.n[i] = p.v, p.n }
	var tree []pv
	var rs [][2]int
	err = parts(func(ps, pe int) error {
		switch fm.kind {
		case 1:
			var cur pv
			j := ps
			for i := ps; i < pe; i++ {
				_, fe := fm.at(i)
				for ; j < fe; j++ {
					cur = comb(cur, leaf(j))
				}
				set(i, cur)
			}
			return nil
		case -1:
			var cur pv
			j := pe
			for i := pe - 1; i >= ps; i-- {
				fs, _ := fm.at(i)
				for j > fs {
					j--
					cur = comb(leaf(j), cur)
				}
				set(i, cur)
			}
			return nil
		}
		w := pe - ps
		tree = aggGrow(tree[:0], 2*w)
		for j := 0; j < w; j++ {
			tree[w+j] = leaf(ps + j)
		}
		for j := w - 1; j > 0; j-- {
			tree[j] = comb(tree[2*j], tree[2*j+1])
		}
		for i := ps; i < pe; i++ {
			rs = fm.ranges(i, rs)
			var best pv
			for _, rg := range rs {
				l, r := rg[0]-ps+w, rg[1]-ps+w
				var cl, cr pv
				for l < r {
					if l&1 == 1 {
						cl = comb(cl, tree[l])
						l++
					}
					if r&1 == 1 {
						r--
						cr = comb(tree[r], cr)
					}
					l, r = l>>1, r>>1
				}
				best = comb(best, comb(cl, cr))
			}
			set(i, best)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return res.finish(tc.Mem)
}

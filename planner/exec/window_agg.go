package exec

import (
	"bytes"

	"github.com/apache/arrow-go/v18/arrow"
)

// Frame aggregates that cannot use prefix sums: float sums (subtracting
// prefix sums would lose precision and turn Inf - Inf into NaN) and MIN/MAX.
// Frames that start at the partition start grow monotonically and are
// accumulated forward, frames ending at the partition end backward, and
// sliding frames query a segment tree over the partition (O(log w)).
//
// Float sums are compensated (Neumaier, as the grouped SUM/AVG in
// agg_acc.go): every running sum and every tree node is a compSum, the sum
// plus the low-order bits its additions lost, and two nodes combine as the
// grouped aggregate merges partial states. A sliding frame is answered from
// the tree's nodes, never by removing rows from a running sum, so no error
// accumulates as the frame moves (DuckDB's segment trees for the same
// reason); a frame's SUM is the correctly rounded sum in all but
// pathological cases, whatever the frame shape, the sort direction or the
// partition's size, and AVG is that sum divided by the count.

// compSum is a compensated float sum.
type compSum struct{ s, c float64 }

func (k *compSum) add(v float64) { addComp(&k.s, &k.c, v) }

func (k *compSum) merge(o compSum) {
	addComp(&k.s, &k.c, o.s)
	k.c += o.c
}

func (k compSum) value() float64 { return compValue(k.s, k.c) }

func evalFloatSum(tc *TaskCtx, wd *winData, avg bool, fm *frameSet, x arrow.Array, parts func(func(ps, pe int) error) error) (arrow.Array, error) {
	n := wd.n
	get := floatGetter(x)
	vals := make([]float64, n)
	valid := make([]bool, n)
	kind := frameKindOf(fm)
	var tree []compSum
	var rs [][2]int
	cnt := make([]int64, 0, 1024)
	emit := func(i int, k compSum, c int64) {
		if c == 0 {
			return
		}
		valid[i] = true
		s := k.value()
		if avg {
			s /= float64(c)
		}
		vals[i] = s
	}
	err := parts(func(ps, pe int) error {
		m := pe - ps
		switch kind {
		case 1: // [ps, fe) with fe non-decreasing
			var s compSum
			c, j := int64(0), ps
			for i := ps; i < pe; i++ {
				_, fe := fm.at(i)
				for ; j < fe; j++ {
					if x.IsValid(j) {
						s.add(get(j))
						c++
					}
				}
				emit(i, s, c)
			}
		case -1: // [fs, pe) with fs non-decreasing: walk backwards
			var s compSum
			c, j := int64(0), pe
			for i := pe - 1; i >= ps; i-- {
				fs, _ := fm.at(i)
				for j > fs {
					j--
					if x.IsValid(j) {
						s.add(get(j))
						c++
					}
				}
				emit(i, s, c)
			}
		default:
			if cap(tree) < 2*m {
				tree = make([]compSum, 2*m)
			}
			tree = tree[:2*m]
			cnt = append(cnt[:0], 0)
			for j := 0; j < m; j++ {
				v, c := 0.0, cnt[j]
				if x.IsValid(ps + j) {
					v, c = get(ps+j), c+1
				}
				tree[m+j] = compSum{s: v}
				cnt = append(cnt, c)
			}
			for j := m - 1; j > 0; j-- {
				tree[j] = tree[2*j]
				tree[j].merge(tree[2*j+1])
			}
			for i := ps; i < pe; i++ {
				rs = fm.ranges(i, rs)
				c := int64(0)
				var sum compSum
				for _, rg := range rs {
					fs, fe := rg[0], rg[1]
					c += cnt[fe-ps] - cnt[fs-ps]
					l, r := fs-ps+m, fe-ps+m
					for l < r {
						if l&1 == 1 {
							sum.merge(tree[l])
							l++
						}
						if r&1 == 1 {
							r--
							sum.merge(tree[r])
						}
						l, r = l>>1, r>>1
					}
				}
				emit(i, sum, c)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return buildFloat64(tc.Mem, vals, valid), nil
}

func evalMinMax(tc *TaskCtx, wd *winData, isMin bool, fm *frameSet, x arrow.Array, parts func(func(ps, pe int) error) error) (arrow.Array, error) {
	return evalMinMaxBy(tc, wd, isMin, fm, x, x.IsValid, x, parts)
}

// evalMinMaxBy returns, for every frame, the row of out at the row with the
// smallest (largest) x among rows where valid holds; of equal x the first
// row in the frame wins (MIN/MAX, and ARG_MIN/ARG_MAX whose ties keep the
// first row seen).
func evalMinMaxBy(tc *TaskCtx, wd *winData, isMin bool, fm *frameSet, x arrow.Array, valid func(int) bool, out arrow.Array, parts func(func(ps, pe int) error) error) (arrow.Array, error) {
	n := wd.n
	enc, err := NewKeyEncoder([]arrow.DataType{x.DataType()}, []SortOrder{{}})
	if err != nil {
		return nil, err
	}
	var keys KeyRows
	if err := enc.Encode(&keys, []arrow.Array{x}); err != nil {
		return nil, err
	}
	// better picks the index of the MIN (MAX) of rows a and b (-1 = none).
	better := func(a, b int32) int32 {
		if a < 0 {
			return b
		}
		if b < 0 {
			return a
		}
		c := bytes.Compare(keys.Row(int(a)), keys.Row(int(b)))
		if (isMin && c <= 0) || (!isMin && c >= 0) {
			return a
		}
		return b
	}
	leaf := func(j int) int32 {
		if valid(j) {
			return int32(j)
		}
		return -1
	}
	locs := make([]rowLoc, n)
	set := func(i int, j int32) {
		locs[i] = rowLoc{-1, 0}
		if j >= 0 {
			locs[i] = rowLoc{0, j}
		}
	}
	kind := frameKindOf(fm)
	var tree []int32
	var rs [][2]int
	err = parts(func(ps, pe int) error {
		m := pe - ps
		switch kind {
		case 1:
			cur, j := int32(-1), ps
			for i := ps; i < pe; i++ {
				_, fe := fm.at(i)
				for ; j < fe; j++ {
					cur = better(cur, leaf(j))
				}
				set(i, cur)
			}
		case -1:
			cur, j := int32(-1), pe
			for i := pe - 1; i >= ps; i-- {
				fs, _ := fm.at(i)
				for j > fs {
					j--
					cur = better(leaf(j), cur)
				}
				set(i, cur)
			}
		default:
			if cap(tree) < 2*m {
				tree = make([]int32, 2*m)
			}
			tree = tree[:2*m]
			for j := 0; j < m; j++ {
				tree[m+j] = leaf(ps + j)
			}
			for j := m - 1; j > 0; j-- {
				tree[j] = better(tree[2*j], tree[2*j+1])
			}
			for i := ps; i < pe; i++ {
				rs = fm.ranges(i, rs)
				best := int32(-1)
				for _, rg := range rs {
					l, r := rg[0]-ps+m, rg[1]-ps+m
					cl, cr := int32(-1), int32(-1)
					for l < r {
						if l&1 == 1 {
							cl = better(cl, tree[l])
							l++
						}
						if r&1 == 1 {
							r--
							cr = better(tree[r], cr)
						}
						l, r = l>>1, r>>1
					}
					best = better(best, better(cl, cr))
				}
				set(i, best)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return gatherColumn(tc.Ctx, tc.Mem, out.DataType(), []arrow.Array{out}, locs)
}

// frameKindOf is frameKind of the frames' definition: 1 when every frame
// starts at its partition's start, -1 when every frame ends at its end.
func frameKindOf(fm *frameSet) int { return fm.kind }

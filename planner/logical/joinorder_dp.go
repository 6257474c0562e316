package logical

import (
	"fmt"
	"math/bits"

	"github.com/paimon-flightsql/paimon-flightsql/planner/exec"
	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

// dpMaxLeaves bounds exhaustive enumeration (3^n pairs of subsets); larger
// trees of joins are ordered greedily (GOO), and trees of more than 64
// inputs keep their order.
const dpMaxLeaves = 10

// joinPlan is a join tree over a set of leaves (a bit per leaf).
type joinPlan struct {
	set         uint64
	leaf        int // when left == nil
	left, right *joinPlan
	rows, cost  float64
}

// joinGraph is a tree of inner joins taken apart: its leaves, the columns
// of leaf i at [start[i], start[i]+width), and its conditions over those
// global columns with the leaves each one reads.
type joinGraph struct {
	m      *Model
	leaves []Node
	start  []int
	total  int
	conds  []vec.Expr
	masks  []uint64
	rows   []float64 // estimated rows of each leaf
	// factors: the selectivity of each group of conditions and the leaves
	// it reads (the equalities between two leaves grouped by pair).
	factors []joinFactor
}

type joinFactor struct {
	mask uint64
	f    float64
}

func newJoinGraph(leaves []Node, conds []vec.Expr, m *Model) *joinGraph {
	g := &joinGraph{m: m, leaves: leaves, conds: conds, start: make([]int, len(leaves)), rows: make([]float64, len(leaves))}
	var all Node
	for i, l := range leaves {
		g.start[i] = g.total
		g.total += len(l.Schema())
		g.rows[i] = m.Rows(l)
		if all == nil {
			all = l
		} else {
			all = &Join{Left: all, Right: l, Type: exec.InnerJoin}
		}
	}
	g.masks = make([]uint64, len(conds))
	for i, c := range conds {
		for _, col := range vec.Columns(c) {
			g.masks[i] |= 1 << uint(g.leafOf(col))
		}
		if g.masks[i] == 0 {
			g.masks[i] = 1 // a constant condition: with the first leaf
		}
	}
	// equalities between two leaves: grouped by pair, the product of the
	// keys' distinct counts capped by the smaller table (as Model.Rows
	// estimates a join)
	type keys struct{ d, cap float64 }
	pairs := map[uint64]*keys{}
	var order []uint64
	for i, c := range conds {
		a, b, ok := equiCols(c)
		if !ok || bits.OnesCount64(g.masks[i]) != 2 {
			g.factors = append(g.factors, joinFactor{mask: g.masks[i], f: m.sel(all, c)})
			continue
		}
		k := pairs[g.masks[i]]
		if k == nil {
			k = &keys{d: 1, cap: min(g.baseRows(all, a), g.baseRows(all, b))}
			pairs[g.masks[i]] = k
			order = append(order, g.masks[i])
		}
		k.d *= max(g.ndv(all, a), g.ndv(all, b))
	}
	for _, p := range order {
		k := pairs[p]
		g.factors = append(g.factors, joinFactor{mask: p, f: 1 / max(min(k.d, k.cap), 1)})
	}
	return g
}

func (g *joinGraph) leafOf(col int) int {
	for i := len(g.start) - 1; i >= 0; i-- {
		if col >= g.start[i] {
			return i
		}
	}
	return 0
}

// ndv of a global column: of its table column, else the rows of its leaf.
func (g *joinGraph) ndv(all Node, col int) float64 {
	if _, ok := g.scanOf(all, col); ok {
		return g.m.ndv(all, col)
	}
	return g.rows[g.leafOf(col)]
}

// baseRows of a global column: its table's rows, else its leaf's.
func (g *joinGraph) baseRows(all Node, col int) float64 {
	if s, ok := g.scanOf(all, col); ok {
		return g.m.st.Rows(s)
	}
	return g.rows[g.leafOf(col)]
}

func (g *joinGraph) scanOf(all Node, col int) (*Scan, bool) {
	s, _, ok := origin(all, col)
	return s, ok
}

// card is the estimated rows of joining the leaves of set.
func (g *joinGraph) card(set uint64) float64 {
	v := 1.0
	for s := set; s != 0; s &= s - 1 {
		v *= g.rows[bits.TrailingZeros64(s)]
	}
	for _, f := range g.factors {
		if f.mask&^set == 0 {
			v *= f.f
		}
	}
	return max(v, 1)
}

// connected reports whether a condition reads leaves of both a and b (and
// no others).
func (g *joinGraph) connected(a, b uint64) bool {
	for _, m := range g.masks {
		if m&a != 0 && m&b != 0 && m&^(a|b) == 0 {
			return true
		}
	}
	return false
}

func (g *joinGraph) join(a, b *joinPlan) *joinPlan {
	set := a.set | b.set
	rows := g.card(set)
	return &joinPlan{set: set, left: a, right: b, rows: rows, cost: a.cost + b.cost + rows + min(a.rows, b.rows)}
}

func (g *joinGraph) leafPlan(i int) *joinPlan {
	return &joinPlan{set: 1 << uint(i), leaf: i, rows: g.card(1 << uint(i))}
}

// better orders plans by cost, then rows (ties keep the first found).
func better(a, b *joinPlan) bool {
	if b == nil {
		return true
	}
	if a.cost != b.cost {
		return a.cost < b.cost
	}
	return a.rows < b.rows
}

// dp enumerates every pair of connected subsets (DPsub): the cheapest
// plan of each connected subset; nil for the whole set when the graph is
// not connected.
func (g *joinGraph) dp() map[uint64]*joinPlan {
	n := len(g.leaves)
	best := make(map[uint64]*joinPlan, 1<<uint(n))
	for i := 0; i < n; i++ {
		best[1<<uint(i)] = g.leafPlan(i)
	}
	full := uint64(1)<<uint(n) - 1
	for set := uint64(1); set <= full; set++ {
		if bits.OnesCount64(set) < 2 {
			continue
		}
		var cur *joinPlan
		// proper subsets s1 of set with s1 < s2 (each split once)
		for s1 := (set - 1) & set; s1 != 0; s1 = (s1 - 1) & set {
			s2 := set &^ s1
			if s1 > s2 {
				continue
			}
			p1, p2 := best[s1], best[s2]
			if p1 == nil || p2 == nil || !g.connected(s1, s2) {
				continue
			}
			if p := g.join(p1, p2); better(p, cur) {
				cur = p
			}
		}
		if cur != nil {
			best[set] = cur
		}
	}
	return best
}

// greedy joins, among the plans so far, the connected pair with the
// fewest result rows (GOO), starting from the leaves; plans connected by
// nothing are joined last, smallest first.
func (g *joinGraph) greedy(plans []*joinPlan) *joinPlan {
	for len(plans) > 1 {
		bi, bj := -1, -1
		var bp *joinPlan
		for i := range plans {
			for j := i + 1; j < len(plans); j++ {
				if !g.connected(plans[i].set, plans[j].set) {
					continue
				}
				p := g.join(plans[i], plans[j])
				if bp == nil || p.rows < bp.rows || p.rows == bp.rows && p.cost < bp.cost {
					bi, bj, bp = i, j, p
				}
			}
		}
		if bp == nil {
			// not connected: a cross product of the two smallest
			bi, bj = 0, 1
			if plans[bj].rows < plans[bi].rows {
				bi, bj = bj, bi
			}
			for k := 2; k < len(plans); k++ {
				if plans[k].rows < plans[bi].rows {
					bi, bj = k, bi
				} else if plans[k].rows < plans[bj].rows {
					bj = k
				}
			}
			if bi > bj {
				bi, bj = bj, bi
			}
			bp = g.join(plans[bi], plans[bj])
		}
		plans[bi] = bp
		plans = append(plans[:bj], plans[bj+1:]...)
	}
	return plans[0]
}

// orderJoins orders a tree of inner joins (its leaves, and its conditions
// over their concatenated columns).
func orderJoins(leaves []Node, conds []vec.Expr, m *Model) (Node, error) {
	n := len(leaves)
	if n > 64 {
		return nil, fmt.Errorf("join ordering: %d inputs (at most 64)", n)
	}
	g := newJoinGraph(leaves, conds, m)
	var root *joinPlan
	if n <= dpMaxLeaves {
		best := g.dp()
		root = best[uint64(1)<<uint(n)-1]
		if root == nil {
			// not connected: the connected components (maximal subsets
			// with a plan), joined greedily
			var comps []*joinPlan
			var covered uint64
			for covered != uint64(1)<<uint(n)-1 {
				var big *joinPlan
				for set, p := range best {
					if set&covered == 0 && (big == nil || bits.OnesCount64(set) > bits.OnesCount64(big.set) ||
						bits.OnesCount64(set) == bits.OnesCount64(big.set) && set < big.set) {
						big = p
					}
				}
				comps = append(comps, big)
				covered |= big.set
			}
			root = g.greedy(comps)
		}
	} else {
		plans := make([]*joinPlan, n)
		for i := range plans {
			plans[i] = g.leafPlan(i)
		}
		root = g.greedy(plans)
	}
	used := make([]bool, len(conds))
	cur, pos, err := g.build(root, used)
	if err != nil {
		return nil, err
	}
	// Restore the original column order.
	s := cur.Schema()
	exprs := make([]vec.Expr, g.total)
	out := make(Schema, g.total)
	for c := 0; c < g.total; c++ {
		exprs[c] = s.Col(pos[c])
		out[c] = s[pos[c]]
	}
	return &Project{Input: cur, Exprs: exprs, S: out}, nil
}

// build turns a plan into joins: the input with fewer estimated rows on
// the right (a hash join's build side), each condition at the lowest join
// (or leaf) having all its columns. pos maps a global column to its
// position in the result.
func (g *joinGraph) build(p *joinPlan, used []bool) (Node, map[int]int, error) {
	var cur Node
	pos := map[int]int{}
	if p.left == nil {
		cur = g.leaves[p.leaf]
		for c := range g.leaves[p.leaf].Schema() {
			pos[g.start[p.leaf]+c] = c
		}
	} else {
		l, r := p.left, p.right
		if r.rows > l.rows || r.rows == l.rows && r.set < l.set {
			l, r = r, l
		}
		ln, lpos, err := g.build(l, used)
		if err != nil {
			return nil, nil, err
		}
		rn, rpos, err := g.build(r, used)
		if err != nil {
			return nil, nil, err
		}
		w := len(ln.Schema())
		for k, v := range lpos {
			pos[k] = v
		}
		for k, v := range rpos {
			pos[k] = w + v
		}
		cur = &Join{Left: ln, Right: rn, Type: exec.InnerJoin}
	}
	var on []vec.Expr
	for i, m := range g.masks {
		if !used[i] && m&^p.set == 0 {
			used[i] = true
			e, err := vec.Remap(g.conds[i], pos)
			if err != nil {
				return nil, nil, err
			}
			on = append(on, e)
		}
	}
	if len(on) == 0 {
		return cur, pos, nil
	}
	if p.left != nil {
		// the join built here (never a leaf's own join: nodes are
		// immutable, and a leaf may be an outer join)
		j := cur.(*Join)
		var err error
		if j.On, err = andAll(on); err != nil {
			return nil, nil, err
		}
		return j, pos, nil
	}
	cur, err := withFilter(cur, on)
	return cur, pos, err
}

package logical

import (
	"github.com/paimon-flightsql/paimon-flightsql/planner/exec"
	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

// Estimator guesses the number of rows a node returns.
type Estimator func(n Node) float64

// DefaultEstimate is a structural estimate over leaf estimates.
func DefaultEstimate(leaf func(*Scan) float64) Estimator {
	var est Estimator
	est = func(n Node) float64 {
		switch x := n.(type) {
		case *Scan:
			// 0.3 per constrained column (a BETWEEN's two conjuncts are one
			// range), at most three
			v := leaf(x)
			cols := map[int]bool{}
			for _, f := range x.Filters {
				for _, c := range vec.Columns(f) {
					cols[c] = true
				}
			}
			for i := 0; i < len(cols) && i < 3; i++ {
				v *= 0.3
			}
			return max(v, 1)
		case *Filter:
			return max(est(x.Input)*0.3, 1)
		case *Aggregate:
			if len(x.Groups) == 0 {
				return 1
			}
			return max(est(x.Input)*0.1, 1)
		case *Join:
			l, r := est(x.Left), est(x.Right)
			switch x.Type {
			case exec.SemiJoin, exec.AntiJoin, exec.MarkJoin:
				return l
			}
			if x.On == nil {
				return l * r
			}
			return max(l, r)
		case *Limit:
			if x.Fetch >= 0 {
				return max(min(float64(x.Fetch), est(x.Input)), 1)
			}
		case *Values:
			return float64(len(x.Rows))
		case *MaxOneRow:
			return 1
		}
		v := 1.0
		for _, c := range n.Children() {
			v = max(v, est(c))
		}
		return v
	}
	return est
}

// ReorderJoins rewrites each tree of inner joins into a left-deep tree: the
// largest input first (the probe side), then repeatedly the smallest input
// connected to what is joined so far (the build side) — preferring inputs
// joined by a key to a leaf at least as large, then by any key, then by any
// condition — conditions applied as soon as their columns are available. The original column order is
// restored by a projection.
func ReorderJoins(n Node, est Estimator) (Node, error) {
	// Top-down: the whole tree of inner joins under n is ordered at once
	// (ordering a subtree first would hide its leaves behind the
	// projection that restores its column order); the leaves are ordered
	// on their own.
	if j, ok := n.(*Join); ok && j.Type == exec.InnerJoin {
		var leaves []Node
		var conds []vec.Expr
		collectInner(j, 0, &leaves, &conds)
		if len(leaves) >= 3 {
			for i, l := range leaves {
				x, err := ReorderJoins(l, est)
				if err != nil {
					return nil, err
				}
				leaves[i] = x
			}
			return greedy(leaves, conds, est)
		}
	}
	ch := n.Children()
	if len(ch) > 0 {
		nch := make([]Node, len(ch))
		changed := false
		for i, c := range ch {
			x, err := ReorderJoins(c, est)
			if err != nil {
				return nil, err
			}
			nch[i] = x
			changed = changed || x != c
		}
		if changed {
			n = n.WithChildren(nch...)
		}
	}
	return n, nil
}

func collectInner(n Node, off int, leaves *[]Node, conds *[]vec.Expr) int {
	if j, ok := n.(*Join); ok && j.Type == exec.InnerJoin {
		nl := collectInner(j.Left, off, leaves, conds)
		nr := collectInner(j.Right, off+nl, leaves, conds)
		for _, c := range conjuncts(j.On) {
			*conds = append(*conds, vec.Shift(c, off))
		}
		return nl + nr
	}
	*leaves = append(*leaves, n)
	return len(n.Schema())
}

func greedy(leaves []Node, conds []vec.Expr, est Estimator) (Node, error) {
	// global column ranges of each leaf
	start := make([]int, len(leaves))
	total := 0
	for i, l := range leaves {
		start[i] = total
		total += len(l.Schema())
	}
	leafOf := func(col int) int {
		for i := len(start) - 1; i >= 0; i-- {
			if col >= start[i] {
				return i
			}
		}
		return 0
	}
	condLeaves := make([]map[int]bool, len(conds))
	for i, c := range conds {
		condLeaves[i] = map[int]bool{}
		for _, col := range vec.Columns(c) {
			condLeaves[i][leafOf(col)] = true
		}
	}
	sizes := make([]float64, len(leaves))
	sel := make([]float64, len(leaves)) // estimated share of its rows a leaf keeps
	first := 0
	for i, l := range leaves {
		sizes[i] = est(l)
		sel[i] = 1
		if raw := rawSize(l, est); raw > 0 {
			sel[i] = min(sizes[i]/raw, 1)
		}
		if sizes[i] > sizes[first] {
			first = i
		}
	}
	in := map[int]bool{first: true}
	order := []int{first}
	used := make([]bool, len(conds))
	// equi[i]: conds[i] is an equality between two leaves (a join key);
	// a leaf reachable only through other conditions (an OR across
	// tables, an inequality) comes after the leaves reachable by keys.
	equi := make([]bool, len(conds))
	for i, c := range conds {
		if cmp, ok := c.(*vec.Compare); ok && len(condLeaves[i]) == 2 {
			_, _, equi[i] = cmp.Equality()
		}
	}
	// pass 0: joined by a key to a leaf at least as large (the dimension
	// side of a foreign key, which does not multiply rows: lineitem →
	// orders, not supplier → customer on a shared nation key); pass 1: by
	// any key; pass 2: by any condition.
	pass := 0
	connected := func(k int) bool {
		for i, ls := range condLeaves {
			if used[i] || !ls[k] || len(ls) < 2 || pass < 2 && !equi[i] {
				continue
			}
			if pass == 0 {
				grows := false
				for l := range ls {
					if l != k && sizes[l] < sizes[k] {
						grows = true
					}
				}
				if grows {
					continue
				}
			}
			all := true
			for l := range ls {
				if l != k && !in[l] {
					all = false
				}
			}
			if all {
				return true
			}
		}
		return false
	}
	for len(order) < len(leaves) {
		best := -1
		for pass = 0; pass < 3; pass++ {
			for k := range leaves {
				if in[k] || !connected(k) {
					continue
				}
				// joined to its dimension side, a leaf keeps the share of
				// rows its own filters keep: the most selective goes
				// first (part with p_name LIKE before unfiltered supplier)
				if best < 0 || pass == 0 && sel[k] < sel[best] || (pass != 0 || sel[k] == sel[best]) && sizes[k] < sizes[best] {
					best = k
				}
			}
			if best >= 0 {
				break
			}
		}
		if best < 0 {
			for k := range leaves {
				if !in[k] && (best < 0 || sizes[k] < sizes[best]) {
					best = k
				}
			}
		}
		in[best] = true
		order = append(order, best)
	}
	// Build the tree; pos maps a global column to its position in cur.
	pos := make(map[int]int, total)
	var cur Node
	width := 0
	for _, k := range order {
		l := leaves[k]
		w := len(l.Schema())
		for c := 0; c < w; c++ {
			pos[start[k]+c] = width + c
		}
		width += w
		if cur == nil {
			cur = l
			// conditions on the first leaf alone
			var on []vec.Expr
			for i, ls := range condLeaves {
				if !used[i] && len(ls) <= 1 && ls[k] {
					used[i] = true
					e, err := vec.Remap(conds[i], pos)
					if err != nil {
						return nil, err
					}
					on = append(on, e)
				}
			}
			if len(on) > 0 {
				var err error
				if cur, err = withFilter(cur, on); err != nil {
					return nil, err
				}
			}
			continue
		}
		var on []vec.Expr
		for i, ls := range condLeaves {
			if used[i] {
				continue
			}
			all := true
			for l := range ls {
				if !in2(order, l, k) {
					all = false
				}
			}
			if all {
				used[i] = true
				e, err := vec.Remap(conds[i], pos)
				if err != nil {
					return nil, err
				}
				on = append(on, e)
			}
		}
		j := &Join{Left: cur, Right: l, Type: exec.InnerJoin}
		if len(on) > 0 {
			var err error
			if j.On, err = andAll(on); err != nil {
				return nil, err
			}
		}
		cur = j
	}
	// Restore the original column order.
	s := cur.Schema()
	exprs := make([]vec.Expr, total)
	out := make(Schema, total)
	for g := 0; g < total; g++ {
		exprs[g] = s.Col(pos[g])
		out[g] = s[pos[g]]
	}
	return &Project{Input: cur, Exprs: exprs, S: out}, nil
}

// in2 reports whether leaf l is among the leaves joined up to and
// including k in order.
func in2(order []int, l, k int) bool {
	for _, o := range order {
		if o == l {
			return true
		}
		if o == k {
			return false
		}
	}
	return false
}

// Optimize runs the rules in order.
func Optimize(n Node, est Estimator) (Node, error) {
	n, err := FoldConstants(n)
	if err != nil {
		return nil, err
	}
	n, err = PushFilters(n)
	if err != nil {
		return nil, err
	}
	if est != nil {
		if n, err = ReorderJoins(n, est); err != nil {
			return nil, err
		}
		if n, err = PushFilters(n); err != nil {
			return nil, err
		}
		if n, err = PushSemiJoins(n, est); err != nil {
			return nil, err
		}
	}
	if n, err = PruneColumns(n); err != nil {
		return nil, err
	}
	if est != nil {
		n = ChooseBuildSides(n, est)
	}
	return PushLimit(n), nil
}

// PushLimit gives a scan a row-count hint when a LIMIT sits above it with
// only projections in between (filters stay: the scan applies them before
// counting).
func PushLimit(n Node) Node {
	ch := n.Children()
	if len(ch) > 0 {
		nch := make([]Node, len(ch))
		changed := false
		for i, c := range ch {
			nch[i] = PushLimit(c)
			changed = changed || nch[i] != c
		}
		if changed {
			n = n.WithChildren(nch...)
		}
	}
	l, ok := n.(*Limit)
	if !ok || l.Fetch < 0 {
		return n
	}
	var path []*Project
	cur := l.Input
	for {
		if p, ok := cur.(*Project); ok {
			path = append(path, p)
			cur = p.Input
			continue
		}
		break
	}
	s, ok := cur.(*Scan)
	if !ok {
		return n
	}
	cp := *s
	cp.Limit = l.Fetch + l.Offset
	var rebuilt Node = &cp
	for i := len(path) - 1; i >= 0; i-- {
		rebuilt = path[i].WithChildren(rebuilt)
	}
	return l.WithChildren(rebuilt)
}

// rawSize is the estimated size of a leaf without its filters (a scan
// below filters and projections, its pushed filters dropped); 0 when the
// leaf is something else.
func rawSize(n Node, est Estimator) float64 {
	for {
		switch x := n.(type) {
		case *Filter:
			n = x.Input
		case *Project:
			n = x.Input
		case *Scan:
			cp := *x
			cp.Filters = nil
			return est(&cp)
		default:
			return 0
		}
	}
}

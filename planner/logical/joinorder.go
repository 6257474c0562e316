package logical

import (
	"github.com/paimon-flightsql/paimon-flightsql/planner/exec"
	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

// ReorderJoins rewrites each tree of inner joins (3 or more inputs) into
// the cheapest tree the cardinality model finds (joinorder_dp.go): bushy
// where that is cheaper, the smaller input of every join on the right
// (the build side), no cross product unless the inputs are not connected,
// conditions applied as soon as their columns are available. The
// original column order is restored by a projection.
func ReorderJoins(n Node, m *Model) (Node, error) {
	// Top-down: the whole tree of inner joins under n is ordered at once
	// (ordering a subtree first would hide its leaves behind the
	// projection that restores its column order); the leaves are ordered
	// on their own.
	if j, ok := n.(*Join); ok && j.Type == exec.InnerJoin {
		var leaves []Node
		var conds []vec.Expr
		collectInner(j, 0, &leaves, &conds)
		if len(leaves) >= 3 && len(leaves) <= 64 {
			for i, l := range leaves {
				x, err := ReorderJoins(l, m)
				if err != nil {
					return nil, err
				}
				leaves[i] = x
			}
			return orderJoins(leaves, conds, m)
		}
	}
	ch := n.Children()
	if len(ch) > 0 {
		nch := make([]Node, len(ch))
		changed := false
		for i, c := range ch {
			x, err := ReorderJoins(c, m)
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

// Optimize runs the rules in order; m (nil: no estimates) orders joins
// and chooses build sides.
func Optimize(n Node, m *Model) (Node, error) {
	n = ShareCTEs(n, m)
	n, err := FoldConstants(n)
	if err != nil {
		return nil, err
	}
	n, err = PushFilters(n)
	if err != nil {
		return nil, err
	}
	if n, err = PushCTEReaderFilters(n); err != nil {
		return nil, err
	}
	if m != nil {
		if n, err = ReorderJoins(n, m); err != nil {
			return nil, err
		}
		if n, err = PushFilters(n); err != nil {
			return nil, err
		}
		if n, err = PushSemiJoins(n, m.Rows); err != nil {
			return nil, err
		}
	}
	n = PruneEmpty(n)
	if n, err = PruneColumns(n); err != nil {
		return nil, err
	}
	if m != nil {
		n = ChooseBuildSides(n, m.Rows)
	}
	return unifyCTEs(PushLimit(n)), nil
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

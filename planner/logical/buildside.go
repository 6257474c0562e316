package logical

import "github.com/paimon-flightsql/paimon-flightsql/planner/exec"

// ChooseBuildSides marks the semi and anti joins whose left (outer) input
// is estimated smaller than the right (the subquery's): those build
// the left input and probe the right (EXISTS over a 6M-row table from a
// few thousand outer rows). Mark joins keep their sides (their NULL
// semantics need the right side built).
func ChooseBuildSides(n Node, est Estimator) Node {
	ch := n.Children()
	if len(ch) > 0 {
		nch := make([]Node, len(ch))
		changed := false
		for i, c := range ch {
			nch[i] = ChooseBuildSides(c, est)
			changed = changed || nch[i] != c
		}
		if changed {
			n = n.WithChildren(nch...)
		}
	}
	j, ok := n.(*Join)
	if !ok || (j.Type != exec.SemiJoin && j.Type != exec.AntiJoin) || j.On == nil {
		return n
	}
	want := est(j.Left) < est(j.Right)
	if want == j.BuildLeft {
		return n
	}
	cp := *j
	cp.BuildLeft = want
	return &cp
}

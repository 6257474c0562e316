package logical

import (
	"errors"

	"github.com/paimon-flightsql/paimon-flightsql/planner/exec"
	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

// PushSemiJoins moves a semi join below the projections (of plain columns)
// and inner joins of its left input, down to the input whose columns its
// condition reads, when the subquery side is estimated smaller than that
// input or than its current left input, and that input is not larger
// than the current left input (a join that shrinks it keeps the semi
// join above): the semi join then acts as a filter before the join fans out
// (TPC-H Q18: orders IN (a few orders) is applied to orders, not to
// orders ⋈ lineitem ⋈ customer). The result is the same: a row of an inner
// join survives a semi join on its A columns exactly when its A part does.
func PushSemiJoins(n Node, est Estimator) (Node, error) {
	ch := n.Children()
	if len(ch) > 0 {
		nch := make([]Node, len(ch))
		changed := false
		for i, c := range ch {
			x, err := PushSemiJoins(c, est)
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
	j, ok := n.(*Join)
	if !ok || j.Type != exec.SemiJoin || j.On == nil || j.InCond != nil {
		return n, nil
	}
	return pushSemi(j, est)
}

// pushSemi pushes j one level down when it can, then again from there.
func pushSemi(j *Join, est Estimator) (Node, error) {
	nl := len(j.Left.Schema())
	var leftCols []int
	for _, c := range vec.Columns(j.On) {
		if c < nl {
			leftCols = append(leftCols, c)
		}
	}
	switch x := j.Left.(type) {
	case *Project:
		// Semi(Project(X)) → Project(Semi(X)) when the condition reads
		// plain columns of the projection.
		nIn := len(x.Input.Schema())
		on, err := vec.Transform(j.On, func(e vec.Expr) (vec.Expr, error) {
			c, ok := e.(*vec.Column)
			if !ok {
				return e, nil
			}
			if c.Index >= nl {
				cp := *c
				cp.Index += nIn - nl
				return &cp, nil
			}
			if pc, ok := x.Exprs[c.Index].(*vec.Column); ok {
				return pc, nil
			}
			return nil, errNotPlain
		})
		if err != nil {
			return j, nil
		}
		inner := &Join{Left: x.Input, Right: j.Right, Type: j.Type, On: on, MarkName: j.MarkName}
		pushed, err := pushSemi(inner, est)
		if err != nil {
			return nil, err
		}
		if pushed == Node(inner) {
			return j, nil // no further: keep the original shape
		}
		return x.WithChildren(pushed), nil
	case *Join:
		if x.Type != exec.InnerJoin {
			return j, nil
		}
		na := len(x.Left.Schema())
		inA, inB := true, true
		for _, c := range leftCols {
			if c < na {
				inB = false
			} else {
				inA = false
			}
		}
		if len(leftCols) == 0 || inA == inB {
			return j, nil
		}
		nb := nl - na
		if inA {
			if !pushSemiTo(est, j, x.Left) {
				return j, nil
			}
			on := shiftFrom(j.On, nl, -nb)
			s, err := pushSemi(&Join{Left: x.Left, Right: j.Right, Type: j.Type, On: on, MarkName: j.MarkName}, est)
			if err != nil {
				return nil, err
			}
			return x.WithChildren(s, x.Right), nil
		}
		if !pushSemiTo(est, j, x.Right) {
			return j, nil
		}
		on := vec.Shift(j.On, -na)
		s, err := pushSemi(&Join{Left: x.Right, Right: j.Right, Type: j.Type, On: on, MarkName: j.MarkName}, est)
		if err != nil {
			return nil, err
		}
		return x.WithChildren(x.Left, s), nil
	}
	return j, nil
}

// pushSemiTo reports whether semi join j is worth moving down to input
// to of its left input's join.
func pushSemiTo(est Estimator, j *Join, to Node) bool {
	l, t := est(j.Left), est(to)
	return t <= l && est(j.Right) < max(t, l)
}

var errNotPlain = errors.New("not a plain column")

// shiftFrom moves the column indexes >= from by delta.
func shiftFrom(e vec.Expr, from, delta int) vec.Expr {
	out, _ := vec.Transform(e, func(x vec.Expr) (vec.Expr, error) {
		c, ok := x.(*vec.Column)
		if !ok || c.Index < from {
			return x, nil
		}
		cp := *c
		cp.Index += delta
		return &cp, nil
	})
	return out
}

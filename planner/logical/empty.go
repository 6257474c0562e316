package logical

import (
	"github.com/apache/arrow-go/v18/arrow/scalar"

	"github.com/paimon-flightsql/paimon-flightsql/planner/exec"
	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

// PruneEmpty replaces every subtree that cannot produce a row by an empty
// Values node of the same schema, so that it is neither planned nor run.
// A filter is empty when one of its conjuncts folds to FALSE or NULL —
// typically after filters were pushed through a UNION ALL whose branches
// project constants (TPC-DS Q4, Q11, Q74: `WHERE sale_type = 's'` reaches
// each branch as 's' = 's', 'c' = 's', 'w' = 's', and two of three
// branches scanned a fact table for nothing). Emptiness then propagates:
// through projections, filters, sorts, limits, windows, DISTINCT, an
// aggregate with GROUP BY (without GROUP BY, or with an empty grouping set,
// it still yields a row), the joins that need a row from the empty side,
// INTERSECT, the first input of EXCEPT, and UNION (empty inputs are
// dropped). It never changes a result.
func PruneEmpty(n Node) Node {
	ch := n.Children()
	if len(ch) > 0 {
		nch := make([]Node, len(ch))
		changed := false
		for i, c := range ch {
			nch[i] = PruneEmpty(c)
			changed = changed || nch[i] != c
		}
		if changed {
			n = n.WithChildren(nch...)
			ch = nch
		}
	}
	empty := func() Node { return &Values{S: n.Schema()} }
	switch x := n.(type) {
	case *Filter:
		if isEmpty(x.Input) || neverTrue(x.Pred) {
			return empty()
		}
		if alwaysTrue(x.Pred) {
			return x.Input
		}
	case *Scan:
		var keep []vec.Expr
		for _, f := range x.Filters {
			if neverTrue(f) {
				return empty()
			}
			if !alwaysTrue(f) {
				keep = append(keep, f)
			}
		}
		if len(keep) < len(x.Filters) {
			cp := *x
			cp.Filters = keep
			return &cp
		}
	case *Project, *Sort, *Limit, *Window, *Distinct, *MaxOneRow:
		if isEmpty(ch[0]) {
			return empty()
		}
	case *Aggregate:
		if isEmpty(x.Input) && len(x.Groups) > 0 && !hasEmptySet(x.GroupingSets) {
			return empty()
		}
	case *Join:
		l, r := isEmpty(x.Left), isEmpty(x.Right)
		switch x.Type {
		case exec.InnerJoin, exec.SemiJoin:
			if l || r || x.On != nil && neverTrue(x.On) {
				return empty()
			}
		case exec.LeftJoin, exec.AntiJoin, exec.MarkJoin:
			if l {
				return empty()
			}
		case exec.RightJoin:
			if r {
				return empty()
			}
		case exec.FullJoin:
			if l && r {
				return empty()
			}
		}
	case *SetOp:
		switch x.Op {
		case "UNION":
			var keep []Node
			for _, in := range x.Inputs {
				if !isEmpty(in) {
					keep = append(keep, in)
				}
			}
			switch {
			case len(keep) == 0:
				return empty()
			case len(keep) < len(x.Inputs):
				// The schema stays the union's: names and types come from
				// the first input (a dropped first input is kept as the
				// empty first operand).
				if isEmpty(x.Inputs[0]) {
					keep = append([]Node{x.Inputs[0]}, keep...)
				}
				if len(keep) == 1 && x.All {
					return keep[0]
				}
				return x.WithChildren(keep...)
			}
		case "INTERSECT":
			for _, in := range x.Inputs {
				if isEmpty(in) {
					return empty()
				}
			}
		case "EXCEPT":
			if isEmpty(x.Inputs[0]) {
				return empty()
			}
		}
	}
	return n
}

// isEmpty reports whether n is a relation without rows.
func isEmpty(n Node) bool {
	v, ok := n.(*Values)
	return ok && len(v.Rows) == 0
}

// hasEmptySet reports whether a grouping set groups by nothing (the grand
// total of ROLLUP / CUBE / GROUPING SETS (..., ())).
func hasEmptySet(sets [][]int) bool {
	for _, s := range sets {
		if len(s) == 0 {
			return true
		}
	}
	return false
}

// alwaysTrue reports whether every conjunct of pred folds to TRUE.
func alwaysTrue(pred vec.Expr) bool {
	for _, c := range conjuncts(pred) {
		if known, t := constTruth(c); !known || !t {
			return false
		}
	}
	return true
}

// neverTrue reports whether some conjunct of pred folds to FALSE or NULL.
func neverTrue(pred vec.Expr) bool {
	for _, c := range conjuncts(pred) {
		if known, t := constTruth(c); known && !t {
			return true
		}
	}
	return false
}

// constTruth folds a conjunct: known when it is a constant (whose
// evaluation does not fail: that is left to run time), then true for TRUE,
// false for FALSE or NULL.
func constTruth(c vec.Expr) (known, isTrue bool) {
	f, err := vec.Fold(c)
	if err != nil {
		return false, false
	}
	lit, ok := f.(*vec.Literal)
	if !ok {
		return false, false
	}
	if !lit.Value.IsValid() {
		return true, false
	}
	b, ok := lit.Value.(*scalar.Boolean)
	return ok, ok && b.Value
}

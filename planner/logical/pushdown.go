package logical

import (
	"github.com/paimon-flightsql/paimon-flightsql/planner/exec"
	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

// conjuncts splits e into its top-level AND terms.
func conjuncts(e vec.Expr) []vec.Expr {
	if e == nil {
		return nil
	}
	if a, ok := e.(*vec.Logic); ok && a.IsAnd() {
		var out []vec.Expr
		for _, c := range e.Children() {
			out = append(out, conjuncts(c)...)
		}
		return out
	}
	return []vec.Expr{e}
}

func colsOf(e vec.Expr) []int { return vec.Columns(e) }

// side classifies columns of a join condition: 1 left only, 2 right only,
// 3 both, 0 none.
func side(e vec.Expr, nLeft int) int {
	s := 0
	for _, c := range colsOf(e) {
		if c < nLeft {
			s |= 1
		} else {
			s |= 2
		}
	}
	return s
}

func withFilter(n Node, preds []vec.Expr) (Node, error) {
	preds = dedupe(preds)
	if len(preds) == 0 {
		return n, nil
	}
	p, err := andAll(preds)
	if err != nil {
		return nil, err
	}
	return &Filter{Input: n, Pred: p}, nil
}

// PushFilters moves filter conjuncts as far down as they can go: through
// projections, into join conditions and join inputs, below aggregations
// (conjuncts on group keys), and into scans.
func PushFilters(n Node) (Node, error) { return push(n, nil) }

func push(n Node, preds []vec.Expr) (Node, error) {
	switch x := n.(type) {
	case *Filter:
		for _, c := range conjuncts(x.Pred) {
			f, err := factorOr(c)
			if err != nil {
				return nil, err
			}
			preds = append(preds, f...)
		}
		return push(x.Input, preds)
	case *Scan:
		if len(preds) == 0 {
			return x, nil
		}
		cp := *x
		cp.Filters = dedupe(append(append([]vec.Expr{}, x.Filters...), preds...))
		return &cp, nil
	case *Project:
		var down, keep []vec.Expr
		for _, p := range preds {
			sub, err := substitute(p, x.Exprs)
			if err != nil || hasUnpushable(sub) {
				keep = append(keep, p)
				continue
			}
			down = append(down, sub)
		}
		in, err := push(x.Input, down)
		if err != nil {
			return nil, err
		}
		return withFilter(&Project{Input: in, Exprs: x.Exprs, S: x.S}, keep)
	case *Join:
		return pushJoin(x, preds)
	case *Unnest:
		return pushUnnest(x, preds)
	case *Aggregate:
		var down, keep []vec.Expr
		for _, p := range preds {
			ok := len(x.GroupingSets) == 0
			for _, c := range colsOf(p) {
				if c >= len(x.Groups) {
					ok = false
				}
			}
			if ok {
				if sub, err := substitute(p, x.Groups); err == nil {
					down = append(down, sub)
					continue
				}
			}
			keep = append(keep, p)
		}
		in, err := push(x.Input, down)
		if err != nil {
			return nil, err
		}
		cp := *x
		cp.Input = in
		return withFilter(&cp, keep)
	case *Sort:
		if x.Fetch >= 0 {
			break
		}
		in, err := push(x.Input, preds)
		if err != nil {
			return nil, err
		}
		return x.WithChildren(in), nil
	case *Distinct:
		in, err := push(x.Input, preds)
		if err != nil {
			return nil, err
		}
		return x.WithChildren(in), nil
	case *SetOp:
		if x.Op == "UNION" || x.Op == "INTERSECT" {
			ins := make([]Node, len(x.Inputs))
			for i, in := range x.Inputs {
				var err error
				if ins[i], err = push(in, preds); err != nil {
					return nil, err
				}
			}
			return x.WithChildren(ins...), nil
		}
		if x.Op == "EXCEPT" {
			l, err := push(x.Inputs[0], preds)
			if err != nil {
				return nil, err
			}
			r, err := push(x.Inputs[1], nil)
			if err != nil {
				return nil, err
			}
			return x.WithChildren(l, r), nil
		}
	}
	// Stop here: push into the children with nothing, keep preds above.
	ch := n.Children()
	if len(ch) > 0 {
		nch := make([]Node, len(ch))
		for i, c := range ch {
			var err error
			if nch[i], err = push(c, nil); err != nil {
				return nil, err
			}
		}
		n = n.WithChildren(nch...)
	}
	return withFilter(n, preds)
}

// hasUnpushable: expressions that must not move below their node.
func hasUnpushable(e vec.Expr) bool {
	bad := false
	vec.Walk(e, func(x vec.Expr) bool {
		switch x.(type) {
		case *winRef, *OuterRef, *innerRef:
			bad = true
		}
		return !bad
	})
	return bad
}

// substitute replaces Column i of e by exprs[i].
func substitute(e vec.Expr, exprs []vec.Expr) (vec.Expr, error) {
	return vec.Transform(e, func(x vec.Expr) (vec.Expr, error) {
		if c, ok := x.(*vec.Column); ok {
			if c.Index >= len(exprs) {
				return nil, errNoSubst
			}
			return exprs[c.Index], nil
		}
		return x, nil
	})
}

var errNoSubst = invalidf("cannot substitute")

func pushJoin(j *Join, preds []vec.Expr) (Node, error) {
	if t := simplifyOuterJoin(j, preds); t != j.Type {
		cp := *j
		cp.Type = t
		j = &cp
	}
	nl := len(j.Left.Schema())
	var toL, toR, on, keep []vec.Expr
	onTerms := conjuncts(j.On)
	switch j.Type {
	case exec.InnerJoin:
		for _, p := range append(preds, onTerms...) {
			switch side(p, nl) {
			case 1:
				toL = append(toL, p)
			case 2:
				toR = append(toR, vec.Shift(p, -nl))
			case 0:
				on = append(on, p)
			default:
				on = append(on, p)
				// an OR over both sides implies an OR over each side's part
				// of its branches: filter each input with it as well
				if d, err := orSide(p, nl, 1); err != nil {
					return nil, err
				} else if d != nil {
					toL = append(toL, d)
				}
				if d, err := orSide(p, nl, 2); err != nil {
					return nil, err
				} else if d != nil {
					toR = append(toR, vec.Shift(d, -nl))
				}
			}
		}
	case exec.LeftJoin:
		for _, p := range preds {
			if side(p, nl) == 1 {
				toL = append(toL, p)
			} else {
				keep = append(keep, p)
			}
		}
		for _, p := range onTerms {
			if side(p, nl) == 2 {
				toR = append(toR, vec.Shift(p, -nl))
			} else {
				on = append(on, p)
			}
		}
	case exec.RightJoin:
		for _, p := range preds {
			if side(p, nl) == 2 {
				toR = append(toR, vec.Shift(p, -nl))
			} else {
				keep = append(keep, p)
			}
		}
		for _, p := range onTerms {
			if side(p, nl) == 1 {
				toL = append(toL, p)
			} else {
				on = append(on, p)
			}
		}
	case exec.SemiJoin, exec.AntiJoin, exec.MarkJoin:
		for _, p := range preds {
			if side(p, nl) == 1 && (j.Type != exec.MarkJoin || !refsCol(p, nl)) {
				toL = append(toL, p)
			} else {
				keep = append(keep, p)
			}
		}
		for _, p := range onTerms {
			s := side(p, nl)
			switch {
			case s == 2:
				toR = append(toR, vec.Shift(p, -nl))
			case s == 1 && j.Type == exec.SemiJoin:
				toL = append(toL, p)
			default:
				on = append(on, p)
			}
		}
	default: // full
		keep = preds
		on = onTerms
	}
	if j.Type == exec.InnerJoin {
		cp := *j
		simplifyOuterInputs(&cp, on)
		j = &cp
	}
	l, err := push(j.Left, toL)
	if err != nil {
		return nil, err
	}
	r, err := push(j.Right, toR)
	if err != nil {
		return nil, err
	}
	cp := *j
	cp.Left, cp.Right = l, r
	cp.On = nil
	if len(on) > 0 {
		if cp.On, err = andAll(on); err != nil {
			return nil, err
		}
	}
	return withFilter(&cp, keep)
}

func refsCol(e vec.Expr, i int) bool {
	for _, c := range colsOf(e) {
		if c == i {
			return true
		}
	}
	return false
}

// factorOr pulls the conjuncts every branch of an OR shares out of it:
// (a AND b) OR (a AND c) becomes a, (b OR c) — so a join condition written
// inside each branch (TPC-H Q19) becomes a join key.
func factorOr(e vec.Expr) ([]vec.Expr, error) {
	l, ok := e.(*vec.Logic)
	if !ok || !l.IsOr || len(l.Args) < 2 {
		return []vec.Expr{e}, nil
	}
	branches := make([][]vec.Expr, len(l.Args))
	for i, a := range l.Args {
		branches[i] = conjuncts(a)
	}
	var common []vec.Expr
	for _, c := range branches[0] {
		k := c.String()
		inAll := true
		for _, br := range branches[1:] {
			found := false
			for _, d := range br {
				if d.String() == k {
					found = true
					break
				}
			}
			if !found {
				inAll = false
				break
			}
		}
		if inAll {
			dup := false
			for _, x := range common {
				if x.String() == k {
					dup = true
				}
			}
			if !dup {
				common = append(common, c)
			}
		}
	}
	if len(common) == 0 {
		return []vec.Expr{e}, nil
	}
	isCommon := func(d vec.Expr) bool {
		for _, c := range common {
			if c.String() == d.String() {
				return true
			}
		}
		return false
	}
	rest := make([]vec.Expr, 0, len(branches))
	for _, br := range branches {
		var keep []vec.Expr
		for _, d := range br {
			if !isCommon(d) {
				keep = append(keep, d)
			}
		}
		if len(keep) == 0 {
			// one branch is exactly the common part: the OR is implied by it
			return common, nil
		}
		r, err := andAll(keep)
		if err != nil {
			return nil, err
		}
		rest = append(rest, r)
	}
	or, err := vec.NewOr(rest...)
	if err != nil {
		return nil, err
	}
	return append(common, or), nil
}

// dedupe drops repeated conjuncts (same text), keeping the first: a
// derived OR filter is derived again by every pushdown pass.
func dedupe(preds []vec.Expr) []vec.Expr {
	if len(preds) < 2 {
		return preds
	}
	seen := make(map[string]bool, len(preds))
	out := preds[:0:0]
	for _, p := range preds {
		k := p.String()
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, p)
	}
	return out
}

// orSide derives from a disjunction over both join inputs the disjunction
// of each branch's conjuncts on input want (1 left, 2 right): (a1 AND b1)
// OR (a2 AND b2) implies a1 OR a2. nil when some branch has no conjunct
// on that side only (nothing is implied) or e is not an OR.
func orSide(e vec.Expr, nl, want int) (vec.Expr, error) {
	l, ok := e.(*vec.Logic)
	if !ok || !l.IsOr || len(l.Args) < 2 {
		return nil, nil
	}
	parts := make([]vec.Expr, 0, len(l.Args))
	for _, br := range l.Args {
		var mine []vec.Expr
		for _, c := range conjuncts(br) {
			if side(c, nl) == want && !hasUnpushable(c) {
				mine = append(mine, c)
			}
		}
		if len(mine) == 0 {
			return nil, nil
		}
		a, err := andAll(mine)
		if err != nil {
			return nil, err
		}
		parts = append(parts, a)
	}
	return vec.NewOr(parts...)
}

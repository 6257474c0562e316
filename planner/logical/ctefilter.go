package logical

import (
	"slices"

	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

// PushCTEReaderFilters gives a shared CTE (one computed once for several
// readers) the disjunction of its readers' filters when every reader
// filters it: the rows no reader keeps are never computed. TPC-DS Q39
// reads `inv` twice, once for month 1 and once for month 2; the CTE
// aggregated all twelve months of inventory, and now aggregates two (the
// month filter reaches date_dim, the join's key range the inventory scan).
// Each reader keeps its own filter, so results are unchanged. Only
// filters built from columns, literals, comparisons, IN lists, LIKE,
// casts, arithmetic and AND/OR/NOT are combined (no function calls: a
// volatile one could select other rows when evaluated twice).
func PushCTEReaderFilters(n Node) (Node, error) {
	preds := map[int][]vec.Expr{} // per CTE id, one entry per reader (nil: unfiltered)
	var walk func(n Node, parent *Filter)
	walk = func(n Node, parent *Filter) {
		if c, ok := n.(*CTE); ok {
			var p vec.Expr
			if parent != nil {
				p = parent.Pred
			}
			preds[c.ID] = append(preds[c.ID], p)
		}
		f, _ := n.(*Filter)
		for _, ch := range n.Children() {
			walk(ch, f)
		}
	}
	walk(n, nil)
	disj := map[int]vec.Expr{}
	for id, ps := range preds {
		if len(ps) < 2 {
			continue
		}
		var terms []vec.Expr
		seen := map[string]bool{}
		ok := true
		for _, p := range ps {
			if p == nil || !plainPredicate(p) {
				ok = false
				break
			}
			if s := p.String(); !seen[s] {
				seen[s] = true
				terms = append(terms, p)
			}
		}
		if !ok {
			continue
		}
		d := terms[0]
		if len(terms) > 1 {
			var err error
			if d, err = vec.NewOr(terms...); err != nil {
				return nil, err
			}
			// Per column every reader restricts, the OR of those
			// restrictions alone: implied by d, and it may move further
			// down than d (through the aggregate whose output d also
			// reads: TPC-DS Q39b's `d_moy = 1 AND cov > 1.5` / `d_moy = 2`
			// give `d_moy = 1 OR d_moy = 2`, which reaches date_dim).
			implied, err := impliedByColumn(terms)
			if err != nil {
				return nil, err
			}
			if len(implied) > 0 {
				if d, err = vec.NewAnd(append([]vec.Expr{d}, implied...)...); err != nil {
					return nil, err
				}
			}
		}
		disj[id] = d
	}
	if len(disj) == 0 {
		return n, nil
	}
	var rewrite func(Node) (Node, error)
	rewrite = func(n Node) (Node, error) {
		ch := n.Children()
		if len(ch) > 0 {
			nch := make([]Node, len(ch))
			changed := false
			for i, c := range ch {
				x, err := rewrite(c)
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
		c, ok := n.(*CTE)
		if !ok || disj[c.ID] == nil {
			return n, nil
		}
		in, err := PushFilters(&Filter{Input: c.Input, Pred: disj[c.ID]})
		if err != nil {
			return nil, err
		}
		return &CTE{ID: c.ID, Name: c.Name, Input: in}, nil
	}
	return rewrite(n)
}

// plainPredicate reports whether e is built only from columns, literals
// and deterministic operators (no function calls, parameters or
// subquery references).
func plainPredicate(e vec.Expr) bool {
	ok := true
	vec.Walk(e, func(x vec.Expr) bool {
		switch x.(type) {
		case *vec.Column, *vec.Literal, *vec.Compare, *vec.InList, *vec.Like, *vec.Cast,
			*vec.Arith, *vec.Neg, *vec.Logic, *vec.Not, *vec.IsNull, *vec.IsBool:
		default:
			ok = false
		}
		return ok
	})
	return ok
}

// impliedByColumn returns, for each column that every predicate of ps has
// a conjunct on (reading that column alone), the OR over ps of the AND of
// those conjuncts — a predicate the OR of ps implies. A column that is
// all every predicate restricts adds nothing to their OR and is left out.
func impliedByColumn(ps []vec.Expr) ([]vec.Expr, error) {
	per := make([]map[int][]vec.Expr, len(ps)) // per predicate: its one-column conjuncts by column
	nconj := make([]int, len(ps))
	for i, p := range ps {
		per[i] = map[int][]vec.Expr{}
		cs := conjuncts(p)
		nconj[i] = len(cs)
		for _, c := range cs {
			if cols := colsOf(c); len(cols) == 1 { // colsOf lists each column once
				per[i][cols[0]] = append(per[i][cols[0]], c)
			}
		}
	}
	cols := make([]int, 0, len(per[0]))
	for col := range per[0] {
		cols = append(cols, col)
	}
	slices.Sort(cols) // a deterministic plan
	var out []vec.Expr
	for _, col := range cols {
		var branches []vec.Expr
		whole := true // every predicate is only about col: the OR itself
		for i := range ps {
			cs, ok := per[i][col]
			if !ok {
				branches = nil
				break
			}
			whole = whole && len(cs) == nconj[i]
			b := cs[0]
			if len(cs) > 1 {
				var err error
				if b, err = vec.NewAnd(cs...); err != nil {
					return nil, err
				}
			}
			branches = append(branches, b)
		}
		if len(branches) == len(ps) && !whole {
			o, err := vec.NewOr(branches...)
			if err != nil {
				return nil, err
			}
			out = append(out, o)
		}
	}
	return out, nil
}

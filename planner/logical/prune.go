package logical

import (
	"fmt"

	"github.com/paimon-flightsql/paimon-flightsql/planner/exec"
	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

// PruneColumns removes columns no ancestor needs, down to the scans'
// column lists. The root keeps all its columns.
func PruneColumns(n Node) (Node, error) {
	req := make([]bool, len(n.Schema()))
	for i := range req {
		req[i] = true
	}
	// A CTE's Input is pruned to the union of what its references need,
	// which is known only after a pass over all of them: passes repeat
	// until no union grew (every reference then pruned with the same one).
	pr := &pruner{cte: map[int][]bool{}}
	var out Node
	var m []int
	for {
		pr.grew = false
		var err error
		if out, m, err = pr.prune(n, req); err != nil {
			return nil, err
		}
		if !pr.grew {
			break
		}
	}
	for i, j := range m {
		if j != i {
			return nil, fmt.Errorf("logical: pruning moved root column %d to %d", i, j)
		}
	}
	return out, nil
}

// pruner prunes one plan; cte holds, per CTE id, the columns some
// reference needs (grew: a union grew in this pass).
type pruner struct {
	cte  map[int][]bool
	grew bool
}

// pruneCTE prunes a CTE's Input to the union of its references' needs.
func (pr *pruner) pruneCTE(x *CTE, req []bool) (Node, []int, error) {
	u := pr.cte[x.ID]
	if u == nil {
		u = make([]bool, len(x.Schema()))
		pr.cte[x.ID] = u
	}
	for i, r := range req {
		if r && i < len(u) && !u[i] {
			u[i], pr.grew = true, true
		}
	}
	in, m, err := pr.prune(x.Input, append([]bool(nil), u...))
	if err != nil {
		return nil, nil, err
	}
	return &CTE{ID: x.ID, Name: x.Name, Input: in}, m, nil
}

func need(req []bool, e vec.Expr) {
	for _, c := range colsOf(e) {
		if c < len(req) {
			req[c] = true
		}
	}
}

func remapAll(es []vec.Expr, m []int) ([]vec.Expr, error) {
	out := make([]vec.Expr, len(es))
	for i, e := range es {
		x, err := remap(e, m)
		if err != nil {
			return nil, err
		}
		out[i] = x
	}
	return out, nil
}

func remap(e vec.Expr, m []int) (vec.Expr, error) {
	if e == nil {
		return nil, nil
	}
	mm := make(map[int]int, len(m))
	for i, j := range m {
		if j >= 0 {
			mm[i] = j
		}
	}
	return vec.Remap(e, mm)
}

func identity(n int) []int {
	m := make([]int, n)
	for i := range m {
		m[i] = i
	}
	return m
}

// prune returns the pruned node and, for each old output column, its new
// index (-1 when dropped; only columns not in req may be dropped).
func (pr *pruner) prune(n Node, req []bool) (Node, []int, error) {
	switch x := n.(type) {
	case *CTE:
		return pr.pruneCTE(x, req)
	case *Scan:
		r := append([]bool{}, req...)
		for _, f := range x.Filters {
			need(r, f)
		}
		m := make([]int, len(x.Columns))
		var cols []int
		for i, c := range x.Columns {
			m[i] = -1
			if r[i] {
				m[i] = len(cols)
				cols = append(cols, c)
			}
		}
		fs, err := remapAll(x.Filters, m)
		if err != nil {
			return nil, nil, err
		}
		cp := *x
		cp.Columns, cp.Filters = cols, fs
		return &cp, m, nil
	case *Filter:
		r := append([]bool{}, req...)
		need(r, x.Pred)
		in, m, err := pr.prune(x.Input, r)
		if err != nil {
			return nil, nil, err
		}
		pred, err := remap(x.Pred, m)
		if err != nil {
			return nil, nil, err
		}
		return &Filter{Input: in, Pred: pred}, m, nil
	case *Project:
		inReq := make([]bool, len(x.Input.Schema()))
		m := make([]int, len(x.Exprs))
		var keep []int
		for i, e := range x.Exprs {
			m[i] = -1
			if req[i] {
				m[i] = len(keep)
				keep = append(keep, i)
				need(inReq, e)
			}
		}
		in, im, err := pr.prune(x.Input, inReq)
		if err != nil {
			return nil, nil, err
		}
		exprs := make([]vec.Expr, len(keep))
		s := make(Schema, len(keep))
		for k, i := range keep {
			if exprs[k], err = remap(x.Exprs[i], im); err != nil {
				return nil, nil, err
			}
			s[k] = x.S[i]
		}
		return &Project{Input: in, Exprs: exprs, S: s}, m, nil
	case *Join:
		ls, rs := x.Left.Schema(), x.Right.Schema()
		nl := len(ls)
		lr, rr := make([]bool, nl), make([]bool, len(rs))
		for i := 0; i < nl && i < len(req); i++ {
			lr[i] = req[i]
		}
		if x.Type != exec.SemiJoin && x.Type != exec.AntiJoin && x.Type != exec.MarkJoin {
			for i := range rs {
				rr[i] = req[nl+i]
			}
		}
		for _, cond := range []vec.Expr{x.On, x.InCond} {
			if cond == nil {
				continue
			}
			for _, c := range colsOf(cond) {
				if c < nl {
					lr[c] = true
				} else {
					rr[c-nl] = true
				}
			}
		}
		l, lm, err := pr.prune(x.Left, lr)
		if err != nil {
			return nil, nil, err
		}
		r, rm, err := pr.prune(x.Right, rr)
		if err != nil {
			return nil, nil, err
		}
		// A join copies every input column to its output, so columns a
		// child keeps only for its own use (a Filter's predicate
		// columns) are dropped before the join rather than gathered.
		l, lm = narrow(l, lm, lr)
		r, rm = narrow(r, rm, rr)
		newNL := len(l.Schema())
		jm := make([]int, nl+len(rs))
		for i := range ls {
			jm[i] = lm[i]
		}
		for i := range rs {
			jm[nl+i] = -1
			if rm[i] >= 0 {
				jm[nl+i] = newNL + rm[i]
			}
		}
		on, err := remap(x.On, jm)
		if err != nil {
			return nil, nil, err
		}
		in, err := remap(x.InCond, jm)
		if err != nil {
			return nil, nil, err
		}
		cp := *x
		cp.Left, cp.Right, cp.On, cp.InCond = l, r, on, in
		out := jm
		switch x.Type {
		case exec.SemiJoin, exec.AntiJoin:
			out = lm
		case exec.MarkJoin:
			out = append(append([]int{}, lm...), newNL)
		}
		return &cp, out, nil
	case *Aggregate:
		inReq := make([]bool, len(x.Input.Schema()))
		for _, g := range x.Groups {
			need(inReq, g)
		}
		for _, a := range x.Aggs {
			for _, e := range a.Args {
				need(inReq, e)
			}
			if a.Filter != nil {
				need(inReq, a.Filter)
			}
			for _, k := range a.OrderBy {
				need(inReq, k.Expr)
			}
		}
		in, im, err := pr.prune(x.Input, inReq)
		if err != nil {
			return nil, nil, err
		}
		cp := *x
		cp.Input = in
		if cp.Groups, err = remapAll(x.Groups, im); err != nil {
			return nil, nil, err
		}
		cp.Aggs = make([]exec.AggExpr, len(x.Aggs))
		for i, a := range x.Aggs {
			a2 := a
			if a2.Args, err = remapAll(a.Args, im); err != nil {
				return nil, nil, err
			}
			if a2.Filter, err = remap(a.Filter, im); err != nil {
				return nil, nil, err
			}
			if a2.OrderBy, err = remapKeys(a.OrderBy, im); err != nil {
				return nil, nil, err
			}
			cp.Aggs[i] = a2
		}
		return &cp, identity(len(x.S)), nil
	case *Unnest:
		return pr.pruneUnnest(x, req)
	case *Window:
		nin := len(x.Input.Schema())
		inReq := make([]bool, nin)
		copy(inReq, req[:nin])
		for _, e := range x.PartitionBy {
			need(inReq, e)
		}
		for _, k := range x.OrderBy {
			need(inReq, k.Expr)
		}
		for _, f := range x.Funcs {
			for _, e := range f.Args {
				need(inReq, e)
			}
		}
		in, im, err := pr.prune(x.Input, inReq)
		if err != nil {
			return nil, nil, err
		}
		cp := *x
		cp.Input = in
		if cp.PartitionBy, err = remapAll(x.PartitionBy, im); err != nil {
			return nil, nil, err
		}
		cp.OrderBy = make([]exec.SortKey, len(x.OrderBy))
		for i, k := range x.OrderBy {
			k2 := k
			if k2.Expr, err = remap(k.Expr, im); err != nil {
				return nil, nil, err
			}
			cp.OrderBy[i] = k2
		}
		cp.Funcs = make([]exec.WindowFunc, len(x.Funcs))
		for i, f := range x.Funcs {
			f2 := f
			if f2.Args, err = remapAll(f.Args, im); err != nil {
				return nil, nil, err
			}
			cp.Funcs[i] = f2
		}
		newIn := len(in.Schema())
		m := append([]int{}, im...)
		for i := range x.Funcs {
			m = append(m, newIn+i)
		}
		return &cp, m, nil
	case *Sort:
		r := append([]bool{}, req...)
		for _, k := range x.Keys {
			need(r, k.Expr)
		}
		in, m, err := pr.prune(x.Input, r)
		if err != nil {
			return nil, nil, err
		}
		cp := *x
		cp.Input = in
		cp.Keys = make([]exec.SortKey, len(x.Keys))
		for i, k := range x.Keys {
			k2 := k
			if k2.Expr, err = remap(k.Expr, m); err != nil {
				return nil, nil, err
			}
			cp.Keys[i] = k2
		}
		return &cp, m, nil
	case *Limit, *MaxOneRow:
		in, m, err := pr.prune(n.Children()[0], req)
		if err != nil {
			return nil, nil, err
		}
		return n.WithChildren(in), m, nil
	}
	// Distinct, SetOp, Values: every column matters.
	ch := n.Children()
	nch := make([]Node, len(ch))
	for i, c := range ch {
		all := make([]bool, len(c.Schema()))
		for k := range all {
			all[k] = true
		}
		x, _, err := pr.prune(c, all)
		if err != nil {
			return nil, nil, err
		}
		nch[i] = x
	}
	if len(ch) > 0 {
		n = n.WithChildren(nch...)
	}
	return n, identity(len(n.Schema())), nil
}

// remapKeys remaps sort keys' expressions (nil stays nil).
func remapKeys(keys []exec.SortKey, m []int) ([]exec.SortKey, error) {
	if keys == nil {
		return nil, nil
	}
	out := make([]exec.SortKey, len(keys))
	for i, k := range keys {
		e, err := remap(k.Expr, m)
		if err != nil {
			return nil, err
		}
		out[i] = k
		out[i].Expr = e
	}
	return out, nil
}

// narrow puts a column-selecting Project over n (pruned, with old→new map
// m) when n still outputs columns req does not ask for — a Filter keeps
// its predicate's columns — and returns the node and the updated map.
// Without such columns (or when req asks for none) n is returned
// unchanged.
func narrow(n Node, m []int, req []bool) (Node, []int) {
	s := n.Schema()
	used := make([]bool, len(s))
	extra := false
	for i, j := range m {
		if j < 0 {
			continue
		}
		if i < len(req) && req[i] {
			used[j] = true
		}
	}
	any := false
	for _, u := range used {
		extra = extra || !u
		any = any || u
	}
	// A zero-column batch would lose its row count: keep n as it is.
	if !extra || !any {
		return n, m
	}
	nm := make([]int, len(s))
	var exprs []vec.Expr
	var ns Schema
	for j, u := range used {
		nm[j] = -1
		if u {
			nm[j] = len(exprs)
			exprs = append(exprs, s.Col(j))
			ns = append(ns, s[j])
		}
	}
	out := make([]int, len(m))
	for i, j := range m {
		out[i] = -1
		if j >= 0 {
			out[i] = nm[j]
		}
	}
	return &Project{Input: n, Exprs: exprs, S: ns}, out
}

package logical

import (
	"github.com/paimon-flightsql/paimon-flightsql/planner/exec"
	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

// FoldConstants evaluates every constant sub-expression of the plan once
// (exact for decimals): CAST('1998-09-02' AS DATE) becomes a DATE literal
// that scans can push and filters compare without parsing per row.
func FoldConstants(n Node) (Node, error) {
	ch := n.Children()
	if len(ch) > 0 {
		nch := make([]Node, len(ch))
		for i, c := range ch {
			x, err := FoldConstants(c)
			if err != nil {
				return nil, err
			}
			nch[i] = x
		}
		n = n.WithChildren(nch...)
	}
	f := func(e vec.Expr) (vec.Expr, error) {
		if e == nil {
			return nil, nil
		}
		return vec.Fold(e)
	}
	fl := func(es []vec.Expr) ([]vec.Expr, error) {
		out := make([]vec.Expr, len(es))
		for i, e := range es {
			x, err := f(e)
			if err != nil {
				return nil, err
			}
			out[i] = x
		}
		return out, nil
	}
	var err error
	switch x := n.(type) {
	case *Filter:
		cp := *x
		if cp.Pred, err = f(x.Pred); err != nil {
			return nil, err
		}
		return &cp, nil
	case *Project:
		cp := *x
		if cp.Exprs, err = fl(x.Exprs); err != nil {
			return nil, err
		}
		return &cp, nil
	case *Scan:
		cp := *x
		if cp.Filters, err = fl(x.Filters); err != nil {
			return nil, err
		}
		return &cp, nil
	case *Join:
		cp := *x
		if cp.On, err = f(x.On); err != nil {
			return nil, err
		}
		if cp.InCond, err = f(x.InCond); err != nil {
			return nil, err
		}
		return &cp, nil
	case *Aggregate:
		cp := *x
		if cp.Groups, err = fl(x.Groups); err != nil {
			return nil, err
		}
		cp.Aggs = make([]exec.AggExpr, len(x.Aggs))
		for i, a := range x.Aggs {
			a2 := a
			if a2.Args, err = fl(a.Args); err != nil {
				return nil, err
			}
			if a2.Filter, err = f(a.Filter); err != nil {
				return nil, err
			}
			if a.OrderBy != nil {
				a2.OrderBy = make([]exec.SortKey, len(a.OrderBy))
				for j, k := range a.OrderBy {
					a2.OrderBy[j] = k
					if a2.OrderBy[j].Expr, err = f(k.Expr); err != nil {
						return nil, err
					}
				}
			}
			cp.Aggs[i] = a2
		}
		return &cp, nil
	case *Sort:
		cp := *x
		cp.Keys = make([]exec.SortKey, len(x.Keys))
		for i, k := range x.Keys {
			k2 := k
			if k2.Expr, err = f(k.Expr); err != nil {
				return nil, err
			}
			cp.Keys[i] = k2
		}
		return &cp, nil
	case *Unnest:
		args, err := fl(x.genArgs())
		if err != nil {
			return nil, err
		}
		return x.withGenArgs(args), nil
	case *Window:
		cp := *x
		if cp.PartitionBy, err = fl(x.PartitionBy); err != nil {
			return nil, err
		}
		cp.Funcs = make([]exec.WindowFunc, len(x.Funcs))
		for i, w := range x.Funcs {
			w2 := w
			if w2.Args, err = fl(w.Args); err != nil {
				return nil, err
			}
			cp.Funcs[i] = w2
		}
		return &cp, nil
	}
	return n, nil
}

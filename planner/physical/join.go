package physical

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-flightsql/paimon-flightsql/planner/exec"
	"github.com/paimon-flightsql/paimon-flightsql/planner/logical"
	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

// join splits the condition into equality keys (one side over each input)
// and a residual, and picks a hash join when there are keys.
func (p *Planner) join(ctx context.Context, j *logical.Join) (exec.Operator, error) {
	l, err := p.plan(ctx, j.Left)
	if err != nil {
		return nil, err
	}
	r, err := p.plan(ctx, j.Right)
	if err != nil {
		return nil, err
	}
	nl := len(j.Left.Schema())
	if j.RowIn {
		return rowInJoin(l, r, j, nl)
	}
	if j.InCond != nil && !hasEquiKey(j.InCond, nl) {
		return markFilterJoin(l, r, j, nl)
	}
	var lk, rk, rest []vec.Expr
	keyTerms := splitAnd(j.On)
	if j.InCond != nil {
		// x IN (subquery): only the IN comparison is three-valued (the
		// join's keys); the correlation filters like a WHERE.
		keyTerms = splitAnd(j.InCond)
		rest = splitAnd(j.On)
	}
	var ns []bool
	anyNS := false
	for _, c := range keyTerms {
		if cmp, ok := c.(*vec.Compare); ok {
			a, b, eq := cmp.Equality()
			nullSafe := false
			if !eq && j.InCond == nil {
				// a <=> b (the outer join of a domain-decorrelated
				// scalar subquery): a NULL-safe key
				a, b, nullSafe = cmp.NullSafeEquality()
				eq = nullSafe
			}
			if eq {
				sa, sb := sideOf(a, nl), sideOf(b, nl)
				if sa == 1 && sb == 2 || sa == 2 && sb == 1 {
					if sa == 2 {
						a, b = b, a
					}
					a, b, err := unifyKeys(a, vec.Shift(b, -nl))
					if err == nil {
						lk, rk = append(lk, a), append(rk, b)
						ns = append(ns, nullSafe)
						anyNS = anyNS || nullSafe
						continue
					}
				}
			}
		}
		rest = append(rest, c)
	}
	if !anyNS {
		ns = nil
	}
	var filter vec.Expr
	if len(rest) == 1 {
		filter = rest[0]
	} else if len(rest) > 1 {
		if filter, err = vec.NewAnd(rest...); err != nil {
			return nil, err
		}
	}
	if len(lk) == 0 {
		if j.InCond != nil {
			// the nested-loop mark is the three-valued OR of its filter
			all := []vec.Expr{j.InCond}
			for _, c := range splitAnd(j.On) {
				t, err := vec.NewIsBool(c, true, false) // the WHERE is two-valued
				if err != nil {
					return nil, err
				}
				all = append(all, t)
			}
			if filter, err = vec.NewAnd(all...); err != nil {
				return nil, err
			}
			if len(all) == 1 {
				filter = all[0]
			}
		}
		return exec.NewNestedLoopJoin(l, r, j.Type, filter)
	}
	if !anyNS && p.outerBuild(j, rk) {
		op, h, err := swappedLeftJoin(l, r, j, lk, rk, filter)
		if err != nil {
			return nil, err
		}
		if len(h.RuntimeFilters()) > 0 { // else the swap gains nothing
			p.note(h, j)
			return op, nil
		}
	}
	if j.BuildLeft && (j.Type == exec.SemiJoin || j.Type == exec.AntiJoin) {
		// build the left input, probe the right: the filter's columns
		// move to the swapped order (right input first)
		nr := len(j.Right.Schema())
		if filter != nil {
			m := make(map[int]int, nl+nr)
			for i := 0; i < nl+nr; i++ {
				if i < nl {
					m[i] = i + nr
				} else {
					m[i] = i - nl
				}
			}
			if filter, err = vec.Remap(filter, m); err != nil {
				return nil, err
			}
		}
		typ := exec.RightSemiJoin
		if j.Type == exec.AntiJoin {
			typ = exec.RightAntiJoin
		}
		return hashJoin(r, l, typ, rk, lk, filter, ns)
	}
	return hashJoin(l, r, j.Type, lk, rk, filter, ns)
}

// outerBuild reports whether LEFT join j, whose right input is a
// decorrelated subquery's aggregate grouped by the right keys rk (the
// scalar-subquery shape, TPC-H Q2/Q17/Q20), should build its left (outer)
// input and probe the aggregate: the join's runtime filters then carry the
// outer keys into the aggregate's input, so only the groups the outer rows
// can use are aggregated. Chosen when the outer side is estimated no
// larger than the aggregate's input (building it costs no more than the
// aggregation it can spare).
func (p *Planner) outerBuild(j *logical.Join, rk []vec.Expr) bool {
	if j.Type != exec.LeftJoin || j.InCond != nil || p.Estimate == nil || len(rk) == 0 {
		return false
	}
	var agg *logical.Aggregate
	for _, k := range rk {
		c, ok := k.(*vec.Column)
		if !ok {
			return false
		}
		a, ok := groupKeyAgg(j.Right, c.Index)
		if !ok || agg != nil && a != agg {
			return false
		}
		agg = a
	}
	return p.Estimate(j.Left) <= p.Estimate(agg.Input)
}

// groupKeyAgg follows column col of n through projections (plain column
// references) to an Aggregate without grouping sets where it is a group
// key.
func groupKeyAgg(n logical.Node, col int) (*logical.Aggregate, bool) {
	for {
		switch x := n.(type) {
		case *logical.Project:
			if col < 0 || col >= len(x.Exprs) {
				return nil, false
			}
			c, ok := x.Exprs[col].(*vec.Column)
			if !ok {
				return nil, false
			}
			col, n = c.Index, x.Input
		case *logical.Aggregate:
			return x, x.GroupingSets == nil && col >= 0 && col < len(x.Groups)
		default:
			return nil, false
		}
	}
}

// swappedLeftJoin is LEFT join j executed as a RIGHT hash join that builds
// the left input l and probes r, its columns put back in j's order.
func swappedLeftJoin(l, r exec.Operator, j *logical.Join, lk, rk []vec.Expr, filter vec.Expr) (exec.Operator, *exec.HashJoin, error) {
	nl, nr := len(j.Left.Schema()), len(j.Right.Schema())
	var err error
	if filter != nil {
		m := make(map[int]int, nl+nr)
		for i := 0; i < nl+nr; i++ {
			if i < nl {
				m[i] = i + nr
			} else {
				m[i] = i - nl
			}
		}
		if filter, err = vec.Remap(filter, m); err != nil {
			return nil, nil, err
		}
	}
	h, err := exec.NewHashJoin(r, l, exec.RightJoin, rk, lk, filter, nil)
	if err != nil {
		return nil, nil, err
	}
	runtimeFilters(h)
	s := j.Schema().Arrow()
	hs := h.Schema()
	exprs := make([]vec.Expr, nl+nr)
	for i := range exprs {
		src := i + nr // a left column: after the right ones
		if i >= nl {
			src = i - nl
		}
		f := hs.Field(src)
		exprs[i] = &vec.Column{Index: src, Name: f.Name, T: f.Type, Null: f.Nullable}
	}
	return &exec.Project{Input: h, Exprs: exprs, S: s}, h, nil
}

// hashJoin is exec.NewHashJoin with its runtime filters wired
// (runtimefilter.go).
func hashJoin(l, r exec.Operator, typ exec.JoinType, lk, rk []vec.Expr, filter vec.Expr, ns []bool) (exec.Operator, error) {
	h, err := exec.NewHashJoin(l, r, typ, lk, rk, filter, ns)
	if err != nil {
		return nil, err
	}
	runtimeFilters(h)
	return h, nil
}

// equiKey reports whether c is an equality with one side over each input
// (and returns the sides, left input first).
func equiKey(c vec.Expr, nl int) (vec.Expr, vec.Expr, bool) {
	if cmp, ok := c.(*vec.Compare); ok {
		if a, b, eq := cmp.Equality(); eq {
			sa, sb := sideOf(a, nl), sideOf(b, nl)
			if sa == 1 && sb == 2 {
				return a, b, true
			}
			if sa == 2 && sb == 1 {
				return b, a, true
			}
		}
	}
	return nil, nil, false
}

func hasEquiKey(e vec.Expr, nl int) bool {
	for _, c := range splitAnd(e) {
		if _, _, ok := equiKey(c, nl); ok {
			return true
		}
	}
	return false
}

// rowInJoin lowers (a, b, ...) IN (subquery): every component of InCond
// is a hash key (a constant component is a left key too), so the mark's
// NULL rule sees all of them (exec.HashJoin.MarkAnyNull); the
// correlation (On) is the two-valued filter.
func rowInJoin(l, r exec.Operator, j *logical.Join, nl int) (exec.Operator, error) {
	var lk, rk []vec.Expr
	for _, c := range splitAnd(j.InCond) {
		cmp, ok := c.(*vec.Compare)
		if !ok {
			return nil, fmt.Errorf("physical: row IN: %s is not an equality", c)
		}
		a, b, eq := cmp.Equality()
		if !eq {
			return nil, fmt.Errorf("physical: row IN: %s is not an equality", c)
		}
		if sideOf(a, nl) == 2 {
			a, b = b, a
		}
		if sideOf(a, nl)&2 != 0 || sideOf(b, nl) != 2 {
			return nil, fmt.Errorf("physical: row IN: %s does not compare a left value with a right column", c)
		}
		a, b, err := unifyKeys(a, vec.Shift(b, -nl))
		if err != nil {
			return nil, err
		}
		lk, rk = append(lk, a), append(rk, b)
	}
	var filter vec.Expr
	if rest := splitAnd(j.On); len(rest) == 1 {
		filter = rest[0]
	} else if len(rest) > 1 {
		var err error
		if filter, err = vec.NewAnd(rest...); err != nil {
			return nil, err
		}
	}
	return exec.NewRowInMarkJoin(l, r, lk, rk, filter)
}

// markFilterJoin lowers a mark join whose InCond has no equality (x op
// ANY/ALL (subquery)): the mark is the three-valued OR of InCond over the
// right rows passing the (two-valued) correlation On. The correlation's
// equalities become hash keys (a NULL key matches nothing, as in a WHERE);
// without any, a nested loop.
func markFilterJoin(l, r exec.Operator, j *logical.Join, nl int) (exec.Operator, error) {
	var lk, rk []vec.Expr
	all := []vec.Expr{j.InCond}
	for _, c := range splitAnd(j.On) {
		if a, b, ok := equiKey(c, nl); ok {
			if a, b, err := unifyKeys(a, vec.Shift(b, -nl)); err == nil {
				lk, rk = append(lk, a), append(rk, b)
				continue
			}
		}
		t, err := vec.NewIsBool(c, true, false) // the WHERE is two-valued
		if err != nil {
			return nil, err
		}
		all = append(all, t)
	}
	filter := all[0]
	if len(all) > 1 {
		var err error
		if filter, err = vec.NewAnd(all...); err != nil {
			return nil, err
		}
	}
	if len(lk) == 0 {
		return exec.NewNestedLoopJoin(l, r, exec.MarkJoin, filter)
	}
	return exec.NewMarkFilterJoin(l, r, lk, rk, filter)
}

// unifyKeys casts both keys to their common type.
func unifyKeys(a, b vec.Expr) (vec.Expr, vec.Expr, error) {
	if arrow.TypeEqual(a.Type(), b.Type()) {
		return a, b, nil
	}
	t, err := vec.CommonType(a.Type(), b.Type())
	if err != nil {
		return nil, nil, err
	}
	if a, err = vec.ImplicitCast(a, t); err != nil {
		return nil, nil, err
	}
	if b, err = vec.ImplicitCast(b, t); err != nil {
		return nil, nil, err
	}
	return a, b, nil
}

func sideOf(e vec.Expr, nl int) int {
	s := 0
	for _, c := range vec.Columns(e) {
		if c < nl {
			s |= 1
		} else {
			s |= 2
		}
	}
	return s
}

func splitAnd(e vec.Expr) []vec.Expr {
	if e == nil {
		return nil
	}
	if l, ok := e.(*vec.Logic); ok && !l.IsOr {
		var out []vec.Expr
		for _, a := range l.Args {
			out = append(out, splitAnd(a)...)
		}
		return out
	}
	return []vec.Expr{e}
}

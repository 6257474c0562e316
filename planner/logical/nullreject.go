package logical

import (
	"github.com/paimon-flightsql/paimon-flightsql/planner/exec"
	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

// simplifyOuterJoin turns an outer join into the join it is equivalent to
// under preds, the filter conjuncts above it: a conjunct that can never be
// TRUE when every column of one side is NULL removes the rows that side's
// NULLs pad, so LEFT becomes INNER when the right side's NULLs are
// rejected, RIGHT becomes INNER when the left side's are, and FULL becomes
// RIGHT, LEFT or INNER. An uncorrelated scalar subquery is a LEFT join
// of a one-row input: `d_month_seq = (SELECT ...)` (TPC-DS Q6) rejects its
// NULL, the join becomes inner, and join ordering may join the one row
// with date_dim first instead of filtering 2.7M joined rows at the top.
// A correlated scalar subquery's join (Join.Correlated) stays LEFT: its
// outer side is built and filters the subquery's input.
func simplifyOuterJoin(j *Join, preds []vec.Expr) exec.JoinType {
	return outerJoinUnder(j, preds, 0)
}

// outerJoinUnder is simplifyOuterJoin for conjuncts over a schema in which
// j's columns start at base (j is an input of an inner join whose
// condition the conjuncts are: `ss LEFT JOIN sr ON ..., reason WHERE
// sr_reason_sk = r_reason_sk`, TPC-DS Q93).
func outerJoinUnder(j *Join, preds []vec.Expr, base int) exec.JoinType {
	nl := len(j.Left.Schema())
	nr := len(j.Right.Schema())
	var rejL, rejR bool
	for _, p := range preds {
		rejL = rejL || rejectsNulls(p, base, base+nl)
		rejR = rejR || rejectsNulls(p, base+nl, base+nl+nr)
	}
	switch j.Type {
	case exec.LeftJoin:
		if rejR && !j.Correlated {
			return exec.InnerJoin
		}
	case exec.RightJoin:
		if rejL {
			return exec.InnerJoin
		}
	case exec.FullJoin:
		switch {
		case rejL && rejR:
			return exec.InnerJoin
		case rejR:
			return exec.RightJoin
		case rejL:
			return exec.LeftJoin
		}
	}
	return j.Type
}

// rejectsNulls reports whether pred is never TRUE when every column with
// an index in [lo, hi) is NULL (it is then FALSE or NULL).
func rejectsNulls(pred vec.Expr, lo, hi int) bool {
	switch x := pred.(type) {
	case *vec.Logic:
		if x.IsOr {
			for _, a := range x.Args {
				if !rejectsNulls(a, lo, hi) {
					return false
				}
			}
			return len(x.Args) > 0
		}
		for _, a := range x.Args {
			if rejectsNulls(a, lo, hi) {
				return true
			}
		}
		return false
	case *vec.IsNull:
		return x.Negate && nullWhen(x.E, lo, hi) // x IS NOT NULL is FALSE
	}
	return nullWhen(pred, lo, hi)
}

// nullWhen reports whether e is NULL whenever every column with an index
// in [lo, hi) is NULL: a column of the range, or a strict operator (NULL in,
// NULL out) over such an operand.
func nullWhen(e vec.Expr, lo, hi int) bool {
	switch x := e.(type) {
	case *vec.Column:
		return x.Index >= lo && x.Index < hi
	case *vec.Compare:
		return !x.NullSafe && (nullWhen(x.L, lo, hi) || nullWhen(x.R, lo, hi))
	case *vec.Arith:
		return nullWhen(x.L, lo, hi) || nullWhen(x.R, lo, hi)
	case *vec.Neg:
		return nullWhen(x.E, lo, hi)
	case *vec.Cast:
		return !x.Try && nullWhen(x.E, lo, hi)
	case *vec.Like:
		return nullWhen(x.E, lo, hi) || nullWhen(x.Pattern, lo, hi)
	case *vec.InList:
		return nullWhen(x.E, lo, hi)
	case *vec.Not:
		return nullWhen(x.E, lo, hi)
	}
	return false
}

// simplifyOuterInputs turns the outer joins among j's inputs into the joins
// they are equivalent to under on, the conditions of the inner join j.
func simplifyOuterInputs(j *Join, on []vec.Expr) {
	for i, in := range []Node{j.Left, j.Right} {
		c, ok := in.(*Join)
		if !ok || c.Type != exec.LeftJoin && c.Type != exec.RightJoin && c.Type != exec.FullJoin {
			continue
		}
		base := 0
		if i == 1 {
			base = len(j.Left.Schema())
		}
		if t := outerJoinUnder(c, on, base); t != c.Type {
			cp := *c
			cp.Type = t
			if i == 0 {
				j.Left = &cp
			} else {
				j.Right = &cp
			}
		}
	}
}

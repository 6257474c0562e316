package logical

import (
	"github.com/xwb1989/sqlparser"
)

// Subqueries correlated two levels out (docs/design/planner.md):
//
//	SELECT ... FROM t WHERE EXISTS (SELECT ... FROM a
//	    WHERE EXISTS (SELECT ... FROM b WHERE b.k = t.k AND b.j = a.j))
//
// When a subquery Q1 of an outer query Q0 has a nested subquery Q2 that
// names a column of Q0, Q1 is domain-decorrelated before its WHERE is
// bound: D = DISTINCT the columns of Q0 that Q1 reads anywhere (its
// select list, WHERE, GROUP BY, HAVING, ORDER BY, and inside its nested
// subqueries), planned again from Q0's relation, is cross joined to Q1's
// FROM, and every reference to Q0 — in Q1 itself or two levels down in Q2
// — binds to D's columns. Q2's reference is then an ordinary one-level
// correlation with Q1 (decorrelated as usual), Q1's own correlation a
// plain filter over FROM × D (the optimizer makes its equalities join
// keys), and Q1 is correlated with Q0 only through Q0.c <=> D.c (NULL
// safe), with D's columns as its keys: grouping, LIMIT per key and the
// value over no rows work as for any domain-decorrelated subquery.
// References three or more levels out stay ErrUnsupported.

// deepOuterCols lists the columns of outer (indexes in its fields) that
// names in sel read — outside FROM, with inner columns shadowing — when
// at least one such name is inside a nested subquery; nil otherwise. A
// nested subquery's own column of the same name widens the list (and D)
// but changes no result.
func deepOuterCols(sel *sqlparser.Select, ob sqlparser.OrderBy, sc, outer *scope) []int {
	if outer == nil {
		return nil
	}
	var out []int
	seen := map[int]bool{}
	deep := false
	var visit func(n sqlparser.SQLNode, nested bool)
	visit = func(n sqlparser.SQLNode, nested bool) {
		_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
			switch x := n.(type) {
			case *sqlparser.Subquery:
				if !nested {
					visit(x.Select, true)
					return false, nil
				}
			case *sqlparser.ColName:
				qual, name := x.Qualifier.Name.String(), x.Name.String()
				if i, err := sc.resolve(qual, name); err != nil || i >= 0 {
					return true, nil
				}
				if i, err := outer.resolve(qual, name); err == nil && i >= 0 {
					if nested {
						deep = true
					}
					if !seen[i] {
						seen[i] = true
						out = append(out, i)
					}
				}
			}
			return true, nil
		}, n)
	}
	visit(sel.SelectExprs, false)
	if sel.Where != nil {
		visit(sel.Where, false)
	}
	visit(sel.GroupBy, false)
	if sel.Having != nil {
		visit(sel.Having, false)
	}
	visit(ob, false)
	if !deep {
		return nil
	}
	return out
}

package logical

import (
	"fmt"

	"github.com/xwb1989/sqlparser"

	"github.com/paimon-flightsql/paimon-flightsql/planner/exec"
	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
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

// Correlated derived tables inside a subquery,
//
//	(SELECT SUM(c.d) FROM (SELECT b.d FROM t3 b WHERE b.k2 = a.k2 LIMIT 5) c)
//
// are tried when binding the FROM plainly fails: D = DISTINCT every outer
// column any name of the subquery could mean (shadowing ignored: a wider D
// changes no result) is the first FROM item, each top-level derived table
// is joined to it as a LATERAL one (lateral.go, D's columns named as the
// outer columns they hold) and the other items are cross joined as usual.
// The subquery is then early domain-decorrelated on D as above. A
// correlated derived table nested in a JOIN stays an error.

// outerNamed lists the columns of outer that any column name in sel
// (FROM included) or ob resolves to there.
func outerNamed(sel *sqlparser.Select, ob sqlparser.OrderBy, outer *scope) []int {
	var out []int
	seen := map[int]bool{}
	visit := func(n sqlparser.SQLNode) {
		_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
			if x, ok := n.(*sqlparser.ColName); ok {
				if i, err := outer.resolve(x.Qualifier.Name.String(), x.Name.String()); err == nil && i >= 0 && !seen[i] {
					seen[i] = true
					out = append(out, i)
				}
			}
			return true, nil
		}, n)
	}
	visit(sel)
	visit(ob)
	return out
}

// correlatedFrom binds sel's FROM with D (the outer columns cols) first and
// its top-level derived tables as LATERAL ones; it returns the FROM, D's
// columns in it and the correlation (outer column <=> D column k).
func (b *binder) correlatedFrom(sq *subqMode, from sqlparser.TableExprs, cols []int, ctes *cteScope) (*fromItem, []vec.Expr, []vec.Expr, error) {
	outer := sq.outerRel.node
	os := outer.Schema()
	exprs := make([]vec.Expr, 0, len(cols))
	names := make([]string, 0, len(cols))
	var named Schema
	var refs []*OuterRef
	for k, i := range cols {
		if i >= len(os) || i >= len(sq.outer.fields) {
			return nil, nil, nil, unsupportedf("correlated derived table (outer columns not found)")
		}
		exprs = append(exprs, os.Col(i))
		names = append(names, "__d"+itoa(k))
		f := sq.outer.fields[i]
		named = append(named, f)
		refs = append(refs, &OuterRef{Index: i, F: f, Depth: 1})
	}
	d := &Distinct{Input: projectNode(outer, exprs, names, nil)}
	cur := &fromItem{node: d}
	for _, te := range from {
		if at, ok := b.tableFnItem(te); ok {
			// a table function reading the outer query: expanded per D row
			it, err := b.tableFuncNamed(cur, named, at)
			if err != nil {
				return nil, nil, nil, err
			}
			cur = it
			continue
		}
		if at, ok := te.(*sqlparser.AliasedTableExpr); ok {
			if _, isSub := at.Expr.(*sqlparser.Subquery); isSub {
				it, err := b.lateralNamed(cur, named, at, exec.InnerJoin, nil, nil, ctes)
				if err != nil {
					return nil, nil, nil, err
				}
				cur = it
				continue
			}
		}
		it, err := b.tableExpr(te, nil, ctes)
		if err != nil {
			if _, plain := te.(*sqlparser.AliasedTableExpr); !plain {
				err = fmt.Errorf("%w (a derived table that reads the outer query is supported only as a top-level FROM item of the subquery)", err)
			}
			return nil, nil, nil, err
		}
		cur = &fromItem{node: &Join{Left: cur.node, Right: it.node, Type: exec.InnerJoin}, using: mergeUsing(cur, it)}
	}
	s := cur.node.Schema()
	extra := make([]vec.Expr, len(refs))
	preds := make([]vec.Expr, len(refs))
	for k, r := range refs {
		extra[k] = s.Col(k)
		c, err := vec.NewCompare("<=>", r, &innerRef{idx: k, t: s[k].Type, nul: s[k].Nullable, s: s[k].Name})
		if err != nil {
			return nil, nil, nil, err
		}
		preds[k] = c
	}
	sq.domainRefs = refs
	return cur, extra, preds, nil
}

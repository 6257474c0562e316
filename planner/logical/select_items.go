package logical

import (
	"strings"

	"github.com/xwb1989/sqlparser"

	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

// selectItem is one select-list entry after * expansion.
type selectItem struct {
	expr  sqlparser.Expr
	col   int // >= 0: a column of the FROM relation (from *)
	name  string
	alias string
}

func aliasIndex(items []selectItem, name string) int {
	for i, it := range items {
		if it.alias != "" && eqName(it.alias, name) {
			return i
		}
	}
	return -1
}

func expandStars(ses sqlparser.SelectExprs, s Schema) ([]selectItem, error) {
	var out []selectItem
	for k, se := range ses {
		if _, ok, err := asStarMod(se); ok || err != nil {
			if err == nil && (k == 0 || !isStar(ses[k-1])) {
				err = invalidf("EXCLUDE/REPLACE must follow * or t.*")
			}
			if err != nil {
				return nil, err
			}
			continue // applied with the star before it
		}
		switch x := se.(type) {
		case *sqlparser.StarExpr:
			var mod *starMod
			if k+1 < len(ses) {
				m, _, err := asStarMod(ses[k+1])
				if err != nil {
					return nil, err
				}
				mod = m
			}
			qual := x.TableName.Name.String()
			n := 0
			for i, f := range s {
				if f.Hidden || (qual != "" && !eqName(f.Qual, qual)) {
					continue
				}
				n++
				if it, ok := mod.item(i, f.Name); ok {
					out = append(out, it)
				}
			}
			if qual != "" && n == 0 {
				return nil, invalidf("table or alias %q is not in the FROM clause (%s.*)", qual, qual)
			}
			if err := mod.check(); err != nil {
				return nil, err
			}
		case *sqlparser.AliasedExpr:
			if cols, ok, err := columnsItems(x, s); ok || err != nil {
				if err != nil {
					return nil, err
				}
				out = append(out, cols...)
				continue
			}
			it := selectItem{expr: x.Expr, col: -1, alias: x.As.String()}
			it.name = it.alias
			if it.name == "" {
				if c, ok := x.Expr.(*sqlparser.ColName); ok {
					it.name = c.Name.String()
				} else {
					it.name = displayName(x.Expr)
				}
			}
			out = append(out, it)
		default:
			return nil, unsupportedf("select item %s", sqlparser.String(se))
		}
	}
	return out, nil
}

// displayName is the column name of an unaliased expression.
// Parameters print as $1, $2, ... (DuckDB's names: SELECT ? + 1 is
// "$1 + 1").
func displayName(e sqlparser.Expr) string {
	// Parentheses around the whole item are syntax, not part of the
	// expression: SELECT DISTINCT(x) and SELECT (x) name their column x.
	for {
		p, ok := e.(*sqlparser.ParenExpr)
		if !ok {
			break
		}
		e = p.Expr
	}
	var node sqlparser.SQLNode = e
	if f, ok := e.(*sqlparser.FuncExpr); ok && f.Name.Lowered() == "paimon_window" && len(f.Exprs) > 0 {
		node = f.Exprs[0]
	}
	buf := sqlparser.NewTrackedBuffer(func(buf *sqlparser.TrackedBuffer, node sqlparser.SQLNode) {
		if v, ok := node.(*sqlparser.SQLVal); ok && v.Type == sqlparser.ValArg && strings.HasPrefix(string(v.Val), ":v") {
			buf.WriteString("$" + string(v.Val[2:]))
			return
		}
		if f, ok := node.(*sqlparser.FuncExpr); ok && f.Name.Lowered() == markAggOrder && len(f.Exprs) == 2 {
			buf.Myprintf("%v", f.Exprs[0]) // agg(x ORDER BY k) is named agg(x)
			return
		}
		node.Format(buf)
	})
	buf.Myprintf("%v", node)
	s := buf.String()
	for _, p := range []string{"paimon_"} {
		s = strings.ReplaceAll(s, p, "")
	}
	return s
}

func splitAnd(e sqlparser.Expr) []sqlparser.Expr {
	var out []sqlparser.Expr
	stack := []sqlparser.Expr{e}
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if p, ok := x.(*sqlparser.ParenExpr); ok {
			if _, isAnd := p.Expr.(*sqlparser.AndExpr); isAnd {
				stack = append(stack, p.Expr)
				continue
			}
		}
		if a, ok := x.(*sqlparser.AndExpr); ok {
			stack = append(stack, a.Right, a.Left)
			continue
		}
		out = append(out, x)
	}
	return out
}

// containsAgg reports whether e has an aggregate call outside subqueries
// and window specifications.
func containsAgg(e sqlparser.Expr) bool {
	found := false
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		if found {
			return false, nil
		}
		switch x := n.(type) {
		case *sqlparser.Subquery:
			return false, nil
		case *sqlparser.FuncExpr:
			if x.Name.Lowered() == "paimon_window" {
				// aggregates inside a window's arguments count (SUM(SUM(x)) OVER ...),
				// the window function itself does not.
				if len(x.Exprs) > 0 {
					if ae, ok := x.Exprs[0].(*sqlparser.AliasedExpr); ok {
						if f, ok := ae.Expr.(*sqlparser.FuncExpr); ok {
							for _, a := range f.Exprs {
								if ae2, ok := a.(*sqlparser.AliasedExpr); ok && containsAgg(ae2.Expr) {
									found = true
								}
							}
						}
					}
				}
				return false, nil
			}
			if isAggCall(x) {
				found = true
				return false, nil
			}
		case *sqlparser.GroupConcatExpr:
			found = true
			return false, nil
		}
		return true, nil
	}, e)
	return found
}

// orderByAliases binds an ORDER BY expression with its unqualified names
// that are select aliases replaced by the aliased expressions (the AST is
// restored afterwards); ok is false when no alias occurs or binding fails.
func (b *binder) orderByAliases(post *exprCtx, e sqlparser.Expr, items []selectItem) (vec.Expr, bool) {
	type sub struct {
		col   *sqlparser.ColName
		paren *sqlparser.ParenExpr
	}
	var subs []sub
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		switch x := n.(type) {
		case *sqlparser.Subquery:
			return false, nil
		case *sqlparser.ColName:
			if i := aliasIndex(items, x.Name.String()); x.Qualifier.IsEmpty() && i >= 0 && items[i].expr != nil {
				subs = append(subs, sub{x, &sqlparser.ParenExpr{Expr: items[i].expr}})
			}
		}
		return true, nil
	}, e)
	if len(subs) == 0 {
		return nil, false
	}
	root := e
	for _, s := range subs {
		root = sqlparser.ReplaceExpr(root, s.col, s.paren)
	}
	x, err := b.expr(post, root)
	for _, s := range subs {
		root = sqlparser.ReplaceExpr(root, s.paren, s.col)
	}
	return x, err == nil
}

package parse

import (
	"strconv"
	"strings"

	"github.com/xwb1989/sqlparser"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
	"github.com/paimon-flightsql/paimon-flightsql/paimon"
)

// fixup turns the markers of the rewrite back into the AST the binder
// sees: || operators, FULL JOINs, NULLS FIRST/LAST, aliases with column
// lists or hints.
func (p *parser) fixup(root sqlparser.SQLNode) error {
	if p.opsDone == nil {
		p.opsDone = map[*sqlparser.BinaryExpr]bool{}
	}
	done := p.opsDone
	return sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		switch x := n.(type) {
		case *sqlparser.BinaryExpr:
			if opLevel(x.Operator) && !done[x] {
				if err := reassocOps(x, done); err != nil {
					return false, err
				}
			}
		case *sqlparser.JoinTableExpr:
			switch {
			case x.Join == sqlparser.StraightJoinStr:
				if x.Condition.On == nil {
					return false, paimon.Errorf(catalog.ErrInvalid, "FULL JOIN needs ON or USING")
				}
				x.Join = FullJoinStr
			case len(x.Condition.Using) > 0 && x.Condition.Using[0].EqualString(markFullJoin):
				x.Join = FullJoinStr
				x.Condition.Using = x.Condition.Using[1:]
			}
		case *sqlparser.Order:
			if f, ok := x.Expr.(*sqlparser.FuncExpr); ok && f.Qualifier.IsEmpty() && len(f.Exprs) == 1 {
				first := f.Name.EqualString(markNullsFirst)
				if first || f.Name.EqualString(markNullsLast) {
					ae, ok := f.Exprs[0].(*sqlparser.AliasedExpr)
					if !ok {
						return false, paimon.Errorf(catalog.ErrInvalid, "NULLS FIRST/LAST needs an expression")
					}
					x.Expr = ae.Expr
					if p.st.NullsFirst == nil {
						p.st.NullsFirst = map[*sqlparser.Order]bool{}
					}
					p.st.NullsFirst[x] = first
				}
			}
		case *sqlparser.AliasedTableExpr:
			if a := x.As.String(); strings.HasPrefix(a, markAlias) {
				n, err := strconv.Atoi(a[len(markAlias):])
				if err != nil || n < 0 || n >= len(p.aliases) {
					return false, paimon.Errorf(catalog.ErrInvalid, "the name %s is reserved", a)
				}
				m := p.aliases[n]
				x.As = sqlparser.NewTableIdent(m.alias)
				if m.cols != nil {
					if p.st.DerivedColumns == nil {
						p.st.DerivedColumns = map[*sqlparser.AliasedTableExpr][]string{}
					}
					p.st.DerivedColumns[x] = m.cols
				}
				if m.lateral {
					if p.st.Lateral == nil {
						p.st.Lateral = map[*sqlparser.AliasedTableExpr]bool{}
					}
					p.st.Lateral[x] = true
				}
				if m.tablefn != "" {
					if p.st.TableFuncs == nil {
						p.st.TableFuncs = map[*sqlparser.AliasedTableExpr]string{}
					}
					p.st.TableFuncs[x] = m.tablefn
				}
				if m.hints != nil {
					if p.st.Hints == nil {
						p.st.Hints = map[*sqlparser.AliasedTableExpr]map[string]string{}
					}
					p.st.Hints[x] = m.hints
				}
			}
		case *sqlparser.IntervalExpr:
			x.Unit = strings.ToLower(x.Unit)
			if u := intervalUnits[x.Unit]; u != "" {
				x.Unit = u
			}
		}
		return true, nil
	}, root)
}

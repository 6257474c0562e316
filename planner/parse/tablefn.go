package parse

import (
	"fmt"
	"strings"

	"github.com/xwb1989/sqlparser"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
	"github.com/paimon-flightsql/paimon-flightsql/paimon"
)

// markTableFn is the call a table function in FROM travels as:
// `name(args) [AS] [t [(c)]]` becomes the derived table `(select
// paimon_tablefn(args) from dual) as t`, recorded in
// Statement.TableFuncs (alias t, or the function's name without one).
const markTableFn = "paimon_tablefn"

// rwTableFunc rewrites the table function call name(...) at i (its
// parenthesis at open) in a FROM clause, with the alias after it.
func (p *parser) rwTableFunc(e *emitter, i, open, hi int) (int, error) {
	close := int(p.match[open])
	name := strings.ToLower(nameOf(p.toks[i]))
	pos := p.toks[i].pos
	e.add(pos, "(select "+markTableFn+"(")
	if err := p.rw(e, open+1, close, ctxNone); err != nil {
		return 0, err
	}
	e.add(p.toks[close].pos, ") from dual)")
	k := p.nextIn(close+1, hi)
	p.tableFn = name
	j, ok, err := p.aliasTail(e, k, hi, nil, false)
	p.tableFn = ""
	if err != nil {
		return 0, err
	}
	if !ok {
		// the marker alias is always written (aliasTail always marks a
		// table function)
		return 0, p.errAt(catalog.ErrInvalid, i, "table function %s: cannot read its alias", name)
	}
	return j, nil
}

// afterDistinctFrom reports whether the name at i follows `DISTINCT
// FROM` (the operand of IS [NOT] DISTINCT FROM, not a table).
func (p *parser) afterDistinctFrom(i, lo int) bool {
	k := p.prevIn(i, lo)
	if k < lo || !isWord(p.toks[k], "FROM") {
		return false
	}
	d := p.prevIn(k, lo)
	return d >= lo && isWord(p.toks[d], "DISTINCT")
}

// TableFuncArgs returns the arguments of the table function x (a key of
// Statement.TableFuncs).
func TableFuncArgs(x *sqlparser.AliasedTableExpr) ([]sqlparser.Expr, error) {
	bad := paimon.Errorf(catalog.ErrInvalid, "table function %s: malformed call", x.As.String())
	sub, ok := x.Expr.(*sqlparser.Subquery)
	if !ok {
		return nil, bad
	}
	sel, ok := sub.Select.(*sqlparser.Select)
	if !ok || len(sel.SelectExprs) != 1 {
		return nil, bad
	}
	ae, ok := sel.SelectExprs[0].(*sqlparser.AliasedExpr)
	if !ok {
		return nil, bad
	}
	f, ok := ae.Expr.(*sqlparser.FuncExpr)
	if !ok || !f.Name.EqualString(markTableFn) {
		return nil, bad
	}
	if f.Distinct {
		return nil, paimon.Errorf(catalog.ErrInvalid, "table function %s: DISTINCT in its arguments", x.As.String())
	}
	out := make([]sqlparser.Expr, len(f.Exprs))
	for i, a := range f.Exprs {
		ae, ok := a.(*sqlparser.AliasedExpr)
		if !ok {
			return nil, paimon.Errorf(catalog.ErrInvalid, "table function %s: argument %d is %s, not an expression", x.As.String(), i+1, sqlparser.String(a))
		}
		if !ae.As.IsEmpty() {
			return nil, paimon.Errorf(catalog.ErrUnsupported, "table function %s: named or aliased argument %s", x.As.String(), fmt.Sprint(sqlparser.String(ae)))
		}
		out[i] = ae.Expr
	}
	return out, nil
}

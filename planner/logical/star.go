package logical

import (
	"regexp"
	"strings"

	"github.com/xwb1989/sqlparser"
)

// markStarMod is the select item the front end puts right after a * or t.*
// that has EXCLUDE / REPLACE (planner/parse/star.go):
// paimon_star_mod(paimon_exclude('a', ...), paimon_replace(expr, 'c'), ...).
const markStarMod = "paimon_star_mod"

// starMod is a parsed paimon_star_mod: columns to leave out and columns
// to replace (by lower-case name), as DuckDB's * EXCLUDE (...) REPLACE (...).
type starMod struct {
	exclude map[string]bool
	replace map[string]sqlparser.Expr
	used    map[string]bool
}

// asStarMod recognises the marker item.
func asStarMod(se sqlparser.SelectExpr) (*starMod, bool, error) {
	ae, ok := se.(*sqlparser.AliasedExpr)
	if !ok || ae.As.Lowered() != markStarMod {
		return nil, false, nil
	}
	f, ok := ae.Expr.(*sqlparser.FuncExpr)
	if !ok || f.Name.Lowered() != markStarMod {
		return nil, true, invalidf("bad * EXCLUDE/REPLACE")
	}
	m := &starMod{exclude: map[string]bool{}, replace: map[string]sqlparser.Expr{}, used: map[string]bool{}}
	str := func(se sqlparser.SelectExpr) (string, bool) {
		a, ok := se.(*sqlparser.AliasedExpr)
		if !ok {
			return "", false
		}
		v, ok := a.Expr.(*sqlparser.SQLVal)
		if !ok || v.Type != sqlparser.StrVal {
			return "", false
		}
		return strings.ToLower(string(v.Val)), true
	}
	for _, a := range f.Exprs {
		ae, ok := a.(*sqlparser.AliasedExpr)
		if !ok {
			return nil, true, invalidf("bad * EXCLUDE/REPLACE")
		}
		g, ok := ae.Expr.(*sqlparser.FuncExpr)
		if !ok {
			return nil, true, invalidf("bad * EXCLUDE/REPLACE")
		}
		switch g.Name.Lowered() {
		case "paimon_exclude":
			for _, x := range g.Exprs {
				n, ok := str(x)
				if !ok {
					return nil, true, invalidf("bad EXCLUDE list")
				}
				if m.exclude[n] {
					return nil, true, invalidf("column %q is excluded twice", n)
				}
				m.exclude[n] = true
			}
		case "paimon_replace":
			if len(g.Exprs) != 2 {
				return nil, true, invalidf("bad REPLACE list")
			}
			n, ok := str(g.Exprs[1])
			e, ok2 := g.Exprs[0].(*sqlparser.AliasedExpr)
			if !ok || !ok2 {
				return nil, true, invalidf("bad REPLACE list")
			}
			if _, dup := m.replace[n]; dup || m.exclude[n] {
				return nil, true, invalidf("column %q is replaced twice or both excluded and replaced", n)
			}
			m.replace[n] = e.Expr
		default:
			return nil, true, invalidf("bad * EXCLUDE/REPLACE")
		}
	}
	return m, true, nil
}

// item applies the modifier to the star's column i named name: ok=false
// leaves the column out.
func (m *starMod) item(i int, name string) (selectItem, bool) {
	if m == nil {
		return selectItem{col: i, name: name}, true
	}
	l := strings.ToLower(name)
	if m.exclude[l] {
		m.used[l] = true
		return selectItem{}, false
	}
	if e, ok := m.replace[l]; ok {
		m.used[l] = true
		return selectItem{expr: e, col: -1, name: name, alias: name}, true
	}
	return selectItem{col: i, name: name}, true
}

// check reports EXCLUDE/REPLACE names that matched no column (DuckDB
// refuses them too).
func (m *starMod) check() error {
	if m == nil {
		return nil
	}
	for n := range m.exclude {
		if !m.used[n] {
			return invalidf("column %q in the EXCLUDE list is not a column of *", n)
		}
	}
	for n := range m.replace {
		if !m.used[n] {
			return invalidf("column %q in the REPLACE list is not a column of *", n)
		}
	}
	return nil
}

func isStar(se sqlparser.SelectExpr) bool {
	_, ok := se.(*sqlparser.StarExpr)
	return ok
}

// columnsItems expands a select item that is DuckDB's COLUMNS(*) or
// COLUMNS('regex'): the FROM relation's visible columns, in order, whose
// name the regular expression (RE2, a search, case-sensitive) matches, each
// under its own name. ok is false when the item is something else. A
// COLUMNS(...) inside an expression (MIN(COLUMNS(*)), COLUMNS('a') + 1),
// with an alias, or with a lambda or list argument is refused.
func columnsItems(x *sqlparser.AliasedExpr, s Schema) ([]selectItem, bool, error) {
	f, ok := x.Expr.(*sqlparser.FuncExpr)
	if !ok || f.Name.Lowered() != "columns" || !f.Qualifier.IsEmpty() {
		if hasColumnsCall(x.Expr) {
			return nil, true, unsupportedf("COLUMNS(...) inside an expression (%s); only a whole select item COLUMNS('regex') or COLUMNS(*) is supported", sqlparser.String(x.Expr))
		}
		return nil, false, nil
	}
	if !x.As.IsEmpty() {
		return nil, true, unsupportedf("an alias on COLUMNS(...) (%s)", sqlparser.String(x))
	}
	if len(f.Exprs) != 1 || f.Distinct {
		return nil, true, invalidf("COLUMNS takes one argument: * or a regular expression string")
	}
	var re *regexp.Regexp
	switch a := f.Exprs[0].(type) {
	case *sqlparser.StarExpr:
		if !a.TableName.IsEmpty() {
			return nil, true, unsupportedf("COLUMNS(%s)", sqlparser.String(a))
		}
	case *sqlparser.AliasedExpr:
		v, ok := a.Expr.(*sqlparser.SQLVal)
		if !ok || v.Type != sqlparser.StrVal {
			return nil, true, unsupportedf("COLUMNS(%s): only * or a constant regular expression string", sqlparser.String(a.Expr))
		}
		var err error
		if re, err = regexp.Compile(string(v.Val)); err != nil {
			return nil, true, invalidf("COLUMNS(%q): bad regular expression: %v", v.Val, err)
		}
	default:
		return nil, true, invalidf("bad COLUMNS argument %s", sqlparser.String(a))
	}
	var out []selectItem
	for i, c := range s {
		if c.Hidden || re != nil && !re.MatchString(c.Name) {
			continue
		}
		out = append(out, selectItem{col: i, name: c.Name})
	}
	if len(out) == 0 {
		return nil, true, invalidf("no column matches %s", sqlparser.String(f))
	}
	return out, true, nil
}

// hasColumnsCall reports whether e calls COLUMNS anywhere.
func hasColumnsCall(e sqlparser.Expr) bool {
	found := false
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		if f, ok := n.(*sqlparser.FuncExpr); ok && f.Name.Lowered() == "columns" && f.Qualifier.IsEmpty() {
			found = true
			return false, nil
		}
		return !found, nil
	}, e)
	return found
}

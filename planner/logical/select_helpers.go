package logical

import (
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/xwb1989/sqlparser"

	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

func itoa(i int) string { return strconv.Itoa(i) }

// projCol references column i of a projection of exprs.
func projCol(exprs []vec.Expr, names []string, i int) vec.Expr {
	return &vec.Column{Index: i, Name: names[i], T: exprs[i].Type(), Null: exprs[i].Nullable()}
}

// fieldsMeta keeps the Arrow metadata of plain column references.
func (b *binder) fieldsMeta(in Node, exprs []vec.Expr) []arrow.Metadata {
	s := in.Schema()
	out := make([]arrow.Metadata, len(exprs))
	for i, e := range exprs {
		if c, ok := e.(*vec.Column); ok && c.Index < len(s) {
			out[i] = s[c.Index].Meta
		}
	}
	return out
}

func projectNode(in Node, exprs []vec.Expr, names []string, meta []arrow.Metadata) *Project {
	s := make(Schema, len(exprs))
	for i, e := range exprs {
		s[i] = Field{Name: names[i], Type: e.Type(), Nullable: e.Nullable()}
		if meta != nil {
			s[i].Meta = meta[i]
		}
		if strings.HasPrefix(names[i], "__") {
			s[i].Hidden = true
		}
	}
	return &Project{Input: in, Exprs: exprs, S: s}
}

// trim keeps the first n columns.
func trim(in Node, n int) Node {
	s := in.Schema()
	exprs := make([]vec.Expr, n)
	for i := range exprs {
		exprs[i] = s.Col(i)
		exprs[i].(*vec.Column).Name = s[i].Name
	}
	return &Project{Input: in, Exprs: exprs, S: append(Schema{}, s[:n]...)}
}

// liftInner replaces the inner columns of a correlated predicate by
// innerRefs to extra output columns (added to extra).
func liftInner(p vec.Expr, extra []vec.Expr, agg bool) (vec.Expr, []vec.Expr, error) {
	if agg {
		// only inner_column = outer_expr is decorrelatable through GROUP BY
		ok := false
		if cmp, isCmp := p.(*vec.Compare); isCmp {
			if l, r, eq := cmp.Equality(); eq {
				ok = hasOuter(l) != hasOuter(r) && (len(vec.Columns(l)) == 0 || len(vec.Columns(r)) == 0)
			}
		}
		if !ok {
			return nil, nil, unsupportedf("correlated aggregate subquery with condition %s (only equalities with outer columns are supported)", p.String())
		}
	}
	np, err := vec.Transform(p, func(x vec.Expr) (vec.Expr, error) {
		c, ok := x.(*vec.Column)
		if !ok {
			return x, nil
		}
		for k, e := range extra {
			if e.String() == c.String() {
				return &innerRef{idx: k, t: c.T, nul: c.Null, s: c.Name}, nil
			}
		}
		extra = append(extra, c)
		return &innerRef{idx: len(extra) - 1, t: c.T, nul: c.Null, s: c.Name}, nil
	})
	return np, extra, err
}

// hasSubqueryAST reports whether e contains a subquery.
func hasSubqueryAST(e sqlparser.Expr) bool {
	found := false
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		if _, ok := n.(*sqlparser.Subquery); ok {
			found = true
		}
		return !found, nil
	}, e)
	return found
}

// hasWindowAST reports whether sel's select list or ORDER BY (outside
// subqueries) has a window function.
func hasWindowAST(sel *sqlparser.Select, ob sqlparser.OrderBy) bool {
	found := false
	walk := func(n sqlparser.SQLNode) {
		_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
			switch x := n.(type) {
			case *sqlparser.Subquery:
				return false, nil
			case *sqlparser.FuncExpr:
				if x.Name.Lowered() == "paimon_window" {
					found = true
				}
			}
			return !found, nil
		}, n)
	}
	walk(sel.SelectExprs)
	walk(ob)
	return found
}

package logical

import (
	"strconv"
	"strings"

	"github.com/xwb1989/sqlparser"

	"github.com/paimon-flightsql/paimon-flightsql/planner/parse"
)

// queryOf turns a subquery's sqlparser statement into the front end's
// query form (ORDER BY / LIMIT moved to the query level).
func queryOf(ss sqlparser.SelectStatement) *parse.Query {
	switch x := ss.(type) {
	case *sqlparser.Select:
		cp := *x
		q := &parse.Query{OrderBy: cp.OrderBy, Limit: cp.Limit}
		cp.OrderBy, cp.Limit = nil, nil
		q.Body = &parse.Select{Select: &cp}
		return q
	case *sqlparser.ParenSelect:
		return queryOf(x.Select)
	case *sqlparser.Union:
		all := x.Type == sqlparser.UnionAllStr
		q := &parse.Query{OrderBy: x.OrderBy, Limit: x.Limit}
		q.Body = &parse.SetOp{Op: "UNION", All: all, Left: bodyOf(x.Left), Right: bodyOf(x.Right)}
		return q
	}
	return &parse.Query{}
}

func bodyOf(ss sqlparser.SelectStatement) parse.Body {
	q := queryOf(ss)
	if len(q.OrderBy) == 0 && q.Limit == nil {
		return q.Body
	}
	return q
}

// subqueryIndex recognises the front end's paimon_subquery_N names.
func subqueryIndex(name string) (int, bool) {
	rest, ok := strings.CutPrefix(strings.ToLower(name), "paimon_subquery_")
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(rest)
	return n, err == nil && n >= 0
}

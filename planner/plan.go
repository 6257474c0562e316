package planner

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/xwb1989/sqlparser"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
)

// query is a planned SELECT.
type query struct {
	table     catalog.Table // nil: SELECT without FROM
	tableName string        // db.name for messages and EXPLAIN
	req       catalog.ScanRequest
	inSchema  *arrow.Schema // the scan's output (referenced columns)
	conjuncts []expr        // WHERE conjuncts over inSchema

	isAgg  bool
	groups []expr
	aggs   []*aggCall
	having expr

	proj     []expr // output columns, then hidden sort keys
	names    []string
	nOut     int
	distinct bool
	order    []sortKey
	limit    int64 // -1: none
	offset   int64

	hasParams bool
	schema    *arrow.Schema // result schema

	// Planned at Prepare when the query has no parameters.
	scan     catalog.Scan
	residual []expr
	countAll int64 // >= 0: COUNT(*) answered from metadata
}

type sortKey struct {
	col  int
	desc bool
}

func (e *Engine) resolveTable(ctx context.Context, tn sqlparser.TableName, sess Session) (catalog.Table, string, error) {
	db := tn.Qualifier.String()
	if db == "" {
		db = sess.Database
	}
	if db == "" {
		db = e.cat.DefaultDatabase()
	}
	name := tn.Name.String()
	t, err := e.cat.GetTable(ctx, db, name)
	if err == nil {
		return t, db + "." + name, nil
	}
	if !errors.Is(err, catalog.ErrNotFound) {
		return nil, "", fmt.Errorf("table %s.%s: %w", db, name, err)
	}
	// Give uniform messages with suggestions whatever the catalog says.
	dbs, lerr := e.cat.ListDatabases(ctx)
	if lerr == nil && !slices.Contains(dbs, db) {
		return nil, "", paimon.Errorf(catalog.ErrNotFound, "database %q does not exist%s", db, catalog.DidYouMean(db, dbs))
	}
	if tabs, lerr := e.cat.ListTables(ctx, db); lerr == nil {
		names := make([]string, len(tabs))
		found := false
		for i, ti := range tabs {
			names[i] = ti.Name
			found = found || ti.Name == name
		}
		base, _, _ := strings.Cut(name, "$")
		if !found && !slices.Contains(names, base) {
			return nil, "", paimon.Errorf(catalog.ErrNotFound, "table %q does not exist in database %q%s", name, db, catalog.DidYouMean(name, names))
		}
	}
	return nil, "", err
}

// planSelect binds and plans a SELECT.
func (e *Engine) planSelect(ctx context.Context, sel *sqlparser.Select, sess Session, norm *normalized) (*query, []*param, error) {
	if sel.Lock != "" {
		return nil, nil, unsupportedf("locking clause %q", strings.TrimSpace(sel.Lock))
	}
	q := &query{limit: -1, countAll: -1}
	b := &binder{}
	switch len(sel.From) {
	case 0:
	case 1:
		switch te := sel.From[0].(type) {
		case *sqlparser.AliasedTableExpr:
			tn, ok := te.Expr.(sqlparser.TableName)
			if !ok {
				return nil, nil, unsupportedf("subquery in FROM")
			}
			if tn.Name.String() == "dual" && tn.Qualifier.IsEmpty() {
				break
			}
			t, name, err := e.resolveTable(ctx, tn, sess)
			if err != nil {
				return nil, nil, err
			}
			q.table, q.tableName = t, name
			b.schema, b.table, b.alias = t.Schema(), name, tn.Name.String()
			if !te.As.IsEmpty() {
				b.alias = te.As.String()
			}
		case *sqlparser.JoinTableExpr:
			return nil, nil, unsupportedf("JOIN")
		default:
			return nil, nil, unsupportedf("FROM clause %s", sqlparser.String(te))
		}
	default:
		return nil, nil, unsupportedf("JOIN (several tables in FROM)")
	}
	if norm.options != nil && q.table == nil {
		return nil, nil, invalidf("OPTIONS hint without a table")
	}

	// WHERE
	if sel.Where != nil {
		w, err := b.boolean(sel.Where.Expr)
		if err != nil {
			return nil, nil, fmt.Errorf("WHERE: %w", err)
		}
		q.conjuncts = splitAnd(w)
	}

	// Aggregation?
	q.isAgg = len(sel.GroupBy) > 0 || sel.Having != nil
	for _, se := range sel.SelectExprs {
		if ae, ok := se.(*sqlparser.AliasedExpr); ok && hasAggregate(ae.Expr) {
			q.isAgg = true
		}
	}
	for _, o := range sel.OrderBy {
		if hasAggregate(o.Expr) {
			q.isAgg = true
		}
	}

	// Select list ASTs with aliases (for GROUP BY / ORDER BY resolution).
	type item struct {
		ast   sqlparser.Expr
		name  string
		alias string
	}
	var items []item
	for _, se := range sel.SelectExprs {
		switch x := se.(type) {
		case *sqlparser.StarExpr:
			if b.schema == nil {
				return nil, nil, invalidf("SELECT * needs a FROM clause")
			}
			if q.isAgg {
				return nil, nil, invalidf("SELECT * with GROUP BY or aggregates")
			}
			for _, f := range b.schema.Fields() {
				items = append(items, item{ast: &sqlparser.ColName{Name: sqlparser.NewColIdent(f.Name)}, name: f.Name})
			}
		case *sqlparser.AliasedExpr:
			it := item{ast: x.Expr, alias: x.As.String()}
			switch {
			case it.alias != "":
				it.name = it.alias
			case isColName(x.Expr):
				it.name = x.Expr.(*sqlparser.ColName).Name.String()
			default:
				it.name = sqlparser.String(x.Expr)
			}
			items = append(items, it)
		default:
			return nil, nil, unsupportedf("select item %s", sqlparser.String(se))
		}
	}
	aliasOf := func(e sqlparser.Expr) (int, bool) {
		if c, ok := e.(*sqlparser.ColName); ok && c.Qualifier.IsEmpty() {
			for i, it := range items {
				if it.alias != "" && strings.EqualFold(it.alias, c.Name.String()) {
					return i, true
				}
			}
		}
		return 0, false
	}
	ordinal := func(e sqlparser.Expr, clause string) (int, bool, error) {
		v, ok := e.(*sqlparser.SQLVal)
		if !ok || v.Type != sqlparser.IntVal {
			return 0, false, nil
		}
		n, err := strconv.Atoi(string(v.Val))
		if err != nil || n < 1 || n > len(items) {
			return 0, false, invalidf("%s position %s is not in the select list (1..%d)", clause, v.Val, len(items))
		}
		return n - 1, true, nil
	}

	if q.isAgg {
		for _, g := range sel.GroupBy {
			ast := g
			if i, ok, err := ordinal(g, "GROUP BY"); err != nil {
				return nil, nil, err
			} else if ok {
				ast = items[i].ast
			} else if i, ok := aliasOf(g); ok && !b.hasColumn(g) {
				ast = items[i].ast
			}
			if hasAggregate(ast) {
				return nil, nil, invalidf("aggregate functions are not allowed in GROUP BY (%s)", sqlparser.String(ast))
			}
			ge, err := b.bind(ast)
			if err != nil {
				return nil, nil, fmt.Errorf("GROUP BY: %w", err)
			}
			b.groupKeys = append(b.groupKeys, sqlparser.String(ast))
			b.groups = append(b.groups, ge)
		}
		b.post = true
	}

	for _, it := range items {
		x, err := b.bind(it.ast)
		if err != nil {
			return nil, nil, err
		}
		if p, ok := x.(*param); ok && p.t == nil {
			p.t = tString
		}
		q.proj = append(q.proj, x)
		q.names = append(q.names, it.name)
	}
	q.nOut = len(q.proj)
	q.distinct = sel.Distinct != ""

	if sel.Having != nil {
		h, err := b.boolean(sel.Having.Expr)
		if err != nil {
			return nil, nil, fmt.Errorf("HAVING: %w", err)
		}
		q.having = h
	}

	for _, o := range sel.OrderBy {
		k := sortKey{desc: o.Direction == sqlparser.DescScr}
		if i, ok, err := ordinal(o.Expr, "ORDER BY"); err != nil {
			return nil, nil, err
		} else if ok {
			k.col = i
		} else if i, ok := aliasOf(o.Expr); ok {
			k.col = i
		} else {
			k.col = -1
			key := sqlparser.String(o.Expr)
			for i, it := range items {
				if sqlparser.String(it.ast) == key {
					k.col = i
					break
				}
			}
			if k.col < 0 {
				if q.distinct {
					return nil, nil, invalidf("ORDER BY %s must appear in the select list of SELECT DISTINCT", key)
				}
				x, err := b.bind(o.Expr)
				if err != nil {
					return nil, nil, fmt.Errorf("ORDER BY: %w", err)
				}
				k.col = len(q.proj)
				q.proj = append(q.proj, x)
				q.names = append(q.names, "__order"+strconv.Itoa(k.col))
			}
		}
		if classOf(q.proj[k.col].dataType()) == cOther {
			return nil, nil, unsupportedf("ORDER BY on %s values", q.proj[k.col].dataType())
		}
		q.order = append(q.order, k)
	}

	if sel.Limit != nil {
		var err error
		if q.limit, err = limitValue(sel.Limit.Rowcount, "LIMIT"); err != nil {
			return nil, nil, err
		}
		if sel.Limit.Offset != nil {
			if q.offset, err = limitValue(sel.Limit.Offset, "OFFSET"); err != nil {
				return nil, nil, err
			}
		}
	}

	for _, p := range b.params {
		if p.t == nil {
			p.t = tString
		}
	}
	q.groups, q.aggs = b.groups, b.aggs
	q.hasParams = len(b.params) > 0

	// Output schema.
	fields := make([]arrow.Field, q.nOut)
	for i := range fields {
		fields[i] = arrow.Field{Name: q.names[i], Type: q.proj[i].dataType(), Nullable: true}
	}
	q.schema = arrow.NewSchema(fields, nil)

	if q.table == nil {
		return q, b.params, nil
	}

	// Projection pushdown: only referenced columns, in table order.
	used := map[int]bool{}
	for _, r := range b.refs {
		used[r.idx] = true
	}
	var cols []int
	for i := range b.schema.NumFields() {
		if used[i] {
			cols = append(cols, i)
		}
	}
	pos := map[int]int{}
	names := make([]string, len(cols))
	fs := make([]arrow.Field, len(cols))
	for i, c := range cols {
		pos[c] = i
		names[i] = b.schema.Field(c).Name
		fs[i] = b.schema.Field(c)
	}
	for _, r := range b.refs {
		r.idx = pos[r.idx]
	}
	q.inSchema = arrow.NewSchema(fs, nil)
	q.req = catalog.ScanRequest{Columns: names, Limit: -1, Options: map[string]string{}}
	for k, v := range sess.Options {
		q.req.Options[k] = v
	}
	for k, v := range norm.options {
		q.req.Options[k] = v
	}
	if !q.isAgg && !q.distinct && len(q.order) == 0 && q.limit >= 0 {
		q.req.Limit = q.limit + q.offset
	}
	if !q.hasParams {
		if err := q.planScan(ctx, nil); err != nil {
			return nil, nil, err
		}
	}
	return q, b.params, nil
}

func (b *binder) hasColumn(e sqlparser.Expr) bool {
	c, ok := e.(*sqlparser.ColName)
	if !ok || b.schema == nil {
		return false
	}
	for _, f := range b.schema.Fields() {
		if strings.EqualFold(f.Name, c.Name.String()) {
			return true
		}
	}
	return false
}

func isColName(e sqlparser.Expr) bool { _, ok := e.(*sqlparser.ColName); return ok }

func hasAggregate(e sqlparser.Expr) bool {
	found := false
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		if f, ok := n.(*sqlparser.FuncExpr); ok && aggNames[strings.ToLower(f.Name.String())] {
			found = true
			return false, nil
		}
		if _, ok := n.(*sqlparser.Subquery); ok {
			return false, nil
		}
		return true, nil
	}, e)
	return found
}

func limitValue(e sqlparser.Expr, what string) (int64, error) {
	v, ok := e.(*sqlparser.SQLVal)
	if !ok || v.Type != sqlparser.IntVal {
		return 0, unsupportedf("%s %s (only integer constants)", what, sqlparser.String(e))
	}
	n, err := strconv.ParseInt(string(v.Val), 10, 64)
	if err != nil || n < 0 {
		return 0, invalidf("%s %s must be a non-negative integer", what, v.Val)
	}
	return n, nil
}

func splitAnd(e expr) []expr {
	if l, ok := e.(*logic); ok && l.and {
		var out []expr
		for _, a := range l.args {
			out = append(out, splitAnd(a)...)
		}
		return out
	}
	return []expr{e}
}

// planScan converts the WHERE conjuncts (with params bound, when given),
// plans the table scan and decides the residual filter.
func (q *query) planScan(ctx context.Context, params []any) error {
	s, residual, err := q.newScan(ctx, params)
	if err != nil {
		return err
	}
	q.scan, q.residual = s, residual
	q.countAll = -1
	if q.isAgg && len(q.groups) == 0 && q.having == nil && len(q.conjuncts) == 0 && len(q.aggs) == 1 &&
		q.aggs[0].fn == "count" && q.aggs[0].arg == nil {
		if n, exact := s.RowCount(); exact {
			q.countAll = n
		}
	}
	return nil
}

func (q *query) newScan(ctx context.Context, params []any) (catalog.Scan, []expr, error) {
	req := q.req
	var pushed []predicate.Predicate
	exactly := make([]bool, len(q.conjuncts))
	for i, c := range q.conjuncts {
		if p, ok := toPredicate(c, q.inSchema, params); ok {
			pushed = append(pushed, p)
			exactly[i] = true
		}
	}
	if len(pushed) > 0 {
		req.Filter = predicate.NewAnd(pushed...)
	}
	if len(pushed) < len(q.conjuncts) {
		req.Limit = -1 // the scan's filter is weaker than WHERE
	}
	s, err := q.table.NewScan(ctx, req)
	if err != nil {
		return nil, nil, fmt.Errorf("scan of %s: %w", q.tableName, err)
	}
	var residual []expr
	for i, c := range q.conjuncts {
		if !exactly[i] || !s.FilterExact() {
			residual = append(residual, c)
		}
	}
	return s, residual, nil
}

package logical

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/xwb1989/sqlparser"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/planner/exec"
	"github.com/paimon-flightsql/paimon-flightsql/planner/parse"
	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

// Session is what names resolve against.
type Session struct {
	Catalog     catalog.Catalog
	CatalogName string // accepted as the first part of 3-part names ("" = any)
	Database    string
	Options     map[string]string
	// User is the authenticated user (current_user); Version is the
	// server version (version()).
	User, Version string
}

// Bound is a bound query.
type Bound struct {
	Plan   Node
	Params []*vec.Param // typed placeholders (nil entries: never typed)
	// Untyped marks placeholders typed only by the select-list default
	// (SELECT ? is a VARCHAR unless the caller gives a type).
	Untyped map[int]bool
}

// binder binds one statement.
type binder struct {
	ctx    context.Context
	sess   Session
	stmt   *parse.Statement
	params []any // values when binding for execution; nil when preparing
	// paramList collects placeholders when preparing.
	paramList []*vec.Param
	steps     int
	marks     int
	ptypes    []arrow.DataType
	untyped   map[int]bool
	// cteIDs numbers the WITH definitions referenced (CTE.ID).
	cteIDs map[*parse.CTE]int
	// recs are the WITH RECURSIVE queries being bound (innermost last);
	// workIDs numbers their working tables (recursive.go).
	recs    []*recursion
	workIDs int
}

// maxBindSteps bounds the work of binding one statement.
const maxBindSteps = 5_000_000

func (b *binder) tick() error {
	b.steps++
	if b.steps&1023 == 0 {
		if err := b.ctx.Err(); err != nil {
			return err
		}
	}
	if b.steps > maxBindSteps {
		return invalidf("statement is too complex (more than %d expression nodes)", maxBindSteps)
	}
	return nil
}

// Bind binds a parsed query. params are the values of ? placeholders (nil
// when preparing: placeholders stay typed vec.Param nodes).
//
// types, when given, are the placeholder types found when preparing: bound
// values are converted to them (so a DATE parameter may be given as days).
func Bind(ctx context.Context, sess Session, stmt *parse.Statement, params []any, types ...arrow.DataType) (*Bound, error) {
	if stmt.Query == nil {
		return nil, invalidf("not a query")
	}
	b := &binder{ctx: ctx, sess: sess, stmt: stmt, params: params, ptypes: types}
	if err := b.checkCatalogs(); err != nil {
		return nil, err
	}
	n, err := b.query(stmt.Query, nil, nil)
	if err != nil {
		return nil, err
	}
	n = inlineSingleCTEs(n)
	return &Bound{Plan: n, Params: b.paramList, Untyped: b.untyped}, nil
}

func (b *binder) checkCatalogs() error {
	for _, c := range b.stmt.Catalog {
		if b.sess.CatalogName != "" && !eqName(c, b.sess.CatalogName) {
			return paimon.Errorf(catalog.ErrNotFound, "catalog %q does not exist (this server's catalog is %q)", c, b.sess.CatalogName)
		}
	}
	return nil
}

// cteID returns the id of a WITH definition (the same for each reference).
func (b *binder) cteID(def *parse.CTE) int {
	if b.cteIDs == nil {
		b.cteIDs = map[*parse.CTE]int{}
	}
	id, ok := b.cteIDs[def]
	if !ok {
		id = len(b.cteIDs) + 1
		b.cteIDs[def] = id
	}
	return id
}

// cteScope is the lexical chain of WITH names.
type cteScope struct {
	parent *cteScope
	defs   map[string]*parse.CTE
	// recursive: a WITH RECURSIVE list (each query sees every name).
	recursive bool
}

func (c *cteScope) lookup(name string) (*parse.CTE, *cteScope) {
	for s := c; s != nil; s = s.parent {
		if d, ok := s.defs[strings.ToLower(name)]; ok {
			return d, s
		}
	}
	return nil, nil
}

// query binds a query; outer is the enclosing scope for correlated
// subqueries (nil at the top).
func (b *binder) query(q *parse.Query, outer *scope, ctes *cteScope) (Node, error) {
	ctes, err := withScope(q, ctes)
	if err != nil {
		return nil, err
	}
	// A plain SELECT binds its ORDER BY/LIMIT itself (ORDER BY may use
	// columns that are not selected).
	if sel, ok := q.Body.(*parse.Select); ok {
		return b.selectQuery(sel.Select, q.OrderBy, q.Limit, outer, ctes)
	}
	n, err := b.body(q.Body, outer, ctes)
	if err != nil {
		return nil, err
	}
	return b.orderLimitByOutput(n, q.OrderBy, q.Limit)
}

func (b *binder) body(body parse.Body, outer *scope, ctes *cteScope) (Node, error) {
	switch x := body.(type) {
	case *parse.Select:
		return b.selectQuery(x.Select, nil, nil, outer, ctes)
	case *parse.Query:
		return b.query(x, outer, ctes)
	case *parse.SetOp:
		l, err := b.body(x.Left, outer, ctes)
		if err != nil {
			return nil, err
		}
		r, err := b.body(x.Right, outer, ctes)
		if err != nil {
			return nil, err
		}
		return setOp(x.Op, x.All, l, r)
	}
	return nil, unsupportedf("query form %T", body)
}

// setOp casts both inputs to common column types.
func setOp(op string, all bool, l, r Node) (Node, error) {
	ls, rs := l.Schema(), r.Schema()
	if len(ls) != len(rs) {
		return nil, invalidf("each %s query must have the same number of columns (%d vs %d)", op, len(ls), len(rs))
	}
	types := make([]arrow.DataType, len(ls))
	lcast, rcast := false, false
	for i := range ls {
		t, err := vec.CommonType(ls[i].Type, rs[i].Type)
		if err != nil {
			return nil, invalidf("%s column %d: %v", op, i+1, err)
		}
		if t.ID() == arrow.NULL {
			t = arrow.BinaryTypes.String
		}
		types[i] = t
		lcast = lcast || !arrow.TypeEqual(t, ls[i].Type)
		rcast = rcast || !arrow.TypeEqual(t, rs[i].Type)
	}
	var err error
	if lcast {
		if l, err = castNode(l, types); err != nil {
			return nil, err
		}
	}
	if rcast {
		if r, err = castNode(r, types); err != nil {
			return nil, err
		}
	}
	if op == "UNION" {
		// flatten UNION chains of the same kind
		var ins []Node
		for _, in := range []Node{l, r} {
			if s, ok := in.(*SetOp); ok && s.Op == "UNION" && s.All == all {
				ins = append(ins, s.Inputs...)
			} else {
				ins = append(ins, in)
			}
		}
		return &SetOp{Op: op, All: all, Inputs: ins}, nil
	}
	return &SetOp{Op: op, All: all, Inputs: []Node{l, r}}, nil
}

func castNode(n Node, types []arrow.DataType) (Node, error) {
	s := n.Schema()
	exprs := make([]vec.Expr, len(s))
	out := make(Schema, len(s))
	for i := range s {
		c, err := vec.ImplicitCast(s.Col(i), types[i])
		if err != nil {
			if c, err = vec.NewCast(s.Col(i), types[i]); err != nil {
				return nil, err
			}
		}
		exprs[i] = c
		out[i] = Field{Qual: s[i].Qual, Name: s[i].Name, Type: types[i], Nullable: s[i].Nullable}
	}
	return &Project{Input: n, Exprs: exprs, S: out}, nil
}

// orderLimitByOutput applies ORDER BY (by output name, ordinal or an
// expression over the output columns) and LIMIT to n.
func (b *binder) orderLimitByOutput(n Node, ob sqlparser.OrderBy, lim *sqlparser.Limit) (Node, error) {
	if len(ob) > 0 {
		sc := &scope{fields: n.Schema()}
		ec := &exprCtx{sc: sc, what: "ORDER BY"}
		keys := make([]exec.SortKey, len(ob))
		for i, o := range ob {
			var e vec.Expr
			if idx, ok := ordinal(o.Expr, len(sc.fields)); ok {
				e = sc.fields.Col(idx)
			} else {
				x, err := b.expr(ec, o.Expr)
				if err != nil {
					return nil, err
				}
				e = x
			}
			keys[i] = b.sortKey(o, e)
		}
		n = &Sort{Input: n, Keys: keys, Fetch: -1}
	}
	return b.limit(n, lim)
}

func (b *binder) sortKey(o *sqlparser.Order, e vec.Expr) exec.SortKey {
	// NULLs sort last in both directions unless asked otherwise (DuckDB).
	desc := o.Direction == sqlparser.DescScr
	k := exec.SortKey{Expr: e, Desc: desc, NullsFirst: false}
	if nf, ok := b.stmt.NullsFirst[o]; ok {
		k.NullsFirst = nf
	}
	return k
}

// ordinal recognises ORDER BY 2 / GROUP BY 1.
func ordinal(e sqlparser.Expr, n int) (int, bool) {
	v, ok := e.(*sqlparser.SQLVal)
	if !ok || v.Type != sqlparser.IntVal {
		return 0, false
	}
	var k int
	if _, err := fmt.Sscan(string(v.Val), &k); err != nil || k < 1 || k > n {
		return -1, true
	}
	return k - 1, true
}

func (b *binder) limit(n Node, lim *sqlparser.Limit) (Node, error) {
	if lim == nil {
		return n, nil
	}
	fetch, off := int64(-1), int64(0)
	var err error
	if lim.Rowcount != nil {
		if fetch, err = b.constInt(lim.Rowcount, "LIMIT"); err != nil {
			return nil, err
		}
	}
	if lim.Offset != nil {
		if off, err = b.constInt(lim.Offset, "OFFSET"); err != nil {
			return nil, err
		}
		off = max(off, 0) // OFFSET ? before binding

	}
	if s, ok := n.(*Sort); ok && fetch >= 0 && s.Fetch < 0 {
		s2 := *s
		s2.Fetch = fetch + off
		n = &s2
	}
	return &Limit{Input: n, Offset: off, Fetch: fetch}, nil
}

func (b *binder) constInt(e sqlparser.Expr, what string) (int64, error) {
	x, err := b.expr(&exprCtx{sc: &scope{}, what: what}, e)
	if err != nil {
		return 0, err
	}
	if p, ok := x.(*vec.Param); ok {
		// Planned without values (prepare): the parameter is a BIGINT and
		// the limit unknown (-1) until the statement is bound.
		if p.T == nil || p.T.ID() == arrow.NULL || p.T.ID() == arrow.STRING {
			p.T = arrow.PrimitiveTypes.Int64
		}
		if !vec.IsInteger(p.T) {
			return 0, invalidf("%s ? is bound to a %s, not an integer", what, vec.TypeName(p.T))
		}
		return -1, nil
	}
	x, err = vec.Fold(x)
	if err != nil {
		return 0, err
	}
	l, ok := x.(*vec.Literal)
	if !ok || !vec.IsInteger(l.Type()) || !l.Value.IsValid() {
		return 0, invalidf("%s needs a non-negative integer, got %s", what, sqlparser.String(e))
	}
	n, ok := scalarInt(l.Value)
	if !ok || n < 0 {
		return 0, invalidf("%s needs a non-negative integer, got %s", what, sqlparser.String(e))
	}
	return n, nil
}

// resolveTable finds a catalog table, with uniform messages and suggestions.
func (b *binder) resolveTable(tn sqlparser.TableName) (catalog.Table, string, error) {
	db := tn.Qualifier.String()
	if db == "" {
		db = b.sess.Database
	}
	cat := b.sess.Catalog
	if db == "" {
		db = cat.DefaultDatabase()
	}
	name := tn.Name.String()
	t, err := cat.GetTable(b.ctx, db, name)
	if err == nil {
		return t, db + "." + name, nil
	}
	if !errors.Is(err, catalog.ErrNotFound) {
		return nil, "", fmt.Errorf("table %s.%s: %w", db, name, err)
	}
	dbs, lerr := cat.ListDatabases(b.ctx)
	if lerr == nil && !slices.Contains(dbs, db) {
		return nil, "", paimon.Errorf(catalog.ErrNotFound, "database %q does not exist%s", db, catalog.DidYouMean(db, dbs))
	}
	if tabs, lerr := cat.ListTables(b.ctx, db); lerr == nil {
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
	// orders$snapshot: suggest the system table meant ($snapshots).
	if sn, ok := cat.(interface{ SystemTableNames() []string }); ok {
		if i := strings.LastIndex(name, "$"); i >= 0 {
			var cands []string
			for _, n := range sn.SystemTableNames() {
				cands = append(cands, "$"+n)
			}
			if hint := catalog.DidYouMean(strings.ToLower(name[i:]), cands); hint != "" {
				return nil, "", fmt.Errorf("%w%s", err, hint)
			}
		}
	}
	return nil, "", err
}

// BindWhere binds a WHERE condition over all columns of a table (DELETE).
func BindWhere(ctx context.Context, sess Session, stmt *parse.Statement, tbl catalog.Table, alias string, where sqlparser.Expr, params []any, types ...arrow.DataType) (vec.Expr, []*vec.Param, error) {
	b := &binder{ctx: ctx, sess: sess, stmt: stmt, params: params, ptypes: types}
	cols := make([]int, tbl.Schema().NumFields())
	for i := range cols {
		cols[i] = i
	}
	s := (&Scan{Table: tbl, Alias: alias, Columns: cols}).Schema()
	ec := &exprCtx{sc: &scope{fields: s}, what: "WHERE"}
	e, err := b.expr(ec, where)
	if err != nil {
		return nil, nil, err
	}
	if err := wantBool(e, "WHERE"); err != nil {
		return nil, nil, err
	}
	var ps []*vec.Param
	vec.Walk(e, func(x vec.Expr) bool {
		if p, ok := x.(*vec.Param); ok {
			ps = append(ps, p)
		}
		return true
	})
	return e, ps, nil
}

// BindScalar binds a scalar expression over the columns of tbl (UPDATE's
// SET values): no aggregates, window functions or subqueries. params and
// types work as for BindWhere; it returns the unbound parameters it holds.
func BindScalar(ctx context.Context, sess Session, stmt *parse.Statement, tbl catalog.Table, alias string, e sqlparser.Expr, what string, params []any, types ...arrow.DataType) (vec.Expr, []*vec.Param, error) {
	b := &binder{ctx: ctx, sess: sess, stmt: stmt, params: params, ptypes: types}
	cols := make([]int, tbl.Schema().NumFields())
	for i := range cols {
		cols[i] = i
	}
	s := (&Scan{Table: tbl, Alias: alias, Columns: cols}).Schema()
	ec := &exprCtx{sc: &scope{fields: s}, what: what}
	x, err := b.expr(ec, e)
	if err != nil {
		return nil, nil, err
	}
	var ps []*vec.Param
	vec.Walk(x, func(y vec.Expr) bool {
		if p, ok := y.(*vec.Param); ok {
			ps = append(ps, p)
		}
		return true
	})
	return x, ps, nil
}

// ResolveTable resolves a table name as FROM does.
func ResolveTable(ctx context.Context, sess Session, tn sqlparser.TableName) (catalog.Table, string, error) {
	b := &binder{ctx: ctx, sess: sess}
	return b.resolveTable(tn)
}

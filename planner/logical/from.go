package logical

import (
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/scalar"
	"github.com/xwb1989/sqlparser"

	"github.com/paimon-flightsql/paimon-flightsql/planner/exec"
	"github.com/paimon-flightsql/paimon-flightsql/planner/parse"
	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

func scalarInt(s scalar.Scalar) (int64, bool) {
	switch v := s.(type) {
	case *scalar.Int64:
		return v.Value, true
	case *scalar.Int32:
		return int64(v.Value), true
	case *scalar.Int16:
		return int64(v.Value), true
	case *scalar.Int8:
		return int64(v.Value), true
	case *scalar.Uint32:
		return int64(v.Value), true
	case *scalar.Uint16:
		return int64(v.Value), true
	case *scalar.Uint8:
		return int64(v.Value), true
	}
	return 0, false
}

// fromItem is one bound FROM element.
type fromItem struct {
	node  Node
	using map[string]int
}

// from binds the FROM clause into one relation (comma lists become cross
// joins; the optimizer turns WHERE equalities into join conditions).
func (b *binder) from(exprs sqlparser.TableExprs, outer *scope, ctes *cteScope) (*fromItem, error) {
	if len(exprs) == 0 {
		return &fromItem{node: &Values{Rows: [][]vec.Expr{{}}}}, nil
	}
	var cur *fromItem
	for _, te := range exprs {
		if at, ok := b.tableFnItem(te); ok && cur != nil {
			it, err := b.tableFuncJoin(cur, at)
			if err != nil {
				return nil, err
			}
			cur = it
			continue
		}
		if at, ok := b.lateralItem(te); ok && cur != nil {
			it, err := b.lateral(cur, at, exec.InnerJoin, nil, outer, ctes)
			if err != nil {
				return nil, err
			}
			cur = it
			continue
		}
		it, err := b.tableExpr(te, outer, ctes)
		if err != nil {
			return nil, err
		}
		if cur == nil {
			cur = it
			continue
		}
		cur = &fromItem{node: &Join{Left: cur.node, Right: it.node, Type: exec.InnerJoin}, using: mergeUsing(cur, it)}
	}
	return cur, nil
}

func mergeUsing(l, r *fromItem) map[string]int {
	if l.using == nil && r.using == nil {
		return nil
	}
	out := map[string]int{}
	for k, v := range l.using {
		out[k] = v
	}
	off := len(l.node.Schema())
	for k, v := range r.using {
		out[k] = v + off
	}
	return out
}

func (b *binder) tableExpr(te sqlparser.TableExpr, outer *scope, ctes *cteScope) (*fromItem, error) {
	if err := b.tick(); err != nil {
		return nil, err
	}
	switch x := te.(type) {
	case *sqlparser.AliasedTableExpr:
		return b.aliasedTable(x, outer, ctes)
	case *sqlparser.ParenTableExpr:
		return b.from(x.Exprs, outer, ctes)
	case *sqlparser.JoinTableExpr:
		return b.join(x, outer, ctes)
	}
	return nil, unsupportedf("FROM item %s", sqlparser.String(te))
}

func (b *binder) aliasedTable(x *sqlparser.AliasedTableExpr, outer *scope, ctes *cteScope) (*fromItem, error) {
	if _, ok := b.stmt.TableFuncs[x]; ok {
		return b.tableFunc(nil, x)
	}
	alias := x.As.String()
	var n Node
	switch t := x.Expr.(type) {
	case *sqlparser.Subquery:
		if alias == "" {
			return nil, invalidf("a subquery in FROM needs an alias")
		}
		var err error
		if n, err = b.query(queryOf(t.Select), nil, ctes); err != nil {
			return nil, err
		}
	case sqlparser.TableName:
		name := t.Name.String()
		if alias == "" {
			alias = name
		}
		if t.Qualifier.IsEmpty() {
			if idx, ok := subqueryIndex(name); ok && idx < len(b.stmt.Subqueries) {
				var err error
				if n, err = b.query(b.stmt.Subqueries[idx], nil, ctes); err != nil {
					return nil, err
				}
				break
			}
			if strings.EqualFold(name, "dual") {
				n = &Values{Rows: [][]vec.Expr{{}}}
				break
			}
			if def, defScope := ctes.lookup(name); def != nil {
				var work bool
				var err error
				if n, work, err = b.cteRef(x, def, defScope); err != nil {
					return nil, err
				}
				if !work {
					n = &CTE{ID: b.cteID(def), Name: def.Name, Input: n}
				}
				break
			}
		}
		tbl, full, err := b.resolveTable(t)
		if err != nil {
			return nil, err
		}
		cols := make([]int, tbl.Schema().NumFields())
		for i := range cols {
			cols[i] = i
		}
		opts := map[string]string{}
		for k, v := range b.sess.Options {
			opts[k] = v
		}
		for k, v := range b.stmt.Hints[x] {
			opts[k] = v
		}
		n = &Scan{Table: tbl, Name: full, Alias: alias, Columns: cols, Limit: -1, Options: opts}
	default:
		return nil, unsupportedf("FROM item %s", sqlparser.String(x))
	}
	if cols, ok := b.stmt.DerivedColumns[x]; ok {
		var err error
		if n, err = renameColumns(n, cols, alias); err != nil {
			return nil, err
		}
	}
	return &fromItem{node: requalify(n, alias)}, nil
}

// ctesBefore returns the CTE scope a definition sees: the names defined
// before it in its own WITH list, and the enclosing scopes.
func ctesBefore(s *cteScope, def *parse.CTE) *cteScope {
	if s == nil {
		return nil
	}
	ns := &cteScope{parent: s.parent, defs: map[string]*parse.CTE{}}
	for k, d := range s.defs {
		if d != def {
			ns.defs[k] = d
		}
	}
	// Drop names defined after def: we do not know the order from the map,
	// so a self-reference is the only thing removed (WITH RECURSIVE lists
	// bind through recursiveCTE instead).
	return ns
}

// requalify sets the qualifier of every output field to alias.
func requalify(n Node, alias string) Node {
	if alias == "" {
		return n
	}
	if s, ok := n.(*Scan); ok {
		cp := *s
		cp.Alias = alias
		return &cp
	}
	s := n.Schema()
	need := false
	for _, f := range s {
		if f.Qual != alias {
			need = true
		}
	}
	if !need {
		return n
	}
	exprs := make([]vec.Expr, len(s))
	out := make(Schema, len(s))
	for i, f := range s {
		exprs[i] = s.Col(i)
		f.Qual = alias
		f.Hidden = false
		out[i] = f
	}
	return &Project{Input: n, Exprs: exprs, S: out}
}

func renameColumns(n Node, names []string, alias string) (Node, error) {
	s := n.Schema()
	if len(names) > len(s) {
		return nil, invalidf("%s has %d columns but %d names were given", alias, len(s), len(names))
	}
	exprs := make([]vec.Expr, len(s))
	out := make(Schema, len(s))
	for i, f := range s {
		exprs[i] = s.Col(i)
		if i < len(names) {
			f.Name = names[i]
		}
		out[i] = f
	}
	return &Project{Input: n, Exprs: exprs, S: out}, nil
}

func (b *binder) join(x *sqlparser.JoinTableExpr, outer *scope, ctes *cteScope) (*fromItem, error) {
	l, err := b.tableExpr(x.LeftExpr, outer, ctes)
	if err != nil {
		return nil, err
	}
	if it, ok, err := b.tableFuncRight(l, x, outer); ok || err != nil {
		return it, err
	}
	if at, ok := b.lateralItem(x.RightExpr); ok {
		if len(x.Condition.Using) > 0 {
			return nil, unsupportedf("JOIN LATERAL ... USING")
		}
		jt := exec.InnerJoin
		switch x.Join {
		case sqlparser.JoinStr, sqlparser.StraightJoinStr:
			return b.lateral(l, at, jt, x.Condition.On, outer, ctes)
		case sqlparser.LeftJoinStr:
			return b.lateral(l, at, exec.LeftJoin, x.Condition.On, outer, ctes)
		}
		if outer != nil {
			// inside a subquery a name of the left side could resolve to
			// an enclosing query instead: refuse rather than guess
			return nil, unsupportedf("%s LATERAL inside a subquery", strings.ToUpper(x.Join))
		}
	}
	r, err := b.tableExpr(x.RightExpr, outer, ctes)
	if err != nil {
		if _, ok := b.lateralItem(x.RightExpr); ok {
			// RIGHT/FULL JOIN LATERAL at the top level: only a subquery
			// that does not read the left side (a plain derived table),
			// as DuckDB
			return nil, unsupportedf("%s LATERAL whose subquery reads the left side (%v)", strings.ToUpper(x.Join), err)
		}
		return nil, err
	}
	var jt exec.JoinType
	natural := false
	switch x.Join {
	case sqlparser.JoinStr, sqlparser.StraightJoinStr:
		jt = exec.InnerJoin
	case sqlparser.LeftJoinStr:
		jt = exec.LeftJoin
	case sqlparser.RightJoinStr:
		jt = exec.RightJoin
	case parse.FullJoinStr:
		jt = exec.FullJoin
	case sqlparser.NaturalJoinStr:
		jt, natural = exec.InnerJoin, true
	case sqlparser.NaturalLeftJoinStr:
		jt, natural = exec.LeftJoin, true
	case sqlparser.NaturalRightJoinStr:
		jt, natural = exec.RightJoin, true
	default:
		return nil, unsupportedf("join %q", x.Join)
	}
	ls, rs := l.node.Schema(), r.node.Schema()
	joined := &Join{Left: l.node, Right: r.node, Type: jt}
	all := joined.Schema()
	sc := &scope{fields: all, outer: outer, using: mergeUsing(l, r)}
	var using []string
	if natural {
		for _, lf := range ls {
			if lf.Hidden {
				continue
			}
			for _, rf := range rs {
				if !rf.Hidden && eqName(lf.Name, rf.Name) {
					using = append(using, lf.Name)
				}
			}
		}
	}
	for _, c := range x.Condition.Using {
		using = append(using, c.String())
	}
	var conds []vec.Expr
	usingMap := sc.using
	var coalesce []usingCol
	for _, name := range using {
		li, err := (&scope{fields: ls}).resolve("", name)
		if err != nil {
			return nil, err
		}
		ri, err := (&scope{fields: rs}).resolve("", name)
		if err != nil {
			return nil, err
		}
		if li < 0 || ri < 0 {
			return nil, invalidf("USING column %q is not on both sides of the join", name)
		}
		lc, rc := all.Col(li), all.Col(len(ls)+ri)
		eq, err := vec.NewCompare("=", lc, rc)
		if err != nil {
			return nil, err
		}
		conds = append(conds, eq)
		if usingMap == nil {
			usingMap = map[string]int{}
		}
		pick := li
		if jt == exec.RightJoin {
			pick = len(ls) + ri
		}
		usingMap[strings.ToLower(name)] = pick
		if jt == exec.FullJoin {
			coalesce = append(coalesce, usingCol{name: name, l: li, r: len(ls) + ri})
		}
	}
	if x.Condition.On != nil {
		rel := &relation{node: joined}
		ec := &exprCtx{sc: sc, rel: nil, what: "ON"}
		_ = rel
		on, err := b.expr(ec, x.Condition.On)
		if err != nil {
			return nil, err
		}
		if err := wantBool(on, "ON"); err != nil {
			return nil, err
		}
		conds = append(conds, on)
	}
	if len(conds) > 0 {
		on, err := andAll(conds)
		if err != nil {
			return nil, err
		}
		joined.On = on
	}
	var out Node = joined
	if len(coalesce) > 0 {
		// FULL JOIN ... USING: the merged column is COALESCE(l.c, r.c).
		s := joined.Schema()
		exprs := make([]vec.Expr, len(s))
		fields := append(Schema{}, s...)
		for i := range s {
			exprs[i] = s.Col(i)
		}
		for _, u := range coalesce {
			c, err := vec.NewCall("COALESCE", []vec.Expr{s.Col(u.l), s.Col(u.r)})
			if err != nil {
				return nil, err
			}
			exprs = append(exprs, c)
			fields = append(fields, Field{Name: s[u.l].Name, Type: c.Type(), Nullable: c.Nullable()})
			fields[u.l].Hidden, fields[u.r].Hidden = true, true
			usingMap[strings.ToLower(u.name)] = len(fields) - 1
		}
		out = &Project{Input: joined, Exprs: exprs, S: fields}
	}
	// USING columns of the right side are not expanded by *.
	if len(using) > 0 && jt != exec.FullJoin {
		out = hideUsing(out, using, ls, rs, jt)
	}
	return &fromItem{node: out, using: usingMap}, nil
}

type usingCol struct {
	name string
	l, r int
}

// hideUsing marks the duplicate side of USING columns hidden for *.
func hideUsing(n Node, using []string, ls, rs Schema, jt exec.JoinType) Node {
	s := n.Schema()
	exprs := make([]vec.Expr, len(s))
	out := append(Schema{}, s...)
	for i := range s {
		exprs[i] = s.Col(i)
	}
	for _, name := range using {
		if jt == exec.RightJoin {
			if li, _ := (&scope{fields: ls}).resolve("", name); li >= 0 {
				out[li].Hidden = true
			}
		} else if ri, _ := (&scope{fields: rs}).resolve("", name); ri >= 0 {
			out[len(ls)+ri].Hidden = true
		}
	}
	return &Project{Input: n, Exprs: exprs, S: out}
}

func wantBool(e vec.Expr, what string) error {
	if t := e.Type(); t.ID() != arrow.BOOL && t.ID() != arrow.NULL {
		return invalidf("%s needs a BOOLEAN condition, got %s (%s)", what, vec.TypeName(t), e.String())
	}
	return nil
}

func andAll(es []vec.Expr) (vec.Expr, error) {
	if len(es) == 1 {
		return es[0], nil
	}
	return vec.NewAnd(es...)
}

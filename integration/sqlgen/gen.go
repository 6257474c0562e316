package sqlgen

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"
)

// timeOfDay is a time of day on the quarter hours the data uses, so that
// TIMESTAMP literals sometimes equal values.
func timeOfDay(g *Generator) time.Duration {
	return time.Duration(g.n(24))*time.Hour + time.Duration(g.n(4))*15*time.Minute
}

// Features switches parts of the generated SQL on and off, so that the
// mix can be narrowed while an engine grows. AllFeatures is the full mix.
type Features struct {
	Joins       bool // 2-4 table joins (INNER)
	OuterJoins  bool // LEFT / RIGHT / FULL
	CrossJoins  bool
	Using       bool // JOIN ... USING (...)
	JoinExtras  bool // ON with extra non-equality conditions
	Subqueries  bool // IN / NOT IN / EXISTS / NOT EXISTS (uncorrelated)
	Correlated  bool // correlated EXISTS / IN / scalar subqueries
	Scalar      bool // scalar subqueries
	Quantified  bool // x op ANY|SOME|ALL (subquery), correlated or not
	CorrNonEqui bool // correlations with non-equality conditions; scalar subqueries over expressions of aggregates
	Derived     bool // derived tables in FROM
	GroupBy     bool // GROUP BY with COUNT/SUM/MIN/MAX/AVG
	Having      bool
	CountDist   bool // COUNT(DISTINCT ...)
	Distinct    bool // SELECT DISTINCT
	SetOps      bool // UNION [ALL] / INTERSECT / EXCEPT
	Windows     bool // ROW_NUMBER / RANK / DENSE_RANK / SUM / COUNT OVER
	OrderBy     bool // ORDER BY (all output columns or some) [+ LIMIT/OFFSET]
	NullsOrder  bool // explicit NULLS FIRST / LAST in ORDER BY (else the engines' defaults must agree)
	Case        bool
	Coalesce    bool
	Like        bool
	Between     bool
	InList      bool
	IsNull      bool
	Arithmetic  bool // + - * on ints, decimals and doubles
	Decimals    bool // DECIMAL columns
	Floats      bool // DOUBLE columns
	Dates       bool // DATE and TIMESTAMP columns
	Booleans    bool // BOOLEAN columns
	Strings     bool // STRING columns
	Disjunction bool // OR and NOT
}

// AllFeatures is the full mix.
func AllFeatures() Features {
	return Features{Joins: true, OuterJoins: true, CrossJoins: true, Using: true, JoinExtras: true,
		Subqueries: true, Correlated: true, Scalar: true, Quantified: true, CorrNonEqui: true, Derived: true, GroupBy: true, Having: true,
		CountDist: true, Distinct: true, SetOps: true, Windows: true, OrderBy: true, NullsOrder: true,
		Case: true, Coalesce: true, Like: true, Between: true, InList: true, IsNull: true,
		Arithmetic: true, Decimals: true, Floats: true, Dates: true, Booleans: true, Strings: true, Disjunction: true}
}

// Query is one generated query and how its results must be compared.
type Query struct {
	SQL  string
	Spec Spec
}

// Generator produces random queries over Tables. It is deterministic for
// a seed (and Features).
type Generator struct {
	F      Features
	rng    *rand.Rand
	tables []Table
	alias  int
	// baseFirst: the first FROM item is a base table (USING needs both
	// sides to have the columns).
	baseFirst bool
}

// NewGenerator returns a generator of queries over tables.
func NewGenerator(seed uint64, f Features, tables []Table) *Generator {
	return &Generator{F: f, rng: rand.New(rand.NewPCG(seed, 0x5eed)), tables: tables}
}

// ref is a column visible in a scope.
type ref struct {
	expr string // qualified name: x1.k
	col  Column
	name string // unqualified column name
}

type scope struct {
	refs    []ref
	aliases []string // table aliases, in FROM order
}

func (s *scope) of(t Type) []ref {
	var out []ref
	for _, r := range s.refs {
		if r.col.Type == t {
			out = append(out, r)
		}
	}
	return out
}

func (g *Generator) n(k int) int        { return g.rng.IntN(k) }
func (g *Generator) p(pct int) bool     { return g.rng.IntN(100) < pct }
func (g *Generator) newAlias() string   { g.alias++; return fmt.Sprintf("x%d", g.alias) }
func pick[T any](g *Generator, s []T) T { return s[g.rng.IntN(len(s))] }

// types usable under the features.
func (g *Generator) types() []Type {
	ts := []Type{TInt}
	if g.F.Decimals {
		ts = append(ts, TDec)
	}
	if g.F.Floats {
		ts = append(ts, TFloat)
	}
	if g.F.Strings {
		ts = append(ts, TStr)
	}
	if g.F.Dates {
		ts = append(ts, TDate, TTs)
	}
	if g.F.Booleans {
		ts = append(ts, TBool)
	}
	return ts
}

func (g *Generator) allowed(c Column) bool {
	switch c.Type {
	case TDec:
		return g.F.Decimals
	case TFloat:
		return g.F.Floats
	case TStr:
		return g.F.Strings
	case TDate, TTs:
		return g.F.Dates
	case TBool:
		return g.F.Booleans
	}
	return true
}

func (g *Generator) tableScope(t Table, alias string) []ref {
	var out []ref
	for _, c := range t.Cols {
		if g.allowed(c) {
			out = append(out, ref{expr: alias + "." + c.Name, col: c, name: c.Name})
		}
	}
	return out
}

// ---- literals -----------------------------------------------------------

func (g *Generator) lit(c Column) string {
	switch c.Type {
	case TInt:
		lo, hi := c.Lo, c.Hi
		if hi-lo > 2000 {
			hi = lo + 2000
		}
		return fmt.Sprint(lo - 2 + g.rng.Int64N(hi-lo+5))
	case TDec:
		v := c.Lo + g.rng.Int64N(c.Hi-c.Lo+1)
		sign := ""
		if v < 0 {
			sign, v = "-", -v
		}
		return fmt.Sprintf("%s%d.%02d", sign, v/100, v%100)
	case TFloat:
		return fmt.Sprintf("%g", float64(c.Lo+g.rng.Int64N(c.Hi-c.Lo+1))/4)
	case TStr:
		if g.p(10) {
			return "'q'"
		}
		return "'" + strings.ReplaceAll(pick(g, strDomain), "'", "''") + "'"
	case TDate:
		return "DATE '" + BaseDate.AddDate(0, 0, g.n(dateDays+4)-2).Format("2006-01-02") + "'"
	case TTs:
		t := BaseDate.AddDate(0, 0, g.n(dateDays)).Add(timeOfDay(g))
		return "TIMESTAMP '" + t.Format("2006-01-02 15:04:05") + "'"
	case TBool:
		return pick(g, []string{"TRUE", "FALSE"})
	}
	panic("lit")
}

func (g *Generator) litOf(t Type) string {
	switch t {
	case TInt:
		return g.lit(Column{Type: TInt, Lo: -50, Hi: 100})
	case TDec:
		return g.lit(Column{Type: TDec, Lo: -100000, Hi: 100000})
	case TFloat:
		return g.lit(Column{Type: TFloat, Lo: -2000, Hi: 2000})
	}
	return g.lit(Column{Type: t})
}

// ---- scalar expressions ---------------------------------------------------

// expr is an expression of type t over sc (depth bounds nesting).
func (g *Generator) expr(sc *scope, t Type, depth int) string {
	refs := sc.of(t)
	if len(refs) == 0 || depth <= 0 {
		if len(refs) > 0 && g.p(80) {
			return pick(g, refs).expr
		}
		return g.litOf(t)
	}
	switch r := g.n(10); {
	case r < 5:
		return pick(g, refs).expr
	case r < 7 && g.F.Arithmetic && (t == TInt || t == TDec || t == TFloat):
		a := g.expr(sc, t, depth-1)
		switch g.n(4) {
		case 0:
			return "(" + a + " + " + g.expr(sc, t, depth-1) + ")"
		case 1:
			return "(" + a + " - " + g.expr(sc, t, depth-1) + ")"
		case 2:
			return "(" + a + " * " + fmt.Sprint(g.n(5)-2) + ")"
		default:
			return "(-(" + a + "))"
		}
	case r < 8 && g.F.Case:
		return "CASE WHEN " + g.pred(sc, depth-1) + " THEN " + g.expr(sc, t, depth-1) + " ELSE " + g.expr(sc, t, depth-1) + " END"
	case r < 9 && g.F.Coalesce:
		return "COALESCE(" + pick(g, refs).expr + ", " + g.expr(sc, t, depth-1) + ")"
	case g.F.Scalar && t == TInt && depth >= 2 && g.p(40):
		return g.scalarSubquery(sc)
	}
	return pick(g, refs).expr
}

// pred is a boolean condition over sc.
func (g *Generator) pred(sc *scope, depth int) string {
	if depth > 0 {
		switch r := g.n(12); {
		case r < 2:
			return "(" + g.pred(sc, depth-1) + " AND " + g.pred(sc, depth-1) + ")"
		case r < 4 && g.F.Disjunction:
			return "(" + g.pred(sc, depth-1) + " OR " + g.pred(sc, depth-1) + ")"
		case r < 5 && g.F.Disjunction:
			return "NOT (" + g.pred(sc, depth-1) + ")"
		case r < 7 && (g.F.Subqueries || g.F.Correlated):
			return g.subqueryPred(sc)
		}
	}
	return g.atom(sc, depth)
}

// atom is one comparison-like condition.
func (g *Generator) atom(sc *scope, depth int) string {
	if len(sc.refs) == 0 {
		return "1 = 1"
	}
	r := pick(g, sc.refs)
	c := r.col
	if c.Type == TBool {
		switch g.n(4) {
		case 0:
			return r.expr
		case 1:
			if g.F.Disjunction {
				return "NOT " + r.expr
			}
		case 2:
			if g.F.IsNull {
				return r.expr + pick(g, []string{" IS NULL", " IS NOT NULL"})
			}
		}
		return r.expr + " = " + g.lit(c)
	}
	switch k := g.n(10); {
	case k < 1 && g.F.IsNull:
		return r.expr + pick(g, []string{" IS NULL", " IS NOT NULL"})
	case k < 2 && g.F.Between && c.Type != TStr:
		a, b := g.lit(c), g.lit(c)
		not := ""
		if g.F.Disjunction && g.p(20) {
			not = "NOT "
		}
		return r.expr + " " + not + "BETWEEN " + a + " AND " + b
	case k < 3 && g.F.InList:
		var vals []string
		for range 1 + g.n(4) {
			vals = append(vals, g.lit(c))
		}
		not := ""
		if g.F.Disjunction && g.p(30) {
			not = "NOT "
		}
		return r.expr + " " + not + "IN (" + strings.Join(vals, ", ") + ")"
	case k < 4 && g.F.Like && c.Type == TStr:
		pat := pick(g, []string{"a%", "%b%", "%c", "_b%", "%", "a_", "b%c", "%a%b%", "A%"})
		not := ""
		if g.F.Disjunction && g.p(25) {
			not = "NOT "
		}
		return r.expr + " " + not + "LIKE '" + pat + "'"
	case k < 6:
		// column against column of the same type
		others := sc.of(c.Type)
		return g.expr(sc, c.Type, depth-1) + " " + g.cmp() + " " + pick(g, others).expr
	}
	return g.expr(sc, c.Type, depth-1) + " " + g.cmp() + " " + g.lit(c)
}

func (g *Generator) cmp() string { return pick(g, []string{"=", "<>", "<", "<=", ">", ">="}) }

// ---- subqueries -----------------------------------------------------------

func (g *Generator) subTable() (Table, string, *scope) {
	t := pick(g, g.tables)
	a := g.newAlias()
	return t, a, &scope{refs: g.tableScope(t, a), aliases: []string{a}}
}

// subqueryPred is IN / NOT IN / EXISTS / NOT EXISTS, correlated or not.
func (g *Generator) subqueryPred(outer *scope) string {
	if g.F.Quantified && g.p(25) {
		return g.quantifiedPred(outer)
	}
	t, a, inner := g.subTable()
	corr := g.F.Correlated && (!g.F.Subqueries || g.p(50))
	where := ""
	if g.p(60) {
		where = g.pred(inner, 1)
	}
	if corr {
		// correlate on a shared key
		o := g.keyRef(outer)
		if o != nil {
			c := a + "." + pick(g, []string{"k", "k2", "id"}) + " = " + o.expr
			if where != "" {
				where = c + " AND " + where
			} else {
				where = c
			}
		}
		if c := g.nonEquiCorr(outer, a); c != "" {
			if where != "" {
				where = c + " AND " + where
			} else {
				where = c
			}
		}
	}
	wh := ""
	if where != "" {
		wh = " WHERE " + where
	}
	if g.p(50) {
		not := ""
		if g.p(40) && g.F.Disjunction {
			not = "NOT "
		}
		return not + "EXISTS (SELECT 1 FROM " + t.Name + " " + a + wh + ")"
	}
	// IN: the outer expression against an inner column of the same type
	typ := TInt
	if g.F.Strings && g.p(25) {
		typ = TStr
	}
	outs := outer.of(typ)
	ins := inner.of(typ)
	if len(outs) == 0 || len(ins) == 0 {
		return "EXISTS (SELECT 1 FROM " + t.Name + " " + a + wh + ")"
	}
	not := ""
	if g.p(40) && g.F.Disjunction {
		not = "NOT "
	}
	return pick(g, outs).expr + " " + not + "IN (SELECT " + pick(g, ins).expr + " FROM " + t.Name + " " + a + wh + ")"
}

// nonEquiCorr is, sometimes, a non-equality correlation a.i op outer_int
// ("" otherwise or without the feature).
func (g *Generator) nonEquiCorr(outer *scope, a string) string {
	if !g.F.CorrNonEqui || !g.p(35) {
		return ""
	}
	outs := outer.of(TInt)
	if len(outs) == 0 {
		return ""
	}
	return a + "." + pick(g, []string{"i", "k2", "id"}) + " " + pick(g, []string{"<", "<=", ">", ">=", "<>"}) + " " + pick(g, outs).expr
}

// quantifiedPred is x op ANY|SOME|ALL (SELECT y FROM t a [WHERE ...]),
// sometimes correlated.
func (g *Generator) quantifiedPred(outer *scope) string {
	t, a, inner := g.subTable()
	var conds []string
	if g.F.Correlated && g.p(50) {
		if o := g.keyRef(outer); o != nil {
			conds = append(conds, a+"."+pick(g, []string{"k", "k2"})+" = "+o.expr)
		}
		if c := g.nonEquiCorr(outer, a); c != "" {
			conds = append(conds, c)
		}
	}
	if g.p(50) {
		conds = append(conds, g.atom(inner, 0))
	}
	wh := ""
	if len(conds) > 0 {
		wh = " WHERE " + strings.Join(conds, " AND ")
	}
	outs, ins := outer.of(TInt), inner.of(TInt)
	if len(outs) == 0 || len(ins) == 0 {
		return "EXISTS (SELECT 1 FROM " + t.Name + " " + a + wh + ")"
	}
	op := pick(g, []string{"=", "<>", "<", "<=", ">", ">="})
	q := pick(g, []string{"ANY", "SOME", "ALL"})
	not := ""
	if g.F.Disjunction && g.p(25) {
		not = "NOT "
	}
	return not + "(" + pick(g, outs).expr + " " + op + " " + q + " (SELECT " + pick(g, ins).expr + " FROM " + t.Name + " " + a + wh + "))"
}

// keyRef is a join-key column of sc (k, k2 or id), or nil.
func (g *Generator) keyRef(sc *scope) *ref {
	var ks []ref
	for _, r := range sc.refs {
		if r.name == "k" || r.name == "k2" || r.name == "id" {
			ks = append(ks, r)
		}
	}
	if len(ks) == 0 {
		return nil
	}
	r := pick(g, ks)
	return &r
}

// scalarSubquery is an aggregate subquery returning one INT-class value.
func (g *Generator) scalarSubquery(outer *scope) string {
	t, a, inner := g.subTable()
	var conds []string
	if g.F.Correlated && g.p(70) {
		if o := g.keyRef(outer); o != nil {
			conds = append(conds, a+"."+pick(g, []string{"k", "k2"})+" = "+o.expr)
		}
		if c := g.nonEquiCorr(outer, a); c != "" {
			conds = append(conds, c)
		}
	}
	if g.p(40) {
		conds = append(conds, g.atom(inner, 0))
	}
	wh := ""
	if len(conds) > 0 {
		wh = " WHERE " + strings.Join(conds, " AND ")
	}
	agg := pick(g, []string{"COUNT(*)", "MAX(" + a + ".i)", "MIN(" + a + ".b)", "SUM(" + a + ".k2)", "COUNT(" + a + ".i)"})
	if g.F.CorrNonEqui && g.p(25) {
		// the value over no rows is not NULL (the COUNT bug, generalised)
		agg = pick(g, []string{"COUNT(*) + 1", "COALESCE(SUM(" + a + ".k2), 0)", "COUNT(" + a + ".i) * 2"})
	}
	return "(SELECT " + agg + " FROM " + t.Name + " " + a + wh + ")"
}

// ---- FROM -----------------------------------------------------------------

// from builds a FROM clause with 1-4 tables; extra holds WHERE conjuncts
// it requires (CROSS JOIN bounds).
func (g *Generator) from() (string, *scope, []string) {
	sc := &scope{}
	var extra []string
	n := 1
	if g.F.Joins || g.F.OuterJoins || g.F.CrossJoins {
		n = pick(g, []int{1, 1, 2, 2, 2, 3, 3, 4})
	}
	var sb strings.Builder
	for i := 0; i < n; i++ {
		item, refs, alias, tbl := g.fromItem(i == 0)
		if i == 0 {
			sb.WriteString(item)
			sc.refs = append(sc.refs, refs...)
			sc.aliases = append(sc.aliases, alias)
			continue
		}
		kind := g.joinKind(tbl)
		if kind == "CROSS JOIN" {
			// only small: the smallest table bounded by id
			item, refs, alias = g.boundedItem(g.tables[len(g.tables)-1], 1+g.n(4))
			fmt.Fprintf(&sb, " CROSS JOIN %s", item)
			sc.refs = append(sc.refs, refs...)
			sc.aliases = append(sc.aliases, alias)
			continue
		}
		if g.F.Using && i == 1 && tbl && len(sc.aliases) == 1 && g.baseFirst && g.p(25) {
			cols := pick(g, [][]string{{"k"}, {"k2"}, {"k", "k2"}, {"id"}})
			fmt.Fprintf(&sb, " %s %s USING (%s)", kind, item, strings.Join(cols, ", "))
			sc.refs = append(sc.refs, refs...)
			sc.aliases = append(sc.aliases, alias)
			continue
		}
		// ON: an equality with an earlier table, maybe more conditions
		left := g.keyRefOf(sc, i)
		var right ref
		var rks []ref
		for _, r := range refs {
			if r.name == "k" || r.name == "id" || (r.name == "k2" && i == 1) {
				rks = append(rks, r)
			}
		}
		right = pick(g, rks)
		if left.name == "k2" && right.name != "k2" {
			left = g.onKey(sc, "k")
		}
		if right.name == "k2" && left.name != "k2" {
			right = findRef(refs, "k")
		}
		on := left.expr + " = " + right.expr
		if g.F.JoinExtras && g.p(35) {
			both := &scope{refs: append(append([]ref(nil), sc.refs...), refs...)}
			on += " AND " + g.atom(both, 1)
		}
		fmt.Fprintf(&sb, " %s %s ON %s", kind, item, on)
		sc.refs = append(sc.refs, refs...)
		sc.aliases = append(sc.aliases, alias)
	}
	return sb.String(), sc, extra
}

func findRef(refs []ref, name string) ref {
	for _, r := range refs {
		if r.name == name {
			return r
		}
	}
	return refs[0]
}

// keyRefOf picks the left side of join i: k, or id only of small tables,
// k2 only for the first join (bounded fan-out).
func (g *Generator) keyRefOf(sc *scope, i int) ref {
	var ks []ref
	for _, r := range sc.refs {
		if r.name == "k" || r.name == "id" || (r.name == "k2" && i == 1) {
			ks = append(ks, r)
		}
	}
	if len(ks) == 0 {
		return sc.refs[0]
	}
	return pick(g, ks)
}

func (g *Generator) onKey(sc *scope, name string) ref {
	var ks []ref
	for _, r := range sc.refs {
		if r.name == name {
			ks = append(ks, r)
		}
	}
	if len(ks) == 0 {
		return sc.refs[0]
	}
	return pick(g, ks)
}

func (g *Generator) joinKind(base bool) string {
	var kinds []string
	if g.F.Joins {
		kinds = append(kinds, "JOIN", "INNER JOIN", "JOIN")
	}
	if g.F.OuterJoins {
		kinds = append(kinds, "LEFT JOIN", "LEFT OUTER JOIN", "RIGHT JOIN", "FULL JOIN", "FULL OUTER JOIN")
	}
	if g.F.CrossJoins {
		kinds = append(kinds, "CROSS JOIN")
	}
	if len(kinds) == 0 {
		return "JOIN"
	}
	return pick(g, kinds)
}

// fromItem is a base table or (Derived) a derived table.
func (g *Generator) fromItem(first bool) (item string, refs []ref, alias string, base bool) {
	if g.F.Derived && g.p(15) {
		item, refs, alias = g.derived()
		if first {
			g.baseFirst = false
		}
		return item, refs, alias, false
	}
	item, refs, alias, base = g.baseItem(pick(g, g.tables))
	if first {
		g.baseFirst = true
	}
	return
}

// boundedItem is (SELECT columns FROM t WHERE id <= n): at most n rows.
func (g *Generator) boundedItem(t Table, n int) (string, []ref, string) {
	ia, a := g.newAlias(), g.newAlias()
	var cols []string
	var refs []ref
	for _, r := range g.tableScope(t, a) {
		cols = append(cols, ia+"."+r.name+" AS "+r.name)
		refs = append(refs, r)
	}
	return fmt.Sprintf("(SELECT %s FROM %s %s WHERE %s.id <= %d) AS %s", strings.Join(cols, ", "), t.Name, ia, ia, n, a), refs, a
}

func (g *Generator) baseItem(t Table) (string, []ref, string, bool) {
	a := g.newAlias()
	return t.Name + " AS " + a, g.tableScope(t, a), a, true
}

// derived is a derived table: a filtered projection or a grouped
// aggregate, exposing k (and id for projections).
func (g *Generator) derived() (string, []ref, string) {
	t, ia, inner := g.subTable()
	a := g.newAlias()
	var cols []string
	var refs []ref
	add := func(expr, name string, c Column) {
		cols = append(cols, expr+" AS "+name)
		c.Name = name
		refs = append(refs, ref{expr: a + "." + name, col: c, name: name})
	}
	where := ""
	if g.p(60) {
		where = " WHERE " + g.pred(inner, 1)
	}
	if g.F.GroupBy && g.p(50) {
		key := findRef(inner.refs, "k")
		add(key.expr, "k", key.col)
		add("COUNT(*)", "cnt", Column{Type: TInt, Lo: 0, Hi: 30})
		add("SUM("+ia+".i)", "si", Column{Type: TInt, Lo: -200, Hi: 200, NullPct: 10})
		if g.F.Strings {
			add("MAX("+ia+".s)", "ms", Column{Type: TStr, NullPct: 10})
		}
		return fmt.Sprintf("(SELECT %s FROM %s %s%s GROUP BY %s) AS %s", strings.Join(cols, ", "), t.Name, ia, where, key.expr, a), refs, a
	}
	for _, r := range inner.refs {
		if r.name == "id" || r.name == "k" || r.name == "k2" || g.p(50) {
			add(r.expr, r.name, r.col)
		}
	}
	return fmt.Sprintf("(SELECT %s FROM %s %s%s) AS %s", strings.Join(cols, ", "), t.Name, ia, where, a), refs, a
}

// ---- queries --------------------------------------------------------------

// item is one output column.
type item struct {
	expr string
	typ  Type
}

// Next generates the next query.
func (g *Generator) Next() Query {
	g.alias = 0
	switch r := g.n(20); {
	case r < 3 && g.F.SetOps:
		return g.setOp()
	case r < 5 && g.F.Windows:
		return g.window()
	case r < 11 && g.F.GroupBy:
		return g.aggregate()
	}
	return g.plain()
}

func (g *Generator) where(sc *scope, extra []string) string {
	conds := append([]string(nil), extra...)
	if g.p(75) {
		conds = append(conds, g.pred(sc, 2))
	}
	if len(conds) == 0 {
		return ""
	}
	return " WHERE " + strings.Join(conds, " AND ")
}

func (g *Generator) items(sc *scope, n int) []item {
	var out []item
	ts := g.types()
	for range n {
		t := pick(g, ts)
		if len(sc.of(t)) == 0 {
			t = TInt
		}
		if t == TBool && g.p(30) {
			out = append(out, item{expr: g.pred(sc, 1), typ: TBool})
			continue
		}
		out = append(out, item{expr: g.expr(sc, t, 2), typ: t})
	}
	return out
}

func selectList(items []item) string {
	s := make([]string, len(items))
	for i, it := range items {
		s[i] = fmt.Sprintf("%s AS c%d", it.expr, i)
	}
	return strings.Join(s, ", ")
}

// orderLimit appends ORDER BY (all columns or a prefix of keys) and maybe
// LIMIT/OFFSET, and sets the comparison spec.
func (g *Generator) orderLimit(sb *strings.Builder, n int, spec *Spec) {
	spec.Limit = -1
	if !g.F.OrderBy || g.p(45) {
		return
	}
	perm := g.rng.Perm(n)
	all := g.p(60)
	nk := n
	if !all {
		nk = 1 + g.n(n)
	}
	var keys []string
	spec.Ordered = true
	for _, c := range perm[:nk] {
		desc := g.p(40)
		k := fmt.Sprintf("%d", c+1)
		if desc {
			k += " DESC"
		}
		if g.F.NullsOrder {
			k += pick(g, []string{" NULLS FIRST", " NULLS LAST"})
		}
		keys = append(keys, k)
		spec.Keys = append(spec.Keys, SortKey{Col: c, Desc: desc})
	}
	sb.WriteString(" ORDER BY " + strings.Join(keys, ", "))
	if g.p(60) {
		spec.Limit = 1 + g.n(30)
		fmt.Fprintf(sb, " LIMIT %d", spec.Limit)
		if g.p(30) {
			spec.Offset = 1 + g.n(20)
			fmt.Fprintf(sb, " OFFSET %d", spec.Offset)
		}
	}
}

func (g *Generator) plain() Query {
	from, sc, extra := g.from()
	items := g.items(sc, 1+g.n(4))
	if g.F.Scalar && g.p(15) {
		items = append(items, item{expr: g.scalarSubquery(sc), typ: TInt})
	}
	var sb strings.Builder
	sb.WriteString("SELECT ")
	if g.F.Distinct && g.p(20) {
		sb.WriteString("DISTINCT ")
	}
	sb.WriteString(selectList(items) + " FROM " + from + g.where(sc, extra))
	spec := Spec{StrictNames: true}
	g.orderLimit(&sb, len(items), &spec)
	return Query{SQL: sb.String(), Spec: spec}
}

func (g *Generator) aggregate() Query {
	from, sc, extra := g.from()
	var groups []ref
	for range g.n(3) {
		r := pick(g, sc.refs)
		if r.col.Type == TFloat || (r.name == "id" && g.p(70)) {
			continue
		}
		dup := false
		for _, x := range groups {
			dup = dup || x.expr == r.expr
		}
		if !dup {
			groups = append(groups, r)
		}
	}
	var items []item
	for _, r := range groups {
		items = append(items, item{expr: r.expr, typ: r.col.Type})
	}
	for range 1 + g.n(3) {
		items = append(items, g.aggItem(sc))
	}
	var sb strings.Builder
	sb.WriteString("SELECT " + selectList(items) + " FROM " + from + g.where(sc, extra))
	if len(groups) > 0 {
		gs := make([]string, len(groups))
		for i, r := range groups {
			gs[i] = r.expr
		}
		sb.WriteString(" GROUP BY " + strings.Join(gs, ", "))
	}
	if g.F.Having && g.p(35) {
		h := g.aggItem(sc)
		switch h.typ {
		case TInt, TDec, TFloat:
			sb.WriteString(" HAVING " + h.expr + " " + g.cmp() + " " + g.litOf(TInt))
		default:
			sb.WriteString(" HAVING COUNT(*) > " + fmt.Sprint(g.n(4)))
		}
	}
	spec := Spec{StrictNames: true}
	g.orderLimit(&sb, len(items), &spec)
	return Query{SQL: sb.String(), Spec: spec}
}

func (g *Generator) aggItem(sc *scope) item {
	var nums []ref
	for _, r := range sc.refs {
		if r.col.Type == TInt || r.col.Type == TDec || r.col.Type == TFloat {
			nums = append(nums, r)
		}
	}
	switch r := g.n(8); {
	case r == 0:
		return item{expr: "COUNT(*)", typ: TInt}
	case r == 1:
		return item{expr: "COUNT(" + pick(g, sc.refs).expr + ")", typ: TInt}
	case r == 2 && g.F.CountDist:
		return item{expr: "COUNT(DISTINCT " + pick(g, sc.refs).expr + ")", typ: TInt}
	case r <= 4 && len(nums) > 0:
		n := pick(g, nums)
		e := n.expr
		if g.F.Arithmetic && g.p(30) {
			e = g.expr(sc, n.col.Type, 1)
		}
		fn := pick(g, []string{"SUM", "SUM", "AVG"})
		t := n.col.Type
		if fn == "AVG" {
			t = TFloat
		}
		return item{expr: fn + "(" + e + ")", typ: t}
	}
	var ord []ref
	for _, r := range sc.refs {
		if r.col.Type != TBool {
			ord = append(ord, r)
		}
	}
	if len(ord) == 0 {
		return item{expr: "COUNT(*)", typ: TInt}
	}
	r := pick(g, ord)
	return item{expr: pick(g, []string{"MIN", "MAX"}) + "(" + r.expr + ")", typ: r.col.Type}
}

// setOp combines two selects with the same column types.
func (g *Generator) setOp() Query {
	n := 1 + g.n(3)
	ts := g.types()
	sig := make([]Type, n)
	for i := range sig {
		sig[i] = pick(g, ts)
		if sig[i] == TBool {
			sig[i] = TInt
		}
	}
	side := func(first bool) string {
		t, a, sc := g.subTable()
		var s []string
		for i, typ := range sig {
			e := g.expr(sc, typ, 1)
			if first {
				e += fmt.Sprintf(" AS c%d", i)
			}
			s = append(s, e)
		}
		where := ""
		if g.p(70) {
			where = " WHERE " + g.pred(sc, 1)
		}
		return "SELECT " + strings.Join(s, ", ") + " FROM " + t.Name + " " + a + where
	}
	op := pick(g, []string{"UNION", "UNION ALL", "INTERSECT", "EXCEPT"})
	var sb strings.Builder
	sb.WriteString(side(true) + " " + op + " " + side(false))
	spec := Spec{StrictNames: true}
	g.orderLimit(&sb, n, &spec)
	return Query{SQL: sb.String(), Spec: spec}
}

// window is a single-table query with window functions over total orders
// (ROW_NUMBER ends its ORDER BY with the unique id).
func (g *Generator) window() Query {
	t, a, sc := g.subTable()
	items := []item{{expr: a + ".id", typ: TInt}}
	for range 1 + g.n(2) {
		r := pick(g, sc.refs)
		items = append(items, item{expr: r.expr, typ: r.col.Type})
	}
	nulls := func() string {
		if g.F.NullsOrder {
			return pick(g, []string{" NULLS FIRST", " NULLS LAST"})
		}
		return ""
	}
	for range 1 + g.n(3) {
		part := ""
		if g.p(70) {
			part = "PARTITION BY " + g.keyRef(sc).expr + " "
		}
		var ordCol ref
		for {
			ordCol = pick(g, sc.refs)
			if ordCol.col.Type != TBool {
				break
			}
		}
		dir := pick(g, []string{"", " DESC"})
		var fn string
		switch g.n(5) {
		case 0:
			fn = "ROW_NUMBER() OVER (" + part + "ORDER BY " + ordCol.expr + dir + nulls() + ", " + a + ".id)"
		case 1:
			fn = "RANK() OVER (" + part + "ORDER BY " + ordCol.expr + dir + nulls() + ")"
		case 2:
			fn = "DENSE_RANK() OVER (" + part + "ORDER BY " + ordCol.expr + dir + nulls() + ")"
		case 3:
			fn = "SUM(" + a + ".i) OVER (" + part + "ORDER BY " + ordCol.expr + dir + nulls() + ")"
		default:
			if part == "" {
				fn = "COUNT(*) OVER ()"
			} else {
				fn = "COUNT(*) OVER (" + strings.TrimSpace(part) + ")"
			}
		}
		items = append(items, item{expr: fn, typ: TInt})
	}
	var sb strings.Builder
	sb.WriteString("SELECT " + selectList(items) + " FROM " + t.Name + " " + a + g.where(sc, nil))
	spec := Spec{StrictNames: true}
	g.orderLimit(&sb, len(items), &spec)
	return Query{SQL: sb.String(), Spec: spec}
}

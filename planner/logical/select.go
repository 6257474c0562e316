package logical

import (
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/xwb1989/sqlparser"

	"github.com/paimon-flightsql/paimon-flightsql/planner/exec"
	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

// subqMode is set when a SELECT is bound as a (possibly correlated)
// subquery: WHERE conjuncts that reference the outer query are collected
// instead of filtered, and the inner columns they use become extra
// (hidden) output columns.
type subqMode struct {
	outer *scope
	corr  *correlation
	// results
	preds []vec.Expr // over outer fields (as OuterRef) and this query's output (innerRef)
	nOut  int        // visible output columns
	agg   bool       // the subquery aggregates (one row per correlation key)
	// scalar: bound as a scalar subquery (set by the caller); outerRel is
	// the outer relation (for domain decorrelation, corrscalar.go).
	scalar   bool
	outerRel *relation
	// grouped: the subquery has GROUP BY (several rows per key possible);
	// empty: its one output over no rows (aggregate without GROUP BY; nil
	// otherwise), see corrscalar.go.
	grouped  bool
	empty    vec.Expr
	coalesce bool // the output is never NULL over rows: COALESCE(v, empty) suffices
	// domainRefs: the outer columns of D (domain decorrelation), in D's order
	domainRefs []*OuterRef
	// lateral: a LATERAL derived table (lateral.go): always domain
	// decorrelated; empties holds each output's value over no rows for an
	// aggregate without GROUP BY.
	lateral bool
	empties []vec.Expr
}

// innerRef is a column of the subquery's output inside a correlated
// predicate (placeholder until the join is built).
type innerRef struct {
	idx int
	t   arrow.DataType
	nul bool
	s   string
}

func (r *innerRef) Type() arrow.DataType             { return r.t }
func (r *innerRef) Nullable() bool                   { return r.nul }
func (r *innerRef) Children() []vec.Expr             { return nil }
func (r *innerRef) WithChildren([]vec.Expr) vec.Expr { return r }
func (r *innerRef) String() string                   { return r.s }
func (r *innerRef) Eval(*vec.Ctx, arrow.RecordBatch) (arrow.Array, error) {
	return nil, unsupportedf("correlated subquery column %s", r.s)
}

func hasOuter(e vec.Expr) bool {
	found := false
	vec.Walk(e, func(x vec.Expr) bool {
		if _, ok := x.(*OuterRef); ok {
			found = true
		}
		return !found
	})
	return found
}

func (b *binder) selectQuery(sel *sqlparser.Select, ob sqlparser.OrderBy, lim *sqlparser.Limit, outer *scope, ctes *cteScope) (Node, error) {
	return b.selectSub(sel, ob, lim, outer, ctes, nil)
}

func (b *binder) selectSub(sel *sqlparser.Select, ob sqlparser.OrderBy, lim *sqlparser.Limit, outer *scope, ctes *cteScope, sq *subqMode) (Node, error) {
	if sel.Lock != "" {
		return nil, unsupportedf("locking clause %q", strings.TrimSpace(sel.Lock))
	}
	if len(ob) == 0 && len(sel.OrderBy) > 0 {
		ob, lim = sel.OrderBy, sel.Limit
	}
	fi, err := b.from(sel.From, nil, ctes)
	var early []vec.Expr // D's columns (early domain decorrelation, deepcorr.go)
	var earlyPreds []vec.Expr
	if err != nil && sq != nil && sq.outerRel != nil && sq.outerRel.node != nil && outer != nil {
		// a derived table in FROM may read the outer query
		if cols := outerNamed(sel, ob, outer); len(cols) > 0 {
			fi, early, earlyPreds, err = b.correlatedFrom(sq, sel.From, cols, ctes)
		}
	}
	if err != nil {
		return nil, err
	}
	rel := &relation{node: fi.node}
	sc := &scope{fields: rel.node.Schema(), outer: outer, using: fi.using, tables: relNames(fi.node)}
	if sq != nil {
		sc.corr = sq.corr
	}
	ec := &exprCtx{sc: sc, rel: rel, what: "WHERE", ctes: ctes}

	// A nested subquery reads a column two levels out: D (the outer
	// columns this query reads anywhere) joins the FROM before WHERE is
	// bound, and every outer reference binds to D (deepcorr.go).
	if early != nil {
		sc.corr.domain = map[int]vec.Expr{}
		for k, r := range sq.domainRefs {
			sc.corr.domain[r.Index] = early[k]
		}
	} else if sq != nil && sq.outerRel != nil && sq.outerRel.node != nil {
		if cols := deepOuterCols(sel, ob, sc, outer); len(cols) > 0 {
			n, ex, ps, err := b.domainJoin(sq, rel.node, nil, cols)
			if err != nil {
				return nil, err
			}
			rel.node, early, earlyPreds = n, ex, ps
			sc.fields = rel.node.Schema()
			sc.corr.domain = map[int]vec.Expr{}
			for k, r := range sq.domainRefs {
				sc.corr.domain[r.Index] = early[k]
			}
		}
	}

	// WHERE
	var filters []vec.Expr
	var corrPreds []vec.Expr
	if sel.Where != nil {
		// Conjuncts without subqueries first, filtered at once: a
		// subquery decorrelated on a domain (D = the outer columns it
		// reads) then takes D from the filtered relation.
		conj := splitAnd(sel.Where.Expr)
		var plainConj, subConj []sqlparser.Expr
		for _, c := range conj {
			if hasSubqueryAST(c) {
				subConj = append(subConj, c)
			} else {
				plainConj = append(plainConj, c)
			}
		}
		if len(subConj) > 0 && len(plainConj) > 0 {
			var pre []vec.Expr
			var rest []sqlparser.Expr
			for _, c := range plainConj {
				nRefs := 0
				if sq != nil {
					nRefs = len(sq.corr.refs)
				}
				e, err := b.expr(ec, c)
				if err != nil {
					return nil, err
				}
				if err := wantBool(e, "WHERE"); err != nil {
					return nil, err
				}
				if sq != nil && len(sq.corr.refs) > nRefs || hasOuter(e) {
					rest = append(rest, c) // correlated: bound again below
					if sq != nil {
						sq.corr.refs = sq.corr.refs[:nRefs]
					}
					continue
				}
				pre = append(pre, e)
			}
			if len(pre) > 0 {
				f, err := andAll(pre)
				if err != nil {
					return nil, err
				}
				rel.node = &Filter{Input: rel.node, Pred: f}
			}
			conj = append(rest, subConj...)
		}
		for _, c := range conj {
			if handled, err := b.topLevelSubquery(ec, c); err != nil {
				return nil, err
			} else if handled {
				continue
			}
			nRefs := 0
			if sq != nil {
				nRefs = len(sq.corr.refs)
			}
			e, err := b.expr(ec, c)
			if err != nil {
				return nil, err
			}
			if err := wantBool(e, "WHERE"); err != nil {
				return nil, err
			}
			if sq != nil && len(sq.corr.refs) > nRefs || hasOuter(e) {
				corrPreds = append(corrPreds, e)
				continue
			}
			filters = append(filters, e)
		}
	}
	if len(filters) > 0 {
		f, err := andAll(filters)
		if err != nil {
			return nil, err
		}
		rel.node = &Filter{Input: rel.node, Pred: f}
	}
	if sq != nil && sq.corr != nil && len(sq.corr.refs) > 0 && len(corrPreds) == 0 {
		return nil, unsupportedf("correlated reference outside the subquery's WHERE conjuncts")
	}

	// * is the FROM relation's columns, not those WHERE subqueries joined in.
	selExprs, extras, err := splitExtras(sel.SelectExprs)
	if err != nil {
		return nil, err
	}
	items, err := expandStars(selExprs, fi.node.Schema())
	if err != nil {
		return nil, err
	}

	// Aggregation?
	hasAgg := len(sel.GroupBy) > 0 || sel.Having != nil
	for _, it := range items {
		if it.expr != nil && containsAgg(it.expr) {
			hasAgg = true
		}
	}
	for _, o := range ob {
		if containsAgg(o.Expr) {
			hasAgg = true
		}
	}
	for _, x := range extras.exprs() {
		hasAgg = hasAgg || containsAgg(x)
	}

	if early != nil {
		if len(corrPreds) > 0 {
			return nil, unsupportedf("correlated subquery whose outer references could not all be bound (%s)", corrPreds[0].String())
		}
		corrPreds = earlyPreds
	}
	// Outer columns read outside WHERE (select list, GROUP BY, HAVING,
	// ORDER BY) of a scalar subquery: domain decorrelation binds them.
	var outerCols []int
	if sq != nil && (sq.scalar || sq.lateral) && early == nil {
		outerCols = outerColsOutsideWhere(sel, ob, sc, outer)
	}

	// Correlated inner columns become extra outputs (and group keys).
	var extra []vec.Expr
	perKey := false // extra are D's columns: one key value per outer row
	if early != nil {
		extra, perKey = early, true
	} else if len(corrPreds) > 0 || len(outerCols) > 0 {
		// window functions partition by the keys, which must then be the
		// outer row's columns
		domain := len(outerCols) > 0 || sq.lateral || hasWindowAST(sel, ob)
		for _, p := range corrPreds {
			// a LIMIT applies per outer row: per key only when the keys
			// are exactly the correlation (corrscalar.go)
			if (sq.scalar || lim != nil) && !plainCorrEq(p) {
				domain = true
			}
		}
		if domain {
			perKey = true
			n, ex, ps, err := b.domainJoin(sq, rel.node, corrPreds, outerCols)
			if err != nil {
				return nil, err
			}
			rel.node, extra, corrPreds = n, ex, ps
			sc.fields = rel.node.Schema()
			sc.corr.domain = map[int]vec.Expr{}
			for k, r := range sq.domainRefs {
				sc.corr.domain[r.Index] = extra[k]
			}
		} else {
			for i, p := range corrPreds {
				np, ex, err := liftInner(p, extra, hasAgg)
				if err != nil {
					return nil, err
				}
				corrPreds[i], extra = np, ex
			}
		}
	}

	var post *exprCtx // how select items bind
	var agg *aggCtx
	var having vec.Expr
	win := &winCtx{}
	if hasAgg {
		agg = &aggCtx{in: &exprCtx{sc: &scope{fields: rel.node.Schema(), outer: outer, using: fi.using, corr: sc.corr}, what: "an aggregate argument", ctes: ctes}}
		if err := b.groupBy(agg, sel.GroupBy, items); err != nil {
			return nil, err
		}
		for _, x := range extra {
			agg.addGroup(x, "")
		}
		// Bind aggregates used anywhere first so the aggregate's schema is
		// known, then build the Aggregate node.
		postRel := &relation{}
		post = &exprCtx{sc: &scope{outer: outer}, rel: postRel, agg: agg, win: win, what: "the select list", ctes: ctes}
		agg.pending = true
		for _, it := range items {
			if it.expr != nil {
				if err := agg.collect(b, it.expr); err != nil {
					return nil, err
				}
			}
		}
		if sel.Having != nil {
			if err := agg.collect(b, sel.Having.Expr); err != nil {
				return nil, err
			}
		}
		for _, o := range ob {
			if err := agg.collect(b, o.Expr); err != nil {
				return nil, err
			}
		}
		for _, x := range extras.exprs() {
			if err := agg.collect(b, x); err != nil {
				return nil, err
			}
		}
		agg.pending = false
		an, err := agg.node(rel.node)
		if err != nil {
			return nil, err
		}
		postRel.node = an
		post.sc.fields = an.Schema()
		if sel.Having != nil {
			post.what = "HAVING"
			h, err := b.expr(post, sel.Having.Expr)
			if err != nil {
				return nil, err
			}
			if err := wantBool(h, "HAVING"); err != nil {
				return nil, err
			}
			postRel.node = &Filter{Input: postRel.node, Pred: h}
			having = h
			post.sc.fields = postRel.node.Schema()
			post.what = "the select list"
		}
		rel = postRel
	} else {
		post = &exprCtx{sc: sc, rel: rel, win: win, what: "the select list", ctes: ctes}
	}

	// Select list.
	exprs := make([]vec.Expr, 0, len(items))
	names := make([]string, 0, len(items))
	unn := &unnestCtx{}
	post.unn = unn
	for _, it := range items {
		if it.col >= 0 {
			exprs = append(exprs, rel.node.Schema().Col(it.col))
			names = append(names, it.name)
			continue
		}
		e, err := b.expr(post, it.expr)
		if err != nil {
			return nil, err
		}
		if p, ok := e.(*vec.Param); ok && (p.T == nil || p.T.ID() == arrow.NULL) {
			// an untyped placeholder in the select list is a VARCHAR
			if b.untyped == nil {
				b.untyped = map[int]bool{}
			}
			b.untyped[p.N] = true
			if e, err = vec.ImplicitCast(p, arrow.BinaryTypes.String); err != nil {
				return nil, err
			}
		}
		exprs = append(exprs, e)
		names = append(names, it.name)
	}
	nOut := len(exprs)
	post.unn = nil
	if len(unn.gens) > 0 && (extras != nil || sq != nil && (len(corrPreds) > 0 || len(extra) > 0 || len(outerCols) > 0 || early != nil)) {
		return nil, unsupportedf("UNNEST in the select list of a correlated subquery or with QUALIFY / DISTINCT ON")
	}

	// ORDER BY: ordinal, output alias, or expression (hidden when not selected).
	var keys []exec.SortKey
	post.what = "ORDER BY"
	for _, o := range ob {
		var e vec.Expr
		if idx, ok := ordinal(o.Expr, nOut); ok {
			if idx < 0 {
				return nil, invalidf("ORDER BY position %s is not in the select list", sqlparser.String(o.Expr))
			}
			e = exprs[idx]
		} else if c, ok := o.Expr.(*sqlparser.ColName); ok && c.Qualifier.IsEmpty() && aliasIndex(items, c.Name.String()) >= 0 {
			e = exprs[aliasIndex(items, c.Name.String())]
		} else {
			x, err := b.expr(post, o.Expr)
			if err != nil {
				// DuckDB: select aliases inside ORDER BY expressions
				// (ORDER BY k % 7 with k an alias), for names that are not
				// columns.
				if x2, ok := b.orderByAliases(post, o.Expr, items); ok {
					x, err = x2, nil
				}
			}
			if err != nil {
				return nil, err
			}
			e = x
		}
		keys = append(keys, b.sortKey(o, e))
	}

	if err := extras.bind(b, post, items); err != nil {
		return nil, err
	}

	if sq != nil && sq.lateral && len(corrPreds) > 0 && hasAgg && len(sel.GroupBy) == 0 {
		if having != nil {
			return nil, unsupportedf("correlated LATERAL subquery with an aggregate and HAVING but no GROUP BY")
		}
		if len(win.funcs) > 0 {
			return nil, unsupportedf("window functions over an aggregate without GROUP BY in a correlated LATERAL subquery")
		}
		keyVals := map[int]vec.Expr{}
		for k, r := range sq.domainRefs {
			keyVals[len(agg.groups)-len(extra)+k] = r
		}
		for _, e := range exprs {
			ev, err := emptyValue(e, len(agg.groups), agg.aggs, keyVals)
			if err != nil {
				return nil, err
			}
			sq.empties = append(sq.empties, ev)
		}
	} else if sq != nil && len(corrPreds) > 0 && hasAgg && len(sel.GroupBy) == 0 && len(exprs) == 1 && len(win.funcs) == 0 {
		// the one value over no rows (corrscalar.go)
		keyVals := map[int]vec.Expr{} // group key index → its outer column
		for k, r := range sq.domainRefs {
			keyVals[len(agg.groups)-len(extra)+k] = r
		}
		ev, err := emptyValue(exprs[0], len(agg.groups), agg.aggs, keyVals)
		if err != nil {
			return nil, err
		}
		if having != nil {
			hv, err := emptyValue(having, len(agg.groups), agg.aggs, keyVals)
			if err != nil {
				return nil, err
			}
			if ev, err = vec.NewCase([]vec.Expr{hv}, []vec.Expr{ev}, nil); err != nil {
				return nil, err
			}
		}
		sq.empty = ev
		if c, ok := exprs[0].(*vec.Column); ok && having == nil && !c.Null {
			// a never-NULL aggregate (COUNT): COALESCE(v, empty value) does
			sq.coalesce = true
		}
	}
	// Windows go on top of the (aggregated) relation.
	var winRepl func(vec.Expr) (vec.Expr, error)
	if len(win.funcs) > 0 {
		if sq != nil && len(corrPreds) > 0 {
			if !perKey || len(extra) == 0 {
				return nil, unsupportedf("window functions in a correlated subquery")
			}
			// per outer row: every window is partitioned by D's columns
			keyCols := extra
			if agg != nil {
				keyCols = nil
				for k := range extra {
					keyCols = append(keyCols, rel.node.Schema().Col(len(agg.groups)-len(extra)+k))
				}
			}
			for i := range win.funcs {
				win.funcs[i].part = append(append([]vec.Expr{}, keyCols...), win.funcs[i].part...)
				win.funcs[i].key = "corr:" + win.funcs[i].key
			}
		}
		base := len(rel.node.Schema())
		n, m, err := win.build(rel.node)
		if err != nil {
			return nil, err
		}
		rel.node = n
		repl := func(e vec.Expr) (vec.Expr, error) {
			return vec.Transform(e, func(x vec.Expr) (vec.Expr, error) {
				if r, ok := x.(*winRef); ok {
					return rel.node.Schema().Col(base + m[r.k]), nil
				}
				return x, nil
			})
		}
		for i := range exprs {
			if exprs[i], err = repl(exprs[i]); err != nil {
				return nil, err
			}
		}
		for i := range keys {
			if keys[i].Expr, err = repl(keys[i].Expr); err != nil {
				return nil, err
			}
		}
		winRepl = repl
	}
	if rel.node, err = extras.apply(rel.node, winRepl, keys); err != nil {
		return nil, err
	}
	if rel.node, err = unn.apply(rel.node, exprs, keys); err != nil {
		return nil, err
	}

	// Project select items, extra correlation columns, then hidden sort keys.
	all := append([]vec.Expr{}, exprs...)
	allNames := append([]string{}, names...)
	if len(extra) > 0 {
		for k := range extra {
			// after aggregation the extra columns are the last group keys
			if agg != nil {
				gi := len(agg.groups) - len(extra) + k
				all = append(all, rel.node.Schema().Col(gi))
			} else {
				all = append(all, extra[k])
			}
			allNames = append(allNames, "__corr"+itoa(k))
		}
	}
	nVisible := len(all)
	for i, k := range keys {
		found := -1
		for j, e := range all {
			if e.String() == k.Expr.String() {
				found = j
				break
			}
		}
		if found < 0 {
			if sel.Distinct != "" {
				return nil, invalidf("for SELECT DISTINCT, ORDER BY expressions must appear in the select list (%s)", k.Expr.String())
			}
			all = append(all, k.Expr)
			allNames = append(allNames, "__sort"+itoa(i))
			found = len(all) - 1
		}
		keys[i].Expr = projCol(all, allNames, found)
	}
	out := projectNode(rel.node, all, allNames, b.fieldsMeta(rel.node, all))
	var n Node = out
	if sel.Distinct != "" {
		n = &Distinct{Input: n}
	}
	if len(extra) > 0 {
		// correlated: ORDER BY matters only with LIMIT, which applies per key
		if lim != nil {
			if n, err = b.corrLimit(n, keys, lim, nOut, len(extra)); err != nil {
				return nil, err
			}
		}
	} else {
		if len(keys) > 0 {
			n = &Sort{Input: n, Keys: keys, Fetch: -1}
		}
		if n, err = b.limit(n, lim); err != nil {
			return nil, err
		}
	}
	if len(all) > nVisible {
		n = trim(n, nVisible)
	}
	if sq != nil {
		sq.agg = hasAgg
		sq.grouped = len(sel.GroupBy) > 0
		sq.nOut = nOut
		for i, p := range corrPreds {
			cp, err := vec.Transform(p, func(x vec.Expr) (vec.Expr, error) {
				if r, ok := x.(*innerRef); ok {
					return &innerRef{idx: nOut + r.idx, t: r.t, nul: r.nul, s: r.s}, nil
				}
				return x, nil
			})
			if err != nil {
				return nil, err
			}
			corrPreds[i] = cp
		}
		sq.preds = corrPreds
	}
	return n, nil
}

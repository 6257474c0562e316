package parse

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
)

// rctx is what a token range is part of.
type rctx uint8

const (
	ctxNone rctx = iota
	ctxFrom      // a FROM clause (table references)
)

// Marker names the binder resolves (see docs/design/planner-frontend.md)
// or the fix-up pass removes.
const (
	markWindow   = "paimon_window"
	markFilter   = "paimon_filter"
	markSubquery = "paimon_subquery_"
	markAlias    = "paimon_alias_"
	markFullJoin = "paimon_full_join"
	// MarkAny / MarkAll wrap the subquery of a quantified comparison
	// x op ANY|SOME (q) / x op ALL (q): x op paimon_any((q)).
	MarkAny = "paimon_any"
	MarkAll = "paimon_all"
	// markBitOr is the operand between the two |s that carry a bitwise |.
	markBitOr = "paimon_bit_or"
)

// reservedName reports names users may not write: they would be mistaken
// for the structural markers above.
func reservedName(n string) bool {
	l := strings.ToLower(n)
	switch l {
	case markWindow, markFilter, markTableFn, markAggOrder, markQualify, markDistinctOn, markStarMod, markNullsFirst, markNullsLast, markFullJoin, MarkAny, MarkAll, markBitOr, MarkStruct, MarkMap:
		return true
	}
	return strings.HasPrefix(l, markSubquery) || strings.HasPrefix(l, markAlias)
}

var renamedFuncs = map[string]string{
	"year": "paimon_year", "month": "paimon_month", "day": "paimon_day", "date": "paimon_todate",
	"left": "paimon_left", "right": "paimon_right",
	"hour": "paimon_hour", "minute": "paimon_minute", "second": "paimon_second", "quarter": "paimon_quarter",
	"char_length": "length", "character_length": "length", "timestamp": "paimon_totimestamp",
	"dayofmonth": "paimon_day", "mod": "paimon_mod", "schema": "current_schema",
}

// reservedAsName lists words sqlparser reserves that we always read as
// identifiers (common column names of Paimon's system tables).
var reservedAsName = map[string]bool{"key": true, "keys": true}

// clauseWords end a FROM clause.
var clauseWords = map[string]bool{
	"where": true, "group": true, "having": true, "order": true, "limit": true, "window": true,
	"union": true, "intersect": true, "except": true, "minus": true, "select": true, "set": true,
}

type aliasMark struct {
	alias   string
	cols    []string
	hints   map[string]string
	lateral bool   // LATERAL (q) alias
	tablefn string // a table function's name (tablefn.go)
}

// rw rewrites tokens [lo, hi) into e.
func (p *parser) rw(e *emitter, lo, hi int, ctx rctx) error {
	clause := ctx
	for i := lo; i < hi; {
		t := p.toks[i]
		p.chunkOf[i] = int32(len(e.chunks))
		next, err := i+1, error(nil)
		switch t.kind {
		case tSpace:
			e.add(t.pos, " ")
		case tStr:
			if strings.IndexByte(t.text, '\\') < 0 {
				e.add(t.pos, t.text) // already what sqlparser reads
			} else {
				e.add(t.pos, sqlString(strValue(t)))
			}
		case tNumber, tParam:
			e.add(t.pos, t.text)
		case tHint:
			next, err = p.hint(e, i, hi)
		case tIdent, tBacktick, tDQuote:
			next, err = p.rwName(e, i, lo, hi, &clause)
		case tPunct:
			next, err = p.rwPunct(e, i, lo, hi, clause)
		default:
			e.add(t.pos, t.text)
		}
		if err != nil {
			return err
		}
		i = next
	}
	return nil
}

// tablePos reports whether a table reference may start at i.
func (p *parser) tablePos(i, lo int, clause rctx) bool {
	k := p.prevIn(i, lo)
	if k < lo {
		return clause == ctxFrom
	}
	t := p.toks[k]
	return isWord(t, "FROM") || isWord(t, "JOIN") || isWord(t, "STRAIGHT_JOIN") ||
		isPunct(t, ",") && clause == ctxFrom
}

// chain returns the indices of the parts of the dotted name starting at i.
func (p *parser) chain(i, hi int) []int {
	parts := []int{i}
	for {
		d := p.nextIn(parts[len(parts)-1]+1, hi)
		if !p.punct(d, hi, ".") {
			return parts
		}
		n := p.nextIn(d+1, hi)
		if n >= hi || !isName(p.toks[n]) {
			return parts
		}
		parts = append(parts, n)
	}
}

func (p *parser) rwName(e *emitter, i, lo, hi int, clause *rctx) (int, error) {
	t := p.toks[i]
	if reservedName(nameOf(t)) {
		return 0, p.errAt(catalog.ErrInvalid, i, "the name %s is reserved", nameOf(t))
	}
	pi := p.prevIn(i, lo)
	afterDot := pi >= lo && isPunct(p.toks[pi], ".")
	if !afterDot && p.tablePos(i, lo, *clause) {
		parts := p.chain(i, hi)
		after := p.nextIn(parts[len(parts)-1]+1, hi)
		if len(parts) == 1 && p.punct(after, hi, "(") && !p.isQueryParen(after) && !p.afterDistinctFrom(i, lo) {
			return p.rwTableFunc(e, i, after, hi)
		}
		if !p.punct(after, hi, "(") {
			switch len(parts) {
			case 1, 2:
			case 3:
				p.addCatalog(nameOf(p.toks[parts[0]]))
				e.add(t.pos, backtick(nameOf(p.toks[parts[1]]))+"."+backtick(nameOf(p.toks[parts[2]])))
				return parts[2] + 1, nil
			default:
				return 0, p.errAt(catalog.ErrInvalid, i, "table name with %d parts (at most catalog.database.table)", len(parts))
			}
		}
	}
	if t.kind != tIdent {
		e.add(t.pos, backtick(nameOf(t)))
		return i + 1, nil
	}
	nx := p.nextIn(i+1, hi)
	beforeDot := p.punct(nx, hi, ".")
	lw := strings.ToLower(t.text)
	if afterDot || beforeDot || needsQuote(t.text) || reservedAsName[lw] {
		e.add(t.pos, backtick(t.text))
		return i + 1, nil
	}
	switch {
	case lw == "from":
		*clause = ctxFrom
	case clauseWords[lw]:
		*clause = ctxNone
	}
	switch lw {
	case "map":
		if p.punct(nx, hi, "{") {
			return p.rwMapLiteral(e, i, nx)
		}
	case "struct_pack":
		if p.punct(nx, hi, "(") {
			return p.rwStructPack(e, i, nx)
		}
	case "date", "timestamp", "time":
		if nx < hi && p.toks[nx].kind == tStr {
			e.add(t.pos, "paimon_"+lw+"("+sqlString(strValue(p.toks[nx]))+")")
			return nx + 1, nil
		}
	case "interval":
		return p.rwInterval(e, i, hi)
	case "ilike":
		return p.rwILike(e, i, hi)
	case "is":
		if j, ok, err := p.rwDistinct(e, i, lo, hi); ok || err != nil {
			return j, err
		}
	case "similar", "not":
		if j, ok, err := p.rwSimilar(e, i, lo, hi); ok || err != nil {
			return j, err
		}
	case "full":
		if j, ok, err := p.rwFullJoin(e, i, hi); ok || err != nil {
			return j, err
		}
	case "using":
		if p.fullUsing[i] && p.punct(nx, hi, "(") {
			end := int(p.match[nx])
			e.add(t.pos, "using ("+markFullJoin+", ")
			if err := p.rw(e, nx+1, end, ctxNone); err != nil {
				return 0, err
			}
			e.add(p.toks[end].pos, ")")
			return end + 1, nil
		}
	case "straight_join":
		if pi < lo || !(isWord(p.toks[pi], "SELECT") || isWord(p.toks[pi], "DISTINCT") || isWord(p.toks[pi], "ALL")) {
			e.add(t.pos, "join") // FULL JOIN is parsed as STRAIGHT_JOIN
			return i + 1, nil
		}
	case "lateral":
		// LATERAL (q) [AS] alias: the derived table is marked for the
		// binder (Statement.Lateral); LATERAL before anything else is an error.
		if p.tablePos(i, lo, *clause) && nx < hi && isName(p.toks[nx]) && p.punct(p.nextIn(nx+1, hi), hi, "(") {
			// LATERAL f(args): every table function is lateral
			return p.rwTableFunc(e, nx, p.nextIn(nx+1, hi), hi)
		}
		if p.tablePos(i, lo, *clause) && p.punct(nx, hi, "(") {
			if !p.isQueryParen(nx) {
				return 0, p.errAt(catalog.ErrUnsupported, i, "LATERAL is supported only before a parenthesised subquery")
			}
			p.lateral = true
			return p.rwSubquery(e, nx, hi, true)
		}
	case "grouping":
		if p.word(nx, hi, "SETS") {
			return p.rwGroupingSets(e, i, nx, hi)
		}
	case "as":
		if *clause == ctxFrom {
			if j, ok, err := p.aliasTail(e, i, hi, nil, true); ok || err != nil {
				return j, err
			}
		}
	}
	if p.punct(nx, hi, "(") && (renamedFuncs[lw] != "" || specialFuncs[lw] || !stopWords[lw] && !isKeyword(lw)) {
		return p.rwCall(e, i, nx, hi)
	}
	e.add(t.pos, t.text)
	return i + 1, nil
}

// specialFuncs have their own argument syntax (rwSpecial), or are
// sqlparser keywords read as calls (MODE, the aggregate, also with OVER).
var specialFuncs = map[string]bool{"cast": true, "try_cast": true, "extract": true, "substring": true, "substr": true, "mode": true}

func (p *parser) addCatalog(c string) {
	for _, x := range p.st.Catalog {
		if x == c {
			return
		}
	}
	p.st.Catalog = append(p.st.Catalog, c)
}

func (p *parser) rwPunct(e *emitter, i, lo, hi int, clause rctx) (int, error) {
	t := p.toks[i]
	switch t.text {
	case "(":
		if p.isQueryParen(i) {
			return p.rwSubquery(e, i, hi, p.tablePos(i, lo, clause))
		}
		end := int(p.match[i])
		inner := ctxNone
		if p.tablePos(i, lo, clause) {
			inner = ctxFrom
		}
		e.add(t.pos, "(")
		if err := p.rw(e, i+1, end, inner); err != nil {
			return 0, err
		}
		e.add(p.toks[end].pos, ")")
		return end + 1, nil
	case "{":
		if p.isStructLiteral(i) {
			return p.rwStructLiteral(e, i, hi)
		}
		return p.rwODBC(e, i)
	case "[":
		return p.rwBracket(e, i, lo)
	case "*":
		e.add(t.pos, "*")
		if j, ok, err := p.starMods(e, i, hi); ok || err != nil {
			return j, err
		}
	case "||":
		e.add(t.pos, "|")
	case "|":
		// || travels as sqlparser's |; a bitwise | carries a marker operand
		// between two of them, which fixup folds back (bitwise.go).
		e.add(t.pos, " | "+markBitOr+" | ")
	case "~":
		return p.rwBitNot(e, i, hi)
	case "::":
		return p.rwPGCast(e, i, lo, hi)
	case "=", "<>", "!=", "<", ">", "<=", ">=":
		if j := p.nextIn(i+1, hi); (p.word(j, hi, "ANY") || p.word(j, hi, "SOME") || p.word(j, hi, "ALL")) &&
			p.punct(p.nextIn(j+1, hi), hi, "(") && p.isQueryParen(p.nextIn(j+1, hi)) {
			return p.rwQuantified(e, i, j, hi)
		}
		e.add(t.pos, t.text)
	default:
		e.add(t.pos, t.text)
	}
	return i + 1, nil
}

// rwQuantified rewrites x = ANY/SOME (subquery) as x IN (subquery),
// x <> ALL (subquery) as x NOT IN (subquery) (the same three-valued
// results), and the other quantified comparisons as x op
// paimon_any((subquery)) / x op paimon_all((subquery)), which the binder
// turns into mark joins. op is the comparison's token, q the quantifier's.
func (p *parser) rwQuantified(e *emitter, op, q, hi int) (int, error) {
	o := p.toks[op].text
	some := !isWord(p.toks[q], "ALL")
	switch {
	case o == "=" && some:
		e.add(p.toks[op].pos, " IN ")
		return q + 1, nil
	case (o == "<>" || o == "!=") && !some:
		e.add(p.toks[op].pos, " NOT IN ")
		return q + 1, nil
	}
	mark := MarkAny
	if !some {
		mark = MarkAll
	}
	e.add(p.toks[op].pos, o)
	e.add(p.toks[q].pos, " "+mark+"(")
	next, err := p.rwSubquery(e, p.nextIn(q+1, hi), hi, false)
	if err != nil {
		return 0, err
	}
	e.add(p.toks[q].pos, ")")
	return next, nil
}

// rwCall rewrites the call name(...) at i, with FILTER (WHERE c) and
// OVER (...) / OVER w after it.
func (p *parser) rwCall(e *emitter, i, open, hi int) (int, error) {
	close := int(p.match[open])
	ao, argEnd, end, err := p.aggOrderCall(i, open, close, hi)
	if err != nil {
		return 0, err
	}
	k := p.nextIn(end, hi)
	var filter span
	if p.word(k, hi, "FILTER") {
		fo := p.nextIn(k+1, hi)
		if p.punct(fo, hi, "(") {
			fc := int(p.match[fo])
			w := p.nextIn(fo+1, fc)
			if !p.word(w, fc, "WHERE") {
				return 0, p.errAt(catalog.ErrInvalid, w, "expected FILTER (WHERE condition)")
			}
			filter = span{w + 1, fc}
			end = fc + 1
			k = p.nextIn(end, hi)
		}
	}
	var win *WindowSpec
	if p.word(k, hi, "OVER") {
		o := p.nextIn(k+1, hi)
		switch {
		case p.punct(o, hi, "("):
			oc := int(p.match[o])
			ws, err := p.parseWindowSpec(o+1, oc)
			if err != nil {
				return 0, err
			}
			win, end = ws, oc+1
		case o < hi && isName(p.toks[o]):
			ws, ok := p.windows[strings.ToLower(nameOf(p.toks[o]))]
			if !ok {
				return 0, p.errAt(catalog.ErrInvalid, o, "window %s is not defined (WINDOW %s AS (...))", nameOf(p.toks[o]), nameOf(p.toks[o]))
			}
			win, end = ws, o+1
		default:
			return 0, p.errAt(catalog.ErrInvalid, o, "expected OVER (window) or OVER name")
		}
		if ao != nil {
			return 0, p.errAt(catalog.ErrUnsupported, k, "ORDER BY inside a window aggregate is not supported")
		}
	}
	pos := p.toks[i].pos
	if win != nil {
		e.add(pos, markWindow+"(")
	}
	if filter.hi != 0 {
		e.add(pos, markFilter+"(")
	}
	if ao != nil {
		e.add(pos, markAggOrder+"(")
	}
	if err := p.rwCallBody(e, i, open, argEnd, close); err != nil {
		return 0, err
	}
	if ao != nil {
		e.add(pos, ", "+strconv.Itoa(len(p.st.AggOrders))+")")
		p.st.AggOrders = append(p.st.AggOrders, ao)
	}
	if filter.hi != 0 {
		e.add(pos, ", ")
		if p.lastSig(filter.lo, filter.hi) < filter.lo {
			return 0, p.errAt(catalog.ErrInvalid, filter.lo, "empty FILTER condition")
		}
		if err := p.rw(e, filter.lo, filter.hi, ctxNone); err != nil {
			return 0, err
		}
		e.add(pos, ")")
	}
	if win != nil {
		e.add(pos, ", "+strconv.Itoa(len(p.st.Windows))+")")
		p.st.Windows = append(p.st.Windows, win)
	}
	return end, nil
}

// rwCallBody rewrites name(args) with the arguments in (open, argEnd);
// close is the closing parenthesis.
func (p *parser) rwCallBody(e *emitter, i, open, argEnd, close int) error {
	t := p.toks[i]
	lw := strings.ToLower(t.text)
	switch lw {
	case "cast", "try_cast", "extract", "substring", "substr":
		return p.rwSpecial(e, lw, open, close)
	case "position":
		if at := p.lastWordAt(open, close, "IN"); at > open {
			return p.rwPosition(e, open, close, at)
		}
	case "trim":
		if at := p.lastWordAt(open, close, "FROM"); at > open {
			return p.rwTrim(e, open, close, at)
		}
	}
	name := t.text
	if r, ok := renamedFuncs[lw]; ok {
		name = r
	}
	e.add(t.pos, name+"(")
	if err := p.rw(e, open+1, argEnd, ctxNone); err != nil {
		return err
	}
	e.add(p.toks[close].pos, ")")
	return nil
}

// rwSubquery rewrites the parenthesised query at open, extracting it when
// sqlparser cannot parse it, and the derived column list after it.
func (p *parser) rwSubquery(e *emitter, open, hi int, table bool) (int, error) {
	lateral := p.lateral
	p.lateral = false
	close := int(p.match[open])
	pos := p.toks[open].pos
	if p.needsExtract(open, close) {
		q, err := p.parseQuery(open+1, close)
		if err != nil {
			return 0, err
		}
		e.add(pos, fmt.Sprintf("(select * from %s%d)", markSubquery, len(p.st.Subqueries)))
		p.st.Subqueries = append(p.st.Subqueries, q)
	} else {
		saved := p.windows
		e.add(pos, "(")
		if err := p.rwQueryText(e, open+1, close); err != nil {
			return 0, err
		}
		e.add(p.toks[close].pos, ")")
		p.windows = saved
	}
	k := p.nextIn(close+1, hi)
	if lateral {
		p.lateral = true // aliasTail always marks it
		j, ok, err := p.aliasTail(e, k, hi, nil, false)
		p.lateral = false
		if err != nil {
			return 0, err
		}
		if !ok {
			return 0, p.errAt(catalog.ErrInvalid, open, "a LATERAL subquery needs an alias")
		}
		return j, nil
	}
	if j, ok, err := p.aliasTail(e, k, hi, nil, false); ok || err != nil {
		return j, err
	}
	if table && !p.word(k, hi, "AS") && !(k < hi && isName(p.toks[k]) && (p.toks[k].kind != tIdent || !isKeyword(p.toks[k].text))) {
		// A derived table without an alias (FROM (SELECT ...) WHERE ...),
		// as DuckDB and PostgreSQL 16 accept: it is named unnamed_subquery,
		// unnamed_subquery2, ... as in DuckDB.
		p.unnamed++
		name := "unnamed_subquery"
		if p.unnamed > 1 {
			name += strconv.Itoa(p.unnamed)
		}
		e.add(p.toks[close].pos+1, " as `"+name+"` ")
	}
	return close + 1, nil
}

// aliasTail handles `[AS] alias [(c1, c2)]` at i. It rewrites it to a
// marker alias when there is a column list (or hints); otherwise it
// reports ok=false and consumes nothing. needCols: only a column list
// makes it worth a marker.
func (p *parser) aliasTail(e *emitter, i, hi int, hints map[string]string, needAS bool) (int, bool, error) {
	j := i
	if p.word(j, hi, "AS") {
		j = p.nextIn(j+1, hi)
	} else if needAS {
		return 0, false, nil
	}
	m := aliasMark{hints: hints, lateral: p.lateral, tablefn: p.tableFn}
	end := i
	if j < hi && isName(p.toks[j]) && (p.toks[j].kind != tIdent || !isKeyword(p.toks[j].text)) {
		m.alias = nameOf(p.toks[j])
		end = j + 1
		if c := p.nextIn(j+1, hi); p.punct(c, hi, "(") {
			cols, err := p.identList(c+1, int(p.match[c]))
			if err != nil {
				return 0, false, err
			}
			m.cols = cols
			end = int(p.match[c]) + 1
		}
	} else if j != i {
		return 0, false, p.errAt(catalog.ErrInvalid, j, "expected an alias after AS")
	}
	if m.cols == nil && hints == nil && !m.lateral && m.tablefn == "" {
		return 0, false, nil
	}
	if m.alias == "" && m.tablefn != "" {
		m.alias = m.tablefn
	}
	if m.alias == "" && m.lateral {
		return 0, false, nil
	}
	if reservedName(m.alias) {
		return 0, false, p.errAt(catalog.ErrInvalid, j, "the name %s is reserved", m.alias)
	}
	pos := len(p.src)
	if i < len(p.toks) {
		pos = p.toks[i].pos
	}
	e.add(pos, fmt.Sprintf(" as `%s%d` ", markAlias, len(p.aliases)))
	p.aliases = append(p.aliases, m)
	return end, true, nil
}

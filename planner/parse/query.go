package parse

import (
	"strings"

	"github.com/xwb1989/sqlparser"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
)

// parseQuery parses the query in tokens [lo, hi): [WITH ...] body [trailer].
func (p *parser) parseQuery(lo, hi int) (*Query, error) {
	q := &Query{}
	i := p.nextIn(lo, hi)
	if p.word(i, hi, "WITH") {
		var err error
		if i, err = p.parseWith(q, i+1, hi); err != nil {
			return nil, err
		}
	}
	if i >= hi {
		return nil, p.errAt(catalog.ErrInvalid, i, "expected a query")
	}
	if err := p.parseSetExpr(q, i, hi); err != nil {
		return nil, err
	}
	return q, nil
}

// parseWith parses the CTE list after WITH and returns where the main
// query starts.
func (p *parser) parseWith(q *Query, i, hi int) (int, error) {
	i = p.nextIn(i, hi)
	if p.word(i, hi, "RECURSIVE") {
		q.Recursive = true
		i = p.nextIn(i+1, hi)
	}
	for {
		if i >= hi || !isName(p.toks[i]) {
			return 0, p.errAt(catalog.ErrInvalid, i, "expected a name for the WITH query")
		}
		cte := &CTE{Name: nameOf(p.toks[i])}
		i = p.nextIn(i+1, hi)
		if p.punct(i, hi, "(") {
			end := int(p.match[i])
			cols, err := p.identList(i+1, end)
			if err != nil {
				return 0, err
			}
			cte.Columns = cols
			i = p.nextIn(end+1, hi)
		}
		if !p.word(i, hi, "AS") {
			return 0, p.errAt(catalog.ErrInvalid, i, "expected AS (query) after WITH %s", cte.Name)
		}
		i = p.nextIn(i+1, hi)
		if p.word(i, hi, "NOT") {
			i = p.nextIn(i+1, hi)
		}
		if p.word(i, hi, "MATERIALIZED") {
			i = p.nextIn(i+1, hi)
		}
		if !p.punct(i, hi, "(") {
			return 0, p.errAt(catalog.ErrInvalid, i, "expected (query) after WITH %s AS", cte.Name)
		}
		end := int(p.match[i])
		sub, err := p.parseQuery(i+1, end)
		if err != nil {
			return 0, err
		}
		cte.Query = sub
		q.With = append(q.With, cte)
		i = p.nextIn(end+1, hi)
		if !p.punct(i, hi, ",") {
			return i, nil
		}
		i = p.nextIn(i+1, hi)
	}
}

type setOpTok struct {
	op  string
	all bool
}

// setOpAt recognises UNION/INTERSECT/EXCEPT/MINUS [ALL|DISTINCT] at i and
// returns the operator and the index after it.
func (p *parser) setOpAt(i, hi int) (setOpTok, int, bool) {
	if i >= hi || p.toks[i].kind != tIdent {
		return setOpTok{}, 0, false
	}
	var op string
	switch strings.ToUpper(p.toks[i].text) {
	case "UNION":
		op = "UNION"
	case "INTERSECT":
		op = "INTERSECT"
	case "EXCEPT", "MINUS":
		op = "EXCEPT"
	default:
		return setOpTok{}, 0, false
	}
	j := p.nextIn(i+1, hi)
	s := setOpTok{op: op}
	if p.word(j, hi, "ALL") {
		s.all = true
		j = p.nextIn(j+1, hi)
	} else if p.word(j, hi, "DISTINCT") {
		j = p.nextIn(j+1, hi)
	}
	return s, j, true
}

// trailerAt reports whether a query-level ORDER BY / LIMIT / OFFSET /
// FETCH starts at i.
func (p *parser) trailerAt(i, hi int) bool {
	t := p.toks[i]
	if t.kind != tIdent {
		return false
	}
	switch strings.ToUpper(t.text) {
	case "ORDER":
		return p.word(p.nextIn(i+1, hi), hi, "BY")
	case "LIMIT", "OFFSET":
		return true
	case "FETCH":
		j := p.nextIn(i+1, hi)
		return p.word(j, hi, "FIRST") || p.word(j, hi, "NEXT")
	}
	return false
}

type span struct{ lo, hi int }

// split finds the depth-0 set operators and the trailer of [lo, hi).
func (p *parser) split(lo, hi int) (ops []setOpTok, operands []span, trailer span, err error) {
	start := lo
	trailer = span{hi, hi}
	for i := lo; i < hi; i++ {
		t := p.toks[i]
		if isPunct(t, "(") {
			i = int(p.match[i])
			continue
		}
		if t.kind != tIdent {
			continue
		}
		if s, j, ok := p.setOpAt(i, hi); ok {
			if trailer.lo < hi {
				return nil, nil, span{}, p.errAt(catalog.ErrInvalid, trailer.lo, "ORDER BY / LIMIT before %s: put the operand in parentheses", s.op)
			}
			ops = append(ops, s)
			operands = append(operands, span{start, i})
			start = j
			i = j - 1
			continue
		}
		if trailer.lo == hi && p.trailerAt(i, hi) {
			trailer.lo = i
		}
	}
	operands = append(operands, span{start, trailer.lo})
	return ops, operands, trailer, nil
}

// parseSetExpr parses body [trailer] in [lo, hi) into q.
func (p *parser) parseSetExpr(q *Query, lo, hi int) error {
	ops, operands, trailer, err := p.split(lo, hi)
	if err != nil {
		return err
	}
	hasTrailer := trailer.lo < trailer.hi
	bodies := make([]Body, len(operands))
	for k, o := range operands {
		i := p.nextIn(o.lo, o.hi)
		last := p.lastSig(o.lo, o.hi)
		switch {
		case i >= o.hi:
			return p.errAt(catalog.ErrInvalid, i, "expected a query")
		case isPunct(p.toks[i], "(") && int(p.match[i]) == last:
			inner, err := p.parseQuery(i+1, last)
			if err != nil {
				return err
			}
			if len(operands) == 1 && !hasTrailer && len(q.With) == 0 {
				*q = *inner
				return nil
			}
			if len(inner.With) == 0 && inner.OrderBy == nil && inner.Limit == nil {
				bodies[k] = inner.Body
			} else {
				bodies[k] = inner
			}
		case isWord(p.toks[i], "SELECT"):
			if len(operands) == 1 {
				sel, ob, lim, err := p.parseSelect(i, o.hi, trailer)
				if err != nil {
					return err
				}
				q.Body, q.OrderBy, q.Limit = &Select{sel}, ob, lim
				return nil
			}
			sel, _, _, err := p.parseSelect(i, o.hi, span{})
			if err != nil {
				return err
			}
			bodies[k] = &Select{sel}
		default:
			return p.errAt(catalog.ErrUnsupported, i, "expected SELECT or a parenthesised query (%s is not supported here)", strings.ToUpper(p.toks[i].text))
		}
	}
	if hasTrailer {
		_, ob, lim, err := p.parseSelect(-1, -1, trailer)
		if err != nil {
			return err
		}
		q.OrderBy, q.Limit = ob, lim
	}
	q.Body = combine(ops, bodies)
	return nil
}

// combine builds the set operation tree: INTERSECT binds tighter than
// UNION and EXCEPT; all are left-associative.
func combine(ops []setOpTok, bodies []Body) Body {
	// First fold INTERSECT runs.
	var terms []Body
	var termOps []setOpTok
	cur := bodies[0]
	for k, op := range ops {
		if op.op == "INTERSECT" {
			cur = &SetOp{Op: op.op, All: op.all, Left: cur, Right: bodies[k+1]}
			continue
		}
		terms = append(terms, cur)
		termOps = append(termOps, op)
		cur = bodies[k+1]
	}
	terms = append(terms, cur)
	out := terms[0]
	for k, op := range termOps {
		out = &SetOp{Op: op.op, All: op.all, Left: out, Right: terms[k+1]}
	}
	return out
}

// parseSelect parses the SELECT block [lo, hi) followed by the trailer (or
// only the trailer when lo < 0) and returns the block with its ORDER BY and
// LIMIT moved out.
func (p *parser) parseSelect(lo, hi int, trailer span) (*sqlparser.Select, sqlparser.OrderBy, *sqlparser.Limit, error) {
	e := &emitter{}
	if lo >= 0 {
		e.chunks = make([]chunk, 0, hi-lo+trailer.hi-trailer.lo+4)
		if err := p.rwSelect(e, lo, hi); err != nil {
			return nil, nil, nil, err
		}
	} else {
		e.add(p.toks[trailer.lo].pos, "select 1 from dual")
	}
	noCount := false
	if trailer.lo < trailer.hi {
		var err error
		if noCount, err = p.rwTrailer(e, trailer.lo, trailer.hi); err != nil {
			return nil, nil, nil, err
		}
	}
	st, err := p.parseText(e)
	if err != nil {
		return nil, nil, nil, err
	}
	sel, ok := st.(*sqlparser.Select)
	if !ok {
		return nil, nil, nil, p.errAt(catalog.ErrInvalid, lo, "expected a SELECT")
	}
	if err := p.fixup(sel); err != nil {
		return nil, nil, nil, err
	}
	ob, lim := sel.OrderBy, sel.Limit
	sel.OrderBy, sel.Limit = nil, nil
	if noCount && lim != nil {
		lim.Rowcount = nil
	}
	return sel, ob, lim, nil
}

// rwQueryText rewrites a plain subquery (SELECT without WITH or set
// operations) for sqlparser, its ORDER BY / LIMIT included.
func (p *parser) rwQueryText(e *emitter, lo, hi int) error {
	_, operands, trailer, err := p.split(lo, hi)
	if err != nil {
		return err
	}
	if err := p.rwSelect(e, operands[0].lo, operands[0].hi); err != nil {
		return err
	}
	if trailer.lo < trailer.hi {
		noCount, err := p.rwTrailer(e, trailer.lo, trailer.hi)
		if err != nil {
			return err
		}
		if noCount {
			return p.errAt(catalog.ErrInvalid, trailer.lo, "internal: OFFSET without LIMIT in a plain subquery")
		}
	}
	return nil
}

// isQueryParen reports whether the parenthesis at open holds a query.
func (p *parser) isQueryParen(open int) bool {
	close := int(p.match[open])
	i := p.nextIn(open+1, close)
	if i >= close {
		return false
	}
	if isWord(p.toks[i], "SELECT") || isWord(p.toks[i], "WITH") {
		return true
	}
	if isPunct(p.toks[i], "(") && p.isQueryParen(i) {
		j := p.nextIn(int(p.match[i])+1, close)
		if j < close {
			_, _, isOp := p.setOpAt(j, close)
			return isOp || p.trailerAt(j, close)
		}
	}
	return false
}

// needsExtract reports whether the query inside (open, close) is beyond
// sqlparser's subquery grammar: WITH, set operations, a parenthesised
// operand, or OFFSET without LIMIT.
func (p *parser) needsExtract(open, close int) bool {
	i := p.nextIn(open+1, close)
	if !isWord(p.toks[i], "SELECT") {
		return true
	}
	ops, _, trailer, err := p.split(i, close)
	if err != nil || len(ops) > 0 {
		return true
	}
	limit, offset := false, false
	for j := trailer.lo; j < trailer.hi; j++ {
		if isPunct(p.toks[j], "(") {
			j = int(p.match[j])
			continue
		}
		switch {
		case isWord(p.toks[j], "LIMIT"), isWord(p.toks[j], "FETCH"):
			limit = true
		case isWord(p.toks[j], "OFFSET"):
			offset = true
		}
	}
	return offset && !limit
}

package parse

import (
	"github.com/paimon-flightsql/paimon-flightsql/catalog"
)

// arrayLiterals blanks the ARRAY of ARRAY[a, b] (PostgreSQL's list
// literal), so it reads as the DuckDB literal [a, b].
func arrayLiterals(toks []token) {
	for i, t := range toks {
		if !isWord(t, "ARRAY") {
			continue
		}
		j := i + 1
		for j < len(toks) && toks[j].kind == tSpace {
			j++
		}
		if j < len(toks) && isPunct(toks[j], "[") {
			toks[i] = token{tSpace, " ", t.pos}
		}
	}
}

// rwBracket rewrites a list literal [a, b, ...] as list_value(a, b, ...)
// and a subscript x[i] (x a primary: a name, call, parenthesised
// expression, literal or another subscript) as list_extract(x, i) —
// DuckDB's own names for both. (Slices x[a:b] fail in the lexer, which
// refuses a lone ':'.)
func (p *parser) rwBracket(e *emitter, open, lo int) (int, error) {
	close := int(p.match[open])
	if s := p.primaryStartAt(p.prevIn(open, lo), lo); s >= 0 {
		if p.nextIn(open+1, close) >= close {
			return 0, p.errAt(catalog.ErrInvalid, open, "expected an index inside []")
		}
		e.wrapFrom(int(p.chunkOf[s]), "list_extract(")
		e.add(p.toks[open].pos, ", ")
	} else {
		e.add(p.toks[open].pos, "list_value(")
	}
	if err := p.rw(e, open+1, close, ctxNone); err != nil {
		return 0, err
	}
	e.add(p.toks[close].pos, ")")
	return close + 1, nil
}

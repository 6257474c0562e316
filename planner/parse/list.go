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
// DuckDB's own names for both; a slice x[a:b] is list_slice(x, a, b), a
// missing bound being 1 or the largest BIGINT (the lexer lets ':' through
// only inside brackets).
func (p *parser) rwBracket(e *emitter, open, lo int) (int, error) {
	close := int(p.match[open])
	colon := -1
	for j := open + 1; j < close; j++ {
		switch t := p.toks[j]; {
		case isPunct(t, "(") || isPunct(t, "[") || isPunct(t, "{"):
			j = int(p.match[j])
		case isPunct(t, ":"):
			if colon >= 0 {
				return 0, p.errAt(catalog.ErrUnsupported, j, "list slices with a step x[a:b:c] are not supported")
			}
			colon = j
		}
	}
	s := p.primaryStartAt(p.prevIn(open, lo), lo)
	if colon >= 0 {
		if s < 0 {
			return 0, p.errAt(catalog.ErrInvalid, colon, "':' inside a list literal")
		}
		e.wrapFrom(int(p.chunkOf[s]), "list_slice(")
		e.add(p.toks[open].pos, ", ")
		for _, part := range [][3]int{{open + 1, colon, 0}, {colon + 1, close, 1}} {
			if p.nextIn(part[0], part[1]) >= part[1] {
				e.add(p.toks[part[0]-1].pos, [...]string{"1", "9223372036854775807"}[part[2]])
			} else if err := p.rw(e, part[0], part[1], ctxNone); err != nil {
				return 0, err
			}
			if part[2] == 0 {
				e.add(p.toks[colon].pos, ", ")
			}
		}
		e.add(p.toks[close].pos, ")")
		return close + 1, nil
	}
	if s >= 0 {
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

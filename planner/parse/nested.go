package parse

import (
	"github.com/paimon-flightsql/paimon-flightsql/catalog"
)

// Nested-value constructors (DuckDB's syntax):
//
//	{'k': v, k2: w}            → paimon_struct('k', v, 'k2', w)
//	struct_pack(k := v, x)     → paimon_struct('k', v, 'x', x)
//	MAP {k: v, ...}            → paimon_map(k, v, ...)
//
// The lexer lets ':' through inside braces and reads ':=' as one token.
const (
	MarkStruct = "paimon_struct"
	MarkMap    = "paimon_map"
)

// braceEntries splits the tokens of (open, close) at depth-0 commas; each
// entry is [start, end) with the index of its first depth-0 sep token (-1
// when it has none).
func (p *parser) braceEntries(open, close int, sep string) [][3]int {
	var out [][3]int
	start, mid := open+1, -1
	for j := open + 1; j <= close; j++ {
		if j == close || isPunct(p.toks[j], ",") {
			out = append(out, [3]int{start, j, mid})
			start, mid = j+1, -1
			continue
		}
		t := p.toks[j]
		switch {
		case isPunct(t, "(") || isPunct(t, "[") || isPunct(t, "{"):
			j = int(p.match[j])
		case isPunct(t, sep) && mid < 0:
			mid = j
		}
	}
	if len(out) == 1 && p.nextIn(open+1, close) >= close {
		return nil // {} : no entries
	}
	return out
}

// isStructLiteral reports whether the brace at open starts a struct
// literal ({'k': ...} or {k: ...}) rather than an ODBC escape.
func (p *parser) isStructLiteral(open int) bool {
	close := int(p.match[open])
	j := p.nextIn(open+1, close)
	if j >= close {
		return true
	}
	switch p.toks[j].kind {
	case tStr:
		return true
	case tIdent, tDQuote, tBacktick:
		return p.punct(p.nextIn(j+1, close), close, ":")
	}
	return false
}

// fieldName returns the name a struct field key token gives, or false.
func (p *parser) fieldName(s, e int) (string, bool) {
	j := p.nextIn(s, e)
	if j >= e || p.nextIn(j+1, e) < e {
		return "", false
	}
	switch t := p.toks[j]; t.kind {
	case tStr:
		return strValue(t), true
	case tIdent, tDQuote, tBacktick:
		return nameOf(t), true
	}
	return "", false
}

// rwStructLiteral rewrites {'k': v, ...} (open is the brace); a field
// access {...}.f (also .f.g) after it becomes list_extract(..., 'f').
func (p *parser) rwStructLiteral(e *emitter, open, hi int) (int, error) {
	next, err := p.rwStructBody(e, open)
	if err != nil {
		return 0, err
	}
	first := int(p.chunkOf[open])
	for {
		dot := p.nextIn(next, hi)
		if !p.punct(dot, hi, ".") {
			return next, nil
		}
		f := p.nextIn(dot+1, hi)
		if f >= hi || (p.toks[f].kind != tIdent && p.toks[f].kind != tDQuote && p.toks[f].kind != tBacktick) {
			return 0, p.errAt(catalog.ErrInvalid, dot, "expected a field name after '.'")
		}
		e.wrapFrom(first, "list_extract(")
		e.add(p.toks[dot].pos, ", "+sqlString(nameOf(p.toks[f]))+")")
		// a subscript after the field wraps the whole access
		p.chunkOf[dot], p.chunkOf[f] = int32(first), int32(first)
		next = f + 1
	}
}

func (p *parser) rwStructBody(e *emitter, open int) (int, error) {
	close := int(p.match[open])
	e.add(p.toks[open].pos, MarkStruct+"(")
	for n, ent := range p.braceEntries(open, close, ":") {
		if ent[2] < 0 {
			return 0, p.errAt(catalog.ErrInvalid, ent[0], "a struct literal entry needs 'name': value")
		}
		name, ok := p.fieldName(ent[0], ent[2])
		if !ok {
			return 0, p.errAt(catalog.ErrInvalid, ent[0], "a struct field name must be a string or a name")
		}
		if p.nextIn(ent[2]+1, ent[1]) >= ent[1] {
			return 0, p.errAt(catalog.ErrInvalid, ent[2], "expected a value after ':'")
		}
		if n > 0 {
			e.add(p.toks[ent[0]-1].pos, ", ")
		}
		e.add(p.toks[ent[0]].pos, sqlString(name)+", ")
		if err := p.rw(e, ent[2]+1, ent[1], ctxNone); err != nil {
			return 0, err
		}
	}
	e.add(p.toks[close].pos, ")")
	return close + 1, nil
}

// rwMapLiteral rewrites MAP {k: v, ...} (i is MAP, open its brace).
func (p *parser) rwMapLiteral(e *emitter, i, open int) (int, error) {
	close := int(p.match[open])
	e.add(p.toks[i].pos, MarkMap+"(")
	for n, ent := range p.braceEntries(open, close, ":") {
		if ent[2] < 0 || p.nextIn(ent[0], ent[2]) >= ent[2] || p.nextIn(ent[2]+1, ent[1]) >= ent[1] {
			return 0, p.errAt(catalog.ErrInvalid, ent[0], "a MAP literal entry needs key: value")
		}
		if n > 0 {
			e.add(p.toks[ent[0]-1].pos, ", ")
		}
		if err := p.rw(e, ent[0], ent[2], ctxNone); err != nil {
			return 0, err
		}
		e.add(p.toks[ent[2]].pos, ", ")
		if err := p.rw(e, ent[2]+1, ent[1], ctxNone); err != nil {
			return 0, err
		}
	}
	e.add(p.toks[close].pos, ")")
	return close + 1, nil
}

// rwStructPack rewrites struct_pack(k := v, x) (i is the name, open its
// parenthesis); an argument without a name is a column, named after it.
func (p *parser) rwStructPack(e *emitter, i, open int) (int, error) {
	close := int(p.match[open])
	e.add(p.toks[i].pos, MarkStruct+"(")
	ents := p.braceEntries(open, close, ":=")
	if len(ents) == 0 {
		return 0, p.errAt(catalog.ErrInvalid, open, "STRUCT_PACK needs at least one value")
	}
	for n, ent := range ents {
		var name string
		vs := ent[0]
		if ent[2] >= 0 {
			nm, ok := p.fieldName(ent[0], ent[2])
			if !ok {
				return 0, p.errAt(catalog.ErrInvalid, ent[0], "a STRUCT_PACK field name must be a name")
			}
			name, vs = nm, ent[2]+1
		} else {
			// a bare column: the last part of its name
			last := -1
			for j := ent[0]; j < ent[1]; j++ {
				switch t := p.toks[j]; {
				case t.kind == tSpace || t.kind == tComment || isPunct(t, "."):
				case t.kind == tIdent || t.kind == tDQuote || t.kind == tBacktick:
					last = j
				default:
					return 0, p.errAt(catalog.ErrInvalid, j, "a STRUCT_PACK argument needs a name: name := value")
				}
			}
			if last < 0 {
				return 0, p.errAt(catalog.ErrInvalid, ent[0], "a STRUCT_PACK argument needs a name: name := value")
			}
			name = nameOf(p.toks[last])
		}
		if p.nextIn(vs, ent[1]) >= ent[1] {
			return 0, p.errAt(catalog.ErrInvalid, ent[0], "expected a value after ':='")
		}
		if n > 0 {
			e.add(p.toks[ent[0]-1].pos, ", ")
		}
		e.add(p.toks[ent[0]].pos, sqlString(name)+", ")
		if err := p.rw(e, vs, ent[1], ctxNone); err != nil {
			return 0, err
		}
	}
	e.add(p.toks[close].pos, ")")
	return close + 1, nil
}

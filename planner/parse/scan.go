package parse

import "strings"

// Operand scanners. sqlparser's value_expression (the operand of LIKE,
// comparisons and IS) is a chain of primaries joined by arithmetic,
// bitwise and concatenation operators; these find where one begins or
// ends without parsing it, so a rewrite can wrap it.

// stopWords never start or continue an operand.
var stopWords = map[string]bool{
	"and": true, "or": true, "not": true, "is": true, "in": true, "like": true, "ilike": true,
	"between": true, "escape": true, "then": true, "when": true, "else": true, "from": true,
	"where": true, "group": true, "order": true, "having": true, "limit": true, "as": true,
	"asc": true, "desc": true, "on": true, "using": true, "join": true, "union": true,
	"intersect": true, "except": true, "minus": true, "select": true, "by": true, "regexp": true,
	"rlike": true, "exists": true, "distinct": true, "all": true, "any": true, "some": true,
	"offset": true, "fetch": true, "window": true, "over": true, "filter": true, "nulls": true,
	"case": true, "end": true, "interval": true, "with": true, "set": true, "inner": true,
	"left": true, "right": true, "full": true, "cross": true, "natural": true, "outer": true,
}

func isBinOp(t token) bool {
	if t.kind == tPunct {
		switch t.text {
		case "||", "|", "&", "^", "+", "-", "*", "/", "%", "<<", ">>", "->", "->>":
			return true
		}
		return false
	}
	return isWord(t, "DIV") || isWord(t, "MOD")
}

func isUnary(t token) bool {
	return isPunct(t, "-") || isPunct(t, "+") || isPunct(t, "~") || isPunct(t, "!") || isWord(t, "BINARY")
}

// operandEnd returns the end of the operand starting at i, or -1.
func (p *parser) operandEnd(i, hi int) int {
	for {
		i = p.nextIn(i, hi)
		for i < hi && isUnary(p.toks[i]) {
			i = p.nextIn(i+1, hi)
		}
		if i >= hi {
			return -1
		}
		j := p.primaryEnd(i, hi)
		if j < 0 {
			return -1
		}
		for { // postfix :: type and COLLATE name
			k := p.nextIn(j, hi)
			switch {
			case p.punct(k, hi, "::"):
				n := p.nextIn(k+1, hi)
				if n >= hi || !isName(p.toks[n]) {
					return -1
				}
				j = p.typeEnd(n, hi)
				continue
			case p.word(k, hi, "COLLATE"):
				j = p.nextIn(k+1, hi) + 1
				continue
			}
			break
		}
		k := p.nextIn(j, hi)
		if k < hi && isBinOp(p.toks[k]) {
			i = k + 1
			continue
		}
		return j
	}
}

// primaryEnd returns the end of the primary starting at i, or -1.
func (p *parser) primaryEnd(i, hi int) int {
	t := p.toks[i]
	switch t.kind {
	case tPunct:
		if t.text == "(" || t.text == "{" {
			return int(p.match[i]) + 1
		}
		return -1
	case tStr, tNumber, tParam:
		return i + 1
	case tBacktick, tDQuote:
	case tIdent:
		w := strings.ToLower(t.text)
		switch w {
		case "case":
			d := 0
			for k := i; k < hi; k++ {
				switch {
				case isPunct(p.toks[k], "("):
					k = int(p.match[k])
				case isWord(p.toks[k], "CASE"):
					d++
				case isWord(p.toks[k], "END"):
					if d--; d == 0 {
						return k + 1
					}
				}
			}
			return -1
		case "interval":
			v := p.operandEnd(i+1, hi)
			if v < 0 {
				return -1
			}
			return p.nextIn(v, hi) + 1
		case "date", "timestamp", "time":
			if n := p.nextIn(i+1, hi); n < hi && p.toks[n].kind == tStr {
				return n + 1
			}
		}
		if stopWords[w] {
			return -1
		}
	default:
		return -1
	}
	parts := p.chain(i, hi)
	j := parts[len(parts)-1] + 1
	if o := p.nextIn(j, hi); p.punct(o, hi, "(") {
		j = int(p.match[o]) + 1
		if f := p.nextIn(j, hi); p.word(f, hi, "FILTER") {
			if fo := p.nextIn(f+1, hi); p.punct(fo, hi, "(") {
				j = int(p.match[fo]) + 1
			}
		}
		if ov := p.nextIn(j, hi); p.word(ov, hi, "OVER") {
			w := p.nextIn(ov+1, hi)
			switch {
			case p.punct(w, hi, "("):
				j = int(p.match[w]) + 1
			case w < hi && isName(p.toks[w]):
				j = w + 1
			}
		}
	}
	return j
}

// endsOperand reports whether token k can be the last token of an operand.
func (p *parser) endsOperand(k int) bool {
	t := p.toks[k]
	switch t.kind {
	case tStr, tNumber, tParam, tBacktick, tDQuote:
		return true
	case tIdent:
		return isWord(t, "END") || !stopWords[strings.ToLower(t.text)]
	case tPunct:
		return t.text == ")" || t.text == "}"
	}
	return false
}

// operandStart returns the first token of the operand ending just before
// the token at end (a whole value_expression), or -1.
func (p *parser) operandStart(end, lo int) int {
	k := p.prevIn(end, lo)
	for {
		if k < lo {
			return -1
		}
		s := p.primaryStartAt(k, lo)
		if s < 0 {
			return -1
		}
		b := p.prevIn(s, lo)
		if b >= lo && isBinOp(p.toks[b]) {
			if bb := p.prevIn(b, lo); bb >= lo && p.endsOperand(bb) {
				k = bb
				continue
			}
		}
		for b >= lo && isUnary(p.toks[b]) {
			bb := p.prevIn(b, lo)
			if bb >= lo && p.endsOperand(bb) {
				break
			}
			s, b = b, bb
		}
		return s
	}
}

// primaryStartAt returns the first token of the primary whose last token
// is k (following :: casts back), or -1.
func (p *parser) primaryStartAt(k, lo int) int {
	if k < lo {
		return -1
	}
	var s int
	t := p.toks[k]
	switch {
	case isPunct(t, ")"):
		o := int(p.match[k])
		s = o
		b := p.prevIn(o, lo)
		if b >= lo && isWord(p.toks[b], "OVER") {
			if c := p.prevIn(b, lo); c >= lo && isPunct(p.toks[c], ")") {
				o = int(p.match[c])
				b = p.prevIn(o, lo)
				s = o
			}
		}
		if b >= lo && isName(p.toks[b]) && (p.toks[b].kind != tIdent || !stopWords[strings.ToLower(p.toks[b].text)]) {
			s = p.chainStart(b, lo)
		}
	case isPunct(t, "}"):
		s = int(p.match[k])
		if b := p.prevIn(s, lo); b >= lo && isWord(p.toks[b], "MAP") {
			s = b
		}
	case isPunct(t, "]"):
		// a list literal, or a subscript of the primary before it
		s = int(p.match[k])
		if b := p.primaryStartAt(p.prevIn(s, lo), lo); b >= 0 {
			s = b
		}
	case t.kind == tStr:
		s = k
		if b := p.prevIn(k, lo); b >= lo && (isWord(p.toks[b], "DATE") || isWord(p.toks[b], "TIMESTAMP") || isWord(p.toks[b], "TIME")) {
			s = b
		}
	case t.kind == tNumber || t.kind == tParam:
		s = k
	case isWord(t, "END"):
		d := 0
		s = -1
		for j := k; j >= lo; j-- {
			switch {
			case isPunct(p.toks[j], ")"):
				j = int(p.match[j])
			case isWord(p.toks[j], "END"):
				d++
			case isWord(p.toks[j], "CASE"):
				if d--; d == 0 {
					s = j
				}
			}
			if s >= 0 {
				break
			}
		}
		if s < 0 {
			return -1
		}
	case isName(t) && (t.kind != tIdent || !stopWords[strings.ToLower(t.text)]):
		s = p.chainStart(k, lo)
	default:
		return -1
	}
	if b := p.prevIn(s, lo); b >= lo && isPunct(p.toks[b], "::") {
		return p.primaryStartAt(p.prevIn(b, lo), lo)
	}
	return s
}

// chainStart returns the first part of the dotted name ending at k.
func (p *parser) chainStart(k, lo int) int {
	for {
		d := p.prevIn(k, lo)
		if d < lo || !isPunct(p.toks[d], ".") {
			return k
		}
		n := p.prevIn(d, lo)
		if n < lo || !isName(p.toks[n]) {
			return k
		}
		k = n
	}
}

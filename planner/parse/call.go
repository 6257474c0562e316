package parse

import (
	"fmt"
	"strings"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
	"github.com/paimon-flightsql/paimon-flightsql/paimon"
)

// hint handles /*+ OPTIONS('k'='v', ...) */ directly after a table name
// (before its alias): the options are recorded for that table's
// AliasedTableExpr. Other hints are advisory and ignored.
func (p *parser) hint(e *emitter, at, hi int) (int, error) {
	t := p.toks[at]
	body := strings.TrimSuffix(strings.TrimPrefix(t.text, "/*+"), "*/")
	ht, err := lex(body)
	if err != nil {
		return 0, fmt.Errorf("in hint %s: %w", t.text, err)
	}
	var sig []token
	for _, x := range ht {
		if x.kind != tSpace && x.kind != tComment {
			sig = append(sig, x)
		}
	}
	if len(sig) == 0 || !isWord(sig[0], "OPTIONS") {
		e.add(t.pos, " ")
		return at + 1, nil
	}
	if !p.inQuery {
		return 0, p.errAt(catalog.ErrUnsupported, at, "OPTIONS hints are only supported in queries")
	}
	pn := p.prev(at)
	if pn < 0 || !isName(p.toks[pn]) {
		return 0, p.errAt(catalog.ErrInvalid, at, "OPTIONS hint must follow a table name")
	}
	if pp := p.prev(pn); pp >= 0 {
		q := p.toks[pp]
		if isWord(q, "AS") || isName(q) && !(q.kind == tIdent && isKeyword(q.text)) || isPunct(q, ")") {
			return 0, p.errAt(catalog.ErrInvalid, at, "OPTIONS hint must directly follow the table name (before its alias)")
		}
	}
	if len(sig) < 3 || !isPunct(sig[1], "(") || !isPunct(sig[len(sig)-1], ")") {
		return 0, p.errAt(catalog.ErrInvalid, at, "malformed hint %s: expected OPTIONS('key'='value', ...)", t.text)
	}
	kv := sig[2 : len(sig)-1]
	opts := map[string]string{}
	for i := 0; i < len(kv); {
		if i+2 >= len(kv) || kv[i].kind != tStr || !isPunct(kv[i+1], "=") || kv[i+2].kind != tStr {
			return 0, p.errAt(catalog.ErrInvalid, at, "malformed hint %s: expected OPTIONS('key'='value', ...)", t.text)
		}
		opts[unquote(kv[i])] = unquote(kv[i+2])
		i += 3
		if i < len(kv) {
			if !isPunct(kv[i], ",") {
				return 0, p.errAt(catalog.ErrInvalid, at, "malformed hint %s: expected ',' between options", t.text)
			}
			i++
		}
	}
	k := p.nextIn(at+1, hi)
	j, _, err := p.aliasTail(e, k, hi, opts, false)
	if err != nil {
		return 0, err
	}
	return j, nil
}

// isCallValue reports whether t is a literal CALL argument: a string, a
// number, or TRUE/FALSE.
func isCallValue(t token) bool {
	return t.kind == tStr || t.kind == tNumber || t.kind == tIdent && (strings.EqualFold(t.text, "true") || strings.EqualFold(t.text, "false"))
}

// callValue is the text of a CALL argument: strings unquoted, numbers as
// written, booleans in lower case.
func callValue(t token) string {
	switch t.kind {
	case tStr:
		return unquote(t)
	case tIdent:
		return strings.ToLower(t.text)
	}
	return t.text
}

// parseCall parses `name(args)` after CALL; arguments are literals (see
// isCallValue), positional or named (name => value).
func parseCall(toks []token) (*Call, error) {
	var sig []token
	for _, t := range toks {
		if t.kind != tSpace {
			sig = append(sig, t)
		}
	}
	var name strings.Builder
	i := 0
	for i < len(sig) && !isPunct(sig[i], "(") {
		switch sig[i].kind {
		case tIdent, tBacktick, tDQuote:
			name.WriteString(strings.ToLower(nameOf(sig[i])))
		case tPunct:
			if sig[i].text != "." {
				return nil, paimon.Errorf(catalog.ErrInvalid, "CALL: unexpected %q in procedure name", sig[i].text)
			}
			name.WriteByte('.')
		default:
			return nil, paimon.Errorf(catalog.ErrInvalid, "CALL: unexpected %s in procedure name", sig[i].text)
		}
		i++
	}
	if i >= len(sig) || !isPunct(sig[len(sig)-1], ")") || name.Len() == 0 {
		return nil, paimon.Errorf(catalog.ErrInvalid, "CALL: expected CALL procedure('arg', ...)")
	}
	c := &Call{Proc: name.String()}
	args := sig[i+1 : len(sig)-1]
	n := 0
	for j := 0; j < len(args); j++ {
		n++
		if j+2 < len(args) && isName(args[j]) && isPunct(args[j+1], "=>") {
			if !isCallValue(args[j+2]) {
				return nil, paimon.Errorf(catalog.ErrUnsupported, "CALL %s: argument %s must be a string, number or boolean literal, got %s", c.Proc, nameOf(args[j]), args[j+2].text)
			}
			if c.Named == nil {
				c.Named = map[string]string{}
			}
			k := strings.ToLower(nameOf(args[j]))
			if _, dup := c.Named[k]; dup {
				return nil, paimon.Errorf(catalog.ErrInvalid, "CALL %s: argument %s given twice", c.Proc, k)
			}
			c.Named[k] = callValue(args[j+2])
			j += 2
		} else {
			if !isCallValue(args[j]) {
				return nil, paimon.Errorf(catalog.ErrUnsupported, "CALL %s: argument %d must be a string, number or boolean literal, got %s", c.Proc, n, args[j].text)
			}
			if c.Named != nil {
				return nil, paimon.Errorf(catalog.ErrInvalid, "CALL %s: positional argument %d after named arguments", c.Proc, n)
			}
			c.Args = append(c.Args, callValue(args[j]))
		}
		if j+1 < len(args) {
			j++
			if !isPunct(args[j], ",") {
				return nil, paimon.Errorf(catalog.ErrInvalid, "CALL %s: expected ',' between arguments, got %s", c.Proc, args[j].text)
			}
			if j+1 == len(args) {
				return nil, paimon.Errorf(catalog.ErrInvalid, "CALL %s: missing argument after ','", c.Proc)
			}
		}
	}
	return c, nil
}

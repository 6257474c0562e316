package planner

import (
	"fmt"
	"strings"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
	"github.com/paimon-flightsql/paimon-flightsql/paimon"
)

// The normaliser rewrites what BI tools and drivers send into the MySQL
// dialect that xwb1989/sqlparser accepts, without ever touching the inside
// of string literals:
//
//	"ident"                       → `ident`
//	t$files, t$branch_b$files     → `t$files`, `t$branch_b$files`
//	q.<name>                      → `q`.`name` (sys.tables, default.t, t.col)
//	DATE '2024-01-01'             → paimon_date('2024-01-01')   (also TIMESTAMP)
//	CAST(e AS DOUBLE)             → paimon_cast(e, 'DOUBLE')    (every target type)
//	EXTRACT(YEAR FROM e)          → paimon_extract('YEAR', e)
//	SUBSTRING(e FROM a FOR b)     → paimon_substring(e, a, b)  (also SUBSTR(e, a, b))
//	YEAR(e), MONTH(e), DAY(e), DATE(e), LEFT(e,n), RIGHT(e,n) → paimon_<name>(...)
//	t /*+ OPTIONS('k'='v') */     → t, with k=v collected as scan options
//
// and recognises the statements it handles itself: EXPLAIN <query> and
// CALL sys.compact('db.t'[, 'full']).

type tokKind int

const (
	tSpace tokKind = iota
	tIdent
	tBacktick // `ident`
	tDQuote   // "ident"
	tStr      // 'text'
	tNumber
	tComment
	tHint // /*+ ... */
	tPunct
)

type token struct {
	kind tokKind
	text string // source text, quotes included
}

// lex splits sql into tokens. It never fails on odd input: an unterminated
// quote or comment is reported as an error naming its position.
func lex(sql string) ([]token, error) {
	var toks []token
	i := 0
	for i < len(sql) {
		c := sql[i]
		start := i
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f':
			for i < len(sql) && strings.IndexByte(" \t\n\r\f", sql[i]) >= 0 {
				i++
			}
			toks = append(toks, token{tSpace, sql[start:i]})
		case c == '\'' || c == '"' || c == '`':
			j := i + 1
			closed := false
			for j < len(sql) {
				if sql[j] == '\\' && c == '\'' && j+1 < len(sql) {
					j += 2
					continue
				}
				if sql[j] == c {
					if j+1 < len(sql) && sql[j+1] == c { // doubled quote
						j += 2
						continue
					}
					closed = true
					j++
					break
				}
				j++
			}
			if !closed {
				return nil, paimon.Errorf(catalog.ErrInvalid, "unterminated %c quote starting at position %d", c, start+1)
			}
			i = j
			k := tStr
			if c == '"' {
				k = tDQuote
			} else if c == '`' {
				k = tBacktick
			}
			toks = append(toks, token{k, sql[start:i]})
		case c == '-' && i+1 < len(sql) && sql[i+1] == '-', c == '#':
			for i < len(sql) && sql[i] != '\n' {
				i++
			}
			toks = append(toks, token{tComment, sql[start:i]})
		case c == '/' && i+1 < len(sql) && sql[i+1] == '*':
			end := strings.Index(sql[i+2:], "*/")
			if end < 0 {
				return nil, paimon.Errorf(catalog.ErrInvalid, "unterminated comment starting at position %d", start+1)
			}
			i = i + 2 + end + 2
			k := tComment
			if strings.HasPrefix(sql[start:], "/*+") {
				k = tHint
			}
			toks = append(toks, token{k, sql[start:i]})
		case isIdentStart(c):
			for i < len(sql) && isIdentPart(sql[i]) {
				i++
			}
			toks = append(toks, token{tIdent, sql[start:i]})
		case c >= '0' && c <= '9' || c == '.' && i+1 < len(sql) && sql[i+1] >= '0' && sql[i+1] <= '9' && !prevIsName(toks):
			for i < len(sql) && (isIdentPart(sql[i]) || sql[i] == '.' ||
				(sql[i] == '+' || sql[i] == '-') && (sql[i-1] == 'e' || sql[i-1] == 'E')) {
				i++
			}
			toks = append(toks, token{tNumber, sql[start:i]})
		default:
			// multi-character operators stay together
			for _, op := range []string{"<=>", "<>", "!=", "<=", ">=", "||", "&&", "::"} {
				if strings.HasPrefix(sql[i:], op) {
					i += len(op)
					break
				}
			}
			if i == start {
				i++
			}
			toks = append(toks, token{tPunct, sql[start:i]})
		}
	}
	return toks, nil
}

func isIdentStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

func isIdentPart(c byte) bool { return isIdentStart(c) || c >= '0' && c <= '9' || c == '$' }

func prevIsName(toks []token) bool {
	for i := len(toks) - 1; i >= 0; i-- {
		switch toks[i].kind {
		case tSpace, tComment:
			continue
		case tIdent, tBacktick, tDQuote:
			return true
		}
		return toks[i].kind == tPunct && toks[i].text == ")"
	}
	return false
}

// normalized is the output of normalize.
type normalized struct {
	sql     string            // for sqlparser
	explain bool              // EXPLAIN prefix
	analyze bool              // EXPLAIN ANALYZE: run the query, then report
	options map[string]string // from /*+ OPTIONS(...) */ hints
	hintTab string            // table the hint followed (for messages)
	call    *callStmt         // CALL statements are parsed here
}

type callStmt struct {
	proc string   // lower-case, e.g. "sys.compact"
	args []string // string literal arguments, unquoted
}

// normalize rewrites sql as described in the package comment above.
func normalize(sql string) (*normalized, error) {
	toks, err := lex(sql)
	if err != nil {
		return nil, err
	}
	// Drop comments, keep hints; trim trailing semicolons and spaces.
	var sig []token
	for _, t := range toks {
		if t.kind == tComment {
			t = token{tSpace, " "}
		}
		sig = append(sig, t)
	}
	for len(sig) > 0 && (sig[len(sig)-1].kind == tSpace || sig[len(sig)-1].kind == tPunct && sig[len(sig)-1].text == ";") {
		sig = sig[:len(sig)-1]
	}
	for len(sig) > 0 && sig[0].kind == tSpace {
		sig = sig[1:]
	}
	for _, t := range sig {
		if t.kind == tPunct && t.text == ";" {
			return nil, paimon.Errorf(catalog.ErrUnsupported, "multiple statements are not supported (found ';')")
		}
	}
	out := &normalized{}
	if len(sig) > 0 && sig[0].kind == tIdent && strings.EqualFold(sig[0].text, "EXPLAIN") {
		out.explain = true
		sig = sig[1:]
		for len(sig) > 0 && sig[0].kind == tSpace {
			sig = sig[1:]
		}
		if len(sig) > 0 && sig[0].kind == tIdent && strings.EqualFold(sig[0].text, "ANALYZE") {
			out.analyze = true
			sig = sig[1:]
			for len(sig) > 0 && sig[0].kind == tSpace {
				sig = sig[1:]
			}
		}
		if len(sig) == 0 {
			return nil, paimon.Errorf(catalog.ErrInvalid, "EXPLAIN needs a statement")
		}
	}
	if len(sig) > 0 && sig[0].kind == tIdent && strings.EqualFold(sig[0].text, "CALL") {
		c, err := parseCall(sig[1:])
		if err != nil {
			return nil, err
		}
		out.call = c
		return out, nil
	}
	n := &normalizer{out: out}
	s, err := n.rewrite(sig)
	if err != nil {
		return nil, err
	}
	out.sql = s
	return out, nil
}

type normalizer struct {
	out *normalized
}

// nonSpace returns the index of the next non-space token at or after i, or len(toks).
func nonSpace(toks []token, i int) int {
	for i < len(toks) && toks[i].kind == tSpace {
		i++
	}
	return i
}

// prevNonSpace returns the index of the last non-space token before i, or -1.
func prevNonSpace(toks []token, i int) int {
	i--
	for i >= 0 && toks[i].kind == tSpace {
		i--
	}
	return i
}

// matchParen returns the index of the ')' matching the '(' at open.
func matchParen(toks []token, open int) (int, error) {
	depth := 0
	for i := open; i < len(toks); i++ {
		if toks[i].kind != tPunct {
			continue
		}
		switch toks[i].text {
		case "(":
			depth++
		case ")":
			depth--
			if depth == 0 {
				return i, nil
			}
		}
	}
	return 0, paimon.Errorf(catalog.ErrInvalid, "unbalanced parenthesis")
}

func isPunct(t token, s string) bool { return t.kind == tPunct && t.text == s }

func isWord(t token, w string) bool { return t.kind == tIdent && strings.EqualFold(t.text, w) }

func backtick(name string) string { return "`" + strings.ReplaceAll(name, "`", "``") + "`" }

// unquote returns the content of a quoted token.
func unquote(t token) string {
	q := t.text[0]
	body := t.text[1 : len(t.text)-1]
	body = strings.ReplaceAll(body, string([]byte{q, q}), string(q))
	if q == '\'' {
		var b strings.Builder
		for i := 0; i < len(body); i++ {
			if body[i] == '\\' && i+1 < len(body) {
				i++
				switch body[i] {
				case 'n':
					b.WriteByte('\n')
				case 't':
					b.WriteByte('\t')
				case '0':
					b.WriteByte(0)
				default:
					b.WriteByte(body[i])
				}
				continue
			}
			b.WriteByte(body[i])
		}
		return b.String()
	}
	return body
}

// sqlString renders s as a MySQL string literal.
func sqlString(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `'`, `''`)
	return "'" + r.Replace(s) + "'"
}

var renamedFuncs = map[string]string{
	"year": "paimon_year", "month": "paimon_month", "day": "paimon_day", "date": "paimon_todate",
	"left": "paimon_left", "right": "paimon_right", "substring": "paimon_substring", "substr": "paimon_substring",
	"hour": "paimon_hour", "minute": "paimon_minute", "second": "paimon_second", "quarter": "paimon_quarter",
	"char_length": "length", "character_length": "length", "timestamp": "paimon_totimestamp",
	"dayofmonth": "paimon_day", "mod": "paimon_mod",
}

func (n *normalizer) rewrite(toks []token) (string, error) {
	var b strings.Builder
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		switch t.kind {
		case tDQuote:
			b.WriteString(backtick(unquote(t)))
			continue
		case tHint:
			if err := n.hint(t, toks, i); err != nil {
				return "", err
			}
			b.WriteByte(' ')
			continue
		case tIdent:
			p := prevNonSpace(toks, i)
			nx := nonSpace(toks, i+1)
			afterDot := p >= 0 && isPunct(toks[p], ".")
			beforeDot := nx < len(toks) && isPunct(toks[nx], ".")
			if afterDot || beforeDot || strings.Contains(t.text, "$") {
				b.WriteString(backtick(t.text))
				continue
			}
			lw := strings.ToLower(t.text)
			if reservedAsName[lw] {
				// MySQL-reserved words that are common column names in
				// Paimon's system tables ($options key/value). None of them
				// is a keyword of the statements we accept (SELECT, DELETE,
				// CALL), so a bare occurrence is always a name.
				b.WriteString(backtick(t.text))
				continue
			}
			if (lw == "date" || lw == "timestamp") && nx < len(toks) && toks[nx].kind == tStr {
				b.WriteString("paimon_" + lw + "(" + toks[nx].text + ")")
				i = nx
				continue
			}
			if nx < len(toks) && isPunct(toks[nx], "(") {
				switch lw {
				case "cast", "extract", "substring", "substr":
					end, err := matchParen(toks, nx)
					if err != nil {
						return "", err
					}
					s, err := n.special(lw, toks[nx+1:end])
					if err != nil {
						return "", err
					}
					b.WriteString(s)
					i = end
					continue
				}
				if r, ok := renamedFuncs[lw]; ok {
					b.WriteString(r)
					continue
				}
			}
		}
		b.WriteString(t.text)
	}
	return b.String(), nil
}

// special rewrites CAST/EXTRACT/SUBSTRING calls; inner is between the parentheses.
func (n *normalizer) special(fn string, inner []token) (string, error) {
	split := func(word string) (int, bool) { // last top-level occurrence
		depth, at := 0, -1
		for i, t := range inner {
			switch {
			case isPunct(t, "("):
				depth++
			case isPunct(t, ")"):
				depth--
			case depth == 0 && isWord(t, word):
				at = i
			}
		}
		return at, at >= 0
	}
	switch fn {
	case "cast":
		at, ok := split("AS")
		if !ok {
			return "", paimon.Errorf(catalog.ErrInvalid, "CAST without AS <type>")
		}
		e, err := n.rewrite(inner[:at])
		if err != nil {
			return "", err
		}
		var typ strings.Builder
		for _, t := range inner[at+1:] {
			if t.kind == tSpace {
				if typ.Len() > 0 {
					typ.WriteByte(' ')
				}
				continue
			}
			typ.WriteString(strings.ToUpper(t.text))
		}
		ts := strings.TrimSpace(typ.String())
		if ts == "" {
			return "", paimon.Errorf(catalog.ErrInvalid, "CAST without a target type")
		}
		return "paimon_cast(" + strings.TrimSpace(e) + ", " + sqlString(ts) + ")", nil
	case "extract":
		at, ok := split("FROM")
		if !ok {
			return "", paimon.Errorf(catalog.ErrInvalid, "EXTRACT without FROM")
		}
		unit := ""
		for _, t := range inner[:at] {
			if t.kind != tSpace {
				unit += strings.ToUpper(t.text)
			}
		}
		e, err := n.rewrite(inner[at+1:])
		if err != nil {
			return "", err
		}
		return "paimon_extract(" + sqlString(unit) + ", " + strings.TrimSpace(e) + ")", nil
	default: // substring
		cp := append([]token(nil), inner...)
		depth := 0
		for i, t := range cp {
			switch {
			case isPunct(t, "("):
				depth++
			case isPunct(t, ")"):
				depth--
			case depth == 0 && (isWord(t, "FROM") || isWord(t, "FOR")):
				cp[i] = token{tPunct, ","}
			}
		}
		e, err := n.rewrite(cp)
		if err != nil {
			return "", err
		}
		return "paimon_substring(" + e + ")", nil
	}
}

// hint parses /*+ OPTIONS('k'='v', ...) */ following a table name.
func (n *normalizer) hint(t token, toks []token, at int) error {
	body := strings.TrimSuffix(strings.TrimPrefix(t.text, "/*+"), "*/")
	ht, err := lex(body)
	if err != nil {
		return fmt.Errorf("in hint %s: %w", t.text, err)
	}
	var sig []token
	for _, x := range ht {
		if x.kind != tSpace && x.kind != tComment {
			sig = append(sig, x)
		}
	}
	if len(sig) == 0 || !isWord(sig[0], "OPTIONS") {
		return nil // other optimiser hints are advisory: ignore them
	}
	p := prevNonSpace(toks, at)
	if p < 0 || (toks[p].kind != tIdent && toks[p].kind != tBacktick && toks[p].kind != tDQuote) {
		return paimon.Errorf(catalog.ErrInvalid, "OPTIONS hint must follow a table name")
	}
	tab := toks[p].text
	if toks[p].kind != tIdent {
		tab = unquote(toks[p])
	}
	if n.out.hintTab != "" && n.out.hintTab != tab {
		return paimon.Errorf(catalog.ErrUnsupported, "OPTIONS hints on more than one table (%s, %s)", n.out.hintTab, tab)
	}
	n.out.hintTab = tab
	if len(sig) < 3 || !isPunct(sig[1], "(") || !isPunct(sig[len(sig)-1], ")") {
		return paimon.Errorf(catalog.ErrInvalid, "malformed hint %s: expected OPTIONS('key'='value', ...)", t.text)
	}
	kv := sig[2 : len(sig)-1]
	if n.out.options == nil {
		n.out.options = map[string]string{}
	}
	for i := 0; i < len(kv); {
		if i+2 >= len(kv) || kv[i].kind != tStr || !isPunct(kv[i+1], "=") || kv[i+2].kind != tStr {
			return paimon.Errorf(catalog.ErrInvalid, "malformed hint %s: expected OPTIONS('key'='value', ...)", t.text)
		}
		n.out.options[unquote(kv[i])] = unquote(kv[i+2])
		i += 3
		if i < len(kv) {
			if !isPunct(kv[i], ",") {
				return paimon.Errorf(catalog.ErrInvalid, "malformed hint %s: expected ',' between options", t.text)
			}
			i++
		}
	}
	return nil
}

// parseCall parses `name(args)` after CALL; arguments must be string literals.
func parseCall(toks []token) (*callStmt, error) {
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
		case tIdent:
			name.WriteString(strings.ToLower(sig[i].text))
		case tBacktick, tDQuote:
			name.WriteString(strings.ToLower(unquote(sig[i])))
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
	c := &callStmt{proc: name.String()}
	args := sig[i+1 : len(sig)-1]
	for j := 0; j < len(args); j++ {
		if args[j].kind != tStr {
			return nil, paimon.Errorf(catalog.ErrUnsupported, "CALL %s: argument %d must be a string literal, got %s", c.proc, len(c.args)+1, args[j].text)
		}
		c.args = append(c.args, unquote(args[j]))
		if j+1 < len(args) {
			j++
			if !isPunct(args[j], ",") {
				return nil, paimon.Errorf(catalog.ErrInvalid, "CALL %s: expected ',' between arguments, got %s", c.proc, args[j].text)
			}
		}
	}
	return c, nil
}

// reservedAsName lists words sqlparser reserves that we always read as
// identifiers.
var reservedAsName = map[string]bool{"key": true, "keys": true}

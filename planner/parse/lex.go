package parse

import (
	"strconv"
	"strings"

	"github.com/xwb1989/sqlparser"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
	"github.com/paimon-flightsql/paimon-flightsql/paimon"
)

// maxDepth bounds the nesting of parentheses and braces. sqlparser stops at
// 200 levels itself; refusing earlier keeps every pass of the front end
// linear (each pass costs at most O(length × depth)).
const maxDepth = 190

type tokKind uint8

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
	tParam // ?, text rewritten to :vN
)

type token struct {
	kind tokKind
	text string // source text, quotes included (":vN" for parameters)
	pos  int    // byte offset in the original statement
}

// lex splits sql into tokens. It never fails on odd input: an unterminated
// quote or comment is reported as an error naming its position.
//
// A backslash escapes a quote in a string ('it\'s', as MySQL clients
// write); when that leaves a string unterminated, the statement is lexed
// again with backslashes as plain characters (standard SQL and DuckDB:
// LIKE 'a\%' ESCAPE '\').
func lex(sql string) ([]token, error) {
	toks, err := lexMode(sql, false)
	if err != nil && strings.IndexByte(sql, '\\') >= 0 {
		if t2, err2 := lexMode(sql, true); err2 == nil {
			return t2, nil
		}
	}
	return toks, err
}

func lexMode(sql string, plainBackslash bool) ([]token, error) {
	toks := make([]token, 0, len(sql)/2+8)
	nparam := 0
	brackets := 0 // open [ ... ]: a ':' there is a list slice
	braces := 0   // open { ... }: a ':' there separates a key and a value
	i := 0
	for i < len(sql) {
		c := sql[i]
		start := i
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f':
			for i < len(sql) && strings.IndexByte(" \t\n\r\f", sql[i]) >= 0 {
				i++
			}
			toks = append(toks, token{tSpace, sql[start:i], start})
		case c == '\'' || c == '"' || c == '`':
			j := i + 1
			closed := false
			for j < len(sql) {
				if sql[j] == '\\' && c == '\'' && !plainBackslash && j+1 < len(sql) {
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
			toks = append(toks, token{k, sql[start:i], start})
		case c == '-' && i+1 < len(sql) && sql[i+1] == '-', c == '#':
			for i < len(sql) && sql[i] != '\n' {
				i++
			}
			toks = append(toks, token{tComment, sql[start:i], start})
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
			toks = append(toks, token{k, sql[start:i], start})
		case isIdentStart(c):
			for i < len(sql) && isIdentPart(sql[i]) {
				i++
			}
			toks = append(toks, token{tIdent, sql[start:i], start})
		case c >= '0' && c <= '9' || c == '.' && i+1 < len(sql) && sql[i+1] >= '0' && sql[i+1] <= '9' && !prevIsName(toks):
			for i < len(sql) && (isIdentPart(sql[i]) || sql[i] == '.' ||
				(sql[i] == '+' || sql[i] == '-') && (sql[i-1] == 'e' || sql[i-1] == 'E')) {
				i++
			}
			toks = append(toks, token{tNumber, sql[start:i], start})
		case c == '?':
			i++
			nparam++
			toks = append(toks, token{tParam, ":v" + strconv.Itoa(nparam), start})
		case c == '/' && i+1 < len(sql) && sql[i+1] == '/':
			// DuckDB's integer division; sqlparser would read a comment.
			i += 2
			toks = append(toks, token{tSpace, " ", start}, token{tIdent, "DIV", start}, token{tSpace, " ", start})
		default:
			// multi-character operators stay together
			for _, op := range []string{"<=>", "->>", "<>", "!=", "<=", ">=", "||", "&&", "::", ":=", "<<", ">>", "=>", "->"} {
				if strings.HasPrefix(sql[i:], op) {
					i += len(op)
					break
				}
			}
			if i == start {
				i++
			}
			switch sql[start:i] {
			case "[":
				brackets++
			case "]":
				brackets--
			case "{":
				braces++
			case "}":
				braces--
			}
			if sql[start:i] == ":" && brackets <= 0 && braces <= 0 {
				return nil, paimon.Errorf(catalog.ErrUnsupported, "named parameters (:name) at position %d are not supported; use ?", start+1)
			}
			toks = append(toks, token{tPunct, sql[start:i], start})
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
		case tIdent:
			return !isKeyword(toks[i].text) // "between .5" is a number
		case tBacktick, tDQuote:
			return true
		}
		return toks[i].kind == tPunct && toks[i].text == ")"
	}
	return false
}

// clean turns comments into single spaces, merges runs of spaces and trims
// spaces and trailing semicolons, so that the next significant token is
// never more than one step away.
func clean(toks []token) []token {
	out := toks[:0] // in place: out never overtakes the input
	for _, t := range toks {
		if t.kind == tComment {
			t = token{tSpace, " ", t.pos}
		}
		if t.kind == tSpace && len(out) > 0 && out[len(out)-1].kind == tSpace {
			continue
		}
		out = append(out, t)
	}
	for len(out) > 0 && (out[len(out)-1].kind == tSpace || isPunct(out[len(out)-1], ";")) {
		out = out[:len(out)-1]
	}
	for len(out) > 0 && out[0].kind == tSpace {
		out = out[1:]
	}
	return out
}

// matchAll pairs every bracket with its partner: m[open] = close and
// m[close] = open, -1 elsewhere.
func matchAll(src string, toks []token) ([]int32, error) {
	m := make([]int32, len(toks))
	var stack []int
	for i, t := range toks {
		m[i] = -1
		if t.kind != tPunct {
			continue
		}
		switch t.text {
		case "(", "{", "[":
			if len(stack) >= maxDepth {
				return nil, errorAt(catalog.ErrInvalid, src, t.pos, "parentheses nested deeper than %d levels", maxDepth)
			}
			stack = append(stack, i)
		case ")", "}", "]":
			want := map[string]string{")": "(", "}": "{", "]": "["}[t.text]
			if len(stack) == 0 || toks[stack[len(stack)-1]].text != want {
				return nil, errorAt(catalog.ErrInvalid, src, t.pos, "unbalanced %q", t.text)
			}
			o := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			m[o], m[i] = int32(i), int32(o)
		}
	}
	if len(stack) > 0 {
		t := toks[stack[len(stack)-1]]
		return nil, errorAt(catalog.ErrInvalid, src, t.pos, "unbalanced %q: it is never closed", t.text)
	}
	return m, nil
}

func isPunct(t token, s string) bool { return t.kind == tPunct && t.text == s }

func isWord(t token, w string) bool { return t.kind == tIdent && strings.EqualFold(t.text, w) }

func isName(t token) bool { return t.kind == tIdent || t.kind == tBacktick || t.kind == tDQuote }

func backtick(name string) string { return "`" + strings.ReplaceAll(name, "`", "``") + "`" }

// nameOf returns the identifier a name token denotes.
func nameOf(t token) string {
	if t.kind == tIdent {
		return t.text
	}
	return unquote(t)
}

// unquote returns the content of a quoted token (MySQL escapes decoded in
// strings; used for hint and CALL arguments).
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

// strValue returns the value of a string literal in queries: ” and \'
// stand for a quote and \\ for a backslash; every other backslash is kept
// literally (standard SQL), so regular expressions such as '\.' or '\1'
// reach the functions unchanged.
func strValue(t token) string {
	body := t.text[1 : len(t.text)-1]
	if strings.IndexByte(body, '\\') < 0 && !strings.Contains(body, "''") {
		return body
	}
	var b strings.Builder
	for i := 0; i < len(body); i++ {
		switch {
		case body[i] == '\\' && i+1 < len(body) && (body[i+1] == '\'' || body[i+1] == '\\'):
			i++
		case body[i] == '\'' && i+1 < len(body) && body[i+1] == '\'':
			i++
		}
		b.WriteByte(body[i])
	}
	return b.String()
}

// sqlString renders s as a literal sqlparser decodes back to s.
func sqlString(s string) string {
	if strings.IndexByte(s, '\\') < 0 && strings.IndexByte(s, '\'') < 0 {
		return "'" + s + "'"
	}
	return "'" + strEscaper.Replace(s) + "'"
}

var strEscaper = strings.NewReplacer(`\`, `\\`, `'`, `''`)

// isKeyword reports whether sqlparser treats w as a keyword rather than an
// identifier.
func isKeyword(w string) bool {
	typ, _ := sqlparser.NewStringTokenizer(w).Scan()
	return typ != sqlparser.ID
}

// needsQuote reports whether an unquoted identifier must be back-quoted
// for sqlparser (it reads only ASCII letters, digits and _ in names).
func needsQuote(w string) bool {
	for i := 0; i < len(w); i++ {
		if w[i] >= 0x80 || w[i] == '$' {
			return true
		}
	}
	return false
}

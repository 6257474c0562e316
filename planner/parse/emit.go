package parse

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/xwb1989/sqlparser"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
	"github.com/paimon-flightsql/paimon-flightsql/paimon"
)

// chunk is a piece of the text handed to sqlparser, with the offset in the
// original statement it stands for.
type chunk struct {
	text string
	src  int
}

// emitter builds one text for sqlparser. prefix holds text to be written
// before a chunk, added after the chunk was emitted (the opening half of a
// wrapper found only when its operand was already written: `x::int`).
type emitter struct {
	chunks []chunk
	prefix map[int]string
}

func (e *emitter) add(src int, text string) { e.chunks = append(e.chunks, chunk{text, src}) }

// wrapFrom prepends text before chunk k; later wrappers enclose earlier ones.
func (e *emitter) wrapFrom(k int, text string) {
	if e.prefix == nil {
		e.prefix = map[int]string{}
	}
	e.prefix[k] = text + e.prefix[k]
}

type mark struct{ out, src int }

// render returns the text and the map from its offsets to original ones.
func (e *emitter) render() (string, []mark) {
	var b strings.Builder
	n := 0
	for _, c := range e.chunks {
		n += len(c.text)
	}
	b.Grow(n + 16*len(e.prefix))
	marks := make([]mark, 0, len(e.chunks)+len(e.prefix))
	for k, c := range e.chunks {
		if p, ok := e.prefix[k]; ok {
			marks = append(marks, mark{b.Len(), c.src})
			b.WriteString(p)
		}
		marks = append(marks, mark{b.Len(), c.src})
		b.WriteString(c.text)
	}
	return b.String(), marks
}

var posRE = regexp.MustCompile(`^(.*) at position (\d+)(?: near '(.*)')?$`)

// parseText runs sqlparser over the emitter's text and maps an error back to
// the original statement.
func (p *parser) parseText(e *emitter) (sqlparser.Statement, error) {
	text, marks := e.render()
	st, err := sqlparser.ParseStrictDDL(text)
	if err == nil {
		return st, nil
	}
	msg := err.Error()
	m := posRE.FindStringSubmatch(msg)
	if m == nil {
		return nil, paimon.Errorf(catalog.ErrInvalid, "cannot parse SQL: %s", msg)
	}
	n, _ := strconv.Atoi(m[2])
	// sqlparser reports the offset just after the token it stopped at.
	at := n - 1
	eof := at >= len(strings.TrimRight(text, " \t\n;"))
	if at >= len(text) {
		at = len(text) - 1
	}
	for at > 0 && (text[at] == ' ' || at >= len(text)) {
		at--
	}
	src := 0
	if len(marks) > 0 {
		lo, hi := 0, len(marks)-1
		for lo < hi {
			mid := (lo + hi + 1) / 2
			if marks[mid].out <= at {
				lo = mid
			} else {
				hi = mid - 1
			}
		}
		src = marks[lo].src
	}
	what := m[1]
	if what == "syntax error" {
		if exp := expectation(p.src, src, eof); exp != "" {
			return nil, errorAt(catalog.ErrInvalid, p.src, src, "syntax error (%s)", exp)
		}
		return nil, errorAt(catalog.ErrInvalid, p.src, src, "syntax error")
	}
	return nil, errorAt(catalog.ErrInvalid, p.src, src, "%s", what)
}

// errorAt formats "<msg> at line L, column C near 'tok'" followed by the
// statement line and a caret under the column.
func errorAt(kind error, src string, pos int, format string, a ...any) error {
	if pos > len(src) {
		pos = len(src)
	}
	if pos < 0 {
		pos = 0
	}
	line := 1 + strings.Count(src[:pos], "\n")
	ls := strings.LastIndexByte(src[:pos], '\n') + 1
	le := strings.IndexByte(src[pos:], '\n')
	if le < 0 {
		le = len(src)
	} else {
		le += pos
	}
	col := pos - ls + 1
	near := src[pos:]
	if toks, err := lex(near); err == nil && len(toks) > 0 {
		near = toks[0].text
	}
	if len(near) > 40 {
		near = near[:40] + "..."
	}
	// Show at most 60 bytes either side of the error on long lines.
	from, to := ls, le
	lead := ""
	if pos-from > 60 {
		from, lead = pos-60, "..."
	}
	tail := ""
	if to-pos > 60 {
		to, tail = pos+60, "..."
	}
	excerpt := lead + strings.ReplaceAll(src[from:to], "\t", " ") + tail
	caret := strings.Repeat(" ", len(lead)+pos-from) + "^"
	msg := fmt.Sprintf(format, a...)
	if near == "" {
		return paimon.Errorf(kind, "%s at line %d, column %d (end of statement)\n%s\n%s", msg, line, col, excerpt, caret)
	}
	return paimon.Errorf(kind, "%s at line %d, column %d near '%s'\n%s\n%s", msg, line, col, near, excerpt, caret)
}

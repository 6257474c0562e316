package parse

import (
	"strings"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
)

// needsOperand are tokens after which the grammar expects an expression.
var needsOperand = map[string]bool{
	"select": true, "where": true, "having": true, "on": true, "and": true, "or": true, "not": true,
	"when": true, "then": true, "else": true, "=": true, "<": true, ">": true, "<=": true, ">=": true,
	"<>": true, "!=": true, "+": true, "-": true, "/": true, "%": true, "||": true,
	",": true, "(": true, "like": true, "between": true, "in": true, "is": false,
}

// clauseKeywords are the words that may follow a complete expression or
// table reference; a misspelt one (FORM) is suggested.
var clauseKeywords = []string{"FROM", "WHERE", "GROUP", "HAVING", "ORDER", "LIMIT", "OFFSET", "UNION",
	"JOIN", "LEFT", "RIGHT", "INNER", "OUTER", "ON", "AS", "AND", "OR", "BY", "SELECT", "DISTINCT",
	"CASE", "WHEN", "THEN", "ELSE", "END", "BETWEEN", "LIKE", "IN", "NOT", "NULL", "IS", "ASC", "DESC"}

// clauseStarts are the keywords suggested for a misspelt word after a
// complete expression or table reference.
var clauseStarts = []string{"FROM", "WHERE", "GROUP", "HAVING", "ORDER", "LIMIT", "OFFSET", "UNION", "JOIN", "ON", "AS"}

// expectation says what the grammar wanted at byte pos of src, from the
// token before it and the token there: "expected an expression after
// 'AND'", "expected a table name after 'FROM'", "'FORM' is not a keyword
// here (did you mean \"FROM\"?)". "" when nothing useful can be said.
//
// eof reports that the parser ran out of input: the token at pos is then
// the last one, and what follows it is missing.
func expectation(src string, pos int, eof bool) string {
	toks, err := lex(src)
	if err != nil {
		return ""
	}
	var list []*token
	for i := range toks {
		if toks[i].kind != tSpace && toks[i].kind != tComment {
			list = append(list, &toks[i])
		}
	}
	i := 0
	for i < len(list) && list[i].pos < pos {
		i++
	}
	var prev, at *token
	if i > 0 {
		prev = list[i-1]
	}
	if i < len(list) {
		at = list[i]
	}
	// Out of input at the last token: it is what came before the missing
	// part, unless it is a word standing where a keyword belongs (b FORM).
	if eof && at != nil && !(at.kind == tIdent && !isClauseKeyword(at.text) && prev != nil && isOperand(prev)) {
		prev, at = at, nil
	}
	if prev == nil {
		return ""
	}
	p := strings.ToLower(prev.text)
	atWord := ""
	if at != nil && at.kind == tIdent {
		atWord = strings.ToUpper(at.text)
	}
	switch {
	case p == "from" || p == "join":
		return "expected a table name after '" + prev.text + "'"
	case p == "by":
		return "expected an expression after 'BY'"
	case needsOperand[p] && prev.kind != tStr && prev.kind != tNumber:
		if at == nil {
			return "expected an expression after '" + prev.text + "', found the end of the statement"
		}
		return "expected an expression after '" + prev.text + "'"
	case prev.kind == tIdent && !isClauseKeyword(prev.text) && i >= 2 && isOperand(list[i-2]) && at != nil && isOperand(at):
		// orders WHER x: the misspelt keyword was taken as an alias.
		if hint := catalog.DidYouMean(strings.ToUpper(prev.text), clauseStarts); hint != "" {
			return "'" + prev.text + "' is not a keyword here" + hint
		}
	case atWord != "":
		if isClauseKeyword(atWord) {
			return ""
		}
		if hint := catalog.DidYouMean(atWord, clauseStarts); hint != "" {
			return "'" + at.text + "' is not a keyword here" + hint
		}
	}
	return ""
}

func isClauseKeyword(w string) bool {
	w = strings.ToUpper(w)
	for _, k := range clauseKeywords {
		if k == w {
			return true
		}
	}
	return false
}

// isOperand reports tokens that can end an expression or a table reference.
func isOperand(t *token) bool {
	switch t.kind {
	case tIdent:
		return !isClauseKeyword(t.text)
	case tBacktick, tDQuote, tStr, tNumber, tParam:
		return true
	}
	return t.text == ")"
}

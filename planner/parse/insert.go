package parse

import (
	"strings"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
	"github.com/paimon-flightsql/paimon-flightsql/paimon"
)

// Insert is INSERT INTO [db.]t [(c, ...)] VALUES (...), ... | query.
// Source is the SQL text of a query producing the rows: the query as
// written, or the VALUES rows as SELECT ... UNION ALL SELECT ....
type Insert struct {
	Database string // "" = the session database
	Table    string
	Columns  []string // nil = every column, in table order
	Source   string
	Rows     int // number of VALUES rows (0 for a query)
}

// parseInsert parses the tokens after INSERT; src is the statement text.
func parseInsert(src string, toks []token) (*Insert, error) {
	d := &ddlParser{}
	for _, t := range toks {
		if t.kind != tSpace && t.kind != tComment {
			d.sig = append(d.sig, t)
		}
	}
	if d.acceptWords("OVERWRITE") {
		return nil, paimon.Errorf(catalog.ErrUnsupported, "INSERT OVERWRITE: overwrite commits are not supported yet (DELETE, then INSERT INTO)")
	}
	if !d.acceptWords("INTO") {
		return nil, d.errf("expected INTO after INSERT")
	}
	in := &Insert{}
	var err error
	if in.Database, in.Table, err = d.qualified(); err != nil {
		return nil, err
	}
	if d.i < len(d.sig) && isPunct(d.sig[d.i], "(") && !(d.i+1 < len(d.sig) && (isWord(d.sig[d.i+1], "SELECT") || isWord(d.sig[d.i+1], "WITH"))) {
		if in.Columns, err = d.nameList(); err != nil {
			return nil, err
		}
	}
	if d.i >= len(d.sig) {
		return nil, d.errf("expected VALUES or a query")
	}
	if !d.acceptWords("VALUES") {
		t := d.sig[d.i]
		if !isWord(t, "SELECT") && !isWord(t, "WITH") && !isPunct(t, "(") {
			return nil, d.errf("expected VALUES or a query")
		}
		in.Source = src[t.pos:]
		return in, nil
	}
	var rows []string
	for {
		if !d.acceptPunct("(") {
			return nil, d.errf("expected '(' and a row of values")
		}
		start := d.i
		depth := 1
		for ; d.i < len(d.sig); d.i++ {
			if isPunct(d.sig[d.i], "(") {
				depth++
			} else if isPunct(d.sig[d.i], ")") {
				depth--
				if depth == 0 {
					break
				}
			}
		}
		if d.i >= len(d.sig) || d.i == start {
			return nil, d.errf("expected a row of values closed by ')'")
		}
		rows = append(rows, "SELECT "+src[d.sig[start].pos:d.sig[d.i].pos])
		d.i++
		if !d.acceptPunct(",") {
			break
		}
	}
	if err := d.end(); err != nil {
		return nil, err
	}
	in.Source = strings.Join(rows, " UNION ALL ")
	in.Rows = len(rows)
	return in, nil
}

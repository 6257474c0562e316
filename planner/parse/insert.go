package parse

import (
	"strings"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
	"github.com/paimon-flightsql/paimon-flightsql/paimon"
)

// Insert is
//
//	INSERT INTO [db.]t [(c, ...)] VALUES (...), ... | query
//	INSERT OVERWRITE [TABLE] [db.]t [PARTITION (k = v, ...)] [(c, ...)] VALUES ... | query
//
// Source is the SQL text of a query producing the rows: the query as
// written, or the VALUES rows as SELECT ... UNION ALL SELECT .... With a
// static PARTITION spec the source gives the other columns (Flink).
type Insert struct {
	Database  string // "" = the session database
	Table     string
	Columns   []string // nil = every column (but static partition columns), in table order
	Source    string
	Rows      int  // number of VALUES rows (0 for a query)
	Overwrite bool // INSERT OVERWRITE
	Static    []StaticPartition
}

// StaticPartition is one k = v of INSERT OVERWRITE ... PARTITION (...).
type StaticPartition struct {
	Column  string
	Value   string // the value as text (a string literal unquoted)
	Literal string // the SQL literal as written
}

// parseInsert parses the tokens after INSERT; src is the statement text.
func parseInsert(src string, toks []token) (*Insert, error) {
	d := &ddlParser{}
	for _, t := range toks {
		if t.kind != tSpace && t.kind != tComment {
			d.sig = append(d.sig, t)
		}
	}
	in := &Insert{}
	if d.acceptWords("OVERWRITE") {
		in.Overwrite = true
		d.acceptWords("TABLE")
	} else if !d.acceptWords("INTO") {
		return nil, d.errf("expected INTO or OVERWRITE after INSERT")
	}
	var err error
	if in.Database, in.Table, err = d.qualified(); err != nil {
		return nil, err
	}
	if d.acceptWords("PARTITION") {
		if !in.Overwrite {
			return nil, paimon.Errorf(catalog.ErrUnsupported, "INSERT INTO ... PARTITION (...): list the partition columns in the rows instead (PARTITION is supported with INSERT OVERWRITE)")
		}
		if in.Static, err = d.staticPartition(); err != nil {
			return nil, err
		}
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

// staticPartition parses (k = literal, ...) after PARTITION.
func (d *ddlParser) staticPartition() ([]StaticPartition, error) {
	if !d.acceptPunct("(") {
		return nil, d.errf("expected '(' after PARTITION")
	}
	var out []StaticPartition
	for {
		k, err := d.name("partition column")
		if err != nil {
			return nil, err
		}
		for _, p := range out {
			if strings.EqualFold(p.Column, k) {
				return nil, d.errf("partition column %s given twice", k)
			}
		}
		if !d.acceptPunct("=") {
			return nil, d.errf("expected '=' after partition column %s", k)
		}
		neg := d.acceptPunct("-")
		if d.i >= len(d.sig) {
			return nil, d.errf("expected the value of partition column %s", k)
		}
		t := d.sig[d.i]
		sp := StaticPartition{Column: k}
		switch {
		case t.kind == tStr && !neg:
			sp.Value, sp.Literal = unquote(t), t.text
		case t.kind == tNumber:
			sp.Value, sp.Literal = t.text, t.text
			if neg {
				sp.Value, sp.Literal = "-"+t.text, "-"+t.text
			}
		case isWord(t, "NULL"):
			return nil, paimon.Errorf(catalog.ErrUnsupported, "PARTITION (%s = NULL): give NULL partition values in the rows", k)
		default:
			return nil, d.errf("expected a string or number for partition column %s", k)
		}
		d.i++
		out = append(out, sp)
		if d.acceptPunct(")") {
			return out, nil
		}
		if !d.acceptPunct(",") {
			return nil, d.errf("expected ',' or ')' in PARTITION (...)")
		}
	}
}

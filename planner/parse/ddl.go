package parse

import (
	"fmt"
	"strings"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/write"
)

// DDL is CREATE/DROP DATABASE or CREATE/DROP TABLE (xwb1989/sqlparser
// lacks Paimon's DDL, so these are parsed here, Flink SQL syntax):
//
//	CREATE DATABASE [IF NOT EXISTS] db
//	DROP DATABASE [IF EXISTS] db [CASCADE | RESTRICT]
//	CREATE TABLE [IF NOT EXISTS] [db.]t (
//	    col TYPE [NOT NULL | NULL] [COMMENT 'c'], ...
//	    [, PRIMARY KEY (k, ...) NOT ENFORCED]
//	) [COMMENT 'c'] [PARTITIONED BY (p, ...)] [WITH ('k' = 'v', ...)]
//	DROP TABLE [IF EXISTS] [db.]t
//
// Types are Paimon's SQL types (types.ParseAtomic) plus ARRAY<T>,
// MAP<K, V> and ROW<name T, ...>.
type DDL struct {
	Kind          string // "CREATE DATABASE", "DROP DATABASE", "CREATE TABLE", "DROP TABLE"
	Database      string // "" = the session database (tables only)
	Table         string
	IfNotExists   bool
	IfExists      bool
	Cascade       bool
	Columns       []types.DataField
	PrimaryKey    []string
	PartitionedBy []string
	Options       map[string]string
	Reset         []string // ALTER TABLE t RESET ('k', ...)
	// Changes are ALTER TABLE column changes (alter.go), applied in order.
	Changes []write.ColumnChange
	Comment string
	// AsSelect is the query of CREATE TABLE ... AS SELECT (its SQL text).
	AsSelect string
}

type ddlParser struct {
	sig []token
	i   int
}

func (d *ddlParser) peekWord(w string) bool { return d.i < len(d.sig) && isWord(d.sig[d.i], w) }

func (d *ddlParser) acceptWords(ws ...string) bool {
	if d.i+len(ws) > len(d.sig) {
		return false
	}
	for k, w := range ws {
		if !isWord(d.sig[d.i+k], w) {
			return false
		}
	}
	d.i += len(ws)
	return true
}

func (d *ddlParser) acceptPunct(s string) bool {
	if d.i < len(d.sig) && isPunct(d.sig[d.i], s) {
		d.i++
		return true
	}
	return false
}

func (d *ddlParser) errf(format string, a ...any) error {
	at := "end of statement"
	if d.i < len(d.sig) {
		at = "'" + d.sig[d.i].text + "'"
	}
	return paimon.Errorf(catalog.ErrInvalid, "%s (at %s)", strings.TrimSpace(fmt.Sprintf(format, a...)), at)
}

func (d *ddlParser) name(what string) (string, error) {
	if d.i >= len(d.sig) || !isName(d.sig[d.i]) {
		return "", d.errf("expected a %s name", what)
	}
	n := nameOf(d.sig[d.i])
	d.i++
	return n, nil
}

// qualified parses [db.]name.
func (d *ddlParser) qualified() (string, string, error) {
	a, err := d.name("table")
	if err != nil {
		return "", "", err
	}
	if d.acceptPunct(".") {
		b, err := d.name("table")
		return a, b, err
	}
	return "", a, nil
}

func (d *ddlParser) nameList() ([]string, error) {
	if !d.acceptPunct("(") {
		return nil, d.errf("expected '('")
	}
	var out []string
	for {
		n, err := d.name("column")
		if err != nil {
			return nil, err
		}
		out = append(out, n)
		if d.acceptPunct(")") {
			return out, nil
		}
		if !d.acceptPunct(",") {
			return nil, d.errf("expected ',' or ')' in the column list")
		}
	}
}

func (d *ddlParser) str(what string) (string, error) {
	if d.i >= len(d.sig) || d.sig[d.i].kind != tStr {
		return "", d.errf("expected a quoted string for %s", what)
	}
	s := unquote(d.sig[d.i])
	d.i++
	return s, nil
}

func (d *ddlParser) end() error {
	if d.i != len(d.sig) {
		return d.errf("unexpected text after the statement")
	}
	return nil
}

// parseDDL parses the tokens after CREATE or DROP; src is the statement
// text. CREATE TABLE ... AS query (CTAS) takes the clauses COMMENT,
// PARTITIONED BY and WITH before AS, and no column list.
func parseDDL(src string, toks []token, create bool) (*DDL, error) {
	d := &ddlParser{}
	for _, t := range toks {
		if t.kind != tSpace && t.kind != tComment {
			d.sig = append(d.sig, t)
		}
	}
	out := &DDL{}
	verb := "DROP"
	if create {
		verb = "CREATE"
	}
	switch {
	case d.acceptWords("DATABASE"), d.acceptWords("SCHEMA"):
		out.Kind = verb + " DATABASE"
	case d.acceptWords("TABLE"):
		out.Kind = verb + " TABLE"
	default:
		return nil, paimon.Errorf(catalog.ErrUnsupported, "%s: only %s DATABASE and %s TABLE are supported", verb, verb, verb)
	}
	if create {
		out.IfNotExists = d.acceptWords("IF", "NOT", "EXISTS")
	} else {
		out.IfExists = d.acceptWords("IF", "EXISTS")
	}
	var err error
	if strings.HasSuffix(out.Kind, "DATABASE") {
		if out.Database, err = d.name("database"); err != nil {
			return nil, err
		}
		if !create {
			out.Cascade = d.acceptWords("CASCADE")
			if !out.Cascade {
				d.acceptWords("RESTRICT")
			}
		}
		return out, d.end()
	}
	if out.Database, out.Table, err = d.qualified(); err != nil {
		return nil, err
	}
	if !create {
		return out, d.end()
	}
	ctas := !(d.i < len(d.sig) && isPunct(d.sig[d.i], "("))
	if !ctas {
		if err := d.columns(out); err != nil {
			return nil, err
		}
	}
	for d.i < len(d.sig) {
		switch {
		case d.acceptWords("COMMENT"):
			if out.Comment, err = d.str("COMMENT"); err != nil {
				return nil, err
			}
		case d.acceptWords("PARTITIONED", "BY"):
			if out.PartitionedBy, err = d.nameList(); err != nil {
				return nil, err
			}
		case d.acceptWords("WITH"):
			if out.Options, err = d.options(); err != nil {
				return nil, err
			}
		case d.acceptWords("AS"):
			if !ctas {
				return nil, paimon.Errorf(catalog.ErrUnsupported, "CREATE TABLE t (columns) AS query: CREATE TABLE ... AS takes its columns from the query (drop the column list)")
			}
			if d.i >= len(d.sig) || !(isWord(d.sig[d.i], "SELECT") || isWord(d.sig[d.i], "WITH") || isWord(d.sig[d.i], "VALUES") || isPunct(d.sig[d.i], "(")) {
				return nil, d.errf("expected a query after AS")
			}
			if isWord(d.sig[d.i], "VALUES") {
				return nil, paimon.Errorf(catalog.ErrUnsupported, "CREATE TABLE ... AS VALUES (use AS SELECT ... UNION ALL SELECT ...)")
			}
			out.AsSelect = src[d.sig[d.i].pos:]
			return out, nil
		default:
			return nil, d.errf("expected COMMENT, PARTITIONED BY, WITH or AS")
		}
	}
	if ctas {
		return nil, d.errf("expected '(' and the column list, or AS and a query")
	}
	return out, nil
}

func (d *ddlParser) options() (map[string]string, error) {
	if !d.acceptPunct("(") {
		return nil, d.errf("expected '(' after WITH")
	}
	opts := map[string]string{}
	for {
		k, err := d.str("an option key")
		if err != nil {
			return nil, err
		}
		if !d.acceptPunct("=") {
			return nil, d.errf("expected '=' after option '%s'", k)
		}
		v, err := d.str("the value of option '" + k + "'")
		if err != nil {
			return nil, err
		}
		if _, dup := opts[k]; dup {
			return nil, d.errf("option '%s' given twice", k)
		}
		opts[k] = v
		if d.acceptPunct(")") {
			return opts, nil
		}
		if !d.acceptPunct(",") {
			return nil, d.errf("expected ',' or ')' in WITH")
		}
	}
}

func (d *ddlParser) columns(out *DDL) error {
	if !d.acceptPunct("(") {
		return d.errf("expected '(' and the column list")
	}
	for {
		if d.acceptWords("PRIMARY", "KEY") {
			if out.PrimaryKey != nil {
				return d.errf("PRIMARY KEY given twice")
			}
			pk, err := d.nameList()
			if err != nil {
				return err
			}
			if !d.acceptWords("NOT", "ENFORCED") {
				return d.errf("expected NOT ENFORCED after PRIMARY KEY (...): Paimon does not enforce keys, it merges rows by key")
			}
			out.PrimaryKey = pk
		} else {
			name, err := d.name("column")
			if err != nil {
				return err
			}
			dt, err := d.colType(name)
			if err != nil {
				return err
			}
			f := types.DataField{Name: name, Type: dt}
			if d.acceptWords("COMMENT") {
				c, err := d.str("COMMENT")
				if err != nil {
					return err
				}
				f.Description = &c
			}
			out.Columns = append(out.Columns, f)
		}
		if d.acceptPunct(")") {
			return nil
		}
		if !d.acceptPunct(",") {
			return d.errf("expected ',' or ')' after a column")
		}
	}
}

// parseColumnType parses a column type: ARRAY<T>, MAP<K, V>, ROW<n T, ...>
// recursively, anything else with types.ParseAtomic.
func parseColumnType(s string) (types.DataType, error) {
	s = strings.TrimSpace(s)
	up := strings.ToUpper(s)
	open := strings.IndexByte(s, '<')
	if open < 0 || !strings.HasSuffix(s, ">") {
		return types.ParseAtomic(s)
	}
	head := strings.TrimSpace(up[:open])
	parts := splitTop(s[open+1 : len(s)-1])
	switch head {
	case "ARRAY":
		if len(parts) != 1 {
			return types.DataType{}, paimon.Errorf(catalog.ErrInvalid, "ARRAY<T> takes one type: %s", s)
		}
		e, err := parseColumnType(parts[0])
		if err != nil {
			return e, err
		}
		return types.NewArray(e), nil
	case "MAP":
		if len(parts) != 2 {
			return types.DataType{}, paimon.Errorf(catalog.ErrInvalid, "MAP<K, V> takes two types: %s", s)
		}
		k, err := parseColumnType(parts[0])
		if err != nil {
			return k, err
		}
		v, err := parseColumnType(parts[1])
		if err != nil {
			return v, err
		}
		return types.NewMap(k, v), nil
	case "ROW":
		fs := make([]types.DataField, len(parts))
		for i, p := range parts {
			p = strings.TrimSpace(p)
			sp := strings.IndexAny(p, " \t\n")
			if sp < 0 {
				return types.DataType{}, paimon.Errorf(catalog.ErrInvalid, "ROW field %q needs a name and a type", p)
			}
			ft, err := parseColumnType(p[sp+1:])
			if err != nil {
				return ft, err
			}
			fs[i] = types.DataField{Name: strings.Trim(p[:sp], "`\""), Type: ft}
		}
		return types.NewRow(fs...), nil
	}
	return types.DataType{}, paimon.Errorf(catalog.ErrInvalid, "unknown type %s", s)
}

// splitTop splits s at commas outside <> and ().
func splitTop(s string) []string {
	var out []string
	depth, start := 0, 0
	for i, c := range s {
		switch c {
		case '<', '(':
			depth++
		case '>', ')':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}

package planner

import (
	"regexp"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
)

// SET name = value, SET name TO value, SET SESSION name = value and USE db
// set session options: the statement carries the settings (Settings) and
// returns them as rows (name, value). The engine does not keep sessions:
// the caller (the Flight SQL server) validates and stores them, as it does
// for Flight SetSessionOptions. Names may be quoted ('scan.snapshot-id',
// `scan.snapshot-id`, "scan.snapshot-id"); values may be quoted strings,
// numbers or words.
var (
	setStmt = regexp.MustCompile(`(?is)^\s*SET\s+(?:SESSION\s+|LOCAL\s+)?(?:'([^']+)'|"([^"]+)"|` + "`([^`]+)`" + `|([A-Za-z_][\w.\-]*))\s*(?:=|\s+TO\s+)\s*(.*?)\s*;?\s*$`)
	useStmt = regexp.MustCompile(`(?is)^\s*USE\s+(?:"([^"]+)"|` + "`([^`]+)`" + `|([\w.\-]+))\s*;?\s*$`)
)

var settingsSchema = arrow.NewSchema([]arrow.Field{
	{Name: "name", Type: arrow.BinaryTypes.String},
	{Name: "value", Type: arrow.BinaryTypes.String},
}, nil)

// settingAliases map other dialects' names to the session option names.
var settingAliases = map[string]string{
	"search_path": "schema", "database": "schema", "current_schema": "schema",
	"current_catalog": "catalog",
}

// prepareSet recognises SET and USE; ok is false for other SQL.
func (e *Engine) prepareSet(sql string) (*Statement, bool, error) {
	var name, value string
	if m := useStmt.FindStringSubmatch(sql); m != nil {
		name, value = "schema", m[1]+m[2]+m[3]
		if c, db, ok := strings.Cut(value, "."); ok && m[3] != "" {
			if e.opts.CatalogName != "" && !strings.EqualFold(c, e.opts.CatalogName) {
				return nil, true, invalidf("USE %s: catalog %q does not exist (this server's catalog is %q)", value, c, e.opts.CatalogName)
			}
			value = db
		}
	} else if m := setStmt.FindStringSubmatch(sql); m != nil {
		name = strings.ToLower(m[1] + m[2] + m[3] + m[4])
		v, err := settingValue(m[5])
		if err != nil {
			return nil, true, err
		}
		value = v
	} else {
		return nil, false, nil
	}
	if a, ok := settingAliases[name]; ok {
		name = a
	}
	return &Statement{e: e, kind: kindRows, schema: settingsSchema, rows: [][]any{{name, value}},
		settings: map[string]string{name: value}}, true, nil
}

// settingValue unquotes a SET value: 'text' (with ” for '), "text", or a
// bare word or number.
func settingValue(s string) (string, error) {
	s = strings.TrimSpace(s)
	switch {
	case s == "":
		return "", invalidf("SET needs a value")
	case len(s) >= 2 && s[0] == '\'' && s[len(s)-1] == '\'':
		return strings.ReplaceAll(s[1:len(s)-1], "''", "'"), nil
	case len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"':
		return s[1 : len(s)-1], nil
	case strings.ContainsAny(s, " \t\n,;()"):
		return "", invalidf("SET value %s: quote it ('...')", s)
	}
	return s, nil
}

// Settings returns the session options a SET or USE statement sets (nil
// for other statements). The statement's result lists them.
func (s *Statement) Settings() map[string]string { return s.settings }

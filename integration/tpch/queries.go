package tpch

import (
	"embed"
	"fmt"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode"
)

// The query texts are the 22 TPC-H queries with the specification's
// qualification parameters, as DuckDB's tpch extension ships them
// (extension/tpch/dbgen/queries/qNN.sql: date arithmetic folded into
// CAST('…' AS date) literals); Q15 is in its WITH form with the view
// named revenue0 as in the specification.
//
//go:embed queries/*.sql
var queryFS embed.FS

// Query is one TPC-H query.
type Query struct {
	Name string // "q01" … "q22"
	SQL  string // the text, without the trailing semicolon
	// OrderBy is the top-level ORDER BY, by output column name.
	OrderBy []SortKey
	// Limit is the top-level LIMIT (0 = none).
	Limit int
}

// SortKey is one ORDER BY item.
type SortKey struct {
	Column string
	Desc   bool
}

var queries = func() []Query {
	ents, err := queryFS.ReadDir("queries")
	if err != nil {
		panic(err)
	}
	var out []Query
	for _, e := range ents {
		data, err := queryFS.ReadFile(path.Join("queries", e.Name()))
		if err != nil {
			panic(err)
		}
		q, err := parseQuery(strings.TrimSuffix(e.Name(), ".sql"), string(data))
		if err != nil {
			panic(err)
		}
		out = append(out, q)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}()

// Queries returns the 22 queries, q01 first.
func Queries() []Query { return append([]Query(nil), queries...) }

// QueryByName returns the query named name ("q01"; "1" and "Q1" work too).
func QueryByName(name string) (Query, bool) {
	n := strings.TrimPrefix(strings.ToLower(strings.TrimSpace(name)), "q")
	if k, err := strconv.Atoi(n); err == nil {
		n = fmt.Sprintf("q%02d", k)
	}
	for _, q := range queries {
		if q.Name == n {
			return q, true
		}
	}
	return Query{}, false
}

var trailingLimit = regexp.MustCompile(`(?is)\s+LIMIT\s+\d+\s*$`)

// WithoutLimit returns the text without its top-level LIMIT (the text
// itself when it has none).
func (q Query) WithoutLimit() string {
	if q.Limit == 0 {
		return q.SQL
	}
	return trailingLimit.ReplaceAllString(q.SQL, "")
}

func parseQuery(name, text string) (Query, error) {
	sqlText := strings.TrimSpace(text)
	sqlText = strings.TrimSpace(strings.TrimSuffix(sqlText, ";"))
	q := Query{Name: name, SQL: sqlText}
	toks := topLevelTokens(sqlText)
	orderAt, limitAt := -1, -1
	for i := 0; i+1 < len(toks); i++ {
		if strings.EqualFold(toks[i], "ORDER") && strings.EqualFold(toks[i+1], "BY") {
			orderAt = i + 2
		}
		if strings.EqualFold(toks[i], "LIMIT") {
			limitAt = i
		}
	}
	if limitAt >= 0 {
		n, err := strconv.Atoi(toks[limitAt+1])
		if err != nil {
			return q, fmt.Errorf("tpch: %s: LIMIT %q", name, toks[limitAt+1])
		}
		q.Limit = n
	}
	if orderAt >= 0 {
		end := len(toks)
		if limitAt > orderAt {
			end = limitAt
		}
		var item []string
		flush := func() error {
			switch {
			case len(item) == 1:
				q.OrderBy = append(q.OrderBy, SortKey{Column: item[0]})
			case len(item) == 2 && (strings.EqualFold(item[1], "DESC") || strings.EqualFold(item[1], "ASC")):
				q.OrderBy = append(q.OrderBy, SortKey{Column: item[0], Desc: strings.EqualFold(item[1], "DESC")})
			default:
				return fmt.Errorf("tpch: %s: ORDER BY item %q is not a column name", name, strings.Join(item, " "))
			}
			item = item[:0]
			return nil
		}
		for _, t := range toks[orderAt:end] {
			if t == "," {
				if err := flush(); err != nil {
					return q, err
				}
				continue
			}
			item = append(item, t)
		}
		if err := flush(); err != nil {
			return q, err
		}
	}
	return q, nil
}

// topLevelTokens splits sql into words and commas outside parentheses and
// quotes (what is inside is dropped).
func topLevelTokens(sql string) []string {
	var toks []string
	depth := 0
	var cur strings.Builder
	emit := func() {
		if cur.Len() > 0 {
			toks = append(toks, cur.String())
			cur.Reset()
		}
	}
	inQuote := false
	for _, r := range sql {
		switch {
		case inQuote:
			if r == '\'' {
				inQuote = false
			}
		case r == '\'':
			inQuote = true
			emit()
		case r == '(':
			emit()
			depth++
		case r == ')':
			depth--
		case depth > 0:
		case r == ',':
			emit()
			toks = append(toks, ",")
		case unicode.IsSpace(r):
			emit()
		default:
			cur.WriteRune(r)
		}
	}
	emit()
	return toks
}

// ParseQuery reads a query text (one statement, an optional trailing
// semicolon) with its top-level ORDER BY and LIMIT, for harnesses that
// compare other statements the way the TPC-H queries are compared.
func ParseQuery(name, text string) (Query, error) { return parseQuery(name, text) }

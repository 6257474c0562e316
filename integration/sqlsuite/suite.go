package sqlsuite

import (
	"embed"
	"fmt"
	"path"
	"sort"
	"strings"
)

//go:embed *.sql
var files embed.FS

// Case is one query of a suite file.
type Case struct {
	File     string
	Line     int
	Database string
	SQL      string
	Ordered  bool
	Known    string // reason of a known gap ("" = must match)
}

// Name is file:line.
func (c Case) Name() string { return fmt.Sprintf("%s:%d", c.File, c.Line) }

// Cases parses every embedded file, in file-name order.
func Cases() ([]Case, error) {
	ents, err := files.ReadDir(".")
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	var out []Case
	for _, n := range names {
		b, err := files.ReadFile(path.Join(".", n))
		if err != nil {
			return nil, err
		}
		cs, err := Parse(n, string(b))
		if err != nil {
			return nil, err
		}
		out = append(out, cs...)
	}
	return out, nil
}

// Parse splits one suite file into its cases.
func Parse(name, text string) ([]Case, error) {
	var (
		out     []Case
		db      string
		cur     *Case
		buf     []string
		ordered bool
		known   string
	)
	for i, line := range strings.Split(text, "\n") {
		trim := strings.TrimSpace(line)
		if cur == nil {
			switch {
			case trim == "":
				continue
			case strings.HasPrefix(trim, "-- database:"):
				db = strings.TrimSpace(strings.TrimPrefix(trim, "-- database:"))
				continue
			case trim == "-- ordered":
				ordered = true
				continue
			case strings.HasPrefix(trim, "-- known:"):
				known = strings.TrimSpace(strings.TrimPrefix(trim, "-- known:"))
				continue
			case strings.HasPrefix(trim, "--"):
				continue
			}
			if db == "" {
				return nil, fmt.Errorf("%s:%d: no -- database: line before the first case", name, i+1)
			}
			cur = &Case{File: name, Line: i + 1, Database: db, Ordered: ordered, Known: known}
			ordered, known = false, ""
		}
		buf = append(buf, line)
		if strings.HasSuffix(trim, ";") {
			cur.SQL = strings.TrimSuffix(strings.TrimSpace(strings.Join(buf, "\n")), ";")
			out = append(out, *cur)
			cur, buf = nil, nil
		}
	}
	if cur != nil {
		return nil, fmt.Errorf("%s:%d: case without a final ';'", name, cur.Line)
	}
	return out, nil
}

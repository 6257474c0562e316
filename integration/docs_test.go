package integration

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-adbc/go/adbc"
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/planner"
)

// exampleBlock is a fenced block whose info string is "<lang> example".
var exampleBlock = regexp.MustCompile("(?ms)^```(\\w+) example\\n(.*?)^```")

type docExample struct{ file, lang, body string }

func docExamples(t *testing.T) []docExample {
	t.Helper()
	var out []docExample
	for _, f := range []string{"../README.md", "../docs/design/flightsql.md"} {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range exampleBlock.FindAllStringSubmatch(string(data), -1) {
			out = append(out, docExample{file: filepath.Base(f), lang: m[1], body: m[2]})
		}
	}
	return out
}

// splitStatements splits a block of SQL at semicolons ending a line.
func splitStatements(body string) []string {
	var out []string
	for _, s := range regexp.MustCompile(`;\s*\n`).Split(body+"\n", -1) {
		if s = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), ";")); s != "" {
			out = append(out, s)
		}
	}
	return out
}

var (
	queryCommand = regexp.MustCompile(`paimon-flightsql query --warehouse \S+ "((?:[^"\\]|\\.)*)"`)
	pyExecute    = regexp.MustCompile(`cur\.execute\("((?:[^"\\]|\\.)*)",\s*\((\d+),\)\)`)
	pySetOption  = regexp.MustCompile(`set_options\(\*\*\{"([^"]+)":\s*"([^"]*)"\}\)`)
)

// TestDocExamples runs the examples of README.md and
// docs/design/flightsql.md marked "```<lang> example" against the demo
// warehouse, so that they cannot rot:
//   - sql: every statement over Flight;
//   - sh: the SQL of each `paimon-flightsql query` line, with the engine
//     the command runs;
//   - go: the function must be openPaimon (docexample_test.go) verbatim,
//     which then connects and queries;
//   - python: the session option and the parameterised statement,
//     replayed with the ADBC Go driver (the driver adbc_driver_flightsql
//     wraps).
func TestDocExamples(t *testing.T) {
	srv := startDemo(t)
	c := newClient(t, srv)
	ex := docExamples(t)
	seen := map[string]int{}
	for _, e := range ex {
		seen[e.lang]++
		switch e.lang {
		case "sql":
			for _, sql := range splitStatements(e.body) {
				if _, _, err := c.query(c.ctx, sql); err != nil {
					t.Errorf("%s: %s: %v", e.file, sql, err)
				}
			}
		case "sh":
			n := 0
			for _, m := range queryCommand.FindAllStringSubmatch(e.body, -1) {
				sql := strings.ReplaceAll(m[1], `\"`, `"`)
				res := inProcess(t, srv.Engine, sql, planner.Session{})
				if len(res.Rows) == 0 {
					t.Errorf("%s: %s: no rows", e.file, sql)
				}
				n++
			}
			if n == 0 {
				t.Errorf("%s: sh example without a paimon-flightsql query line", e.file)
			}
		case "go":
			src, err := os.ReadFile("docexample_test.go")
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(src), strings.TrimSpace(e.body)) {
				t.Errorf("%s: the Go example is not openPaimon of docexample_test.go verbatim:\n%s", e.file, e.body)
			}
			cnxn, err := openPaimon(context.Background(), srv.URI, testUser, testPassword)
			if err != nil {
				t.Fatalf("%s: Go example: %v", e.file, err)
			}
			got := adbcQuery(t, cnxn, "SELECT count(*) FROM orders")
			if len(got.Rows) != 1 {
				t.Errorf("%s: Go example connection: %v", e.file, got.Rows)
			}
			cnxn.Close()
		case "python":
			opt := pySetOption.FindStringSubmatch(e.body)
			exe := pyExecute.FindStringSubmatch(e.body)
			if opt == nil || exe == nil {
				t.Fatalf("%s: python example: cannot find set_options/execute", e.file)
			}
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			cnxn := openADBC(t, srv, mem, nil)
			if err := cnxn.(adbc.PostInitOptions).SetOption(opt[1], opt[2]); err != nil {
				t.Fatalf("%s: python example: set_options %s: %v", e.file, opt[1], err)
			}
			param, _ := strconv.ParseInt(exe[2], 10, 64)
			st, err := cnxn.NewStatement()
			if err != nil {
				t.Fatal(err)
			}
			if err := st.SetSqlQuery(exe[1]); err != nil {
				t.Fatal(err)
			}
			// DBAPI prepares every execute and binds the tuple.
			if err := st.Prepare(context.Background()); err != nil {
				t.Fatalf("%s: python example: %v", e.file, err)
			}
			b := array.NewRecordBuilder(mem, arrow.NewSchema([]arrow.Field{{Name: "0", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil))
			b.Field(0).(*array.Int64Builder).Append(param)
			rec := b.NewRecordBatch()
			b.Release()
			if err := st.Bind(context.Background(), rec); err != nil {
				t.Fatal(err)
			}
			rec.Release()
			rdr, _, err := st.ExecuteQuery(context.Background())
			if err != nil {
				t.Fatalf("%s: python example: %s: %v", e.file, exe[1], err)
			}
			recs := drain(t, rdr)
			var n int64
			for _, r := range recs {
				n += r.NumRows()
			}
			if n == 0 {
				t.Errorf("%s: python example returned no rows", e.file)
			}
			st.Close()
		}
	}
	for _, lang := range []string{"sql", "sh", "go", "python"} {
		if seen[lang] == 0 {
			t.Errorf("no %q example found in the docs", lang)
		}
	}
}

package integration

import (
	"context"
	"embed"
	"fmt"
	"path"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/integration/tpch"
)

//go:embed bidialect/*.sql
var biDialectFS embed.FS

// biStatement is one statement of a bidialect/<tool>.sql file.
type biStatement struct {
	name  string // tool/N: first comment line
	sql   string // what the tool sends (over Flight)
	duck  string // DuckDB's spelling ("" = sql)
	query tpch.Query
}

// parseBIDialect reads statements: comment lines ("-- ...") describe the
// next statement, which runs to a line ending with ";"; a "-- duckdb: SQL"
// line right after a statement gives DuckDB's spelling of it.
func parseBIDialect(tool, text string) ([]biStatement, error) {
	var out []biStatement
	var title string
	var buf []string
	for _, line := range strings.Split(text, "\n") {
		trim := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(trim, "-- duckdb:"):
			if len(out) == 0 || len(buf) > 0 {
				return nil, fmt.Errorf("%s: -- duckdb: line not right after a statement", tool)
			}
			out[len(out)-1].duck = strings.TrimSpace(strings.TrimPrefix(trim, "-- duckdb:"))
		case strings.HasPrefix(trim, "--"):
			if len(buf) == 0 {
				title = strings.TrimSpace(strings.TrimPrefix(trim, "--"))
			}
		case trim == "" && len(buf) == 0:
		default:
			buf = append(buf, line)
			if strings.HasSuffix(trim, ";") {
				sql := strings.TrimSuffix(strings.TrimSpace(strings.Join(buf, "\n")), ";")
				name := fmt.Sprintf("%s/%d", tool, len(out)+1)
				q, err := tpch.ParseQuery(name, sql)
				if err != nil {
					// An ORDER BY the harness cannot key on (quoted
					// expressions): compare as multisets.
					q = tpch.Query{Name: name, SQL: sql}
				}
				out = append(out, biStatement{name: fmt.Sprintf("%s/%d %s", tool, len(out)+1, title), sql: sql, query: q})
				buf, title = nil, ""
			}
		}
	}
	if len(buf) > 0 {
		return nil, fmt.Errorf("%s: statement without a final ';'", tool)
	}
	return out, nil
}

// TestBIDialects runs the statements BI tools generate (bidialect/*.sql:
// Superset, Metabase, Tableau, Power BI, DBeaver, Grafana, SQLAlchemy)
// over Flight against TPC-H tables (SF 0.01) and compares each answer with
// DuckDB's on the same Parquet files (tpch.Compare rules: multisets, ORDER
// BY keys, ties at a LIMIT).
func TestBIDialects(t *testing.T) {
	ents, err := biDialectFS.ReadDir("bidialect")
	if err != nil {
		t.Fatal(err)
	}
	var stmts []biStatement
	for _, e := range ents {
		data, err := biDialectFS.ReadFile(path.Join("bidialect", e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		s, err := parseBIDialect(strings.TrimSuffix(e.Name(), ".sql"), string(data))
		if err != nil {
			t.Fatal(err)
		}
		if len(s) == 0 {
			t.Fatalf("%s holds no statement", e.Name())
		}
		stmts = append(stmts, s...)
	}

	ctx := context.Background()
	dir := t.TempDir()
	buildMem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	if _, err := tpch.BuildWith(ctx, dir, 0.01, tpch.Options{Mem: buildMem}); err != nil {
		t.Fatal(err)
	}
	buildMem.AssertSize(t, 0)
	duck, err := tpch.OpenDuck(ctx, dir, 2)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { duck.Close() })
	// The tools qualify names with the schema: give DuckDB one named tpch.
	setup := []string{"CREATE SCHEMA " + tpch.Database}
	for _, tb := range tpch.Tables {
		setup = append(setup, fmt.Sprintf("CREATE VIEW %s.%s AS SELECT * FROM main.%s", tpch.Database, tb, tb))
	}
	for _, s := range setup {
		if _, err := duck.ExecContext(ctx, s); err != nil {
			t.Fatalf("DuckDB %s: %v", s, err)
		}
	}

	srv := startServer(t, dir)
	c := newClient(t, srv)
	for _, st := range stmts {
		t.Run(st.name, func(t *testing.T) {
			ref := st.sql
			if st.duck != "" {
				ref = st.duck
			}
			want, err := tpch.DuckQuery(ctx, duck, ref)
			if err != nil {
				t.Fatalf("DuckDB: %v\n%s", err, ref)
			}
			got, err := flightResult(c, st.sql)
			if err != nil {
				t.Fatalf("over Flight: %v\n%s", err, st.sql)
			}
			st.query.OrderBy = orderKeys(st.query.OrderBy, want.Columns)
			if st.query.Limit > 0 {
				rq, err := tpch.ParseQuery(st.query.Name, ref)
				if err != nil {
					t.Fatal(err)
				}
				all, err := tpch.DuckQuery(ctx, duck, rq.WithoutLimit())
				if err != nil {
					t.Fatalf("DuckDB without LIMIT: %v", err)
				}
				err = tpch.CompareWithTies(st.query, got, want, all)
				if err != nil {
					t.Error(err)
				}
				return
			}
			if err := tpch.Compare(st.query, got, want); err != nil {
				t.Error(err)
			}
		})
	}
}

// flightResult runs sql over Flight (every endpoint, in order) into a
// normalised result.
func flightResult(c *fsClient, sql string) (tpch.Result, error) {
	info, err := c.Execute(c.ctx, sql)
	if err != nil {
		return tpch.Result{}, err
	}
	sc, err := flight.DeserializeSchema(info.Schema, c.mem)
	if err != nil {
		return tpch.Result{}, err
	}
	var res tpch.Result
	for _, f := range sc.Fields() {
		res.Columns = append(res.Columns, f.Name)
	}
	for _, ep := range info.Endpoint {
		rdr, err := c.DoGet(c.ctx, ep.Ticket)
		if err != nil {
			return res, err
		}
		for rdr.Next() {
			if err := res.AppendRecord(rdr.RecordBatch()); err != nil {
				rdr.Release()
				return res, err
			}
		}
		err = rdr.Err()
		rdr.Release()
		if err != nil {
			return res, err
		}
	}
	return res, nil
}

// orderKeys resolves ORDER BY items the TPC-H parser keeps verbatim:
// quoted and qualified names ("t"."c") name the output column c,
// ordinals the n-th output column. When an item names no output column
// (an expression), the order is not checked: nil compares multisets.
func orderKeys(keys []tpch.SortKey, cols []string) []tpch.SortKey {
	out := make([]tpch.SortKey, len(keys))
	for i, k := range keys {
		c := k.Column
		if j := strings.LastIndex(c, "."); j >= 0 {
			c = c[j+1:]
		}
		c = strings.Trim(c, `"`)
		if n, err := strconv.Atoi(c); err == nil && n >= 1 && n <= len(cols) {
			c = cols[n-1]
		}
		found := false
		for _, col := range cols {
			found = found || strings.EqualFold(col, c)
		}
		if !found {
			return nil
		}
		out[i] = tpch.SortKey{Column: c, Desc: k.Desc}
	}
	return out
}

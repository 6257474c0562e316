package planner

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
	"github.com/paimon-flightsql/paimon-flightsql/internal/rowfmt"
)

// Data-driven golden tests (pebble's datadriven style): each file under
// testdata/golden holds cases
//
//	<directive>
//	<SQL, one or more lines>
//	----
//	<expected output>
//	<blank line>
//
// with directive "query" (result rows as text; "sorted" sorts them first),
// "explain" (EXPLAIN output), "analyze" (EXPLAIN ANALYZE output, its last
// line without the time and memory) or "error" (the error message). Run
// with -rewrite to regenerate the expected outputs.
var rewrite = flag.Bool("rewrite", false, "rewrite golden files with the actual output")

type goldenCase struct {
	comment   []string // leading # lines, kept by -rewrite
	directive string
	sql       string
	want      string
}

func parseGolden(t *testing.T, data string) []goldenCase {
	var out []goldenCase
	blocks := strings.Split(strings.ReplaceAll(data, "\r\n", "\n"), "\n\n")
	for _, b := range blocks {
		b = strings.Trim(b, "\n")
		if b == "" || strings.HasPrefix(b, "#") && !strings.Contains(b, "----") {
			continue
		}
		lines := strings.Split(b, "\n")
		var comment []string
		for len(lines) > 0 && strings.HasPrefix(lines[0], "#") {
			comment = append(comment, lines[0])
			lines = lines[1:]
		}
		if len(lines) < 2 {
			t.Fatalf("bad golden block %q", b)
		}
		c := goldenCase{comment: comment, directive: strings.TrimSpace(lines[0])}
		var sql, want []string
		sep := false
		for _, l := range lines[1:] {
			if l == "----" && !sep {
				sep = true
				continue
			}
			if sep {
				want = append(want, l)
			} else {
				sql = append(sql, l)
			}
		}
		c.sql, c.want = strings.Join(sql, "\n"), strings.Join(want, "\n")
		out = append(out, c)
	}
	return out
}

func formatGolden(cases []goldenCase) string {
	var b strings.Builder
	for i, c := range cases {
		if i > 0 {
			b.WriteString("\n")
		}
		for _, l := range c.comment {
			b.WriteString(l + "\n")
		}
		fmt.Fprintf(&b, "%s\n%s\n----\n%s\n", c.directive, c.sql, c.want)
	}
	return b.String()
}

func TestGolden(t *testing.T) {
	files, _ := filepath.Glob("testdata/golden/*.txt")
	if len(files) == 0 {
		t.Fatal("no golden files")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			cat := goldenCatalog(t, mem)
			e := New(cat, Options{BatchSize: 7})
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			cases := parseGolden(t, string(data))
			for i := range cases {
				c := &cases[i]
				got := runGolden(t, e, mem, c.directive, c.sql)
				if got != c.want {
					if *rewrite {
						c.want = got
						continue
					}
					t.Errorf("%s\n%s\n--- got:\n%s\n--- want:\n%s", c.directive, c.sql, got, c.want)
				}
			}
			if *rewrite {
				if err := os.WriteFile(f, []byte(formatGolden(cases)), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			releaseGolden()
			mem.AssertSize(t, 0)
		})
	}
}

func runGolden(t *testing.T, e *Engine, mem memory.Allocator, directive, sql string) string {
	ctx := context.Background()
	switch directive {
	case "explain":
		sql = "EXPLAIN " + sql
	case "analyze":
		sql = "EXPLAIN ANALYZE " + sql
	case "query", "sorted", "error":
	default:
		t.Fatalf("unknown directive %q", directive)
	}
	rd, err := Run(ctx, e, sql, Session{}, mem)
	if err != nil {
		if directive == "error" {
			return "error: " + err.Error()
		}
		return "unexpected error: " + err.Error()
	}
	defer rd.Release()
	var rows []string
	var header []string
	for _, f := range rd.Schema().Fields() {
		header = append(header, f.Name+":"+typeLabel(f))
	}
	for rd.Next() {
		rec := rd.RecordBatch()
		for i := 0; i < int(rec.NumRows()); i++ {
			var cells []string
			for c := 0; c < int(rec.NumCols()); c++ {
				cells = append(cells, cellText(rec.Column(c), i))
			}
			rows = append(rows, strings.Join(cells, " | "))
		}
	}
	if err := rd.Err(); err != nil {
		if directive == "error" {
			return "error: " + err.Error()
		}
		return "unexpected error: " + err.Error()
	}
	if directive == "explain" {
		return strings.Join(rows, "\n")
	}
	if directive == "analyze" {
		if n := len(rows); n > 0 {
			if i := strings.Index(rows[n-1], " rows in "); i >= 0 && strings.HasPrefix(rows[n-1], "executed: ") {
				rows[n-1] = rows[n-1][:i] + " rows"
			}
		}
		return strings.Join(rows, "\n")
	}
	if directive == "sorted" {
		sortStrings(rows)
	}
	var b bytes.Buffer
	b.WriteString(strings.Join(header, " | "))
	for _, r := range rows {
		b.WriteString("\n" + r)
	}
	return b.String()
}

func typeLabel(f arrow.Field) string {
	s := f.Type.String()
	if !f.Nullable {
		s += " not null"
	}
	return s
}

func cellText(a arrow.Array, i int) string {
	if a.IsNull(i) {
		return "NULL"
	}
	return rowfmt.Text(rowfmt.Value(a, i, -1))
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// goldenCatalog: small TPC-H-shaped tables with NULLs, in memory.
var goldenTables []*catalog.MemTable

func releaseGolden() {
	for _, t := range goldenTables {
		t.Release()
	}
	goldenTables = nil
}

func goldenCatalog(t *testing.T, mem memory.Allocator) catalog.Catalog {
	cat := catalog.NewMemCatalog("default")
	add := func(name string, fields []arrow.Field, rows [][]any) {
		sc := arrow.NewSchema(fields, nil)
		b := array.NewRecordBuilder(mem, sc)
		defer b.Release()
		for _, r := range rows {
			for i, v := range r {
				appendGo(t, b.Field(i), v)
			}
		}
		rec := b.NewRecordBatch()
		tbl, err := catalog.NewMemTable(catalog.Identifier{Database: "default", Table: name}, catalog.KindTable, sc, nil, []arrow.RecordBatch{rec})
		rec.Release()
		if err != nil {
			t.Fatal(err)
		}
		goldenTables = append(goldenTables, tbl)
		cat.AddTable("default", tbl)
	}
	dec := &arrow.Decimal128Type{Precision: 12, Scale: 2}
	add("nation", []arrow.Field{
		{Name: "n_nationkey", Type: arrow.PrimitiveTypes.Int32},
		{Name: "n_name", Type: arrow.BinaryTypes.String},
		{Name: "n_regionkey", Type: arrow.PrimitiveTypes.Int32},
	}, [][]any{{0, "ALGERIA", 0}, {1, "ARGENTINA", 1}, {2, "BRAZIL", 1}, {3, "CANADA", 1}, {4, "EGYPT", 4}, {5, "FRANCE", 3}})
	add("region", []arrow.Field{
		{Name: "r_regionkey", Type: arrow.PrimitiveTypes.Int32},
		{Name: "r_name", Type: arrow.BinaryTypes.String},
	}, [][]any{{0, "AFRICA"}, {1, "AMERICA"}, {2, "ASIA"}, {3, "EUROPE"}, {4, "MIDDLE EAST"}})
	add("customer", []arrow.Field{
		{Name: "c_custkey", Type: arrow.PrimitiveTypes.Int64},
		{Name: "c_name", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "c_nationkey", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: "c_acctbal", Type: dec, Nullable: true},
	}, [][]any{{1, "alice", 1, "100.50"}, {2, "bob", 2, "-20.00"}, {3, "carol", 5, nil}, {4, nil, nil, "0.07"}, {5, "eve", 1, "999.99"}})
	add("orders", []arrow.Field{
		{Name: "o_orderkey", Type: arrow.PrimitiveTypes.Int64},
		{Name: "o_custkey", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "o_totalprice", Type: dec, Nullable: true},
		{Name: "o_orderdate", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
		{Name: "o_status", Type: arrow.BinaryTypes.String, Nullable: true},
	}, [][]any{
		{10, 1, "10.00", "1995-01-01", "F"}, {11, 1, "20.50", "1995-03-15", "O"}, {12, 2, "5.25", "1996-07-01", "F"},
		{13, 3, nil, "1997-12-31", "P"}, {14, nil, "7.00", nil, "O"}, {15, 5, "100.00", "1998-08-02", "F"}, {16, 5, "0.06", "1998-12-01", nil},
	})
	add("lineitem", []arrow.Field{
		{Name: "l_orderkey", Type: arrow.PrimitiveTypes.Int64},
		{Name: "l_linenumber", Type: arrow.PrimitiveTypes.Int32},
		{Name: "l_quantity", Type: dec},
		{Name: "l_discount", Type: dec, Nullable: true},
		{Name: "l_shipdate", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
		{Name: "l_comment", Type: arrow.BinaryTypes.String, Nullable: true},
	}, [][]any{
		{10, 1, "5.00", "0.06", "1995-01-10", "quick brown"}, {10, 2, "7.00", "0.07", "1995-01-20", "lazy dog"},
		{11, 1, "1.00", "0.05", "1995-04-01", "special requests"}, {12, 1, "2.00", nil, "1996-07-05", nil},
		{12, 2, "3.00", "0.08", "1996-08-01", "fox"}, {15, 1, "10.00", "0.06", "1998-08-10", "green"},
		{15, 2, "4.00", "0.07", "1998-09-01", "special packages"}, {17, 1, "1.00", "0.00", "1999-01-01", "orphan"},
	})
	return cat
}

func appendGo(t *testing.T, b array.Builder, v any) {
	if v == nil {
		b.AppendNull()
		return
	}
	switch x := b.(type) {
	case *array.Int32Builder:
		x.Append(int32(v.(int)))
	case *array.Int64Builder:
		x.Append(int64(v.(int)))
	case *array.StringBuilder:
		x.Append(v.(string))
	case *array.Decimal128Builder:
		dt := x.Type().(*arrow.Decimal128Type)
		n, err := decimal128.FromString(v.(string), dt.Precision, dt.Scale)
		if err != nil {
			t.Fatal(err)
		}
		x.Append(n)
	case *array.Date32Builder:
		tm, err := time.Parse("2006-01-02", v.(string))
		if err != nil {
			t.Fatal(err)
		}
		x.Append(arrow.Date32FromTime(tm))
	default:
		t.Fatalf("appendGo: %T", b)
	}
}

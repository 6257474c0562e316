package logical_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
	_ "github.com/paimon-flightsql/paimon-flightsql/planner/funcs" // function registry
	"github.com/paimon-flightsql/paimon-flightsql/planner/logical"
	"github.com/paimon-flightsql/paimon-flightsql/planner/parse"
)

// Golden files per optimizer rule (pebble's datadriven style), one file per
// rule under testdata/rules:
//
//	plan rules=<rule>[,<rule>...]
//	<SQL>
//	----
//	<the plan after binding and exactly those rules, in that order>
//
// "plan" with no rules prints the bound plan (decorrelation and the
// SUM(x±c) rewrite happen while binding); "optimize" prints the plan after
// all rules (logical.Optimize). Rules: fold, pushdown, joinorder, prune,
// limit, empty. Run with -rewrite to regenerate the expected outputs.
var rewrite = flag.Bool("rewrite", false, "rewrite golden files with the actual output")

// Row counts the estimator gives each table (join ordering).
var ruleRows = map[string]float64{
	"default.nation": 25, "default.customer": 1500, "default.orders": 15000, "default.lineitem": 60000,
	"default.region": 5, "default.supplier": 100,
}

// Ranges of integer and date columns the estimator knows (distinct values
// of keys: at most max-min+1).
var ruleRanges = map[string][2]int64{
	"n_nationkey": {0, 24}, "n_regionkey": {0, 4}, "r_regionkey": {0, 4},
	"c_custkey": {1, 1500}, "c_nationkey": {0, 24}, "s_suppkey": {1, 100}, "s_nationkey": {0, 24},
	"o_orderkey": {1, 60000}, "o_custkey": {1, 1500}, "l_orderkey": {1, 60000}, "l_suppkey": {1, 100},
	"o_orderdate": {8035, 10591}, "l_shipdate": {8035, 10591},
}

type ruleStats struct{}

func (ruleStats) Rows(s *logical.Scan) float64 { return ruleRows[s.Name] }

func (ruleStats) Range(s *logical.Scan, col int) (int64, int64, bool) {
	r, ok := ruleRanges[s.Table.Schema().Field(col).Name]
	return r[0], r[1], ok
}

func ruleCatalog(t *testing.T) catalog.Catalog {
	cat := catalog.NewMemCatalog("default")
	add := func(name string, fields ...arrow.Field) {
		mt, err := catalog.NewMemTable(catalog.Identifier{Database: "default", Table: name}, catalog.KindTable, arrow.NewSchema(fields, nil), nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		cat.AddTable("default", mt)
	}
	i64 := func(n string) arrow.Field {
		return arrow.Field{Name: n, Type: arrow.PrimitiveTypes.Int64, Nullable: true}
	}
	str := func(n string) arrow.Field {
		return arrow.Field{Name: n, Type: arrow.BinaryTypes.String, Nullable: true}
	}
	date := func(n string) arrow.Field {
		return arrow.Field{Name: n, Type: arrow.FixedWidthTypes.Date32, Nullable: true}
	}
	dec := func(n string) arrow.Field {
		return arrow.Field{Name: n, Type: &arrow.Decimal128Type{Precision: 12, Scale: 2}, Nullable: true}
	}
	add("region", i64("r_regionkey"), str("r_name"))
	add("nation", i64("n_nationkey"), str("n_name"), i64("n_regionkey"))
	add("supplier", i64("s_suppkey"), str("s_name"), i64("s_nationkey"))
	add("customer", i64("c_custkey"), str("c_name"), i64("c_nationkey"))
	add("orders", i64("o_orderkey"), i64("o_custkey"), date("o_orderdate"), dec("o_total"), str("o_status"))
	add("lineitem", i64("l_orderkey"), i64("l_quantity"), dec("l_price"), date("l_shipdate"), i64("l_suppkey"))
	return cat
}

var ruleFuncs = map[string]func(logical.Node, *logical.Model) (logical.Node, error){
	"fold":      func(n logical.Node, _ *logical.Model) (logical.Node, error) { return logical.FoldConstants(n) },
	"pushdown":  func(n logical.Node, _ *logical.Model) (logical.Node, error) { return logical.PushFilters(n) },
	"joinorder": logical.ReorderJoins,
	"prune":     func(n logical.Node, _ *logical.Model) (logical.Node, error) { return logical.PruneColumns(n) },
	"limit":     func(n logical.Node, _ *logical.Model) (logical.Node, error) { return logical.PushLimit(n), nil },
	"empty":     func(n logical.Node, _ *logical.Model) (logical.Node, error) { return logical.PruneEmpty(n), nil },
}

func runRuleCase(t *testing.T, cat catalog.Catalog, directive, sql string) string {
	ctx := context.Background()
	st, err := parse.Parse(sql)
	if err != nil {
		return "error: " + err.Error()
	}
	b, err := logical.Bind(ctx, logical.Session{Catalog: cat, Database: "default"}, st, nil)
	if err != nil {
		return "error: " + err.Error()
	}
	est := logical.NewModel(ruleStats{})
	n := b.Plan
	cmd, args, _ := strings.Cut(directive, " ")
	switch cmd {
	case "optimize":
		n, err = logical.Optimize(n, est)
	case "plan":
		rules, _ := strings.CutPrefix(strings.TrimSpace(args), "rules=")
		for _, r := range strings.Split(rules, ",") {
			if r == "" {
				continue
			}
			f, ok := ruleFuncs[r]
			if !ok {
				t.Fatalf("unknown rule %q in %q", r, directive)
			}
			if n, err = f(n, est); err != nil {
				break
			}
		}
	default:
		t.Fatalf("unknown directive %q", directive)
	}
	if err != nil {
		return "error: " + err.Error()
	}
	return strings.TrimRight(logical.Format(n), "\n")
}

type ruleCase struct {
	comment              []string // leading # lines, kept by -rewrite
	directive, sql, want string
}

func parseRuleFile(t *testing.T, data string) []ruleCase {
	var out []ruleCase
	for _, b := range strings.Split(strings.ReplaceAll(data, "\r\n", "\n"), "\n\n") {
		b = strings.Trim(b, "\n")
		lines := strings.Split(b, "\n")
		var comment []string
		for len(lines) > 0 && strings.HasPrefix(lines[0], "#") {
			comment = append(comment, lines[0])
			lines = lines[1:]
		}
		if len(lines) == 0 {
			continue
		}
		if len(lines) < 2 {
			t.Fatalf("bad block %q", b)
		}
		c := ruleCase{comment: comment, directive: strings.TrimSpace(lines[0])}
		var sql, want []string
		sep := false
		for _, l := range lines[1:] {
			switch {
			case l == "----" && !sep:
				sep = true
			case sep:
				want = append(want, l)
			default:
				sql = append(sql, l)
			}
		}
		c.sql, c.want = strings.Join(sql, "\n"), strings.Join(want, "\n")
		out = append(out, c)
	}
	return out
}

func TestRuleGolden(t *testing.T) {
	files, _ := filepath.Glob("testdata/rules/*.txt")
	if len(files) == 0 {
		t.Fatal("no golden files under testdata/rules")
	}
	cat := ruleCatalog(t)
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			cases := parseRuleFile(t, string(data))
			if len(cases) == 0 {
				t.Fatal("no cases")
			}
			var b strings.Builder
			for i, c := range cases {
				got := runRuleCase(t, cat, c.directive, c.sql)
				if got != c.want && !*rewrite {
					t.Errorf("%s\n%s\n--- got:\n%s\n--- want:\n%s", c.directive, c.sql, got, c.want)
				}
				if i > 0 {
					b.WriteString("\n")
				}
				for _, l := range c.comment {
					b.WriteString(l + "\n")
				}
				fmt.Fprintf(&b, "%s\n%s\n----\n%s\n", c.directive, c.sql, got)
			}
			if *rewrite {
				if err := os.WriteFile(f, []byte(b.String()), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

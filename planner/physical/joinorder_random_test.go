package physical_test

import (
	"context"
	"fmt"
	"math/rand"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
	"github.com/paimon-flightsql/paimon-flightsql/planner/exec"
	_ "github.com/paimon-flightsql/paimon-flightsql/planner/funcs" // function registry
	"github.com/paimon-flightsql/paimon-flightsql/planner/logical"
	"github.com/paimon-flightsql/paimon-flightsql/planner/parse"
	"github.com/paimon-flightsql/paimon-flightsql/planner/physical"
)

// randomStats gives every table a random row count and every column a
// random range, so that join ordering picks different trees.
type randomStats struct {
	rows   map[string]float64
	ranges map[string][2]int64
}

func (r randomStats) Rows(s *logical.Scan) float64 { return r.rows[s.Name] }

func (r randomStats) Range(s *logical.Scan, col int) (int64, int64, bool) {
	x, ok := r.ranges[s.Name+"."+s.Table.Schema().Field(col).Name]
	return x[0], x[1], ok
}

// TestJoinOrderRandom: random inner join queries over small random tables
// return the same rows whatever join order the estimates lead to, and the
// same rows as the joins in the order written (no reordering).
func TestJoinOrderRandom(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rng := rand.New(rand.NewSource(7))
	const ntables = 6
	cat := catalog.NewMemCatalog("default")
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "a", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "b", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "c", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "d", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	}, nil)
	for i := 0; i < ntables; i++ {
		bld := array.NewRecordBuilder(memory.NewGoAllocator(), schema)
		n := 3 + rng.Intn(25)
		for r := 0; r < n; r++ {
			for c := 0; c < 4; c++ {
				fb := bld.Field(c).(*array.Int64Builder)
				if rng.Intn(12) == 0 {
					fb.AppendNull()
				} else if c == 3 {
					fb.Append(int64(rng.Intn(20)))
				} else {
					fb.Append(int64(rng.Intn(2 + c*3)))
				}
			}
		}
		rec := bld.NewRecordBatch()
		bld.Release()
		mt, err := catalog.NewMemTable(catalog.Identifier{Database: "default", Table: fmt.Sprintf("t%d", i)}, catalog.KindTable, schema, nil, []arrow.RecordBatch{rec})
		rec.Release()
		if err != nil {
			t.Fatal(err)
		}
		cat.AddTable("default", mt)
	}
	cols := []string{"a", "b", "c"}
	plans := map[string]bool{}
	for q := 0; q < 80; q++ {
		// 3 to 6 inputs joined on any column (dynamic programming), or,
		// one query in eight, 11 or 12 joined on d (greedy above 10)
		k, key := 3+rng.Intn(ntables-2), func() string { return cols[rng.Intn(3)] }
		if q%8 == 7 {
			k, key = 11+rng.Intn(2), func() string { return "d" }
		}
		var from, where, sel []string
		for i := 0; i < k; i++ {
			if i == 0 && k < 11 && rng.Intn(3) == 0 {
				// an outer join as one input of the inner joins
				from = append(from, fmt.Sprintf("t%d AS x0 LEFT JOIN t%d AS y0 ON x0.d = y0.d", rng.Intn(ntables), rng.Intn(ntables)))
				sel = append(sel, "y0.a")
				continue
			}
			from = append(from, fmt.Sprintf("t%d AS x%d", rng.Intn(ntables), i))
			if i > 0 {
				// a spanning tree of equalities, so no cross product
				j := rng.Intn(i)
				where = append(where, fmt.Sprintf("x%d.%s = x%d.%s", i, key(), j, key()))
			}
		}
		for e := rng.Intn(3); e > 0; e-- {
			i, j := rng.Intn(k), rng.Intn(k)
			if i == j {
				continue
			}
			switch rng.Intn(3) {
			case 0: // a cycle
				where = append(where, fmt.Sprintf("x%d.%s = x%d.%s", i, cols[rng.Intn(3)], j, cols[rng.Intn(3)]))
			case 1: // an inequality across tables
				where = append(where, fmt.Sprintf("x%d.%s < x%d.%s + 2", i, cols[rng.Intn(3)], j, cols[rng.Intn(3)]))
			default: // an OR across tables
				where = append(where, fmt.Sprintf("(x%d.a = 1 OR x%d.b > 2)", i, j))
			}
		}
		if rng.Intn(2) == 0 {
			where = append(where, fmt.Sprintf("x%d.c <= %d", rng.Intn(k), rng.Intn(8)))
		}
		if k < 11 && rng.Intn(4) == 0 {
			where = append(where, "DATE '2024-03-21' < DATE '2024-03-08'") // constant false
		}
		for i := 0; i < k; i++ {
			sel = append(sel, fmt.Sprintf("x%d.a, x%d.c", i, i))
		}
		sql := "SELECT " + strings.Join(sel, ", ") + " FROM " + strings.Join(from, " CROSS JOIN ") + " WHERE " + strings.Join(where, " AND ")
		want, _ := runJoinQuery(t, mem, cat, sql, nil)
		for s := 0; s < 6; s++ {
			st := randomStats{rows: map[string]float64{}, ranges: map[string][2]int64{}}
			for i := 0; i < ntables; i++ {
				name := fmt.Sprintf("default.t%d", i)
				st.rows[name] = float64(1 + rng.Intn(1_000_000))
				for _, c := range append(cols, "d") {
					if rng.Intn(3) > 0 {
						lo := int64(rng.Intn(100))
						st.ranges[name+"."+c] = [2]int64{lo, lo + int64(rng.Intn(2_000_000))}
					}
				}
			}
			got, plan := runJoinQuery(t, mem, cat, sql, logical.NewModel(st))
			plans[sql+"\n"+plan] = true
			if got != want {
				t.Fatalf("%s\nrows differ with plan\n%s\ngot:\n%s\nwant:\n%s", sql, plan, got, want)
			}
		}
	}
	// the estimates must have led to different trees, else the test
	// compares nothing
	if len(plans) < 100 {
		t.Fatalf("only %d distinct plans over the random estimates", len(plans))
	}
}

// runJoinQuery optimizes sql with m (nil: no join reordering), executes
// it, and returns its rows sorted, one per line, and the plan.
func runJoinQuery(t *testing.T, mem memory.Allocator, cat catalog.Catalog, sql string, m *logical.Model) (string, string) {
	t.Helper()
	ctx := context.Background()
	st, err := parse.Parse(sql)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	b, err := logical.Bind(ctx, logical.Session{Catalog: cat, Database: "default"}, st, nil)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	n, err := logical.Optimize(b.Plan, m)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	op, err := (&physical.Planner{Concurrency: 1}).Plan(ctx, n)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	batches, err := exec.Collect(exec.NewTaskCtx(ctx, mem, nil, nil), op)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	var rows []string
	for _, rb := range batches {
		for r := 0; r < int(rb.NumRows()); r++ {
			var cells []string
			for c := 0; c < int(rb.NumCols()); c++ {
				col := rb.Column(c)
				if col.IsNull(r) {
					cells = append(cells, "NULL")
				} else {
					cells = append(cells, col.ValueStr(r))
				}
			}
			rows = append(rows, strings.Join(cells, "|"))
		}
		rb.Release()
	}
	sort.Strings(rows)
	return strings.Join(rows, "\n"), logical.Format(n)
}

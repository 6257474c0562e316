package planner

import (
	"context"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

func explainLines(t *testing.T, e *Engine, sql string, mem memory.Allocator) []string {
	t.Helper()
	rd, err := Run(context.Background(), e, sql, Session{}, mem)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Release()
	var lines []string
	for rd.Next() {
		col := rd.RecordBatch().Column(0).(*array.String)
		for i := 0; i < col.Len(); i++ {
			lines = append(lines, strings.TrimSpace(col.Value(i)))
		}
	}
	if err := rd.Err(); err != nil {
		t.Fatal(err)
	}
	return lines
}

func hasLine(lines []string, parts ...string) bool {
	for _, l := range lines {
		ok := true
		for _, p := range parts {
			ok = ok && strings.Contains(l, p)
		}
		if ok {
			return true
		}
	}
	return false
}

// TestRuntimeFilterPlans: a join's runtime filter reaches the probe scan
// (EXPLAIN shows it, EXPLAIN ANALYZE counts its rows), a decorrelated
// scalar subquery builds its outer side so the filter reaches the
// aggregate's input, and both return the right rows.
func TestRuntimeFilterPlans(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	cat := goldenCatalog(t, mem)
	defer func() { releaseGolden(); mem.AssertSize(t, 0) }()
	e := New(cat, Options{BatchSize: 3})

	join := "SELECT o_orderkey, l_linenumber FROM orders o JOIN lineitem l ON l.l_orderkey = o.o_orderkey WHERE o_status = 'F' ORDER BY 1, 2"
	if got, want := strings.Join(runQuery(t, e, join), ";"), "10|1;10|2;12|1;12|2;15|1;15|2"; got != want {
		t.Errorf("join: got %s, want %s", got, want)
	}
	lines := explainLines(t, e, "EXPLAIN ANALYZE "+join, mem)
	// whichever side join ordering builds, the probe scan is filtered
	if !(hasLine(lines, "Scan default.lineitem", "runtime filter=[l_orderkey by ") && hasLine(lines, "runtime filter: l_orderkey: 8 rows in, 6 out")) &&
		!(hasLine(lines, "Scan default.orders", "runtime filter=[o_orderkey by ") && hasLine(lines, "runtime filter: o_orderkey: 7 rows in, 4 out")) {
		t.Errorf("no runtime filter on the probe scan:\n%s", strings.Join(lines, "\n"))
	}

	sub := "SELECT o_orderkey FROM orders o WHERE o_status = 'F' AND o_totalprice > (SELECT sum(l_quantity) FROM lineitem l WHERE l.l_orderkey = o.o_orderkey) ORDER BY 1"
	if got, want := strings.Join(runQuery(t, e, sub), ";"), "12;15"; got != want {
		t.Errorf("scalar subquery: got %s, want %s", got, want)
	}
	lines = explainLines(t, e, "EXPLAIN ANALYZE "+sub, mem)
	if !hasLine(lines, "HashJoin right on l.l_orderkey = o.o_orderkey") && !hasLine(lines, "HashJoin right on lineitem.l_orderkey = orders.o_orderkey") {
		t.Errorf("the outer side is not built:\n%s", strings.Join(lines, "\n"))
	}
	if !hasLine(lines, "runtime filter: l_orderkey: 8 rows in, 6 out") {
		t.Errorf("the outer keys do not filter the aggregate's input:\n%s", strings.Join(lines, "\n"))
	}
}

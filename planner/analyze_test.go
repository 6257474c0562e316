package planner

import (
	"context"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestExplainAnalyzeRows: EXPLAIN ANALYZE runs the query and prints the
// rows each operator returned.
func TestExplainAnalyzeRows(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	cat := goldenCatalog(t, mem)
	defer func() { releaseGolden(); mem.AssertSize(t, 0) }()
	e := New(cat, Options{BatchSize: 3})
	rd, err := Run(context.Background(), e, "EXPLAIN ANALYZE SELECT o_status, count(*) FROM orders o JOIN lineitem l ON l.l_orderkey = o.o_orderkey GROUP BY o_status", Session{}, mem)
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
	want := map[string]string{"HashJoin": "(est rows=8, actual rows=7)", "HashAggregate": "(est rows=1, actual rows=2)", "Scan default.lineitem": "(est rows=8, actual rows=8)", "Scan default.orders": "(est rows=7, actual rows=4)"} // 3 orders dropped by the runtime filter over lineitem's keys
	for prefix, suffix := range want {
		found := false
		for _, l := range lines {
			if strings.HasPrefix(l, prefix) && strings.HasSuffix(l, suffix) {
				found = true
			}
		}
		if !found {
			t.Errorf("no line %q ... %q in\n%s", prefix, suffix, strings.Join(lines, "\n"))
		}
	}
	if last := lines[len(lines)-1]; !strings.HasPrefix(last, "executed: 2 rows") {
		t.Errorf("last line %q", last)
	}
}

package catalog

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
)

// TestColumnRanges: a planned scan merges its files' value statistics
// into each integer column's range (the planner's distinct-value bound).
func TestColumnRanges(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	tab := splitTable(t, mem)
	sc, err := tab.NewScan(context.Background(), ScanRequest{Columns: []string{}, Limit: -1})
	if err != nil {
		t.Fatal(err)
	}
	cr, ok := sc.(ColumnRanger)
	if !ok {
		t.Fatal("a data table scan is not a ColumnRanger")
	}
	rs, err := cr.ColumnRanges(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got, want := rs["v"], [2]int64{0, 20000 + 4999}; got != want {
		t.Errorf("range of v = %v, want %v (all: %v)", got, want, rs)
	}
	if d, ok := rs["day"]; ok && d != [2]int64{0, 2} {
		t.Errorf("range of day = %v, want [0 2] or none", d)
	}
	// a filter that prunes partitions narrows the range
	f, err := tab.NewScan(context.Background(), ScanRequest{Columns: []string{}, Limit: -1, Filters: dayFilter(t, tab, 1)})
	if err != nil {
		t.Fatal(err)
	}
	rs, err = f.(ColumnRanger).ColumnRanges(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got, want := rs["v"], [2]int64{10000, 14999}; got != want {
		t.Errorf("range of v for day 1 = %v, want %v", got, want)
	}
}

func dayFilter(t *testing.T, tab *DataTable, day int64) []predicate.Predicate {
	t.Helper()
	f := tab.TableSchema().Fields[0]
	return []predicate.Predicate{&predicate.Leaf{Column: "day", FieldID: f.ID, Type: f.Type, Op: predicate.Eq, Literals: []predicate.Literal{day}}}
}

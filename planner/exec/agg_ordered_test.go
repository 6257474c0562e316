package exec

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

// Ordered aggregates over several partitions and batches: the partial
// states merge, then each group is ordered by its keys.
func TestAggOrdered(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	mk := func() arrow.RecordBatch {
		return aggBatch([]string{"g", "k", "s", "id"},
			aggArr(mem, arrow.PrimitiveTypes.Int64, 1, 1, 1, 1, 1, 2, 2, 2, 3, 1),
			aggArr(mem, arrow.PrimitiveTypes.Int32, 5, nil, 3, 3, 9, 1, 2, nil, 7, 0),
			aggArr(mem, arrow.BinaryTypes.String, "e", "n", "c", "d", nil, "x", "y", "z", "only", "a"),
			aggArr(mem, arrow.PrimitiveTypes.Int64, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10),
		)
	}
	for _, parts := range []int{1, 3} {
		v := aggSplit(mk(), parts, 2)
		s := v.Schema()
		c := func(n string) vec.Expr { return aggColumn(s, n) }
		sep := vec.NewLiteral(aggStrScalar(""))
		ord := func(fn, name string, distinct bool, keys []SortKey, args ...vec.Expr) AggExpr {
			a := aggE(fn, name, args...)
			a.OrderBy, a.Distinct = keys, distinct
			return a
		}
		kAsc := []SortKey{{Expr: c("k")}, {Expr: c("id")}}
		kDesc := []SortKey{{Expr: c("k"), Desc: true, NullsFirst: true}, {Expr: c("id"), Desc: true}}
		h := aggMust(t, v, []vec.Expr{c("g")}, []AggExpr{
			ord("STRING_AGG", "asc", false, kAsc, c("s"), sep),
			ord("STRING_AGG", "desc", false, kDesc, c("s"), sep),
			ord("FIRST", "first", false, kAsc, c("s")),
			ord("LAST", "last", false, kAsc, c("s")),
			ord("STRING_AGG", "dist", true, []SortKey{{Expr: c("s"), Desc: true}}, c("s"), sep),
		}, nil)
		aggCheck(t, aggRows(t, aggTC(mem, nil), h),
			"1|acden|nedca|a|n|nedca",
			"2|xyz|zyx|x|z|zyx",
			"3|only|only|only|only|only",
		)
		aggReleaseValues(v)
	}
	v := aggSplit(mk(), 1, 100)
	defer aggReleaseValues(v)
	c := func(n string) vec.Expr { return aggColumn(v.Schema(), n) }
	bad := aggE("STRING_AGG", "x", c("s"))
	bad.OrderBy, bad.Distinct = []SortKey{{Expr: c("id")}}, true
	if _, err := NewHashAggregate(v, nil, nil, []AggExpr{bad}, nil); err == nil {
		t.Fatal("DISTINCT with an ORDER BY key outside the arguments accepted")
	}
	sum := aggE("SUM", "x", c("k"))
	sum.OrderBy = []SortKey{{Expr: c("id")}}
	if _, err := NewHashAggregate(v, nil, nil, []AggExpr{sum}, nil); err == nil {
		t.Fatal("ORDER BY inside SUM accepted by the operator")
	}
}

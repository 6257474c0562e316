package exec

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

// TestAggStatsArgModeBits checks the DuckDB-parity aggregates on one
// partition and split across partitions (the merge paths), with NULLs,
// DISTINCT and FILTER, on a checked allocator.
func TestAggStatsArgModeBits(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	for _, split := range []struct{ parts, size int }{{1, 100}, {3, 1}, {2, 3}} {
		b := aggBatch([]string{"g", "y", "x", "s", "k"},
			aggArr(mem, arrow.PrimitiveTypes.Int64, 1, 1, 1, 1, 1, 2, 2, 3),
			aggArr(mem, arrow.PrimitiveTypes.Float64, 2.0, 4.0, 7.0, 1.0, 9.0, nil, 6.0, nil),
			aggArr(mem, arrow.PrimitiveTypes.Int32, 1, 2, 3, nil, 3, 5, 6, nil),
			aggArr(mem, arrow.BinaryTypes.String, "a", "b", "b", "c", "b", "x", "x", nil),
			aggArr(mem, arrow.PrimitiveTypes.Int16, 12, 10, 6, nil, 6, -3, -3, nil),
		)
		v := aggSplit(b, split.parts, split.size)
		s := v.Schema()
		c := func(n string) vec.Expr { return aggColumn(s, n) }
		h := aggMust(t, v, []vec.Expr{c("g")}, []AggExpr{
			aggE("COVAR_POP", "cp", c("y"), c("x")), aggE("COVAR_SAMP", "cs", c("y"), c("x")), aggE("REGR_COUNT", "rc", c("y"), c("x")),
			aggE("REGR_SLOPE", "sl", c("y"), c("x")), aggE("CORR", "co", c("y"), c("x")),
			aggE("ARG_MAX", "am", c("s"), c("y")), aggE("MIN_BY", "mb", c("s"), c("x")),
			aggE("MODE", "mo", c("s")), aggE("MODE", "mk", c("k")),
			aggE("BIT_AND", "ba", c("k")), aggE("BIT_OR", "bo", c("k")), aggE("BIT_XOR", "bx", c("k")),
			aggE("PRODUCT", "pr", c("x")), aggE("GEOMEAN", "gm", c("x")),
			{Func: "APPROX_COUNT_DISTINCT", Args: []vec.Expr{c("s")}, Name: "acd"},
			{Func: "BIT_XOR", Args: []vec.Expr{c("k")}, Distinct: true, Name: "bxd"},
		}, nil)
		if f := h.Schema().Field(10); !arrow.TypeEqual(f.Type, arrow.PrimitiveTypes.Int16) {
			t.Fatalf("BIT_AND(smallint) is %s", f.Type)
		}
		aggCheck(t, aggRows(t, aggTC(mem, nil), h),
			// g=1 pairs (y,x): (2,1) (4,2) (7,3) (9,3): co-moment 8.5, Sxx 2.75, Syy 29
			"1|2.125|2.833333333|4|3.090909091|0.9518172686|b|a|b|6|0|14|6|18|2.059767144|3|0",
			"2|0|NULL|1|NULL|NaN|x|x|x|-3|-3|-3|0|30|5.477225575|1|-3",
			"3|NULL|NULL|0|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|0|NULL",
		)
		aggReleaseValues(v)
	}
}

// TestAggNewTypesRejected: argument types the new aggregates refuse.
func TestAggNewTypesRejected(t *testing.T) {
	s, f, i := arrow.BinaryTypes.String, arrow.PrimitiveTypes.Float64, arrow.PrimitiveTypes.Int64
	for _, c := range []struct {
		fn   string
		args []arrow.DataType
	}{
		{"CORR", []arrow.DataType{s, f}}, {"CORR", []arrow.DataType{f}}, {"BIT_AND", []arrow.DataType{f}},
		{"PRODUCT", []arrow.DataType{s}}, {"ARG_MAX", []arrow.DataType{i}}, {"MODE", []arrow.DataType{i, i}},
	} {
		if _, _, err := AggResultType(c.fn, c.args); err == nil {
			t.Errorf("%s%v accepted", c.fn, c.args)
		}
	}
}

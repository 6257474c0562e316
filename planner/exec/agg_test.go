package exec

import (
	"math"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

func aggTypesBatch(mem memory.Allocator) arrow.RecordBatch {
	dec := &arrow.Decimal128Type{Precision: 10, Scale: 2}
	return aggBatch([]string{"g", "i32", "i64", "f64", "dec", "str", "d", "ts", "b", "u8"},
		aggArr(mem, arrow.BinaryTypes.String, "a", "a", "b", "b", "b", nil),
		aggArr(mem, arrow.PrimitiveTypes.Int32, 1, 2, nil, 4, 5, 6),
		aggArr(mem, arrow.PrimitiveTypes.Int64, 10, nil, 30, 40, 50, 60),
		aggArr(mem, arrow.PrimitiveTypes.Float64, 1.5, 2.5, nil, -1.0, 3.0, 0.0),
		aggArr(mem, dec, 150, 250, nil, 100, 200, nil),
		aggArr(mem, arrow.BinaryTypes.String, "x", "y", nil, "b", "a", "z"),
		aggArr(mem, arrow.FixedWidthTypes.Date32, 100, 50, nil, 10, 20, 30),
		aggArr(mem, arrow.FixedWidthTypes.Timestamp_us, 1000, 2000, 3000, nil, 5000, 6000),
		aggArr(mem, arrow.FixedWidthTypes.Boolean, true, false, nil, true, true, nil),
		aggArr(mem, arrow.PrimitiveTypes.Uint8, 1, 2, 3, 4, 5, 250),
	)
}

func TestAggAllTypes(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	for _, split := range []struct{ parts, size int }{{1, 100}, {3, 1}, {2, 2}} {
		v := aggSplit(aggTypesBatch(mem), split.parts, split.size)
		s := v.Schema()
		c := func(n string) vec.Expr { return aggColumn(s, n) }
		aggs := []AggExpr{
			aggE("COUNT_STAR", "n"), aggE("count", "ni", c("i32")),
			aggE("SUM", "si32", c("i32")), aggE("SUM", "si64", c("i64")), aggE("SUM", "sf", c("f64")), aggE("SUM", "sd", c("dec")), aggE("SUM", "su", c("u8")),
			aggE("AVG", "ai", c("i32")), aggE("AVG", "ad", c("dec")), aggE("AVG", "af", c("f64")),
			aggE("MIN", "mins", c("str")), aggE("MAX", "maxs", c("str")), aggE("MIN", "mind", c("d")), aggE("MAX", "maxts", c("ts")),
			aggE("MIN", "mindec", c("dec")), aggE("MAX", "maxi", c("i64")), aggE("MIN", "minf", c("f64")), aggE("MAX", "maxu", c("u8")),
			aggE("BOOL_AND", "band", c("b")), aggE("BOOL_OR", "bor", c("b")), aggE("MIN", "minb", c("b")), aggE("MAX", "maxb", c("b")),
		}
		h := aggMust(t, v, []vec.Expr{c("g")}, aggs, nil)
		for i, f := range h.Schema().Fields()[1:] {
			if (f.Name == "n" || f.Name == "ni") == f.Nullable {
				t.Fatalf("field %d %s nullable=%v", i, f.Name, f.Nullable)
			}
		}
		if got := h.Schema().Field(3).Type; !arrow.TypeEqual(got, &arrow.Decimal128Type{Precision: 38, Scale: 0}) {
			t.Fatalf("SUM(int32) is %s", got)
		}
		if got := h.Schema().Field(6).Type; !arrow.TypeEqual(got, &arrow.Decimal128Type{Precision: 38, Scale: 2}) {
			t.Fatalf("SUM(decimal(10,2)) is %s", got)
		}
		got := aggRows(t, aggTC(mem, nil), h)
		aggCheck(t, got,
			"a|2|2|3|10|4|4|3|1.5|2|2|x|y|1970-02-20|1970-01-01T00:00:00.002Z|1.5|10|1.5|2|false|true|false|true",
			"b|3|2|9|120|2|3|12|4.5|1.5|1|a|b|1970-01-11|1970-01-01T00:00:00.005Z|1|50|-1|5|true|true|true|true",
			"NULL|1|1|6|60|0|NULL|250|6|NULL|0|z|z|1970-01-31|1970-01-01T00:00:00.006Z|NULL|60|0|250|NULL|NULL|NULL|NULL",
		)
		aggReleaseValues(v)
	}
}

func TestAggAnyValueStringAggVariance(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	b := aggBatch([]string{"g", "x", "s"},
		aggArr(mem, arrow.PrimitiveTypes.Int64, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 3),
		aggArr(mem, arrow.PrimitiveTypes.Int32, 2, 4, 4, 4, 5, 5, 7, 9, 3, nil, nil),
		aggArr(mem, arrow.BinaryTypes.String, "p", nil, "q", "r", nil, nil, nil, nil, nil, "only", nil),
	)
	v := aggSplit(b, 1, 100)
	defer aggReleaseValues(v)
	s := v.Schema()
	c := func(n string) vec.Expr { return aggColumn(s, n) }
	sep := vec.NewLiteral(aggStrScalar("-"))
	h := aggMust(t, v, []vec.Expr{c("g")}, []AggExpr{
		aggE("VAR_POP", "vp", c("x")), aggE("STDDEV_POP", "sp", c("x")), aggE("VARIANCE", "vs", c("x")), aggE("STDDEV", "ss", c("x")),
		aggE("ANY_VALUE", "any", c("x")), aggE("ANY_VALUE", "anys", c("s")), aggE("STRING_AGG", "sa", c("s")), aggE("STRING_AGG", "sa2", c("s"), sep),
	}, nil)
	aggCheck(t, aggRows(t, aggTC(mem, nil), h),
		"1|4|2|4.571428571|2.138089935|2|p|p,q,r|p-q-r",
		"2|0|0|NULL|NULL|3|only|only|only",
		"3|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL",
	)
	if _, err := NewHashAggregate(v, nil, nil, []AggExpr{aggE("STRING_AGG", "x", c("s"), c("s"))}, nil); err == nil {
		t.Fatal("non-constant separator accepted")
	}
}

func TestAggSumOverflow(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	e37 := decimal128.FromI64(1).Mul(decimal128.GetScaleMultiplier(37))
	nine := e37.Mul(decimal128.FromI64(9)) // 9e37, a valid DECIMAL(38,0)
	big70 := decimal128.FromI64(1).Mul(decimal128.FromI64(1 << 35)).Mul(decimal128.FromI64(1 << 35))
	d38 := &arrow.Decimal128Type{Precision: 38, Scale: 0}
	d382 := &arrow.Decimal128Type{Precision: 38, Scale: 2}
	mk := func() arrow.RecordBatch {
		return aggBatch([]string{"g", "i", "u", "d", "w"},
			aggArr(mem, arrow.PrimitiveTypes.Int64, 1, 1, 1, 1, 2, 2, 3, 3, 3),
			aggArr(mem, arrow.PrimitiveTypes.Int64, int64(math.MaxInt64), int64(math.MaxInt64), int64(math.MaxInt64), -5,
				int64(math.MinInt64), int64(math.MinInt64), int64(math.MaxInt64), int64(math.MinInt64), 7),
			aggArr(mem, arrow.PrimitiveTypes.Uint64, uint64(math.MaxUint64), 1, nil, nil, 5, 6, nil, nil, nil),
			aggArr(mem, d38, nine, nine, nine.Negate(), nil, 1, nil, nil, nil, nil),
			aggArr(mem, d382, big70, big70, nil, nil, big70.Negate(), nil, nil, nil, nil),
		)
	}
	for _, split := range []struct{ parts, size int }{{1, 100}, {4, 1}, {2, 3}} {
		v := aggSplit(mk(), split.parts, split.size)
		s := v.Schema()
		c := func(n string) vec.Expr { return aggColumn(s, n) }
		h := aggMust(t, v, []vec.Expr{c("g")}, []AggExpr{
			aggE("SUM", "si", c("i")), aggE("AVG", "ai", c("i")), aggE("SUM", "su", c("u")), aggE("SUM", "sd", c("d")), aggE("SUM", "sw", c("w")),
		}, nil)
		// 9e37+9e37 overflows 128 bits on the way; -9e37 brings it back.
		aggCheck(t, aggRows(t, aggTC(mem, nil), h),
			"1|27670116110564327416|6.917529028e+18|18446744073709551616|90000000000000000000000000000000000000|23611832414348226068.48",
			"2|-18446744073709551616|-9.223372037e+18|11|1|-11805916207174113034.24",
			"3|6|2|NULL|NULL|NULL",
		)
		aggReleaseValues(v)
	}
	// Past 38 digits: an error naming the aggregate.
	v := aggSplit(aggBatch([]string{"d"}, aggArr(mem, d38, nine, nine)), 2, 1)
	defer aggReleaseValues(v)
	h := aggMust(t, v, nil, []AggExpr{aggE("SUM", "total_d", aggColumn(v.Schema(), "d"))}, nil)
	_, err := Collect(aggTC(mem, nil), h)
	if err == nil || !strings.Contains(err.Error(), "total_d") || !strings.Contains(err.Error(), "DECIMAL(38,0)") {
		t.Fatalf("overflow error: %v", err)
	}
}

func TestAggFloatsNaN(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	nan := math.NaN()
	for _, typ := range []arrow.DataType{arrow.PrimitiveTypes.Float64, arrow.PrimitiveTypes.Float32} {
		v := aggSplit(aggBatch([]string{"g", "f"},
			aggArr(mem, arrow.BinaryTypes.String, "x", "x", "x", "y", "z", "z", "w"),
			aggArr(mem, typ, 1.0, nan, 3.0, nan, math.Copysign(0, -1), 2.0, nil),
		), 2, 2)
		s := v.Schema()
		c := func(n string) vec.Expr { return aggColumn(s, n) }
		h := aggMust(t, v, []vec.Expr{c("g")}, []AggExpr{
			aggE("SUM", "s", c("f")), aggE("AVG", "a", c("f")), aggE("MIN", "mi", c("f")), aggE("MAX", "ma", c("f")), aggE("COUNT", "n", c("f")),
		}, nil)
		aggCheck(t, aggRows(t, aggTC(mem, nil), h),
			"x|NaN|NaN|1|NaN|3", "y|NaN|NaN|NaN|NaN|1", "z|2|1|-0|2|2", "w|NULL|NULL|NULL|NULL|0")
		aggReleaseValues(v)
	}
}

func TestAggEmptyInput(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	b := aggBatch([]string{"g", "x"}, aggArr(mem, arrow.PrimitiveTypes.Int64), aggArr(mem, arrow.BinaryTypes.String))
	v := aggSplit(b, 3, 10) // three empty partitions
	defer aggReleaseValues(v)
	s := v.Schema()
	g, x := aggColumn(s, "g"), aggColumn(s, "x")
	aggs := []AggExpr{aggE("COUNT_STAR", "n"), aggE("COUNT", "c", x), aggE("SUM", "s", g), aggE("MIN", "m", x), {Func: "COUNT", Args: []vec.Expr{g}, Distinct: true, Name: "cd"}}
	aggCheck(t, aggRows(t, aggTC(mem, nil), aggMust(t, v, nil, aggs, nil)), "0|0|NULL|NULL|0")
	aggCheck(t, aggRows(t, aggTC(mem, nil), aggMust(t, v, []vec.Expr{g}, aggs, nil)))
	// ROLLUP(g): only the grand total.
	aggCheck(t, aggRows(t, aggTC(mem, nil), aggMust(t, v, []vec.Expr{g}, aggs, [][]int{{0}, {}})), "NULL|0|0|NULL|NULL|0|1")
}

func TestAggNullKeysAndFilter(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	v := aggSplit(aggBatch([]string{"k", "x", "f"},
		aggArr(mem, arrow.PrimitiveTypes.Int32, nil, 1, nil, 1, 2, 2),
		aggArr(mem, arrow.PrimitiveTypes.Int64, 5, 6, 7, nil, 9, 10),
		aggArr(mem, arrow.FixedWidthTypes.Boolean, true, false, nil, true, true, nil),
	), 2, 1)
	defer aggReleaseValues(v)
	s := v.Schema()
	c := func(n string) vec.Expr { return aggColumn(s, n) }
	h := aggMust(t, v, []vec.Expr{c("k")}, []AggExpr{
		aggE("COUNT_STAR", "n"),
		{Func: "COUNT", Name: "nf", Filter: c("f")},
		{Func: "SUM", Args: []vec.Expr{c("x")}, Name: "sf", Filter: c("f")},
		{Func: "COUNT", Args: []vec.Expr{c("x")}, Name: "cf", Filter: c("f")},
		aggE("SUM", "s", c("x")),
	}, nil)
	aggCheck(t, aggRows(t, aggTC(mem, nil), h),
		"NULL|2|1|5|1|12", "1|2|1|NULL|0|6", "2|2|1|9|1|19")
}

func TestAggDistinct(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	mk := func() arrow.RecordBatch {
		return aggBatch([]string{"g", "a", "b", "f"},
			aggArr(mem, arrow.BinaryTypes.String, "p", "p", "p", "p", "p", "q", "q", "q"),
			aggArr(mem, arrow.PrimitiveTypes.Int64, 1, 1, 2, nil, 3, 5, 5, 5),
			aggArr(mem, arrow.BinaryTypes.String, "u", "v", "u", "u", nil, "w", "w", "w"),
			aggArr(mem, arrow.FixedWidthTypes.Boolean, true, true, true, true, false, true, nil, true),
		)
	}
	for _, split := range []struct{ parts, size int }{{1, 100}, {3, 1}, {2, 3}} {
		v := aggSplit(mk(), split.parts, split.size)
		s := v.Schema()
		c := func(n string) vec.Expr { return aggColumn(s, n) }
		d := func(fn, name string, f vec.Expr, args ...vec.Expr) AggExpr {
			return AggExpr{Func: fn, Args: args, Distinct: true, Name: name, Filter: f}
		}
		h := aggMust(t, v, []vec.Expr{c("g")}, []AggExpr{
			d("COUNT", "cd", nil, c("a")), d("COUNT", "cab", nil, c("a"), c("b")), d("SUM", "sd", nil, c("a")),
			d("AVG", "ad", nil, c("a")), d("COUNT", "cdf", c("f"), c("a")), d("STRING_AGG", "sad", nil, c("b")),
			d("MAX", "mx", nil, c("a")), aggE("COUNT", "c", c("a")),
		}, nil)
		aggCheck(t, aggRows(t, aggTC(mem, nil), h), "p|3|3|6|2|2|u,v|3|4", "q|1|1|5|5|1|w|5|3")
		// Without GROUP BY the DISTINCT sets key the arguments alone (the
		// rows the mask drops left out before inserting).
		h = aggMust(t, v, nil, []AggExpr{
			d("COUNT", "cd", nil, c("a")), d("COUNT", "cab", nil, c("a"), c("b")), d("SUM", "sd", nil, c("a")),
			d("AVG", "ad", nil, c("a")), d("COUNT", "cdf", c("f"), c("a")), d("COUNT", "cbf", c("f"), c("b")),
			d("MAX", "mx", nil, c("a")), aggE("COUNT", "c", c("a")),
		}, nil)
		aggCheck(t, aggRows(t, aggTC(mem, nil), h), "4|4|11|2.75|3|3|5|7")
		aggReleaseValues(v)
	}
}

func TestAggGroupingSets(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	v := aggSplit(aggBatch([]string{"a", "b", "v"},
		aggArr(mem, arrow.PrimitiveTypes.Int64, 1, 1, 2, 1, nil),
		aggArr(mem, arrow.PrimitiveTypes.Int64, 1, 2, 1, 1, 1),
		aggArr(mem, arrow.PrimitiveTypes.Int64, 10, 20, 30, 5, 7),
	), 2, 2)
	defer aggReleaseValues(v)
	s := v.Schema()
	a, b, x := aggColumn(s, "a"), aggColumn(s, "b"), aggColumn(s, "v")
	aggs := []AggExpr{aggE("SUM", "s", x), aggE("COUNT_STAR", "n")}
	rollup := aggMust(t, v, []vec.Expr{a, b}, aggs, [][]int{{0, 1}, {0}, {}})
	if f := rollup.Schema().Field(4); f.Name != "__grouping_id" || f.Type.ID() != arrow.INT64 || !rollup.Schema().Field(0).Nullable {
		t.Fatalf("schema %s", rollup.Schema())
	}
	aggCheck(t, aggRows(t, aggTC(mem, nil), rollup),
		"1|1|15|2|0", "1|2|20|1|0", "2|1|30|1|0", "NULL|1|7|1|0",
		"1|NULL|35|3|1", "2|NULL|30|1|1", "NULL|NULL|7|1|1",
		"NULL|NULL|72|5|3")
	cube := aggMust(t, v, []vec.Expr{a, b}, aggs, [][]int{{0, 1}, {0}, {1}, {}})
	aggCheck(t, aggRows(t, aggTC(mem, nil), cube),
		"1|1|15|2|0", "1|2|20|1|0", "2|1|30|1|0", "NULL|1|7|1|0",
		"1|NULL|35|3|1", "2|NULL|30|1|1", "NULL|NULL|7|1|1",
		"NULL|1|52|4|2", "NULL|2|20|1|2",
		"NULL|NULL|72|5|3")
	// A set listed twice gives its rows twice.
	dup := aggMust(t, v, []vec.Expr{a, b}, aggs, [][]int{{1}, {1}})
	aggCheck(t, aggRows(t, aggTC(mem, nil), dup),
		"NULL|1|52|4|2", "NULL|2|20|1|2", "NULL|1|52|4|2", "NULL|2|20|1|2")
	if GroupingID(3, []int{1}) != 5 || GroupingID(2, nil) != 3 || GroupingID(2, []int{0, 1}) != 0 {
		t.Fatal("GroupingID")
	}
	if _, err := NewHashAggregate(v, []vec.Expr{a}, nil, aggs, [][]int{{1}}); err == nil {
		t.Fatal("grouping set out of range accepted")
	}
}

func TestAggValidation(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	v := aggSplit(aggTypesBatch(mem), 1, 10)
	defer aggReleaseValues(v)
	s := v.Schema()
	c := func(n string) vec.Expr { return aggColumn(s, n) }
	for _, a := range []AggExpr{
		aggE("NOPE", "x", c("i32")), aggE("SUM", "x", c("str")), aggE("SUM", "x"), aggE("BOOL_AND", "x", c("i32")),
		{Func: "COUNT_STAR", Distinct: true}, {Func: "SUM", Args: []vec.Expr{c("i32")}, Filter: c("i32")},
		aggE("AVG", "x", c("b")), aggE("MIN", "x", c("i32"), c("i32")),
	} {
		if _, err := NewHashAggregate(v, nil, nil, []AggExpr{a}, nil); err == nil {
			t.Errorf("%s(%d args) accepted", a.Func, len(a.Args))
		}
	}
	// A column whose declared type lies is an error, not a panic.
	liar := &vec.Column{Index: 1, Name: "i32", T: arrow.PrimitiveTypes.Int64}
	h := aggMust(t, v, nil, []AggExpr{aggE("SUM", "s", liar)}, nil)
	if _, err := Collect(aggTC(mem, nil), h); err == nil {
		t.Fatal("mistyped argument accepted")
	}
	h = aggMust(t, v, []vec.Expr{liar}, []AggExpr{aggE("COUNT_STAR", "n")}, nil)
	if _, err := Collect(aggTC(mem, nil), h); err == nil {
		t.Fatal("mistyped group accepted")
	}
	if got := h.Explain(); !strings.Contains(got, "HashAggregate") || !strings.Contains(got, "count(*)") {
		t.Fatalf("explain %q", got)
	}
}

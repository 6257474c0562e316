package exec

import (
	"math/big"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

func qNum(t *testing.T, s string) vec.Expr {
	t.Helper()
	l, err := vec.NumberLiteral(s)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestQuantileDecimal checks MEDIAN/QUANTILE_CONT/QUANTILE_DISC over
// DECIMAL against values DuckDB 1.5 returns: the result keeps the
// argument's type; precision <= 18 rounds the interpolation down,
// precision > 18 towards zero.
func TestQuantileDecimal(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	d52 := &arrow.Decimal128Type{Precision: 5, Scale: 2}
	d382 := &arrow.Decimal128Type{Precision: 38, Scale: 2}
	d51 := &arrow.Decimal128Type{Precision: 5, Scale: 1}
	for _, split := range []struct{ parts, size int }{{1, 100}, {3, 1}, {2, 2}} {
		b := aggBatch([]string{"g", "x", "h", "y"},
			aggArr(mem, arrow.PrimitiveTypes.Int64, 1, 1, 1, 1, 2, 2, 2, 2, 3),
			aggArr(mem, d52, 105, 200, 208, 311, -105, -200, -208, -311, nil),
			aggArr(mem, d382, -200, -207, nil, nil, -200, -207, nil, nil, nil),
			aggArr(mem, d51, 11, 22, 33, 44, 44, 33, 22, 11, nil),
		)
		v := aggSplit(b, split.parts, split.size)
		defer aggReleaseValues(v)
		s := v.Schema()
		c := func(n string) vec.Expr { return aggColumn(s, n) }
		aggs := []AggExpr{
			aggE("QUANTILE_CONT", "m", c("x"), qNum(t, "0.5")),
			aggE("QUANTILE_CONT", "q1", c("x"), qNum(t, "0.1")),
			aggE("QUANTILE_CONT", "q3", c("x"), qNum(t, "0.3")),
			aggE("QUANTILE_CONT", "q7", c("x"), qNum(t, "0.7")),
			aggE("QUANTILE_CONT", "hm", c("h"), qNum(t, "0.5")),
			aggE("QUANTILE_CONT", "h3", c("h"), qNum(t, "0.3")),
			aggE("QUANTILE_DISC", "d5", c("y"), qNum(t, "0.5")),
			aggE("QUANTILE_DISC", "d51", c("y"), qNum(t, "0.51")),
			aggE("QUANTILE_DISC", "d0", c("y"), qNum(t, "0")),
			aggE("QUANTILE_DISC", "d1", c("y"), qNum(t, "1")),
			aggE("QUANTILE_DISC", "d25", c("y"), qNum(t, "0.25")),
		}
		h := aggMust(t, v, []vec.Expr{c("g")}, aggs, nil)
		for i, want := range []arrow.DataType{d52, d52, d52, d52, d382, d382, d51, d51, d51, d51, d51} {
			if got := h.Schema().Field(i + 1).Type; !arrow.TypeEqual(got, want) {
				t.Fatalf("%s is %s, want %s", h.Schema().Field(i+1).Name, got, want)
			}
		}
		got := aggRows(t, aggTC(mem, nil), h)
		aggCheck(t, got,
			"1|2.04|1.33|1.9|2.18|-2.03|-2.04|2.2|3.3|1.1|4.4|1.1",
			"2|-2.04|-2.81|-2.19|-1.91|-2.03|-2.04|2.2|3.3|1.1|4.4|1.1",
			"3|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL",
		)
	}
}

func TestQuantInterpDec(t *testing.T) {
	n := func(s string) decimal128.Num {
		b, _ := new(big.Int).SetString(s, 10)
		return decimal128.FromBigInt(b)
	}
	for _, c := range []struct {
		lo, hi string
		d      float64
		prec   int32
		want   string
	}{
		{"-207", "-200", 0.5, 18, "-204"}, // rounds down
		{"-207", "-200", 0.5, 19, "-203"}, // rounds towards zero
		{"-207", "-200", 0.30000000000000004, 18, "-205"},
		{"200", "207", 0.5, 38, "203"},
		// beyond 2^53: exact (DuckDB goes through float64 and loses digits)
		{"1234567890123456789012", "1234567890123456789012", 0.5, 38, "1234567890123456789012"},
		{"1234567890123456789012", "1234567890123456789015", 0.5, 38, "1234567890123456789013"},
		{"-1234567890123456789015", "-1234567890123456789012", 0.5, 38, "-1234567890123456789013"},
	} {
		got := quantInterpDec(n(c.lo), n(c.hi), c.d, c.prec).BigInt().String()
		if got != c.want {
			t.Errorf("interp(%s, %s, %v, p%d) = %s, want %s", c.lo, c.hi, c.d, c.prec, got, c.want)
		}
	}
}

func TestQuantDiscIndex(t *testing.T) {
	exact := quantFrac{f: 0.56, num: 14, den: 25}
	approx := quantFrac{f: 0.56}
	// 25 - 25·0.56 is 10.999999999999998 in float64: the exact fraction
	// picks index 13 (ceil(14) - 1), the float one 14 (DuckDB does the same
	// for a DECIMAL / DOUBLE fraction).
	if got := exact.discIndex(25); got != 13 {
		t.Errorf("exact index %d, want 13", got)
	}
	if got := approx.discIndex(25); got != 14 {
		t.Errorf("float index %d, want 14", got)
	}
	for n := 1; n < 50; n++ {
		if got := (quantFrac{f: 0, num: 0, den: 1}).discIndex(n); got != 0 {
			t.Fatalf("q=0 n=%d: %d", n, got)
		}
		if got := (quantFrac{f: 1, num: 1, den: 1}).discIndex(n); got != n-1 {
			t.Fatalf("q=1 n=%d: %d", n, got)
		}
	}
}

func TestQuantFracOf(t *testing.T) {
	for _, s := range []string{"0.3", "0.41", "0.5", "0.07", "1"} {
		l, err := vec.NumberLiteral(s)
		if err != nil {
			t.Fatal(err)
		}
		q, ok := quantFracOf(l.Value)
		want, _ := new(big.Rat).SetString(s)
		wf, _ := want.Float64()
		if !ok || q.f != wf {
			t.Errorf("%s: %v (%v), want %v", s, q.f, ok, wf)
		}
		if q.den == 0 || new(big.Rat).SetFrac64(int64(q.num), int64(q.den)).Cmp(want) != 0 {
			t.Errorf("%s: fraction %d/%d", s, q.num, q.den)
		}
	}
}

// TestQuantileDiscTyped: QUANTILE_DISC over integers, strings and dates
// keeps the argument's type and picks max(1, ceil(n·q))-1 of the sorted
// non-NULL values.
func TestQuantileDiscTyped(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	for _, split := range []struct{ parts, size int }{{1, 100}, {3, 1}, {2, 2}} {
		b := aggBatch([]string{"g", "i", "s", "d"},
			aggArr(mem, arrow.PrimitiveTypes.Int64, 1, 1, 1, 1, 2, 2),
			aggArr(mem, arrow.PrimitiveTypes.Int32, 40, nil, 10, 30, nil, nil),
			aggArr(mem, arrow.BinaryTypes.String, "b", "d", "a", "c", "z", nil),
			aggArr(mem, arrow.FixedWidthTypes.Date32, 3, 1, 2, 4, nil, 9),
		)
		v := aggSplit(b, split.parts, split.size)
		defer aggReleaseValues(v)
		s := v.Schema()
		c := func(n string) vec.Expr { return aggColumn(s, n) }
		aggs := []AggExpr{
			aggE("QUANTILE_DISC", "i5", c("i"), qNum(t, "0.5")),
			aggE("QUANTILE_DISC", "s25", c("s"), qNum(t, "0.25")),
			aggE("QUANTILE_DISC", "s1", c("s"), qNum(t, "1")),
			aggE("QUANTILE_DISC", "d0", c("d"), qNum(t, "0")),
		}
		h := aggMust(t, v, []vec.Expr{c("g")}, aggs, nil)
		for i, want := range []arrow.DataType{arrow.PrimitiveTypes.Int32, arrow.BinaryTypes.String, arrow.BinaryTypes.String, arrow.FixedWidthTypes.Date32} {
			if got := h.Schema().Field(i + 1).Type; !arrow.TypeEqual(got, want) {
				t.Fatalf("%s is %s, want %s", h.Schema().Field(i+1).Name, got, want)
			}
		}
		got := aggRows(t, aggTC(mem, nil), h)
		aggCheck(t, got,
			"1|30|a|d|1970-01-02",
			"2|NULL|z|z|1970-01-10",
		)
	}
}

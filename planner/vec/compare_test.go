package vec

import (
	"math"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/scalar"
)

func TestCompareTypes(t *testing.T) {
	m, ml := musts(t), lits(t)
	x := newTB(t)
	i32 := x.col("i", arrow.PrimitiveTypes.Int32, `[1, 5, null, -3, 24, 7, 8, 9, 10]`)
	i64 := x.col("j", arrow.PrimitiveTypes.Int64, `[1, 4, 2, null, 24, 8, 8, 8, 11]`)
	ops := []struct{ op, want string }{
		{"=", "true,false,NULL,NULL,true,false,true,false,false"},
		{"<>", "false,true,NULL,NULL,false,true,false,true,true"},
		{"<", "false,false,NULL,NULL,false,true,false,false,true"},
		{"<=", "true,false,NULL,NULL,true,true,true,false,true"},
		{">", "false,true,NULL,NULL,false,false,false,true,false"},
		{">=", "true,true,NULL,NULL,true,false,true,true,false"},
		{"<=>", "true,false,false,false,true,false,true,false,false"},
		{"is distinct from", "false,true,true,true,false,true,false,true,true"},
	}
	for _, o := range ops {
		x.want(m(NewCompare(o.op, i32, i64)), nil, 0, o.want)
		x.want(m(NewCompare(flipOp(o.op), i64, i32)), nil, 0, o.want)
	}
	// constant on either side; the constant narrows to the column type
	e := m(NewCompare("<", i32, num_(t, "8")))
	if c := e.(*Compare); c.L != Expr(i32) {
		t.Errorf("column was cast: %s", c.L)
	}
	x.want(e, nil, 0, "true,true,NULL,true,false,true,false,false,false")
	x.want(m(NewCompare(">", num_(t, "8"), i32)), nil, 0, "true,true,NULL,true,false,true,false,false,false")
	x.want(m(NewCompare("<", i32, num_(t, "7.5"))), nil, 0, "true,true,NULL,true,false,true,false,false,false")
	x.want(m(NewCompare("=", i32, num_(t, "3000000000"))), nil, 0, "false,false,NULL,false,false,false,false,false,false")
	x.want(m(NewCompare("=", i32, NullLiteral(arrow.Null))), nil, 0, "NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL")
	x.want(m(NewCompare("<=>", i32, NullLiteral(arrow.Null))), nil, 0, "false,false,true,false,false,false,false,false,false")
	x.want(m(NewCompare("is distinct from", NullLiteral(arrow.Null), i32)), nil, 0, "true,true,false,true,true,true,true,true,true")
	_ = ml
}

func flipOp(op string) string {
	if f, ok := map[string]string{"<": ">", "<=": ">=", ">": "<", ">=": "<="}[op]; ok {
		return f
	}
	return op
}

func TestCompareSwapped(t *testing.T) {
	m := musts(t)
	x := newTB(t)
	a := x.col("a", arrow.PrimitiveTypes.Int64, `[1, 2, 3]`)
	b := x.col("b", arrow.PrimitiveTypes.Int64, `[2, 2, 2]`)
	x.want(m(NewCompare("<", a, b)), nil, 0, "true,false,false")
	x.want(m(NewCompare("<", b, a)), nil, 0, "false,false,true")
	x.want(m(NewCompare(">=", b, a)), nil, 0, "true,true,false")
	x.want(m(NewCompare(">=", num_(t, "2"), a)), nil, 0, "true,true,false")
}

func TestCompareDecimalExact(t *testing.T) {
	m := musts(t)
	x := newTB(t)
	d := x.col("d", dec(15, 2), `["0.07", "0.05", "0.04", "0.08", null, "0.06"]`)
	lo := m(NewArith("-", num_(t, "0.06"), num_(t, "0.01")))
	hi := m(NewArith("+", num_(t, "0.06"), num_(t, "0.01")))
	between := m(NewAnd(m(NewCompare(">=", d, lo)), m(NewCompare("<=", d, hi))))
	x.want(between, nil, 0, "true,true,false,false,NULL,true")
	f := m(Fold(between))
	if !strings.Contains(f.String(), "d >= 0.05") || !strings.Contains(f.String(), "d <= 0.07") {
		t.Errorf("folded %s", f)
	}
	x.want(f, nil, 0, "true,true,false,false,NULL,true")
	// decimal vs integer, never through float
	big := x.col("big", dec(38, 0), `["9007199254740993", "9007199254740992", "1", "0", null, "-1"]`)
	x.want(m(NewCompare("=", big, num_(t, "9007199254740993"))), nil, 0, "true,false,false,false,NULL,false")
	i := x.col("i", arrow.PrimitiveTypes.Int64, `[9007199254740993, 9007199254740993, 1, 1, 1, -1]`)
	x.want(m(NewCompare("=", big, i)), nil, 0, "true,false,true,false,NULL,true")
	x.want(m(NewCompare("<", d, i)), nil, 0, "true,true,true,true,NULL,false")
}

func TestCompareFloatNaN(t *testing.T) {
	m := musts(t)
	x := newTB(t)
	mem := memory.NewGoAllocator()
	_ = mem
	f := x.col("f", arrow.PrimitiveTypes.Float64, `[1, 2, 3, 4, 0]`)
	// make row 2 NaN and row 3 +Inf through arithmetic-free JSON: rebuild
	vals := fixedValues[float64](x.cols[0])
	vals[2], vals[3] = math.NaN(), math.Inf(1)
	nan := NewLiteral(scalar.NewFloat64Scalar(math.NaN()))
	x.want(m(NewCompare("=", f, nan)), nil, 0, "false,false,true,false,false")
	x.want(m(NewCompare("<", f, nan)), nil, 0, "true,true,false,true,true")
	x.want(m(NewCompare(">", f, NewLiteral(scalar.NewFloat64Scalar(1e300)))), nil, 0, "false,false,true,true,false")
	x.want(m(NewCompare(">=", f, f)), nil, 0, "true,true,true,true,true")
	x.want(m(NewCompare("<>", f, f)), nil, 0, "false,false,false,false,false")
	x.want(m(NewCompare("=", f, num_(t, "-0.0"))), nil, 0, "false,false,false,false,true")
}

func TestCompareTemporalAndStrings(t *testing.T) {
	m, ml := musts(t), lits(t)
	x := newTB(t)
	d := x.col("d", arrow.FixedWidthTypes.Date32, `["2023-12-31", "2024-01-01", "2024-01-02", null]`)
	s := x.col("s", arrow.BinaryTypes.String, `["abc", "abd", "ab", "é"]`)
	x.want(m(NewCompare(">=", d, ml(TimestampLiteral("2024-01-01 00:00:00")))), nil, 0, "false,true,true,NULL")
	x.want(m(NewCompare(">", d, ml(TimestampLiteral("2024-01-01 12:00:00")))), nil, 0, "false,false,true,NULL")
	x.want(m(NewCompare("=", d, ml(TimestampLiteral("2024-01-01 00:00:01")))), nil, 0, "false,false,false,NULL")
	x.want(m(NewCompare(">=", d, StringLiteral("2024-01-01"))), nil, 0, "false,true,true,NULL")
	_, err := NewCompare(">=", d, StringLiteral("2024-13-01"))
	x.wantErr(nil, err, 0, "2024-13-01")
	e := m(NewCompare("<=", d, StringLiteral("1998-09-02")))
	if e.String() != "d <= DATE '1998-09-02'" {
		t.Errorf("String() = %s", e)
	}
	x.want(m(NewCompare("<", s, StringLiteral("abd"))), nil, 0, "true,false,true,false")
	x.want(m(NewCompare(">", s, StringLiteral("z"))), nil, 0, "false,false,false,true")
	x.want(m(NewCompare("=", s, StringLiteral("ab"))), nil, 0, "false,false,true,false")
	_, err = NewCompare("=", s, d)
	x.wantErr(nil, err, 0, "cannot compare")
	b := x.col("b", arrow.FixedWidthTypes.Boolean, `[true, false, null, true]`)
	x.want(m(NewCompare("=", b, BoolLiteral(true))), nil, 0, "true,false,NULL,true")
	x.want(m(NewCompare(">", b, BoolLiteral(false))), nil, 0, "true,false,NULL,true")
	ts := x.col("ts", &arrow.TimestampType{Unit: arrow.Millisecond}, `["2024-01-01 00:00:00.001", "2024-01-01 00:00:00", null, "2023-01-01 00:00:00"]`)
	x.want(m(NewCompare(">", ts, d)), nil, 0, "true,false,NULL,NULL")
	x.want(m(NewCompare(">", ts, ml(TimestampLiteral("2024-01-01 00:00:00.0005")))), nil, 0, "true,false,NULL,false")
}

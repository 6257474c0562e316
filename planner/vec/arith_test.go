package vec

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
)

func TestArithIntegers(t *testing.T) {
	m, ml := musts(t), lits(t)
	_, _ = m, ml
	x := newTB(t)
	a := x.col("a", arrow.PrimitiveTypes.Int64, `[1, -7, null, 9223372036854775800, 0]`)
	b := x.col("b", arrow.PrimitiveTypes.Int32, `[2, 2, 5, null, 0]`)
	for _, c := range []struct {
		op   string
		want string
	}{
		{"+", "3,-5,NULL,NULL,0"},
		{"-", "-1,-9,NULL,NULL,0"},
		{"*", "2,-14,NULL,NULL,0"},
		{"/", "0.5,-3.5,NULL,NULL,nan"}, // DuckDB: IEEE division
		{"%", "1,-1,NULL,NULL,NULL"},
		{"div", "0,-3,NULL,NULL,NULL"},
	} {
		e, err := NewArith(c.op, a, b)
		x.want(e, err, 0, c.want)
	}
	// column op constant, constant op column
	e, err := NewArith("-", num_(t, "10"), b)
	x.want(e, err, 0, "8,8,5,NULL,10")
	e, err = NewArith("*", a, num_(t, "3"))
	x.wantErr(e, err, 0, "BIGINT overflow")
	e, err = NewArith("+", a, num_(t, "8"))
	x.wantErr(e, err, 0, "BIGINT overflow in (a + 8)")
	e, err = NewArith("+", a, num_(t, "7"))
	x.want(e, err, 0, "8,0,NULL,9223372036854775807,7")
	// overflow hidden behind a NULL is not an error
	mm := x.col("m", arrow.PrimitiveTypes.Int64, `[1, 1, 1, 9223372036854775807, 1]`)
	e, err = NewArith("*", mm, b)
	x.want(e, err, 0, "2,2,5,NULL,0")
}

func TestArithOverflowEdges(t *testing.T) {
	m, ml := musts(t), lits(t)
	_, _ = m, ml
	x := newTB(t)
	a := x.col("a", arrow.PrimitiveTypes.Int64, `[-9223372036854775808, 4294967296, -1]`)
	b := x.col("b", arrow.PrimitiveTypes.Int64, `[-1, 4294967296, -9223372036854775808]`)
	e, err := NewArith("div", a, b)
	x.wantErr(e, err, 0, "BIGINT overflow")
	e, err = NewArith("*", a, b)
	x.wantErr(e, err, 0, "BIGINT overflow")
	e, err = NewArith("%", a, b)
	x.want(e, err, 0, "0,0,-1")
	e, err = NewArith("-", a, num_(t, "1"))
	x.wantErr(e, err, 0, "BIGINT overflow")
	e, err = NewNeg(a)
	x.wantErr(e, err, 0, "BIGINT overflow")
}

func TestArithDecimal(t *testing.T) {
	m, ml := musts(t), lits(t)
	_, _ = m, ml
	x := newTB(t)
	// DECIMAL literal arithmetic is exact
	e := m(NewArith("+", num_(t, "0.06"), num_(t, "0.01")))
	if got := e.Type().String(); got != dec(3, 2).String() {
		t.Errorf("0.06 + 0.01 typed %s", got)
	}
	x.want(e, nil, 1, "0.07")
	x.want(m(NewArith("*", num_(t, "1.10"), num_(t, "3"))), nil, 1, "3.30")
	x.want(m(NewArith("-", num_(t, "1"), num_(t, "0.05"))), nil, 1, "0.95")
	x.want(m(NewArith("/", num_(t, "1"), num_(t, "4"))), nil, 1, "0.25")
	x.want(m(NewArith("%", num_(t, "7.5"), num_(t, "2"))), nil, 1, "1.5")
	x.want(m(NewArith("+", num_(t, "0.5"), num_(t, "1e0"))), nil, 1, "1.5")

	p := x.col("p", dec(15, 2), `["1000.10", "-0.01", null, "9999999999999.99"]`)
	d := x.col("d", dec(15, 2), `["0.05", "0.10", "0.01", "0.00"]`)
	one := num_(t, "1")
	disc := m(NewArith("-", one, d))
	if disc.Type().String() != dec(16, 2).String() {
		t.Errorf("1 - d typed %s", disc.Type())
	}
	x.want(m(NewArith("*", p, disc)), nil, 0, "950.0950,-0.0090,NULL,9999999999999.9900")
	x.want(m(NewArith("+", p, d)), nil, 0, "1000.15,0.09,NULL,9999999999999.99")
	x.want(m(NewArith("%", p, d)), nil, 0, "0.00,-0.01,NULL,NULL")
	x.want(m(NewArith("*", p, num_(t, "0.5"))), nil, 0, "500.050,-0.005,NULL,4999999999999.995")

	// 38-digit results: runtime overflow is an error, large exact sums work
	big := x.col("big", dec(38, 0), `["99999999999999999999999999999999999999", "1", "1", "-5"]`)
	e = m(NewArith("+", big, num_(t, "1")))
	x.wantErr(e, nil, 0, "overflow")
	e = m(NewArith("-", big, num_(t, "1")))
	x.want(e, nil, 0, "99999999999999999999999999999999999998,0,0,-6")
	e = m(NewArith("*", big, big))
	x.wantErr(e, nil, 0, "overflow")
	s := x.col("s", dec(38, 2), `["12345678901234567890123456789012.34", "1.00", null, "-0.01"]`)
	x.want(m(NewArith("+", s, s)), nil, 0, "24691357802469135780246913578024.68,2.00,NULL,-0.02")
	x.want(m(NewArith("*", s, num_(t, "2"))), nil, 0, "24691357802469135780246913578024.68,2.00,NULL,-0.02")
	// decimal with double is double
	f := x.col("f", arrow.PrimitiveTypes.Float64, `[0.5, 1, 2, 4]`)
	e = m(NewArith("*", d, f))
	if e.Type().ID() != arrow.FLOAT64 {
		t.Errorf("decimal * double typed %s", e.Type())
	}
	x.want(e, nil, 0, "0.025,0.1,0.02,0.0")
	// scale beyond 38 is a bind error
	_, err := NewArith("*", &Column{Index: 0, Name: "x", T: dec(38, 20)}, &Column{Index: 0, Name: "y", T: dec(38, 20)})
	x.wantErr(nil, err, 0, "scale 40")
}

func TestArithFloat(t *testing.T) {
	m, ml := musts(t), lits(t)
	_, _ = m, ml
	x := newTB(t)
	a := x.col("a", arrow.PrimitiveTypes.Float64, `[1.5, -2, null, 1e308, 0]`)
	b := x.col("b", arrow.PrimitiveTypes.Float32, `[2, 0, 1, 10, 0]`)
	x.want(m(NewArith("+", a, b)), nil, 0, "3.5,-2.0,NULL,1e+308,0.0")
	x.want(m(NewArith("/", a, b)), nil, 0, "0.75,-inf,NULL,1e+307,nan") // DuckDB: x / 0 is ±Inf
	x.want(m(NewArith("%", a, b)), nil, 0, "1.5,NULL,NULL,6.0,NULL")
	x.wantErr(m(NewArith("*", a, b)), nil, 0, "DOUBLE overflow")
	x.want(m(NewNeg(a)), nil, 0, "-1.5,2.0,NULL,-1e+308,-0.0")
}

func TestArithTypeErrors(t *testing.T) {
	m, ml := musts(t), lits(t)
	_, _ = m, ml
	x := newTB(t)
	s := x.col("s", arrow.BinaryTypes.String, `["a"]`)
	i := x.col("i", arrow.PrimitiveTypes.Int64, `[1]`)
	bl := x.col("b", arrow.FixedWidthTypes.Boolean, `[true]`)
	_, err := NewArith("+", s, i)
	x.wantErr(nil, err, 0, "operator + does not apply to VARCHAR and BIGINT")
	_, err = NewArith("*", bl, i)
	x.wantErr(nil, err, 0, "BOOLEAN")
	_, err = NewArith("^", i, i)
	x.wantErr(nil, err, 0, "unknown arithmetic operator")
	_, err = NewNeg(s)
	x.wantErr(nil, err, 0, "unary minus")
	// '3' + 1 parses the literal; 'x' + 1 names it
	x.want(m(NewArith("+", StringLiteral("3"), i)), nil, 0, "4")
	_, err = NewArith("+", StringLiteral("x"), i)
	x.wantErr(nil, err, 0, `"x"`)
	// NULL + x is a typed NULL
	e := m(NewArith("+", NullLiteral(arrow.Null), i))
	if e.Type().ID() != arrow.INT64 {
		t.Errorf("NULL + i typed %s", e.Type())
	}
	x.want(e, nil, 0, "NULL")
}

func TestArithTemporal(t *testing.T) {
	m, ml := musts(t), lits(t)
	_, _ = m, ml
	x := newTB(t)
	d := x.col("d", arrow.FixedWidthTypes.Date32, `["2024-01-31", "1969-12-31", null, "2023-01-31", "1900-02-28"]`)
	ts := x.col("ts", &arrow.TimestampType{Unit: arrow.Microsecond}, `["2024-01-31 10:00:00", "1969-12-31 23:59:59.5", null, "2023-03-31 00:00:00", "2000-02-29 12:00:00"]`)
	month := ml(IntervalLiteral("1", "MONTH"))
	x.want(m(NewArith("+", d, month)), nil, 0, "2024-02-29,1970-01-31,NULL,2023-02-28,1900-03-28")
	x.want(m(NewArith("-", d, month)), nil, 0, "2023-12-31,1969-11-30,NULL,2022-12-31,1900-01-28")
	x.want(m(NewArith("+", month, d)), nil, 0, "2024-02-29,1970-01-31,NULL,2023-02-28,1900-03-28")
	x.want(m(NewArith("+", d, num_(t, "1"))), nil, 0, "2024-02-01,1970-01-01,NULL,2023-02-01,1900-03-01")
	x.want(m(NewArith("+", num_(t, "1"), d)), nil, 0, "2024-02-01,1970-01-01,NULL,2023-02-01,1900-03-01")
	x.want(m(NewArith("-", d, ml(DateLiteral("1970-01-01")))), nil, 0, "19753,-1,NULL,19388,-25509")
	hours := ml(IntervalLiteral("36", "hours"))
	e := m(NewArith("+", d, hours))
	if !isTimestamp(e.Type()) {
		t.Errorf("date + 36 hours typed %s", e.Type())
	}
	x.want(e, nil, 0, "2024-02-01 12:00:00,1970-01-01 12:00:00,NULL,2023-02-01 12:00:00,1900-03-01 12:00:00")
	year := ml(IntervalLiteral("-1", "year"))
	x.want(m(NewArith("+", ts, year)), nil, 0, "2023-01-31 10:00:00,1968-12-31 23:59:59.5,NULL,2022-03-31 00:00:00,1999-02-28 12:00:00")
	x.want(m(NewArith("+", ts, ml(IntervalLiteral("1 month 1 day 00:00:01", "")))), nil, 0,
		"2024-03-01 10:00:01,1970-02-02 00:00:00.5,NULL,2023-05-01 00:00:01,2000-03-30 12:00:01")
	x.want(m(NewArith("-", ts, ml(IntervalLiteral("1.5", "second")))), nil, 0,
		"2024-01-31 09:59:58.5,1969-12-31 23:59:58,NULL,2023-03-30 23:59:58.5,2000-02-29 11:59:58.5")
	x.want(m(NewArith("-", ts, ml(TimestampLiteral("2024-01-30 09:00:00")))), nil, 0,
		"1 day 01:00:00,-19752 days -09:00:00.5,NULL,-305 days -09:00:00,-8735 days -21:00:00")
	// timestamp - date promotes the date
	x.want(m(NewArith("-", ts, d)), nil, 0, "10:00:00,23:59:59.5,NULL,59 days,36525 days 12:00:00")
	x.want(m(NewArith("*", month, num_(t, "14"))), nil, 0, "1 year 2 months,1 year 2 months,1 year 2 months,1 year 2 months,1 year 2 months")
	x.want(m(NewArith("-", month, ml(IntervalLiteral("2", "days")))), nil, 0, "1 month -2 days,1 month -2 days,1 month -2 days,1 month -2 days,1 month -2 days")
	// date + '1 day' reads the string as an interval
	x.want(m(NewArith("+", d, StringLiteral("1 day"))), nil, 0, "2024-02-01,1970-01-01,NULL,2023-02-01,1900-03-01")
	_, err := NewArith("*", d, num_(t, "2"))
	x.wantErr(nil, err, 0, "does not apply to DATE")
	_, err = NewArith("+", ts, ts)
	x.wantErr(nil, err, 0, "does not apply to TIMESTAMP")
	e = m(NewArith("+", d, num_(t, "3000000000")))
	x.wantErr(e, nil, 0, "DATE out of range")
}

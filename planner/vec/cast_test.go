package vec

import (
	"math/big"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/scalar"

	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
)

func TestCastFromString(t *testing.T) {
	m := musts(t)
	x := newTB(t)
	s := x.col("s", arrow.BinaryTypes.String, `[" 42 ", "-7", null, "1.5"]`)
	x.want(m(NewCast(s, arrow.PrimitiveTypes.Int32)), nil, 0, "42,-7,NULL,2")
	x.want(m(NewCast(s, arrow.PrimitiveTypes.Float64)), nil, 0, "42.0,-7.0,NULL,1.5")
	x.want(m(NewCast(s, dec(5, 1))), nil, 0, "42.0,-7.0,NULL,1.5")
	x.want(m(NewCast(s, dec(5, 0))), nil, 0, "42,-7,NULL,2")
	bad := x.col("bad", arrow.BinaryTypes.String, `["12", "12x", null, "3"]`)
	x.wantErr(m(NewCast(bad, arrow.PrimitiveTypes.Int64)), nil, 0, `cannot CAST "12x" to BIGINT`)
	x.wantErr(m(NewCast(bad, arrow.FixedWidthTypes.Date32)), nil, 0, `invalid DATE "12"`)
	big := x.col("big", arrow.BinaryTypes.String, `["300", "1", null, "2"]`)
	x.wantErr(m(NewCast(big, arrow.PrimitiveTypes.Int8)), nil, 0, "cannot CAST 300 to TINYINT: out of range")
	b := x.col("b", arrow.BinaryTypes.String, `["TRUE", "f", null, "Yes"]`)
	x.want(m(NewCast(b, arrow.FixedWidthTypes.Boolean)), nil, 0, "true,false,NULL,true")
	d := x.col("d", arrow.BinaryTypes.String, `["2024-02-29", " 1969-12-31 ", null, "0001-01-01"]`)
	x.want(m(NewCast(d, arrow.FixedWidthTypes.Date32)), nil, 0, "2024-02-29,1969-12-31,NULL,0001-01-01")
	ts := x.col("ts", arrow.BinaryTypes.String, `["2024-02-29 13:14:15.123456", "1969-12-31T23:59:59Z", null, "2024-01-01"]`)
	x.want(m(NewCast(ts, tTSus)), nil, 0, "2024-02-29 13:14:15.123456,1969-12-31 23:59:59,NULL,2024-01-01 00:00:00")
	feb := x.col("feb", arrow.BinaryTypes.String, `["2023-02-29", "2024-01-01", null, "2024-01-01"]`)
	x.wantErr(m(NewCast(feb, arrow.FixedWidthTypes.Date32)), nil, 0, "2023-02-29")
}

func TestCastToString(t *testing.T) {
	m := musts(t)
	x := newTB(t)
	x.want(m(NewCast(num_(t, "1.50"), tString)), nil, 1, "1.50")
	x.want(m(NewCast(num_(t, "-0.07"), tString)), nil, 1, "-0.07")
	f := x.col("f", arrow.PrimitiveTypes.Float64, `[0.1, 1, 1e20, 1.5e-7, 123456.789, -0.0]`)
	x.want(m(NewCast(f, tString)), nil, 0, "0.1,1.0,1e+20,1.5e-07,123456.789,-0.0")
	d := x.col("d", arrow.FixedWidthTypes.Date32, `["2024-01-02", null, "1900-01-01", "1970-01-01", "2000-02-29", "9999-12-31"]`)
	x.want(m(NewCast(d, tString)), nil, 0, "2024-01-02,NULL,1900-01-01,1970-01-01,2000-02-29,9999-12-31")
	x.want(m(NewCast(d, tTSus)), nil, 0, "2024-01-02 00:00:00,NULL,1900-01-01 00:00:00,1970-01-01 00:00:00,2000-02-29 00:00:00,9999-12-31 00:00:00")
	b := x.col("b", arrow.FixedWidthTypes.Boolean, `[true, false, null, true, false, true]`)
	x.want(m(NewCast(b, tString)), nil, 0, "true,false,NULL,true,false,true")
	x.want(m(NewCast(b, arrow.PrimitiveTypes.Int32)), nil, 0, "1,0,NULL,1,0,1")
}

func TestCastNumbers(t *testing.T) {
	m := musts(t)
	x := newTB(t)
	f := x.col("f", arrow.PrimitiveTypes.Float64, `[2.5, -2.5, 0.49999, null, 1e19]`)
	x.wantErr(m(NewCast(f, arrow.PrimitiveTypes.Int64)), nil, 0, "out of range")
	g := x.col("g", arrow.PrimitiveTypes.Float64, `[2.5, -2.5, 0.49999, null, 127.4]`)
	x.want(m(NewCast(g, arrow.PrimitiveTypes.Int8)), nil, 0, "2,-2,0,NULL,127") // DuckDB: half to even
	x.want(m(NewCast(g, dec(4, 1))), nil, 0, "2.5,-2.5,0.5,NULL,127.4")
	dd := x.col("dd", dec(10, 3), `["1.005", "-1.005", "1.004", null, "99999.999"]`)
	x.want(m(NewCast(dd, dec(10, 2))), nil, 0, "1.01,-1.01,1.00,NULL,100000.00")
	x.wantErr(m(NewCast(dd, dec(6, 2))), nil, 0, "cannot CAST 99999.999 to DECIMAL(6,2)")
	x.want(m(NewCast(dd, arrow.PrimitiveTypes.Int32)), nil, 0, "1,-1,1,NULL,100000")
	x.want(m(NewCast(dd, arrow.PrimitiveTypes.Float64)), nil, 0, "1.005,-1.005,1.004,NULL,99999.999")
	i := x.col("i", arrow.PrimitiveTypes.Int64, `[1, -1, 0, null, 100000]`)
	x.want(m(NewCast(i, dec(8, 2))), nil, 0, "1.00,-1.00,0.00,NULL,100000.00")
	x.wantErr(m(NewCast(i, dec(6, 2))), nil, 0, "cannot CAST 100000 to DECIMAL(6,2)")
	x.wantErr(m(NewCast(i, arrow.PrimitiveTypes.Int16)), nil, 0, "cannot CAST 100000 to SMALLINT")
	x.want(m(NewCast(i, arrow.FixedWidthTypes.Boolean)), nil, 0, "true,true,false,NULL,true")
	_, err := NewCast(i, arrow.FixedWidthTypes.Date32)
	x.wantErr(nil, err, 0, "cannot CAST")
}

func TestCastTarget(t *testing.T) {
	for in, want := range map[string]string{
		"INT": "INTEGER", "integer": "INTEGER", "BIGINT": "BIGINT", "smallint": "SMALLINT", "TINYINT": "TINYINT",
		"DOUBLE": "DOUBLE", "FLOAT": "FLOAT", "REAL": "FLOAT", "DECIMAL(12, 2)": "DECIMAL(12,2)", "NUMERIC(5)": "DECIMAL(5,0)",
		"DECIMAL": "DECIMAL(18,3)", "VARCHAR(10)": "VARCHAR", "CHAR(1)": "VARCHAR", "STRING": "VARCHAR", "TEXT": "VARCHAR",
		"DATE": "DATE", "TIMESTAMP": "TIMESTAMP", "TIMESTAMP(3)": "TIMESTAMP_MS", "TIMESTAMP(9)": "TIMESTAMP_NS",
		"BOOLEAN": "BOOLEAN", "BINARY": "BLOB", "VARBINARY": "BLOB", "BYTES": "BLOB", "TIME": "TIME", "double precision": "DOUBLE",
	} {
		got, err := CastTarget(in)
		if err != nil {
			t.Errorf("%s: %v", in, err)
			continue
		}
		if TypeName(got) != want {
			t.Errorf("%s → %s, want %s", in, TypeName(got), want)
		}
	}
	for _, bad := range []string{"DECIMAL(40,2)", "DECIMAL(5,6)", "GEOMETRY", "INT(3", "TIMESTAMP(12)"} {
		if _, err := CastTarget(bad); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

func TestNumberLiteral(t *testing.T) {
	for in, want := range map[string]string{
		"42": "BIGINT 42", "0.06": "DECIMAL(2,2) 0.06", "123.450": "DECIMAL(6,3) 123.450", "1e5": "DOUBLE 100000.0",
		"1.5E-3": "DOUBLE 0.0015", "9223372036854775808": "DECIMAL(38,0) 9223372036854775808", ".5": "DECIMAL(1,1) 0.5",
		"007": "BIGINT 7", "10.": "DECIMAL(2,0) 10",
	} {
		l, err := NumberLiteral(in)
		if err != nil {
			t.Errorf("%s: %v", in, err)
			continue
		}
		if got := TypeName(l.Type()) + " " + scalarText(l); got != want {
			t.Errorf("%s → %s, want %s", in, got, want)
		}
	}
	for _, bad := range []string{"1e999", "12a", "1.2.3", "123456789012345678901234567890123456789", "1.23456789012345678901234567890123456789", ""} {
		if _, err := NumberLiteral(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func scalarText(l *Literal) string {
	if !l.Value.IsValid() {
		return "NULL"
	}
	s, err := CastScalar(l.Value, tString)
	if err != nil {
		return "ERR " + err.Error()
	}
	return string(s.(*scalar.String).Data())
}

func TestTemporalLiterals(t *testing.T) {
	ml := lits(t)
	if s := scalarText(ml(TimestampLiteral("2024-01-01 10:00:00.123456789"))); s != "2024-01-01 10:00:00.123456789" {
		t.Errorf("ns timestamp %s", s)
	}
	if u := tsUnit(ml(TimestampLiteral("2024-01-01 10:00:00.5")).Type()); u != arrow.Microsecond {
		t.Errorf("unit %v", u)
	}
	if s := scalarText(ml(DateLiteral("1900-03-01"))); s != "1900-03-01" {
		t.Errorf("date %s", s)
	}
	for _, c := range []struct{ v, u, want string }{
		{"3", "DAYS", "3 days"}, {"-2", "month", "-2 months"}, {"1", "QUARTER", "3 months"}, {"2", "weeks", "14 days"},
		{"1.5", "SECOND", "00:00:01.5"}, {"90", "minute", "01:30:00"}, {"1", "YEAR", "1 year"}, {"1.5", "day", "1 day 12:00:00"},
		{"250", "millisecond", "00:00:00.25"}, {"3 days", "", "3 days"}, {"1 year 2 months", "", "1 year 2 months"},
		{"1 day 02:30:00", "", "1 day 02:30:00"}, {"2 hours ago", "", "-02:00:00"}, {"-1 day", "", "-1 day"},
	} {
		l, err := IntervalLiteral(c.v, c.u)
		if err != nil {
			t.Errorf("%s %s: %v", c.v, c.u, err)
			continue
		}
		if got := scalarText(l); got != c.want {
			t.Errorf("INTERVAL '%s' %s = %s, want %s", c.v, c.u, got, c.want)
		}
	}
	for _, bad := range [][2]string{{"1.5", "month"}, {"x", "day"}, {"3", "fortnight"}, {"3", ""}, {"", ""}} {
		if _, err := IntervalLiteral(bad[0], bad[1]); err == nil {
			t.Errorf("INTERVAL %q %s: no error", bad[0], bad[1])
		}
	}
	for _, bad := range []string{"2024-02-30", "2024-1-1x", "24-01", ""} {
		if _, err := DateLiteral(bad); err == nil {
			t.Errorf("DATE %q: no error", bad)
		}
	}
	for _, bad := range []string{"2024-01-01 25:00:00", "2024-01-01 10:61", "2024-01-01 10:00:00.1234567890"} {
		if _, err := TimestampLiteral(bad); err == nil {
			t.Errorf("TIMESTAMP %q: no error", bad)
		}
	}
}

func TestGoScalar(t *testing.T) {
	ts := time.Date(2024, 1, 2, 3, 4, 5, 6000, time.UTC)
	for _, c := range []struct {
		v    any
		t    arrow.DataType
		want string
	}{
		{int32(5), arrow.Null, "BIGINT 5"}, {5, arrow.PrimitiveTypes.Int16, "SMALLINT 5"}, {2.5, arrow.Null, "DOUBLE 2.5"},
		{"x", arrow.Null, "VARCHAR x"}, {true, arrow.Null, "BOOLEAN true"}, {ts, arrow.Null, "TIMESTAMP 2024-01-02 03:04:05.000006"},
		{ts, arrow.FixedWidthTypes.Date32, "DATE 2024-01-02"}, {"2024-01-02", arrow.FixedWidthTypes.Date32, "DATE 2024-01-02"},
		{predicate.Decimal{Unscaled: big.NewInt(-705), Scale: 2}, arrow.Null, "DECIMAL(3,2) -7.05"},
		{predicate.Decimal{Unscaled: big.NewInt(5), Scale: 1}, dec(10, 2), "DECIMAL(10,2) 0.50"},
		{decimal128.FromI64(123), dec(5, 2), "DECIMAL(5,2) 1.23"}, {3, dec(5, 2), "DECIMAL(5,2) 3.00"},
		{0.25, dec(5, 2), "DECIMAL(5,2) 0.25"}, {nil, arrow.PrimitiveTypes.Int64, "BIGINT NULL"},
		{uint64(1) << 63, arrow.Null, "DECIMAL(20,0) 9223372036854775808"}, {[]byte("ab"), arrow.Null, "BLOB ab"},
		{predicate.Timestamp{Millis: 1000, NanoOfMilli: 5000}, arrow.Null, "TIMESTAMP 1970-01-01 00:00:01.000005"},
	} {
		s, err := GoScalar(c.v, c.t)
		if err != nil {
			t.Errorf("%v → %s: %v", c.v, c.t, err)
			continue
		}
		if got := TypeName(s.DataType()) + " " + scalarText(NewLiteral(s)); got != c.want {
			t.Errorf("%v → %s, want %s", c.v, got, c.want)
		}
	}
	for _, c := range []struct {
		v any
		t arrow.DataType
	}{
		{42, tString}, {2.5, tInt64}, {300, arrow.PrimitiveTypes.Int8}, {0.125, dec(5, 2)}, {"abc", tInt64},
		{true, tInt64}, {struct{}{}, arrow.Null}, {"2024-13-01", tDate},
	} {
		if s, err := GoScalar(c.v, c.t); err == nil {
			t.Errorf("%v → %s: no error (%v)", c.v, c.t, s)
		}
	}
}

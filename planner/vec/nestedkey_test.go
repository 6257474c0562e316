package vec

import (
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestNestedCompare: structs and maps compare by their nested keys as
// DuckDB 1.5 does ({'a':1,'b':NULL} = {'a':1,'b':NULL}; a NULL field sorts
// last; map entries compare in order).
func TestNestedCompare(t *testing.T) {
	x := newTB(t)
	st := arrow.StructOf(arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		arrow.Field{Name: "b", Type: arrow.PrimitiveTypes.Int64, Nullable: true})
	mt := arrow.MapOf(arrow.PrimitiveTypes.Int32, arrow.BinaryTypes.String)
	s1 := x.col("s1", st, `[{"a":1,"b":null},{"a":1,"b":null},{"a":null,"b":1},{"a":1,"b":2},null]`)
	s2 := x.col("s2", st, `[{"a":1,"b":null},{"a":1,"b":2},{"a":3,"b":1},{"a":1,"b":3},{"a":1,"b":1}]`)
	m1 := x.col("m1", mt, `[[{"key":1,"value":"a"}],[{"key":1,"value":null}],[{"key":1,"value":"a"},{"key":2,"value":"b"}],[{"key":1,"value":"a"}],[]]`)
	m2 := x.col("m2", mt, `[[{"key":1,"value":"a"}],[{"key":1,"value":null}],[{"key":2,"value":"b"},{"key":1,"value":"a"}],[{"key":1,"value":"b"}],null]`)
	x.cmp("=", s1, s2, "true,false,false,false,NULL")
	x.cmp("<", s1, s2, "false,false,false,true,NULL")
	x.cmp(">", s1, s2, "false,true,true,false,NULL")
	x.cmp("is not distinct from", s1, s2, "true,false,false,false,false")
	x.cmp("=", m1, m2, "true,true,false,false,NULL")
	x.cmp("<", m1, m2, "false,false,true,true,NULL")
	x.cmp("is distinct from", m2, m2, "false,false,false,false,false")
	bad := x.col("bad", arrow.StructOf(arrow.Field{Name: "i", Type: arrow.FixedWidthTypes.MonthDayNanoInterval, Nullable: true}), `[null,null,null,null,null]`)
	e, err := NewCompare("=", bad, bad)
	x.wantErr(e, err, 0, "comparison")
}

func (x *tb) cmp(op string, l, r Expr, want string) {
	x.t.Helper()
	e, err := NewCompare(op, l, r)
	x.want(e, err, 0, want)
}

// TestNestedKeyRoundTrip: DecodeNestedKey gives back every value
// AppendNestedKey encoded, for every element type with a key.
func TestNestedKeyRoundTrip(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	for _, c := range []struct {
		elem arrow.DataType
		js   string
	}{
		{arrow.FixedWidthTypes.Boolean, `[true,false,null]`},
		{arrow.PrimitiveTypes.Int8, `[-128,127,null]`},
		{arrow.PrimitiveTypes.Int16, `[-5,7]`},
		{arrow.PrimitiveTypes.Uint64, `[18446744073709551615,0]`},
		{arrow.PrimitiveTypes.Float32, `[-1.5,0,3.25]`},
		{arrow.FixedWidthTypes.Float16, `[-1.5,2]`},
		{arrow.FixedWidthTypes.Date32, `["2024-02-29","1960-01-01"]`},
		{arrow.FixedWidthTypes.Date64, `["2024-02-29"]`},
		{arrow.FixedWidthTypes.Time32ms, `["10:11:12.123"]`},
		{arrow.FixedWidthTypes.Time64us, `["10:11:12.123456"]`},
		{arrow.FixedWidthTypes.Timestamp_us, `[1709201472123456,-5]`},
		{arrow.FixedWidthTypes.Duration_s, `[-3,4]`},
		{&arrow.Decimal32Type{Precision: 9, Scale: 2}, `["-1.25","3.00"]`},
		{&arrow.Decimal64Type{Precision: 18, Scale: 2}, `["-1.25","3.00"]`},
		{&arrow.Decimal128Type{Precision: 38, Scale: 3}, `["-12345678901234567890123.456","0.001"]`},
		{&arrow.Decimal256Type{Precision: 60, Scale: 3}, `["-1234567890123456789012345678901234567890.456","7"]`},
		{arrow.BinaryTypes.LargeString, `["a\u0000b",""]`},
		{arrow.BinaryTypes.Binary, `["AAEC",""]`},
		{arrow.BinaryTypes.LargeBinary, `["AAEC"]`},
		{&arrow.FixedSizeBinaryType{ByteWidth: 3}, `["AAEC"]`},
		{arrow.Null, `[null,null]`},
		{arrow.FixedSizeListOf(2, arrow.PrimitiveTypes.Int64), `[[1,null],null]`},
		{arrow.LargeListOf(arrow.BinaryTypes.String), `[["x",null],[]]`},
	} {
		lt := arrow.ListOf(c.elem)
		a, _, err := array.FromJSON(mem, lt, strings.NewReader("["+c.js+",null,[]]"))
		if err != nil {
			t.Fatalf("%s: %v", lt, err)
		}
		bld := array.NewBuilder(mem, lt)
		for i := 0; i < a.Len(); i++ {
			if a.IsNull(i) {
				bld.AppendNull()
				continue
			}
			k := AppendNestedKey(nil, a, i)
			rest, err := DecodeNestedKey(k, bld)
			if err != nil || len(rest) != 0 {
				t.Fatalf("%s row %d: %v, %d bytes left", lt, i, err, len(rest))
			}
		}
		b := bld.NewArray()
		if !array.Equal(a, b) {
			t.Errorf("%s: decoded %v, want %v", lt, b, a)
		}
		b.Release()
		bld.Release()
		a.Release()
	}
}

// TestNestedKeySliced: the key of row i of a slice is the key of row
// off+i of the whole array (lists, maps and structs read their offsets).
func TestNestedKeySliced(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	st := arrow.StructOf(arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		arrow.Field{Name: "l", Type: arrow.ListOf(arrow.BinaryTypes.String), Nullable: true})
	for _, c := range []struct {
		dt arrow.DataType
		js string
	}{
		{arrow.ListOf(arrow.PrimitiveTypes.Int64), `[[1],null,[2,null],[],[3,4,5]]`},
		{arrow.MapOf(arrow.PrimitiveTypes.Int32, arrow.BinaryTypes.String), `[[{"key":1,"value":"a"}],null,[],[{"key":2,"value":null},{"key":3,"value":"c"}],[{"key":4,"value":"d"}]]`},
		{st, `[{"a":1,"l":["x"]},null,{"a":null,"l":null},{"a":2,"l":["y",null]},{"a":3,"l":[]}]`},
	} {
		a, _, err := array.FromJSON(mem, c.dt, strings.NewReader(c.js))
		if err != nil {
			t.Fatal(err)
		}
		s := array.NewSlice(a, 2, 5)
		for i := 0; i < s.Len(); i++ {
			if s.IsNull(i) != a.IsNull(i+2) {
				t.Fatalf("%s: slice validity", c.dt)
			}
			if s.IsNull(i) {
				continue
			}
			if got, want := AppendNestedKey(nil, s, i), AppendNestedKey(nil, a, i+2); string(got) != string(want) {
				t.Errorf("%s row %d of the slice: key %x, want %x", c.dt, i, got, want)
			}
		}
		s.Release()
		a.Release()
	}
}

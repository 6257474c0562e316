package arrowrow

import (
	"math/big"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
)

// TestValueAppendRoundTrip appends Go values of every supported type to
// builders, reads them back with Value, copies them with AppendFrom and
// compares both copies.
func TestValueAppendRoundTrip(t *testing.T) {
	mem := testutil.CheckedAllocator(t)
	cases := []struct {
		typ  arrow.DataType
		vals []any
	}{
		{arrow.FixedWidthTypes.Boolean, []any{true, nil, false}},
		{arrow.PrimitiveTypes.Int8, []any{int64(-128), int64(127), nil}},
		{arrow.PrimitiveTypes.Int16, []any{int64(-3), nil}},
		{arrow.PrimitiveTypes.Int32, []any{int64(1 << 30)}},
		{arrow.PrimitiveTypes.Int64, []any{int64(-1 << 62), nil}},
		{arrow.PrimitiveTypes.Float32, []any{float64(float32(0.1)), nil}},
		{arrow.PrimitiveTypes.Float64, []any{0.1, -2.5}},
		{arrow.FixedWidthTypes.Date32, []any{int64(19857), nil}},
		{arrow.FixedWidthTypes.Time32ms, []any{int64(3_600_000)}},
		{&arrow.TimestampType{Unit: arrow.Microsecond}, []any{predicate.Timestamp{Millis: -1, NanoOfMilli: 999_000}, nil}},
		{&arrow.TimestampType{Unit: arrow.Nanosecond, TimeZone: "UTC"}, []any{predicate.Timestamp{Millis: 5, NanoOfMilli: 7}}},
		{&arrow.Decimal128Type{Precision: 20, Scale: 3}, []any{predicate.Decimal{Unscaled: big.NewInt(-12345), Scale: 3}, nil}},
		{arrow.BinaryTypes.String, []any{"héllo", "", nil}},
		{arrow.BinaryTypes.Binary, []any{[]byte{0, 1, 2}, nil}},
		{arrow.ListOf(arrow.PrimitiveTypes.Int32), []any{[]any{int64(1), nil, int64(3)}, nil, []any{}}},
		{arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int64), []any{MapValue{Keys: []any{"a", "b"}, Values: []any{int64(1), nil}}, nil}},
		{arrow.StructOf(arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Int64, Nullable: true}, arrow.Field{Name: "y", Type: arrow.BinaryTypes.String, Nullable: true}), []any{[]any{int64(1), "z"}, nil}},
	}
	for _, c := range cases {
		b := array.NewBuilder(mem, c.typ)
		for _, v := range c.vals {
			if err := AppendValue(b, v); err != nil {
				t.Fatalf("%s: append %v: %v", c.typ, v, err)
			}
		}
		arr := b.NewArray()
		b.Release()
		cp := array.NewBuilder(mem, c.typ)
		for i := range c.vals {
			AppendFrom(cp, arr, i)
		}
		arr2 := cp.NewArray()
		cp.Release()
		if !array.Equal(arr, arr2) {
			t.Errorf("%s: AppendFrom copy differs", c.typ)
		}
		for i, want := range c.vals {
			got := Value(arr, i)
			if !equalValues(got, want) {
				t.Errorf("%s row %d: Value = %#v, want %#v", c.typ, i, got, want)
			}
			if Compare(arr, i, arr2, i) != 0 && want != nil {
				if _, nested := want.([]any); !nested {
					t.Errorf("%s row %d: value does not compare equal to its copy", c.typ, i)
				}
			}
		}
		arr.Release()
		arr2.Release()
	}
	b := array.NewInt64Builder(mem)
	defer b.Release()
	if err := AppendValue(b, "not a number"); err == nil {
		t.Fatal("string into BIGINT accepted")
	}
}

func equalValues(a, b any) bool {
	switch x := b.(type) {
	case predicate.Decimal:
		y, ok := a.(predicate.Decimal)
		return ok && x.Cmp(y) == 0
	case []byte:
		y, ok := a.([]byte)
		return ok && string(x) == string(y)
	case []any:
		y, ok := a.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !equalValues(y[i], x[i]) {
				return false
			}
		}
		return true
	case MapValue:
		y, ok := a.(MapValue)
		return ok && equalValues(y.Keys, x.Keys) && equalValues(y.Values, x.Values)
	}
	return a == b
}

func TestCompareOrder(t *testing.T) {
	mem := testutil.CheckedAllocator(t)
	sb := array.NewStringBuilder(mem)
	defer sb.Release()
	sb.AppendNull()
	sb.Append("a")
	sb.Append("b")
	sb.Append("\u00e9") // UTF-8 0xC3..: after ASCII by unsigned bytes
	arr := sb.NewArray()
	defer arr.Release()
	for i := 0; i < arr.Len()-1; i++ {
		if Compare(arr, i, arr, i+1) >= 0 || Compare(arr, i+1, arr, i) <= 0 {
			t.Fatalf("rows %d,%d not ordered", i, i+1)
		}
	}
	db := array.NewDecimal128Builder(mem, &arrow.Decimal128Type{Precision: 10, Scale: 2})
	defer db.Release()
	for _, v := range []int64{-5, 3} {
		_ = AppendValue(db, predicate.Decimal{Unscaled: big.NewInt(v), Scale: 2})
	}
	dec := db.NewArray()
	defer dec.Release()
	if Compare(dec, 0, dec, 1) >= 0 {
		t.Fatal("negative decimal not first")
	}
}

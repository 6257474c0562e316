package binrow

import (
	"encoding/hex"
	"errors"
	"math"
	"math/big"
	"reflect"
	"strings"
	"testing"

	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

func mustHex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func decv(unscaled string, scale int) predicate.Decimal {
	u, ok := new(big.Int).SetString(unscaled, 10)
	if !ok {
		panic(unscaled)
	}
	return predicate.Decimal{Unscaled: u, Scale: scale}
}

// Spec §5.5 examples.
func TestSpecVectors(t *testing.T) {
	cases := []struct {
		name   string
		fields []types.DataType
		values []any
		want   string
	}{
		{"empty", nil, nil, "00000000 0000000000000000"},
		{"dt string", []types.DataType{types.NewString()}, []any{"20240514"},
			"00000001 0000000000000000 0800000010000000 3230323430353134"},
		{"abc,1,null", []types.DataType{types.NewString(), types.NewInt(), types.NewBigInt()}, []any{"abc", int64(1), nil},
			"00000003 0004000000000000 6162630000000083 0100000000000000 0000000000000000"},
	}
	for _, c := range cases {
		got, err := Serialize(c.fields, c.values)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if want := mustHex(t, c.want); string(got) != string(want) {
			t.Errorf("%s: got %x want %x", c.name, got, want)
		}
		back, err := Deserialize(c.fields, got)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if len(c.values) > 0 && !reflect.DeepEqual(back, c.values) {
			t.Errorf("%s: decoded %#v want %#v", c.name, back, c.values)
		}
	}
}

// FixedBucketRowKeyExtractorTest vectors (spec §9.2).
func TestBucketVectors(t *testing.T) {
	it := types.NewInt()
	cases := []struct {
		vals   []any
		hash   int32
		bucket int
	}{
		{[]any{int64(5)}, 260196596, 96},
		{[]any{int64(5), int64(6)}, 131015827, 27},
		{[]any{int64(5), int64(6), int64(7)}, 1805332940, 40},
	}
	for _, c := range cases {
		ts := make([]types.DataType, len(c.vals))
		for i := range ts {
			ts[i] = it
		}
		row, err := Encode(ts, c.vals)
		if err != nil {
			t.Fatal(err)
		}
		if h := HashCode(row); h != c.hash {
			t.Errorf("%v: hash %d want %d", c.vals, h, c.hash)
		}
		if b := Bucket(row, 100); b != c.bucket {
			t.Errorf("%v: bucket %d want %d", c.vals, b, c.bucket)
		}
		if b, err := BucketOf(ts, c.vals, 100); err != nil || b != c.bucket {
			t.Errorf("BucketOf %v: %d, %v", c.vals, b, err)
		}
	}
	if got := hex.EncodeToString(must(Encode([]types.DataType{it}, []any{int64(5)}))); got != "00000000000000000500000000000000" {
		t.Errorf("key row (a) = %s", got)
	}
	if _, err := BucketOf([]types.DataType{it}, []any{int64(1)}, 0); err == nil {
		t.Error("BucketOf with 0 buckets: no error")
	}
	// Negative hashes: Java's abs(h % n).
	if got := BucketOfHash(-7, 5); got != 2 {
		t.Errorf("BucketOfHash(-7,5) = %d", got)
	}
	if got := BucketOfHash(math.MinInt32, 7); got != 2 {
		t.Errorf("BucketOfHash(MinInt32,7) = %d", got)
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

func TestModBucket(t *testing.T) {
	for _, c := range []struct {
		v    any
		n    int
		want int
	}{{int64(7), 3, 1}, {int64(-7), 3, 2}, {int64(0), 4, 0}, {nil, 4, 0}} {
		got, err := ModBucket(types.NewBigInt(), c.v, c.n)
		if err != nil || got != c.want {
			t.Errorf("ModBucket(%v,%d) = %d, %v; want %d", c.v, c.n, got, err, c.want)
		}
	}
	if _, err := ModBucket(types.NewString(), "x", 3); err == nil {
		t.Error("ModBucket over STRING: no error")
	}
}

func allTypes() ([]types.DataType, []any) {
	rowT := types.NewRow(
		types.DataField{ID: 100, Name: "a", Type: types.NewInt()},
		types.DataField{ID: 101, Name: "b", Type: types.NewString()},
		types.DataField{ID: 102, Name: "c", Type: types.NewTimestamp(9)},
	)
	fields := []types.DataType{
		types.NewBoolean(), types.NewTinyInt(), types.NewSmallInt(), types.NewInt(), types.NewBigInt(),
		types.NewFloat(), types.NewDouble(), types.NewDate(), {Root: types.Time, Nullable: true},
		types.NewDecimal(10, 2), types.NewDecimal(38, 5), types.NewChar(3), types.NewString(), types.NewString(),
		types.NewBytes(), types.NewBytes(), types.NewTimestamp(3), types.NewTimestamp(6), types.NewTimestampLTZ(9),
		types.NewArray(types.NewInt()), types.NewArray(types.NewString()), types.NewMap(types.NewString(), types.NewDouble()),
		rowT, types.NewArray(rowT), {Root: types.Multiset, Nullable: true, Element: ptr(types.NewString())},
		{Root: types.Variant, Nullable: true}, types.NewArray(types.NewDecimal(30, 2)), types.NewArray(types.NewBoolean()),
	}
	values := []any{
		true, int64(-5), int64(-300), int64(123456), int64(-9876543210),
		float64(float32(1.5)), 3.25, int64(19857), int64(3600000),
		decv("-12345", 2), decv("-123456789012345678901234567890", 5), "abc", "short", "a string longer than seven",
		[]byte{1, 2, 3}, []byte("0123456789abcdef!"), predicate.Timestamp{Millis: 1715681430123},
		predicate.Timestamp{Millis: -1, NanoOfMilli: 999000}, predicate.Timestamp{Millis: 1715681430123, NanoOfMilli: 456789},
		[]any{int64(1), nil, int64(3)}, []any{"x", "a longer string value", nil}, MapValue{Keys: []any{"k1", "key number two"}, Values: []any{1.0, nil}},
		[]any{int64(7), "nested string > 7", nil}, []any{[]any{int64(1), "r1", predicate.Timestamp{Millis: 5, NanoOfMilli: 6}}, nil},
		MapValue{Keys: []any{"a", "b"}, Values: []any{int64(2), int64(1)}},
		VariantValue{Value: []byte{0x0c, 0x01}, Metadata: []byte{0x01, 0x00, 0x00}}, []any{decv("12345678901234567890123", 2), nil},
		[]any{true, false, nil, true},
	}
	return fields, values
}

func ptr[T any](v T) *T { return &v }

func TestRoundTripAllTypes(t *testing.T) {
	fields, values := allTypes()
	row, err := Encode(fields, values)
	if err != nil {
		t.Fatal(err)
	}
	if len(row)%8 != 0 {
		t.Errorf("row size %d not a multiple of 8", len(row))
	}
	got, err := Decode(fields, row)
	if err != nil {
		t.Fatal(err)
	}
	for i := range values {
		if !reflect.DeepEqual(got[i], values[i]) {
			t.Errorf("field %d (%s): got %#v want %#v", i, fields[i], got[i], values[i])
		}
	}
	again, err := Encode(fields, got)
	if err != nil || string(again) != string(row) {
		t.Errorf("re-encode differs (%v)", err)
	}
	// All NULL.
	nulls := make([]any, len(fields))
	nrow, err := Encode(fields, nulls)
	if err != nil {
		t.Fatal(err)
	}
	ngot, err := Decode(fields, nrow)
	if err != nil || !reflect.DeepEqual(ngot, nulls) {
		t.Errorf("all-null row: %v %v", ngot, err)
	}
	// Row view getters.
	r, err := NewRow(row, len(fields))
	if err != nil {
		t.Fatal(err)
	}
	if v, ok, err := r.Int64(4, fields[4]); err != nil || !ok || v != -9876543210 {
		t.Errorf("Int64(4) = %d %v %v", v, ok, err)
	}
	if v, err := r.Value(12, fields[12]); err != nil || v != "short" {
		t.Errorf("Value(12) = %v %v", v, err)
	}
	if _, err := r.Value(len(fields), fields[0]); err == nil {
		t.Error("Value out of range: no error")
	}
}

// Null non-compact DECIMAL/TIMESTAMP reserve var space; other nulls do not (spec §5.3, pitfall 5).
func TestNullReservesVarSpace(t *testing.T) {
	fields := []types.DataType{types.NewDecimal(20, 2), types.NewTimestamp(9), types.NewString(), types.NewDecimal(10, 2), types.NewTimestamp(3)}
	row, err := Encode(fields, []any{nil, nil, nil, nil, nil})
	if err != nil {
		t.Fatal(err)
	}
	want := "001f000000000000" + // null bits 8..12
		"0000000030000000" + // decimal: offset 48, len 0
		"0000000040000000" + // timestamp: offset 64
		"0000000000000000" + "0000000000000000" + "0000000000000000" +
		strings.Repeat("00", 16) + strings.Repeat("00", 8)
	if got := hex.EncodeToString(row); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestNaNCanonical(t *testing.T) {
	row := must(Encode([]types.DataType{types.NewFloat(), types.NewDouble()}, []any{math.NaN(), math.Float64frombits(0x7ff8000000000001)}))
	if got := hex.EncodeToString(row[8:]); got != "0000c07f00000000"+"000000000000f87f" {
		t.Errorf("NaN slots = %s", got)
	}
}

func TestBitsetWidth(t *testing.T) {
	for _, c := range [][2]int{{0, 8}, {56, 8}, {57, 16}, {120, 16}, {121, 24}} {
		if got := NullBitsSizeInBytes(c[0]); got != c[1] {
			t.Errorf("NullBitsSizeInBytes(%d) = %d want %d", c[0], got, c[1])
		}
	}
	fields := make([]types.DataType, 57)
	vals := make([]any, 57)
	for i := range fields {
		fields[i] = types.NewInt()
		if i%2 == 0 {
			vals[i] = int64(i)
		}
	}
	row := must(Encode(fields, vals))
	got, err := Decode(fields, row)
	if err != nil || !reflect.DeepEqual(got, vals) {
		t.Errorf("57-field row: %v", err)
	}
}

func TestDecimalBytes(t *testing.T) {
	for _, s := range []string{"0", "1", "-1", "127", "128", "-128", "-129", "255", "32767", "-32768", "99999999999999999999999999999999999999", "-99999999999999999999999999999999999999"} {
		v, _ := new(big.Int).SetString(s, 10)
		b := toTwosComplement(v)
		if got := fromTwosComplement(b); got.Cmp(v) != 0 {
			t.Errorf("%s: round trip %s", s, got)
		}
	}
	if got := hex.EncodeToString(toTwosComplement(big.NewInt(128))); got != "0080" {
		t.Errorf("toByteArray(128) = %s", got)
	}
	if got := hex.EncodeToString(toTwosComplement(big.NewInt(-128))); got != "80" {
		t.Errorf("toByteArray(-128) = %s", got)
	}
	if got := hex.EncodeToString(toTwosComplement(big.NewInt(-129))); got != "ff7f" {
		t.Errorf("toByteArray(-129) = %s", got)
	}
	// Rescaling to the column's scale.
	row := must(Encode([]types.DataType{types.NewDecimal(10, 3)}, []any{decv("15", 1)}))
	got, _ := Decode([]types.DataType{types.NewDecimal(10, 3)}, row)
	if d := got[0].(predicate.Decimal); d.Unscaled.Int64() != 1500 || d.Scale != 3 {
		t.Errorf("rescaled decimal = %v", d)
	}
	if _, err := Encode([]types.DataType{types.NewDecimal(10, 1)}, []any{decv("15", 2)}); err == nil {
		t.Error("lossy rescale: no error")
	}
}

func TestEncodeErrors(t *testing.T) {
	cases := []struct {
		t types.DataType
		v any
	}{
		{types.NewInt(), "x"}, {types.NewTinyInt(), int64(300)}, {types.NewInt(), int64(math.MaxInt32 + 1)},
		{types.NewString(), 5}, {types.NewDecimal(5, 0), "1"}, {types.NewDecimal(5, 0), decv("99999999999999999999", 0)},
		{types.NewTimestamp(6), predicate.Timestamp{NanoOfMilli: 1_000_000}}, {types.NewArray(types.NewInt()), []any{"x"}},
		{types.NewMap(types.NewInt(), types.NewInt()), MapValue{Keys: []any{int64(1)}}},
	}
	for _, c := range cases {
		if _, err := Encode([]types.DataType{c.t}, []any{c.v}); err == nil {
			t.Errorf("Encode(%s, %#v): no error", c.t, c.v)
		}
	}
	if _, err := Encode([]types.DataType{types.NewInt()}, nil); err == nil {
		t.Error("arity mismatch: no error")
	}
}

func TestDeserializeArityMismatch(t *testing.T) {
	b := must(Serialize([]types.DataType{types.NewInt(), types.NewInt()}, []any{int64(1), int64(2)}))
	_, err := Deserialize([]types.DataType{types.NewInt()}, b)
	if err == nil || !strings.Contains(err.Error(), "arity 2, expected 1") {
		t.Errorf("err = %v", err)
	}
	if _, err := DecodeSimpleStats([]types.DataType{types.NewInt()}, b, b); err == nil || !strings.Contains(err.Error(), "_MIN_VALUES") {
		t.Errorf("stats err = %v", err)
	}
}

func TestSimpleStatsRoundTrip(t *testing.T) {
	cols := []types.DataType{types.NewInt().NotNull(), types.NewString(), types.NewTimestamp(6)}
	s := SimpleStats{Min: []any{int64(1), "aaa", nil}, Max: []any{int64(9), "zzzzzzzzzzzz", predicate.Timestamp{Millis: 10, NanoOfMilli: 20}}}
	mn, mx, err := EncodeSimpleStats(cols, s)
	if err != nil {
		t.Fatal(err)
	}
	back, err := DecodeSimpleStats(cols, mn, mx)
	if err != nil || !reflect.DeepEqual(back, s) {
		t.Errorf("got %#v, %v", back, err)
	}
}

func TestCorruptInput(t *testing.T) {
	str := []types.DataType{types.NewString()}
	cases := map[string][]byte{
		"short":           mustHex(t, "0000000000000000"),
		"offset past end": mustHex(t, "0000000000000000 0800000040000000"),
		"len past end":    mustHex(t, "0000000000000000 2000000010000000 0000000000000000"),
	}
	for name, b := range cases {
		if _, err := Decode(str, b); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: err = %v", name, err)
		}
	}
	if _, err := Deserialize(nil, []byte{0, 0}); err == nil {
		t.Error("2-byte serialized row: no error")
	}
	if _, err := Deserialize(str, mustHex(t, "ffffffff 0000000000000000")); err == nil {
		t.Error("negative arity: no error")
	}
	// An array whose elements all alias one large nested array must not explode.
	inner := must(EncodeArray(types.NewInt(), make([]any, 1000)))
	outerT := types.NewArray(types.NewArray(types.NewInt()))
	n := 1000
	arr := make([]byte, roundUp8(arrayHeaderSize(n)+8*n))
	arr[0], arr[1] = byte(n), byte(n>>8)
	c := len(arr)
	arr = append(arr, inner...)
	for i := 0; i < n; i++ {
		o := arrayHeaderSize(n) + 8*i
		w := uint64(c)<<32 | uint64(len(inner))
		for k := 0; k < 8; k++ {
			arr[o+k] = byte(w >> (8 * k))
		}
	}
	if _, err := DecodeArray(outerT.Element.WithNullable(true), arr); err == nil {
		t.Error("aliased nested arrays decoded without error")
	}
}

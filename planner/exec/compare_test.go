package exec

import (
	"bytes"
	"cmp"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/decimal256"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// cmpCase is a column plus a reference comparison of two non-NULL rows.
type cmpCase struct {
	name string
	arr  arrow.Array
	ref  func(i, j int) int
}

func sign(x int) int { return cmp.Compare(x, 0) }

// refNullCmp applies NULL placement and direction around ref.
func refNullCmp(a arrow.Array, ref func(i, j int) int, o SortOrder, i, j int) int {
	ni, nj := a.IsNull(i), a.IsNull(j)
	switch {
	case ni && nj:
		return 0
	case ni:
		if o.NullsFirst {
			return -1
		}
		return 1
	case nj:
		if o.NullsFirst {
			return 1
		}
		return -1
	}
	c := sign(ref(i, j))
	if o.Desc {
		c = -c
	}
	return c
}

func floatRef(x, y float64) int {
	xn, yn := math.IsNaN(x), math.IsNaN(y)
	switch {
	case xn && yn:
		return 0
	case xn:
		return 1
	case yn:
		return -1
	}
	return cmp.Compare(x, y) // -0 == 0
}

func buildCmpCases(mem memory.Allocator) []cmpCase {
	var cs []cmpCase
	valid := func(n int) []bool {
		v := make([]bool, n)
		for i := range v {
			v[i] = i%5 != 3
		}
		return v
	}
	{
		vals := []int64{0, -1, 1, math.MinInt64, math.MaxInt64, 5, -5, 0, 42, -42, 7, 7}
		b := array.NewInt64Builder(mem)
		b.AppendValues(vals, valid(len(vals)))
		a := b.NewArray()
		b.Release()
		cs = append(cs, cmpCase{"int64", a, func(i, j int) int { return cmp.Compare(vals[i], vals[j]) }})
	}
	{
		vals := []int8{0, -1, 1, math.MinInt8, math.MaxInt8, 3, -3, 0}
		b := array.NewInt8Builder(mem)
		b.AppendValues(vals, valid(len(vals)))
		a := b.NewArray()
		b.Release()
		cs = append(cs, cmpCase{"int8", a, func(i, j int) int { return cmp.Compare(vals[i], vals[j]) }})
	}
	{
		vals := []int16{0, -1, 1, math.MinInt16, math.MaxInt16, 300, -300, 0}
		b := array.NewInt16Builder(mem)
		b.AppendValues(vals, valid(len(vals)))
		a := b.NewArray()
		b.Release()
		cs = append(cs, cmpCase{"int16", a, func(i, j int) int { return cmp.Compare(vals[i], vals[j]) }})
	}
	{
		vals := []int32{0, -1, 1, math.MinInt32, math.MaxInt32, 70000, -70000, 0}
		b := array.NewInt32Builder(mem)
		b.AppendValues(vals, valid(len(vals)))
		a := b.NewArray()
		b.Release()
		cs = append(cs, cmpCase{"int32", a, func(i, j int) int { return cmp.Compare(vals[i], vals[j]) }})
	}
	{
		vals := []uint64{0, 1, math.MaxUint64, 1 << 63, (1 << 63) - 1, 9, 9}
		b := array.NewUint64Builder(mem)
		b.AppendValues(vals, valid(len(vals)))
		a := b.NewArray()
		b.Release()
		cs = append(cs, cmpCase{"uint64", a, func(i, j int) int { return cmp.Compare(vals[i], vals[j]) }})
	}
	{
		vals := []uint8{0, 1, 255, 128, 127, 9}
		b := array.NewUint8Builder(mem)
		b.AppendValues(vals, valid(len(vals)))
		a := b.NewArray()
		b.Release()
		cs = append(cs, cmpCase{"uint8", a, func(i, j int) int { return cmp.Compare(vals[i], vals[j]) }})
	}
	{
		vals := []uint32{0, 1, math.MaxUint32, 1 << 31, 65536}
		b := array.NewUint32Builder(mem)
		b.AppendValues(vals, valid(len(vals)))
		a := b.NewArray()
		b.Release()
		cs = append(cs, cmpCase{"uint32", a, func(i, j int) int { return cmp.Compare(vals[i], vals[j]) }})
	}
	nan := math.NaN()
	{
		vals := []float64{0, math.Copysign(0, -1), 1, -1, math.Inf(1), math.Inf(-1), nan, -nan, math.MaxFloat64, -math.MaxFloat64,
			math.SmallestNonzeroFloat64, -math.SmallestNonzeroFloat64, 2.5, nan, 1e300}
		b := array.NewFloat64Builder(mem)
		b.AppendValues(vals, valid(len(vals)))
		a := b.NewArray()
		b.Release()
		cs = append(cs, cmpCase{"float64", a, func(i, j int) int { return floatRef(vals[i], vals[j]) }})
	}
	{
		vals := []float32{0, float32(math.Copysign(0, -1)), 1, -1, float32(math.Inf(1)), float32(math.Inf(-1)), float32(nan), -1.5, 3e38, float32(nan)}
		b := array.NewFloat32Builder(mem)
		b.AppendValues(vals, valid(len(vals)))
		a := b.NewArray()
		b.Release()
		cs = append(cs, cmpCase{"float32", a, func(i, j int) int { return floatRef(float64(vals[i]), float64(vals[j])) }})
	}
	{
		vals := []decimal128.Num{decimal128.FromI64(0), decimal128.FromI64(-1), decimal128.FromI64(1),
			decimal128.New(math.MaxInt64, math.MaxUint64), decimal128.New(math.MinInt64, 0), decimal128.New(1, 0),
			decimal128.New(-1, 5), decimal128.FromI64(123456789), decimal128.FromI64(-123456789)}
		b := array.NewDecimal128Builder(mem, &arrow.Decimal128Type{Precision: 38, Scale: 2})
		b.AppendValues(vals, valid(len(vals)))
		a := b.NewArray()
		b.Release()
		cs = append(cs, cmpCase{"decimal128", a, func(i, j int) int { return vals[i].Cmp(vals[j]) }})
	}
	{
		vals := []decimal256.Num{decimal256.FromI64(0), decimal256.FromI64(-1), decimal256.FromI64(1),
			decimal256.New(1, 0, 0, 0), decimal256.New(math.MaxUint64, 0, 0, 0), decimal256.FromI64(math.MaxInt64)}
		b := array.NewDecimal256Builder(mem, &arrow.Decimal256Type{Precision: 76, Scale: 0})
		b.AppendValues(vals, valid(len(vals)))
		a := b.NewArray()
		b.Release()
		cs = append(cs, cmpCase{"decimal256", a, func(i, j int) int { return vals[i].Cmp(vals[j]) }})
	}
	strs := []string{"", "a", "ab", "a\x00", "a\x00b", "\x00", "\x00\x00", "b", "\xff", "abc", "ab\xff", "zz", "a"}
	{
		b := array.NewStringBuilder(mem)
		b.AppendValues(strs, valid(len(strs)))
		a := b.NewArray()
		b.Release()
		cs = append(cs, cmpCase{"string", a, func(i, j int) int { return cmp.Compare(strs[i], strs[j]) }})
	}
	{
		b := array.NewBinaryBuilder(mem, arrow.BinaryTypes.LargeBinary)
		for i, s := range strs {
			if valid(len(strs))[i] {
				b.Append([]byte(s))
			} else {
				b.AppendNull()
			}
		}
		a := b.NewArray()
		b.Release()
		cs = append(cs, cmpCase{"large_binary", a, func(i, j int) int { return bytes.Compare([]byte(strs[i]), []byte(strs[j])) }})
	}
	{
		vals := []bool{true, false, true, false, true, false}
		b := array.NewBooleanBuilder(mem)
		b.AppendValues(vals, valid(len(vals)))
		a := b.NewArray()
		b.Release()
		toI := func(v bool) int {
			if v {
				return 1
			}
			return 0
		}
		cs = append(cs, cmpCase{"bool", a, func(i, j int) int { return cmp.Compare(toI(vals[i]), toI(vals[j])) }})
	}
	{
		vals := []arrow.Date32{0, -1, 1, 19000, -719162, 2932896}
		b := array.NewDate32Builder(mem)
		b.AppendValues(vals, valid(len(vals)))
		a := b.NewArray()
		b.Release()
		cs = append(cs, cmpCase{"date32", a, func(i, j int) int { return cmp.Compare(vals[i], vals[j]) }})
	}
	{
		vals := []arrow.Timestamp{0, -1, 1, math.MinInt64, math.MaxInt64, 1700000000000000}
		b := array.NewTimestampBuilder(mem, &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"})
		b.AppendValues(vals, valid(len(vals)))
		a := b.NewArray()
		b.Release()
		cs = append(cs, cmpCase{"timestamp", a, func(i, j int) int { return cmp.Compare(vals[i], vals[j]) }})
	}
	{
		vals := []arrow.Time64{0, 1, 86399999999, 3600000000, 5}
		b := array.NewTime64Builder(mem, arrow.FixedWidthTypes.Time64us.(*arrow.Time64Type))
		b.AppendValues(vals, valid(len(vals)))
		a := b.NewArray()
		b.Release()
		cs = append(cs, cmpCase{"time64", a, func(i, j int) int { return cmp.Compare(vals[i], vals[j]) }})
	}
	{
		vals := []arrow.Time32{0, 1, 86399999, -5, 5}
		b := array.NewTime32Builder(mem, arrow.FixedWidthTypes.Time32ms.(*arrow.Time32Type))
		b.AppendValues(vals, valid(len(vals)))
		a := b.NewArray()
		b.Release()
		cs = append(cs, cmpCase{"time32", a, func(i, j int) int { return cmp.Compare(vals[i], vals[j]) }})
	}
	return cs
}

func TestCompareEveryType(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	cases := buildCmpCases(mem)
	defer func() {
		for _, c := range cases {
			c.arr.Release()
		}
	}()
	for _, c := range cases {
		for _, o := range []SortOrder{{false, false}, {false, true}, {true, false}, {true, true}} {
			cmpf, err := NewRowComparator([]arrow.Array{c.arr}, []SortOrder{o})
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			n := c.arr.Len()
			for i := 0; i < n; i++ {
				for j := 0; j < n; j++ {
					got, want := sign(cmpf(i, j)), refNullCmp(c.arr, c.ref, o, i, j)
					if got != want {
						t.Fatalf("%s %+v: compare(%d, %d) = %d, want %d (%v vs %v)", c.name, o, i, j, got, want, c.arr.ValueStr(i), c.arr.ValueStr(j))
					}
				}
			}
		}
	}
}

func TestCompareNaNAndZero(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	b := array.NewFloat64Builder(mem)
	b.AppendValues([]float64{math.NaN(), math.Inf(1), math.Copysign(0, -1), 0, -math.NaN()}, nil)
	a := b.NewArray()
	b.Release()
	defer a.Release()
	c, err := NewRowComparator([]arrow.Array{a}, []SortOrder{{}})
	if err != nil {
		t.Fatal(err)
	}
	if c(0, 1) <= 0 || c(0, 4) != 0 || c(2, 3) != 0 || c(1, 3) <= 0 {
		t.Fatalf("NaN > +Inf, NaN == NaN, -0 == 0 violated: %d %d %d %d", c(0, 1), c(0, 4), c(2, 3), c(1, 3))
	}
}

// Multi-key rows with variable-width keys compare lexicographically.
func TestCompareMultiKeyRandom(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	r := rand.New(rand.NewPCG(1, 2))
	const n = 300
	strs := make([]string, n)
	ints := make([]int32, n)
	sv, iv := make([]bool, n), make([]bool, n)
	for i := range strs {
		bs := make([]byte, r.IntN(4))
		for k := range bs {
			bs[k] = byte(r.IntN(3)) // 0x00, 0x01, 0x02: many escapes and prefixes
		}
		strs[i], ints[i] = string(bs), int32(r.IntN(5)-2)
		sv[i], iv[i] = r.IntN(6) != 0, r.IntN(6) != 0
	}
	sb := array.NewStringBuilder(mem)
	sb.AppendValues(strs, sv)
	sa := sb.NewArray()
	sb.Release()
	ib := array.NewInt32Builder(mem)
	ib.AppendValues(ints, iv)
	ia := ib.NewArray()
	ib.Release()
	defer sa.Release()
	defer ia.Release()
	orders := []SortOrder{{Desc: true, NullsFirst: false}, {Desc: false, NullsFirst: true}}
	c, err := NewRowComparator([]arrow.Array{sa, ia}, orders)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			want := refNullCmp(sa, func(i, j int) int { return cmp.Compare(strs[i], strs[j]) }, orders[0], i, j)
			if want == 0 {
				want = refNullCmp(ia, func(i, j int) int { return cmp.Compare(ints[i], ints[j]) }, orders[1], i, j)
			}
			if got := sign(c(i, j)); got != want {
				t.Fatalf("rows %d (%q,%d) and %d (%q,%d): %d, want %d", i, strs[i], ints[i], j, strs[j], ints[j], got, want)
			}
		}
	}
}

func TestCompareUnorderable(t *testing.T) {
	// Lists order (keys_nested_test.go), lists of intervals do not.
	bad := arrow.ListOf(arrow.FixedWidthTypes.MonthDayNanoInterval)
	if _, err := NewKeyEncoder([]arrow.DataType{bad}, []SortOrder{{}}); err == nil || !strings.Contains(err.Error(), "INTERVAL") {
		t.Fatalf("ordering by a list of intervals: %v, want an error naming the element type", err)
	}
	if _, err := NewKeyEncoder([]arrow.DataType{arrow.FixedWidthTypes.MonthDayNanoInterval}, []SortOrder{{}}); err == nil {
		t.Fatal("ordering by an interval must fail")
	}
	if Orderable(bad) || !Orderable(arrow.ListOf(arrow.PrimitiveTypes.Int64)) || !Orderable(arrow.BinaryTypes.String) {
		t.Fatal("Orderable is wrong")
	}
}

package exec

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/scalar"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

func i64(v int64) vec.Expr { return vec.NewLiteral(scalar.NewInt64Scalar(v)) }

// oneRow is a one-partition source of one row and no columns.
func oneRow(mem memory.Allocator) *Values {
	s := arrow.NewSchema(nil, nil)
	return NewValues(s, array.NewRecordBatch(s, nil, 1))
}

// renderUnnest renders every row as "c1|c2|...".
func renderUnnest(bs []arrow.RecordBatch) []string {
	var out []string
	for _, b := range bs {
		for r := 0; r < int(b.NumRows()); r++ {
			parts := make([]string, b.NumCols())
			for c := range parts {
				col := b.Column(c)
				if col.IsNull(r) {
					parts[c] = "NULL"
				} else {
					parts[c] = col.ValueStr(r)
				}
			}
			out = append(out, strings.Join(parts, "|"))
		}
	}
	return out
}

func TestUnnestRangeStreamsBounded(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	in := oneRow(mem)
	defer in.Parts[0][0].Release()
	op := NewUnnest(in, []Generator{{Kind: GenRange, Args: []vec.Expr{i64(0), i64(math.MaxInt64), i64(1)}, Name: "range", T: arrow.PrimitiveTypes.Int64}})
	tc := NewTaskCtx(context.Background(), mem, nil, nil)
	tc.BatchSize = 1000
	s, err := op.Execute(tc, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	next := int64(0)
	for k := 0; k < 5; k++ {
		b, err := s.Next()
		if err != nil || b == nil {
			t.Fatalf("batch %d: %v %v", k, b, err)
		}
		if b.NumRows() != 1000 {
			t.Fatalf("batch %d has %d rows, want 1000", k, b.NumRows())
		}
		col := b.Column(0).(*array.Int64)
		for i := 0; i < col.Len(); i++ {
			if col.Value(i) != next {
				t.Fatalf("row %d = %d, want %d", next, col.Value(i), next)
			}
			next++
		}
		b.Release()
	}
	if mem.CurrentAlloc() > 1<<20 {
		t.Fatalf("%d bytes held after 5 batches of a huge range", mem.CurrentAlloc())
	}
}

func TestUnnestCancel(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	in := oneRow(mem)
	defer in.Parts[0][0].Release()
	op := NewUnnest(in, []Generator{{Kind: GenSeries, Args: []vec.Expr{i64(math.MinInt64), i64(math.MaxInt64), i64(1)}, Name: "g", T: arrow.PrimitiveTypes.Int64}})
	ctx, cancel := context.WithCancel(context.Background())
	tc := NewTaskCtx(ctx, mem, nil, nil)
	s, err := op.Execute(tc, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	b, err := s.Next()
	if err != nil || b == nil {
		t.Fatal(b, err)
	}
	b.Release()
	cancel()
	if _, err := s.Next(); !errors.Is(err, context.Canceled) {
		t.Fatalf("after cancel: %v", err)
	}
}

// listBatch builds a batch (id BIGINT, l LIST<BIGINT>) from rows; a nil
// list is NULL.
func listBatch(mem memory.Allocator, ids []int64, lists [][]int64, null []bool) arrow.RecordBatch {
	lt := arrow.ListOf(arrow.PrimitiveTypes.Int64)
	s := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}, {Name: "l", Type: lt, Nullable: true}}, nil)
	b := array.NewRecordBuilder(mem, s)
	defer b.Release()
	lb := b.Field(1).(*array.ListBuilder)
	vb := lb.ValueBuilder().(*array.Int64Builder)
	for i, id := range ids {
		b.Field(0).(*array.Int64Builder).Append(id)
		if null[i] {
			lb.AppendNull()
			continue
		}
		lb.Append(true)
		for _, v := range lists[i] {
			if v < 0 {
				vb.AppendNull()
			} else {
				vb.Append(v)
			}
		}
	}
	return b.NewRecordBatch()
}

func TestUnnestZipAcrossBatches(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	b1 := listBatch(mem, []int64{1, 2, 3}, [][]int64{{10, 11, 12}, nil, {}}, []bool{false, true, false})
	b2 := listBatch(mem, []int64{4, 5}, [][]int64{{-1}, {50, 51}}, []bool{false, false})
	// a slice, so list offsets do not start at 0
	b3full := listBatch(mem, []int64{6, 7, 8}, [][]int64{{60}, {70, 71, 72, 73}, {80}}, []bool{false, false, false})
	b3 := b3full.NewSlice(1, 3)
	b3full.Release()
	in := NewValues(b1.Schema(), b1, b2, b3)
	defer releaseAll([]arrow.RecordBatch{b1, b2, b3})
	s := in.Schema()
	lcol := &vec.Column{Index: 1, Name: "l", T: s.Field(1).Type, Null: true}
	idcol := &vec.Column{Index: 0, Name: "id", T: arrow.PrimitiveTypes.Int64}
	op := NewUnnest(in, []Generator{
		{Kind: GenUnnest, Args: []vec.Expr{lcol}, Name: "x", T: arrow.PrimitiveTypes.Int64},
		{Kind: GenRange, Args: []vec.Expr{i64(0), idcol, i64(2)}, Name: "r", T: arrow.PrimitiveTypes.Int64},
	})
	tc := NewTaskCtx(context.Background(), mem, nil, nil)
	tc.BatchSize = 2
	bs, err := Collect(tc, op)
	if err != nil {
		t.Fatal(err)
	}
	defer releaseAll(bs)
	for _, b := range bs {
		if b.NumRows() > 2 {
			t.Fatalf("batch of %d rows over BatchSize 2", b.NumRows())
		}
	}
	got := strings.Join(renderUnnest(bs), "\n")
	want := strings.Join([]string{
		"1|[10,11,12]|10|0", "1|[10,11,12]|11|NULL", "1|[10,11,12]|12|NULL",
		"2|NULL|NULL|0",
		"3|[]|NULL|0", "3|[]|NULL|2",
		"4|[null]|NULL|0", "4|[null]|NULL|2",
		"5|[50,51]|50|0", "5|[50,51]|51|2", "5|[50,51]|NULL|4",
		"7|[70,71,72,73]|70|0", "7|[70,71,72,73]|71|2", "7|[70,71,72,73]|72|4", "7|[70,71,72,73]|73|6",
		"8|[80]|80|0", "8|[80]|NULL|2", "8|[80]|NULL|4", "8|[80]|NULL|6",
	}, "\n")
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}

func TestUnnestRangeEdges(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	in := oneRow(mem)
	defer in.Parts[0][0].Release()
	run := func(kind GenKind, a, b, c int64) (string, error) {
		op := NewUnnest(in, []Generator{{Kind: kind, Args: []vec.Expr{i64(a), i64(b), i64(c)}, Name: "r", T: arrow.PrimitiveTypes.Int64}})
		bs, err := Collect(NewTaskCtx(context.Background(), mem, nil, nil), op)
		defer releaseAll(bs)
		return strings.Join(renderUnnest(bs), ","), err
	}
	for _, c := range []struct {
		kind    GenKind
		a, b, c int64
		want    string
	}{
		{GenRange, 1, 10, 3, "1,4,7"},
		{GenSeries, 1, 10, 3, "1,4,7,10"},
		{GenRange, 10, 1, -3, "10,7,4"},
		{GenSeries, 10, 1, -3, "10,7,4,1"},
		{GenRange, 5, 1, 1, ""},
		{GenSeries, 1, 10, -1, ""},
		{GenRange, math.MaxInt64 - 1, math.MaxInt64, 1, fmt.Sprint(int64(math.MaxInt64 - 1))},
		{GenSeries, math.MaxInt64 - 1, math.MaxInt64, 1, fmt.Sprintf("%d,%d", int64(math.MaxInt64-1), int64(math.MaxInt64))},
		{GenSeries, math.MinInt64 + 1, math.MinInt64, -1, fmt.Sprintf("%d,%d", int64(math.MinInt64+1), int64(math.MinInt64))},
		{GenRange, math.MinInt64, math.MaxInt64, math.MaxInt64, fmt.Sprintf("%d,-1,%d", int64(math.MinInt64), int64(math.MaxInt64-1))},
	} {
		got, err := run(c.kind, c.a, c.b, c.c)
		if err != nil || got != c.want {
			t.Errorf("%v(%d, %d, %d) = %q, %v; want %q", c.kind, c.a, c.b, c.c, got, err, c.want)
		}
	}
	if _, err := run(GenRange, 1, 5, 0); !errors.Is(err, catalog.ErrInvalid) {
		t.Errorf("step 0: %v", err)
	}
}

func TestUnnestTimestampRange(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	in := oneRow(mem)
	defer in.Parts[0][0].Release()
	ts := &arrow.TimestampType{Unit: arrow.Microsecond}
	lit := func(s string) vec.Expr {
		l, err := vec.TimestampLiteral(s)
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	ival := func(m, d int32, ns int64) vec.Expr {
		return vec.NewLiteral(scalar.NewMonthDayNanoIntervalScalar(arrow.MonthDayNanoInterval{Months: m, Days: d, Nanoseconds: ns}))
	}
	run := func(kind GenKind, a, b string, step vec.Expr) (string, error) {
		op := NewUnnest(in, []Generator{{Kind: kind, Args: []vec.Expr{lit(a), lit(b), step}, Name: "r", T: ts}})
		bs, err := Collect(NewTaskCtx(context.Background(), mem, nil, nil), op)
		defer releaseAll(bs)
		return strings.Join(renderUnnest(bs), ","), err
	}
	got, err := run(GenRange, "2024-01-31", "2024-05-01", ival(1, 0, 0))
	if want := "2024-01-31T00:00:00,2024-02-29T00:00:00,2024-03-29T00:00:00,2024-04-29T00:00:00"; err != nil || got != want {
		t.Errorf("months: %q %v, want %q", got, err, want)
	}
	got, err = run(GenSeries, "2024-01-02", "2024-01-01", ival(0, 0, -12*3600*1e9))
	if want := "2024-01-02T00:00:00,2024-01-01T12:00:00,2024-01-01T00:00:00"; err != nil || got != want {
		t.Errorf("negative hours: %q %v, want %q", got, err, want)
	}
	if _, err := run(GenRange, "2024-01-01", "2024-02-01", ival(0, 0, 0)); !errors.Is(err, catalog.ErrInvalid) {
		t.Errorf("zero interval: %v", err)
	}
	if _, err := run(GenRange, "2024-01-01", "2024-02-01", ival(1, -1, 0)); !errors.Is(err, catalog.ErrUnsupported) {
		t.Errorf("mixed interval: %v", err)
	}
}

// TestUnnestOuterAcrossBatches: LEFT JOIN semantics when one input row's
// candidates span several output batches (the match may be in any of
// them) and for rows without candidates.
func TestUnnestOuterAcrossBatches(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	// id, l: the range is 0..id-1; ON keeps value = id - 1 (the last) for
	// odd ids and value = 0 for ids divisible by 4; others match nothing.
	b := listBatch(mem, []int64{0, 1, 2, 3, 4, 5, 6}, make([][]int64, 7), []bool{true, true, true, true, true, true, true})
	defer b.Release()
	in := NewValues(b.Schema(), b)
	idcol := &vec.Column{Index: 0, Name: "id", T: arrow.PrimitiveTypes.Int64}
	r := &vec.Column{Index: 2, Name: "r", T: arrow.PrimitiveTypes.Int64, Null: true}
	mk := func(op string, l, r vec.Expr) vec.Expr {
		e, err := vec.NewCompare(op, l, r)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	arith := func(op string, l, r vec.Expr) vec.Expr {
		e, err := vec.NewArith(op, l, r)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	odd := mk("=", arith("%", idcol, i64(2)), i64(1))
	last := mk("=", r, arith("-", idcol, i64(1)))
	four := mk("=", arith("%", idcol, i64(4)), i64(0))
	first := mk("=", r, i64(0))
	a1, err := vec.NewAnd(odd, last)
	if err != nil {
		t.Fatal(err)
	}
	a2, err := vec.NewAnd(four, first)
	if err != nil {
		t.Fatal(err)
	}
	on, err := vec.NewOr(a1, a2)
	if err != nil {
		t.Fatal(err)
	}
	op := NewUnnest(in, []Generator{{Kind: GenRange, Args: []vec.Expr{i64(0), idcol, i64(1)}, Name: "r", T: arrow.PrimitiveTypes.Int64}})
	op.Outer, op.On = true, on
	for _, size := range []int{1, 2, 3, 100} {
		tc := NewTaskCtx(context.Background(), mem, nil, nil)
		tc.BatchSize = size
		bs, err := Collect(tc, op)
		if err != nil {
			t.Fatal(err)
		}
		rows := renderUnnest(bs) // a join's order is unspecified
		slices.Sort(rows)
		got := strings.Join(rows, ",")
		releaseAll(bs)
		want := "0|NULL|NULL,1|NULL|0,2|NULL|NULL,3|NULL|2,4|NULL|0,5|NULL|4,6|NULL|NULL"
		if got != want {
			t.Errorf("batch size %d: got %s, want %s", size, got, want)
		}
	}
}

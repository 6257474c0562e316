package exec

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/scalar"

	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

type wtRow struct {
	id      int64
	p, o, v *int64
	x       *float64
	s       *string
}

var wtSchema = arrow.NewSchema([]arrow.Field{
	{Name: "id", Type: arrow.PrimitiveTypes.Int64},
	{Name: "p", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "o", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "v", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "x", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
}, nil)

func wtCol(i int) vec.Expr {
	f := wtSchema.Field(i)
	return &vec.Column{Index: i, Name: f.Name, T: f.Type, Null: f.Nullable}
}

func wtInt(v int64) vec.Expr { return vec.NewLiteral(scalar.NewInt64Scalar(v)) }

func wtRand(r *rand.Rand, n, parts, ords int) []wtRow {
	rows := make([]wtRow, n)
	opt := func(v int64) *int64 {
		if r.IntN(7) == 0 {
			return nil
		}
		return &v
	}
	for i := range rows {
		rows[i] = wtRow{id: int64(i), p: opt(int64(r.IntN(parts))), o: opt(int64(r.IntN(ords))), v: opt(int64(r.IntN(21) - 10))}
		if r.IntN(7) != 0 {
			x := float64(r.IntN(100))/4 - 5
			rows[i].x = &x
		}
		if r.IntN(7) != 0 {
			s := fmt.Sprintf("s%02d", r.IntN(30))
			rows[i].s = &s
		}
	}
	return rows
}

func wtSource(mem memory.Allocator, r *rand.Rand, rows []wtRow, parts int) *stValues {
	src := &stValues{S: wtSchema, Parts: make([][]arrow.RecordBatch, parts)}
	for lo, p := 0, 0; lo < len(rows); p = (p + 1) % parts {
		hi := min(len(rows), lo+1+r.IntN(40))
		b := array.NewRecordBuilder(mem, wtSchema)
		for _, w := range rows[lo:hi] {
			b.Field(0).(*array.Int64Builder).Append(w.id)
			for k, v := range []*int64{w.p, w.o, w.v} {
				if v == nil {
					b.Field(1 + k).AppendNull()
				} else {
					b.Field(1 + k).(*array.Int64Builder).Append(*v)
				}
			}
			if w.x == nil {
				b.Field(4).AppendNull()
			} else {
				b.Field(4).(*array.Float64Builder).Append(*w.x)
			}
			if w.s == nil {
				b.Field(5).AppendNull()
			} else {
				b.Field(5).(*array.StringBuilder).Append(*w.s)
			}
		}
		src.Parts[p] = append(src.Parts[p], b.NewRecordBatch())
		b.Release()
		lo = hi
	}
	return src
}

// wtOrderRows returns rows in input order (partition after partition, as
// the source lays them out).
func wtInputOrder(src *stValues) []int64 {
	var ids []int64
	for _, p := range src.Parts {
		for _, b := range p {
			ids = append(ids, b.Column(0).(*array.Int64).Int64Values()...)
		}
	}
	return ids
}

type wtCase struct {
	fn    string // reference name
	call  string // function
	args  []vec.Expr
	frame *Frame
	a1    int64 // constant argument for the reference
	a2    int64 // LAG default (MinInt64 = none)
	// distinct: the aggregate of the frame's distinct values
	distinct bool
}

func wtCases() []wtCase {
	v, x, s := wtCol(3), wtCol(4), wtCol(5)
	none := int64(math.MinInt64)
	fr := func(rows bool, sk int, so int64, ek int, eo int64) *Frame {
		return &Frame{Rows: rows, Start: FrameBound{Kind: sk, Offset: so}, End: FrameBound{Kind: ek, Offset: eo}}
	}
	ex := func(rows bool, sk int, so int64, ek int, eo int64, x int) *Frame {
		f := fr(rows, sk, so, ek, eo)
		f.Exclude = x
		return f
	}
	grp := func(sk int, so int64, ek int, eo int64, x int) *Frame {
		f := ex(false, sk, so, ek, eo, x)
		f.Groups = true
		return f
	}
	rng := func(sk int, so int64, ek int, eo int64, x int) *Frame {
		f := ex(false, sk, 0, ek, 0, x)
		if sk == Preceding || sk == Following {
			f.Start.Value = scalar.NewInt64Scalar(so)
		}
		if ek == Preceding || ek == Following {
			f.End.Value = scalar.NewInt64Scalar(eo)
		}
		return f
	}
	frames := []*Frame{
		nil,
		fr(true, Preceding, 2, CurrentRow, 0),
		fr(true, CurrentRow, 0, UnboundedFollowing, 0),
		fr(true, Preceding, 1, Following, 1),
		fr(true, UnboundedPreceding, 0, UnboundedFollowing, 0),
		fr(false, CurrentRow, 0, UnboundedFollowing, 0),
		fr(false, UnboundedPreceding, 0, CurrentRow, 0),
		fr(true, Following, 3, Following, 5),
		fr(true, Preceding, 5, Preceding, 2),
		fr(true, Preceding, math.MaxInt64, Following, math.MaxInt64),
		rng(Preceding, 2, Following, 1, 0),
		rng(Preceding, 0, Following, 0, 0),
		rng(Following, 1, Following, 3, 0),
		rng(UnboundedPreceding, 0, Preceding, 1, 0),
		rng(Preceding, 3, UnboundedFollowing, 0, 0),
		rng(Preceding, 2, Following, 2, ExcludeCurrentRow),
		rng(Preceding, 1, CurrentRow, 0, ExcludeTies),
		grp(Preceding, 1, Following, 1, 0),
		grp(Following, 1, UnboundedFollowing, 0, 0),
		grp(Preceding, 2, Preceding, 1, 0),
		grp(Preceding, 1, Following, 1, ExcludeTies),
		grp(CurrentRow, 0, Following, 2, ExcludeGroup),
		ex(true, Preceding, 2, Following, 2, ExcludeCurrentRow),
		ex(false, UnboundedPreceding, 0, CurrentRow, 0, ExcludeGroup),
		ex(true, UnboundedPreceding, 0, UnboundedFollowing, 0, ExcludeTies),
		ex(false, UnboundedPreceding, 0, UnboundedFollowing, 0, ExcludeCurrentRow),
		ex(true, CurrentRow, 0, Following, 2, ExcludeCurrentRow),
	}
	cs := []wtCase{
		{fn: "ROW_NUMBER", call: "row_number"}, {fn: "RANK", call: "RANK"}, {fn: "DENSE_RANK", call: "DENSE_RANK"},
		{fn: "PERCENT_RANK", call: "PERCENT_RANK"}, {fn: "CUME_DIST", call: "CUME_DIST"},
		{fn: "NTILE", call: "NTILE", args: []vec.Expr{wtInt(3)}, a1: 3},
		{fn: "NTILE", call: "NTILE", args: []vec.Expr{wtInt(100)}, a1: 100},
		{fn: "LAG", call: "LAG", args: []vec.Expr{v}, a1: 1, a2: none},
		{fn: "LAG", call: "LAG", args: []vec.Expr{v, wtInt(2), wtInt(-99)}, a1: 2, a2: -99},
		{fn: "LEAD", call: "LEAD", args: []vec.Expr{v}, a1: 1, a2: none},
		{fn: "LEAD", call: "LEAD", args: []vec.Expr{v, wtInt(3)}, a1: 3, a2: none},
		{fn: "LEAD", call: "LEAD", args: []vec.Expr{v, wtInt(0)}, a1: 0, a2: none},
	}
	for fi, f := range frames {
		cs = append(cs,
			wtCase{fn: "FIRST_VALUE", call: "FIRST_VALUE", args: []vec.Expr{v}, frame: f},
			wtCase{fn: "LAST_VALUE", call: "LAST_VALUE", args: []vec.Expr{v}, frame: f},
			wtCase{fn: "NTH_VALUE", call: "NTH_VALUE", args: []vec.Expr{v, wtInt(2)}, frame: f, a1: 2},
			wtCase{fn: "SUM", call: "SUM", args: []vec.Expr{v}, frame: f},
			wtCase{fn: "AVG", call: "AVG", args: []vec.Expr{v}, frame: f},
			wtCase{fn: "SUMX", call: "SUM", args: []vec.Expr{x}, frame: f},
			wtCase{fn: "AVGX", call: "AVG", args: []vec.Expr{x}, frame: f},
			wtCase{fn: "COUNT", call: "COUNT", args: []vec.Expr{v}, frame: f},
			wtCase{fn: "COUNT_STAR", call: "COUNT_STAR", frame: f},
			wtCase{fn: "MIN", call: "MIN", args: []vec.Expr{v}, frame: f},
			wtCase{fn: "MAX", call: "MAX", args: []vec.Expr{v}, frame: f},
			wtCase{fn: "MINS", call: "MIN", args: []vec.Expr{s}, frame: f},
			wtCase{fn: "MAXS", call: "MAX", args: []vec.Expr{s}, frame: f},
		)
		if fi%2 == 0 { // the aggregates of the generic and moments paths
			cs = append(cs,
				wtCase{fn: "VAR_SAMP", call: "VAR_SAMP", args: []vec.Expr{v}, frame: f},
				wtCase{fn: "COVAR_POP", call: "COVAR_POP", args: []vec.Expr{v, x}, frame: f},
				wtCase{fn: "BIT_OR", call: "BIT_OR", args: []vec.Expr{v}, frame: f},
				wtCase{fn: "COUNT_DISTINCT", call: "COUNT", args: []vec.Expr{v}, frame: f, distinct: true},
				wtCase{fn: "SUM_DISTINCT", call: "SUM", args: []vec.Expr{v}, frame: f, distinct: true},
				wtCase{fn: "MEDIANX", call: "QUANTILE_CONT", args: []vec.Expr{x, vec.NewLiteral(scalar.NewFloat64Scalar(0.5))}, frame: f},
				wtCase{fn: "QDISCX", call: "QUANTILE_DISC", args: []vec.Expr{x, vec.NewLiteral(scalar.NewFloat64Scalar(0.7))}, frame: f},
				wtCase{fn: "MODE", call: "MODE", args: []vec.Expr{v}, frame: f},
			)
		}
	}
	return cs
}

func TestWindowAgainstReference(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	all := wtCases()
	// seeds 8 and 9: larger partitions for the aggregates of the sliding
	// evaluators (window_slide*.go)
	sliding := map[string]bool{"MODE": true, "QDISCX": true, "MEDIANX": true, "COUNT_DISTINCT": true, "BIT_OR": true}
	for seed := uint64(0); seed < 10; seed++ {
		r := rand.New(rand.NewPCG(seed, 11))
		big := seed >= 8
		rows := wtRand(r, 1+r.IntN(400), 1+r.IntN(6), 1+r.IntN(8))
		if big {
			rows = wtRand(r, 500, 1+r.IntN(2), 5+r.IntN(60))
		}
		src := wtSource(mem, r, rows, 1+r.IntN(3))
		inOrder := make([]wtRow, 0, len(rows))
		for _, id := range wtInputOrder(src) {
			inOrder = append(inOrder, rows[id])
		}
		for _, shape := range []struct{ parted, ordered bool }{{true, true}, {false, true}, {true, false}, {false, false}} {
			ord := SortOrder{Desc: r.IntN(2) == 0, NullsFirst: r.IntN(2) == 0}
			var cases []wtCase
			for _, c := range all {
				if big && !sliding[c.fn] {
					continue
				}
				if shape.ordered || !rangeOffsets(c.frame) { // RANGE offsets need ORDER BY
					cases = append(cases, c)
				}
			}
			funcs := make([]WindowFunc, len(cases))
			for i, c := range cases {
				funcs[i] = WindowFunc{Func: c.call, Args: c.args, Frame: c.frame, Name: fmt.Sprintf("f%d", i), Distinct: c.distinct}
			}
			w := &Window{Input: src, Funcs: funcs}
			if shape.parted {
				w.PartitionBy = []vec.Expr{wtCol(1)}
			}
			if shape.ordered {
				w.OrderBy = []SortKey{{Expr: wtCol(2), Desc: ord.Desc, NullsFirst: ord.NullsFirst}}
			}
			ref := newWtRef(inOrder, shape.parted, shape.ordered, ord)
			tc := NewTaskCtx(context.Background(), mem, nil, nil)
			tc.BatchSize = 1 + r.IntN(64)
			bs, err := Collect(tc, w)
			if err != nil {
				t.Fatalf("seed %d %+v: %v", seed, shape, err)
			}
			if got, want := w.Schema().NumFields(), wtSchema.NumFields()+len(funcs); got != want {
				t.Fatalf("schema has %d fields, want %d", got, want)
			}
			row := 0
			for _, b := range bs {
				if !b.Schema().Equal(w.Schema()) {
					t.Fatalf("batch schema %s, want %s", b.Schema(), w.Schema())
				}
				for i := 0; i < int(b.NumRows()); i++ {
					if id := b.Column(0).(*array.Int64).Value(i); id != ref.rows[row].id {
						t.Fatalf("seed %d %+v: row %d is id %d, want %d", seed, shape, row, id, ref.rows[row].id)
					}
					for k, c := range cases {
						got := wtValue(b.Column(wtSchema.NumFields()+k), i)
						want := ref.eval(c.fn, c.frame, row, c.a1, c.a2)
						if !wtEqual(got, want) {
							t.Fatalf("seed %d %+v: %s(%v) %v at row %d (id %d): got %v, want %v", seed, shape, c.call, c.args, c.frame, row, ref.rows[row].id, got, want)
						}
					}
					row++
				}
			}
			releaseAll(bs)
			if row != len(rows) {
				t.Fatalf("%d rows out, want %d", row, len(rows))
			}
			if tc.Budget.Used() != 0 {
				t.Fatalf("budget holds %d bytes", tc.Budget.Used())
			}
		}
		src.releaseAllParts()
	}
}

func TestWindowErrors(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	r := rand.New(rand.NewPCG(1, 1))
	rows := wtRand(r, 500, 3, 5)
	src := wtSource(mem, r, rows, 2)
	defer src.releaseAllParts()
	bad := []WindowFunc{
		{Func: "NOPE", Name: "a"},
		{Func: "SUM", Args: []vec.Expr{wtCol(5)}, Name: "a"},
		{Func: "LAG", Args: []vec.Expr{wtCol(3), wtCol(5)}, Name: "a"},
		{Func: "ROW_NUMBER", Args: []vec.Expr{wtCol(3)}, Name: "a"},
		{Func: "SUM", Args: []vec.Expr{wtCol(3)}, Frame: &Frame{Rows: true, Start: FrameBound{Kind: UnboundedFollowing}, End: FrameBound{Kind: UnboundedFollowing}}, Name: "a"},
		{Func: "SUM", Args: []vec.Expr{wtCol(3)}, Frame: &Frame{Rows: true, Start: FrameBound{Kind: CurrentRow}, End: FrameBound{Kind: Preceding, Offset: 1}}, Name: "a"},
		{Func: "SUM", Args: []vec.Expr{wtCol(3)}, Frame: &Frame{Rows: false, Start: FrameBound{Kind: Preceding, Offset: 1}, End: FrameBound{Kind: CurrentRow}}, Name: "a"},
		{Func: "SUM", Args: []vec.Expr{wtCol(3)}, Frame: &Frame{Rows: true, Start: FrameBound{Kind: Preceding, Offset: -1}, End: FrameBound{Kind: CurrentRow}}, Name: "a"},
		{Func: "NTILE", Args: []vec.Expr{wtInt(0)}, Name: "a"},
		{Func: "NTH_VALUE", Args: []vec.Expr{wtCol(3), wtInt(-1)}, Name: "a"},
	}
	for _, f := range bad {
		tc := NewTaskCtx(context.Background(), mem, nil, nil)
		_, err := Collect(tc, &Window{Input: src, OrderBy: []SortKey{{Expr: wtCol(2)}}, Funcs: []WindowFunc{f}})
		if err == nil {
			t.Fatalf("%s %v %v: no error", f.Func, f.Args, f.Frame)
		}
		if tc.Budget.Used() != 0 {
			t.Fatalf("budget holds %d bytes", tc.Budget.Used())
		}
	}
	// budget, cancellation, abandonment
	funcs := []WindowFunc{{Func: "ROW_NUMBER", Name: "rn"}, {Func: "SUM", Args: []vec.Expr{wtCol(3)}, Name: "s"}}
	w := &Window{Input: src, PartitionBy: []vec.Expr{wtCol(1)}, OrderBy: []SortKey{{Expr: wtCol(2)}}, Funcs: funcs}
	tc := NewTaskCtx(context.Background(), mem, nil, NewBudget("test", 4000))
	if _, err := Collect(tc, w); !errors.Is(err, ErrResourceExhausted) {
		t.Fatalf("want ErrResourceExhausted, got %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Collect(NewTaskCtx(ctx, mem, nil, nil), w); !errors.Is(err, context.Canceled) {
		t.Fatalf("want context.Canceled, got %v", err)
	}
	tc = NewTaskCtx(context.Background(), mem, nil, nil)
	tc.BatchSize = 10
	s, err := w.Execute(tc, 0)
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.Next()
	if err != nil || b == nil {
		t.Fatalf("first batch: %v", err)
	}
	b.Release()
	s.Close()
	if tc.Budget.Used() != 0 {
		t.Fatalf("budget holds %d bytes after Close", tc.Budget.Used())
	}
}

func TestWindowResultTypes(t *testing.T) {
	i64, f64 := arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Float64
	dec := &arrow.Decimal128Type{Precision: 10, Scale: 3}
	for _, c := range []struct {
		fn   string
		args []arrow.DataType
		want arrow.DataType
	}{
		{"ROW_NUMBER", nil, i64}, {"rank", nil, i64}, {"NTILE", []arrow.DataType{arrow.PrimitiveTypes.Int32}, i64},
		{"CUME_DIST", nil, f64}, {"SUM", []arrow.DataType{arrow.PrimitiveTypes.Int32}, &arrow.Decimal128Type{Precision: 38}},
		{"SUM", []arrow.DataType{dec}, &arrow.Decimal128Type{Precision: 38, Scale: 3}}, {"SUM", []arrow.DataType{arrow.PrimitiveTypes.Float32}, f64},
		{"AVG", []arrow.DataType{dec}, f64}, {"LAG", []arrow.DataType{arrow.BinaryTypes.String}, arrow.BinaryTypes.String},
		{"MAX", []arrow.DataType{arrow.FixedWidthTypes.Date32}, arrow.FixedWidthTypes.Date32}, {"COUNT", []arrow.DataType{arrow.BinaryTypes.String}, i64},
	} {
		got, err := WindowResultType(c.fn, c.args)
		if err != nil || !arrow.TypeEqual(got, c.want) {
			t.Fatalf("%s%v: %v %v, want %v", c.fn, c.args, got, err, c.want)
		}
	}
}

package exec

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

// stRow is one row of the random test table (nil = NULL).
type stRow struct {
	id  int64
	k1  *int64
	k2  *string
	f   *float64
	lst []int64 // a list column (general gather path)
}

var stSchema = arrow.NewSchema([]arrow.Field{
	{Name: "id", Type: arrow.PrimitiveTypes.Int64},
	{Name: "k1", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "k2", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "f", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	{Name: "lst", Type: arrow.ListOf(arrow.PrimitiveTypes.Int64), Nullable: true},
}, nil)

func stCol(i int) *vec.Column {
	f := stSchema.Field(i)
	return &vec.Column{Index: i, Name: f.Name, T: f.Type, Null: f.Nullable}
}

// stRandRows makes n rows with small value domains (many ties and NULLs).
func stRandRows(r *rand.Rand, n, domain int) []stRow {
	rows := make([]stRow, n)
	for i := range rows {
		rows[i].id = int64(i)
		if r.IntN(8) != 0 {
			v := int64(r.IntN(domain)) - int64(domain/2)
			rows[i].k1 = &v
		}
		if r.IntN(8) != 0 {
			s := fmt.Sprintf("s%d", r.IntN(domain))
			if r.IntN(4) == 0 {
				s = s[:1+r.IntN(len(s))] + "\x00"
			}
			rows[i].k2 = &s
		}
		if r.IntN(8) != 0 {
			f := float64(r.IntN(domain)) / 2
			switch r.IntN(16) {
			case 0:
				f = math.NaN()
			case 1:
				f = math.Copysign(0, -1)
			case 2:
				f = math.Inf(-1)
			}
			rows[i].f = &f
		}
		if r.IntN(3) != 0 {
			rows[i].lst = []int64{int64(i), int64(r.IntN(9))}
		}
	}
	return rows
}

func stBatch(mem memory.Allocator, rows []stRow) arrow.RecordBatch {
	b := array.NewRecordBuilder(mem, stSchema)
	defer b.Release()
	for _, r := range rows {
		b.Field(0).(*array.Int64Builder).Append(r.id)
		if r.k1 != nil {
			b.Field(1).(*array.Int64Builder).Append(*r.k1)
		} else {
			b.Field(1).AppendNull()
		}
		if r.k2 != nil {
			b.Field(2).(*array.StringBuilder).Append(*r.k2)
		} else {
			b.Field(2).AppendNull()
		}
		if r.f != nil {
			b.Field(3).(*array.Float64Builder).Append(*r.f)
		} else {
			b.Field(3).AppendNull()
		}
		lb := b.Field(4).(*array.ListBuilder)
		if r.lst != nil {
			lb.Append(true)
			lb.ValueBuilder().(*array.Int64Builder).AppendValues(r.lst, nil)
		} else {
			lb.AppendNull()
		}
	}
	return b.NewRecordBatch()
}

// stSource splits rows over parts partitions of random batch sizes
// (including empty batches).
func stSource(mem memory.Allocator, r *rand.Rand, rows []stRow, parts int) *stValues {
	v := &stValues{S: stSchema, Parts: make([][]arrow.RecordBatch, parts)}
	per := (len(rows) + parts - 1) / parts
	for p := 0; p < parts; p++ {
		lo, hi := min(p*per, len(rows)), min((p+1)*per, len(rows))
		for lo < hi || (lo == hi && r.IntN(3) == 0) {
			m := min(hi-lo, r.IntN(50))
			v.Parts[p] = append(v.Parts[p], stBatch(mem, rows[lo:lo+m]))
			lo += m
			if lo == hi {
				break
			}
		}
	}
	return v
}

// stValues is an in-memory source like Values (which, sharing its slice
// with its streams, cannot be executed twice).
type stValues struct {
	S     *arrow.Schema
	Parts [][]arrow.RecordBatch
}

func (v *stValues) Schema() *arrow.Schema { return v.S }
func (v *stValues) Children() []Operator  { return nil }
func (v *stValues) Partitions() int       { return max(1, len(v.Parts)) }
func (v *stValues) Explain() string       { return "stValues" }
func (v *stValues) Execute(tc *TaskCtx, p int) (Stream, error) {
	if len(v.Parts) == 0 {
		return NewSliceStream(tc, nil), nil
	}
	bs := slices.Clone(v.Parts[p])
	for _, b := range bs {
		b.Retain()
	}
	return NewSliceStream(tc, bs), nil
}

func (v *stValues) releaseAllParts() {
	for _, p := range v.Parts {
		releaseAll(p)
	}
}

func stNullCmp[T any](a, b *T, o SortOrder, c func(x, y T) int) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		if o.NullsFirst {
			return -1
		}
		return 1
	case b == nil:
		if o.NullsFirst {
			return 1
		}
		return -1
	}
	r := c(*a, *b)
	if o.Desc {
		r = -r
	}
	return r
}

// stRefCmp compares rows by columns cols (1 = k1, 2 = k2, 3 = f).
func stRefCmp(cols []int, orders []SortOrder) func(a, b stRow) int {
	return func(a, b stRow) int {
		for k, c := range cols {
			var r int
			switch c {
			case 1:
				r = stNullCmp(a.k1, b.k1, orders[k], cmp.Compare[int64])
			case 2:
				r = stNullCmp(a.k2, b.k2, orders[k], cmp.Compare[string])
			case 3:
				r = stNullCmp(a.f, b.f, orders[k], floatRef)
			}
			if r != 0 {
				return r
			}
		}
		return 0
	}
}

func stKeys(cols []int, orders []SortOrder) []SortKey {
	ks := make([]SortKey, len(cols))
	for i, c := range cols {
		ks[i] = SortKey{Expr: stCol(c), Desc: orders[i].Desc, NullsFirst: orders[i].NullsFirst}
	}
	return ks
}

// stIDs runs op (one partition) and returns the id column.
func stIDs(t *testing.T, tc *TaskCtx, op Operator) []int64 {
	t.Helper()
	bs, err := Collect(tc, op)
	if err != nil {
		t.Fatal(err)
	}
	defer releaseAll(bs)
	var ids []int64
	for _, b := range bs {
		if b.NumRows() > int64(max(tc.BatchSize, 1)) {
			t.Fatalf("batch of %d rows over BatchSize %d", b.NumRows(), tc.BatchSize)
		}
		ids = append(ids, b.Column(0).(*array.Int64).Int64Values()...)
		if b.Column(4).(*array.List).Len() != int(b.NumRows()) {
			t.Fatal("list column length")
		}
	}
	return ids
}

func stRefIDs(rows []stRow, cols []int, orders []SortOrder, fetch int) []int64 {
	s := slices.Clone(rows)
	slices.SortStableFunc(s, stRefCmp(cols, orders))
	if fetch >= 0 && fetch < len(s) {
		s = s[:fetch]
	}
	ids := make([]int64, len(s))
	for i, r := range s {
		ids[i] = r.id
	}
	return ids
}

var stKeySets = [][]int{{1}, {2}, {3}, {1, 2}, {2, 3, 1}, {3, 1}}

func TestSortRandomStable(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	for seed := uint64(0); seed < 12; seed++ {
		r := rand.New(rand.NewPCG(seed, 7))
		rows := stRandRows(r, 50+r.IntN(700), 2+r.IntN(30))
		src := stSource(mem, r, rows, 1+r.IntN(4))
		cols := stKeySets[int(seed)%len(stKeySets)]
		orders := make([]SortOrder, len(cols))
		for i := range orders {
			orders[i] = SortOrder{Desc: r.IntN(2) == 0, NullsFirst: r.IntN(2) == 0}
		}
		tc := NewTaskCtx(context.Background(), mem, nil, nil)
		tc.BatchSize = 1 + r.IntN(100)
		got := stIDs(t, tc, &Sort{Input: src, Keys: stKeys(cols, orders), Fetch: -1})
		if want := stRefIDs(rows, cols, orders, -1); !slices.Equal(got, want) {
			t.Fatalf("seed %d keys %v %+v:\n got %v\nwant %v", seed, cols, orders, got, want)
		}
		// top-N equals full sort + limit
		for _, fetch := range []int{1, 3, 10, 77, len(rows), len(rows) + 5} {
			got := stIDs(t, tc, &Sort{Input: src, Keys: stKeys(cols, orders), Fetch: int64(fetch)})
			if want := stRefIDs(rows, cols, orders, fetch); !slices.Equal(got, want) {
				t.Fatalf("seed %d top-%d keys %v %+v:\n got %v\nwant %v", seed, fetch, cols, orders, got, want)
			}
		}
		if tc.Budget.Used() != 0 {
			t.Fatalf("budget still holds %d bytes", tc.Budget.Used())
		}
		src.releaseAllParts()
	}
}

// Keys of more than 8 varying bytes (the comparison path) and of few (radix).
func TestSortWideAndNarrowKeys(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	r := rand.New(rand.NewPCG(3, 3))
	rows := stRandRows(r, 3000, 1<<20)
	src := stSource(mem, r, rows, 3)
	defer src.releaseAllParts()
	tc := NewTaskCtx(context.Background(), mem, nil, nil)
	for _, cols := range [][]int{{1}, {1, 3}, {3}} {
		orders := make([]SortOrder, len(cols))
		got := stIDs(t, tc, &Sort{Input: src, Keys: stKeys(cols, orders), Fetch: -1})
		if want := stRefIDs(rows, cols, orders, -1); !slices.Equal(got, want) {
			t.Fatalf("keys %v: order differs", cols)
		}
	}
}

func TestSortFetchZeroAndEmpty(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	tc := NewTaskCtx(context.Background(), mem, nil, nil)
	src := &stValues{S: stSchema}
	for _, fetch := range []int64{-1, 0, 5} {
		if ids := stIDs(t, tc, &Sort{Input: src, Keys: stKeys([]int{1}, []SortOrder{{}}), Fetch: fetch}); len(ids) != 0 {
			t.Fatalf("fetch %d over no rows: %v", fetch, ids)
		}
	}
}

func TestSortBudgetExceeded(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	r := rand.New(rand.NewPCG(5, 5))
	rows := stRandRows(r, 5000, 1000)
	src := stSource(mem, r, rows, 2)
	defer src.releaseAllParts()
	for _, fetch := range []int64{-1, 4000} {
		tc := NewTaskCtx(context.Background(), mem, nil, NewBudget("test", 20000))
		_, err := Collect(tc, &Sort{Input: src, Keys: stKeys([]int{2}, []SortOrder{{}}), Fetch: fetch})
		if !errors.Is(err, ErrResourceExhausted) {
			t.Fatalf("fetch %d: want ErrResourceExhausted, got %v", fetch, err)
		}
		if tc.Budget.Used() != 0 {
			t.Fatalf("budget holds %d bytes after the failure", tc.Budget.Used())
		}
	}
	// a small top-N fits the same budget
	tc := NewTaskCtx(context.Background(), mem, nil, NewBudget("test", 200000))
	if ids := stIDs(t, tc, &Sort{Input: src, Keys: stKeys([]int{2}, []SortOrder{{}}), Fetch: 10}); len(ids) != 10 {
		t.Fatalf("top-10 returned %d rows", len(ids))
	}
}

func TestSortCancelAndAbandon(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	r := rand.New(rand.NewPCG(9, 9))
	rows := stRandRows(r, 2000, 100)
	src := stSource(mem, r, rows, 3)
	defer src.releaseAllParts()
	for _, fetch := range []int64{-1, 20} {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		tc := NewTaskCtx(ctx, mem, nil, nil)
		_, err := Collect(tc, &Sort{Input: src, Keys: stKeys([]int{1}, []SortOrder{{}}), Fetch: fetch})
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("fetch %d: want context.Canceled, got %v", fetch, err)
		}
		// abandoned after one batch
		tc = NewTaskCtx(context.Background(), mem, nil, nil)
		tc.BatchSize = 7
		s, err := (&Sort{Input: src, Keys: stKeys([]int{1}, []SortOrder{{}}), Fetch: fetch}).Execute(tc, 0)
		if err != nil {
			t.Fatal(err)
		}
		b, err := s.Next()
		if err != nil || b == nil {
			t.Fatalf("first batch: %v %v", b, err)
		}
		b.Release()
		s.Close()
		s.Close()
		if tc.Budget.Used() != 0 {
			t.Fatalf("budget holds %d bytes after Close", tc.Budget.Used())
		}
		// closed before the first Next
		s, _ = (&Sort{Input: src, Keys: stKeys([]int{1}, []SortOrder{{}}), Fetch: fetch}).Execute(tc, 0)
		s.Close()
	}
}

package exec

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

// recTest builds anchor VALUES (vals) and a RecursiveUnion whose step is
// SELECT expr(x) FROM work.
func recTest(t *testing.T, mem memory.Allocator, vals []any, distinct bool, step func(x vec.Expr) vec.Expr) *RecursiveUnion {
	t.Helper()
	s := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil)
	col := aggArr(mem, arrow.PrimitiveTypes.Int64, vals...)
	rec := array.NewRecordBatch(s, []arrow.Array{col}, int64(col.Len()))
	col.Release()
	anchor := NewValues(s, rec)
	t.Cleanup(rec.Release)
	wt := &WorkTable{Name: "r", S: s}
	x := &vec.Column{Index: 0, Name: "x", T: arrow.PrimitiveTypes.Int64, Null: true}
	proj := &Project{Input: &WorkScan{Work: wt}, Exprs: []vec.Expr{step(x)}, S: s}
	return &RecursiveUnion{Name: "r", Anchor: anchor, Step: proj, Work: wt, Distinct: distinct}
}

func recRows(t *testing.T, tc *TaskCtx, op Operator) ([]string, error) {
	bs, err := Collect(tc, op)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, b := range bs {
		for r := 0; r < int(b.NumRows()); r++ {
			out = append(out, aggCell(b.Column(0), r))
		}
		b.Release()
	}
	slices.Sort(out)
	return out, nil
}

// TestRecursiveUnion: UNION drops rows equal to one returned before
// (NULLs equal, also within the anchor), the round limit fails with
// ErrResourceExhausted, a WorkScan outside its recursive union fails, and
// nothing leaks.
func TestRecursiveUnion(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	t.Cleanup(func() { mem.AssertSize(t, 0) }) // after the anchors' Cleanups
	tc := NewTaskCtx(context.Background(), mem, nil, NewBudget("test", 1<<20))
	// x → x % 3 + 1 over {1, 2, 2, NULL, NULL}: {1, 2, NULL}, then 3, then 1 again.
	next := func(x vec.Expr) vec.Expr {
		three, _ := vec.NumberLiteral("3")
		one, _ := vec.NumberLiteral("1")
		m, err := vec.NewArith("%", x, three)
		if err != nil {
			t.Fatal(err)
		}
		e, err := vec.NewArith("+", m, one)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	u := recTest(t, mem, []any{int64(1), int64(2), int64(2), nil, nil}, true, next)
	got, err := recRows(t, tc, u)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"1", "2", "3", "NULL"}; !slices.Equal(got, want) {
		t.Errorf("UNION: got %v, want %v", got, want)
	}
	if used := tc.Budget.Used(); used != 0 {
		t.Errorf("%d bytes reserved after the stream closed", used)
	}

	u = recTest(t, mem, []any{int64(1)}, false, func(x vec.Expr) vec.Expr { return x })
	u.MaxIterations = 10
	_, err = recRows(t, tc, u)
	if !errors.Is(err, ErrResourceExhausted) || !strings.Contains(err.Error(), "within 10 rounds") {
		t.Errorf("endless UNION ALL: %v", err)
	}
	if !strings.Contains(u.Explain(), "at most 10 rounds") {
		t.Errorf("Explain: %s", u.Explain())
	}

	tiny := NewTaskCtx(context.Background(), mem, nil, NewBudget("test", 64))
	u = recTest(t, mem, []any{int64(1), int64(2), int64(3), int64(4), int64(5), int64(6), int64(7), int64(8), int64(9), int64(10)}, false, func(x vec.Expr) vec.Expr { return x })
	if _, err = recRows(t, tiny, u); !errors.Is(err, ErrResourceExhausted) || !strings.Contains(err.Error(), "WITH RECURSIVE r") {
		t.Errorf("64-byte budget: %v", err)
	}
	if used := tiny.Budget.Used(); used != 0 {
		t.Errorf("%d bytes reserved after the failed stream closed", used)
	}

	if _, err := (&WorkScan{Work: u.Work}).Execute(tc, 0); err == nil || !strings.Contains(err.Error(), "outside its recursive query") {
		t.Errorf("WorkScan outside: %v", err)
	}
}

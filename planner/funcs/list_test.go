package funcs

import (
	"context"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

// TestListFunctions evaluates list_value / list_extract / len /
// list_contains over columns with NULLs (several rows, so offsets
// matter), on a checked allocator.
func TestListFunctions(t *testing.T) {
	mem := newMem(t)
	a := build(mem, tInt64, int64(1), nil, int64(3), int64(-4))
	s := build(mem, tString, "x", "y", nil, "x")
	rec := array.NewRecordBatch(arrow.NewSchema([]arrow.Field{{Name: "a", Type: tInt64, Nullable: true}, {Name: "s", Type: tString, Nullable: true}}, nil), []arrow.Array{a, s}, 4)
	a.Release()
	s.Release()
	defer rec.Release()
	col := func(i int) vec.Expr {
		return &vec.Column{Index: i, Name: rec.ColumnName(i), T: rec.Schema().Field(i).Type, Null: true}
	}
	lit := func(x string) vec.Expr {
		l, err := vec.NumberLiteral(x)
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	mk := func(name string, args ...vec.Expr) vec.Expr {
		t.Helper()
		e, err := vec.NewCall(name, args)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return e
	}
	l := mk("list_value", col(0), lit("2"), col(0))
	ls := mk("list_value", col(1), vec.NullLiteral(arrow.Null))
	for _, c := range []struct {
		e    vec.Expr
		want string
	}{
		{l, "[1,2,1] [null,2,null] [3,2,3] [-4,2,-4]"},
		{mk("list_extract", l, lit("2")), "2 2 2 2"},
		{mk("list_extract", l, lit("-1")), "1 NULL 3 -4"},
		{mk("list_extract", l, col(0)), "1 NULL 3 NULL"},
		{mk("len", l), "3 3 3 3"},
		{mk("array_length", mk("list_value")), "0 0 0 0"},
		{mk("list_contains", l, col(0)), "true NULL true true"},
		{mk("list_contains", l, lit("2")), "true true true true"},
		{mk("list_contains", l, lit("1")), "true false false false"},
		{mk("list_contains", ls, vec.NullLiteral(arrow.Null)), "NULL NULL NULL NULL"},
		{mk("array_contains", mk("list_value", col(1)), col(1)), "true true NULL true"},
		{mk("list_extract", mk("list_value", l, mk("list_value", lit("7"))), lit("2")), "[7] [7] [7] [7]"},
	} {
		out, err := c.e.Eval(vec.NewCtx(context.Background(), mem, nil), rec)
		if err != nil {
			t.Fatalf("%s: %v", c.e, err)
		}
		if !arrow.TypeEqual(out.DataType(), c.e.Type()) {
			t.Errorf("%s: array type %s, expression type %s", c.e, out.DataType(), c.e.Type())
		}
		got := make([]string, out.Len())
		for i := range got {
			got[i] = render(out, i)
		}
		out.Release()
		if g := strings.Join(got, " "); g != c.want {
			t.Errorf("%s = %s, want %s", c.e, g, c.want)
		}
	}
	for _, bad := range [][]vec.Expr{{col(0), lit("1")}, {col(1), lit("1")}} {
		if _, err := vec.NewCall("list_extract", bad); err == nil {
			t.Errorf("list_extract(%v) bound", bad)
		}
	}
	if _, err := vec.NewCall("list_value", []vec.Expr{mk("list_value", col(0)), mk("list_value", col(1))}); err == nil {
		t.Error("list_value of BIGINT[] and VARCHAR[] bound")
	}
}

package planner

import (
	"context"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
)

// runBound prepares sql, re-plans it for the bound types and runs it with
// one row of values; it returns the result schema and rows.
func runBound(t *testing.T, e *Engine, sql string, types []arrow.DataType, vals ...any) (*arrow.Schema, []string) {
	t.Helper()
	ctx := context.Background()
	mem := testutil.CheckedAllocator(t)
	st, err := e.Prepare(ctx, sql, Session{})
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	if st, err = st.WithParamTypes(ctx, types); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	var out []string
	for p := range st.NumPartitions() {
		rdr, err := st.Execute(ctx, mem, vals, p)
		if err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		if !rdr.Schema().Equal(st.Schema()) {
			t.Fatalf("%s: reader schema %s != statement schema %s", sql, rdr.Schema(), st.Schema())
		}
		for rdr.Next() {
			out = append(out, renderRows(rdr.RecordBatch())...)
		}
		if err := rdr.Err(); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		rdr.Release()
	}
	return st.Schema(), out
}

// Parameters the context leaves untyped take the bound value's type
// (SELECT ?, ? bound to a BIGINT and a VARCHAR, as ADBC's validation suite
// and JDBC's setLong do); parameters typed by context keep their type.
func TestUntypedParameters(t *testing.T) {
	e, _ := newTestEngine(t, testutil.CheckedAllocator(t))
	ctx := context.Background()

	st, err := e.Prepare(ctx, "SELECT ?, ?", Session{})
	if err != nil {
		t.Fatal(err)
	}
	if got := st.ParamTypes(); len(got) != 2 || got[0].ID() != arrow.STRING || got[1].ID() != arrow.STRING {
		t.Fatalf("untyped parameters reported as %v, want utf8 (the default)", got)
	}
	sc, rows := runBound(t, e, "SELECT ?, ?", []arrow.DataType{arrow.PrimitiveTypes.Int64, arrow.BinaryTypes.String}, int64(42), "foo")
	if sc.Field(0).Type.ID() != arrow.INT64 || sc.Field(1).Type.ID() != arrow.STRING {
		t.Fatalf("schema %s", sc)
	}
	if !slices.Equal(rows, []string{"42|foo"}) {
		t.Fatalf("rows %v", rows)
	}
	if sc.Field(0).Name != "$1" || sc.Field(1).Name != "$2" {
		t.Fatalf("names %q %q, want $1 $2", sc.Field(0).Name, sc.Field(1).Name)
	}
	// NULLs bound to untyped parameters.
	_, rows = runBound(t, e, "SELECT ?, ?", []arrow.DataType{arrow.PrimitiveTypes.Int64, arrow.BinaryTypes.String}, nil, nil)
	if !slices.Equal(rows, []string{"NULL|NULL"}) {
		t.Fatalf("rows %v", rows)
	}
	// A date bound to an untyped parameter stays a date.
	sc, rows = runBound(t, e, "SELECT ?", []arrow.DataType{arrow.FixedWidthTypes.Date32}, int64(19723))
	if sc.Field(0).Type.ID() != arrow.DATE32 || !slices.Equal(rows, []string{"2024-01-01"}) {
		t.Fatalf("date parameter: %s %v", sc, rows)
	}

	// ? + 1 is named like DuckDB names it.
	sc, rows = runBound(t, e, "SELECT ? + 1", []arrow.DataType{arrow.PrimitiveTypes.Int64}, int64(41))
	if sc.Field(0).Name != "$1 + 1" || !slices.Equal(rows, []string{"42"}) {
		t.Fatalf("? + 1: %q %v", sc.Field(0).Name, rows)
	}

	// Typed by context: a bound string must fit the column type.
	_, rows = runBound(t, e, "SELECT id FROM orders WHERE id = ?", []arrow.DataType{arrow.BinaryTypes.String}, "3")
	if !slices.Equal(rows, []string{"3"}) {
		t.Fatalf("id = '3': %v", rows)
	}

	// LIMIT ? and OFFSET ?.
	st, err = e.Prepare(ctx, "SELECT id FROM orders ORDER BY id LIMIT ? OFFSET ?", Session{})
	if err != nil {
		t.Fatal(err)
	}
	if got := st.ParamTypes(); len(got) != 2 || got[0].ID() != arrow.INT64 || got[1].ID() != arrow.INT64 {
		t.Fatalf("LIMIT ? OFFSET ? parameters %v, want int64", got)
	}
	_, rows = runBound(t, e, "SELECT id FROM orders ORDER BY id LIMIT ? OFFSET ?", []arrow.DataType{arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int64}, int64(2), int64(1))
	if !slices.Equal(rows, []string{"2", "3"}) {
		t.Fatalf("LIMIT 2 OFFSET 1: %v", rows)
	}
	if _, err := tryQuery(t, e, "SELECT id FROM orders LIMIT ?", "x"); err == nil {
		t.Fatal("LIMIT 'x' accepted")
	}
	if _, err := tryQuery(t, e, "SELECT id FROM orders LIMIT ?", int64(-1)); err == nil {
		t.Fatal("LIMIT -1 accepted")
	}
}

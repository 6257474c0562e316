package planner

import (
	"context"
	"fmt"
	"math/big"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
)

// ordersSchema is the schema of the test table "orders".
var ordersSchema = arrow.NewSchema([]arrow.Field{
	{Name: "id", Type: arrow.PrimitiveTypes.Int64},
	{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "price", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	{Name: "dt", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
	{Name: "qty", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
	{Name: "amount", Type: &arrow.Decimal128Type{Precision: 10, Scale: 2}, Nullable: true},
	{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Microsecond}, Nullable: true},
}, nil)

// buildRecord builds one record of schema from rows of runtime values
// (nil, int64, float64, string, days for dates, micros for timestamps,
// predicate.Decimal).
func buildRecord(t testing.TB, mem memory.Allocator, schema *arrow.Schema, rows [][]any) arrow.RecordBatch {
	t.Helper()
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	for _, r := range rows {
		for i, v := range r {
			if err := appendValue(b.Field(i), v); err != nil {
				t.Fatal(err)
			}
		}
	}
	return b.NewRecordBatch()
}

func dec(s string) predicate.Decimal {
	d, ok := parseDecimal(s)
	if !ok {
		panic(s)
	}
	return d
}

func day(s string) int64 {
	d, err := parseDate(s)
	if err != nil {
		panic(err)
	}
	return d
}

// ordersRows are split into three records (three splits).
var ordersRows = [][][]any{
	{
		{int64(1), "apple", 1.5, day("2024-01-01"), int64(10), dec("15.00"), int64(1704103200000000)},
		{int64(2), "banana", 0.25, day("2024-01-02"), int64(20), dec("5.00"), int64(1704189600000000)},
		{int64(3), nil, nil, nil, nil, nil, nil},
	},
	{
		{int64(4), "cherry", 3.0, day("2024-02-10"), int64(5), dec("15.00"), int64(1707559200000000)},
		{int64(5), "apple", 1.75, day("2024-02-11"), int64(8), dec("14.00"), int64(1707645600000000)},
	},
	{
		{int64(6), "Durian", 9.5, day("2024-03-01"), int64(1), dec("9.50"), int64(1709287200000000)},
		{int64(7), "banana", 0.3, day("2024-03-02"), int64(30), dec("9.00"), int64(1709373600000000)},
		{int64(8), "apple", 1.5, day("2024-03-03"), int64(12), dec("18.00"), int64(1709460000000000)},
	},
}

// newTestEngine returns an engine over a catalog with default.orders and
// sales.items (a copy), allocating from mem.
func newTestEngine(t testing.TB, mem memory.Allocator) (*Engine, *catalog.MemCatalog) {
	t.Helper()
	cat := catalog.NewMemCatalog("default")
	var recs []arrow.RecordBatch
	for _, rows := range ordersRows {
		recs = append(recs, buildRecord(t, mem, ordersSchema, rows))
	}
	for _, name := range []struct{ db, t string }{{"default", "orders"}, {"sales", "items"}} {
		tab, err := catalog.NewMemTable(catalog.Identifier{Database: name.db, Table: name.t}, catalog.KindTable, ordersSchema, []string{"id"}, recs)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(tab.Release)
		cat.AddTable(name.db, tab)
	}
	for _, r := range recs {
		r.Release()
	}
	return New(cat, Options{BatchSize: 2}), cat
}

// query runs sql and returns its rows rendered as "v1|v2|..." strings.
func runQuery(t testing.TB, e *Engine, sql string, params ...any) []string {
	t.Helper()
	rows, err := tryQuery(t, e, sql, params...)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return rows
}

func tryQuery(t testing.TB, e *Engine, sql string, params ...any) ([]string, error) {
	t.Helper()
	mem := testutil.CheckedAllocator(t)
	st, err := e.Prepare(context.Background(), sql, Session{})
	if err != nil {
		return nil, err
	}
	if params == nil {
		params = []any{}
	}
	var out []string
	for p := range st.NumPartitions() {
		rdr, err := st.Execute(context.Background(), mem, params, p)
		if err != nil {
			return nil, err
		}
		if !rdr.Schema().Equal(st.Schema()) {
			rdr.Release()
			t.Fatalf("%s: reader schema %s != statement schema %s", sql, rdr.Schema(), st.Schema())
		}
		for rdr.Next() {
			out = append(out, renderRows(rdr.RecordBatch())...)
		}
		err = rdr.Err()
		rdr.Release()
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

func renderRows(rec arrow.RecordBatch) []string {
	var out []string
	gs := make([]func(int) any, rec.NumCols())
	for i := range gs {
		col := rec.Column(i)
		g, err := getter(col)
		if err != nil { // nested values: Arrow's own rendering
			g = func(r int) any {
				if col.IsNull(r) {
					return nil
				}
				return col.ValueStr(r)
			}
		}
		gs[i] = g
	}
	for r := range int(rec.NumRows()) {
		parts := make([]string, len(gs))
		for i, g := range gs {
			v := g(r)
			if v == nil {
				parts[i] = "NULL"
			} else {
				parts[i] = formatValue(v, rec.Column(i).DataType())
				if _, nested := v.(string); nested && classOf(rec.Column(i).DataType()) == cOther {
					parts[i] = v.(string)
				}
			}
		}
		out = append(out, strings.Join(parts, "|"))
	}
	return out
}

func decimalOf(s string) decimal128.Num {
	d := dec(s)
	return decimal128.FromBigInt(d.Unscaled)
}

var _ = big.NewInt
var _ = fmt.Sprint

package scan_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/fileio"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/scan"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/write"
)

const benchRows = 300_000

func benchFields() []types.DataField {
	return []types.DataField{
		{Name: "k", Type: types.NewBigInt().NotNull()},
		{Name: "qty", Type: types.NewInt()},
		{Name: "price", Type: types.NewDecimal(15, 2)},
		{Name: "disc", Type: types.NewDouble()},
		{Name: "flag", Type: types.NewString()},
		{Name: "ship", Type: types.NewDate()},
		{Name: "mode", Type: types.NewString()},
		{Name: "comment", Type: types.NewString()},
	}
}

// writeBenchRows writes rows [from, to) with the given key stride in commits
// of `batch` rows. Row i has key (i*stride) % benchRows so later commits
// overwrite earlier keys when stride spreads them.
func writeBenchRows(b *testing.B, ctx context.Context, t *write.Table, from, to int, keyOf func(int) int64) {
	mem := memory.NewGoAllocator()
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "k", Type: arrow.PrimitiveTypes.Int64},
		{Name: "qty", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: "disc", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "flag", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "ship", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
		{Name: "mode", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "comment", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	modes := []string{"AIR", "MAIL", "SHIP", "TRUCK", "RAIL", "FOB", "REG AIR"}
	words := []string{"quick", "brown", "fox", "jumps", "over", "lazy", "dog", "final", "ironic", "packages"}
	w := t.NewWriter(mem)
	bld := array.NewRecordBuilder(mem, sc)
	defer bld.Release()
	for i := from; i < to; i++ {
		bld.Field(0).(*array.Int64Builder).Append(keyOf(i))
		bld.Field(1).(*array.Int32Builder).Append(int32(i % 50))
		bld.Field(2).(*array.Float64Builder).Append(float64(i%11) / 100)
		bld.Field(3).(*array.StringBuilder).Append(string(rune('A' + i%3)))
		bld.Field(4).(*array.Date32Builder).Append(arrow.Date32(19000 + i%2000))
		bld.Field(5).(*array.StringBuilder).Append(modes[i%len(modes)])
		bld.Field(6).(*array.StringBuilder).Append(fmt.Sprintf("%s %s %s %d", words[i%10], words[(i/10)%10], words[(i/100)%10], i))
	}
	rec := bld.NewRecordBatch()
	defer rec.Release()
	if err := w.Write(ctx, rec); err != nil {
		b.Fatal(err)
	}
	if _, err := w.Commit(ctx); err != nil {
		b.Fatal(err)
	}
}

// benchTables builds an append table, a PK table with deletion vectors and a
// PK table read merge-on-read, holding the same final rows.
func benchTables(b *testing.B) map[string]*paimon.Table {
	ctx := context.Background()
	fio, err := fileio.NewLocal(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	out := map[string]*paimon.Table{}
	specs := map[string]write.TableSpec{
		"append": {Fields: benchFields(), Options: map[string]string{"bucket": "-1"}},
		"dv":     {Fields: benchFields(), PrimaryKeys: []string{"k"}, Options: map[string]string{"bucket": "2", "deletion-vectors.enabled": "true"}},
		"mor":    {Fields: benchFields(), PrimaryKeys: []string{"k"}, Options: map[string]string{"bucket": "2"}},
	}
	for name, spec := range specs {
		t, err := write.CreateTable(ctx, fio, "default", name, spec)
		if err != nil {
			b.Fatal(err)
		}
		id := func(i int) int64 { return int64(i) }
		if name == "append" {
			writeBenchRows(b, ctx, t, 0, benchRows, id)
		} else {
			// Two commits: all keys, then a 20% overwrite of spread keys, so
			// the DV table carries deletion vectors and MOR needs a merge.
			writeBenchRows(b, ctx, t, 0, benchRows, id)
			writeBenchRows(b, ctx, t, 0, benchRows/5, func(i int) int64 { return int64(i * 5) })
		}
		pt, err := paimon.OpenTable(ctx, fio, write.TablePath("default", name), "")
		if err != nil {
			b.Fatal(err)
		}
		out[name] = pt
	}
	return out
}

// BenchmarkScan reports rows/s for a wide scan, a narrow scan, a
// deletion-vector scan and a merge-on-read scan of the same rows.
func BenchmarkScan(b *testing.B) {
	tables := benchTables(b)
	ctx := context.Background()
	cases := []struct {
		name, table string
		cols        []string
	}{
		{"wide", "append", nil},
		{"narrow", "append", []string{"k", "disc"}},
		{"dv", "dv", nil},
		{"merge-on-read", "mor", nil},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			var rows int64
			for i := 0; i < b.N; i++ {
				s, err := scan.New(ctx, tables[c.table], scan.Options{Columns: c.cols})
				if err != nil {
					b.Fatal(err)
				}
				p, err := s.Plan(ctx)
				if err != nil {
					b.Fatal(err)
				}
				rd, err := s.Read(ctx, memory.DefaultAllocator, p.Splits)
				if err != nil {
					b.Fatal(err)
				}
				rows = 0
				for rd.Next() {
					rows += rd.RecordBatch().NumRows()
				}
				if err := rd.Err(); err != nil {
					b.Fatal(err)
				}
				rd.Release()
			}
			if rows != benchRows {
				b.Fatalf("read %d rows, want %d", rows, benchRows)
			}
			b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}

package planner

import (
	"context"
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/fileio"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/write"
)

func TestZZTs2(t *testing.T) {
	ctx := context.Background()
	mem := memory.NewGoAllocator()
	dir := t.TempDir()
	fio, _ := fileio.NewLocal(dir)
	wt, err := write.CreateTable(ctx, fio, "default", "t", write.TableSpec{Fields: []types.DataField{{Name: "ts", Type: types.NewTimestamp(6)}}})
	if err != nil {
		t.Fatal(err)
	}
	sc := arrow.NewSchema([]arrow.Field{{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Microsecond}, Nullable: true}}, nil)
	b := array.NewRecordBuilder(mem, sc)
	for i := 0; i < 10; i++ {
		b.Field(0).(*array.TimestampBuilder).Append(arrow.Timestamp(int64(1706700000+i*86400*3) * 1_000_000))
	}
	rec := b.NewRecordBatch()
	w := wt.NewWriter(mem)
	if err := w.Write(ctx, rec); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	e := New(catalog.NewFS(fio, "."), Options{})
	for _, q := range []string{
		"SELECT count(*) FROM t WHERE ts <= TIMESTAMP '2024-02-20 08:45:00'",
		"SELECT ts FROM t", "SELECT ts FROM t WHERE ts <= TIMESTAMP '2024-02-20 08:45:00' OR ts IS NULL",
	} {
		rd, err := Run(ctx, e, q, Session{}, mem)
		if err != nil {
			t.Fatal(err)
		}
		for rd.Next() {
			fmt.Println(q, "\n", rd.RecordBatch())
		}
		rd.Release()
	}
}

func TestZZTs3(t *testing.T) {
	mem := memory.NewGoAllocator()
	sc := arrow.NewSchema([]arrow.Field{{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Microsecond}, Nullable: true}}, nil)
	b := array.NewRecordBuilder(mem, sc)
	for i := 0; i < 10; i++ {
		b.Field(0).(*array.TimestampBuilder).Append(arrow.Timestamp(int64(1706700000+i*86400*3) * 1_000_000))
	}
	rec := b.NewRecordBatch()
	p := &predicate.Leaf{Column: "ts", FieldID: 0, Type: types.NewTimestamp(6), Op: predicate.LtEq, Literals: []any{predicate.Timestamp{Millis: 1708418700000}}}
	m, err := predicate.EvalArrow(p, rec, mem)
	fmt.Println(m, err)
}

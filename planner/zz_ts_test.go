package planner

import (
	"context"
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
)

func TestZZTs(t *testing.T) {
	mem := memory.NewGoAllocator()
	sc := arrow.NewSchema([]arrow.Field{{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Microsecond}, Nullable: true}, {Name: "flag", Type: arrow.FixedWidthTypes.Boolean, Nullable: true}, {Name: "dt", Type: arrow.FixedWidthTypes.Date32, Nullable: true}}, nil)
	b := array.NewRecordBuilder(mem, sc)
	for i := 0; i < 10; i++ {
		b.Field(0).(*array.TimestampBuilder).Append(arrow.Timestamp(int64(1706700000+i*86400*3) * 1_000_000))
		if i%3 == 0 {
			b.Field(1).AppendNull()
		} else {
			b.Field(1).(*array.BooleanBuilder).Append(i%2 == 0)
		}
		b.Field(2).(*array.Date32Builder).Append(arrow.Date32(19750 + i))
	}
	rec := b.NewRecordBatch()
	tbl, _ := catalog.NewMemTable(catalog.Identifier{Database: "default", Table: "t"}, catalog.KindTable, sc, nil, []arrow.RecordBatch{rec})
	cat := catalog.NewMemCatalog("default")
	cat.AddTable("default", tbl)
	e := New(cat, Options{})
	for _, q := range []string{
		"SELECT count(*) FROM t WHERE ts <= TIMESTAMP '2024-02-20 08:45:00'",
		"SELECT count(*) FROM t WHERE ts BETWEEN TIMESTAMP '2024-02-03 03:15:00' AND TIMESTAMP '2024-03-18 06:30:00'",
		"SELECT ts FROM t",
		"SELECT flag, CASE WHEN dt = DATE '2024-01-31' THEN CASE WHEN 1 > 2 THEN flag ELSE flag END ELSE flag END FROM t",
	} {
		rd, err := Run(context.Background(), e, q, Session{}, mem)
		if err != nil {
			t.Fatal(err)
		}
		for rd.Next() {
			fmt.Println(q, "\n", rd.RecordBatch())
		}
		rd.Release()
	}
}

package format

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

func TestZZDbg(t *testing.T) {
	mem := memory.NewGoAllocator()
	fields := []types.DataField{{ID: 0, Name: "ts", Type: types.NewTimestamp(6)}}
	sc := arrow.NewSchema([]arrow.Field{{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Microsecond}, Nullable: true,
		Metadata: arrow.NewMetadata([]string{"PARQUET:field_id"}, []string{strconv.Itoa(0)})}}, nil)
	b := array.NewRecordBuilder(mem, sc)
	for i := 0; i < 10; i++ {
		b.Field(0).(*array.TimestampBuilder).Append(arrow.Timestamp(int64(1706700000+i*86400*3) * 1_000_000))
	}
	rec := b.NewRecordBatch()
	var buf bytes.Buffer
	props := parquet.NewWriterProperties(parquet.WithRootName("paimon_schema"), parquet.WithDictionaryDefault(true), parquet.WithStoreDecimalAsInteger(true))
	w, err := pqarrow.NewFileWriter(sc, &buf, props, pqarrow.NewArrowWriterProperties(pqarrow.WithDeprecatedInt96Timestamps(true)))
	if err != nil {
		t.Fatal(err)
	}
	w.Write(rec)
	w.Close()
	df, err := Open(bytes.NewReader(buf.Bytes()), int64(buf.Len()), "x.parquet", fields)
	if err != nil {
		t.Fatal(err)
	}
	pf := df.(*ParquetFile)
	fmt.Println(pf.rdr.MetaData().Schema)
	fmt.Printf("stats %+v\n", df.RowGroupStats(0, fields))
	p := &predicate.Leaf{Column: "ts", FieldID: 0, Type: types.NewTimestamp(6), Op: predicate.LtEq, Literals: []any{predicate.Timestamp{Millis: 1708418700000}}}
	for _, slow := range []bool{false, true} {
		for _, f := range []predicate.Predicate{nil, p} {
			rr, err := df.Read(context.Background(), ReadOptions{Fields: fields, Filter: f, DisableFastPath: slow})
			if err != nil {
				t.Fatal(err)
			}
			for rr.Next() {
				fmt.Println(slow, f != nil, rr.RecordBatch())
			}
			fmt.Println("err", rr.Err())
			rr.Release()
		}
	}
}

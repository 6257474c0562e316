package rowfmt

import (
	"bytes"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
)

func TestJSONLConventions(t *testing.T) {
	mem := testutil.CheckedAllocator(t)
	tsMeta := arrow.NewMetadata([]string{MetaPaimonType}, []string{"TIMESTAMP(3)"})
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "d", Type: &arrow.Decimal128Type{Precision: 10, Scale: 2}, Nullable: true},
		{Name: "day", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
		{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Microsecond}, Nullable: true, Metadata: tsMeta},
		{Name: "ltz", Type: &arrow.TimestampType{Unit: arrow.Nanosecond, TimeZone: "UTC"}, Nullable: true},
		{Name: "b", Type: arrow.BinaryTypes.Binary, Nullable: true},
		{Name: "m", Type: arrow.MapOf(arrow.PrimitiveTypes.Int8, arrow.PrimitiveTypes.Int16), Nullable: true},
		{Name: "r", Type: arrow.StructOf(arrow.Field{Name: "x", Type: arrow.FixedWidthTypes.Boolean, Nullable: true}), Nullable: true},
		{Name: "f", Type: arrow.PrimitiveTypes.Float32, Nullable: true},
	}, nil)
	bld := array.NewRecordBuilder(mem, schema)
	defer bld.Release()
	bld.Field(0).(*array.Decimal128Builder).Append(decimal128.FromI64(-1230))
	bld.Field(1).(*array.Date32Builder).Append(arrow.Date32(19857))
	bld.Field(2).(*array.TimestampBuilder).Append(arrow.Timestamp(-1))
	bld.Field(3).(*array.TimestampBuilder).Append(arrow.Timestamp(1_000_000_002))
	bld.Field(4).(*array.BinaryBuilder).Append([]byte("hi"))
	mb := bld.Field(5).(*array.MapBuilder)
	mb.Append(true)
	mb.KeyBuilder().(*array.Int8Builder).Append(-128)
	mb.ItemBuilder().(*array.Int16Builder).Append(32767)
	sb := bld.Field(6).(*array.StructBuilder)
	sb.Append(true)
	sb.FieldBuilder(0).(*array.BooleanBuilder).Append(true)
	bld.Field(7).(*array.Float32Builder).Append(0.1)
	for i := 0; i < 8; i++ {
		bld.Field(i).AppendNull()
	}
	rec := bld.NewRecordBatch()
	defer rec.Release()

	var out bytes.Buffer
	w, err := NewWriter(&out, "jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	want0 := `{"d":"-12.30","day":"2024-05-14","ts":"1969-12-31T23:59:59.999","ltz":"1970-01-01T00:00:01.000000002Z","b":"aGk=","m":[[-128,32767]],"r":{"x":true},"f":0.1}`
	if lines[0] != want0 {
		t.Errorf("row 0:\n got %s\nwant %s", lines[0], want0)
	}
	want1 := `{"d":null,"day":null,"ts":null,"ltz":null,"b":null,"m":null,"r":null,"f":null}`
	if lines[1] != want1 {
		t.Errorf("row 1:\n got %s\nwant %s", lines[1], want1)
	}

	out.Reset()
	w, _ = NewWriter(&out, "table")
	_ = w.Write(rec)
	_ = w.Close()
	if !strings.Contains(out.String(), "(2 rows)") || !strings.Contains(out.String(), "NULL") {
		t.Errorf("table output:\n%s", out.String())
	}
	if _, err := NewWriter(&out, "xml"); err == nil {
		t.Error("unknown format accepted")
	}
}

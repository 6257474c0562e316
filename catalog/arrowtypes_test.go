package catalog

import (
	"errors"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-flightsql/paimon-flightsql/paimon/format"
)

// Every Arrow type PaimonType accepts maps back to itself through
// format.ArrowType (the schema GetTableSchema and queries report).
func TestPaimonTypeRoundTrip(t *testing.T) {
	el := func(dt arrow.DataType, nullable bool) arrow.Field {
		return arrow.Field{Name: "element", Type: dt, Nullable: nullable}
	}
	m := arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int64)
	cases := []arrow.DataType{
		arrow.FixedWidthTypes.Boolean, arrow.PrimitiveTypes.Int8, arrow.PrimitiveTypes.Int16,
		arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Float32,
		arrow.PrimitiveTypes.Float64, &arrow.Decimal128Type{Precision: 38, Scale: 10},
		&arrow.Decimal128Type{Precision: 5, Scale: 0}, arrow.BinaryTypes.String, arrow.BinaryTypes.Binary,
		arrow.FixedWidthTypes.Date32, arrow.FixedWidthTypes.Time32ms,
		&arrow.TimestampType{Unit: arrow.Millisecond}, &arrow.TimestampType{Unit: arrow.Microsecond},
		&arrow.TimestampType{Unit: arrow.Nanosecond}, &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"},
		arrow.ListOfField(el(arrow.PrimitiveTypes.Int32, true)), arrow.ListOfField(el(arrow.BinaryTypes.String, false)),
		m,
		arrow.StructOf(arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
			arrow.Field{Name: "b", Type: arrow.ListOfField(el(arrow.FixedWidthTypes.Date32, true)), Nullable: false}),
	}
	for _, dt := range cases {
		pt, err := PaimonType(dt, true)
		if err != nil {
			t.Errorf("%s: %v", dt, err)
			continue
		}
		back := format.ArrowType(pt)
		if !arrow.TypeEqual(back, dt) {
			t.Errorf("%s → %s → %s", dt, pt, back)
		}
	}
	for _, dt := range []arrow.DataType{
		arrow.PrimitiveTypes.Uint8, arrow.PrimitiveTypes.Uint64, arrow.BinaryTypes.LargeString,
		&arrow.TimestampType{Unit: arrow.Second}, &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "Europe/Paris"},
		arrow.FixedWidthTypes.Time64us, arrow.FixedWidthTypes.Float16, &arrow.Decimal256Type{Precision: 50, Scale: 0},
	} {
		if _, err := PaimonType(dt, true); !errors.Is(err, ErrUnsupported) {
			t.Errorf("%s: got %v, want ErrUnsupported", dt, err)
		}
	}
}

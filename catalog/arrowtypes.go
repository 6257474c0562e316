package catalog

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// PaimonType maps an Arrow type to the Paimon type that format.ArrowType
// maps back to the same Arrow type (the mapping GetTableSchema reports), so
// a table created from an Arrow schema reads back with that schema:
//
//	Boolean → BOOLEAN; Int8/16/32/64 → TINYINT/SMALLINT/INT/BIGINT;
//	Float32/64 → FLOAT/DOUBLE; Decimal128(p,s) → DECIMAL(p,s) (p ≤ 38);
//	String → STRING; Binary → BYTES; Date32 → DATE; Time32(ms) → TIME(3);
//	Timestamp(ms|µs|ns) → TIMESTAMP(3|6|9); with time zone "UTC" →
//	TIMESTAMP_LTZ(3|6|9); List → ARRAY; Map → MAP; Struct → ROW.
//
// Anything else (unsigned integers, seconds timestamps, other time zones,
// large/view strings, ...) has no lossless Paimon type and fails with
// ErrUnsupported naming the type.
func PaimonType(dt arrow.DataType, nullable bool) (types.DataType, error) {
	var t types.DataType
	switch dt.ID() {
	case arrow.BOOL:
		t = types.NewBoolean()
	case arrow.INT8:
		t = types.NewTinyInt()
	case arrow.INT16:
		t = types.NewSmallInt()
	case arrow.INT32:
		t = types.NewInt()
	case arrow.INT64:
		t = types.NewBigInt()
	case arrow.FLOAT32:
		t = types.NewFloat()
	case arrow.FLOAT64:
		t = types.NewDouble()
	case arrow.DECIMAL128:
		d := dt.(*arrow.Decimal128Type)
		if d.Precision < 1 || d.Precision > 38 || d.Scale < 0 || d.Scale > d.Precision {
			return t, paimon.Errorf(ErrUnsupported, "Arrow type %s: Paimon DECIMAL needs 1 ≤ precision ≤ 38 and 0 ≤ scale ≤ precision", dt)
		}
		t = types.NewDecimal(int(d.Precision), int(d.Scale))
	case arrow.STRING:
		t = types.NewString()
	case arrow.BINARY:
		t = types.NewBytes()
	case arrow.DATE32:
		t = types.NewDate()
	case arrow.TIME32:
		if dt.(*arrow.Time32Type).Unit != arrow.Millisecond {
			return t, paimon.Errorf(ErrUnsupported, "Arrow type %s: only time32[ms] maps to Paimon TIME(3)", dt)
		}
		t = types.DataType{Root: types.Time, Nullable: true, Precision: 3}
	case arrow.TIMESTAMP:
		ts := dt.(*arrow.TimestampType)
		p := 0
		switch ts.Unit {
		case arrow.Millisecond:
			p = 3
		case arrow.Microsecond:
			p = 6
		case arrow.Nanosecond:
			p = 9
		default:
			return t, paimon.Errorf(ErrUnsupported, "Arrow type %s: seconds timestamps read back as milliseconds; cast to timestamp[ms] first", dt)
		}
		switch ts.TimeZone {
		case "":
			t = types.NewTimestamp(p)
		case "UTC":
			t = types.NewTimestampLTZ(p)
		default:
			return t, paimon.Errorf(ErrUnsupported, "Arrow type %s: Paimon stores instants without a zone name (TIMESTAMP_LTZ reads back as UTC); convert to UTC first", dt)
		}
	case arrow.LIST:
		l := dt.(*arrow.ListType)
		e, err := PaimonType(l.Elem(), l.ElemField().Nullable)
		if err != nil {
			return t, err
		}
		t = types.NewArray(e)
	case arrow.MAP:
		m := dt.(*arrow.MapType)
		k, err := PaimonType(m.KeyType(), false)
		if err != nil {
			return t, err
		}
		v, err := PaimonType(m.ItemType(), m.ItemField().Nullable)
		if err != nil {
			return t, err
		}
		t = types.NewMap(k, v)
	case arrow.STRUCT:
		st := dt.(*arrow.StructType)
		fs := make([]types.DataField, st.NumFields())
		for i, f := range st.Fields() {
			ft, err := PaimonType(f.Type, f.Nullable)
			if err != nil {
				return t, fmt.Errorf("field %s: %w", f.Name, err)
			}
			fs[i] = types.DataField{Name: f.Name, Type: ft}
		}
		t = types.NewRow(fs...)
	default:
		return t, paimon.Errorf(ErrUnsupported, "Arrow type %s has no lossless Paimon type", dt)
	}
	t.Nullable = nullable
	return t, nil
}

// NarrowedType is the type a top-level large_string / string_view /
// large_binary / binary_view column is converted to before writing (string
// or binary: the values are kept, pandas' pyarrow strings arrive as
// large_string); ok is false for other types.
func NarrowedType(dt arrow.DataType) (arrow.DataType, bool) {
	switch dt.ID() {
	case arrow.LARGE_STRING, arrow.STRING_VIEW:
		return arrow.BinaryTypes.String, true
	case arrow.LARGE_BINARY, arrow.BINARY_VIEW:
		return arrow.BinaryTypes.Binary, true
	}
	return nil, false
}

// FieldsFromArrow maps the columns of an Arrow schema to Paimon fields
// (PaimonType after NarrowedType; a non-nullable column is NOT NULL).
func FieldsFromArrow(sc *arrow.Schema) ([]types.DataField, error) {
	if sc.NumFields() == 0 {
		return nil, paimon.Errorf(ErrInvalid, "no columns")
	}
	out := make([]types.DataField, sc.NumFields())
	for i, f := range sc.Fields() {
		dt := f.Type
		if nt, ok := NarrowedType(dt); ok {
			dt = nt
		}
		t, err := PaimonType(dt, f.Nullable)
		if err != nil {
			return nil, fmt.Errorf("column %s: %w", f.Name, err)
		}
		out[i] = types.DataField{Name: f.Name, Type: t}
	}
	return out, nil
}

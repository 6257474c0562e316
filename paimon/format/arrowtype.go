package format

import (
	"fmt"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// FieldIDKey is the Arrow field metadata key carrying the Paimon field id.
const FieldIDKey = "paimon.field_id"

// System field ids and names of primary-key data files (paimon-format.md §6.1).
const (
	// KeyFieldIDStart is added to a primary-key field's id to get the id of its
	// _KEY_ column (Integer.MAX_VALUE / 2).
	KeyFieldIDStart = 1073741823
	// SequenceNumberFieldID is the id of _SEQUENCE_NUMBER.
	SequenceNumberFieldID = 2147483646
	// ValueKindFieldID is the id of _VALUE_KIND.
	ValueKindFieldID = 2147483645

	// RowIDFieldID is the id of _ROW_ID (row tracking, SpecialFields.ROW_ID).
	RowIDFieldID = 2147483642

	KeyFieldPrefix          = "_KEY_"
	RowIDFieldName          = "_ROW_ID"
	SequenceNumberFieldName = "_SEQUENCE_NUMBER"
	ValueKindFieldName      = "_VALUE_KIND"
)

// SequenceNumberField is the _SEQUENCE_NUMBER system column (BIGINT NOT NULL).
// Add it to ReadOptions.Fields to read it from a primary-key data file.
func SequenceNumberField() types.DataField {
	return types.DataField{ID: SequenceNumberFieldID, Name: SequenceNumberFieldName, Type: types.NewBigInt().NotNull()}
}

// ValueKindField is the _VALUE_KIND system column (TINYINT NOT NULL; 0 +I, 1 -U, 2 +U, 3 -D).
func ValueKindField() types.DataField {
	return types.DataField{ID: ValueKindFieldID, Name: ValueKindFieldName, Type: types.NewTinyInt().NotNull()}
}

// RowIDField is the _ROW_ID column of a row-tracking table, as read from a
// data file: nullable BIGINT, all NULL when the file does not store it (the
// reader then derives it from the file's first row id and the row position).
func RowIDField() types.DataField {
	return types.DataField{ID: RowIDFieldID, Name: RowIDFieldName, Type: types.NewBigInt()}
}

// RowTrackingSequenceField is the _SEQUENCE_NUMBER column of a row-tracking
// table, as read from a data file: nullable BIGINT, all NULL when the file
// does not store it (unlike SequenceNumberField, whose absence is an error).
func RowTrackingSequenceField() types.DataField {
	return types.DataField{ID: SequenceNumberFieldID, Name: SequenceNumberFieldName, Type: types.NewBigInt()}
}

// isRowTrackingField reports whether fd is RowIDField or RowTrackingSequenceField.
func isRowTrackingField(fd types.DataField) bool {
	return fd.ID == RowIDFieldID || (fd.ID == SequenceNumberFieldID && fd.Type.Nullable)
}

// KeyField is the _KEY_<name> system column of primary-key field pk (the
// field as declared in the table's current schema). When a file has no _KEY_
// columns (data-file.thin-mode) the reader falls back to the value column.
func KeyField(pk types.DataField) types.DataField {
	return types.DataField{ID: pk.ID + KeyFieldIDStart, Name: KeyFieldPrefix + pk.Name, Type: pk.Type.NotNull()}
}

// IsSystemFieldID reports whether id is a _KEY_, _SEQUENCE_NUMBER or _VALUE_KIND id.
func IsSystemFieldID(id int) bool {
	return id == SequenceNumberFieldID || id == ValueKindFieldID || (id >= KeyFieldIDStart && id < RowIDFieldID)
}

// TimestampUnit is the Arrow unit used for a TIMESTAMP / TIMESTAMP_LTZ of the
// given precision: 0..3 → ms, 4..6 → µs, 7..9 → ns. It is the unit Parquet
// stores for that precision, so no precision is lost and no conversion is
// needed on the common path.
func TimestampUnit(precision int) arrow.TimeUnit {
	switch {
	case precision <= 3:
		return arrow.Millisecond
	case precision <= 6:
		return arrow.Microsecond
	}
	return arrow.Nanosecond
}

// ArrowType returns the Arrow type a Paimon type is read as:
//
//	BOOLEAN → Boolean; TINYINT/SMALLINT/INT/BIGINT → Int8/16/32/64;
//	FLOAT/DOUBLE → Float32/64; DECIMAL(p,s) → Decimal128(p,s);
//	CHAR/VARCHAR → String; BINARY/VARBINARY/BLOB → Binary; DATE → Date32;
//	TIME → Time32(ms); TIMESTAMP(p) → Timestamp(TimestampUnit(p)) without zone;
//	TIMESTAMP(p) WITH LOCAL TIME ZONE → Timestamp(TimestampUnit(p), "UTC");
//	ARRAY<T> → List<element: T>; MAP<K,V> → Map<K,V>; ROW → Struct;
//	MULTISET<T> → Map<T, Int32 not null>; VARIANT → Struct<value, metadata: Binary>.
//
// Nested fields carry their Paimon field id in metadata (FieldIDKey).
func ArrowType(t types.DataType) arrow.DataType {
	switch t.Root {
	case types.Boolean:
		return arrow.FixedWidthTypes.Boolean
	case types.TinyInt:
		return arrow.PrimitiveTypes.Int8
	case types.SmallInt:
		return arrow.PrimitiveTypes.Int16
	case types.Int:
		return arrow.PrimitiveTypes.Int32
	case types.BigInt:
		return arrow.PrimitiveTypes.Int64
	case types.Float:
		return arrow.PrimitiveTypes.Float32
	case types.Double:
		return arrow.PrimitiveTypes.Float64
	case types.Decimal:
		return &arrow.Decimal128Type{Precision: int32(t.Precision), Scale: int32(t.Scale)}
	case types.Char, types.VarChar:
		return arrow.BinaryTypes.String
	case types.Binary, types.VarBinary, types.Blob:
		return arrow.BinaryTypes.Binary
	case types.Date:
		return arrow.FixedWidthTypes.Date32
	case types.Time:
		return arrow.FixedWidthTypes.Time32ms
	case types.Timestamp:
		return &arrow.TimestampType{Unit: TimestampUnit(t.Precision)}
	case types.TimestampLTZ:
		return &arrow.TimestampType{Unit: TimestampUnit(t.Precision), TimeZone: "UTC"}
	case types.Array, types.Vector:
		return arrow.ListOfField(arrow.Field{Name: "element", Type: ArrowType(*t.Element), Nullable: t.Element.Nullable})
	case types.Map:
		m := arrow.MapOf(ArrowType(*t.Key), ArrowType(*t.Value))
		m.SetItemNullable(t.Value.Nullable)
		return m
	case types.Multiset:
		m := arrow.MapOf(ArrowType(*t.Element), arrow.PrimitiveTypes.Int32)
		m.SetItemNullable(false)
		return m
	case types.Row:
		fs := make([]arrow.Field, len(t.Fields))
		for i, f := range t.Fields {
			fs[i] = ArrowField(f)
		}
		return arrow.StructOf(fs...)
	case types.Variant:
		return arrow.StructOf(
			arrow.Field{Name: "value", Type: arrow.BinaryTypes.Binary},
			arrow.Field{Name: "metadata", Type: arrow.BinaryTypes.Binary})
	}
	panic(fmt.Sprintf("format: no Arrow type for Paimon type %s", t))
}

// ArrowField returns the Arrow field for a Paimon field: its name, ArrowType,
// nullability and the field id under FieldIDKey.
func ArrowField(f types.DataField) arrow.Field {
	return arrow.Field{
		Name:     f.Name,
		Type:     ArrowType(f.Type),
		Nullable: f.Type.Nullable,
		Metadata: arrow.NewMetadata([]string{FieldIDKey}, []string{strconv.Itoa(f.ID)}),
	}
}

// ArrowSchema returns the Arrow schema of records read with the given fields.
func ArrowSchema(fields []types.DataField) *arrow.Schema {
	fs := make([]arrow.Field, len(fields))
	for i, f := range fields {
		fs[i] = ArrowField(f)
	}
	return arrow.NewSchema(fs, nil)
}

// FieldID returns the Paimon field id stored in an Arrow field's metadata.
func FieldID(f arrow.Field) (int, bool) {
	v, ok := f.Metadata.GetValue(FieldIDKey)
	if !ok {
		return 0, false
	}
	id, err := strconv.Atoi(v)
	return id, err == nil
}

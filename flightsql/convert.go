package flightsql

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Only classic Arrow types go on the wire: Utf8View and BinaryView become
// Utf8 and Binary (also inside lists, structs and maps), because the JDBC
// driver before v18, flightsql-dbapi and old pyarrow cannot read views.

func needsClassic(dt arrow.DataType) bool {
	switch t := dt.(type) {
	case *arrow.StringViewType, *arrow.BinaryViewType, *arrow.ListViewType, *arrow.LargeListViewType:
		return true
	case arrow.NestedType:
		for _, f := range t.Fields() {
			if needsClassic(f.Type) {
				return true
			}
		}
	}
	return false
}

func classicType(dt arrow.DataType) arrow.DataType {
	if !needsClassic(dt) {
		return dt
	}
	switch t := dt.(type) {
	case *arrow.StringViewType:
		return arrow.BinaryTypes.String
	case *arrow.BinaryViewType:
		return arrow.BinaryTypes.Binary
	case *arrow.ListViewType:
		return arrow.ListOfField(classicField(t.ElemField()))
	case *arrow.LargeListViewType:
		return arrow.LargeListOfField(classicField(t.ElemField()))
	case *arrow.ListType:
		return arrow.ListOfField(classicField(t.ElemField()))
	case *arrow.LargeListType:
		return arrow.LargeListOfField(classicField(t.ElemField()))
	case *arrow.FixedSizeListType:
		return arrow.FixedSizeListOfField(t.Len(), classicField(t.ElemField()))
	case *arrow.MapType:
		m := arrow.MapOfFields(classicField(t.KeyField()), classicField(t.ItemField()))
		m.KeysSorted = t.KeysSorted
		return m
	case *arrow.StructType:
		fields := make([]arrow.Field, t.NumFields())
		for i, f := range t.Fields() {
			fields[i] = classicField(f)
		}
		return arrow.StructOf(fields...)
	}
	return dt
}

func classicField(f arrow.Field) arrow.Field {
	f.Type = classicType(f.Type)
	return f
}

// resultSchema is the wire schema of a query result: classic types, plus
// ARROW:FLIGHT:SQL:TYPE_NAME (and precision/scale) for JDBC's
// ResultSetMetaData when the engine did not set column metadata itself.
func resultSchema(sc *arrow.Schema) *arrow.Schema {
	if sc == nil {
		return arrow.NewSchema(nil, nil)
	}
	fields := make([]arrow.Field, sc.NumFields())
	for i, f := range sc.Fields() {
		f = classicField(f)
		if f.Metadata.FindKey(flightsql.TypeNameKey) < 0 {
			var b flightsql.ColumnMetadataBuilder
			addTypeMetadata(&b, f)
			md := b.Metadata()
			keys := append(append([]string{}, f.Metadata.Keys()...), md.Keys()...)
			vals := append(append([]string{}, f.Metadata.Values()...), md.Values()...)
			f.Metadata = arrow.NewMetadata(keys, vals)
		}
		fields[i] = f
	}
	md := sc.Metadata()
	return arrow.NewSchema(fields, &md)
}

// paimonTypeKey is the field metadata key under which scans record the
// Paimon SQL type of a column ("CHAR(1)", "VARCHAR(44) NOT NULL").
const paimonTypeKey = "paimon.type"

// sizedType matches the Paimon types that carry a length.
var sizedType = regexp.MustCompile(`^(CHAR|VARCHAR|BINARY|VARBINARY)\((\d+)\)$`)

// addTypeMetadata sets the SQL type name, precision and scale of a column
// (JDBC's getColumnTypeName, getPrecision and getScale): the Paimon type
// when the column comes straight from a table (CHAR(1), VARCHAR(44)),
// otherwise the name of its Arrow type. Precision is the number of digits
// of numbers, the length of character and binary columns (2147483647 for
// STRING/BYTES) and the fractional digits of timestamps.
func addTypeMetadata(b *flightsql.ColumnMetadataBuilder, f arrow.Field) {
	dt := f.Type
	name := sqlTypeName(dt)
	if pt, ok := f.Metadata.GetValue(paimonTypeKey); ok && pt != "" {
		name = strings.TrimSuffix(pt, " NOT NULL")
	}
	b.TypeName(name)
	switch t := dt.(type) {
	case arrow.DecimalType:
		b.Precision(t.GetPrecision()).Scale(t.GetScale())
	case *arrow.Int8Type:
		b.Precision(3).Scale(0)
	case *arrow.Int16Type:
		b.Precision(5).Scale(0)
	case *arrow.Int32Type:
		b.Precision(10).Scale(0)
	case *arrow.Int64Type:
		b.Precision(19).Scale(0)
	case *arrow.Float32Type:
		b.Precision(7)
	case *arrow.Float64Type:
		b.Precision(15)
	case *arrow.Date32Type, *arrow.Date64Type:
		b.Precision(10)
	case *arrow.StringType, *arrow.LargeStringType, *arrow.StringViewType,
		*arrow.BinaryType, *arrow.LargeBinaryType, *arrow.BinaryViewType:
		n := int64(math.MaxInt32)
		if m := sizedType.FindStringSubmatch(name); m != nil {
			if v, err := strconv.ParseInt(m[2], 10, 32); err == nil {
				n = v
			}
		}
		b.Precision(int32(n))
	case *arrow.TimestampType:
		b.Precision(int32(precisionOfUnit(t.Unit)))
	case *arrow.FixedSizeBinaryType:
		b.Precision(int32(t.ByteWidth))
	}
}

func precisionOfUnit(u arrow.TimeUnit) int {
	return [...]int{0, 3, 6, 9}[u]
}

// sqlTypeName names an Arrow type the way Paimon SQL does.
func sqlTypeName(dt arrow.DataType) string {
	switch t := dt.(type) {
	case *arrow.BooleanType:
		return "BOOLEAN"
	case *arrow.Int8Type:
		return "TINYINT"
	case *arrow.Int16Type:
		return "SMALLINT"
	case *arrow.Int32Type:
		return "INT"
	case *arrow.Int64Type:
		return "BIGINT"
	case *arrow.Float32Type:
		return "FLOAT"
	case *arrow.Float64Type:
		return "DOUBLE"
	case arrow.DecimalType:
		return "DECIMAL(" + strconv.Itoa(int(t.GetPrecision())) + ", " + strconv.Itoa(int(t.GetScale())) + ")"
	case *arrow.StringType, *arrow.LargeStringType, *arrow.StringViewType:
		return "STRING"
	case *arrow.BinaryType, *arrow.LargeBinaryType, *arrow.BinaryViewType:
		return "BYTES"
	case *arrow.FixedSizeBinaryType:
		return "BINARY(" + strconv.Itoa(t.ByteWidth) + ")"
	case *arrow.Date32Type, *arrow.Date64Type:
		return "DATE"
	case *arrow.Time32Type, *arrow.Time64Type:
		return "TIME"
	case *arrow.TimestampType:
		if t.TimeZone != "" {
			return "TIMESTAMP_LTZ(" + strconv.Itoa(precisionOfUnit(t.Unit)) + ")"
		}
		return "TIMESTAMP(" + strconv.Itoa(precisionOfUnit(t.Unit)) + ")"
	case *arrow.ListType, *arrow.LargeListType, *arrow.FixedSizeListType:
		return "ARRAY<" + sqlTypeName(t.(arrow.ListLikeType).Elem()) + ">"
	case *arrow.MapType:
		return "MAP<" + sqlTypeName(t.KeyType()) + ", " + sqlTypeName(t.ItemType()) + ">"
	case *arrow.StructType:
		return "ROW"
	case *arrow.NullType:
		return "NULL"
	}
	return dt.String()
}

// toClassicRecord rebuilds rec under the wire schema sc, converting view
// columns. The result is a new reference the caller must release.
func toClassicRecord(mem memory.Allocator, sc *arrow.Schema, rec arrow.RecordBatch) (arrow.RecordBatch, error) {
	if int(rec.NumCols()) != sc.NumFields() {
		return nil, fmt.Errorf("engine returned a batch with %d columns, the plan declared %d", rec.NumCols(), sc.NumFields())
	}
	cols := make([]arrow.Array, rec.NumCols())
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	for i, col := range rec.Columns() {
		want := sc.Field(i).Type
		c, err := toClassicArray(mem, col)
		if err != nil {
			return nil, fmt.Errorf("column %s: %w", sc.Field(i).Name, err)
		}
		cols[i] = c
		if !arrow.TypeEqual(c.DataType(), want) {
			return nil, fmt.Errorf("engine returned column %s as %s, the plan declared %s", sc.Field(i).Name, c.DataType(), want)
		}
	}
	return array.NewRecordBatch(sc, cols, rec.NumRows()), nil
}

// toClassicArray returns arr with view types converted (a new reference).
func toClassicArray(mem memory.Allocator, arr arrow.Array) (arrow.Array, error) {
	if !needsClassic(arr.DataType()) {
		arr.Retain()
		return arr, nil
	}
	d, err := toClassicData(mem, arr.Data())
	if err != nil {
		return nil, err
	}
	defer d.Release()
	return array.MakeFromData(d), nil
}

func toClassicData(mem memory.Allocator, d arrow.ArrayData) (arrow.ArrayData, error) {
	if !needsClassic(d.DataType()) {
		d.Retain()
		return d, nil
	}
	switch d.DataType().ID() {
	case arrow.STRING_VIEW:
		a := array.NewStringViewData(d)
		defer a.Release()
		b := array.NewStringBuilder(mem)
		defer b.Release()
		b.Reserve(a.Len())
		for i := 0; i < a.Len(); i++ {
			if a.IsNull(i) {
				b.AppendNull()
			} else {
				b.Append(a.Value(i))
			}
		}
		arr := b.NewArray()
		defer arr.Release()
		arr.Data().Retain()
		return arr.Data(), nil
	case arrow.BINARY_VIEW:
		a := array.NewBinaryViewData(d)
		defer a.Release()
		b := array.NewBinaryBuilder(mem, arrow.BinaryTypes.Binary)
		defer b.Release()
		b.Reserve(a.Len())
		for i := 0; i < a.Len(); i++ {
			if a.IsNull(i) {
				b.AppendNull()
			} else {
				b.Append(a.Value(i))
			}
		}
		arr := b.NewArray()
		defer arr.Release()
		arr.Data().Retain()
		return arr.Data(), nil
	case arrow.LIST, arrow.LARGE_LIST, arrow.FIXED_SIZE_LIST, arrow.MAP, arrow.STRUCT:
		children := make([]arrow.ArrayData, len(d.Children()))
		for i, c := range d.Children() {
			cc, err := toClassicData(mem, c)
			if err != nil {
				for _, done := range children[:i] {
					done.Release()
				}
				return nil, err
			}
			children[i] = cc
		}
		out := array.NewData(classicType(d.DataType()), d.Len(), d.Buffers(), children, d.NullN(), d.Offset())
		for _, c := range children {
			c.Release()
		}
		return out, nil
	}
	return nil, fmt.Errorf("cannot convert %s to a classic Arrow type", d.DataType())
}

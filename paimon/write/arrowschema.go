package write

import (
	"context"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/paimon/format"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

const parquetFieldIDKey = "PARQUET:field_id"

// Parquet nested field ids (SpecialFields, paimon-format.md §12).
func listElementID(fieldID, depth int) int { return 536870911 + fieldID*1024 + depth }
func mapKeyID(fieldID, depth int) int      { return 536870911 - fieldID*1024 - depth }
func mapValueID(fieldID, depth int) int    { return 536870911 + fieldID*1024 + depth }

func idMeta(id int) arrow.Metadata {
	return arrow.NewMetadata([]string{parquetFieldIDKey}, []string{strconv.Itoa(id)})
}

// writeType is the Arrow type a Paimon type is written from: the reader's
// type (format.ArrowType) with Parquet field ids on every nested field.
func writeType(t types.DataType, fieldID, depth int) arrow.DataType {
	switch t.Root {
	case types.Array:
		e := *t.Element
		return arrow.ListOfField(arrow.Field{Name: "element", Type: writeType(e, fieldID, depth+1),
			Nullable: e.Nullable, Metadata: idMeta(listElementID(fieldID, depth))})
	case types.Map:
		k, v := *t.Key, *t.Value
		m := arrow.MapOfWithMetadata(writeType(k, fieldID, depth+1), idMeta(mapKeyID(fieldID, depth)),
			writeType(v, fieldID, depth+1), idMeta(mapValueID(fieldID, depth)))
		m.SetItemNullable(v.Nullable)
		return m
	case types.Multiset:
		e := *t.Element
		m := arrow.MapOfWithMetadata(writeType(e, fieldID, depth+1), idMeta(mapKeyID(fieldID, depth)),
			arrow.PrimitiveTypes.Int32, idMeta(mapValueID(fieldID, depth)))
		m.SetItemNullable(false)
		return m
	case types.Row:
		fs := make([]arrow.Field, len(t.Fields))
		for i, f := range t.Fields {
			fs[i] = writeField(f)
		}
		return arrow.StructOf(fs...)
	}
	return format.ArrowType(t)
}

func writeField(f types.DataField) arrow.Field {
	return arrow.Field{Name: f.Name, Type: writeType(f.Type, f.ID, 1), Nullable: f.Type.Nullable, Metadata: idMeta(f.ID)}
}

func writeSchema(fields []types.DataField) *arrow.Schema {
	fs := make([]arrow.Field, len(fields))
	for i, f := range fields {
		fs[i] = writeField(f)
	}
	return arrow.NewSchema(fs, nil)
}

// sameLayout reports whether two Arrow types have the same physical layout
// (equal ignoring field names, nullability flags and metadata).
func sameLayout(a, b arrow.DataType) bool {
	if a.ID() != b.ID() {
		return false
	}
	switch x := a.(type) {
	case *arrow.ListType:
		return sameLayout(x.Elem(), b.(*arrow.ListType).Elem())
	case *arrow.MapType:
		y := b.(*arrow.MapType)
		return sameLayout(x.KeyType(), y.KeyType()) && sameLayout(x.ItemType(), y.ItemType())
	case *arrow.StructType:
		y := b.(*arrow.StructType)
		if x.NumFields() != y.NumFields() {
			return false
		}
		for i := 0; i < x.NumFields(); i++ {
			if !sameLayout(x.Field(i).Type, y.Field(i).Type) {
				return false
			}
		}
		return true
	}
	return arrow.TypeEqual(a, b)
}

// retype returns arr viewed as type dt (same layout, different names or
// metadata), or cast to dt for primitive types. The result is a new
// reference the caller must release.
func retype(mem memory.Allocator, arr arrow.Array, dt arrow.DataType, col string) (arrow.Array, error) {
	if arrow.TypeEqual(arr.DataType(), dt, arrow.CheckMetadata()) {
		arr.Retain()
		return arr, nil
	}
	if sameLayout(arr.DataType(), dt) {
		d := rebuildData(arr.Data(), dt)
		defer d.Release()
		return array.MakeFromData(d), nil
	}
	switch dt.ID() {
	case arrow.LIST, arrow.MAP, arrow.STRUCT:
		return nil, invalidf("column %q: got Arrow type %s, want %s", col, arr.DataType(), dt)
	}
	ctx := compute.WithAllocator(context.Background(), mem)
	out, err := compute.CastArray(ctx, arr, compute.SafeCastOptions(dt))
	if err != nil {
		return nil, invalidf("column %q: cannot convert Arrow type %s to %s: %v", col, arr.DataType(), dt, err)
	}
	return out, nil
}

// rebuildData rebuilds d (recursively) with type dt; buffers are shared.
func rebuildData(d arrow.ArrayData, dt arrow.DataType) arrow.ArrayData {
	children := d.Children()
	var newChildren []arrow.ArrayData
	switch x := dt.(type) {
	case *arrow.MapType:
		newChildren = []arrow.ArrayData{rebuildData(children[0], x.Elem())}
	case *arrow.ListType:
		newChildren = []arrow.ArrayData{rebuildData(children[0], x.Elem())}
	case *arrow.StructType:
		for i, c := range children {
			newChildren = append(newChildren, rebuildData(c, x.Field(i).Type))
		}
	default:
		for _, c := range children {
			c.Retain()
			newChildren = append(newChildren, c)
		}
	}
	out := array.NewData(dt, d.Len(), d.Buffers(), newChildren, d.NullN(), d.Offset())
	for _, c := range newChildren {
		c.Release()
	}
	return out
}

// conformRecord maps an input record onto the table's columns (by name),
// converting types to the write schema. Missing nullable columns become
// NULL; a missing NOT NULL column, an unknown column or a NULL in a NOT NULL
// column is an error naming the column. extra names columns to pass through
// (returned separately, retained).
func conformRecord(mem memory.Allocator, rec arrow.RecordBatch, fields []types.DataField, sc *arrow.Schema, extra string) ([]arrow.Array, arrow.Array, error) {
	n := int(rec.NumRows())
	cols := make([]arrow.Array, len(fields))
	release := func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}
	known := map[string]bool{extra: extra != ""}
	for _, f := range fields {
		known[f.Name] = true
	}
	for i, f := range rec.Schema().Fields() {
		if !known[f.Name] {
			return nil, nil, invalidf("column %q is not a column of the table", rec.Schema().Field(i).Name)
		}
	}
	var extraCol arrow.Array
	for i, f := range fields {
		idx := rec.Schema().FieldIndices(f.Name)
		if len(idx) == 0 {
			if !f.Type.Nullable {
				release()
				return nil, nil, invalidf("column %q is NOT NULL but missing from the input", f.Name)
			}
			cols[i] = array.MakeArrayOfNull(mem, sc.Field(i).Type, n)
			continue
		}
		if len(idx) > 1 {
			release()
			return nil, nil, invalidf("column %q appears more than once in the input", f.Name)
		}
		src := rec.Column(idx[0])
		if !f.Type.Nullable && src.NullN() > 0 {
			release()
			return nil, nil, invalidf("column %q is NOT NULL but the input has %d NULL values", f.Name, src.NullN())
		}
		c, err := retype(mem, src, sc.Field(i).Type, f.Name)
		if err != nil {
			release()
			return nil, nil, err
		}
		cols[i] = c
	}
	if extra != "" {
		if idx := rec.Schema().FieldIndices(extra); len(idx) == 1 {
			extraCol = rec.Column(idx[0])
			extraCol.Retain()
		}
	}
	return cols, extraCol, nil
}

package format

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// adapt converts an array decoded from the file (whose Paimon type in the
// file's schema version is fileType) to ArrowType(target): nested fields are
// matched by field id, missing nested fields become NULL, primitive types
// changed by ALTER TABLE are cast with Java's semantics (javaCast), and
// same-type arrays in another Arrow layout are converted or re-labelled
// (timestamp zone). The result is a new
// reference the caller must release; arr is not released.
func adapt(ctx context.Context, mem memory.Allocator, arr arrow.Array, fileType, target types.DataType) (arrow.Array, error) {
	d, err := adaptData(ctx, mem, arr.Data(), fileType, target)
	if err != nil {
		return nil, err
	}
	defer d.Release()
	return array.MakeFromData(d), nil
}

// adaptData works on ArrayData so that children keep the parent's offset
// semantics (struct children are not sliced by the parent offset).
func adaptData(ctx context.Context, mem memory.Allocator, d arrow.ArrayData, fileType, target types.DataType) (arrow.ArrayData, error) {
	want := ArrowType(target)
	switch target.Root {
	case types.Row:
		src, ok := d.DataType().(*arrow.StructType)
		if !ok || fileType.Root != types.Row {
			return nil, fmt.Errorf("cannot read %s as %s", d.DataType(), target)
		}
		byID := make(map[int]types.DataField, len(fileType.Fields))
		for _, f := range fileType.Fields {
			byID[f.ID] = f
		}
		children := make([]arrow.ArrayData, len(target.Fields))
		defer releaseData(children)
		for i, tf := range target.Fields {
			ff, ok := byID[tf.ID]
			var idx int
			if ok {
				idx, ok = src.FieldIdx(ff.Name)
			}
			if !ok {
				// Field added after the file was written.
				nullArr := array.MakeArrayOfNull(mem, ArrowType(tf.Type), d.Offset()+d.Len())
				children[i] = nullArr.Data()
				children[i].Retain()
				nullArr.Release()
				continue
			}
			c, err := adaptData(ctx, mem, d.Children()[idx], ff.Type, tf.Type)
			if err != nil {
				return nil, fmt.Errorf("field %s: %w", tf.Name, err)
			}
			children[i] = c
		}
		return array.NewData(want, d.Len(), d.Buffers()[:1], children, d.NullN(), d.Offset()), nil

	case types.Array, types.Vector:
		if fileType.Root != types.Array && fileType.Root != types.Vector {
			return nil, fmt.Errorf("cannot read %s as %s", fileType, target)
		}
		switch d.DataType().ID() {
		case arrow.LIST, arrow.LARGE_LIST, arrow.FIXED_SIZE_LIST:
		default:
			return nil, fmt.Errorf("cannot read %s as %s", d.DataType(), target)
		}
		if d.DataType().ID() != arrow.LIST {
			return castData(ctx, mem, d, want)
		}
		c, err := adaptData(ctx, mem, d.Children()[0], *fileType.Element, *target.Element)
		if err != nil {
			return nil, err
		}
		defer c.Release()
		return array.NewData(want, d.Len(), d.Buffers(), []arrow.ArrayData{c}, d.NullN(), d.Offset()), nil

	case types.Map, types.Multiset:
		if d.DataType().ID() != arrow.MAP {
			return nil, fmt.Errorf("cannot read %s as %s", d.DataType(), target)
		}
		fk, fv := mapKV(fileType)
		tk, tv := mapKV(target)
		if fk == nil {
			return nil, fmt.Errorf("cannot read %s as %s", fileType, target)
		}
		entries := d.Children()[0]
		k, err := adaptData(ctx, mem, entries.Children()[0], *fk, *tk)
		if err != nil {
			return nil, err
		}
		defer k.Release()
		v, err := adaptData(ctx, mem, entries.Children()[1], *fv, *tv)
		if err != nil {
			return nil, err
		}
		defer v.Release()
		mt := want.(*arrow.MapType)
		e := array.NewData(mt.Elem(), entries.Len(), entries.Buffers()[:1], []arrow.ArrayData{k, v}, entries.NullN(), entries.Offset())
		defer e.Release()
		return array.NewData(want, d.Len(), d.Buffers(), []arrow.ArrayData{e}, d.NullN(), d.Offset()), nil
	}

	if !fileType.Equal(target.WithNullable(fileType.Nullable)) && !(fileType.Root == types.Time && target.Root == types.Time) &&
		!exactWidening(fileType, target) {
		// A type change by ALTER TABLE: Java's cast semantics (cast.go).
		in := array.MakeFromData(d)
		defer in.Release()
		out, err := javaCast(mem, in, fileType, target)
		if err != nil {
			return nil, err
		}
		defer out.Release()
		od := out.Data()
		od.Retain()
		return od, nil
	}
	got := d.DataType()
	if arrow.TypeEqual(got, want) {
		d.Retain()
		return d, nil
	}
	// Same timestamp unit, different zone label (e.g. INT96 or legacy
	// converted types): the stored values are already the right numbers.
	if gt, ok := got.(*arrow.TimestampType); ok {
		if wt, ok := want.(*arrow.TimestampType); ok && gt.Unit == wt.Unit {
			return array.NewData(want, d.Len(), d.Buffers(), nil, d.NullN(), d.Offset()), nil
		}
	}
	return castData(ctx, mem, d, want)
}

// exactWidening reports whether every value of type from is represented
// exactly and unchanged in type to, so that Java's cast is the identity on
// values and arrow compute's safe cast (vectorised) gives the same result:
// integer widening, TINYINT/SMALLINT/INT → DOUBLE, TINYINT/SMALLINT → FLOAT,
// FLOAT → DOUBLE, DECIMAL widening, VARCHAR growing, TIMESTAMP precision
// growing within the same kind.
func exactWidening(from, to types.DataType) bool {
	rank := map[types.Root]int{types.TinyInt: 1, types.SmallInt: 2, types.Int: 3, types.BigInt: 4}
	fr, tr := rank[from.Root], rank[to.Root]
	switch {
	case fr > 0 && tr > 0:
		return tr >= fr
	case fr > 0 && fr <= 3 && to.Root == types.Double, fr > 0 && fr <= 2 && to.Root == types.Float:
		return true
	case from.Root == types.Float && to.Root == types.Double:
		return true
	case from.Root == types.Decimal && to.Root == types.Decimal:
		return to.Scale >= from.Scale && to.Precision-to.Scale >= from.Precision-from.Scale
	case from.IsString() && to.Root == types.VarChar:
		return to.Length >= from.Length
	case (from.Root == types.Binary || from.Root == types.VarBinary) && to.Root == types.VarBinary:
		return to.Length >= from.Length
	case from.Root == to.Root && (from.Root == types.Timestamp || from.Root == types.TimestampLTZ):
		return to.Precision >= from.Precision
	}
	return false
}

func castData(ctx context.Context, mem memory.Allocator, d arrow.ArrayData, want arrow.DataType) (arrow.ArrayData, error) {
	in := array.MakeFromData(d)
	defer in.Release()
	out, err := compute.CastArray(compute.WithAllocator(ctx, mem), in, compute.SafeCastOptions(want))
	if err != nil {
		return nil, fmt.Errorf("cast %s to %s: %w", d.DataType(), want, err)
	}
	defer out.Release()
	od := out.Data()
	od.Retain()
	return od, nil
}

func mapKV(t types.DataType) (k, v *types.DataType) {
	switch t.Root {
	case types.Map:
		return t.Key, t.Value
	case types.Multiset:
		i := types.NewInt().NotNull()
		return t.Element, &i
	}
	return nil, nil
}

func releaseData(ds []arrow.ArrayData) {
	for _, d := range ds {
		if d != nil {
			d.Release()
		}
	}
}

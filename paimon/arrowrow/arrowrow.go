// Package arrowrow works with single values inside Arrow arrays: comparing
// them (for key-ordered merges), copying them between arrays and builders,
// and converting them to and from the Go value convention of
// paimon/predicate (nil, bool, int64, float64, string, []byte,
// predicate.Decimal, predicate.Timestamp, []any for lists and rows,
// MapValue for maps).
//
// These are the row-at-a-time primitives of the merge-on-read reader;
// Gather (gather.go) is its bulk path, copying runs of consecutive rows of
// several source arrays into one new array.
package arrowrow

import (
	"bytes"
	"cmp"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
)

// MapValue is the Go form of one MAP value: parallel key and value lists.
type MapValue struct {
	Keys   []any
	Values []any
}

// Compare orders a[i] against b[j]; both arrays must have the same Arrow
// type. NULL sorts before every value. Strings and binaries compare by
// unsigned bytes, as Paimon's key comparator does.
func Compare(a arrow.Array, i int, b arrow.Array, j int) int {
	an, bn := a.IsNull(i), b.IsNull(j)
	if an || bn {
		switch {
		case an && bn:
			return 0
		case an:
			return -1
		}
		return 1
	}
	if d, ok := a.(*array.Dictionary); ok {
		return Compare(d.Dictionary(), d.GetValueIndex(i), b, j)
	}
	if d, ok := b.(*array.Dictionary); ok {
		return Compare(a, i, d.Dictionary(), d.GetValueIndex(j))
	}
	switch x := a.(type) {
	case *array.Boolean:
		y := b.(*array.Boolean)
		return cmpBool(x.Value(i), y.Value(j))
	case *array.Int8:
		return cmp.Compare(x.Value(i), b.(*array.Int8).Value(j))
	case *array.Int16:
		return cmp.Compare(x.Value(i), b.(*array.Int16).Value(j))
	case *array.Int32:
		return cmp.Compare(x.Value(i), b.(*array.Int32).Value(j))
	case *array.Int64:
		return cmp.Compare(x.Value(i), b.(*array.Int64).Value(j))
	case *array.Float32:
		return cmp.Compare(x.Value(i), b.(*array.Float32).Value(j))
	case *array.Float64:
		return cmp.Compare(x.Value(i), b.(*array.Float64).Value(j))
	case *array.Date32:
		return cmp.Compare(x.Value(i), b.(*array.Date32).Value(j))
	case *array.Time32:
		return cmp.Compare(x.Value(i), b.(*array.Time32).Value(j))
	case *array.Time64:
		return cmp.Compare(x.Value(i), b.(*array.Time64).Value(j))
	case *array.Timestamp:
		return cmp.Compare(x.Value(i), b.(*array.Timestamp).Value(j))
	case *array.Decimal128:
		return x.Value(i).Cmp(b.(*array.Decimal128).Value(j))
	case *array.String:
		return cmp.Compare(x.Value(i), b.(*array.String).Value(j)) // Go strings compare as unsigned bytes
	case *array.Binary:
		return bytes.Compare(x.Value(i), b.(*array.Binary).Value(j))
	case *array.FixedSizeBinary:
		return bytes.Compare(x.Value(i), b.(*array.FixedSizeBinary).Value(j))
	}
	// Fallback for types that are never primary keys: compare rendered values.
	return cmp.Compare(a.ValueStr(i), b.ValueStr(j))
}

func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case !a:
		return -1
	}
	return 1
}

// AppendFrom appends src[i] to b. The builder's type must equal src's type,
// except that a dictionary-encoded src may feed a builder of its value type.
func AppendFrom(b array.Builder, src arrow.Array, i int) {
	if src.IsNull(i) {
		b.AppendNull()
		return
	}
	if d, ok := src.(*array.Dictionary); ok {
		AppendFrom(b, d.Dictionary(), d.GetValueIndex(i))
		return
	}
	switch x := src.(type) {
	case *array.Boolean:
		b.(*array.BooleanBuilder).Append(x.Value(i))
	case *array.Int8:
		b.(*array.Int8Builder).Append(x.Value(i))
	case *array.Int16:
		b.(*array.Int16Builder).Append(x.Value(i))
	case *array.Int32:
		b.(*array.Int32Builder).Append(x.Value(i))
	case *array.Int64:
		b.(*array.Int64Builder).Append(x.Value(i))
	case *array.Uint8:
		b.(*array.Uint8Builder).Append(x.Value(i))
	case *array.Uint16:
		b.(*array.Uint16Builder).Append(x.Value(i))
	case *array.Uint32:
		b.(*array.Uint32Builder).Append(x.Value(i))
	case *array.Uint64:
		b.(*array.Uint64Builder).Append(x.Value(i))
	case *array.Float32:
		b.(*array.Float32Builder).Append(x.Value(i))
	case *array.Float64:
		b.(*array.Float64Builder).Append(x.Value(i))
	case *array.Date32:
		b.(*array.Date32Builder).Append(x.Value(i))
	case *array.Date64:
		b.(*array.Date64Builder).Append(x.Value(i))
	case *array.Time32:
		b.(*array.Time32Builder).Append(x.Value(i))
	case *array.Time64:
		b.(*array.Time64Builder).Append(x.Value(i))
	case *array.Timestamp:
		b.(*array.TimestampBuilder).Append(x.Value(i))
	case *array.Decimal128:
		b.(*array.Decimal128Builder).Append(x.Value(i))
	case *array.String:
		b.(*array.StringBuilder).Append(x.Value(i))
	case *array.LargeString:
		b.(*array.LargeStringBuilder).Append(x.Value(i))
	case *array.Binary:
		b.(*array.BinaryBuilder).Append(x.Value(i))
	case *array.LargeBinary:
		b.(*array.BinaryBuilder).Append(x.Value(i))
	case *array.FixedSizeBinary:
		b.(*array.FixedSizeBinaryBuilder).Append(x.Value(i))
	case *array.Map: // before *array.List: Map embeds List
		mb := b.(*array.MapBuilder)
		mb.Append(true)
		start, end := x.ValueOffsets(i)
		keys, items := x.Keys(), x.Items()
		for j := int(start); j < int(end); j++ {
			AppendFrom(mb.KeyBuilder(), keys, j)
			AppendFrom(mb.ItemBuilder(), items, j)
		}
	case *array.List:
		lb := b.(*array.ListBuilder)
		lb.Append(true)
		start, end := x.ValueOffsets(i)
		vals := x.ListValues()
		for j := int(start); j < int(end); j++ {
			AppendFrom(lb.ValueBuilder(), vals, j)
		}
	case *array.LargeList:
		lb := b.(*array.LargeListBuilder)
		lb.Append(true)
		start, end := x.ValueOffsets(i)
		vals := x.ListValues()
		for j := int(start); j < int(end); j++ {
			AppendFrom(lb.ValueBuilder(), vals, j)
		}
	case *array.FixedSizeList:
		lb := b.(*array.FixedSizeListBuilder)
		lb.Append(true)
		n := int(x.DataType().(*arrow.FixedSizeListType).Len())
		vals := x.ListValues()
		for j := i * n; j < (i+1)*n; j++ {
			AppendFrom(lb.ValueBuilder(), vals, j)
		}
	case *array.Struct:
		sb := b.(*array.StructBuilder)
		sb.Append(true)
		for f := 0; f < x.NumField(); f++ {
			AppendFrom(sb.FieldBuilder(f), x.Field(f), i)
		}
	case *array.Null:
		b.AppendNull()
	default:
		panic(fmt.Sprintf("arrowrow: unsupported array type %s", src.DataType()))
	}
}

// Value returns arr[i] in the predicate literal convention. Timestamps are
// converted from the array's unit; dates to int64 days; times to int64 millis.
func Value(arr arrow.Array, i int) any {
	if arr.IsNull(i) {
		return nil
	}
	switch x := arr.(type) {
	case *array.Dictionary:
		return Value(x.Dictionary(), x.GetValueIndex(i))
	case *array.Boolean:
		return x.Value(i)
	case *array.Int8:
		return int64(x.Value(i))
	case *array.Int16:
		return int64(x.Value(i))
	case *array.Int32:
		return int64(x.Value(i))
	case *array.Int64:
		return x.Value(i)
	case *array.Float32:
		return float64(x.Value(i))
	case *array.Float64:
		return x.Value(i)
	case *array.Date32:
		return int64(x.Value(i))
	case *array.Time32:
		u := x.DataType().(*arrow.Time32Type).Unit
		return int64(x.Value(i)) * int64(u.Multiplier()) / 1e6
	case *array.Time64:
		u := x.DataType().(*arrow.Time64Type).Unit
		return int64(x.Value(i)) * int64(u.Multiplier()) / 1e6
	case *array.Timestamp:
		u := x.DataType().(*arrow.TimestampType).Unit
		return TimestampFromUnit(int64(x.Value(i)), u)
	case *array.Decimal128:
		t := x.DataType().(*arrow.Decimal128Type)
		return predicate.Decimal{Unscaled: x.Value(i).BigInt(), Scale: int(t.Scale)}
	case *array.String: // copied, like binary: Value points into the batch's buffer
		return strings.Clone(x.Value(i))
	case *array.LargeString:
		return strings.Clone(x.Value(i))
	case *array.Binary:
		return bytes.Clone(x.Value(i))
	case *array.FixedSizeBinary:
		return bytes.Clone(x.Value(i))
	case *array.Map:
		start, end := x.ValueOffsets(i)
		mv := MapValue{}
		for j := int(start); j < int(end); j++ {
			mv.Keys = append(mv.Keys, Value(x.Keys(), j))
			mv.Values = append(mv.Values, Value(x.Items(), j))
		}
		return mv
	case *array.List:
		start, end := x.ValueOffsets(i)
		out := make([]any, 0, end-start)
		for j := int(start); j < int(end); j++ {
			out = append(out, Value(x.ListValues(), j))
		}
		return out
	case *array.Struct:
		out := make([]any, x.NumField())
		for f := range out {
			out[f] = Value(x.Field(f), i)
		}
		return out
	}
	return arr.ValueStr(i)
}

// TimestampFromUnit converts v (in unit u since the epoch) to predicate.Timestamp.
func TimestampFromUnit(v int64, u arrow.TimeUnit) predicate.Timestamp {
	var ms, nanos int64
	switch u {
	case arrow.Second:
		ms = v * 1000
	case arrow.Millisecond:
		ms = v
	case arrow.Microsecond:
		ms, nanos = floorDivMod(v, 1000)
		nanos *= 1000
	default:
		ms, nanos = floorDivMod(v, 1_000_000)
	}
	return predicate.Timestamp{Millis: ms, NanoOfMilli: int32(nanos)}
}

// TimestampToUnit converts a predicate.Timestamp to an integer in unit u
// (truncating sub-unit digits toward negative infinity).
func TimestampToUnit(t predicate.Timestamp, u arrow.TimeUnit) int64 {
	switch u {
	case arrow.Second:
		s, _ := floorDivMod(t.Millis, 1000)
		return s
	case arrow.Millisecond:
		return t.Millis
	case arrow.Microsecond:
		return t.Millis*1000 + int64(t.NanoOfMilli)/1000
	}
	return t.Millis*1_000_000 + int64(t.NanoOfMilli)
}

func floorDivMod(v, d int64) (int64, int64) {
	q, r := v/d, v%d
	if r < 0 {
		q--
		r += d
	}
	return q, r
}

// AppendValue appends a Go value (predicate convention) to b, converting to
// the builder's type. It returns an error for values that do not fit.
func AppendValue(b array.Builder, v any) error {
	if v == nil {
		b.AppendNull()
		return nil
	}
	bad := func() error { return fmt.Errorf("cannot append %T value %v to %s column", v, v, b.Type()) }
	switch x := b.(type) {
	case *array.BooleanBuilder:
		bv, ok := v.(bool)
		if !ok {
			return bad()
		}
		x.Append(bv)
	case *array.Int8Builder:
		n, ok := v.(int64)
		if !ok {
			return bad()
		}
		x.Append(int8(n))
	case *array.Int16Builder:
		n, ok := v.(int64)
		if !ok {
			return bad()
		}
		x.Append(int16(n))
	case *array.Int32Builder:
		n, ok := v.(int64)
		if !ok {
			return bad()
		}
		x.Append(int32(n))
	case *array.Int64Builder:
		n, ok := v.(int64)
		if !ok {
			return bad()
		}
		x.Append(n)
	case *array.Float32Builder:
		f, ok := toFloat(v)
		if !ok {
			return bad()
		}
		x.Append(float32(f))
	case *array.Float64Builder:
		f, ok := toFloat(v)
		if !ok {
			return bad()
		}
		x.Append(f)
	case *array.Date32Builder:
		n, ok := v.(int64)
		if !ok {
			return bad()
		}
		x.Append(arrow.Date32(n))
	case *array.Time32Builder:
		n, ok := v.(int64)
		if !ok {
			return bad()
		}
		u := x.Type().(*arrow.Time32Type).Unit
		x.Append(arrow.Time32(n * 1e6 / int64(u.Multiplier())))
	case *array.Time64Builder:
		n, ok := v.(int64)
		if !ok {
			return bad()
		}
		u := x.Type().(*arrow.Time64Type).Unit
		x.Append(arrow.Time64(n * 1e6 / int64(u.Multiplier())))
	case *array.TimestampBuilder:
		t, ok := v.(predicate.Timestamp)
		if !ok {
			return bad()
		}
		x.Append(arrow.Timestamp(TimestampToUnit(t, x.Type().(*arrow.TimestampType).Unit)))
	case *array.Decimal128Builder:
		d, ok := v.(predicate.Decimal)
		if !ok {
			return bad()
		}
		dt := x.Type().(*arrow.Decimal128Type)
		u := d.Rescale(int(dt.Scale))
		if u.BitLen() > 127 {
			return fmt.Errorf("decimal %s overflows %s", d, dt)
		}
		x.Append(decimal128.FromBigInt(u))
	case *array.StringBuilder:
		s, ok := v.(string)
		if !ok {
			return bad()
		}
		x.Append(s)
	case *array.BinaryBuilder:
		switch bv := v.(type) {
		case []byte:
			x.Append(bv)
		case string:
			x.AppendString(bv)
		default:
			return bad()
		}
	case *array.FixedSizeBinaryBuilder:
		bv, ok := v.([]byte)
		if !ok {
			return bad()
		}
		x.Append(bv)
	case *array.MapBuilder:
		mv, ok := v.(MapValue)
		if !ok {
			return bad()
		}
		x.Append(true)
		for k := range mv.Keys {
			if err := AppendValue(x.KeyBuilder(), mv.Keys[k]); err != nil {
				return err
			}
			if err := AppendValue(x.ItemBuilder(), mv.Values[k]); err != nil {
				return err
			}
		}
	case *array.ListBuilder:
		lv, ok := v.([]any)
		if !ok {
			return bad()
		}
		x.Append(true)
		for _, e := range lv {
			if err := AppendValue(x.ValueBuilder(), e); err != nil {
				return err
			}
		}
	case *array.StructBuilder:
		rv, ok := v.([]any)
		if !ok || len(rv) != x.NumField() {
			return bad()
		}
		x.Append(true)
		for f, e := range rv {
			if err := AppendValue(x.FieldBuilder(f), e); err != nil {
				return err
			}
		}
	default:
		return bad()
	}
	return nil
}

func toFloat(v any) (float64, bool) {
	switch f := v.(type) {
	case float64:
		return f, true
	case int64:
		return float64(f), true
	}
	return 0, false
}

package format

import (
	"fmt"
	"math/big"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// source reads the values of an array of a given Paimon type, whatever its Arrow layout.
type source struct {
	int   func(int) int64
	float func(int) float64
	dec   func(int) (*big.Int, int)
	bool  func(int) bool
	str   func(int) string
	bytes func(int) []byte
	date  func(int) int32
	time  func(int) int32
	ts    func(int) javaTS
}

func newSource(arr arrow.Array, t types.DataType) (*source, error) {
	s := &source{}
	bad := fmt.Errorf("cannot read %s from Arrow %s", t, arr.DataType())
	switch familyOf(t.Root) {
	case famInt:
		switch a := arr.(type) {
		case *array.Int8:
			s.int = func(i int) int64 { return int64(a.Value(i)) }
		case *array.Int16:
			s.int = func(i int) int64 { return int64(a.Value(i)) }
		case *array.Int32:
			s.int = func(i int) int64 { return int64(a.Value(i)) }
		case *array.Int64:
			s.int = func(i int) int64 { return a.Value(i) }
		case *array.Uint8:
			s.int = func(i int) int64 { return int64(a.Value(i)) }
		case *array.Uint16:
			s.int = func(i int) int64 { return int64(a.Value(i)) }
		case *array.Uint32:
			s.int = func(i int) int64 { return int64(a.Value(i)) }
		default:
			return nil, bad
		}
	case famApprox:
		switch a := arr.(type) {
		case *array.Float32:
			s.float = func(i int) float64 { return float64(a.Value(i)) }
		case *array.Float64:
			s.float = func(i int) float64 { return a.Value(i) }
		default:
			return nil, bad
		}
	case famDecimal:
		switch a := arr.(type) {
		case *array.Decimal128:
			sc := int(a.DataType().(*arrow.Decimal128Type).Scale)
			s.dec = func(i int) (*big.Int, int) { return a.Value(i).BigInt(), sc }
		case *array.Decimal256:
			sc := int(a.DataType().(*arrow.Decimal256Type).Scale)
			s.dec = func(i int) (*big.Int, int) { return a.Value(i).BigInt(), sc }
		default:
			return nil, bad
		}
	case famBool:
		a, ok := arr.(*array.Boolean)
		if !ok {
			return nil, bad
		}
		s.bool = a.Value
	case famChar, famBinary:
		switch a := arr.(type) {
		case *array.String:
			s.str = a.Value
			s.bytes = func(i int) []byte { return []byte(a.Value(i)) }
		case *array.LargeString:
			s.str = a.Value
			s.bytes = func(i int) []byte { return []byte(a.Value(i)) }
		case *array.Binary:
			s.str = a.ValueString
			s.bytes = func(i int) []byte { return append([]byte(nil), a.Value(i)...) }
		case *array.LargeBinary:
			s.str = func(i int) string { return string(a.Value(i)) }
			s.bytes = func(i int) []byte { return append([]byte(nil), a.Value(i)...) }
		case *array.FixedSizeBinary:
			s.str = func(i int) string { return string(a.Value(i)) }
			s.bytes = func(i int) []byte { return append([]byte(nil), a.Value(i)...) }
		default:
			return nil, bad
		}
	case famDate:
		switch a := arr.(type) {
		case *array.Date32:
			s.date = func(i int) int32 { return int32(a.Value(i)) }
		case *array.Date64:
			s.date = func(i int) int32 { return int32(floorDiv(int64(a.Value(i)), millisPerDay)) }
		default:
			return nil, bad
		}
	case famTime:
		switch a := arr.(type) {
		case *array.Time32:
			mul := int32(1)
			if a.DataType().(*arrow.Time32Type).Unit == arrow.Second {
				mul = 1000
			}
			s.time = func(i int) int32 { return int32(a.Value(i)) * mul }
		case *array.Time64:
			div := int64(1000)
			if a.DataType().(*arrow.Time64Type).Unit == arrow.Nanosecond {
				div = 1000000
			}
			s.time = func(i int) int32 { return int32(floorDiv(int64(a.Value(i)), div)) }
		default:
			return nil, bad
		}
	case famTimestamp:
		a, ok := arr.(*array.Timestamp)
		if !ok {
			return nil, bad
		}
		unit := a.DataType().(*arrow.TimestampType).Unit
		s.ts = func(i int) javaTS { return tsFromUnit(int64(a.Value(i)), unit) }
	case famNested:
		// read by javaNestedString
	default:
		return nil, bad
	}
	return s, nil
}

func tsFromUnit(v int64, unit arrow.TimeUnit) javaTS {
	switch unit {
	case arrow.Second:
		return javaTS{millis: v * 1000}
	case arrow.Millisecond:
		return javaTS{millis: v}
	case arrow.Microsecond:
		ms := floorDiv(v, 1000)
		return javaTS{millis: ms, nanos: int32((v - ms*1000) * 1000)}
	}
	ms := floorDiv(v, 1000000)
	return javaTS{millis: ms, nanos: int32(v - ms*1000000)}
}

// javaNestedString writes ArrayToStringCastRule / MapToStringCastRule /
// RowToStringCastRule of element i of arr (type t): "[a, b]", "{k -> v}",
// "{a, b}", null elements as "null", elements cast to STRING by their own rule.
func javaNestedString(w *strings.Builder, arr arrow.Array, t types.DataType, i int) error {
	if arr.IsNull(i) {
		w.WriteString("null")
		return nil
	}
	switch t.Root {
	case types.Array:
		l, ok := arr.(array.ListLike)
		if !ok {
			return fmt.Errorf("cannot read %s from Arrow %s", t, arr.DataType())
		}
		start, end := l.ValueOffsets(i)
		w.WriteByte('[')
		for k := start; k < end; k++ {
			if err := javaElementString(w, l.ListValues(), *t.Element, int(k)); err != nil {
				return err
			}
			if k != end-1 {
				w.WriteString(", ")
			}
		}
		w.WriteByte(']')
		return nil
	case types.Map:
		m, ok := arr.(*array.Map)
		if !ok {
			return fmt.Errorf("cannot read %s from Arrow %s", t, arr.DataType())
		}
		start, end := m.ValueOffsets(i)
		w.WriteByte('{')
		for k := start; k < end; k++ {
			if err := javaElementString(w, m.Keys(), *t.Key, int(k)); err != nil {
				return err
			}
			w.WriteString(" -> ")
			if err := javaElementString(w, m.Items(), *t.Value, int(k)); err != nil {
				return err
			}
			if k != end-1 {
				w.WriteString(", ")
			}
		}
		w.WriteByte('}')
		return nil
	case types.Row:
		st, ok := arr.(*array.Struct)
		if !ok || st.NumField() != len(t.Fields) {
			return fmt.Errorf("cannot read %s from Arrow %s", t, arr.DataType())
		}
		w.WriteByte('{')
		for k, f := range t.Fields {
			if err := javaElementString(w, st.Field(k), f.Type, i); err != nil {
				return err
			}
			if k != len(t.Fields)-1 {
				w.WriteString(", ")
			}
		}
		w.WriteByte('}')
		return nil
	}
	return fmt.Errorf("cannot cast %s to STRING", t)
}

// javaElementString writes element i of arr cast to STRING (or "null").
func javaElementString(w *strings.Builder, arr arrow.Array, t types.DataType, i int) error {
	if arr.IsNull(i) {
		w.WriteString("null")
		return nil
	}
	if familyOf(t.Root) == famNested {
		return javaNestedString(w, arr, t, i)
	}
	if !CastAllowed(t, types.NewString()) {
		return fmt.Errorf("cannot cast %s to STRING", t)
	}
	b := array.NewStringBuilder(memory.DefaultAllocator)
	defer b.Release()
	conv, err := castFunc(arr, t, types.NewString(), b)
	if err != nil {
		return err
	}
	if err := conv(i); err != nil {
		return err
	}
	out := b.NewStringArray()
	defer out.Release()
	w.WriteString(out.Value(0))
	return nil
}

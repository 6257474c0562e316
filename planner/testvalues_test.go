package planner

// Test-only value helpers: the row-at-a-time value conventions the tests
// build inputs and render results with (formerly the old engine's values.go).

import (
	"bytes"
	stdcmp "cmp"
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
)

// Runtime values. Every bound expression has a static Arrow type; its
// values are Go values of one class:
//
//	cBool      bool
//	cInt       int64   (all integer widths)
//	cFloat     float64 (FLOAT and DOUBLE)
//	cString    string
//	cBinary    []byte
//	cDate      int64   days since 1970-01-01
//	cTimestamp int64   microseconds since the epoch (any unit/zone)
//	cDecimal   predicate.Decimal
//	cTime      int64   microseconds of the day
//	cNull      only nil (the type of a bare NULL literal)
//
// nil is SQL NULL in every class. Columns of other (nested) types can be
// projected and counted but not computed on.
type class int

const (
	cOther class = iota
	cNull
	cBool
	cInt
	cFloat
	cString
	cBinary
	cDate
	cTimestamp
	cDecimal
	cTime
)

func classOf(t arrow.DataType) class {
	switch t.ID() {
	case arrow.NULL:
		return cNull
	case arrow.BOOL:
		return cBool
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64:
		return cInt
	case arrow.FLOAT16, arrow.FLOAT32, arrow.FLOAT64:
		return cFloat
	case arrow.STRING, arrow.LARGE_STRING, arrow.STRING_VIEW:
		return cString
	case arrow.BINARY, arrow.LARGE_BINARY, arrow.FIXED_SIZE_BINARY, arrow.BINARY_VIEW:
		return cBinary
	case arrow.DATE32, arrow.DATE64:
		return cDate
	case arrow.TIMESTAMP:
		return cTimestamp
	case arrow.DECIMAL128:
		return cDecimal
	case arrow.TIME32, arrow.TIME64:
		return cTime
	}
	return cOther
}

func isNumeric(c class) bool { return c == cInt || c == cFloat || c == cDecimal }

// Canonical result types of computed expressions.
var (
	tBool   arrow.DataType = arrow.FixedWidthTypes.Boolean
	tInt    arrow.DataType = arrow.PrimitiveTypes.Int64
	tFloat  arrow.DataType = arrow.PrimitiveTypes.Float64
	tString arrow.DataType = arrow.BinaryTypes.String
	tBinary arrow.DataType = arrow.BinaryTypes.Binary
	tDate   arrow.DataType = arrow.FixedWidthTypes.Date32
	tTS     arrow.DataType = &arrow.TimestampType{Unit: arrow.Microsecond}
	tNull   arrow.DataType = arrow.Null
)

// getter returns a function reading row i of arr as a runtime value.
func getter(arr arrow.Array) (func(i int) any, error) {
	switch a := arr.(type) {
	case *array.Null:
		return func(int) any { return nil }, nil
	case *array.Boolean:
		return func(i int) any {
			if a.IsNull(i) {
				return nil
			}
			return a.Value(i)
		}, nil
	case *array.Int8:
		return intGetter(a, func(i int) int64 { return int64(a.Value(i)) }), nil
	case *array.Int16:
		return intGetter(a, func(i int) int64 { return int64(a.Value(i)) }), nil
	case *array.Int32:
		return intGetter(a, func(i int) int64 { return int64(a.Value(i)) }), nil
	case *array.Int64:
		return intGetter(a, func(i int) int64 { return a.Value(i) }), nil
	case *array.Uint8:
		return intGetter(a, func(i int) int64 { return int64(a.Value(i)) }), nil
	case *array.Uint16:
		return intGetter(a, func(i int) int64 { return int64(a.Value(i)) }), nil
	case *array.Uint32:
		return intGetter(a, func(i int) int64 { return int64(a.Value(i)) }), nil
	case *array.Uint64:
		return intGetter(a, func(i int) int64 { return int64(a.Value(i)) }), nil
	case *array.Float16:
		return func(i int) any {
			if a.IsNull(i) {
				return nil
			}
			return float64(a.Value(i).Float32())
		}, nil
	case *array.Float32:
		return func(i int) any {
			if a.IsNull(i) {
				return nil
			}
			return float64(a.Value(i))
		}, nil
	case *array.Float64:
		return func(i int) any {
			if a.IsNull(i) {
				return nil
			}
			return a.Value(i)
		}, nil
	// Strings and bytes are copied: Value points into the batch's buffer,
	// which the scan's buffer pool reuses once the batch is released, and
	// the row path keeps values (group keys, MIN/MAX, DISTINCT sets, sort
	// keys) across batches.
	case *array.String:
		return func(i int) any {
			if a.IsNull(i) {
				return nil
			}
			return strings.Clone(a.Value(i))
		}, nil
	case *array.LargeString:
		return func(i int) any {
			if a.IsNull(i) {
				return nil
			}
			return strings.Clone(a.Value(i))
		}, nil
	case *array.StringView:
		return func(i int) any {
			if a.IsNull(i) {
				return nil
			}
			return strings.Clone(a.Value(i))
		}, nil
	case *array.Binary:
		return func(i int) any {
			if a.IsNull(i) {
				return nil
			}
			return bytes.Clone(a.Value(i))
		}, nil
	case *array.LargeBinary:
		return func(i int) any {
			if a.IsNull(i) {
				return nil
			}
			return bytes.Clone(a.Value(i))
		}, nil
	case *array.FixedSizeBinary:
		return func(i int) any {
			if a.IsNull(i) {
				return nil
			}
			return bytes.Clone(a.Value(i))
		}, nil
	case *array.Date32:
		return intGetter(a, func(i int) int64 { return int64(a.Value(i)) }), nil
	case *array.Date64:
		return intGetter(a, func(i int) int64 { return int64(a.Value(i)) / 86400000 }), nil
	case *array.Timestamp:
		mul, div := unitToMicros(a.DataType().(*arrow.TimestampType).Unit)
		return intGetter(a, func(i int) int64 { return int64(a.Value(i)) * mul / div }), nil
	case *array.Time32:
		mul, div := unitToMicros(a.DataType().(*arrow.Time32Type).Unit)
		return intGetter(a, func(i int) int64 { return int64(a.Value(i)) * mul / div }), nil
	case *array.Time64:
		mul, div := unitToMicros(a.DataType().(*arrow.Time64Type).Unit)
		return intGetter(a, func(i int) int64 { return int64(a.Value(i)) * mul / div }), nil
	case *array.Decimal128:
		scale := int(a.DataType().(*arrow.Decimal128Type).Scale)
		return func(i int) any {
			if a.IsNull(i) {
				return nil
			}
			return predicate.Decimal{Unscaled: a.Value(i).BigInt(), Scale: scale}
		}, nil
	}
	return nil, paimon.Errorf(catalog.ErrUnsupported, "cannot compute on values of type %s", arr.DataType())
}

func intGetter(a arrow.Array, v func(int) int64) func(int) any {
	return func(i int) any {
		if a.IsNull(i) {
			return nil
		}
		return v(i)
	}
}

func unitToMicros(u arrow.TimeUnit) (mul, div int64) {
	switch u {
	case arrow.Second:
		return 1_000_000, 1
	case arrow.Millisecond:
		return 1000, 1
	case arrow.Microsecond:
		return 1, 1
	}
	return 1, 1000
}

// appendValue appends a runtime value v (of the class of b's type) to b.
func appendValue(b array.Builder, v any) error {
	if v == nil {
		b.AppendNull()
		return nil
	}
	switch bb := b.(type) {
	case *array.BooleanBuilder:
		bb.Append(v.(bool))
	case *array.Int8Builder:
		bb.Append(int8(v.(int64)))
	case *array.Int16Builder:
		bb.Append(int16(v.(int64)))
	case *array.Int32Builder:
		bb.Append(int32(v.(int64)))
	case *array.Int64Builder:
		bb.Append(v.(int64))
	case *array.Uint8Builder:
		bb.Append(uint8(v.(int64)))
	case *array.Uint16Builder:
		bb.Append(uint16(v.(int64)))
	case *array.Uint32Builder:
		bb.Append(uint32(v.(int64)))
	case *array.Uint64Builder:
		bb.Append(uint64(v.(int64)))
	case *array.Float32Builder:
		bb.Append(float32(v.(float64)))
	case *array.Float64Builder:
		bb.Append(v.(float64))
	case *array.StringBuilder:
		bb.Append(v.(string))
	case *array.LargeStringBuilder:
		bb.Append(v.(string))
	case *array.BinaryBuilder:
		bb.Append(v.([]byte))
	case *array.FixedSizeBinaryBuilder:
		bb.Append(v.([]byte))
	case *array.Date32Builder:
		bb.Append(arrow.Date32(v.(int64)))
	case *array.Date64Builder:
		bb.Append(arrow.Date64(v.(int64) * 86400000))
	case *array.TimestampBuilder:
		mul, div := unitToMicros(bb.Type().(*arrow.TimestampType).Unit)
		bb.Append(arrow.Timestamp(v.(int64) * div / mul))
	case *array.Time32Builder:
		mul, div := unitToMicros(bb.Type().(*arrow.Time32Type).Unit)
		bb.Append(arrow.Time32(v.(int64) * div / mul))
	case *array.Time64Builder:
		mul, div := unitToMicros(bb.Type().(*arrow.Time64Type).Unit)
		bb.Append(arrow.Time64(v.(int64) * div / mul))
	case *array.Decimal128Builder:
		d := v.(predicate.Decimal)
		want := int(bb.Type().(*arrow.Decimal128Type).Scale)
		u := d.Rescale(want)
		if u.BitLen() > 127 {
			return paimon.Errorf(catalog.ErrInvalid, "decimal %s overflows %s", d, bb.Type())
		}
		bb.Append(decimal128.FromBigInt(u))
	case *array.NullBuilder:
		bb.AppendNull()
	default:
		return paimon.Errorf(catalog.ErrUnsupported, "cannot build values of type %s", b.Type())
	}
	return nil
}

// rescale returns d's unscaled value at scale s (truncating when s is smaller).

func pow10(n int) *big.Int { return new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n)), nil) }

func decToFloat(d predicate.Decimal) float64 {
	f, _ := new(big.Rat).SetFrac(d.Unscaled, pow10(d.Scale)).Float64()
	return f
}

// compareValues orders two non-nil values of compatible classes; it returns
// ok=false when they cannot be compared.
func compareValues(a, b any) (int, bool) {
	switch x := a.(type) {
	case int64:
		switch y := b.(type) {
		case int64:
			return stdcmp.Compare(x, y), true
		case float64:
			return predicate.CompareFloat(float64(x), y), true
		case predicate.Decimal:
			return predicate.Decimal{Unscaled: big.NewInt(x)}.Cmp(y), true
		}
	case float64:
		switch y := b.(type) {
		case float64:
			return predicate.CompareFloat(x, y), true
		case int64:
			return predicate.CompareFloat(x, float64(y)), true
		case predicate.Decimal:
			return predicate.CompareFloat(x, decToFloat(y)), true
		}
	case predicate.Decimal:
		switch y := b.(type) {
		case predicate.Decimal:
			return x.Cmp(y), true
		case int64:
			return x.Cmp(predicate.Decimal{Unscaled: big.NewInt(y)}), true
		case float64:
			return predicate.CompareFloat(decToFloat(x), y), true
		}
	case string:
		if y, ok := b.(string); ok {
			return strings.Compare(x, y), true
		}
	case []byte:
		if y, ok := b.([]byte); ok {
			return strings.Compare(string(x), string(y)), true
		}
	case bool:
		if y, ok := b.(bool); ok {
			switch {
			case x == y:
				return 0, true
			case !x:
				return -1, true
			}
			return 1, true
		}
	}
	return 0, false
}

// parseDate parses YYYY-MM-DD (a time part is ignored) into epoch days.
func parseDate(s string) (int64, error) {
	s = strings.TrimSpace(s)
	if len(s) > 10 {
		if ts, err := parseTimestamp(s); err == nil {
			return floorDiv(ts, 86400_000_000), nil
		}
	}
	t, err := time.Parse("2006-01-02", s)
	if err != nil {
		return 0, paimon.Errorf(catalog.ErrInvalid, "invalid DATE %q (want YYYY-MM-DD)", s)
	}
	return t.Unix() / 86400, nil
}

// parseTimestamp parses 'YYYY-MM-DD[ HH:MM:SS[.fffffffff]]' (T also accepted)
// as a UTC wall clock into epoch microseconds.
func parseTimestamp(s string) (int64, error) {
	s = strings.TrimSpace(s)
	for _, layout := range []string{"2006-01-02 15:04:05.999999999", "2006-01-02T15:04:05.999999999", "2006-01-02 15:04", "2006-01-02", time.RFC3339Nano} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UnixMicro(), nil
		}
	}
	return 0, paimon.Errorf(catalog.ErrInvalid, "invalid TIMESTAMP %q (want YYYY-MM-DD HH:MM:SS[.fff])", s)
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// formatValue renders a runtime value of class c as text (CAST to VARCHAR).
func formatValue(v any, t arrow.DataType) string {
	switch classOf(t) {
	case cDate:
		return time.Unix(v.(int64)*86400, 0).UTC().Format("2006-01-02")
	case cTimestamp:
		return time.UnixMicro(v.(int64)).UTC().Format("2006-01-02 15:04:05.999999")
	case cTime:
		return time.UnixMicro(v.(int64)).UTC().Format("15:04:05.999999")
	}
	switch x := v.(type) {
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case []byte:
		return string(x)
	case predicate.Decimal:
		return x.String()
	}
	return fmt.Sprint(v)
}

// parseDecimal parses a decimal literal text exactly.
func parseDecimal(s string) (predicate.Decimal, bool) {
	s = strings.TrimSpace(s)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimLeft(s, "+-")
	intPart, frac, _ := strings.Cut(s, ".")
	if intPart == "" && frac == "" {
		return predicate.Decimal{}, false
	}
	u, ok := new(big.Int).SetString(intPart+frac, 10)
	if !ok {
		return predicate.Decimal{}, false
	}
	if neg {
		u.Neg(u)
	}
	return predicate.Decimal{Unscaled: u, Scale: len(frac)}, true
}

package vec

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/scalar"
)

// Runtime types and the implicit coercion rules.

var (
	tBool    = arrow.FixedWidthTypes.Boolean
	tInt64   = arrow.PrimitiveTypes.Int64
	tFloat64 = arrow.PrimitiveTypes.Float64
	tString  = arrow.BinaryTypes.String
	tBinary  = arrow.BinaryTypes.Binary
	tDate    = arrow.FixedWidthTypes.Date32
	tTSus    = &arrow.TimestampType{Unit: arrow.Microsecond}
	tIval    = arrow.FixedWidthTypes.MonthDayNanoInterval
	tNull    = arrow.Null
)

// DecimalType returns DECIMAL(p,s).
func DecimalType(p, s int32) *arrow.Decimal128Type {
	return &arrow.Decimal128Type{Precision: p, Scale: s}
}

func isSignedInt(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64:
		return true
	}
	return false
}

func isUnsignedInt(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64:
		return true
	}
	return false
}

// IsInteger reports a signed or unsigned integer type.
func IsInteger(t arrow.DataType) bool { return isSignedInt(t) || isUnsignedInt(t) }

func isFloat(t arrow.DataType) bool {
	return t.ID() == arrow.FLOAT32 || t.ID() == arrow.FLOAT64
}

func isDecimal(t arrow.DataType) bool { return t.ID() == arrow.DECIMAL128 }

// IsNumeric reports integer, float and decimal types.
func IsNumeric(t arrow.DataType) bool { return IsInteger(t) || isFloat(t) || isDecimal(t) }

// isStringLike: types read as text.
func isStringLike(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.STRING, arrow.LARGE_STRING, arrow.STRING_VIEW:
		return true
	}
	return false
}

func isBinaryLike(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.BINARY, arrow.LARGE_BINARY, arrow.BINARY_VIEW, arrow.FIXED_SIZE_BINARY:
		return true
	}
	return false
}

func isTimestamp(t arrow.DataType) bool { return t.ID() == arrow.TIMESTAMP }
func isNull(t arrow.DataType) bool      { return t == nil || t.ID() == arrow.NULL }

// intRank orders integer types by the values they hold (unsigned types are
// treated as the signed type that holds them; UINT64 as BIGINT, checked).
func intRank(t arrow.DataType) int {
	switch t.ID() {
	case arrow.INT8:
		return 1
	case arrow.INT16, arrow.UINT8:
		return 2
	case arrow.INT32, arrow.UINT16:
		return 3
	case arrow.INT64, arrow.UINT32, arrow.UINT64:
		return 4
	}
	return 0
}

var intByRank = [...]arrow.DataType{nil, arrow.PrimitiveTypes.Int8, arrow.PrimitiveTypes.Int16, arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int64}

// intDecimal is the DECIMAL wide enough for every value of an integer type.
func intDecimal(t arrow.DataType) *arrow.Decimal128Type {
	switch intRank(t) {
	case 1:
		return DecimalType(3, 0)
	case 2:
		return DecimalType(5, 0)
	case 3:
		return DecimalType(10, 0)
	}
	if t.ID() == arrow.UINT64 {
		return DecimalType(20, 0)
	}
	return DecimalType(19, 0)
}

func tsUnit(t arrow.DataType) arrow.TimeUnit { return t.(*arrow.TimestampType).Unit }

// TypeName renders t as a SQL type name (for messages and EXPLAIN).
func TypeName(t arrow.DataType) string {
	if t == nil {
		return "NULL"
	}
	switch t.ID() {
	case arrow.NULL:
		return "NULL"
	case arrow.BOOL:
		return "BOOLEAN"
	case arrow.INT8:
		return "TINYINT"
	case arrow.INT16:
		return "SMALLINT"
	case arrow.INT32:
		return "INTEGER"
	case arrow.INT64:
		return "BIGINT"
	case arrow.UINT8:
		return "UTINYINT"
	case arrow.UINT16:
		return "USMALLINT"
	case arrow.UINT32:
		return "UINTEGER"
	case arrow.UINT64:
		return "UBIGINT"
	case arrow.FLOAT32:
		return "FLOAT"
	case arrow.FLOAT64:
		return "DOUBLE"
	case arrow.DECIMAL128:
		d := t.(*arrow.Decimal128Type)
		return fmt.Sprintf("DECIMAL(%d,%d)", d.Precision, d.Scale)
	case arrow.STRING, arrow.LARGE_STRING, arrow.STRING_VIEW:
		return "VARCHAR"
	case arrow.BINARY, arrow.LARGE_BINARY, arrow.BINARY_VIEW, arrow.FIXED_SIZE_BINARY:
		return "BLOB"
	case arrow.DATE32, arrow.DATE64:
		return "DATE"
	case arrow.TIMESTAMP:
		switch tsUnit(t) {
		case arrow.Second:
			return "TIMESTAMP_S"
		case arrow.Millisecond:
			return "TIMESTAMP_MS"
		case arrow.Nanosecond:
			return "TIMESTAMP_NS"
		}
		return "TIMESTAMP"
	case arrow.TIME32, arrow.TIME64:
		return "TIME"
	case arrow.INTERVAL_MONTH_DAY_NANO, arrow.INTERVAL_MONTHS, arrow.INTERVAL_DAY_TIME:
		return "INTERVAL"
	case arrow.LIST, arrow.LARGE_LIST:
		return TypeName(t.(arrow.ListLikeType).Elem()) + "[]"
	case arrow.STRUCT:
		fs := t.(*arrow.StructType).Fields()
		parts := make([]string, len(fs))
		for i, f := range fs {
			parts[i] = f.Name + " " + TypeName(f.Type)
		}
		return "STRUCT(" + strings.Join(parts, ", ") + ")"
	case arrow.MAP:
		m := t.(*arrow.MapType)
		return "MAP(" + TypeName(m.KeyType()) + ", " + TypeName(m.ItemType()) + ")"
	}
	return t.String()
}

// CommonType returns the type every one of ts converts to implicitly (the
// type of a comparison's operands, of CASE branches, of IN lists).
func CommonType(ts ...arrow.DataType) (arrow.DataType, error) {
	var acc arrow.DataType = tNull
	for _, t := range ts {
		r, err := common2(acc, t)
		if err != nil {
			return nil, err
		}
		acc = r
	}
	return acc, nil
}

func common2(a, b arrow.DataType) (arrow.DataType, error) {
	switch {
	case isNull(b):
		return a, nil
	case isNull(a):
		return normalType(b), nil
	case arrow.TypeEqual(a, b):
		return normalType(a), nil
	case IsInteger(a) && IsInteger(b):
		return intByRank[max(intRank(a), intRank(b))], nil
	case IsNumeric(a) && IsNumeric(b):
		if isFloat(a) || isFloat(b) {
			return tFloat64, nil
		}
		da, db := asDecimal(a), asDecimal(b)
		s := max(da.Scale, db.Scale)
		p := max(da.Precision-da.Scale, db.Precision-db.Scale) + s
		if p > 38 {
			p = 38
		}
		return DecimalType(p, s), nil
	case isStringLike(a) && isStringLike(b):
		return tString, nil
	case isBinaryLike(a) && isBinaryLike(b):
		return tBinary, nil
	case a.ID() == arrow.DATE32 && isTimestamp(b):
		return b, nil
	case isTimestamp(a) && b.ID() == arrow.DATE32:
		return a, nil
	case isTimestamp(a) && isTimestamp(b):
		if tsUnit(a) >= tsUnit(b) {
			return &arrow.TimestampType{Unit: tsUnit(a), TimeZone: a.(*arrow.TimestampType).TimeZone}, nil
		}
		return &arrow.TimestampType{Unit: tsUnit(b), TimeZone: b.(*arrow.TimestampType).TimeZone}, nil
	case isTime(a) && isTime(b):
		return arrow.FixedWidthTypes.Time64us, nil
	}
	return nil, invalidf("no common type for %s and %s", TypeName(a), TypeName(b))
}

func isTime(t arrow.DataType) bool { return t.ID() == arrow.TIME32 || t.ID() == arrow.TIME64 }

// normalType maps an input type to the runtime type that represents it
// (LargeString and StringView read as String, unsigned ints as signed).
func normalType(t arrow.DataType) arrow.DataType {
	switch {
	case isStringLike(t):
		return tString
	case t.ID() == arrow.LARGE_BINARY || t.ID() == arrow.BINARY_VIEW:
		return tBinary
	case isUnsignedInt(t):
		return intByRank[intRank(t)]
	}
	return t
}

func asDecimal(t arrow.DataType) *arrow.Decimal128Type {
	if d, ok := t.(*arrow.Decimal128Type); ok {
		return d
	}
	return intDecimal(t)
}

// implicitOK reports whether from converts to to without an explicit CAST.
func implicitOK(from, to arrow.DataType) bool {
	switch {
	case arrow.TypeEqual(from, to), isNull(from):
		return true
	case IsInteger(from) && IsInteger(to):
		return intRank(to) >= intRank(from) && !(from.ID() == arrow.UINT64 && to.ID() != arrow.INT64 && to.ID() != arrow.UINT64)
	case IsInteger(from) && isDecimal(to):
		d, n := to.(*arrow.Decimal128Type), intDecimal(from)
		return d.Precision-d.Scale >= n.Precision || d.Precision == 38
	case (IsInteger(from) || isDecimal(from)) && isFloat(to):
		return true
	case from.ID() == arrow.FLOAT32 && to.ID() == arrow.FLOAT64:
		return true
	case from.ID() == arrow.DATE32 && isTimestamp(to):
		return true
	case isTimestamp(from) && isTimestamp(to):
		return tsUnit(to) >= tsUnit(from)
	case isDecimal(from) && isDecimal(to):
		f, t := from.(*arrow.Decimal128Type), to.(*arrow.Decimal128Type)
		return t.Scale >= f.Scale && (t.Precision-t.Scale >= f.Precision-f.Scale || t.Precision == 38)
	case isStringLike(from) && isStringLike(to), isBinaryLike(from) && isBinaryLike(to):
		return true
	case isTime(from) && isTime(to):
		return true
	}
	return false
}

// ImplicitCast converts e to t where the typing rules allow it without an
// explicit CAST: integer widening, integer to DECIMAL, numbers to DOUBLE,
// DATE to TIMESTAMP, DECIMAL to a DECIMAL with more room, NULL to anything.
// A string literal converts to any type by parsing it now (DATE
// '1998-01-01' written as '1998-01-01'); a bad string is an error. An
// untyped parameter takes the type t.
func ImplicitCast(e Expr, t arrow.DataType) (Expr, error) {
	et := e.Type()
	if arrow.TypeEqual(et, t) {
		return e, nil
	}
	if p, ok := e.(*Param); ok && isNull(p.T) {
		return &Param{N: p.N, T: t}, nil
	}
	if l, ok := e.(*Literal); ok {
		if !l.Value.IsValid() {
			return NullLiteral(t), nil
		}
		if isStringLike(et) || implicitOK(et, t) {
			s, err := CastScalar(l.Value, t)
			if err != nil {
				return nil, err
			}
			return NewLiteral(s), nil
		}
		if IsNumeric(et) && IsNumeric(t) { // a constant that fits exactly
			if s, err := CastScalar(l.Value, t); err == nil {
				if back, err := CastScalar(s, et); err == nil && scalar.Equals(back, l.Value) {
					return NewLiteral(s), nil
				}
			}
		}
	}
	if !implicitOK(et, t) {
		return nil, invalidf("cannot convert %s of type %s to %s implicitly (use CAST)", e, TypeName(et), TypeName(t))
	}
	return &Cast{E: e, To: t, Implicit: true}, nil
}

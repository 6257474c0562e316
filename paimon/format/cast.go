package format

// Schema-evolution casts with the semantics of Paimon Java. When ALTER TABLE
// changes a column's type, Java (SchemaManager) accepts the change when
// DataTypeCasts.supportsCast(from, to, explicit) holds AND
// CastExecutors.resolve(from, to) finds an executor; files written before
// the change are then read through that executor (SchemaEvolutionUtil).
// CastAllowed is that predicate; javaCast applies the executor to an Arrow
// array. Per-value rules are in javaconv.go; the cast table is in
// docs/design/format-evolution.md.

import (
	"context"
	"fmt"
	"math"
	"math/big"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

type family int

const (
	famNone   family = iota
	famInt           // TINYINT SMALLINT INT BIGINT (INTEGER_NUMERIC)
	famApprox        // FLOAT DOUBLE (APPROXIMATE_NUMERIC)
	famDecimal
	famBool
	famChar   // CHAR VARCHAR (CHARACTER_STRING)
	famBinary // BINARY VARBINARY (BINARY_STRING)
	famDate
	famTime
	famTimestamp // TIMESTAMP and TIMESTAMP_LTZ
	famNested    // ARRAY MAP ROW MULTISET
)

func familyOf(r types.Root) family {
	switch r {
	case types.TinyInt, types.SmallInt, types.Int, types.BigInt:
		return famInt
	case types.Float, types.Double:
		return famApprox
	case types.Decimal:
		return famDecimal
	case types.Boolean:
		return famBool
	case types.Char, types.VarChar:
		return famChar
	case types.Binary, types.VarBinary:
		return famBinary
	case types.Date:
		return famDate
	case types.Time:
		return famTime
	case types.Timestamp, types.TimestampLTZ:
		return famTimestamp
	case types.Array, types.Map, types.Row, types.Multiset:
		return famNested
	}
	return famNone
}

func isStringType(t types.DataType) bool {
	return t.Root == types.VarChar && t.Length == types.MaxLength
}

// CastAllowed reports whether Paimon Java lets ALTER TABLE change a column
// from type from to type to (DataTypeCasts.supportsCast with explicit casts
// ∩ CastExecutors.resolve != null), i.e. whether files written with from
// can be read as to. Types equal up to nullability are always allowed;
// nested types of the same kind are handled field by field by the reader
// and are not covered here.
func CastAllowed(from, to types.DataType) bool {
	if from.Equal(to.WithNullable(from.Nullable)) {
		return true
	}
	ff, tf := familyOf(from.Root), familyOf(to.Root)
	switch tf {
	case famChar:
		switch ff {
		case famInt, famApprox, famDecimal, famBool, famChar, famBinary:
			return true // NumericToString, BooleanToString, StringToString, BinaryToString
		case famTimestamp, famDate, famTime, famNested:
			// TimestampToString, DateToString, TimeToString are registered for
			// target STRING only; Array/Map/RowToString for CHARACTER_STRING.
			return ff == famNested && from.Root != types.Multiset || isStringType(to)
		}
	case famBool:
		return ff == famChar || ff == famInt // StringToBoolean, NumericToBoolean
	case famBinary:
		return ff == famChar || ff == famBinary // StringToBinary, BinaryToBinary
	case famDecimal:
		// DecimalToDecimal, NumericPrimitiveToDecimal, StringToDecimal, BooleanToNumeric.
		return ff == famDecimal || ff == famInt || ff == famApprox || ff == famChar || ff == famBool
	case famInt, famApprox:
		switch ff {
		case famInt, famApprox, famDecimal, famChar, famBool:
			return true // NumericPrimitive, DecimalToNumericPrimitive, StringToNumericPrimitive, BooleanToNumeric
		case famTimestamp:
			return to.Root == types.Int || to.Root == types.BigInt // TimestampToNumericPrimitive
		}
	case famDate:
		return ff == famTimestamp || ff == famChar // TimestampToDate, StringToDate
	case famTime:
		return ff == famTimestamp || ff == famChar // TimestampToTime, StringToTime
	case famTimestamp:
		switch ff {
		case famTimestamp, famDate, famTime, famChar:
			return true // TimestampToTimestamp, DateToTimestamp, TimeToTimestamp, StringToTimestamp
		case famInt:
			return from.Root == types.Int || from.Root == types.BigInt // NumericPrimitiveToTimestamp
		}
	}
	return false
}

// javaCast converts arr, holding values of Paimon type from (in whatever
// Arrow layout the file reader produced), to ArrowType(to) with Java's
// cast semantics. A value Java cannot cast (e.g. 'abc' to INT) is an error
// naming the value; a value Java casts to NULL (decimal overflow) is NULL.
func javaCast(mem memory.Allocator, arr arrow.Array, from, to types.DataType) (arrow.Array, error) {
	if !CastAllowed(from, to) {
		return nil, fmt.Errorf("cannot read %s as %s: Paimon does not allow this type change", from, to)
	}
	if d, ok := arr.(*array.Dictionary); ok {
		// A dictionary-encoded column (from a stored Arrow schema): its values.
		dense, err := compute.TakeArray(compute.WithAllocator(context.Background(), mem), d.Dictionary(), d.Indices())
		if err != nil {
			return nil, fmt.Errorf("cast %s to %s: %w", from, to, err)
		}
		defer dense.Release()
		arr = dense
	}
	b := array.NewBuilder(mem, ArrowType(to))
	defer b.Release()
	conv, err := castFunc(arr, from, to, b)
	if err != nil {
		return nil, err
	}
	b.Reserve(arr.Len())
	for i := 0; i < arr.Len(); i++ {
		if arr.IsNull(i) {
			b.AppendNull()
			continue
		}
		if err := conv(i); err != nil {
			return nil, fmt.Errorf("cast %s to %s: %w", from, to, err)
		}
	}
	return b.NewArray(), nil
}

// castFunc returns the function appending the cast of arr[i] (not null) to b.
func castFunc(arr arrow.Array, from, to types.DataType, b array.Builder) (func(int) error, error) {
	src, err := newSource(arr, from)
	if err != nil {
		return nil, err
	}
	ff := familyOf(from.Root)
	switch familyOf(to.Root) {
	case famInt:
		put := intAppender(b, to.Root)
		switch ff {
		case famInt:
			return func(i int) error { put(src.int(i)); return nil }, nil
		case famApprox:
			return func(i int) error {
				d := src.float(i)
				if to.Root == types.BigInt {
					put(javaF2L(d)) // Number.longValue
				} else {
					put(int64(javaF2I(d))) // (int), then wrapped by (byte)/(short)
				}
				return nil
			}, nil
		case famDecimal:
			return func(i int) error { u, s := src.dec(i); put(javaDecimalToIntegral(u, s)); return nil }, nil
		case famBool:
			return func(i int) error { put(boolInt(src.bool(i))); return nil }, nil
		case famChar:
			return func(i int) error {
				s := src.str(i)
				var v int64
				var err error
				switch to.Root {
				case types.BigInt:
					v, err = javaStringToIntegral(s, 64)
				case types.Int:
					v, err = javaStringToIntegral(s, 32)
				case types.SmallInt:
					v, err = javaStringToNarrow(s, 16)
				default:
					v, err = javaStringToNarrow(s, 8)
				}
				if err != nil {
					return err
				}
				put(v)
				return nil
			}, nil
		case famTimestamp:
			// DateTimeUtils.unixTimestamp: millis / 1000 (truncating).
			return func(i int) error { put(src.ts(i).millis / 1000); return nil }, nil
		}
	case famApprox:
		put := floatAppender(b, to.Root)
		switch ff {
		case famInt:
			return func(i int) error { put(float64(src.int(i)), src.int(i), true); return nil }, nil
		case famApprox:
			return func(i int) error { put(src.float(i), 0, false); return nil }, nil
		case famDecimal:
			return func(i int) error {
				u, s := src.dec(i)
				put(javaDecimalToDouble(u, from.Precision, s), 0, false)
				return nil
			}, nil
		case famBool:
			return func(i int) error { put(float64(boolInt(src.bool(i))), 0, false); return nil }, nil
		case famChar:
			bits := 64
			if to.Root == types.Float {
				bits = 32
			}
			return func(i int) error {
				d, err := javaParseDouble(src.str(i), bits)
				if err != nil {
					return err
				}
				put(d, 0, false)
				return nil
			}, nil
		}
	case famDecimal:
		db := b.(*array.Decimal128Builder)
		put := func(u *big.Int, scale int) error {
			r := javaFromBigDecimal(u, scale, to.Precision, to.Scale)
			if r == nil {
				db.AppendNull() // Decimal.fromBigDecimal: precision overflow → null
				return nil
			}
			n, err := decimal128FromBig(r)
			if err != nil {
				return err
			}
			db.Append(n)
			return nil
		}
		switch ff {
		case famDecimal:
			return func(i int) error { return put(src.dec(i)) }, nil
		case famInt:
			return func(i int) error { return put(big.NewInt(src.int(i)), 0) }, nil
		case famBool:
			return func(i int) error { return put(big.NewInt(boolInt(src.bool(i))), 0) }, nil
		case famApprox:
			// BigDecimal.valueOf(double) = new BigDecimal(Double.toString(d)).
			return func(i int) error {
				d := src.float(i)
				if math.IsNaN(d) || math.IsInf(d, 0) {
					return fmt.Errorf("Infinite or NaN (%s)", javaDoubleToString(d, 64))
				}
				u, s, err := javaBigDecimal(javaDoubleToString(d, 64))
				if err != nil {
					return err
				}
				return put(u, s)
			}, nil
		case famChar:
			return func(i int) error {
				u, s, err := javaBigDecimal(src.str(i))
				if err != nil {
					return err
				}
				return put(u, s)
			}, nil
		}
	case famBool:
		bb := b.(*array.BooleanBuilder)
		switch ff {
		case famInt:
			return func(i int) error { bb.Append(src.int(i) != 0); return nil }, nil
		case famChar:
			return func(i int) error {
				v, err := javaStringToBoolean(src.str(i))
				if err != nil {
					return err
				}
				bb.Append(v)
				return nil
			}, nil
		}
	case famChar:
		sb := b.(*array.StringBuilder)
		isChar := to.Root == types.Char
		fit := func(s string) string { return javaToCharacterString(s, to.Length, isChar) }
		switch ff {
		case famInt:
			return func(i int) error { sb.Append(fit(fmt.Sprint(src.int(i)))); return nil }, nil
		case famApprox:
			bits := 64
			if from.Root == types.Float {
				bits = 32
			}
			return func(i int) error { sb.Append(fit(javaDoubleToString(src.float(i), bits))); return nil }, nil
		case famDecimal:
			return func(i int) error { u, s := src.dec(i); sb.Append(fit(javaDecimalToPlainString(u, s))); return nil }, nil
		case famBool:
			return func(i int) error { sb.Append(fit(fmt.Sprint(src.bool(i)))); return nil }, nil
		case famChar:
			return func(i int) error { sb.Append(fit(src.str(i))); return nil }, nil
		case famBinary:
			// BinaryString.fromBytes: the bytes as they are, not cut.
			return func(i int) error { sb.Append(src.str(i)); return nil }, nil
		case famDate:
			return func(i int) error { sb.Append(javaFormatDate(src.date(i))); return nil }, nil
		case famTime:
			return func(i int) error { sb.Append(javaFormatTime(src.time(i), from.Precision)); return nil }, nil
		case famTimestamp:
			// LTZ is formatted in the session zone; this reader's zone is UTC.
			return func(i int) error { sb.Append(javaFormatTimestamp(src.ts(i), from.Precision)); return nil }, nil
		case famNested:
			return func(i int) error {
				var w strings.Builder
				if err := javaNestedString(&w, arr, from, i); err != nil {
					return err
				}
				sb.Append(w.String())
				return nil
			}, nil
		}
	case famBinary:
		bb := b.(*array.BinaryBuilder)
		fixed := to.Root == types.Binary
		switch ff {
		case famChar, famBinary:
			return func(i int) error { bb.Append(javaToBinaryString(src.bytes(i), to.Length, fixed)); return nil }, nil
		}
	case famDate:
		d32 := b.(*array.Date32Builder)
		switch ff {
		case famTimestamp:
			return func(i int) error { d32.Append(arrow.Date32(floorDiv(src.ts(i).millis, millisPerDay))); return nil }, nil
		case famChar:
			return func(i int) error {
				v, err := javaParseDate(src.str(i))
				if err != nil {
					return err
				}
				d32.Append(arrow.Date32(v))
				return nil
			}, nil
		}
	case famTime:
		t32 := b.(*array.Time32Builder)
		switch ff {
		case famTimestamp:
			return func(i int) error { t32.Append(arrow.Time32(floorMod(src.ts(i).millis, millisPerDay))); return nil }, nil
		case famChar:
			return func(i int) error {
				v, err := javaParseTime(src.str(i))
				if err != nil {
					return err
				}
				t32.Append(arrow.Time32(v))
				return nil
			}, nil
		}
	case famTimestamp:
		tb := b.(*array.TimestampBuilder)
		unit := TimestampUnit(to.Precision)
		put := func(ts javaTS) error {
			v, ok := tsInUnit(ts, unit)
			if !ok {
				return fmt.Errorf("timestamp %s out of the range of %s", javaFormatTimestamp(ts, 9), to)
			}
			tb.Append(arrow.Timestamp(v))
			return nil
		}
		switch ff {
		case famTimestamp:
			if to.Precision < from.Precision {
				return func(i int) error { return put(javaTruncateTimestamp(src.ts(i), to.Precision)) }, nil
			}
			return func(i int) error { return put(src.ts(i)) }, nil
		case famDate:
			return func(i int) error { return put(javaTS{millis: int64(src.date(i)) * millisPerDay}) }, nil
		case famTime:
			return func(i int) error { return put(javaTS{millis: int64(src.time(i))}) }, nil
		case famInt:
			// NumericPrimitiveToTimestamp: seconds, value * 1000 (wrapping as Java's long).
			return func(i int) error { return put(javaTS{millis: src.int(i) * 1000}) }, nil
		case famChar:
			ltz := to.Root == types.TimestampLTZ
			return func(i int) error {
				ts, err := javaParseTimestamp(src.str(i), to.Precision, ltz)
				if err != nil {
					return err
				}
				return put(ts)
			}, nil
		}
	}
	return nil, fmt.Errorf("cannot read %s as %s: no cast", from, to)
}

func boolInt(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// intAppender appends v narrowed to root's width as Java's (byte)/(short)/(int) casts do.
func intAppender(b array.Builder, root types.Root) func(int64) {
	switch root {
	case types.TinyInt:
		bb := b.(*array.Int8Builder)
		return func(v int64) { bb.Append(int8(v)) }
	case types.SmallInt:
		bb := b.(*array.Int16Builder)
		return func(v int64) { bb.Append(int16(v)) }
	case types.Int:
		bb := b.(*array.Int32Builder)
		return func(v int64) { bb.Append(int32(v)) }
	}
	bb := b.(*array.Int64Builder)
	return func(v int64) { bb.Append(v) }
}

// floatAppender appends d as FLOAT ((float) rounds to nearest) or DOUBLE;
// from an integer (isInt) the long is converted directly, as Java's
// (float) long rounds once.
func floatAppender(b array.Builder, root types.Root) func(d float64, l int64, isInt bool) {
	if root == types.Float {
		bb := b.(*array.Float32Builder)
		return func(d float64, l int64, isInt bool) {
			if isInt {
				bb.Append(float32(l))
				return
			}
			bb.Append(float32(d))
		}
	}
	bb := b.(*array.Float64Builder)
	return func(d float64, _ int64, _ bool) { bb.Append(d) }
}

func decimal128FromBig(u *big.Int) (decimal128.Num, error) {
	if u.BitLen() > 127 {
		return decimal128.Num{}, fmt.Errorf("decimal %s does not fit 128 bits", u)
	}
	return decimal128.FromBigInt(u), nil
}

// tsInUnit converts a Java timestamp to a count of unit since the epoch.
func tsInUnit(ts javaTS, unit arrow.TimeUnit) (int64, bool) {
	switch unit {
	case arrow.Millisecond:
		return ts.millis, true
	case arrow.Microsecond:
		if ts.millis > math.MaxInt64/1000-1 || ts.millis < math.MinInt64/1000+1 {
			return 0, false
		}
		return ts.millis*1000 + int64(ts.nanos)/1000, true
	default:
		if ts.millis > math.MaxInt64/1000000-1 || ts.millis < math.MinInt64/1000000+1 {
			return 0, false
		}
		return ts.millis*1000000 + int64(ts.nanos), true
	}
}

package format

import (
	"context"
	"fmt"
	"math"
	"math/big"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// dec is a decimal test value: unscaled digits as a string and the scale.
type dec struct {
	u string
	s int
}

// tsv is a timestamp test value: epoch millis and nanos of the millisecond.
type tsv = javaTS

type nullV struct{}

var null = nullV{}

// oneValue builds a one-element array of ArrowType(t) holding v.
func oneValue(t *testing.T, mem memory.Allocator, typ types.DataType, v any) arrow.Array {
	t.Helper()
	b := array.NewBuilder(mem, ArrowType(typ))
	defer b.Release()
	if v == null {
		b.AppendNull()
		return b.NewArray()
	}
	switch bb := b.(type) {
	case *array.Int8Builder:
		bb.Append(int8(v.(int)))
	case *array.Int16Builder:
		bb.Append(int16(v.(int)))
	case *array.Int32Builder:
		bb.Append(int32(v.(int)))
	case *array.Int64Builder:
		switch x := v.(type) {
		case int:
			bb.Append(int64(x))
		case int64:
			bb.Append(x)
		}
	case *array.Float32Builder:
		bb.Append(float32(v.(float64)))
	case *array.Float64Builder:
		bb.Append(v.(float64))
	case *array.BooleanBuilder:
		bb.Append(v.(bool))
	case *array.StringBuilder:
		bb.Append(v.(string))
	case *array.BinaryBuilder:
		bb.Append([]byte(v.(string)))
	case *array.Decimal128Builder:
		d := v.(dec)
		u, _ := new(big.Int).SetString(d.u, 10)
		bb.Append(decimal128.FromBigInt(u))
	case *array.Date32Builder:
		bb.Append(arrow.Date32(v.(int)))
	case *array.Time32Builder:
		bb.Append(arrow.Time32(v.(int)))
	case *array.TimestampBuilder:
		x, ok := tsInUnit(v.(tsv), TimestampUnit(typ.Precision))
		if !ok {
			t.Fatalf("test timestamp %v out of range", v)
		}
		bb.Append(arrow.Timestamp(x))
	default:
		t.Fatalf("no test builder for %s", typ)
	}
	return b.NewArray()
}

// valueOf renders element 0 of arr as the Go value the cases use.
func valueOf(arr arrow.Array, typ types.DataType) any {
	if arr.IsNull(0) {
		return null
	}
	switch a := arr.(type) {
	case *array.Int8:
		return int(a.Value(0))
	case *array.Int16:
		return int(a.Value(0))
	case *array.Int32:
		return int(a.Value(0))
	case *array.Int64:
		return a.Value(0)
	case *array.Float32:
		return float64(a.Value(0))
	case *array.Float64:
		return a.Value(0)
	case *array.Boolean:
		return a.Value(0)
	case *array.String:
		return a.Value(0)
	case *array.Binary:
		return string(a.Value(0))
	case *array.Decimal128:
		return dec{a.Value(0).BigInt().String(), int(a.DataType().(*arrow.Decimal128Type).Scale)}
	case *array.Date32:
		return int(a.Value(0))
	case *array.Time32:
		return int(a.Value(0))
	case *array.Timestamp:
		return tsFromUnit(int64(a.Value(0)), a.DataType().(*arrow.TimestampType).Unit)
	}
	return fmt.Sprintf("unhandled %s", arr.DataType())
}

type castCase struct {
	from, to types.DataType
	in, want any
	err      string // substring of the expected error (want ignored)
	java     string // the Java rule / method the expectation comes from
}

func ty(s string) types.DataType { return types.MustParse(s) }

// TestJavaCastMatrix checks every cast Paimon allows for schema evolution
// with edge values; each expectation is what the cited Java code returns.
func TestJavaCastMatrix(t *testing.T) {
	nan := math.NaN()
	// 2023-01-02 03:04:05.123456789 UTC and a pre-1970 instant.
	ts9 := tsv{millis: 1672628645123, nanos: 456789}
	preEpoch := tsv{millis: -1500, nanos: 250000} // 1969-12-31 23:59:58.500250
	cases := []castCase{
		// NumericPrimitiveCastRule: Number.xxxValue = Java primitive casts.
		{from: ty("DOUBLE"), to: ty("INT"), in: 11.1, want: 11, java: "NumericPrimitiveCastRule Number::intValue"},
		{from: ty("DOUBLE"), to: ty("INT"), in: -11.9, want: -11, java: "(int) truncates toward zero"},
		{from: ty("DOUBLE"), to: ty("INT"), in: 1e20, want: math.MaxInt32, java: "(int) saturates"},
		{from: ty("DOUBLE"), to: ty("INT"), in: -1e20, want: math.MinInt32, java: "(int) saturates"},
		{from: ty("DOUBLE"), to: ty("INT"), in: nan, want: 0, java: "(int) NaN = 0"},
		{from: ty("DOUBLE"), to: ty("BIGINT"), in: 1e30, want: int64(math.MaxInt64), java: "(long) saturates"},
		{from: ty("DOUBLE"), to: ty("TINYINT"), in: 300.7, want: 44, java: "Double.byteValue = (byte)(int)300.7 = (byte)300 = 44"},
		{from: ty("DOUBLE"), to: ty("TINYINT"), in: 1e20, want: -1, java: "(byte)(int)1e20 = (byte)Integer.MAX_VALUE = -1"},
		{from: ty("FLOAT"), to: ty("SMALLINT"), in: 70000.5, want: 4464, java: "(short)(int)70000.5f = (short)70000 = 4464"},
		{from: ty("BIGINT"), to: ty("INT"), in: int64(4294967297), want: 1, java: "Long.intValue wraps"},
		{from: ty("INT"), to: ty("TINYINT"), in: 383, want: 127, java: "Integer.byteValue: (byte)383 = 127"},
		{from: ty("INT"), to: ty("SMALLINT"), in: -32769, want: 32767, java: "(short) wraps"},
		{from: ty("INT"), to: ty("BIGINT"), in: -5, want: int64(-5), java: "widening"},
		{from: ty("TINYINT"), to: ty("FLOAT"), in: -128, want: -128.0, java: "widening"},
		{from: ty("INT"), to: ty("DOUBLE"), in: math.MinInt32, want: float64(math.MinInt32), java: "widening"},
		{from: ty("DECIMAL(5, 2)"), to: ty("DECIMAL(7, 3)"), in: dec{"-12345", 2}, want: dec{"-123450", 3}, java: "widening"},
		{from: ty("VARCHAR(3)"), to: ty("STRING"), in: "abc", want: "abc", java: "StringToString, no cut"},
		{from: ty("TIMESTAMP(3) WITH LOCAL TIME ZONE"), to: ty("TIMESTAMP(9) WITH LOCAL TIME ZONE"), in: tsv{millis: -1}, want: tsv{millis: -1}, java: "widening"},
		{from: ty("BIGINT"), to: ty("FLOAT"), in: int64(16777217), want: 16777216.0, java: "(float) long rounds to nearest even"},
		{from: ty("BIGINT"), to: ty("DOUBLE"), in: int64(9007199254740993), want: 9007199254740992.0, java: "(double) long"},
		{from: ty("DOUBLE"), to: ty("FLOAT"), in: 0.1, want: float64(float32(0.1)), java: "(float) double"},
		{from: ty("FLOAT"), to: ty("DOUBLE"), in: 0.1, want: float64(float32(0.1)), java: "Float.doubleValue exact"},
		// DecimalToNumericPrimitiveCastRule / DecimalUtils.
		{from: ty("DECIMAL(5, 2)"), to: ty("INT"), in: dec{"-1299", 2}, want: -12, java: "castToIntegral setScale(0, DOWN)"},
		{from: ty("DECIMAL(38, 0)"), to: ty("BIGINT"), in: dec{"18446744073709551617", 0}, want: int64(1), java: "BigDecimal.longValue: low 64 bits"},
		{from: ty("DECIMAL(38, 0)"), to: ty("TINYINT"), in: dec{"300", 0}, want: 44, java: "(byte) castToIntegral"},
		{from: ty("DECIMAL(5, 2)"), to: ty("DOUBLE"), in: dec{"1234", 2}, want: 12.34, java: "doubleValue compact: 1234 / 100.0"},
		{from: ty("DECIMAL(5, 2)"), to: ty("FLOAT"), in: dec{"1234", 2}, want: float64(float32(12.34)), java: "(float) doubleValue"},
		{from: ty("DECIMAL(30, 10)"), to: ty("DOUBLE"), in: dec{"12345678901234567890", 10}, want: 1234567890.123456789, java: "BigDecimal.doubleValue"},
		// DecimalToDecimalCastRule: Decimal.fromBigDecimal (HALF_UP, overflow → null).
		{from: ty("DECIMAL(5, 2)"), to: ty("DECIMAL(6, 3)"), in: dec{"12345", 2}, want: dec{"123450", 3}, java: "fromBigDecimal setScale(3)"},
		{from: ty("DECIMAL(6, 3)"), to: ty("DECIMAL(5, 2)"), in: dec{"1235", 3}, want: dec{"124", 2}, java: "HALF_UP 1.235 → 1.24"},
		{from: ty("DECIMAL(6, 3)"), to: ty("DECIMAL(5, 2)"), in: dec{"-1235", 3}, want: dec{"-124", 2}, java: "HALF_UP -1.235 → -1.24"},
		{from: ty("DECIMAL(6, 3)"), to: ty("DECIMAL(5, 2)"), in: dec{"-1234", 3}, want: dec{"-123", 2}, java: "HALF_UP -1.234 → -1.23"},
		{from: ty("DECIMAL(6, 2)"), to: ty("DECIMAL(4, 2)"), in: dec{"123456", 2}, want: null, java: "precision 6 > 4 → null"},
		{from: ty("DECIMAL(5, 2)"), to: ty("DECIMAL(3, 0)"), in: dec{"99950", 2}, want: null, java: "999.50 → 1000 has 4 digits > 3 → null"},
		// NumericPrimitiveToDecimalCastRule.
		{from: ty("INT"), to: ty("DECIMAL(5, 2)"), in: 123, want: dec{"12300", 2}, java: "castFrom(long)"},
		{from: ty("INT"), to: ty("DECIMAL(4, 2)"), in: 123, want: null, java: "overflow → null"},
		{from: ty("DOUBLE"), to: ty("DECIMAL(10, 2)"), in: 1.005, want: dec{"101", 2}, java: "BigDecimal.valueOf(1.005) = 1.005 → HALF_UP 1.01"},
		{from: ty("FLOAT"), to: ty("DECIMAL(20, 17)"), in: 0.1, want: dec{"10000000149011612", 17}, java: "valueOf((double)0.1f) = 0.10000000149011612"},
		{from: ty("DOUBLE"), to: ty("DECIMAL(10, 2)"), in: nan, err: "NaN", java: "BigDecimal.valueOf(NaN) throws"},
		// BooleanToNumericCastRule.
		{from: ty("BOOLEAN"), to: ty("INT"), in: true, want: 1, java: "toInt"},
		{from: ty("BOOLEAN"), to: ty("DOUBLE"), in: false, want: 0.0, java: "(double) toInt"},
		{from: ty("BOOLEAN"), to: ty("DECIMAL(3, 1)"), in: true, want: dec{"10", 1}, java: "castFrom(1, 3, 1)"},
		{from: ty("BOOLEAN"), to: ty("DECIMAL(1, 1)"), in: true, want: null, java: "1.0 needs precision 2 → null"},
		// NumericToBooleanCastRule.
		{from: ty("BIGINT"), to: ty("BOOLEAN"), in: int64(-7), want: true, java: "longValue() != 0"},
		{from: ty("TINYINT"), to: ty("BOOLEAN"), in: 0, want: false, java: "longValue() != 0"},
		// StringToBooleanCastRule: BinaryStringUtils.toBoolean.
		{from: ty("STRING"), to: ty("BOOLEAN"), in: "nO", want: false, java: "toBoolean lower-cases: no"},
		{from: ty("STRING"), to: ty("BOOLEAN"), in: "T", want: true, java: "t"},
		{from: ty("STRING"), to: ty("BOOLEAN"), in: "Yes", want: true, java: "yes"},
		{from: ty("STRING"), to: ty("BOOLEAN"), in: "1", want: true, java: "1"},
		{from: ty("STRING"), to: ty("BOOLEAN"), in: "0", want: false, java: "0"},
		{from: ty("VARCHAR(10)"), to: ty("BOOLEAN"), in: "FALSE", want: false, java: "false"},
		{from: ty("STRING"), to: ty("BOOLEAN"), in: " true", err: "Cannot parse ' true' as BOOLEAN", java: "no trimming: throws"},
		{from: ty("STRING"), to: ty("BOOLEAN"), in: "maybe", err: "as BOOLEAN", java: "throws"},
		// StringToNumericPrimitiveCastRule: BinaryStringUtils.toInt/toLong/toShort/toByte, Double.parseDouble.
		{from: ty("STRING"), to: ty("INT"), in: "42", want: 42, java: "toInt"},
		{from: ty("STRING"), to: ty("INT"), in: "-2147483648", want: math.MinInt32, java: "toInt min"},
		{from: ty("STRING"), to: ty("INT"), in: "12.99", want: 12, java: "toInt: fraction checked and dropped"},
		{from: ty("STRING"), to: ty("INT"), in: "+7", want: 7, java: "toInt: leading +"},
		{from: ty("STRING"), to: ty("INT"), in: "2147483648", err: "Overflow", java: "toInt throws"},
		{from: ty("STRING"), to: ty("INT"), in: "abc", err: "Invalid character", java: "toInt throws NumberFormatException"},
		{from: ty("STRING"), to: ty("INT"), in: " 1", err: "Invalid character", java: "toInt: no trimming"},
		{from: ty("STRING"), to: ty("INT"), in: "1.2x", err: "Invalid character", java: "fraction must be digits"},
		{from: ty("STRING"), to: ty("INT"), in: "", err: "Input is empty", java: "toInt"},
		{from: ty("STRING"), to: ty("TINYINT"), in: "128", err: "Overflow", java: "toByte"},
		{from: ty("STRING"), to: ty("SMALLINT"), in: "-32768", want: -32768, java: "toShort"},
		{from: ty("STRING"), to: ty("BIGINT"), in: "9223372036854775807", want: int64(math.MaxInt64), java: "toLong"},
		{from: ty("STRING"), to: ty("BIGINT"), in: "9223372036854775808", err: "Overflow", java: "toLong"},
		{from: ty("STRING"), to: ty("DOUBLE"), in: " 1.5e3 ", want: 1500.0, java: "Double.parseDouble trims"},
		{from: ty("STRING"), to: ty("DOUBLE"), in: "2d", want: 2.0, java: "Double.parseDouble accepts a d suffix"},
		{from: ty("STRING"), to: ty("DOUBLE"), in: "-Infinity", want: math.Inf(-1), java: "parseDouble"},
		{from: ty("STRING"), to: ty("FLOAT"), in: "0.1", want: float64(float32(0.1)), java: "Float.parseFloat"},
		{from: ty("STRING"), to: ty("DOUBLE"), in: "1,5", err: "For input string", java: "parseDouble throws"},
		{from: ty("STRING"), to: ty("DOUBLE"), in: "inf", err: "For input string", java: "only Infinity"},
		// StringToDecimalCastRule: new BigDecimal(String), fromBigDecimal.
		{from: ty("STRING"), to: ty("DECIMAL(5, 2)"), in: "1.235", want: dec{"124", 2}, java: "HALF_UP"},
		{from: ty("STRING"), to: ty("DECIMAL(5, 2)"), in: "1E2", want: dec{"10000", 2}, java: "exponent"},
		{from: ty("STRING"), to: ty("DECIMAL(5, 2)"), in: "12345", want: null, java: "overflow → null"},
		{from: ty("STRING"), to: ty("DECIMAL(5, 2)"), in: " 1", err: "BigDecimal", java: "new BigDecimal throws on space"},
		// StringToDateCastRule: BinaryStringUtils.toDate.
		{from: ty("STRING"), to: ty("DATE"), in: "2023-01-02", want: 19359, java: "parseDate"},
		{from: ty("STRING"), to: ty("DATE"), in: "2023-1-2 10:00:00", want: 19359, java: "parseDate: after the space ignored"},
		{from: ty("STRING"), to: ty("DATE"), in: "2023", want: 2023, java: "isNumeric → toInt: a day count"},
		{from: ty("STRING"), to: ty("DATE"), in: "1969-12-31", want: -1, java: "parseDate"},
		{from: ty("STRING"), to: ty("DATE"), in: "2023-02-29", err: "For input string", java: "isIllegalDate → DateTimeException"},
		// StringToTimeCastRule: BinaryStringUtils.toTime.
		{from: ty("STRING"), to: ty("TIME(3)"), in: "10:20:30.1239", want: 37230124, java: "parseTime, parseFraction rounds on the 4th digit"},
		{from: ty("STRING"), to: ty("TIME(0)"), in: "10:20", want: 37200000, java: "parseTime"},
		// StringToTimestampCastRule: BinaryStringUtils.toTimestamp.
		{from: ty("STRING"), to: ty("TIMESTAMP(3)"), in: "2023-01-02 03:04:05.123456", want: tsv{millis: 1672628645123}, java: "DEFAULT_TIMESTAMP_FORMATTER, nanos floored to precision 3"},
		{from: ty("STRING"), to: ty("TIMESTAMP(9)"), in: "2023-01-02T03:04:05.123456789", want: ts9, java: "ISO T form"},
		{from: ty("STRING"), to: ty("TIMESTAMP(6)"), in: "2023-1-2", want: tsv{millis: 1672617600000}, java: "date only, one-digit month/day"},
		{from: ty("STRING"), to: ty("TIMESTAMP(3)"), in: "2023-02-30 00:00:00", want: tsv{millis: 1677542400000}, java: "SMART resolver clamps to Feb 28"},
		{from: ty("STRING"), to: ty("TIMESTAMP(0)"), in: "100", want: tsv{millis: 100000}, java: "numeric: epoch seconds for precision 0"},
		{from: ty("STRING"), to: ty("TIMESTAMP(6)"), in: "-1500", want: tsv{millis: -2, nanos: 500000}, java: "fromMillisToTimestamp, negative micros"},
		{from: ty("STRING"), to: ty("TIMESTAMP(3) WITH LOCAL TIME ZONE"), in: "2023-01-02 03:04:05", want: tsv{millis: 1672628645000}, java: "LTZ parse in the zone (UTC)"},
		{from: ty("STRING"), to: ty("TIMESTAMP(3)"), in: "2023-01-02 3:4", err: "could not be parsed", java: "seconds required after a space"},
		// NumericToStringCastRule / BooleanToStringCastRule / StringToStringCastRule (toCharacterString).
		{from: ty("INT"), to: ty("STRING"), in: -42, want: "-42", java: "Integer.toString"},
		{from: ty("DOUBLE"), to: ty("STRING"), in: 11.1, want: "11.1", java: "Double.toString"},
		{from: ty("DOUBLE"), to: ty("STRING"), in: 100.0, want: "100.0", java: "Double.toString"},
		{from: ty("DOUBLE"), to: ty("STRING"), in: 1e7, want: "1.0E7", java: "Double.toString: scientific from 1e7"},
		{from: ty("DOUBLE"), to: ty("STRING"), in: 0.0001, want: "1.0E-4", java: "Double.toString: scientific below 1e-3"},
		{from: ty("DOUBLE"), to: ty("STRING"), in: 0.001, want: "0.001", java: "Double.toString"},
		{from: ty("DOUBLE"), to: ty("STRING"), in: -1.25e-10, want: "-1.25E-10", java: "Double.toString"},
		{from: ty("DOUBLE"), to: ty("STRING"), in: nan, want: "NaN", java: "Double.toString"},
		{from: ty("DOUBLE"), to: ty("STRING"), in: math.Copysign(0, -1), want: "-0.0", java: "Double.toString"},
		{from: ty("FLOAT"), to: ty("STRING"), in: 0.1, want: "0.1", java: "Float.toString (shortest float)"},
		{from: ty("FLOAT"), to: ty("STRING"), in: 1.0e10, want: "1.0E10", java: "Float.toString"},
		{from: ty("DECIMAL(5, 2)"), to: ty("STRING"), in: dec{"-5", 2}, want: "-0.05", java: "BigDecimal.toPlainString"},
		{from: ty("BIGINT"), to: ty("VARCHAR(3)"), in: int64(123456), want: "123", java: "toCharacterString cuts"},
		{from: ty("INT"), to: ty("CHAR(5)"), in: 7, want: "7    ", java: "toCharacterString pads CHAR"},
		{from: ty("BOOLEAN"), to: ty("STRING"), in: true, want: "true", java: "Boolean.toString"},
		{from: ty("BOOLEAN"), to: ty("VARCHAR(2)"), in: false, want: "fa", java: "toCharacterString cuts"},
		{from: ty("STRING"), to: ty("VARCHAR(2)"), in: "héllo", want: "hé", java: "cuts by characters"},
		{from: ty("VARCHAR(3)"), to: ty("CHAR(4)"), in: "ab", want: "ab  ", java: "CHAR pads"},
		// TimestampToStringCastRule: DateTimeUtils.formatTimestamp (STRING target only).
		{from: ty("TIMESTAMP(9)"), to: ty("STRING"), in: ts9, want: "2023-01-02 03:04:05.123456789", java: "formatTimestamp"},
		{from: ty("TIMESTAMP(3)"), to: ty("STRING"), in: tsv{millis: 1672628645100}, want: "2023-01-02 03:04:05.100", java: "trailing zeros kept down to precision"},
		{from: ty("TIMESTAMP(0)"), to: ty("STRING"), in: tsv{millis: 1672628645000}, want: "2023-01-02 03:04:05", java: "no fraction"},
		{from: ty("TIMESTAMP(6)"), to: ty("STRING"), in: preEpoch, want: "1969-12-31 23:59:58.500250", java: "pre-1970 via floor"},
		{from: ty("TIMESTAMP(6) WITH LOCAL TIME ZONE"), to: ty("STRING"), in: tsv{millis: 0}, want: "1970-01-01 00:00:00.000000", java: "LTZ in the zone (UTC)"},
		// DateToStringCastRule / TimeToStringCastRule.
		{from: ty("DATE"), to: ty("STRING"), in: 19359, want: "2023-01-02", java: "formatDate"},
		{from: ty("DATE"), to: ty("STRING"), in: -719528, want: "0000-01-01", java: "formatDate, year 0"},
		{from: ty("TIME(3)"), to: ty("STRING"), in: 37230500, want: "10:20:30.5", java: "formatTimestampMillis stops at zero rest"},
		{from: ty("TIME(3)"), to: ty("STRING"), in: 37230000, want: "10:20:30.0", java: "formatTimestampMillis: at least one digit"},
		{from: ty("TIME(0)"), to: ty("STRING"), in: 37230000, want: "10:20:30", java: "precision 0"},
		// BinaryToStringCastRule / StringToBinaryCastRule / BinaryToBinaryCastRule.
		{from: ty("BYTES"), to: ty("STRING"), in: "abc", want: "abc", java: "BinaryString.fromBytes"},
		{from: ty("STRING"), to: ty("BYTES"), in: "héllo", want: "héllo", java: "toBinaryString(toBytes)"},
		{from: ty("STRING"), to: ty("BINARY(4)"), in: "ab", want: "ab\x00\x00", java: "BINARY pads with zeros"},
		{from: ty("STRING"), to: ty("VARBINARY(2)"), in: "abc", want: "ab", java: "VARBINARY cuts"},
		{from: ty("BINARY(3)"), to: ty("VARBINARY(10)"), in: "abc", want: "abc", java: "BinaryToBinary"},
		// TimestampToTimestampCastRule (truncate only when narrowing).
		{from: ty("TIMESTAMP(3)"), to: ty("TIMESTAMP(6)"), in: tsv{millis: 1672628645123}, want: tsv{millis: 1672628645123}, java: "widening"},
		{from: ty("TIMESTAMP(9)"), to: ty("TIMESTAMP(6)"), in: ts9, want: tsv{millis: 1672628645123, nanos: 456000}, java: "truncate > 3: nanos cut"},
		{from: ty("TIMESTAMP(9)"), to: ty("TIMESTAMP(3)"), in: ts9, want: tsv{millis: 1672628645123}, java: "truncate <= 3"},
		{from: ty("TIMESTAMP(3)"), to: ty("TIMESTAMP(0)"), in: tsv{millis: -1500}, want: tsv{millis: -1000}, java: "zeroLastDigits truncates toward zero"},
		{from: ty("TIMESTAMP(6)"), to: ty("TIMESTAMP(4)"), in: tsv{millis: 5, nanos: 123000}, want: tsv{millis: 5, nanos: 100000}, java: "truncate to 4 digits"},
		{from: ty("TIMESTAMP(3)"), to: ty("TIMESTAMP(3) WITH LOCAL TIME ZONE"), in: tsv{millis: 7}, want: tsv{millis: 7}, java: "zone UTC: same instant"},
		// DateToTimestampCastRule / TimeToTimestampCastRule / NumericPrimitiveToTimestamp.
		{from: ty("DATE"), to: ty("TIMESTAMP(3)"), in: 19359, want: tsv{millis: 19359 * millisPerDay}, java: "fromEpochMillis(days * MILLIS_PER_DAY)"},
		{from: ty("DATE"), to: ty("TIMESTAMP(6)"), in: -1, want: tsv{millis: -millisPerDay}, java: "pre-1970 date"},
		{from: ty("DATE"), to: ty("TIMESTAMP(0) WITH LOCAL TIME ZONE"), in: 1, want: tsv{millis: millisPerDay}, java: "midnight in the zone (UTC)"},
		{from: ty("TIME(0)"), to: ty("TIMESTAMP(3)"), in: 3600000, want: tsv{millis: 3600000}, java: "fromEpochMillis(time)"},
		{from: ty("INT"), to: ty("TIMESTAMP(3)"), in: -2, want: tsv{millis: -2000}, java: "seconds * 1000"},
		{from: ty("BIGINT"), to: ty("TIMESTAMP(0)"), in: int64(1672628645), want: tsv{millis: 1672628645000}, java: "seconds * 1000"},
		// TimestampToDateCastRule / TimestampToTimeCastRule / TimestampToNumericPrimitiveCastRule.
		{from: ty("TIMESTAMP(3)"), to: ty("DATE"), in: tsv{millis: -1}, want: -1, java: "floorDiv"},
		{from: ty("TIMESTAMP(3)"), to: ty("TIME(3)"), in: tsv{millis: -1}, want: millisPerDay - 1, java: "floorMod"},
		{from: ty("TIMESTAMP(3)"), to: ty("BIGINT"), in: tsv{millis: -1500}, want: int64(-1), java: "unixTimestamp: millis / 1000 truncates"},
		{from: ty("TIMESTAMP(3)"), to: ty("INT"), in: tsv{millis: 1672628645999}, want: 1672628645, java: "(int) unixTimestamp"},
		// The remaining allowed pairs, one or two edge values each.
		{from: ty("BOOLEAN"), to: ty("TINYINT"), in: true, want: 1, java: "BooleanToNumericCastRule (byte)"},
		{from: ty("BOOLEAN"), to: ty("SMALLINT"), in: false, want: 0, java: "BooleanToNumericCastRule (short)"},
		{from: ty("BOOLEAN"), to: ty("BIGINT"), in: true, want: int64(1), java: "BooleanToNumericCastRule (long)"},
		{from: ty("BOOLEAN"), to: ty("FLOAT"), in: true, want: 1.0, java: "BooleanToNumericCastRule (float)"},
		{from: ty("BOOLEAN"), to: ty("CHAR(5)"), in: true, want: "true ", java: "BooleanToStringCastRule, CHAR pads"},
		{from: ty("TINYINT"), to: ty("SMALLINT"), in: -128, want: -128, java: "widening"},
		{from: ty("TINYINT"), to: ty("INT"), in: 127, want: 127, java: "widening"},
		{from: ty("TINYINT"), to: ty("BIGINT"), in: -1, want: int64(-1), java: "widening"},
		{from: ty("TINYINT"), to: ty("DOUBLE"), in: -128, want: -128.0, java: "widening"},
		{from: ty("TINYINT"), to: ty("DECIMAL(10, 2)"), in: -128, want: dec{"-12800", 2}, java: "castFrom(long)"},
		{from: ty("TINYINT"), to: ty("CHAR(5)"), in: -128, want: "-128 ", java: "Byte.toString, CHAR pads"},
		{from: ty("TINYINT"), to: ty("VARCHAR(2)"), in: 127, want: "12", java: "Byte.toString, cut"},
		{from: ty("SMALLINT"), to: ty("BOOLEAN"), in: 0, want: false, java: "NumericToBooleanCastRule"},
		{from: ty("SMALLINT"), to: ty("TINYINT"), in: 300, want: 44, java: "Short.byteValue wraps"},
		{from: ty("SMALLINT"), to: ty("INT"), in: -32768, want: -32768, java: "widening"},
		{from: ty("SMALLINT"), to: ty("BIGINT"), in: 32767, want: int64(32767), java: "widening"},
		{from: ty("SMALLINT"), to: ty("FLOAT"), in: 1000, want: 1000.0, java: "widening"},
		{from: ty("SMALLINT"), to: ty("DOUBLE"), in: -5, want: -5.0, java: "widening"},
		{from: ty("SMALLINT"), to: ty("DECIMAL(3, 1)"), in: 100, want: null, java: "100.0 needs precision 4 → null"},
		{from: ty("SMALLINT"), to: ty("CHAR(5)"), in: 12, want: "12   ", java: "Short.toString, CHAR pads"},
		{from: ty("SMALLINT"), to: ty("VARCHAR(1)"), in: -5, want: "-", java: "cut"},
		{from: ty("INT"), to: ty("BOOLEAN"), in: 2, want: true, java: "NumericToBooleanCastRule"},
		{from: ty("INT"), to: ty("FLOAT"), in: 16777217, want: 16777216.0, java: "(float) int rounds to nearest even"},
		{from: ty("INT"), to: ty("TIMESTAMP(3) WITH LOCAL TIME ZONE"), in: 1, want: tsv{millis: 1000}, java: "NumericPrimitiveToTimestamp, zone UTC"},
		{from: ty("BIGINT"), to: ty("TINYINT"), in: int64(255), want: -1, java: "Long.byteValue wraps"},
		{from: ty("BIGINT"), to: ty("SMALLINT"), in: int64(65537), want: 1, java: "Long.shortValue wraps"},
		{from: ty("BIGINT"), to: ty("DECIMAL(20, 0)"), in: int64(math.MaxInt64), want: dec{"9223372036854775807", 0}, java: "castFrom(long)"},
		{from: ty("BIGINT"), to: ty("CHAR(3)"), in: int64(12345), want: "123", java: "Long.toString, cut"},
		{from: ty("BIGINT"), to: ty("TIMESTAMP(0) WITH LOCAL TIME ZONE"), in: int64(-1), want: tsv{millis: -1000}, java: "seconds * 1000"},
		{from: ty("FLOAT"), to: ty("TINYINT"), in: -129.9, want: 127, java: "(byte)(int)-129.9f = (byte)-129 = 127"},
		{from: ty("FLOAT"), to: ty("INT"), in: 3e9, want: math.MaxInt32, java: "(int) saturates"},
		{from: ty("FLOAT"), to: ty("BIGINT"), in: nan, want: int64(0), java: "(long) NaN = 0"},
		{from: ty("FLOAT"), to: ty("CHAR(4)"), in: 1.5, want: "1.5 ", java: "Float.toString, CHAR pads"},
		{from: ty("DOUBLE"), to: ty("SMALLINT"), in: -1e10, want: 0, java: "(short)(int)-1e10 = (short)Integer.MIN_VALUE = 0"},
		{from: ty("DOUBLE"), to: ty("CHAR(2)"), in: 1e7, want: "1.", java: "Double.toString 1.0E7, cut"},
		{from: ty("DECIMAL(10, 2)"), to: ty("SMALLINT"), in: dec{"70000099", 2}, want: -20896, java: "(short) castToIntegral(700000.99) = (short)700000"},
		{from: ty("DECIMAL(10, 2)"), to: ty("CHAR(6)"), in: dec{"-123456", 2}, want: "-1234.", java: "toPlainString, cut"},
		{from: ty("CHAR(5)"), to: ty("BOOLEAN"), in: "no", want: false, java: "toBoolean"},
		{from: ty("CHAR(5)"), to: ty("TINYINT"), in: "-7", want: -7, java: "toByte"},
		{from: ty("CHAR(5)"), to: ty("SMALLINT"), in: "300", want: 300, java: "toShort"},
		{from: ty("CHAR(5)"), to: ty("INT"), in: "1.", want: 1, java: "toInt: empty fraction"},
		{from: ty("CHAR(5)"), to: ty("BIGINT"), in: "-0", want: int64(0), java: "toLong"},
		{from: ty("CHAR(5)"), to: ty("FLOAT"), in: "1e-50", want: 0.0, java: "Float.parseFloat underflows to 0"},
		{from: ty("CHAR(5)"), to: ty("DOUBLE"), in: "0x1p3", want: 8.0, java: "Double.parseDouble hex"},
		{from: ty("CHAR(6)"), to: ty("DECIMAL(5, 2)"), in: "-0.005", want: dec{"-1", 2}, java: "HALF_UP away from zero"},
		{from: ty("CHAR(5)"), to: ty("VARCHAR(3)"), in: "abcde", want: "abc", java: "StringToString cut"},
		{from: ty("CHAR(5)"), to: ty("BINARY(2)"), in: "abc", want: "ab", java: "toBinaryString cut"},
		{from: ty("CHAR(5)"), to: ty("VARBINARY(10)"), in: "é", want: "é", java: "UTF-8 bytes"},
		{from: ty("CHAR(10)"), to: ty("DATE"), in: "1970-01-02", want: 1, java: "parseDate"},
		{from: ty("CHAR(12)"), to: ty("TIME(3)"), in: "23:59:59.999", want: 86399999, java: "parseTime"},
		{from: ty("CHAR(30)"), to: ty("TIMESTAMP(3)"), in: "1969-12-31 23:59:59.999", want: tsv{millis: -1}, java: "pre-1970 parse"},
		{from: ty("CHAR(30)"), to: ty("TIMESTAMP(6) WITH LOCAL TIME ZONE"), in: "1970-01-01T00:00:00.000001", want: tsv{nanos: 1000}, java: "LTZ parse, UTC"},
		{from: ty("BINARY(5)"), to: ty("CHAR(2)"), in: "abc", want: "abc", java: "BinaryToStringCastRule: fromBytes, not cut"},
		{from: ty("BINARY(5)"), to: ty("VARCHAR(2)"), in: "abc", want: "abc", java: "BinaryToStringCastRule: not cut"},
		{from: ty("BYTES"), to: ty("CHAR(1)"), in: "xy", want: "xy", java: "BinaryToStringCastRule: not cut"},
		{from: ty("BYTES"), to: ty("BINARY(4)"), in: "ab", want: "ab\x00\x00", java: "BinaryToBinary pads"},
		{from: ty("TIME(3)"), to: ty("TIMESTAMP(3) WITH LOCAL TIME ZONE"), in: 1000, want: tsv{millis: 1000}, java: "timeToTimestampWithLocalZone, UTC"},
		{from: ty("TIMESTAMP(3) WITH LOCAL TIME ZONE"), to: ty("INT"), in: tsv{millis: 1672628645999}, want: 1672628645, java: "unixTimestamp"},
		{from: ty("TIMESTAMP(3) WITH LOCAL TIME ZONE"), to: ty("BIGINT"), in: tsv{millis: -1}, want: int64(0), java: "-1 / 1000 = 0 (truncating)"},
		{from: ty("TIMESTAMP(3) WITH LOCAL TIME ZONE"), to: ty("DATE"), in: tsv{millis: -1}, want: -1, java: "timestampWithLocalZoneToDate, UTC"},
		{from: ty("TIMESTAMP(3) WITH LOCAL TIME ZONE"), to: ty("TIME(3)"), in: tsv{millis: -1}, want: millisPerDay - 1, java: "timestampWithLocalZoneToTime, UTC"},
		{from: ty("TIMESTAMP(3) WITH LOCAL TIME ZONE"), to: ty("TIMESTAMP(3)"), in: tsv{millis: 5}, want: tsv{millis: 5}, java: "timestampWithLocalZoneToTimestamp, UTC"},
		// Nested → STRING: Array/Map/RowToStringCastRule.
		// (built separately below)
		// NULL stays NULL for every rule.
		{from: ty("STRING"), to: ty("INT"), in: null, want: null, java: "CastFieldGetter: null in, null out"},
	}
	// Every pair of primitive roots Java allows has at least one value case.
	covered := map[[2]types.Root]bool{}
	for _, c := range cases {
		covered[[2]types.Root{c.from.Root, c.to.Root}] = true
	}
	roots := []string{"BOOLEAN", "TINYINT", "SMALLINT", "INT", "BIGINT", "FLOAT", "DOUBLE", "DECIMAL(10, 2)",
		"CHAR(5)", "STRING", "BINARY(5)", "BYTES", "DATE", "TIME(3)", "TIMESTAMP(3)", "TIMESTAMP(3) WITH LOCAL TIME ZONE"}
	for _, f := range roots {
		for _, to := range roots {
			ft, tt := ty(f), ty(to)
			if ft.Root != tt.Root && CastAllowed(ft, tt) && !covered[[2]types.Root{ft.Root, tt.Root}] {
				t.Errorf("no value case for %s → %s", ft.Root, tt.Root)
			}
		}
	}
	mem := testutil.CheckedAllocator(t)
	for _, c := range cases {
		name := fmt.Sprintf("%s→%s/%v", c.from, c.to, c.in)
		t.Run(name, func(t *testing.T) {
			if !CastAllowed(c.from, c.to) {
				t.Fatalf("CastAllowed(%s, %s) = false; Java allows it (%s)", c.from, c.to, c.java)
			}
			in := oneValue(t, mem, c.from, c.in)
			defer in.Release()
			out, err := javaCast(mem, in, c.from, c.to)
			if c.err != "" {
				if err == nil {
					out.Release()
					t.Fatalf("want error containing %q (%s), got success", c.err, c.java)
				}
				if !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %q does not contain %q (%s)", err, c.err, c.java)
				}
				return
			}
			if err != nil {
				t.Fatalf("%v (%s)", err, c.java)
			}
			defer out.Release()
			if exactWidening(c.from, c.to) {
				// adapt() takes arrow compute's vectorised cast here: same values.
				viaAdapt, err := adapt(context.Background(), mem, in, c.from, c.to)
				if err != nil {
					t.Fatal(err)
				}
				defer viaAdapt.Release()
				if !array.Equal(viaAdapt, out) {
					t.Fatalf("adapt %v != javaCast %v", viaAdapt, out)
				}
			}
			if !arrow.TypeEqual(out.DataType(), ArrowType(c.to)) {
				t.Fatalf("type %s, want %s", out.DataType(), ArrowType(c.to))
			}
			got := valueOf(out, c.to)
			want := c.want
			if w, ok := want.(int); ok && (c.to.Root == types.BigInt) {
				want = int64(w)
			}
			if gf, ok := got.(float64); ok {
				if wf, ok := want.(float64); ok && (gf == wf || (gf != gf && wf != wf)) && math.Signbit(gf) == math.Signbit(wf) {
					return
				}
			}
			if got != want {
				t.Fatalf("got %#v, want %#v (%s)", got, want, c.java)
			}
		})
	}
}

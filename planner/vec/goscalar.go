package vec

import (
	"fmt"
	"math"
	"math/big"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/scalar"

	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
)

// GoScalar converts a Go value (a bound parameter) to a scalar of type t.
// t == arrow.Null (or nil) means the value's natural type: BIGINT, DOUBLE,
// VARCHAR, BOOLEAN, BLOB, TIMESTAMP(us), DECIMAL. Numbers convert to other
// numeric types only when exact; strings parse into any type; a value that
// does not fit is an error naming the value and the type.
func GoScalar(v any, t arrow.DataType) (scalar.Scalar, error) {
	nat, err := naturalScalar(v, t)
	if err != nil {
		return nil, err
	}
	if isNull(t) {
		return nat, nil
	}
	if !nat.IsValid() {
		return scalar.MakeNullScalar(t), nil
	}
	nt := nat.DataType()
	if arrow.TypeEqual(nt, t) {
		return nat, nil
	}
	bad := func(why string) error {
		return invalidf("value %v (%T) does not fit %s%s", v, v, TypeName(t), why)
	}
	switch {
	case isStringLike(nt):
		if isStringLike(t) || isBinaryLike(t) || castSupported(nt, t) {
			s, err := CastScalar(nat, t)
			if err != nil {
				return nil, fmt.Errorf("value %q for %s: %w", v, TypeName(t), err)
			}
			return s, nil
		}
	case isBinaryLike(nt):
		if isBinaryLike(t) || isStringLike(t) {
			return CastScalar(nat, t)
		}
	case IsNumeric(nt) && IsNumeric(t):
		s, err := CastScalar(nat, t)
		if err != nil {
			return nil, bad(": out of range")
		}
		back, err := CastScalar(s, nt)
		if err != nil || !scalar.Equals(back, nat) {
			return nil, bad(" exactly")
		}
		return s, nil
	case nt.ID() == arrow.BOOL && t.ID() == arrow.BOOL:
		return nat, nil
	case isTimestamp(nt) && (isTimestamp(t) || t.ID() == arrow.DATE32 || isTime(t)):
		s, err := CastScalar(nat, t)
		if err != nil {
			return nil, bad(": " + err.Error())
		}
		return s, nil
	case nt.ID() == arrow.DATE32 && isTimestamp(t):
		return CastScalar(nat, t)
	}
	return nil, bad("")
}

func naturalScalar(v any, t arrow.DataType) (scalar.Scalar, error) {
	switch x := v.(type) {
	case nil:
		if isNull(t) {
			return scalar.ScalarNull, nil
		}
		return scalar.MakeNullScalar(t), nil
	case bool:
		return scalar.NewBooleanScalar(x), nil
	case int:
		return scalar.NewInt64Scalar(int64(x)), nil
	case int8:
		return scalar.NewInt64Scalar(int64(x)), nil
	case int16:
		return scalar.NewInt64Scalar(int64(x)), nil
	case int32:
		return scalar.NewInt64Scalar(int64(x)), nil
	case int64:
		return scalar.NewInt64Scalar(x), nil
	case uint:
		return uintScalar(uint64(x)), nil
	case uint8:
		return scalar.NewInt64Scalar(int64(x)), nil
	case uint16:
		return scalar.NewInt64Scalar(int64(x)), nil
	case uint32:
		return scalar.NewInt64Scalar(int64(x)), nil
	case uint64:
		return uintScalar(x), nil
	case float32:
		return scalar.NewFloat64Scalar(float64(x)), nil
	case float64:
		return scalar.NewFloat64Scalar(x), nil
	case string:
		return scalar.NewStringScalar(x), nil
	case []byte:
		return scalar.NewBinaryScalar(memoryBytes(x), tBinary), nil
	case time.Time:
		us := x.UnixMicro()
		if x.Nanosecond()%1000 != 0 {
			return scalar.NewTimestampScalar(arrow.Timestamp(x.UnixNano()), &arrow.TimestampType{Unit: arrow.Nanosecond}), nil
		}
		return scalar.NewTimestampScalar(arrow.Timestamp(us), tTSus), nil
	case predicate.Timestamp:
		if x.NanoOfMilli%1000 != 0 {
			ns := new(big.Int).Mul(big.NewInt(x.Millis), big.NewInt(1e6))
			ns.Add(ns, big.NewInt(int64(x.NanoOfMilli)))
			if !ns.IsInt64() {
				return nil, invalidf("timestamp %v is out of range", x)
			}
			return scalar.NewTimestampScalar(arrow.Timestamp(ns.Int64()), &arrow.TimestampType{Unit: arrow.Nanosecond}), nil
		}
		if x.Millis > math.MaxInt64/1000 || x.Millis < math.MinInt64/1000 {
			return nil, invalidf("timestamp %v is out of range", x)
		}
		return scalar.NewTimestampScalar(arrow.Timestamp(x.Millis*1000+int64(x.NanoOfMilli/1000)), tTSus), nil
	case predicate.Decimal:
		u := x.Unscaled
		if u == nil {
			u = new(big.Int)
		}
		sc := x.Scale
		if sc < 0 { // 12E+3: bring to scale 0
			u = new(big.Int).Mul(u, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(-sc)), nil))
			sc = 0
		}
		digits := len(new(big.Int).Abs(u).String())
		p := max(digits, sc, 1)
		if p > 38 || sc > 38 {
			return nil, invalidf("decimal %s has more than 38 digits", x)
		}
		return decimalScalar(decimal128.FromBigInt(u), int32(p), int32(sc)), nil
	case decimal128.Num:
		if d, ok := t.(*arrow.Decimal128Type); ok {
			if !fitsPrec(x, d.Precision) {
				return nil, invalidf("decimal %s does not fit %s", formatNum(x, d.Scale), TypeName(t))
			}
			return decimalScalar(x, d.Precision, d.Scale), nil
		}
		return decimalScalar(x, 38, 0), nil
	case arrow.MonthDayNanoInterval:
		return scalar.NewMonthDayNanoIntervalScalar(x), nil
	}
	return nil, invalidf("unsupported parameter value %v of Go type %T", v, v)
}

func uintScalar(x uint64) scalar.Scalar {
	if x <= math.MaxInt64 {
		return scalar.NewInt64Scalar(int64(x))
	}
	return decimalScalar(decimal128.FromU64(x), 20, 0)
}

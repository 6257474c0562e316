package format

import (
	"math/big"

	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/schema"

	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// columnStats converts the footer statistics of one leaf column chunk,
// written as fileType, to literals of the current type target.
func (f *ParquetFile) columnStats(rg *metadata.RowGroupMetaData, leaf int, fileType, target types.DataType) (predicate.ColumnStats, error) {
	cs := predicate.ColumnStats{NullCount: -1}
	cc, err := rg.ColumnChunk(leaf)
	if err != nil {
		return cs, err
	}
	if set, err := cc.StatsSet(); err != nil || !set {
		return cs, errNoStats
	}
	st, err := cc.Statistics()
	if err != nil || st == nil {
		return cs, errNoStats
	}
	if st.HasNullCount() {
		cs.NullCount = st.NullCount()
	}
	if !st.HasMinMax() {
		return cs, nil
	}
	col := f.md.Schema.Column(leaf)
	mn, mx, ok := statsLiterals(st, col, fileType)
	if !ok {
		return cs, nil
	}
	mn, ok1 := evolveLiteral(mn, fileType, target)
	mx, ok2 := evolveLiteral(mx, fileType, target)
	if ok1 && ok2 {
		cs.Min, cs.Max = mn, mx
	}
	return cs, nil
}

// statsLiterals decodes min/max as literals of fileType (predicate.Literal convention).
func statsLiterals(st metadata.TypedStatistics, col *schema.Column, t types.DataType) (mn, mx predicate.Literal, ok bool) {
	switch s := st.(type) {
	case *metadata.BooleanStatistics:
		if t.Root == types.Boolean {
			return s.Min(), s.Max(), true
		}
	case *metadata.Int32Statistics:
		switch t.Root {
		case types.TinyInt, types.SmallInt, types.Int, types.Date, types.Time, types.BigInt:
			return int64(s.Min()), int64(s.Max()), true
		case types.Decimal:
			return predicate.Decimal{Unscaled: big.NewInt(int64(s.Min())), Scale: t.Scale},
				predicate.Decimal{Unscaled: big.NewInt(int64(s.Max())), Scale: t.Scale}, true
		}
	case *metadata.Int64Statistics:
		switch t.Root {
		case types.BigInt, types.Int, types.SmallInt, types.TinyInt:
			return s.Min(), s.Max(), true
		case types.Decimal:
			return predicate.Decimal{Unscaled: big.NewInt(s.Min()), Scale: t.Scale},
				predicate.Decimal{Unscaled: big.NewInt(s.Max()), Scale: t.Scale}, true
		case types.Timestamp, types.TimestampLTZ:
			unit, ok := int64TimestampUnit(col)
			if !ok {
				return nil, nil, false
			}
			return tsLiteral(s.Min(), unit), tsLiteral(s.Max(), unit), true
		}
	case *metadata.Float32Statistics:
		if t.Root == types.Float || t.Root == types.Double {
			return float64(s.Min()), float64(s.Max()), true
		}
	case *metadata.Float64Statistics:
		if t.Root == types.Double || t.Root == types.Float {
			return s.Min(), s.Max(), true
		}
	case *metadata.ByteArrayStatistics:
		return bytesLiterals(s.Min(), s.Max(), t)
	case *metadata.FixedLenByteArrayStatistics:
		return bytesLiterals(s.Min(), s.Max(), t)
	}
	return nil, nil, false
}

func bytesLiterals(mn, mx []byte, t types.DataType) (predicate.Literal, predicate.Literal, bool) {
	switch {
	case t.IsString():
		return string(mn), string(mx), true
	case t.IsBinary():
		return append([]byte(nil), mn...), append([]byte(nil), mx...), true
	case t.Root == types.Decimal:
		return predicate.Decimal{Unscaled: beTwosComplement(mn), Scale: t.Scale},
			predicate.Decimal{Unscaled: beTwosComplement(mx), Scale: t.Scale}, true
	}
	return nil, nil, false
}

// beTwosComplement decodes a big-endian two's complement integer.
func beTwosComplement(b []byte) *big.Int {
	v := new(big.Int).SetBytes(b)
	if len(b) > 0 && b[0]&0x80 != 0 {
		v.Sub(v, new(big.Int).Lsh(big.NewInt(1), uint(8*len(b))))
	}
	return v
}

// int64TimestampUnit is the unit of an INT64 timestamp column: from its
// TIMESTAMP logical type, else its legacy converted type. arrow-go hands the
// logical type out by value (schema.TimestampLogicalType), the pointer form is
// accepted too. A TIMESTAMP(MICROS/NANOS, isAdjustedToUTC=false) column, as
// Paimon writes TIMESTAMP(4..6), carries no converted type, so the logical
// type must be read or micros would be taken for millis. false when the unit
// is unknown: the statistics are then not used.
func int64TimestampUnit(col *schema.Column) (schema.TimeUnitType, bool) {
	var unit schema.TimeUnitType = schema.TimeUnitUnknown
	switch lt := col.LogicalType().(type) {
	case schema.TimestampLogicalType:
		unit = lt.TimeUnit()
	case *schema.TimestampLogicalType:
		unit = lt.TimeUnit()
	}
	if unit == schema.TimeUnitUnknown {
		switch col.ConvertedType() {
		case schema.ConvertedTypes.TimestampMillis:
			unit = schema.TimeUnitMillis
		case schema.ConvertedTypes.TimestampMicros:
			unit = schema.TimeUnitMicros
		}
	}
	switch unit {
	case schema.TimeUnitMillis, schema.TimeUnitMicros, schema.TimeUnitNanos:
		return unit, true
	}
	return unit, false
}

func tsLiteral(v int64, unit schema.TimeUnitType) predicate.Timestamp {
	switch unit {
	case schema.TimeUnitMicros:
		return predicate.Timestamp{Millis: floorDiv(v, 1000), NanoOfMilli: int32(floorMod(v, 1000) * 1000)}
	case schema.TimeUnitNanos:
		return predicate.Timestamp{Millis: floorDiv(v, 1_000_000), NanoOfMilli: int32(floorMod(v, 1_000_000))}
	}
	return predicate.Timestamp{Millis: v}
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

func floorMod(a, b int64) int64 { return a - floorDiv(a, b)*b }

// IntegerRank orders the integer types by width: TINYINT 1, SMALLINT 2,
// INT 3, BIGINT 4; any other root is 0. A cast from rank a to rank b >= a
// keeps every value.
func IntegerRank(r types.Root) int {
	switch r {
	case types.TinyInt:
		return 1
	case types.SmallInt:
		return 2
	case types.Int:
		return 3
	case types.BigInt:
		return 4
	}
	return 0
}

// evolveLiteral converts a statistics literal of the file's type to the
// current type, for the casts that are exact and order-preserving on every
// value (widenings); any other change (Java's narrowing casts wrap, round,
// cut or pad values) drops the bound.
func evolveLiteral(v predicate.Literal, from, to types.DataType) (predicate.Literal, bool) {
	fr, tr := IntegerRank(from.Root), IntegerRank(to.Root)
	switch {
	case from.Equal(to.WithNullable(from.Nullable)):
		return v, true
	case fr > 0 && tr >= fr:
		return v, true
	case fr > 0 && fr <= 3 && to.Root == types.Double, fr > 0 && fr <= 2 && to.Root == types.Float:
		return float64(v.(int64)), true
	case from.Root == types.Float && to.Root == types.Double:
		return v, true
	case fr > 0 && to.Root == types.Decimal:
		// Values that do not fit become NULL (Java): the bounds stay valid.
		return predicate.Decimal{Unscaled: big.NewInt(v.(int64))}, true
	case from.Root == types.Decimal && to.Root == types.Decimal:
		return v, to.Scale >= from.Scale && to.Precision-to.Scale >= from.Precision-from.Scale
	case from.IsString() && to.Root == types.VarChar:
		return v, to.Length >= from.Length
	case from.IsBinary() && to.Root == types.VarBinary:
		return v, to.Length >= from.Length && from.Root != types.Blob
	case from.Root == to.Root && (from.Root == types.Timestamp || from.Root == types.TimestampLTZ):
		return v, to.Precision >= from.Precision
	}
	return nil, false
}

package binrow

import (
	"encoding/binary"
	"fmt"

	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// Serialize encodes values in the manifest form used for _PARTITION,
// _MIN_KEY/_MAX_KEY and stats rows: int32 BIG-endian arity followed by the
// (little-endian) BinaryRow bytes (spec §5.5).
func Serialize(fields []types.DataType, values []any) ([]byte, error) {
	row, err := Encode(fields, values)
	if err != nil {
		return nil, err
	}
	return SerializeRow(len(fields), row), nil
}

// SerializeRow prefixes an already encoded row with its big-endian arity.
func SerializeRow(arity int, row []byte) []byte {
	out := make([]byte, 4+len(row))
	binary.BigEndian.PutUint32(out, uint32(arity))
	copy(out[4:], row)
	return out
}

// SplitSerialized splits the manifest form into its arity and row bytes,
// checking only that the fixed part of the row fits.
func SplitSerialized(b []byte) (arity int, row []byte, err error) {
	if len(b) < 4 {
		return 0, nil, fmt.Errorf("binrow: %w: serialized row of %d bytes has no arity", ErrCorrupt, len(b))
	}
	a := int32(binary.BigEndian.Uint32(b))
	if a < 0 {
		return 0, nil, fmt.Errorf("binrow: %w: negative arity %d", ErrCorrupt, a)
	}
	if _, err := NewRow(b[4:], int(a)); err != nil {
		return 0, nil, err
	}
	return int(a), b[4:], nil
}

// Deserialize decodes the manifest form. The stored arity must equal
// len(fields); a stats row written for a different column set is an error
// (callers evolve such rows by field id first).
func Deserialize(fields []types.DataType, b []byte) ([]any, error) {
	arity, row, err := SplitSerialized(b)
	if err != nil {
		return nil, err
	}
	if arity != len(fields) {
		return nil, fmt.Errorf("binrow: serialized row has arity %d, expected %d fields", arity, len(fields))
	}
	return Decode(fields, row)
}

// DeserializeRow returns a Row view of the manifest form, for the arity
// stored in it.
func DeserializeRow(b []byte) (Row, error) {
	arity, row, err := SplitSerialized(b)
	if err != nil {
		return Row{}, err
	}
	return NewRow(row, arity)
}

// SimpleStats are the min/max values of one data file's stats columns as
// stored in _KEY_STATS / _VALUE_STATS (the null counts are an Avro array and
// are not part of this encoding). Min[i]/Max[i] are nil when unknown.
type SimpleStats struct {
	Min []any
	Max []any
}

// StatsFieldTypes returns the types used to encode stats rows for the given
// columns: the column types made nullable (spec §8).
func StatsFieldTypes(cols []types.DataType) []types.DataType {
	out := make([]types.DataType, len(cols))
	for i, t := range cols {
		out[i] = t.WithNullable(true)
	}
	return out
}

// DecodeSimpleStats decodes the serialized _MIN_VALUES and _MAX_VALUES of a
// stats record whose columns have the given types (already restricted to
// _VALUE_STATS_COLS when that is set).
func DecodeSimpleStats(cols []types.DataType, minValues, maxValues []byte) (SimpleStats, error) {
	ft := StatsFieldTypes(cols)
	mn, err := Deserialize(ft, minValues)
	if err != nil {
		return SimpleStats{}, fmt.Errorf("stats _MIN_VALUES: %w", err)
	}
	mx, err := Deserialize(ft, maxValues)
	if err != nil {
		return SimpleStats{}, fmt.Errorf("stats _MAX_VALUES: %w", err)
	}
	return SimpleStats{Min: mn, Max: mx}, nil
}

// EncodeSimpleStats is the inverse of DecodeSimpleStats.
func EncodeSimpleStats(cols []types.DataType, s SimpleStats) (minValues, maxValues []byte, err error) {
	ft := StatsFieldTypes(cols)
	if minValues, err = Serialize(ft, s.Min); err != nil {
		return nil, nil, fmt.Errorf("stats _MIN_VALUES: %w", err)
	}
	if maxValues, err = Serialize(ft, s.Max); err != nil {
		return nil, nil, fmt.Errorf("stats _MAX_VALUES: %w", err)
	}
	return minValues, maxValues, nil
}

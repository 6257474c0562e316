package write

import (
	"encoding/binary"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// Dictionary encoding per column. arrow-go dictionary-encodes every column
// until its dictionary outgrows the dictionary page limit (1 MiB, as
// parquet-mr): a nearly unique column (a key, a price, a comment) then
// carries a dictionary as large as its values plus the indices, which a
// reader must fetch and decode whole even to read a few pages. The first
// batch of each file is sampled: a column whose sampled values are mostly
// distinct is written plain.

const (
	// dictSampleRows is how many leading rows of a file's first batch are
	// sampled; dictSampleMin the fewest non-NULL values to decide on (fewer:
	// the default, dictionary, is kept).
	dictSampleRows = 8192
	dictSampleMin  = 1024
)

// plainColumns returns the names of rec's top-level columns to write without
// a dictionary: flat columns whose sampled non-NULL values are more than half
// distinct. Booleans, nested and unsupported types keep the default.
func plainColumns(rec arrow.RecordBatch) []string {
	n := min(int(rec.NumRows()), dictSampleRows)
	var out []string
	for i := 0; i < int(rec.NumCols()); i++ {
		if mostlyDistinct(rec.Column(i), n) {
			out = append(out, rec.ColumnName(i))
		}
	}
	return out
}

// mostlyDistinct reports whether more than half of the non-NULL values among
// the first n of a are distinct (false for types it does not sample).
func mostlyDistinct(a arrow.Array, n int) bool {
	var key func(i int) string
	var buf [16]byte
	switch c := a.(type) {
	case *array.String:
		key = c.Value
	case *array.LargeString:
		key = c.Value
	case *array.Binary:
		key = func(i int) string { return string(c.Value(i)) }
	case *array.Int8, *array.Int16, *array.Date32, *array.Boolean:
		return false // at most 65,536 values: the dictionary stays small
	case *array.Int32:
		key = func(i int) string { binary.LittleEndian.PutUint32(buf[:4], uint32(c.Value(i))); return string(buf[:4]) }
	case *array.Int64:
		key = func(i int) string { binary.LittleEndian.PutUint64(buf[:8], uint64(c.Value(i))); return string(buf[:8]) }
	case *array.Timestamp:
		key = func(i int) string { binary.LittleEndian.PutUint64(buf[:8], uint64(c.Value(i))); return string(buf[:8]) }
	case *array.Float32:
		key = func(i int) string {
			binary.LittleEndian.PutUint32(buf[:4], math.Float32bits(c.Value(i)))
			return string(buf[:4])
		}
	case *array.Float64:
		key = func(i int) string {
			binary.LittleEndian.PutUint64(buf[:8], math.Float64bits(c.Value(i)))
			return string(buf[:8])
		}
	case *array.Decimal128:
		key = func(i int) string {
			v := c.Value(i)
			binary.LittleEndian.PutUint64(buf[:8], v.LowBits())
			binary.LittleEndian.PutUint64(buf[8:], uint64(v.HighBits()))
			return string(buf[:])
		}
	default:
		return false
	}
	seen := make(map[string]struct{}, n)
	valid := 0
	for i := 0; i < n; i++ {
		if a.IsNull(i) {
			continue
		}
		valid++
		seen[key(i)] = struct{}{}
	}
	return valid >= dictSampleMin && len(seen)*2 > valid
}

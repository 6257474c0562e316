package scan

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/format"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// Row tracking (row-tracking.enabled, append tables only): every row has a
// _ROW_ID and a _SEQUENCE_NUMBER. They are system columns: selectable by
// name, never part of SELECT * (MetaSystemColumn marks them in Arrow
// schemas). A data file may store them (compaction rewrites keep the
// original values); where the file holds NULL or lacks the column, _ROW_ID
// is the file's _FIRST_ROW_ID + the row's position in the file and
// _SEQUENCE_NUMBER is the file's _MAX_SEQUENCE_NUMBER (Java
// DataFileRecordReader with FallbackMappingRow).

// MetaSystemColumn is the Arrow field metadata key ("true") marking a system
// column: readable by name but not expanded by SELECT *.
const MetaSystemColumn = "paimon.system_column"

// SystemColumns returns the system columns a table offers beyond its
// schema: _ROW_ID and _SEQUENCE_NUMBER for row-tracking tables, else none.
func SystemColumns(sc *paimon.TableSchema) []types.DataField {
	if !sc.RowTrackingEnabled() || len(sc.PrimaryKeys) > 0 {
		return nil
	}
	return []types.DataField{format.RowIDField(), format.RowTrackingSequenceField()}
}

// TableArrowSchema is the Arrow schema of a table's columns followed by its
// system columns, which carry MetaSystemColumn.
func TableArrowSchema(sc *paimon.TableSchema) *arrow.Schema {
	return OutputSchema(append(append([]types.DataField(nil), sc.Fields...), SystemColumns(sc)...))
}

// isTrackingField reports whether f is one of the row-tracking columns.
func isTrackingField(f types.DataField) bool {
	return f.ID == format.RowIDFieldID || (f.ID == format.SequenceNumberFieldID && f.Name == format.SequenceNumberFieldName && f.Type.Nullable)
}

// systemColumn resolves a system column name of the table, or ok=false.
func systemColumn(sc *paimon.TableSchema, name string) (types.DataField, bool) {
	for _, f := range SystemColumns(sc) {
		if f.Name == name {
			return f, true
		}
	}
	return types.DataField{}, false
}

// trackingCols returns the indexes of the row-tracking columns in fields.
func trackingCols(fields []types.DataField) []int {
	var out []int
	for i, f := range fields {
		if isTrackingField(f) {
			out = append(out, i)
		}
	}
	return out
}

// rowPositions returns the file position of every row of the reader's
// current batch of n rows.
func rowPositions(rr format.RecordReader, n int) []int64 {
	if p, ok := rr.(format.RowPositioner); ok {
		if pos := p.RowPositions(); pos != nil {
			return pos
		}
	}
	pos := make([]int64, n)
	first := rr.FirstRow()
	for i := range pos {
		pos[i] = first + int64(i)
	}
	return pos
}

// fillTracking returns b with the NULLs of its row-tracking columns (cols,
// indexes into fields) replaced: _ROW_ID by firstRowID + position,
// _SEQUENCE_NUMBER by the file's max sequence number. pos gives each row's
// position in the file. It does not release b.
func fillTracking(mem memory.Allocator, b arrow.RecordBatch, fields []types.DataField, cols []int, f *paimon.DataFileMeta, pos []int64) (arrow.RecordBatch, error) {
	arrs := make([]arrow.Array, b.NumCols())
	for i := range arrs {
		arrs[i] = b.Column(i)
	}
	var built []arrow.Array
	defer func() {
		for _, a := range built {
			a.Release()
		}
	}()
	for _, c := range cols {
		col, ok := arrs[c].(*array.Int64)
		if !ok {
			return nil, fmt.Errorf("%w: data file %s: column %s is %s, want BIGINT", paimon.ErrCorrupt, f.FileName, fields[c].Name, arrs[c].DataType())
		}
		if col.NullN() == 0 {
			continue
		}
		rowID := fields[c].ID == format.RowIDFieldID
		if rowID && f.FirstRowID == nil {
			return nil, fmt.Errorf("%w: data file %s of a row-tracking table has neither _FIRST_ROW_ID nor stored _ROW_ID values", paimon.ErrCorrupt, f.FileName)
		}
		bld := array.NewInt64Builder(mem)
		bld.Reserve(col.Len())
		for i := 0; i < col.Len(); i++ {
			switch {
			case col.IsValid(i):
				bld.UnsafeAppend(col.Value(i))
			case rowID:
				bld.UnsafeAppend(*f.FirstRowID + pos[i])
			default:
				bld.UnsafeAppend(f.MaxSequenceNumber)
			}
		}
		a := bld.NewArray()
		bld.Release()
		built = append(built, a)
		arrs[c] = a
	}
	return array.NewRecordBatch(b.Schema(), arrs, b.NumRows()), nil
}

// statsCols are the read columns whose file statistics may prune: all but
// the row-tracking columns, whose stored statistics do not cover the values
// derived for NULL rows.
// The statistics of blob-descriptor columns describe the descriptors, not
// the bytes they reference: excluded too.
func (s *Scan) statsCols() []types.DataField {
	if len(s.tracking) == 0 && len(s.descCols) == 0 {
		return s.readCols
	}
	desc := s.schema.BlobDescriptorFields()
	out := make([]types.DataField, 0, len(s.readCols))
	for _, f := range s.readCols {
		if !isTrackingField(f) && !desc[f.Name] {
			out = append(out, f)
		}
	}
	return out
}

// isTrackingName reports whether a _WRITE_COLS / _VALUE_STATS_COLS name is a
// row-tracking column a file stores (compaction writes them).
func isTrackingName(n string) bool {
	return n == format.RowIDFieldName || n == format.SequenceNumberFieldName
}

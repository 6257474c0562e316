package format

import (
	"fmt"
	"strings"

	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// column is how one requested field is obtained from the file.
type column struct {
	field    types.DataField
	top      int // top-level field index in the file, -1 = all NULL (not in the file)
	fileType types.DataType
}

// fileColumns is what resolveColumn needs to know of one open data file;
// the Parquet, ORC and Avro readers share the column resolution rules and
// differ only in these lookups.
type fileColumns struct {
	format string // "parquet", "orc", "avro": names the file in errors
	name   string
	// byID: fields of the file's schema version by id; nil when unknown
	// (then requested fields are matched by name).
	byID map[int]types.DataField
	// topByName: the top-level field index of a stored column name.
	topByName func(name string) (int, bool)
	// topByFieldID, optional: the top-level field index by a field id
	// stored in the file, tried when the name lookup fails.
	topByFieldID func(id int) (int, bool)
	// rowTracking: row-tracking fields (_ROW_ID, nullable
	// _SEQUENCE_NUMBER) are read by name when present, else all NULL.
	rowTracking bool
}

// resolveColumn locates a requested field in the file. A field of the
// current schema that the file's schema version lacks is all NULL (top = -1).
func resolveColumn(f fileColumns, fd types.DataField) (column, error) {
	c := column{field: fd, top: -1, fileType: fd.Type}
	byName := func(n string) bool {
		if i, ok := f.topByName(n); ok {
			c.top = i
			return true
		}
		return false
	}
	switch {
	case f.rowTracking && isRowTrackingField(fd): // row tracking: stored by compaction, else NULL
		byName(fd.Name)
		return c, nil
	case fd.ID == SequenceNumberFieldID || fd.ID == ValueKindFieldID:
		if !byName(fd.Name) {
			return c, fmt.Errorf("%s file %s has no %s column (not a primary-key data file?)", f.format, f.name, fd.Name)
		}
		return c, nil
	case IsSystemFieldID(fd.ID): // _KEY_<pk>
		orig := fd.ID - KeyFieldIDStart
		name := strings.TrimPrefix(fd.Name, KeyFieldPrefix)
		if ff, ok := f.byID[orig]; ok {
			name = ff.Name
			c.fileType = ff.Type.NotNull()
		}
		if byName(KeyFieldPrefix+name) || byName(name) { // thin mode: value column
			return c, nil
		}
		return c, fmt.Errorf("%s file %s has no key column %s%s", f.format, f.name, KeyFieldPrefix, name)
	}
	if f.byID != nil {
		ff, ok := f.byID[fd.ID]
		if !ok {
			return c, nil // added after the file was written
		}
		c.fileType = ff.Type
		if byName(ff.Name) {
			return c, nil
		}
	} else if byName(fd.Name) {
		return c, nil
	}
	if f.topByFieldID != nil {
		if i, ok := f.topByFieldID(fd.ID); ok {
			c.top = i
		}
	}
	return c, nil
}

// nextNonEmpty calls next1 until it yields a batch (cur != nil) or ends:
// the readers' Next, which skips batches whose rows Filter/Deleted all drop.
func (c *batchCursor) nextNonEmpty(next1 func() bool) bool {
	for {
		if !next1() {
			return false
		}
		if c.cur != nil {
			return true
		}
	}
}

package format

// Fast Parquet → Arrow path for flat columns (docs/design/parquet-read.md,
// "Fast path"). Pages are read and decoded by parquet-go
// (ColumnChunk.Pages → ReadPage → page.Data / DefinitionLevels /
// Dictionary); the decoded values are copied or gathered straight into Arrow
// buffers allocated once per batch with their exact size. The Arrow type of
// every column is the one pqarrow infers for it (its SchemaManifest), so the
// arrays equal what the pqarrow path produces, and adapt() does the rest.

import (
	"fmt"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/apache/arrow-go/v18/parquet/schema"
	pgo "github.com/parquet-go/parquet-go"
)

// fastKind is how a column's physical values become its Arrow values.
type fastKind uint8

const (
	fkNone     fastKind = iota
	fkBool              // BOOLEAN → Boolean
	fkI32toI8           // INT32 → Int8
	fkI32toI16          // INT32 → Int16
	fkI32               // INT32 → Int32 / Date32 / Time32(ms)
	fkI32toDec          // INT32 → Decimal128
	fkI64               // INT64 → Int64 / Timestamp / Time64
	fkI64toDec          // INT64 → Decimal128
	fkF32               // FLOAT → Float32
	fkF64               // DOUBLE → Float64
	fkBytes             // BYTE_ARRAY → String / Binary
	fkFLBADec           // FIXED_LEN_BYTE_ARRAY → Decimal128
	fkFLBA              // FIXED_LEN_BYTE_ARRAY → FixedSizeBinary
	fkInt96             // INT96 → Timestamp(ns), negative nanos-of-day allowed (int96.go)
)

// fastCol is the fast-path plan of one top-level Parquet field.
type fastCol struct {
	kind   fastKind
	leaf   int
	typ    arrow.DataType // what pqarrow produces for the column
	maxDef byte
	width  int // FIXED_LEN_BYTE_ARRAY length
	pkind  pgo.Kind
}

// fastState is built once per parsed footer (parquetMeta: shared by the
// opens of a cached file), on the first Read that may use the fast path.
// After done is set it is immutable; pf was opened through a reader that
// was then detached, so pages are read with PagesFrom and the reading
// open's handle (colCursor.ra).
type fastState struct {
	mu   sync.Mutex
	done bool
	pf   *pgo.File
	cols []*fastCol // per top-level field; nil = not supported
	err  error
}

// fastPlan opens the file with parquet-go (footer only: no page index, no
// bloom filters) and decides which top-level fields the fast path decodes.
// A failure to read the footer (I/O) is not remembered: the next Read
// tries again; a plan error is.
func (f *ParquetFile) fastPlan() (*fastState, error) {
	st := &f.fast
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.done {
		return st, st.err
	}
	pf, cols, err, final := f.buildFastPlan()
	if !final {
		return st, err
	}
	st.pf, st.cols, st.err, st.done = pf, cols, err, true
	return st, err
}

func (f *ParquetFile) buildFastPlan() (pf *pgo.File, cols []*fastCol, err error, final bool) {
	final = true
	defer recoverErr(&err, f.name)
	md := f.md
	man, err := pqarrow.NewSchemaManifest(md.Schema, md.KeyValueMetadata(), &pqarrow.ArrowReadProperties{})
	if err != nil {
		return nil, nil, err, true
	}
	// The header magic is not read: the footer (already parsed by Arrow)
	// is what matters, and on an object store the 4-byte read would cost a
	// request per file. A file Arrow reads but parquet-go rejects falls
	// back to the Arrow path, as before.
	dr := newDetachedReader(f.ra)
	pf, err = pgo.OpenFile(dr, f.size, pgo.SkipPageIndex(true), pgo.SkipBloomFilters(true),
		pgo.SkipMagicBytes(true), pgo.ReadBufferSize(256<<10))
	dr.detach()
	if err != nil {
		return nil, nil, err, false
	}
	if len(pf.RowGroups()) != f.NumRowGroups() {
		return nil, nil, fmt.Errorf("parquet-go sees %d row groups, footer has %d", len(pf.RowGroups()), f.NumRowGroups()), true
	}
	cols = make([]*fastCol, len(man.Fields))
	for i := range man.Fields {
		cols[i] = planColumn(md.Schema, &man.Fields[i], pf)
	}
	return pf, cols, nil, true
}

// planColumn returns the fast plan of a top-level field, or nil when the
// field is not a flat primitive of a supported type.
func planColumn(sc *schema.Schema, sf *pqarrow.SchemaField, pf *pgo.File) *fastCol {
	if !sf.IsLeaf() || sf.Field == nil {
		return nil
	}
	leaf := sf.ColIndex
	if leaf < 0 || leaf >= sc.NumColumns() {
		return nil
	}
	d := sc.Column(leaf)
	if d.MaxRepetitionLevel() != 0 || d.MaxDefinitionLevel() > 1 {
		return nil
	}
	// parquet-go's view of the same leaf must agree (index, levels, kind).
	pc := pf.Root().Column(d.Name())
	if pc == nil || !pc.Leaf() || pc.Index() != leaf || pc.MaxRepetitionLevel() != 0 ||
		pc.MaxDefinitionLevel() != int(d.MaxDefinitionLevel()) {
		return nil
	}
	fc := &fastCol{leaf: leaf, typ: sf.Field.Type, maxDef: byte(d.MaxDefinitionLevel()), pkind: pc.Type().Kind()}
	id := fc.typ.ID()
	switch d.PhysicalType() {
	case parquet.Types.Boolean:
		if id == arrow.BOOL && fc.pkind == pgo.Boolean {
			fc.kind = fkBool
		}
	case parquet.Types.Int32:
		if fc.pkind != pgo.Int32 {
			return nil
		}
		switch id {
		case arrow.INT8:
			fc.kind = fkI32toI8
		case arrow.INT16:
			fc.kind = fkI32toI16
		case arrow.INT32, arrow.DATE32:
			fc.kind = fkI32
		case arrow.TIME32:
			if fc.typ.(*arrow.Time32Type).Unit == arrow.Millisecond {
				fc.kind = fkI32
			}
		case arrow.DECIMAL128:
			fc.kind = fkI32toDec
		}
	case parquet.Types.Int64:
		if fc.pkind != pgo.Int64 {
			return nil
		}
		switch id {
		case arrow.INT64:
			fc.kind = fkI64
		case arrow.TIMESTAMP:
			lt, ok := d.LogicalType().(schema.TimestampLogicalType)
			if ok && sameUnit(lt.TimeUnit(), fc.typ.(*arrow.TimestampType).Unit) {
				fc.kind = fkI64
			}
		case arrow.TIME64:
			lt, ok := d.LogicalType().(schema.TimeLogicalType)
			if ok && sameUnit(lt.TimeUnit(), fc.typ.(*arrow.Time64Type).Unit) {
				fc.kind = fkI64
			}
		case arrow.DECIMAL128:
			fc.kind = fkI64toDec
		}
	case parquet.Types.Float:
		if id == arrow.FLOAT32 && fc.pkind == pgo.Float {
			fc.kind = fkF32
		}
	case parquet.Types.Double:
		if id == arrow.FLOAT64 && fc.pkind == pgo.Double {
			fc.kind = fkF64
		}
	case parquet.Types.ByteArray:
		if fc.pkind != pgo.ByteArray {
			return nil
		}
		switch id {
		case arrow.STRING, arrow.BINARY:
			fc.kind = fkBytes
		}
	case parquet.Types.Int96:
		if fc.pkind == pgo.Int96 && id == arrow.TIMESTAMP && fc.typ.(*arrow.TimestampType).Unit == arrow.Nanosecond {
			fc.kind = fkInt96
		}
	case parquet.Types.FixedLenByteArray:
		if fc.pkind != pgo.FixedLenByteArray {
			return nil
		}
		fc.width = d.TypeLength()
		switch id {
		case arrow.DECIMAL128:
			if fc.width >= 1 && fc.width <= 16 {
				fc.kind = fkFLBADec
			}
		case arrow.FIXED_SIZE_BINARY:
			if fc.typ.(*arrow.FixedSizeBinaryType).ByteWidth == fc.width && fc.width > 0 {
				fc.kind = fkFLBA
			}
		}
	}
	if fc.kind == fkNone {
		return nil
	}
	return fc
}

func sameUnit(u schema.TimeUnitType, a arrow.TimeUnit) bool {
	switch u {
	case schema.TimeUnitMillis:
		return a == arrow.Millisecond
	case schema.TimeUnitMicros:
		return a == arrow.Microsecond
	case schema.TimeUnitNanos:
		return a == arrow.Nanosecond
	}
	return false
}

// useFast reports whether a Read of cols can take the fast path.
func (f *ParquetFile) useFast(opts ReadOptions, cols []column) (*fastState, bool) {
	if opts.DisableFastPath {
		return nil, false
	}
	decoded := false
	for _, c := range cols {
		if c.top >= 0 {
			decoded = true
		}
	}
	if !decoded {
		return nil, false // rows only: nothing to decode
	}
	st, err := f.fastPlan()
	if err != nil {
		return nil, false
	}
	for _, c := range cols {
		if c.top >= 0 && (c.top >= len(st.cols) || st.cols[c.top] == nil) {
			return nil, false
		}
	}
	return st, true
}

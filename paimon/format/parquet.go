package format

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// ParquetFile is an opened Parquet data file (footer parsed). It holds no
// Arrow memory; there is nothing to close beyond the caller's io.ReaderAt.
// It is safe for concurrent use.
type ParquetFile struct {
	*parquetMeta // parsed footer: shared by every open of the file (footer_cache.go)
	name         string
	fileFields   []types.DataField
	byID         map[int]types.DataField

	ra   io.ReaderAt // the file's bytes
	size int64
}

// parquetMeta is what a Parquet file's footer yields, independent of the
// handle it was read through and of the schema the file is read with: the
// footer cache shares it between opens of the same file. Immutable after
// construction except fast, which is built once, on first use.
type parquetMeta struct {
	md        *metadata.FileMetaData
	topByName map[string]int // top-level Parquet field name → index
	topByID   map[int]int    // top-level Parquet field_id → index
	leaves    [][]int        // per top-level field: its leaf column indices
	rgStart   []int64        // file row position of each row group's first row
	fast      fastState      // parquet-go File and fast-path plan (parquet_fast.go)
	bytes     int64          // approximate memory held, for the footer cache
}

// readBufferSize is the read buffer of each column chunk being decoded.
const readBufferSize = 1 << 20

// OpenParquet opens a Parquet data file; see Open. Errors name the file.
func OpenParquet(r io.ReaderAt, size int64, name string, fileFields []types.DataField) (pf *ParquetFile, err error) {
	defer recoverErr(&err, name)
	if r == nil {
		return nil, fmt.Errorf("open parquet file %s: nil reader", name)
	}
	rdr, err := file.NewParquetReader(io.NewSectionReader(r, 0, size))
	if err != nil {
		return nil, fmt.Errorf("open parquet file %s: %w", name, err)
	}
	m, err := newParquetMeta(rdr.MetaData(), name)
	if err != nil {
		return nil, err
	}
	return newParquetFile(m, r, size, name, fileFields), nil
}

// newParquetFile is an open of a file whose footer m has been parsed.
func newParquetFile(m *parquetMeta, r io.ReaderAt, size int64, name string, fileFields []types.DataField) *ParquetFile {
	pf := &ParquetFile{parquetMeta: m, name: name, fileFields: fileFields, ra: r, size: size}
	if fileFields != nil {
		pf.byID = make(map[int]types.DataField, len(fileFields))
		for _, f := range fileFields {
			pf.byID[f.ID] = f
		}
	}
	return pf
}

// newParquetMeta validates a parsed footer and derives the column layout.
func newParquetMeta(md *metadata.FileMetaData, name string) (*parquetMeta, error) {
	sc := md.Schema
	root := sc.Root()
	m := &parquetMeta{
		md:        md,
		topByName: make(map[string]int, root.NumFields()),
		topByID:   make(map[int]int, root.NumFields()),
		leaves:    make([][]int, root.NumFields()),
		bytes:     footerBaseBytes + int64(md.Size())*footerBytesFactor,
	}
	for i := 0; i < root.NumFields(); i++ {
		n := root.Field(i)
		m.topByName[n.Name()] = i
		if id := n.FieldID(); id >= 0 {
			m.topByID[int(id)] = i
		}
	}
	for j := 0; j < sc.NumColumns(); j++ {
		i, ok := m.topByName[sc.ColumnRoot(j).Name()]
		if !ok {
			return nil, fmt.Errorf("open parquet file %s: column %d has no top-level field", name, j)
		}
		m.leaves[i] = append(m.leaves[i], j)
	}
	var pos int64
	m.rgStart = make([]int64, md.NumRowGroups())
	for i := range m.rgStart {
		m.rgStart[i] = pos
		n := md.RowGroup(i).NumRows()
		if n < 0 {
			return nil, fmt.Errorf("open parquet file %s: row group %d has %d rows", name, i, n)
		}
		pos += n
	}
	if pos != md.NumRows {
		return nil, fmt.Errorf("open parquet file %s: row groups hold %d rows, footer says %d", name, pos, md.NumRows)
	}
	return m, nil
}

// arrowReader is an arrow-go reader of the file over the parsed footer (no
// footer is parsed again), for the pqarrow path. Column chunks stream
// through a bounded buffer instead of being read whole: with 1M-row row
// groups the unbuffered reads held ~27 MB per file being read and pushed
// the peak RSS of a full streaming scan over 400 MiB (docs/benchmarks.md).
func (f *ParquetFile) arrowReader() (*file.Reader, error) {
	props := parquet.NewReaderProperties(nil)
	props.BufferedStreamEnabled = true
	props.BufferSize = readBufferSize
	return file.NewParquetReader(io.NewSectionReader(f.ra, 0, f.size), file.WithReadProps(props), file.WithMetadata(f.md))
}

// recoverErr turns a panic inside the Parquet/Arrow libraries (corrupt
// input) into an error naming the file.
func recoverErr(err *error, name string) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("read parquet file %s: corrupt data (%v)\n%s", name, r, firstFrames(debug.Stack()))
	}
}

func firstFrames(stack []byte) string {
	lines := strings.Split(string(stack), "\n")
	if len(lines) > 12 {
		lines = lines[:12]
	}
	return strings.Join(lines, "\n")
}

// Name implements DataFile.
func (f *ParquetFile) Name() string { return f.name }

// NumRows implements DataFile.
func (f *ParquetFile) NumRows() int64 { return f.md.NumRows }

// NumRowGroups implements DataFile.
func (f *ParquetFile) NumRowGroups() int { return f.md.NumRowGroups() }

// RowGroupNumRows implements DataFile.
func (f *ParquetFile) RowGroupNumRows(i int) int64 { return f.md.RowGroup(i).NumRows() }

// RowGroupOffset is the file offset of row group i's first byte (its
// first column chunk's dictionary or first data page).
func (f *ParquetFile) RowGroupOffset(i int) int64 {
	rg := f.md.RowGroup(i)
	if rg.NumColumns() == 0 {
		return rg.FileOffset()
	}
	cc, err := rg.ColumnChunk(0)
	if err != nil {
		return rg.FileOffset()
	}
	off := cc.DataPageOffset()
	if cc.HasDictionaryPage() && cc.DictionaryPageOffset() > 0 && cc.DictionaryPageOffset() < off {
		off = cc.DictionaryPageOffset()
	}
	return off
}

// RowGroupFirstRow is the file row position of row group i's first row.
func (f *ParquetFile) RowGroupFirstRow(i int) int64 { return f.rgStart[i] }

// resolve locates a requested field in the file. A field of the current
// schema that the file's schema version lacks is all NULL (top = -1).
func (f *ParquetFile) resolve(fd types.DataField) (column, error) {
	return resolveColumn(fileColumns{
		format: "parquet", name: f.name, byID: f.byID, rowTracking: true,
		topByName: func(n string) (int, bool) {
			i, ok := f.topByName[n]
			return i, ok
		},
		topByFieldID: func(id int) (int, bool) {
			i, ok := f.topByID[id]
			return i, ok
		},
	}, fd)
}

// Read implements DataFile.
func (f *ParquetFile) Read(ctx context.Context, opts ReadOptions) (_ RecordReader, err error) {
	defer recoverErr(&err, f.name)
	mem, batch, rgs, err := opts.defaults("parquet", f.name, f.NumRowGroups())
	if err != nil {
		return nil, err
	}
	cols := make([]column, len(opts.Fields))
	need := map[int]bool{}
	for i, fd := range opts.Fields {
		c, err := f.resolve(fd)
		if err != nil {
			return nil, err
		}
		cols[i] = c
		if c.top >= 0 {
			need[c.top] = true
		}
	}
	filterCols, err := filterColumns(opts.Filter, opts.Fields)
	if err != nil {
		return nil, fmt.Errorf("read parquet file %s: %w", f.name, err)
	}
	if st, ok := f.useFast(opts, cols); ok {
		return f.newFastReader(ctx, st, opts, mem, cols, rgs, batch, filterCols), nil
	}
	if rd, ok, err := f.readInt96Mixed(ctx, opts, mem, cols, rgs, batch); ok {
		return rd, err
	}
	var leaves []int
	for top := range f.leaves {
		if need[top] {
			leaves = append(leaves, f.leaves[top]...)
		}
	}
	// Contiguous runs of row groups: a pqarrow record reader may put rows of
	// several row groups in one batch, which is fine only when they are adjacent.
	var runs [][]int
	for i, rg := range rgs {
		if i == 0 || rg != rgs[i-1]+1 {
			runs = append(runs, nil)
		}
		runs[len(runs)-1] = append(runs[len(runs)-1], rg)
	}
	r := &parquetReader{
		ctx:         ctx,
		f:           f,
		mem:         mem,
		batchCursor: batchCursor{schema: ArrowSchema(opts.Fields)},
		cols:        cols,
		leaves:      leaves,
		runs:        runs,
		batch:       int64(batch),
		filter:      opts.Filter,
		deleted:     opts.Deleted,
	}
	r.pre = f.newRGPrefetcher(rgs, leaves)
	if len(leaves) > 0 {
		rdr, err := f.arrowReader()
		if err != nil {
			return nil, fmt.Errorf("read parquet file %s: %w", f.name, err)
		}
		r.fr, err = pqarrow.NewFileReader(rdr, pqarrow.ArrowReadProperties{
			BatchSize:          int64(batch),
			Parallel:           opts.Parallel,
			PreAllocBinaryData: true,
		}, mem)
		if err != nil {
			return nil, fmt.Errorf("read parquet file %s: %w", f.name, err)
		}
	}
	return r, nil
}

type parquetReader struct {
	batchCursor
	ctx    context.Context
	f      *ParquetFile
	mem    memory.Allocator
	cols   []column
	leaves []int
	runs   [][]int
	batch  int64
	fr     *pqarrow.FileReader

	filter  predicate.Predicate
	deleted RowDeleter

	pre    *rgPrefetcher        // nil unless the file prefetches (object stores)
	rr     pqarrow.RecordReader // reader of the current run
	runEnd int64                // row position after the current run (no-column mode)
	pos    int64                // file position of the next row
}

func (r *parquetReader) Release() {
	r.dropCurrent()
	if r.rr != nil {
		r.rr.Release()
		r.rr = nil
	}
	r.done = true
}

// Next implements RecordReader: batches whose rows are all dropped by
// Filter/Deleted are skipped.
func (r *parquetReader) Next() bool { return r.nextNonEmpty(r.next1) }

func (r *parquetReader) next1() (ok bool) {
	if !r.advance() {
		return false
	}
	defer r.finishNext(r.f.name, r.Release, &ok)
	for {
		if r.cancelled(r.ctx, r.f.name) {
			return false
		}
		if r.rr == nil && r.runEnd <= r.pos {
			if len(r.runs) == 0 {
				return false
			}
			run := r.runs[0]
			r.runs = r.runs[1:]
			r.pos = r.f.rgStart[run[0]]
			last := run[len(run)-1]
			r.runEnd = r.f.rgStart[last] + r.f.RowGroupNumRows(last)
			if len(r.leaves) > 0 {
				rr, err := r.fr.GetRecordReader(r.ctx, r.leaves, run)
				if err != nil {
					r.err = fmt.Errorf("read parquet file %s: %w", r.f.name, explainInt96(err))
					return false
				}
				r.rr = rr
			}
		}
		if r.rr == nil { // no column to decode: rows only
			n := min(r.batch, r.runEnd-r.pos)
			if n <= 0 {
				continue
			}
			return r.emit(nil, n)
		}
		r.pre.at(r.pos, min(r.pos+r.batch, r.runEnd))
		if r.rr.Next() {
			rec := r.rr.RecordBatch()
			if rec.NumRows() == 0 {
				continue
			}
			return r.emit(rec, rec.NumRows())
		}
		err := r.rr.Err()
		r.rr.Release()
		r.rr = nil
		if err != nil {
			r.err = fmt.Errorf("read parquet file %s: %w", r.f.name, explainInt96(err))
			return false
		}
		if r.pos != r.runEnd {
			r.err = fmt.Errorf("read parquet file %s: decoded rows end at position %d, row groups end at %d", r.f.name, r.pos, r.runEnd)
			return false
		}
	}
}

// emit builds the output batch of n rows from a decoded record (nil when no
// column is decoded).
func (r *parquetReader) emit(rec arrow.RecordBatch, n int64) bool {
	out := make([]arrow.Array, len(r.cols))
	defer func() {
		for _, a := range out {
			if a != nil {
				a.Release()
			}
		}
	}()
	for i, c := range r.cols {
		if c.top < 0 {
			out[i] = array.MakeArrayOfNull(r.mem, r.schema.Field(i).Type, int(n))
			continue
		}
		name := r.f.md.Schema.Root().Field(c.top).Name()
		idx := rec.Schema().FieldIndices(name)
		if len(idx) != 1 {
			r.err = fmt.Errorf("read parquet file %s: column %s missing from decoded batch", r.f.name, name)
			return false
		}
		a, err := adapt(r.ctx, r.mem, rec.Column(idx[0]), c.fileType, c.field.Type)
		if err != nil {
			r.err = fmt.Errorf("read parquet file %s: column %s: %w", r.f.name, c.field.Name, err)
			return false
		}
		out[i] = a
	}
	r.first = r.pos
	r.pos += n
	full := array.NewRecordBatch(r.schema, out, n)
	if r.filter == nil && r.deleted == nil {
		r.cur = full
		return true
	}
	defer full.Release()
	sel, pos, err := selectRows(r.ctx, r.mem, full, r.first, r.filter, r.deleted)
	if err != nil {
		r.err = fmt.Errorf("read parquet file %s: %w", r.f.name, err)
		return false
	}
	r.cur, r.rowPos = sel, pos // cur nil when no row survives: Next goes on
	return true
}

var _ DataFile = (*ParquetFile)(nil)

// errNoStats marks a column without usable statistics.
var errNoStats = errors.New("no statistics")

// RowGroupStats implements DataFile. Statistics come from the footer of
// row group i, converted to literals of each field's current type; nested
// columns and INT96 timestamps have none. A field the file does not contain
// is reported as all-NULL.
func (f *ParquetFile) RowGroupStats(i int, fields []types.DataField) predicate.MapStats {
	rg := f.md.RowGroup(i)
	out := predicate.MapStats{Rows: rg.NumRows(), Columns: make(map[int]predicate.ColumnStats, len(fields))}
	for _, fd := range fields {
		c, err := f.resolve(fd)
		if err != nil {
			continue
		}
		if c.top < 0 {
			out.Columns[fd.ID] = predicate.ColumnStats{NullCount: rg.NumRows()}
			continue
		}
		if len(f.leaves[c.top]) != 1 || c.fileType.IsNested() {
			continue
		}
		leaf := f.leaves[c.top][0]
		cs, err := f.columnStats(rg, leaf, c.fileType, fd.Type)
		if err != nil {
			continue
		}
		out.Columns[fd.ID] = cs
	}
	return out
}

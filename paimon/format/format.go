// Package format reads Paimon data files into Arrow record batches.
//
// A data file is opened with the Paimon schema version it was written with
// (its _SCHEMA_ID) and read with a projection of the table's CURRENT schema:
// columns are matched by field id (resolved to the name the file's schema
// version gives them, as Java does), columns added after the file was written
// read as NULL, dropped columns are not read, and widened types are cast.
// Primary-key system columns (_KEY_*, _SEQUENCE_NUMBER, _VALUE_KIND) are read
// when requested with KeyField, SequenceNumberField and ValueKindField.
//
// Parquet (parquet.go), ORC (orc.go, decoded by package orc) and Avro
// (avro.go, containers read by the paimon package's OCF reader) are
// implemented; Open is the single dispatch point on the file extension.
//
// Parsed Parquet footers may be shared between opens of the same file
// (OpenCached, footer_cache.go): a shared footer is immutable (its lazily
// built fast-path plan included, once built) and holds no file handle;
// every read goes through the handle of the open that reads.
package format

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// ErrUnsupportedFormat is wrapped by the error Open returns for an unknown extension.
var ErrUnsupportedFormat = errors.New("unsupported data file format")

// DataFile is an opened data file. It is safe for concurrent Read calls.
type DataFile interface {
	// Name is the file name given to Open (used in errors).
	Name() string
	// NumRows is the file's row count.
	NumRows() int64
	// NumRowGroups is the number of independently readable row groups (stripes for ORC).
	NumRowGroups() int
	// RowGroupNumRows is the row count of row group i (0 <= i < NumRowGroups).
	RowGroupNumRows(i int) int64
	// RowGroupStats returns row group i's statistics for the given fields of
	// the current schema (keyed by field id; system fields included), as
	// predicate literals of each field's current type. Columns without
	// usable statistics are absent.
	RowGroupStats(i int, fields []types.DataField) predicate.MapStats
	// Read starts reading; see ReadOptions and RecordReader.
	Read(ctx context.Context, opts ReadOptions) (RecordReader, error)
}

// DefaultBatchSize is the batch size used when ReadOptions.BatchSize is 0.
const DefaultBatchSize = 64 * 1024

// ReadOptions selects what a Read returns.
type ReadOptions struct {
	// Fields are the columns to return, in order: fields of the table's
	// current schema (matched to the file by id) and/or system fields
	// (KeyField, SequenceNumberField, ValueKindField). Only these columns are
	// decoded. An empty list yields batches with rows but no columns.
	Fields []types.DataField
	// RowGroups lists the row groups to read, in ascending order; nil reads all.
	RowGroups []int
	// BatchSize is the maximum rows per batch (DefaultBatchSize when 0).
	// A batch never spans two row groups that are not adjacent in the file.
	BatchSize int
	// Parallel decodes the columns of a batch concurrently.
	Parallel bool
	// Allocator for the Arrow buffers (memory.DefaultAllocator when nil).
	Allocator memory.Allocator

	// Filter, when non-nil, keeps only the rows for which the predicate is
	// TRUE (SQL three-valued logic, as predicate.EvalArrow). Every column it
	// refers to must be one of Fields (matched by field id, else by name);
	// Read returns an error otherwise. The Parquet fast path decodes the
	// filter's columns first and materialises the other columns only for
	// the selected rows.
	Filter predicate.Predicate
	// Deleted, when non-nil, drops the rows whose file positions it reports
	// (a deletion vector). It is applied before Filter.
	//
	// With Filter or Deleted set, batches hold only surviving rows, a range
	// with no surviving row yields no batch, and FirstRow is the file
	// position of the first row of the range the batch was cut from (the
	// rows are no longer consecutive); the readers of this package also
	// implement RowPositioner to give each row's position.
	Deleted RowDeleter
	// RowFilter, when set, is a row condition its owner evaluates (see
	// RowFilter); the Parquet fast path applies it after Deleted and
	// Filter and materialises the other columns only for the rows it
	// keeps. Other readers ignore it.
	RowFilter RowFilter

	// NoPageIndex turns off page-level pruning by the Parquet page index
	// (parquet_pageindex.go); PageIndex, when set, counts what it pruned.
	NoPageIndex bool
	PageIndex   *PageIndexStats

	// DisableFastPath makes Parquet reads use arrow-go pqarrow for every
	// column instead of the parquet-go page decoder for flat columns.
	DisableFastPath bool
}

// defaults returns opts' allocator, batch size and row groups with their
// defaults filled in, checking the row groups against a file of n row groups
// (kind and name are for errors, e.g. "parquet", the file name).
func (opts *ReadOptions) defaults(kind, name string, n int) (memory.Allocator, int, []int, error) {
	mem := opts.Allocator
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	batch := opts.BatchSize
	if batch <= 0 {
		batch = DefaultBatchSize
	}
	rgs := opts.RowGroups
	if rgs == nil {
		rgs = make([]int, n)
		for i := range rgs {
			rgs[i] = i
		}
	}
	for i, rg := range rgs {
		if rg < 0 || rg >= n {
			return nil, 0, nil, fmt.Errorf("read %s file %s: row group %d out of range [0,%d)", kind, name, rg, n)
		}
		if i > 0 && rg <= rgs[i-1] {
			return nil, 0, nil, fmt.Errorf("read %s file %s: row groups %v not strictly ascending", kind, name, rgs)
		}
	}
	return mem, batch, rgs, nil
}

// RowDeleter reports deleted row positions of a data file (0-based,
// counting all row groups), e.g. a Paimon deletion vector.
type RowDeleter interface {
	IsDeleted(pos int64) bool
}

// RangeDeleter is an optional interface of a RowDeleter: DeletedIn calls fn
// for every deleted position in [from, to), in ascending order. The readers
// of this package use it, when present, to ask once per batch instead of
// once per row.
type RangeDeleter interface {
	RowDeleter
	DeletedIn(from, to int64, fn func(pos int64))
}

// RangeKeeper is an optional interface of a RowDeleter that keeps few rows
// (a file-index row selection): KeptIn calls fn for every position in
// [from, to) that is NOT deleted, in ascending order. The readers of this
// package prefer it to DeletedIn.
type RangeKeeper interface {
	RowDeleter
	KeptIn(from, to int64, fn func(pos int64))
}

// keptRows returns the rows of [first, first+n) that del does not delete,
// relative to first and ascending, appended to buf[:0]; nil when no row is
// deleted.
func keptRows(del RowDeleter, first int64, n int, buf []int32) []int32 {
	sel := buf[:0]
	if rk, ok := del.(RangeKeeper); ok {
		next := 0 // first row that may still be kept
		rk.KeptIn(first, first+int64(n), func(pos int64) {
			if i := int(pos - first); i >= next && i < n {
				sel = append(sel, int32(i))
				next = i + 1
			}
		})
	} else if rd, ok := del.(RangeDeleter); ok {
		next := 0 // first row not yet decided
		rd.DeletedIn(first, first+int64(n), func(pos int64) {
			i := int(pos - first)
			if i < next || i >= n {
				return // out of range or not ascending: ignore
			}
			for ; next < i; next++ {
				sel = append(sel, int32(next))
			}
			next = i + 1
		})
		if next == 0 && len(sel) == 0 {
			return nil // nothing deleted
		}
		for ; next < n; next++ {
			sel = append(sel, int32(next))
		}
	} else {
		for i := 0; i < n; i++ {
			if !del.IsDeleted(first + int64(i)) {
				sel = append(sel, int32(i))
			}
		}
	}
	if len(sel) == n {
		return nil
	}
	if sel == nil { // every row deleted (buf was nil): not "none deleted"
		sel = []int32{}
	}
	return sel
}

// RowPositioner is implemented by the RecordReaders of this package.
// RowPositions returns the file positions of the current batch's rows when
// Filter or Deleted dropped rows from its range (ascending; valid until the
// next Next), or nil when the rows are consecutive from FirstRow.
type RowPositioner interface {
	RowPositions() []int64
}

// RecordReader streams the batches of one Read. It follows
// array.RecordReader's ownership rule: the batch returned by RecordBatch is
// owned by the reader and valid until the next call to Next or Release;
// Retain it to keep it longer (and Release it yourself). Release the reader
// when done, also when abandoning it half-way.
type RecordReader interface {
	// Schema is ArrowSchema(opts.Fields).
	Schema() *arrow.Schema
	// Next advances to the next batch; false at the end or on error (see Err).
	Next() bool
	// RecordBatch is the current batch.
	RecordBatch() arrow.RecordBatch
	// FirstRow is the position in the file (0-based, counting all row
	// groups) of the current batch's first row; rows of a batch are
	// consecutive. Deletion vectors use these positions. With
	// ReadOptions.Filter or Deleted set, it is the position of the first
	// row of the range the batch was cut from (see ReadOptions.Deleted).
	FirstRow() int64
	// Err is the error that stopped Next, or nil. Errors name the file.
	Err() error
	// Release frees the reader and its current batch.
	Release()
}

// Open opens a data file, choosing the format by the file name's extension.
// r and size give the file's bytes; name is used for format dispatch and in
// errors. fileFields is the schema the file was written with (the fields of
// schema version _SCHEMA_ID); columns are located in the file by those names.
//
// This is the one dispatch point on the data file format.
func Open(r io.ReaderAt, size int64, name string, fileFields []types.DataField) (DataFile, error) {
	switch ext := strings.ToLower(path.Ext(name)); ext {
	case ".parquet":
		return OpenParquet(r, size, name, fileFields)
	case ".orc":
		return OpenORC(r, size, name, fileFields)
	case ".avro":
		return OpenAvro(r, size, name, fileFields)
	case ".blob":
		return OpenBlob(r, size, name)
	default:
		return nil, fmt.Errorf("%w %q: %s", ErrUnsupportedFormat, ext, name)
	}
}

// batchCursor is the state every format's RecordReader shares: the output
// schema, the current batch with the file position of its first row, the
// sticky error and the end flag.
type batchCursor struct {
	schema *arrow.Schema
	cur    arrow.RecordBatch
	first  int64
	rowPos []int64 // row positions when rows were dropped (RowPositioner)
	err    error
	done   bool
}

func (c *batchCursor) Schema() *arrow.Schema          { return c.schema }
func (c *batchCursor) RecordBatch() arrow.RecordBatch { return c.cur }
func (c *batchCursor) FirstRow() int64                { return c.first }
func (c *batchCursor) RowPositions() []int64          { return c.rowPos }
func (c *batchCursor) Err() error                     { return c.err }

// dropCurrent releases the current batch.
func (c *batchCursor) dropCurrent() {
	if c.cur != nil {
		c.cur.Release()
		c.cur = nil
	}
	c.rowPos = nil
}

// finishNext is deferred by a Parquet reader's Next: a panic inside the
// decoders (corrupt input) becomes an error naming the file, and a Next that
// returns false releases the reader.
func (c *batchCursor) finishNext(name string, release func(), ok *bool) {
	if p := recover(); p != nil {
		c.err = fmt.Errorf("read parquet file %s: corrupt data (%v)", name, p)
		*ok = false
	}
	if !*ok {
		release()
	}
}

// cancelled records ctx's error, naming the file, and reports whether there was one.
func (c *batchCursor) cancelled(ctx context.Context, name string) bool {
	if err := ctx.Err(); err != nil {
		c.err = fmt.Errorf("read parquet file %s: %w", name, err)
		return true
	}
	return false
}

// advance starts a Next: it drops the current batch and reports whether
// reading may go on.
func (c *batchCursor) advance() bool {
	c.dropCurrent()
	return !c.done && c.err == nil
}

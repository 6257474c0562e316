package format

// Avro data files (file.format=avro). Paimon Java writes them with
// AvroSchemaConverter: every nullable type is a union ["null", T]; TINYINT,
// SMALLINT and INT are Avro int; TIMESTAMP(p) is long with
// timestamp-millis (p <= 3) or timestamp-micros (p <= 6), TIMESTAMP_LTZ the
// same with local-timestamp-*; DATE int/date; TIME int/time-millis;
// DECIMAL bytes/decimal (big-endian two's complement unscaled value);
// CHAR/VARCHAR string; BINARY/VARBINARY/BLOB bytes; ROW a record whose
// fields carry the Paimon names; ARRAY an array; MAP with a STRING key an
// Avro map, MAP (and MULTISET) with any other key an array of records
// {key, value} (logicalType "map"). Primary-key files hold _KEY_*,
// _SEQUENCE_NUMBER and _VALUE_KIND like the other formats.
//
// The container (header, blocks, codecs, bounds) is read by the paimon
// package's OCF reader (paimon.AvroContainer), the same code that reads
// manifests. Values are decoded straight into Arrow builders of the file's
// Paimon type, then adapt() applies schema evolution exactly as for Parquet
// and ORC. An Avro file has no row groups or statistics: it is one row group
// without statistics, and Filter/Deleted are applied to each decoded batch.

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/hamba/avro/v2"

	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// maxAvroFileSize bounds the Avro data file held in memory.
const maxAvroFileSize = 1 << 31

// AvroFile is an opened Avro data file.
type AvroFile struct {
	name      string
	c         *paimon.AvroContainer
	root      *avro.RecordSchema
	numRows   int64
	byID      map[int]types.DataField // fields of the file's schema version
	topByName map[string]int          // writer-schema top-level field → index
}

// OpenAvro opens an Avro data file (the whole file is read into memory).
func OpenAvro(r io.ReaderAt, size int64, name string, fileFields []types.DataField) (af *AvroFile, err error) {
	defer recoverAvro(&err, name)
	if size < 0 || size > maxAvroFileSize {
		return nil, fmt.Errorf("open avro file %s: size %d out of range", name, size)
	}
	data := make([]byte, size)
	if _, err := r.ReadAt(data, 0); err != nil && !(errors.Is(err, io.EOF)) {
		return nil, fmt.Errorf("open avro file %s: %w", name, err)
	}
	c, err := paimon.OpenAvroContainer(data)
	if err != nil {
		return nil, fmt.Errorf("open avro file %s: %w", name, err)
	}
	root, ok := derefAvro(c.Schema()).(*avro.RecordSchema)
	if !ok {
		return nil, fmt.Errorf("open avro file %s: writer schema is %s, not a record", name, c.Schema().Type())
	}
	counts, err := c.BlockCounts()
	if err != nil {
		return nil, fmt.Errorf("open avro file %s: %w", name, err)
	}
	f := &AvroFile{name: name, c: c, root: root, topByName: map[string]int{}}
	for _, n := range counts {
		f.numRows += n
	}
	for i, fd := range root.Fields() {
		f.topByName[fd.Name()] = i
	}
	if fileFields != nil {
		f.byID = make(map[int]types.DataField, len(fileFields))
		for _, fd := range fileFields {
			f.byID[fd.ID] = fd
		}
	}
	return f, nil
}

func recoverAvro(err *error, name string) {
	if p := recover(); p != nil {
		*err = fmt.Errorf("avro file %s: corrupt data (%v)", name, p)
	}
}

func derefAvro(s avro.Schema) avro.Schema {
	for i := 0; i < 64; i++ {
		r, ok := s.(*avro.RefSchema)
		if !ok {
			return s
		}
		s = r.Schema()
	}
	return s
}

// Name implements DataFile.
func (f *AvroFile) Name() string { return f.name }

// NumRows implements DataFile.
func (f *AvroFile) NumRows() int64 { return f.numRows }

// NumRowGroups implements DataFile: the whole file is one row group.
func (f *AvroFile) NumRowGroups() int { return 1 }

// RowGroupNumRows implements DataFile.
func (f *AvroFile) RowGroupNumRows(int) int64 { return f.numRows }

// RowGroupStats implements DataFile: Avro files carry no statistics; only
// the row count and the fields the file lacks (all NULL) are known.
func (f *AvroFile) RowGroupStats(_ int, fields []types.DataField) predicate.MapStats {
	out := predicate.MapStats{Rows: f.numRows, Columns: map[int]predicate.ColumnStats{}}
	for _, fd := range fields {
		if c, err := f.resolve(fd); err == nil && c.top < 0 {
			out.Columns[fd.ID] = predicate.ColumnStats{NullCount: f.numRows}
		}
	}
	return out
}

// resolve locates a requested field among the writer schema's top-level
// fields (top = -1: not in the file, all NULL), by the name the file's
// schema version gives the field id, as for Parquet.
func (f *AvroFile) resolve(fd types.DataField) (column, error) {
	// No row-tracking case: Avro data files are matched as before (a
	// nullable _SEQUENCE_NUMBER the file lacks is an error).
	return resolveColumn(fileColumns{
		format: "avro", name: f.name, byID: f.byID,
		topByName: func(n string) (int, bool) {
			i, ok := f.topByName[n]
			return i, ok
		},
	}, fd)
}

// Read implements DataFile.
func (f *AvroFile) Read(ctx context.Context, opts ReadOptions) (_ RecordReader, err error) {
	defer recoverAvro(&err, f.name)
	mem, batch, rgs, err := opts.defaults("avro", f.name, 1)
	if err != nil {
		return nil, err
	}
	if _, err := filterColumns(opts.Filter, opts.Fields); err != nil {
		return nil, fmt.Errorf("read avro file %s: %w", f.name, err)
	}
	r := &avroReader{
		ctx:         ctx,
		f:           f,
		mem:         mem,
		batchCursor: batchCursor{schema: ArrowSchema(opts.Fields)},
		cols:        make([]column, len(opts.Fields)),
		batch:       batch,
		filter:      opts.Filter,
		deleted:     opts.Deleted,
		cur0:        f.c.Cursor(),
	}
	if len(rgs) == 0 {
		r.done = true
	}
	// One decoder per writer field that some requested column reads.
	r.decs = make([]avroDec, len(f.root.Fields()))
	r.slot = make([]int, len(f.root.Fields()))
	for i := range r.slot {
		r.slot[i] = -1
	}
	for i, fd := range opts.Fields {
		c, err := f.resolve(fd)
		if err != nil {
			return nil, err
		}
		r.cols[i] = c
		if c.top < 0 || r.slot[c.top] >= 0 {
			continue
		}
		wf := f.root.Fields()[c.top]
		d, err := compileAvro(wf.Type(), c.fileType, 0)
		if err != nil {
			return nil, fmt.Errorf("read avro file %s: field %s: %w", f.name, wf.Name(), err)
		}
		r.slot[c.top] = len(r.types)
		r.types = append(r.types, c.fileType)
		r.decs[c.top] = d
	}
	return r, nil
}

type avroReader struct {
	batchCursor
	ctx     context.Context
	f       *AvroFile
	mem     memory.Allocator
	cols    []column
	batch   int
	filter  predicate.Predicate
	deleted RowDeleter

	decs  []avroDec        // per writer field; nil = skip
	slot  []int            // per writer field: index into types/builders, -1 = skip
	types []types.DataType // file types of the decoded fields

	cur0    *paimon.AvroBlockCursor
	dec     *paimon.AvroDecoder // current block
	left    int64               // records left in the current block
	pos     int64               // file position of the next record
	blockNo int
}

func (r *avroReader) Release() {
	r.dropCurrent()
	r.done = true
}

// Next implements RecordReader; batches whose rows are all dropped by
// Filter/Deleted are skipped.
func (r *avroReader) Next() bool { return r.nextNonEmpty(r.next1) }

func (r *avroReader) fail(err error) bool {
	r.err = fmt.Errorf("read avro file %s: %w", r.f.name, err)
	r.Release()
	return false
}

func (r *avroReader) next1() (ok bool) {
	if !r.advance() {
		return false
	}
	defer func() {
		if p := recover(); p != nil {
			r.err = fmt.Errorf("read avro file %s: corrupt data (%v)", r.f.name, p)
			ok = false
			r.Release()
		}
	}()
	if err := r.ctx.Err(); err != nil {
		return r.fail(err)
	}
	builders := make([]array.Builder, len(r.types))
	for i, t := range r.types {
		builders[i] = array.NewBuilder(r.mem, ArrowType(t))
	}
	defer func() {
		for _, b := range builders {
			b.Release()
		}
	}()
	first := r.pos
	n := 0
	fields := r.f.root.Fields()
	for n < r.batch {
		for r.left == 0 {
			if r.dec != nil && r.dec.Remaining() != 0 {
				return r.fail(fmt.Errorf("block %d has %d trailing bytes", r.blockNo, r.dec.Remaining()))
			}
			count, data, more, err := r.cur0.Next()
			if err != nil {
				return r.fail(err)
			}
			if !more {
				r.dec = nil
				r.done = true
				break
			}
			r.blockNo++
			r.dec, r.left = paimon.NewAvroDecoder(data), count
		}
		if r.done {
			break
		}
		if len(r.types) == 0 {
			// No column to decode (COUNT(*), only missing columns): the
			// block's record count is enough.
			k := min(int64(r.batch-n), r.left)
			r.left -= k
			r.pos += k
			n += int(k)
			if r.left == 0 {
				r.dec = nil
			}
			continue
		}
		for i, wf := range fields {
			if r.decs[i] == nil {
				if err := r.dec.Skip(wf.Type()); err != nil {
					return r.fail(fmt.Errorf("record %d: field %s: %w", r.pos, wf.Name(), err))
				}
				continue
			}
			if err := r.decs[i](r.dec, builders[r.slot[i]]); err != nil {
				return r.fail(fmt.Errorf("record %d: field %s: %w", r.pos, wf.Name(), err))
			}
		}
		r.left--
		r.pos++
		n++
	}
	if n == 0 {
		return false
	}
	return r.emit(builders, first, int64(n))
}

// emit builds the output batch of the n decoded rows starting at file position first.
func (r *avroReader) emit(builders []array.Builder, first, n int64) bool {
	decoded := make([]arrow.Array, len(builders))
	out := make([]arrow.Array, len(r.cols))
	defer func() {
		for _, a := range decoded {
			if a != nil {
				a.Release()
			}
		}
		for _, a := range out {
			if a != nil {
				a.Release()
			}
		}
	}()
	for i, b := range builders {
		decoded[i] = b.NewArray()
	}
	for i, c := range r.cols {
		if c.top < 0 {
			out[i] = array.MakeArrayOfNull(r.mem, r.schema.Field(i).Type, int(n))
			continue
		}
		a, err := adapt(r.ctx, r.mem, decoded[r.slot[c.top]], c.fileType, c.field.Type)
		if err != nil {
			return r.fail(fmt.Errorf("column %s: %w", c.field.Name, err))
		}
		out[i] = a
	}
	r.first = first
	full := array.NewRecordBatch(r.schema, out, n)
	if r.filter == nil && r.deleted == nil {
		r.cur = full
		return true
	}
	defer full.Release()
	sel, pos, err := selectRows(r.ctx, r.mem, full, first, r.filter, r.deleted)
	if err != nil {
		return r.fail(err)
	}
	r.cur, r.rowPos = sel, pos
	return true
}

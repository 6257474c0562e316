package write

import (
	"bytes"
	"context"
	"fmt"
	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/paimon-flightsql/paimon-flightsql/paimon/arrowrow"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/format"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// rowGroupRows caps a Parquet row group. Java caps by bytes (128 MiB, about
// 1M lineitem rows); 128k rows gives min/max statistics a finer grain for
// skipping (as DuckDB and the perf baselines use) at little size cost.
const rowGroupRows = 1 << 17

// physicalFields returns the columns of a data file: for primary-key tables
// _KEY_<pk>..., _SEQUENCE_NUMBER, _VALUE_KIND, then all table columns
// (paimon-format.md §6.1); for append tables the table columns.
func (t *Table) physicalFields() []types.DataField {
	if !t.IsPrimaryKey() {
		return t.fields
	}
	out := make([]types.DataField, 0, len(t.pkIdx)+2+len(t.fields))
	for _, i := range t.pkIdx {
		out = append(out, format.KeyField(t.fields[i]))
	}
	out = append(out, format.SequenceNumberField(), format.ValueKindField())
	return append(out, t.fields...)
}

func (t *Table) compression() (compress.Compression, error) {
	switch t.opts.compression {
	case "zstd":
		return compress.Codecs.Zstd, nil
	case "snappy":
		return compress.Codecs.Snappy, nil
	case "gzip":
		return compress.Codecs.Gzip, nil
	case "lz4":
		return compress.Codecs.Lz4Raw, nil
	case "none", "uncompressed":
		return compress.Codecs.Uncompressed, nil
	}
	return compress.Codecs.Uncompressed, invalidf("file.compression %q is not supported (zstd, snappy, gzip, lz4, none)", t.opts.compression)
}

// dataFileWriter writes the files of one (partition, bucket), rolling at
// target-file-size. Records must have the physical schema.
type dataFileWriter struct {
	t         *Table
	mem       memory.Allocator
	names     *nameFactory
	partition []byte
	bucket    int
	dir       string
	fields    []types.DataField
	sc        *arrow.Schema
	level     int32
	source    int32
	nextSeq   int64 // append files: the writer's sequence counter

	buf      *bytes.Buffer
	fw       *pqarrow.FileWriter
	name     string
	rows     int64
	memBytes int64
	colls    []*colCollector
	firstKey []any
	lastKey  []any
	deletes  int64

	done    []paimon.DataFileMeta
	written []string // paths of every file written (for abort)
	pending []chan error
}

// uploads bounds concurrent data file uploads: a finished file is written
// (and fsynced by the FileIO) in the background while the next one is
// encoded; finish waits for all of them.
var uploads = make(chan struct{}, 8)

func (t *Table) newDataFileWriter(mem memory.Allocator, names *nameFactory, partition []byte, bucket int, level int32, source int32, nextSeq int64) (*dataFileWriter, error) {
	dir, err := t.bucketDir(partition, bucket)
	if err != nil {
		return nil, err
	}
	fields := t.physicalFields()
	return &dataFileWriter{t: t, mem: mem, names: names, partition: partition, bucket: bucket, dir: dir,
		fields: fields, sc: writeSchema(fields), level: level, source: source, nextSeq: nextSeq}, nil
}

// open starts a data file whose first rows are in first (sampled to choose
// the columns written without a dictionary, dictionary.go).
func (w *dataFileWriter) open(first arrow.RecordBatch) error {
	codec, err := w.t.compression()
	if err != nil {
		return err
	}
	wprops := []parquet.WriterProperty{
		parquet.WithAllocator(w.mem),
		parquet.WithRootName("paimon_schema"),
		parquet.WithCompression(codec),
		parquet.WithCompressionLevel(w.t.opts.zstdLevel),
		parquet.WithDictionaryDefault(true),
		parquet.WithDataPageVersion(parquet.DataPageV1),
		parquet.WithDataPageSize(w.t.opts.parquetPageSize),
		// Column and offset indexes (as parquet-mr writes them): readers
		// skip the pages whose bounds cannot match a filter.
		parquet.WithPageIndexEnabled(true),
		parquet.WithStoreDecimalAsInteger(true),
		parquet.WithMaxRowGroupLength(rowGroupRows),
		parquet.WithCreatedBy("paimon-flightsql"),
	}
	for _, c := range plainColumns(first) {
		wprops = append(wprops, parquet.WithDictionaryFor(c, false))
	}
	props := parquet.NewWriterProperties(wprops...)
	aprops := pqarrow.NewArrowWriterProperties(pqarrow.WithDeprecatedInt96Timestamps(true), pqarrow.WithAllocator(w.mem))
	w.buf = &bytes.Buffer{}
	fw, err := pqarrow.NewFileWriter(w.sc, w.buf, props, aprops)
	if err != nil {
		return fmt.Errorf("open parquet writer: %w", err)
	}
	w.fw = fw
	w.name = w.names.next(w.t.opts.dataPrefix, ".parquet")
	w.rows, w.memBytes, w.deletes = 0, 0, 0
	w.firstKey, w.lastKey = nil, nil
	w.colls = make([]*colCollector, len(w.fields))
	for i, f := range w.fields {
		w.colls[i] = newCollector(f.Type)
	}
	return nil
}

// write appends rec (physical schema), rolling to a new file whenever the
// current one reaches target-file-size (measured on the Arrow size; a batch
// is split at row boundaries to honour it).
func (w *dataFileWriter) write(ctx context.Context, rec arrow.RecordBatch) error {
	n := rec.NumRows()
	if n == 0 {
		return nil
	}
	perRow := max(recordSize(rec)/n, 1)
	for off := int64(0); off < n; {
		if w.fw != nil && w.memBytes >= w.t.opts.targetFileSize {
			if err := w.closeFile(ctx); err != nil {
				return err
			}
		}
		if w.fw == nil {
			if err := w.open(rec); err != nil {
				return err
			}
		}
		room := max((w.t.opts.targetFileSize-w.memBytes)/perRow, 1)
		end := min(n, off+room)
		part := rec
		if off > 0 || end < n {
			part = rec.NewSlice(off, end)
		}
		err := w.writePart(part)
		if part != rec {
			part.Release()
		}
		if err != nil {
			return err
		}
		w.memBytes += perRow * (end - off)
		off = end
	}
	return nil
}

func (w *dataFileWriter) writePart(rec arrow.RecordBatch) error {
	if rg, _ := w.fw.RowGroupNumRows(); rg+int(rec.NumRows()) > rowGroupRows && rg > 0 {
		w.fw.NewBufferedRowGroup()
	}
	if err := w.fw.WriteBuffered(rec); err != nil {
		return fmt.Errorf("write parquet file %s: %w", w.name, err)
	}
	for i, c := range w.colls {
		c.add(rec.Column(i))
	}
	if w.t.IsPrimaryKey() {
		k := len(w.t.pkIdx)
		n := int(rec.NumRows())
		if w.firstKey == nil {
			w.firstKey = rowValues(rec, 0, k, 0)
		}
		w.lastKey = rowValues(rec, 0, k, n-1)
		kinds := rec.Column(k + 1).(*array.Int8)
		for i := 0; i < n; i++ {
			if v := kinds.Value(i); v == 1 || v == 3 {
				w.deletes++
			}
		}
	}
	w.rows += rec.NumRows()
	return nil
}

func rowValues(rec arrow.RecordBatch, from, to, row int) []any {
	out := make([]any, 0, to-from)
	for c := from; c < to; c++ {
		out = append(out, arrowrow.Value(rec.Column(c), row))
	}
	return out
}

func (w *dataFileWriter) closeFile(ctx context.Context) error {
	if w.fw == nil {
		return nil
	}
	if err := w.fw.Close(); err != nil {
		return fmt.Errorf("close parquet file %s: %w", w.name, err)
	}
	w.fw = nil
	p := w.dir + "/" + w.name
	w.written = append(w.written, p)
	data, err := javaFooter(w.buf.Bytes())
	if err != nil {
		return fmt.Errorf("parquet file %s: %w", w.name, err)
	}
	done := make(chan error, 1)
	w.pending = append(w.pending, done)
	uploads <- struct{}{}
	go func() {
		defer func() { <-uploads }()
		if err := w.t.io.Overwrite(ctx, p, data); err != nil {
			done <- fmt.Errorf("write data file %s: %w", p, err)
			return
		}
		done <- nil
	}()
	meta, err := w.fileMeta(int64(len(data)))
	if err != nil {
		return fmt.Errorf("data file %s: %w", p, err)
	}
	w.buf = nil
	w.done = append(w.done, meta)
	return nil
}

func (w *dataFileWriter) fileMeta(size int64) (paimon.DataFileMeta, error) {
	t := w.t
	now := time.Now()
	_, off := now.Zone()
	ct := now.UnixMilli() + int64(off)*1000 // local wall clock as UTC (§4.4)
	m := paimon.DataFileMeta{
		FileName: w.name, FileSize: size, RowCount: w.rows, SchemaID: t.schema.ID, Level: w.level,
		ExtraFiles: []string{}, CreationTime: &ct, FileSource: &w.source,
	}
	var valueOff int
	if t.IsPrimaryKey() {
		k := len(t.pkIdx)
		keyTypes := make([]types.DataType, k)
		names := make([]string, k)
		st := make([]colStats, k)
		for i := 0; i < k; i++ {
			keyTypes[i] = w.fields[i].Type
			names[i] = w.fields[i].Name
			st[i] = w.colls[i].result(statsMode{kind: statsTruncate, truncate: 128})
		}
		var err error
		if m.MinKey, err = encodeSerialized(keyTypes, w.firstKey); err != nil {
			return m, err
		}
		if m.MaxKey, err = encodeSerialized(keyTypes, w.lastKey); err != nil {
			return m, err
		}
		if m.KeyStats, _, err = encodeStats(names, keyTypes, st, false); err != nil {
			return m, err
		}
		seq := w.colls[k]
		m.MinSequenceNumber, m.MaxSequenceNumber = seq.imin, seq.imax
		valueOff = k + 2
	} else {
		m.MinKey, m.MaxKey, m.KeyStats = emptyRow, emptyRow, emptyStats()
		m.MinSequenceNumber, m.MaxSequenceNumber = w.nextSeq, w.nextSeq+w.rows-1
		w.nextSeq += w.rows
	}
	d := w.deletes
	m.DeleteRowCount = &d
	vals := w.fields[valueOff:]
	names := make([]string, len(vals))
	typs := make([]types.DataType, len(vals))
	st := make([]colStats, len(vals))
	for i, f := range vals {
		names[i], typs[i] = f.Name, f.Type
		st[i] = w.colls[valueOff+i].result(t.opts.statsModeFor(f.Name, i))
	}
	var err error
	m.ValueStats, m.ValueStatsCols, err = encodeStats(names, typs, st, t.opts.statsDense)
	return m, err
}

// finish closes the current file, waits for the uploads and returns the
// metadata of all files.
func (w *dataFileWriter) finish(ctx context.Context) ([]paimon.DataFileMeta, error) {
	err := w.closeFile(ctx)
	if werr := w.wait(); err == nil {
		err = werr
	}
	if err != nil {
		return nil, err
	}
	return w.done, nil
}

// wait waits for pending uploads and returns the first error.
func (w *dataFileWriter) wait() error {
	var first error
	for _, ch := range w.pending {
		if err := <-ch; err != nil && first == nil {
			first = err
		}
	}
	w.pending = nil
	return first
}

// abort discards the current file and deletes every file written.
func (w *dataFileWriter) abort(ctx context.Context) {
	if w.fw != nil {
		_ = w.fw.Close()
		w.fw = nil
	}
	_ = w.wait()
	for _, p := range w.written {
		_ = w.t.io.Delete(ctx, p)
	}
}

// recordSize is the in-memory byte size of a record's buffers.
func recordSize(rec arrow.RecordBatch) int64 {
	var n int64
	var walk func(d arrow.ArrayData)
	walk = func(d arrow.ArrayData) {
		for _, b := range d.Buffers() {
			if b != nil {
				n += int64(b.Len())
			}
		}
		for _, c := range d.Children() {
			walk(c)
		}
	}
	for _, c := range rec.Columns() {
		walk(c.Data())
	}
	return n
}

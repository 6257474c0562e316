package orc

import (
	"context"
	"errors"
	"fmt"
	"github.com/paimon-flightsql/paimon-flightsql/internal/readahead"
	"io"
	"sort"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	_ "time/tzdata" // writer time zones of TIMESTAMP columns must resolve everywhere
)

const (
	magic = "ORC"
	// maxTailBytes bounds the footer and metadata sections.
	maxTailBytes = 256 << 20
	// maxStripeRows bounds the row count of one stripe (Arrow offsets are
	// 32-bit, and writers use int row counts).
	maxStripeRows = 1<<31 - 1
)

// ColumnStats are the statistics of one column, for the whole file or for
// one stripe. Min and Max are nil when the file has no bounds for the
// column; otherwise both hold values of the same Go type:
//   - int64 for tinyint, smallint, int and bigint columns,
//   - float64 for float and double columns,
//   - string for string, varchar and char columns (UTF-8 bytes) and for
//     decimal columns (the decimal's text, e.g. "-12.50"),
//   - int32 days since 1970-01-01 for date columns,
//   - int64 milliseconds since the Unix epoch for timestamp columns (UTC
//     bounds when the file has them, writer-local ones otherwise).
type ColumnStats struct {
	// NumValues is the number of non-null values.
	NumValues uint64
	// HasNull reports whether the column has nulls; meaningful only when
	// HasNullKnown (older writers do not record it).
	HasNull, HasNullKnown bool
	// Min and Max bound the non-null values, see the type's documentation.
	Min, Max any
	// TrueCount is the number of true values of a boolean column, when
	// HasTrueCount.
	TrueCount    uint64
	HasTrueCount bool
}

// File is an open ORC file. Its methods may be called concurrently.
type File struct {
	r           io.ReaderAt
	size        int64
	name        string
	ps          *postScript
	footer      *footer
	schema      Schema
	stripeStats [][]ColumnStats
}

// Open reads the tail (postscript, footer and metadata) of the ORC file of
// the given size readable through r. name is used in error messages.
func Open(r io.ReaderAt, size int64, name string) (*File, error) {
	f := &File{r: r, size: size, name: name}
	if err := f.readTail(); err != nil {
		return nil, fmt.Errorf("orc %s: %w", name, err)
	}
	return f, nil
}

func (f *File) readAt(off, n int64, what string) ([]byte, error) {
	if off < 0 || n < 0 || off > f.size || n > f.size-off {
		return nil, fmt.Errorf("%w: %s [%d,+%d) outside the file of %d bytes", errCorrupt, what, off, n, f.size)
	}
	buf := make([]byte, n)
	if _, err := f.r.ReadAt(buf, off); err != nil && !(errors.Is(err, io.EOF) && n == 0) {
		return nil, fmt.Errorf("reading %s: %w", what, err)
	}
	return buf, nil
}

func (f *File) readTail() error {
	if f.size < int64(len(magic))+1 {
		return fmt.Errorf("%w: %d bytes is too short for an ORC file", errCorrupt, f.size)
	}
	head, err := f.readAt(0, int64(len(magic)), "header")
	if err != nil {
		return err
	}
	if string(head) != magic {
		return fmt.Errorf("%w: not an ORC file (bad header magic)", errCorrupt)
	}
	tailLen := min(f.size, 16<<10)
	tail, err := f.readAt(f.size-tailLen, tailLen, "file tail")
	if err != nil {
		return err
	}
	psLen := int64(tail[len(tail)-1])
	if psLen+1+int64(len(magic)) > f.size {
		return fmt.Errorf("%w: postscript length %d exceeds the file", errCorrupt, psLen)
	}
	ps, err := parsePostScript(tail[tailLen-1-psLen : tailLen-1])
	if err != nil {
		return fmt.Errorf("postscript: %w", err)
	}
	if ps.magic != "" && ps.magic != magic {
		return fmt.Errorf("%w: postscript magic %q", errCorrupt, ps.magic)
	}
	f.ps = ps
	avail := uint64(f.size - psLen - 1 - int64(len(magic)))
	if ps.footerLength > avail || ps.metadataLength > avail-ps.footerLength || ps.footerLength > maxTailBytes || ps.metadataLength > maxTailBytes {
		return fmt.Errorf("%w: footer (%d bytes) and metadata (%d bytes) do not fit in the file", errCorrupt, ps.footerLength, ps.metadataLength)
	}
	cd, err := newCodec(ps.compression, ps.blockSize)
	if err != nil {
		return fmt.Errorf("postscript: %w", err)
	}
	footerOff := f.size - psLen - 1 - int64(ps.footerLength)
	metaOff := footerOff - int64(ps.metadataLength)
	raw, err := f.readAt(metaOff, int64(ps.metadataLength+ps.footerLength), "footer")
	if err != nil {
		return err
	}
	fb, err := cd.decode(raw[ps.metadataLength:])
	if err != nil {
		return fmt.Errorf("footer: %w", err)
	}
	ft, err := parseFooter(fb)
	if err != nil {
		return fmt.Errorf("footer: %w", err)
	}
	if ft.encrypted {
		return errors.New("footer: encrypted ORC files are not supported")
	}
	f.footer = ft
	if ps.metadataLength > 0 {
		mb, err := cd.decode(raw[:ps.metadataLength])
		if err != nil {
			return fmt.Errorf("metadata: %w", err)
		}
		if f.stripeStats, err = parseMetadata(mb); err != nil {
			return fmt.Errorf("metadata: %w", err)
		}
	}
	root, err := buildTypes(ft.types)
	if err != nil {
		return fmt.Errorf("footer types: %w", err)
	}
	fields := make([]arrow.Field, len(root.Children))
	for i, c := range root.Children {
		fields[i] = c.arrowField()
	}
	f.schema = Schema{Root: root, Arrow: arrow.NewSchema(fields, nil)}
	end := uint64(metaOff)
	for i, s := range ft.stripes {
		if s.offset < uint64(len(magic)) || s.offset > end || s.indexLength > end || s.dataLength > end || s.footerLength > end ||
			s.indexLength+s.dataLength+s.footerLength > end-s.offset {
			return fmt.Errorf("%w: stripe %d [%d,+%d) outside the file body", errCorrupt, i, s.offset, s.indexLength+s.dataLength+s.footerLength)
		}
		if s.numberOfRows > maxStripeRows {
			return fmt.Errorf("%w: stripe %d claims %d rows", errCorrupt, i, s.numberOfRows)
		}
	}
	return nil
}

// Name returns the name given to Open.
func (f *File) Name() string { return f.name }

// Schema returns the file's type tree and its Arrow schema.
func (f *File) Schema() Schema { return f.schema }

// NumRows returns the number of rows the footer records.
func (f *File) NumRows() int64 { return int64(f.footer.numberOfRows) }

// NumStripes returns the number of stripes.
func (f *File) NumStripes() int { return len(f.footer.stripes) }

// StripeRows returns the number of rows of stripe i.
func (f *File) StripeRows(i int) int64 { return int64(f.footer.stripes[i].numberOfRows) }

// Compression returns the file's compression codec.
func (f *File) Compression() CompressionKind { return f.ps.compression }

// UserMetadata returns the value of a user metadata entry of the footer.
func (f *File) UserMetadata(key string) ([]byte, bool) {
	v, ok := f.footer.metadata[key]
	return v, ok
}

// FileStats returns the file-level statistics of column id (0 is the root
// struct), or false when the file has none.
func (f *File) FileStats(id int) (ColumnStats, bool) {
	if id < 0 || id >= len(f.footer.statistics) {
		return ColumnStats{}, false
	}
	return f.footer.statistics[id], true
}

// StripeStats returns the statistics of stripe i, indexed by column id (0 is
// the root struct); nil when the file has no stripe statistics.
func (f *File) StripeStats(i int) []ColumnStats {
	if i < 0 || i >= len(f.stripeStats) {
		return nil
	}
	return f.stripeStats[i]
}

// ColumnIndex returns the index of the top-level column with that name, or -1.
func (f *File) ColumnIndex(name string) int {
	for i, c := range f.schema.Root.Children {
		if c.Name == name {
			return i
		}
	}
	return -1
}

// projection resolves top-level column indexes (nil means all).
func (f *File) projection(columns []int) ([]*Type, *arrow.Schema, error) {
	all := f.schema.Root.Children
	if columns == nil {
		return all, f.schema.Arrow, nil
	}
	types := make([]*Type, len(columns))
	fields := make([]arrow.Field, len(columns))
	for i, c := range columns {
		if c < 0 || c >= len(all) {
			return nil, nil, fmt.Errorf("orc %s: column index %d out of range [0,%d)", f.name, c, len(all))
		}
		types[i] = all[c]
		fields[i] = all[c].arrowField()
	}
	return types, arrow.NewSchema(fields, nil), nil
}

type streamKey struct {
	col  int
	kind streamKind
}

// stripeData holds the streams of the projected columns of one stripe.
type stripeData struct {
	footer *stripeFooter
	codec  *codec
	raw    map[streamKey][]byte
}

func (s *stripeData) stream(col int, kind streamKind) ([]byte, bool, error) {
	raw, ok := s.raw[streamKey{col, kind}]
	if !ok {
		return nil, false, nil
	}
	b, err := s.codec.decode(raw)
	return b, true, err
}

func (s *stripeData) encoding(col int) columnEncoding {
	return s.footer.encodings[col]
}

func (s *stripeData) writerTimezone() string { return s.footer.writerTimezone }

// loadStripe reads the footer of stripe i and the data streams of the given
// top-level columns, and nothing else.
func (f *File) loadStripe(i int, types []*Type) (*stripeData, error) {
	if i < 0 || i >= len(f.footer.stripes) {
		return nil, fmt.Errorf("stripe index %d out of range [0,%d)", i, len(f.footer.stripes))
	}
	si := f.footer.stripes[i]
	cd, err := newCodec(f.ps.compression, f.ps.blockSize)
	if err != nil {
		return nil, err
	}
	footOff := si.offset + si.indexLength + si.dataLength
	fraw, err := f.readAt(int64(footOff), int64(si.footerLength), "stripe footer")
	if err != nil {
		return nil, err
	}
	fb, err := cd.decode(fraw)
	if err != nil {
		return nil, fmt.Errorf("stripe footer: %w", err)
	}
	sf, err := parseStripeFooter(fb)
	if err != nil {
		return nil, fmt.Errorf("stripe footer: %w", err)
	}
	if sf.encrypted {
		return nil, errors.New("stripe footer: encrypted stripes are not supported")
	}
	if len(sf.encodings) < len(f.footer.types) {
		return nil, fmt.Errorf("%w: stripe footer has %d column encodings for %d columns", errCorrupt, len(sf.encodings), len(f.footer.types))
	}
	wanted := make([]bool, len(f.footer.types))
	for _, t := range types {
		for id := t.ID; id <= t.maxID; id++ {
			wanted[id] = true
		}
	}
	type rng struct {
		key      streamKey
		off, len uint64
	}
	var need []rng
	pos := si.offset
	for _, s := range sf.streams {
		if s.length > footOff-pos {
			return nil, fmt.Errorf("%w: stream %v of column %d (%d bytes at %d) overruns the stripe", errCorrupt, s.kind, s.column, s.length, pos)
		}
		switch s.kind {
		case streamPresent, streamData, streamLength, streamDictionaryData, streamSecondary:
			if int(s.column) < len(wanted) && wanted[s.column] {
				need = append(need, rng{streamKey{int(s.column), s.kind}, pos, s.length})
			}
		}
		pos += s.length
	}
	sort.Slice(need, func(a, b int) bool { return need[a].off < need[b].off })
	if len(need) > 1 {
		// On an object store, fetch the streams with few parallel
		// requests (streams of unread columns between them are gaps).
		ranges := make([]readahead.Range, len(need))
		for k, n := range need {
			ranges[k] = readahead.Range{Off: int64(n.off), Len: int64(n.len)}
		}
		readahead.Prefetch(f.r, ranges)
	}
	sd := &stripeData{footer: sf, codec: cd, raw: make(map[streamKey][]byte, len(need))}
	// Read the needed streams, coalescing adjacent ones into one read.
	for a := 0; a < len(need); {
		b := a + 1
		end := need[a].off + need[a].len
		for b < len(need) && need[b].off == end {
			end += need[b].len
			b++
		}
		buf, err := f.readAt(int64(need[a].off), int64(end-need[a].off), "stream")
		if err != nil {
			return nil, fmt.Errorf("stream %v of column %d: %w", need[a].key.kind, need[a].key.col, err)
		}
		for _, r := range need[a:b] {
			if _, dup := sd.raw[r.key]; dup {
				return nil, fmt.Errorf("%w: duplicate stream %v for column %d", errCorrupt, r.key.kind, r.key.col)
			}
			o := r.off - need[a].off
			sd.raw[r.key] = buf[o : o+r.len : o+r.len]
		}
		a = b
	}
	return sd, nil
}

// stripeReader decodes the projected columns of one stripe batch by batch.
type stripeReader struct {
	readers []colReader
	left    int64
}

func (f *File) newStripeReader(i int, types []*Type) (*stripeReader, error) {
	sd, err := f.loadStripe(i, types)
	if err != nil {
		return nil, fmt.Errorf("orc %s: stripe %d: %w", f.name, i, err)
	}
	sr := &stripeReader{left: int64(f.footer.stripes[i].numberOfRows)}
	for _, t := range types {
		cr, err := newColReader(t, sd)
		if err != nil {
			return nil, fmt.Errorf("orc %s: stripe %d: %w", f.name, i, err)
		}
		sr.readers = append(sr.readers, cr)
	}
	return sr, nil
}

func (f *File) readBatch(sr *stripeReader, stripe int, mem memory.Allocator, schema *arrow.Schema, n int) (arrow.RecordBatch, error) {
	rb := array.NewRecordBuilder(mem, schema)
	defer rb.Release()
	for k, cr := range sr.readers {
		if err := cr.next(rb.Field(k), n, nil); err != nil {
			return nil, fmt.Errorf("orc %s: stripe %d: %w", f.name, stripe, err)
		}
	}
	sr.left -= int64(n)
	cols := make([]arrow.Array, len(sr.readers))
	for k := range cols {
		cols[k] = rb.Field(k).NewArray()
	}
	rec := array.NewRecordBatch(schema, cols, int64(n))
	for _, c := range cols {
		c.Release()
	}
	return rec, nil
}

// ReadStripe decodes stripe i into one record with the given top-level
// columns (indexes into Schema().Root.Children, nil for all). Only the
// streams of those columns are read.
func (f *File) ReadStripe(ctx context.Context, i int, mem memory.Allocator, columns []int) (arrow.RecordBatch, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	types, schema, err := f.projection(columns)
	if err != nil {
		return nil, err
	}
	sr, err := f.newStripeReader(i, types)
	if err != nil {
		return nil, err
	}
	return f.readBatch(sr, i, mem, schema, int(sr.left))
}

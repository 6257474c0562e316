package format

// Fast Parquet → Arrow path for flat columns (docs/design/parquet-read.md,
// "Fast path"). Pages are read and decoded by parquet-go
// (ColumnChunk.Pages → ReadPage → page.Data / DefinitionLevels /
// Dictionary); the decoded values are copied or gathered straight into Arrow
// buffers allocated once per batch with their exact size. The Arrow type of
// every column is the one pqarrow infers for it (its SchemaManifest), so the
// arrays equal what the pqarrow path produces, and adapt() does the rest.

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/apache/arrow-go/v18/parquet/schema"
	pgo "github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding"
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

// ---------------------------------------------------------------------------
// Column cursors over a row group's pages.

// pageState is one decoded page and what the gathers need from it.
type pageState struct {
	pg   pgo.Page
	defs []byte          // definition levels (nil: no nulls possible)
	src  encoding.Values // values the gathers index: the dictionary's or the page's
	idx  []int32         // dictionary indexes of the non-null values (nil: plain)
	rows int
	gen  int   // the column chunk it belongs to (colCursor.gen)
	crow int64 // that chunk's rows
}

// seg is a run of consecutive rows of one page that belong to a batch.
type seg struct {
	ps   *pageState
	row0 int // first row within the page
	n    int // rows
	val0 int // index of row0's value among the page's non-null values
	brow int // batch-relative row of row0
}

// colCursor reads one column chunk page by page and hands out row ranges.
type colCursor struct {
	fc      *fastCol
	ra      io.ReaderAt    // the reading open's handle (pages are read through it)
	name    string         // column name, for errors
	run     []pgo.RowGroup // adjacent row groups being read
	runRows []int64
	rgi     int   // row group of pages in run
	chunk   int64 // rows read so far from that row group's chunk
	pages   pgo.Pages
	cur     *pageState
	row     int // next row in cur
	val     int // next value in cur
	retired []*pageState
	segs    []seg
	pos     []int32 // gather scratch
	plans   []segPlan
	gen     int         // column chunks opened so far (pages of one chunk share a dictionary)
	dict    dictVerdict // the filter's verdicts on the current chunk's dictionary (parquet_dict.go)
	pend    int64       // rows to skip before the next page is used (skip, parquet_skip.go)
}

// open starts a run of adjacent row groups.
func (c *colCursor) open(run []pgo.RowGroup, rows []int64) {
	c.run, c.runRows, c.rgi = run, rows, 0
	c.row, c.val, c.pend = 0, 0, 0
}

// finish releases every page and closes the chunk reader.
func (c *colCursor) finish() {
	c.releaseRetired()
	if c.cur != nil {
		pgo.Release(c.cur.pg)
		c.cur = nil
	}
	if c.pages != nil {
		c.pages.Close()
		c.pages = nil
	}
}

func (c *colCursor) releaseRetired() {
	for _, ps := range c.retired {
		pgo.Release(ps.pg)
	}
	clear(c.retired)
	c.retired = c.retired[:0]
	c.segs = c.segs[:0]
}

// openChunk opens the pages of row group rgi's chunk.
func (c *colCursor) openChunk() error {
	cc, ok := c.run[c.rgi].ColumnChunks()[c.fc.leaf].(*pgo.FileColumnChunk)
	if !ok {
		return fmt.Errorf("column %s: unexpected column chunk type %T", c.name, c.run[c.rgi].ColumnChunks()[c.fc.leaf])
	}
	c.pages = cc.PagesFrom(c.ra)
	c.chunk = 0
	c.gen++
	return nil
}

// nextPage reads the next page of the chunk.
func (c *colCursor) nextPage() error {
	if c.cur != nil {
		c.retired = append(c.retired, c.cur)
		c.cur = nil
	}
	if c.pend > 0 {
		if err := c.skipPending(); err != nil {
			return err
		}
	}
	for {
		if c.pages == nil {
			if c.rgi >= len(c.run) {
				return fmt.Errorf("column %s: read past the row groups", c.name)
			}
			if err := c.openChunk(); err != nil {
				return err
			}
		}
		pg, err := c.pages.ReadPage()
		if err == io.EOF {
			if c.chunk != c.runRows[c.rgi] {
				return fmt.Errorf("column %s: column chunk has %d rows, its row group %d", c.name, c.chunk, c.runRows[c.rgi])
			}
			c.pages.Close()
			c.pages = nil
			c.rgi++
			continue
		}
		if err != nil {
			return fmt.Errorf("column %s: %w", c.name, err)
		}
		ps, err := c.load(pg)
		if err != nil {
			pgo.Release(pg)
			return err
		}
		ps.gen, ps.crow = c.gen, c.runRows[c.rgi]
		c.chunk += int64(ps.rows)
		if c.chunk > c.runRows[c.rgi] {
			pgo.Release(pg)
			return fmt.Errorf("column %s: column chunk has more rows than its row group (%d)", c.name, c.runRows[c.rgi])
		}
		if ps.rows == 0 {
			pgo.Release(pg)
			continue
		}
		c.cur, c.row, c.val = ps, 0, 0
		if c.pend > 0 { // no offset index: skip by reading the pages
			if int64(ps.rows) <= c.pend {
				c.pend -= int64(ps.rows)
				c.retired = append(c.retired, ps)
				c.cur = nil
				continue
			}
			c.advance(int(c.pend))
			c.pend = 0
		}
		return nil
	}
}

// load checks a page and extracts its levels and values.
func (c *colCursor) load(pg pgo.Page) (*pageState, error) {
	ps := &pageState{pg: pg}
	if len(pg.RepetitionLevels()) != 0 {
		return nil, fmt.Errorf("column %s: unexpected repetition levels", c.name)
	}
	nonNull := 0
	if c.fc.maxDef > 0 {
		ps.defs = pg.DefinitionLevels()
	}
	if ps.defs != nil {
		ps.rows = len(ps.defs)
		nonNull = bytes.Count(ps.defs, []byte{c.fc.maxDef})
		if nonNull == ps.rows {
			ps.defs = nil
		}
	} else {
		ps.rows = int(pg.NumValues())
		nonNull = ps.rows
	}
	data := pg.Data()
	var nvals int
	if d := pg.Dictionary(); d != nil {
		if c.fc.kind == fkBool {
			return nil, fmt.Errorf("column %s: dictionary-encoded BOOLEAN page", c.name)
		}
		if data.Kind() != encoding.Int32 {
			return nil, fmt.Errorf("column %s: dictionary page indexes of kind %v", c.name, data.Kind())
		}
		ps.idx = data.Int32()
		nvals = len(ps.idx)
		ps.src = d.Page().Data()
	} else {
		ps.src = data
	}
	srcLen, err := c.valuesLen(ps.src, nonNull)
	if err != nil {
		return nil, err
	}
	if srcLen < 0 {
		ps.src, srcLen = emptyValues(c.fc.pkind, c.fc.width), 0
	}
	if ps.idx == nil {
		nvals = srcLen
	}
	if nvals < nonNull {
		return nil, fmt.Errorf("column %s: page has %d values for %d non-null rows", c.name, nvals, nonNull)
	}
	return ps, nil
}

// valuesLen checks the kind of decoded values and returns their count.
func (c *colCursor) valuesLen(v encoding.Values, nonNull int) (int, error) {
	var want encoding.Kind
	switch c.fc.pkind {
	case pgo.Boolean:
		want = encoding.Boolean
	case pgo.Int32:
		want = encoding.Int32
	case pgo.Int64:
		want = encoding.Int64
	case pgo.Float:
		want = encoding.Float
	case pgo.Double:
		want = encoding.Double
	case pgo.ByteArray:
		want = encoding.ByteArray
	case pgo.FixedLenByteArray:
		want = encoding.FixedLenByteArray
	case pgo.Int96:
		want = encoding.Int96
	}
	if v.Kind() != want {
		if v.Size() == 0 && nonNull == 0 {
			return -1, nil // no value at all: the caller substitutes empty values
		}
		return 0, fmt.Errorf("column %s: decoded values of kind %v, want %v", c.name, v.Kind(), want)
	}
	switch want {
	case encoding.Boolean:
		return len(v.Boolean()) * 8, nil
	case encoding.Int32:
		return len(v.Int32()), nil
	case encoding.Int64:
		return len(v.Int64()), nil
	case encoding.Float:
		return len(v.Float()), nil
	case encoding.Double:
		return len(v.Double()), nil
	case encoding.ByteArray:
		data, offs := v.ByteArray()
		if len(offs) == 0 {
			return 0, nil
		}
		if int(offs[len(offs)-1]) > len(data) {
			return 0, fmt.Errorf("column %s: byte array offsets beyond page data", c.name)
		}
		return len(offs) - 1, nil
	case encoding.Int96:
		return len(v.Int96()), nil
	case encoding.FixedLenByteArray:
		data, size := v.FixedLenByteArray()
		if size != c.fc.width {
			return 0, fmt.Errorf("column %s: fixed-length values of %d bytes, schema says %d", c.name, size, c.fc.width)
		}
		return len(data) / size, nil
	}
	return 0, nil
}

// emptyValues are zero values of a physical kind (for pages without values).
func emptyValues(k pgo.Kind, width int) encoding.Values {
	switch k {
	case pgo.Boolean:
		return encoding.BooleanValues(nil)
	case pgo.Int32:
		return encoding.Int32Values(nil)
	case pgo.Int64:
		return encoding.Int64Values(nil)
	case pgo.Float:
		return encoding.FloatValues(nil)
	case pgo.Double:
		return encoding.DoubleValues(nil)
	case pgo.ByteArray:
		return encoding.ByteArrayValues(nil, []uint32{0})
	case pgo.Int96:
		return encoding.Int96Values(nil)
	}
	return encoding.FixedLenByteArrayValues(nil, width)
}

// collect advances the cursor by n rows, recording the page segments they
// come from in c.segs. Pages stay alive until releaseRetired.
func (c *colCursor) collect(n int) error {
	brow := 0
	for n > 0 {
		if c.cur == nil || c.row >= c.cur.rows {
			if err := c.nextPage(); err != nil {
				return err
			}
		}
		k := min(n, c.cur.rows-c.row)
		c.segs = append(c.segs, seg{ps: c.cur, row0: c.row, n: k, val0: c.val, brow: brow})
		if c.cur.defs != nil {
			c.val += bytes.Count(c.cur.defs[c.row:c.row+k], []byte{c.fc.maxDef})
		} else {
			c.val += k
		}
		c.row += k
		brow += k
		n -= k
	}
	return nil
}

// segPlan says where the output rows of one segment come from: either the
// contiguous source values [v0, v0+k) or source positions pos (-1 = NULL).
type segPlan struct {
	ps     *pageState
	contig bool
	v0, k  int
	pos    []int32
	out0   int
}

// plan maps the collected segments, restricted to the batch rows in sel
// (sorted batch-relative rows; nil = all), to source positions. It returns
// the output row count and the number of NULLs.
func (c *colCursor) plan(sel []int32, n int) (m, nulls int) {
	m = n
	if sel != nil {
		m = len(sel)
	}
	if cap(c.pos) < m {
		c.pos = make([]int32, m)
	}
	scratch := c.pos[:m]
	c.plans = c.plans[:0]
	maxDef := c.fc.maxDef
	out := 0
	si := 0
	for _, s := range c.segs {
		var sub []int32 // selected rows of this segment, relative to the batch
		if sel != nil {
			j, _ := slices.BinarySearch(sel[si:], int32(s.brow+s.n))
			j += si
			sub = sel[si:j]
			si = j
			if len(sub) == 0 {
				continue
			}
		}
		ps := s.ps
		p := segPlan{ps: ps, out0: out}
		var defs []byte
		if ps.defs != nil {
			defs = ps.defs[s.row0 : s.row0+s.n]
			if sel == nil && bytes.Count(defs, []byte{maxDef}) == len(defs) {
				defs = nil
			}
		}
		switch {
		case defs == nil && sub == nil:
			p.k = s.n
			if ps.idx == nil {
				p.contig, p.v0 = true, s.val0
			} else {
				p.pos = ps.idx[s.val0 : s.val0+s.n]
			}
		case defs == nil:
			p.k = len(sub)
			pos := scratch[out : out+p.k]
			base := s.val0 - s.brow // value index of batch row 0
			if idx := ps.idx; idx != nil {
				idx = idx[base+int(sub[0]) : base+int(sub[len(sub)-1])+1]
				base = -int(sub[0])
				for i, r := range sub {
					pos[i] = idx[base+int(r)]
				}
			} else {
				for i, r := range sub {
					pos[i] = int32(base + int(r))
				}
			}
			p.pos = pos
		case sub == nil:
			p.k = s.n
			pos := scratch[out : out+p.k]
			v := s.val0
			for i, d := range defs {
				if d == maxDef {
					if ps.idx != nil {
						pos[i] = ps.idx[v]
					} else {
						pos[i] = int32(v)
					}
					v++
				} else {
					pos[i] = -1
					nulls++
				}
			}
			p.pos = pos
		default:
			p.k = len(sub)
			pos := scratch[out : out+p.k]
			v := s.val0
			j := 0
			for r, d := range defs {
				if j == len(sub) {
					break
				}
				if int(sub[j])-s.brow == r {
					if d == maxDef {
						if ps.idx != nil {
							pos[j] = ps.idx[v]
						} else {
							pos[j] = int32(v)
						}
					} else {
						pos[j] = -1
						nulls++
					}
					j++
				}
				if d == maxDef {
					v++
				}
			}
			p.pos = pos
		}
		c.plans = append(c.plans, p)
		out += p.k
	}
	return m, nulls
}

// ---------------------------------------------------------------------------
// Materialisation of the planned rows into Arrow buffers.

func newBuf(mem memory.Allocator, n int) *memory.Buffer {
	b := memory.NewResizableBuffer(mem)
	b.Resize(n)
	return b
}

// materialise builds the Arrow array (of type fc.typ) of the rows planned
// by plan.
func (c *colCursor) materialise(mem memory.Allocator, m, nulls int) (arr arrow.Array, err error) {
	var bufs []*memory.Buffer
	defer func() {
		for _, b := range bufs {
			if b != nil {
				b.Release()
			}
		}
	}()
	var valid *memory.Buffer
	if nulls > 0 {
		valid = newBuf(mem, int(bitutil.BytesForBits(int64(m))))
		vb := valid.Bytes()
		clear(vb)
		for _, p := range c.plans {
			if p.contig {
				bitutil.SetBitsTo(vb, int64(p.out0), int64(p.k), true)
				continue
			}
			for i, x := range p.pos {
				if x >= 0 {
					bitutil.SetBit(vb, p.out0+i)
				}
			}
		}
	}
	bufs = append(bufs, valid)
	fc := c.fc
	var d arrow.ArrayData
	switch fc.kind {
	case fkBool:
		vals := newBuf(mem, int(bitutil.BytesForBits(int64(m))))
		bufs = append(bufs, vals)
		vb := vals.Bytes()
		clear(vb)
		for _, p := range c.plans {
			bits := p.ps.src.Boolean()
			if p.contig {
				for i := 0; i < p.k; i++ {
					if bitutil.BitIsSet(bits, p.v0+i) {
						bitutil.SetBit(vb, p.out0+i)
					}
				}
				continue
			}
			for i, x := range p.pos {
				if x >= 0 && bitutil.BitIsSet(bits, int(x)) {
					bitutil.SetBit(vb, p.out0+i)
				}
			}
		}
		d = array.NewData(fc.typ, m, []*memory.Buffer{valid, vals}, nil, nulls, 0)
	case fkI32toI8:
		d = fixedData(mem, fc.typ, m, nulls, valid, &bufs, c.plans, func(ps *pageState) []int32 { return ps.src.Int32() }, arrow.Int8Traits.CastFromBytes, 1)
	case fkI32toI16:
		d = fixedData(mem, fc.typ, m, nulls, valid, &bufs, c.plans, func(ps *pageState) []int32 { return ps.src.Int32() }, arrow.Int16Traits.CastFromBytes, 2)
	case fkI32:
		d = fixedData(mem, fc.typ, m, nulls, valid, &bufs, c.plans, func(ps *pageState) []int32 { return ps.src.Int32() }, arrow.Int32Traits.CastFromBytes, 4)
	case fkI64:
		d = fixedData(mem, fc.typ, m, nulls, valid, &bufs, c.plans, func(ps *pageState) []int64 { return ps.src.Int64() }, arrow.Int64Traits.CastFromBytes, 8)
	case fkF32:
		d = fixedData(mem, fc.typ, m, nulls, valid, &bufs, c.plans, func(ps *pageState) []float32 { return ps.src.Float() }, arrow.Float32Traits.CastFromBytes, 4)
	case fkF64:
		d = fixedData(mem, fc.typ, m, nulls, valid, &bufs, c.plans, func(ps *pageState) []float64 { return ps.src.Double() }, arrow.Float64Traits.CastFromBytes, 8)
	case fkI32toDec:
		d = decData(mem, fc.typ, m, nulls, valid, &bufs, c.plans, func(ps *pageState) []int32 { return ps.src.Int32() })
	case fkI64toDec:
		d = decData(mem, fc.typ, m, nulls, valid, &bufs, c.plans, func(ps *pageState) []int64 { return ps.src.Int64() })
	case fkBytes:
		d = bytesData(mem, fc.typ, m, nulls, valid, &bufs, c.plans)
	case fkFLBADec:
		vals := newBuf(mem, m*arrow.Decimal128SizeBytes)
		bufs = append(bufs, vals)
		dst := arrow.Decimal128Traits.CastFromBytes(vals.Bytes())
		for _, p := range c.plans {
			get := c.bytesGetter(p.ps)
			for i := 0; i < p.k; i++ {
				x := p.v0 + i
				if !p.contig {
					x = int(p.pos[i])
				}
				if x < 0 {
					dst[p.out0+i] = decimal128.Num{}
					continue
				}
				v, err := beDecimal(get(x))
				if err != nil {
					return nil, fmt.Errorf("column %s: %w", c.name, err)
				}
				dst[p.out0+i] = v
			}
		}
		d = array.NewData(fc.typ, m, []*memory.Buffer{valid, vals}, nil, nulls, 0)
	case fkInt96:
		vals := newBuf(mem, m*8)
		bufs = append(bufs, vals)
		dst := arrow.Int64Traits.CastFromBytes(vals.Bytes())
		for _, p := range c.plans {
			src := p.ps.src.Int96()
			for i := 0; i < p.k; i++ {
				x := p.v0 + i
				if !p.contig {
					x = int(p.pos[i])
				}
				if x < 0 {
					dst[p.out0+i] = 0
					continue
				}
				v, err := int96Nanos(src[x])
				if err != nil {
					return nil, fmt.Errorf("column %s: %w", c.name, err)
				}
				dst[p.out0+i] = v
			}
		}
		d = array.NewData(fc.typ, m, []*memory.Buffer{valid, vals}, nil, nulls, 0)
	case fkFLBA:
		w := fc.width
		vals := newBuf(mem, m*w)
		bufs = append(bufs, vals)
		dst := vals.Bytes()
		for _, p := range c.plans {
			src, _ := p.ps.src.FixedLenByteArray()
			if p.contig {
				copy(dst[p.out0*w:(p.out0+p.k)*w], src[p.v0*w:(p.v0+p.k)*w])
				continue
			}
			for i, x := range p.pos {
				o := dst[(p.out0+i)*w : (p.out0+i+1)*w]
				if x < 0 {
					clear(o)
				} else {
					copy(o, src[int(x)*w:int(x+1)*w])
				}
			}
		}
		d = array.NewData(fc.typ, m, []*memory.Buffer{valid, vals}, nil, nulls, 0)
	default:
		return nil, fmt.Errorf("column %s: no fast decoder", c.name)
	}
	defer d.Release()
	return array.MakeFromData(d), nil
}

func (c *colCursor) bytesGetter(ps *pageState) func(int) []byte {
	data, w := ps.src.FixedLenByteArray()
	return func(i int) []byte { return data[i*w : (i+1)*w] }
}

// beDecimal reads a big-endian two's complement integer of at most 16 bytes.
func beDecimal(b []byte) (decimal128.Num, error) {
	if len(b) > 16 {
		return decimal128.Num{}, fmt.Errorf("decimal of %d bytes does not fit Decimal128", len(b))
	}
	var buf [16]byte
	if len(b) > 0 && b[0]&0x80 != 0 {
		for i := range buf {
			buf[i] = 0xff
		}
	}
	copy(buf[16-len(b):], b)
	return decimal128.New(int64(binary.BigEndian.Uint64(buf[:8])), binary.BigEndian.Uint64(buf[8:])), nil
}

type number interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~float32 | ~float64
}

// fixedData gathers fixed-width numbers (converting S to D).
func fixedData[S, D number](mem memory.Allocator, typ arrow.DataType, m, nulls int, valid *memory.Buffer,
	bufs *[]*memory.Buffer, plans []segPlan, src func(*pageState) []S, cast func([]byte) []D, width int) arrow.ArrayData {
	vals := newBuf(mem, m*width)
	*bufs = append(*bufs, vals)
	dst := cast(vals.Bytes())[:m]
	for _, p := range plans {
		s := src(p.ps)
		o := dst[p.out0 : p.out0+p.k]
		if p.contig {
			convertNums(o, s[p.v0:p.v0+p.k])
			continue
		}
		pos := p.pos[:len(o)]
		if nulls == 0 {
			for i, x := range pos {
				o[i] = D(s[x])
			}
			continue
		}
		for i, x := range pos {
			if x >= 0 {
				o[i] = D(s[x])
			} else {
				o[i] = 0
			}
		}
	}
	return array.NewData(typ, m, []*memory.Buffer{valid, vals}, nil, nulls, 0)
}

func convertNums[S, D number](dst []D, src []S) {
	if same, ok := any(dst).([]S); ok {
		copy(same, src)
		return
	}
	src = src[:len(dst)]
	for i, v := range src {
		dst[i] = D(v)
	}
}

// decData gathers integers into Decimal128 values.
func decData[S int32 | int64](mem memory.Allocator, typ arrow.DataType, m, nulls int, valid *memory.Buffer,
	bufs *[]*memory.Buffer, plans []segPlan, src func(*pageState) []S) arrow.ArrayData {
	vals := newBuf(mem, m*arrow.Decimal128SizeBytes)
	*bufs = append(*bufs, vals)
	// A Decimal128 is two little-endian words, low then high: write them
	// directly (the high word is the sign extension of the low one).
	dst := arrow.Uint64Traits.CastFromBytes(vals.Bytes())[:2*m]
	for _, p := range plans {
		s := src(p.ps)
		o := dst[2*p.out0 : 2*(p.out0+p.k)]
		if p.contig {
			for i, v := range s[p.v0 : p.v0+p.k] {
				o[2*i], o[2*i+1] = uint64(int64(v)), uint64(int64(v)>>63)
			}
			continue
		}
		pos := p.pos[:p.k]
		if nulls == 0 {
			for i, x := range pos {
				v := int64(s[x])
				o[2*i], o[2*i+1] = uint64(v), uint64(v>>63)
			}
			continue
		}
		for i, x := range pos {
			var v int64
			if x >= 0 {
				v = int64(s[x])
			}
			o[2*i], o[2*i+1] = uint64(v), uint64(v>>63)
		}
	}
	return array.NewData(typ, m, []*memory.Buffer{valid, vals}, nil, nulls, 0)
}

// bytesData builds String/Binary data: the total length first, then one
// exact data buffer, filled by one copy per plain run or per value.
func bytesData(mem memory.Allocator, typ arrow.DataType, m, nulls int, valid *memory.Buffer,
	bufs *[]*memory.Buffer, plans []segPlan) arrow.ArrayData {
	total := 0
	for _, p := range plans {
		_, offs := p.ps.src.ByteArray()
		if p.contig {
			total += int(offs[p.v0+p.k] - offs[p.v0])
			continue
		}
		for _, x := range p.pos {
			if x >= 0 {
				total += int(offs[x+1] - offs[x])
			}
		}
	}
	if total > int(^uint32(0)>>1) {
		panic(fmt.Sprintf("batch of %d string bytes exceeds 32-bit offsets", total))
	}
	offBuf := newBuf(mem, (m+1)*4)
	// gatherSlack bytes past the end let short values be moved as one
	// fixed-size block (the excess is overwritten or lies past Len).
	dataBuf := memory.NewResizableBuffer(mem)
	dataBuf.Reserve(total + gatherSlack)
	dataBuf.ResizeNoShrink(total)
	*bufs = append(*bufs, offBuf, dataBuf)
	offsets := arrow.Int32Traits.CastFromBytes(offBuf.Bytes())[:m+1]
	out := dataBuf.Buf()
	at := 0
	offsets[0] = 0
	var pad [smallDict + gatherSlack]byte
	for _, p := range plans {
		data, offs := p.ps.src.ByteArray()
		if p.contig {
			base := offs[p.v0]
			at0 := int32(at)
			o := offsets[p.out0+1 : p.out0+1+p.k]
			for i, e := range offs[p.v0+1 : p.v0+1+p.k] {
				o[i] = at0 + int32(e-base)
			}
			at += copy(out[at:], data[base:offs[p.v0+p.k]])
			continue
		}
		if len(data) <= smallDict {
			// A small dictionary (e.g. 1-character flags) is copied with
			// room after it so that its values, too, move as blocks.
			n := copy(pad[:], data)
			data = pad[:n+gatherSlack]
		}
		at = gatherBytes(out, at, offsets[p.out0+1:p.out0+1+len(p.pos)], data, offs, p.pos)
	}
	return array.NewData(typ, m, []*memory.Buffer{valid, offBuf, dataBuf}, nil, nulls, 0)
}

// gatherSlack is the spare room gatherBytes needs after the last value.
const gatherSlack = 32

// smallDict is the largest string dictionary bytesData copies with
// gatherSlack room after it before a gather.
const smallDict = 1024

// gatherBytes copies the values pos (-1 = NULL, no bytes) of (data, offs)
// to out from at, writes the end offset of each to o and returns the new
// end. Values of up to 32 bytes are moved as one or two 16-byte blocks
// instead of a memmove call each (most dictionary strings are short; for
// longer ones memmove is faster); out must have gatherSlack bytes beyond
// the total.
func gatherBytes(out []byte, at int, o []int32, data []byte, offs []uint32, pos []int32) int {
	o = o[:len(pos)]
	for i, x := range pos {
		if x >= 0 {
			s, e := int(offs[x]), int(offs[x+1])
			n := e - s
			switch {
			case n <= 8 && s+8 <= len(data):
				*(*[8]byte)(out[at:]) = *(*[8]byte)(data[s:])
			case n <= 16 && s+16 <= len(data):
				*(*[16]byte)(out[at:]) = *(*[16]byte)(data[s:])
			case n <= 32 && s+32 <= len(data):
				// two 16-byte blocks (a [32]byte copy would call memmove)
				*(*[16]byte)(out[at:]) = *(*[16]byte)(data[s:])
				*(*[16]byte)(out[at+16:]) = *(*[16]byte)(data[s+16:])
			default:
				copy(out[at:], data[s:e])
			}
			at += n
		}
		o[i] = int32(at)
	}
	return at
}

// ---------------------------------------------------------------------------
// The fast RecordReader.

type fastReader struct {
	batchCursor
	ctx      context.Context
	f        *ParquetFile
	st       *fastState
	mem      memory.Allocator
	cols     []column
	opts     ReadOptions
	decs     []*colCursor // one per distinct top-level field decoded
	colDec   []int        // per output column: index in decs, -1 = all NULL
	filterCo []int        // output columns the filter reads
	filterDc []int        // decoders of filterCo
	otherDc  []int        // decoders read by neither the filter nor the row filter
	allDc    []int
	rowf     rowFilterState // ReadOptions.RowFilter (parquet_rowfilter.go)
	runs     [][]int        // runs of adjacent row groups
	batch    int
	selBuf   []int32 // scratch of the rows a deletion vector keeps

	runOpen  bool
	runRows  int
	runPos   int
	runFirst int64
	pre      *rgPrefetcher // nil unless the file prefetches (object stores)
}

func (f *ParquetFile) newFastReader(ctx context.Context, st *fastState, opts ReadOptions, mem memory.Allocator,
	cols []column, rgs []int, batch int, filterCols []int) *fastReader {
	r := &fastReader{
		ctx:         ctx,
		f:           f,
		st:          st,
		mem:         mem,
		cols:        cols,
		opts:        opts,
		batchCursor: batchCursor{schema: ArrowSchema(opts.Fields)},
		colDec:      make([]int, len(cols)),
		batch:       batch,
		filterCo:    filterCols,
	}
	for i, rg := range rgs {
		if i == 0 || rg != rgs[i-1]+1 {
			r.runs = append(r.runs, nil)
		}
		r.runs[len(r.runs)-1] = append(r.runs[len(r.runs)-1], rg)
	}
	byTop := map[int]int{}
	root := f.md.Schema.Root()
	for i, c := range cols {
		r.colDec[i] = -1
		if c.top < 0 {
			continue
		}
		k, ok := byTop[c.top]
		if !ok {
			k = len(r.decs)
			byTop[c.top] = k
			r.decs = append(r.decs, &colCursor{fc: st.cols[c.top], ra: f.ra, name: root.Field(c.top).Name()})
		}
		r.colDec[i] = k
	}
	leaves := make([]int, len(r.decs))
	for k, d := range r.decs {
		leaves[k] = d.fc.leaf
	}
	r.pre = f.newRGPrefetcher(rgs, leaves)
	inFilter := make([]bool, len(r.decs))
	for _, ci := range filterCols {
		if k := r.colDec[ci]; k >= 0 && !inFilter[k] {
			inFilter[k] = true
			r.filterDc = append(r.filterDc, k)
		}
	}
	inRow := r.rowf.init(r, opts.RowFilter, inFilter)
	for k := range r.decs {
		r.allDc = append(r.allDc, k)
		if !inFilter[k] && !inRow[k] {
			r.otherDc = append(r.otherDc, k)
		}
	}
	return r
}

func (r *fastReader) closeRun() {
	for _, d := range r.decs {
		d.finish()
	}
	r.runOpen = false
}

func (r *fastReader) Release() {
	r.dropCurrent()
	r.closeRun()
	r.done = true
}

func (r *fastReader) Next() (ok bool) {
	if !r.advance() {
		return false
	}
	defer r.finishNext(r.f.name, r.Release, &ok)
	for {
		if r.cancelled(r.ctx, r.f.name) {
			return false
		}
		if !r.runOpen || r.runPos >= r.runRows {
			if r.runOpen {
				if err := r.checkRunEnd(); err != nil {
					r.err = fmt.Errorf("read parquet file %s: %w", r.f.name, err)
					return false
				}
				r.closeRun()
			}
			if len(r.runs) == 0 {
				return false
			}
			run := r.runs[0]
			r.runs = r.runs[1:]
			prgs := make([]pgo.RowGroup, len(run))
			rows := make([]int64, len(run))
			total := int64(0)
			for i, rg := range run {
				prgs[i] = r.st.pf.RowGroups()[rg]
				rows[i] = r.f.RowGroupNumRows(rg)
				if prgs[i].NumRows() != rows[i] {
					r.err = fmt.Errorf("read parquet file %s: row group %d row count mismatch", r.f.name, rg)
					return false
				}
				total += rows[i]
			}
			for _, d := range r.decs {
				d.open(prgs, rows)
			}
			r.runOpen = true
			r.runRows = int(total)
			r.runPos = 0
			r.runFirst = r.f.rgStart[run[0]]
			continue
		}
		n := min(r.batch, r.runRows-r.runPos)
		first := r.runFirst + int64(r.runPos)
		r.pre.at(first)
		rec, sel, err := r.readBatch(first, n)
		r.runPos += n
		if err != nil {
			var rfe *RowFilterError
			if errors.As(err, &rfe) {
				r.err = rfe // the owner's condition failed, not the file
				return false
			}
			r.err = fmt.Errorf("read parquet file %s: %w", r.f.name, err)
			return false
		}
		if rec == nil {
			continue
		}
		r.cur = rec
		r.first = first
		if sel != nil {
			r.rowPos = make([]int64, len(sel))
			for i, s := range sel {
				r.rowPos[i] = first + int64(s)
			}
		}
		return true
	}
}

// checkRunEnd verifies that every column ended with the run's last row group.
func (r *fastReader) checkRunEnd() error {
	for _, d := range r.decs {
		if d.cur != nil && d.row != d.cur.rows {
			return fmt.Errorf("column %s: column chunk has more rows than its row group", d.name)
		}
	}
	return nil
}

// each runs fn for every decoder index in ks, concurrently when Parallel.
func (r *fastReader) each(ks []int, fn func(d *colCursor) error) error {
	if !r.opts.Parallel || len(ks) < 2 {
		for _, k := range ks {
			if err := fn(r.decs[k]); err != nil {
				return err
			}
		}
		return nil
	}
	errs := make([]error, len(ks))
	var wg sync.WaitGroup
	for i, k := range ks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if p := recover(); p != nil {
					errs[i] = fmt.Errorf("corrupt data (%v)", p)
				}
			}()
			errs[i] = fn(r.decs[k])
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// readBatch reads rows [first, first+n) of the current row group and
// returns the surviving rows (nil when none survive) and their
// range-relative positions (nil when all rows survive).
func (r *fastReader) readBatch(first int64, n int) (rec arrow.RecordBatch, _ []int32, err error) {
	defer func() {
		for _, d := range r.decs {
			d.releaseRetired()
		}
	}()
	var sel []int32 // nil = all rows
	if del := r.opts.Deleted; del != nil {
		if cap(r.selBuf) < n {
			r.selBuf = make([]int32, 0, n)
		}
		sel = keptRows(del, first, n, r.selBuf)
	}
	decoded := make([]arrow.Array, len(r.decs))
	defer func() {
		for _, a := range decoded {
			if a != nil {
				a.Release()
			}
		}
	}()
	collectOnly := func(ks []int) error {
		return r.each(ks, func(d *colCursor) error { return d.collect(n) })
	}
	// skipOnly passes over the batch's rows of columns none of whose
	// values is needed (pages and chunks skipped undecoded where possible).
	skipOnly := func(ks []int) error {
		for _, k := range ks {
			r.decs[k].skip(n)
		}
		return nil
	}
	decode := func(ks []int, sel []int32, collect bool) error {
		return r.each(ks, func(d *colCursor) error {
			if collect {
				if err := d.collect(n); err != nil {
					return err
				}
			}
			m, nulls := d.plan(sel, n)
			a, err := d.materialise(r.mem, m, nulls)
			if err != nil {
				return err
			}
			k := r.decIndex(d)
			if decoded[k] != nil {
				decoded[k].Release()
			}
			decoded[k] = a
			return nil
		})
	}
	// rest runs the row filter (if any) on the rows sel that Deleted and
	// Filter kept (the filter columns decoded for them), then decodes the
	// other columns for the rows it keeps. none: no row is left.
	rest := func(sel []int32) (_ []int32, none bool, err error) {
		if r.rowf.on() {
			if sel, none, err = r.rowf.apply(r, decoded, sel, n, decode, skipOnly); err != nil || none {
				return nil, none, err
			}
		}
		return sel, false, decode(r.otherDc, sel, true)
	}
	if sel != nil && len(sel) == 0 {
		return nil, nil, skipOnly(r.allDc)
	}
	filtered := false
	if r.dictFilterable() {
		// The filter column is collected here; decode below does not collect it again.
		if err := collectOnly(r.filterDc); err != nil {
			return nil, nil, err
		}
		next, ok, err := r.dictSelect(r.decs[r.filterDc[0]], sel, n)
		if err != nil {
			return nil, nil, err
		}
		if ok {
			if len(next) == 0 {
				return nil, nil, skipOnly(r.restDc())
			}
			if len(next) < n {
				sel = next
			}
			if err := decode(r.filterDc, sel, false); err != nil {
				return nil, nil, err
			}
			var none bool
			if sel, none, err = rest(sel); err != nil || none {
				return nil, nil, err
			}
			filtered = true
		}
	}
	if filtered {
		// dictSelect filtered the batch and everything is decoded
	} else if r.opts.Filter != nil {
		if err := decode(r.filterDc, sel, !r.dictFilterable()); err != nil {
			return nil, nil, err
		}
		m := n
		if sel != nil {
			m = len(sel)
		}
		mask, err := r.evalFilter(decoded, m)
		if err != nil {
			return nil, nil, err
		}
		var next []int32
		for i := 0; i < m; i++ {
			if mask.Value(i) {
				row := int32(i)
				if sel != nil {
					row = sel[i]
				}
				next = append(next, row)
			}
		}
		mask.Release()
		if len(next) == 0 {
			return nil, nil, skipOnly(r.restDc())
		}
		if len(next) < m {
			sel = next
			if err := decode(r.filterDc, sel, false); err != nil {
				return nil, nil, err
			}
		}
		var none bool
		if sel, none, err = rest(sel); err != nil || none {
			return nil, nil, err
		}
	} else if r.rowf.on() {
		var none bool
		if sel, none, err = rest(sel); err != nil || none {
			return nil, nil, err
		}
	} else if err := decode(r.allDc, sel, true); err != nil {
		return nil, nil, err
	}
	m := n
	if sel != nil {
		m = len(sel)
	}
	rec, err = r.assemble(decoded, r.schema, allIdx(len(r.cols)), m)
	return rec, sel, err
}

func allIdx(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

func (r *fastReader) decIndex(d *colCursor) int {
	for k, x := range r.decs {
		if x == d {
			return k
		}
	}
	return -1
}

// assemble adapts decoded file-type arrays to the output columns idx.
func (r *fastReader) assemble(decoded []arrow.Array, sc *arrow.Schema, idx []int, m int) (arrow.RecordBatch, error) {
	out := make([]arrow.Array, len(idx))
	defer func() {
		for _, a := range out {
			if a != nil {
				a.Release()
			}
		}
	}()
	for j, ci := range idx {
		c := r.cols[ci]
		k := r.colDec[ci]
		if k < 0 {
			out[j] = array.MakeArrayOfNull(r.mem, sc.Field(j).Type, m)
			continue
		}
		a, err := adapt(r.ctx, r.mem, decoded[k], c.fileType, c.field.Type)
		if err != nil {
			return nil, fmt.Errorf("column %s: %w", c.field.Name, err)
		}
		out[j] = a
	}
	return array.NewRecordBatch(sc, out, int64(m)), nil
}

// evalFilter evaluates the filter over the decoded filter columns.
func (r *fastReader) evalFilter(decoded []arrow.Array, m int) (*array.Boolean, error) {
	fields := make([]arrow.Field, len(r.filterCo))
	for j, ci := range r.filterCo {
		fields[j] = r.schema.Field(ci)
	}
	rec, err := r.assemble(decoded, arrow.NewSchema(fields, nil), r.filterCo, m)
	if err != nil {
		return nil, err
	}
	defer rec.Release()
	return evalPredicate(r.opts.Filter, rec, r.mem)
}

package format

// The fast Parquet path (parquet_fast.go): column cursors over a row
// group's pages.

import (
	"bytes"
	"fmt"
	"io"
	"slices"

	pgo "github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding"
)

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

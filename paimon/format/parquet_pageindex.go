package format

// Page-level pruning with the Parquet page index (column index + offset
// index, written by parquet-mr — Paimon Java — and by paimon-cpp). Before a
// fast read with a Filter, the pages of the filter's columns whose column
// index bounds cannot satisfy it are turned into row ranges that no row of
// the result can come from; the reader skips those rows in every column
// (parquet_skip.go: whole chunks never opened, offset-index seeks, pages
// never decompressed) and, on an object store, announces only the pages of
// the kept ranges, so their bytes are never fetched.
//
// Invariants:
//   - The selection is a superset of the rows the Filter keeps: it only
//     removes rows of pages whose bounds prove no row can match (the same
//     predicate.MayMatch rules as row-group statistics: missing bounds,
//     unknown types and NaN all count as "may match"). The Filter still runs
//     on every row read, so the result is the same with or without it.
//   - Only INT32/INT64 columns of signed integer, DATE, TIME, DECIMAL and
//     TIMESTAMP types are used: their bounds are exact (byte-array bounds may
//     be truncated by writers, float bounds have NaN rules). A page's null
//     count is not trusted (parquet-go reports 0 when the index has none):
//     only null_pages, a required field, says a page is all NULL.
//   - An index that fails its checks (page counts of the two indexes differ,
//     first rows not increasing from 0, offsets not increasing) is ignored
//     for that column chunk.
//   - The decoded indexes stay with the parsed footer (parquet-go keeps them
//     on its column chunk objects), so a file read again costs no request
//     for them.

import (
	"io"
	"math/big"
	"sort"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/parquet/schema"
	pgo "github.com/parquet-go/parquet-go"

	"github.com/paimon-flightsql/paimon-flightsql/paimon/fileio"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// PageIndexStats counts what the page index pruned (ReadOptions.PageIndex).
type PageIndexStats struct {
	// RowsSkipped are rows of read row groups not read because the page
	// index proved no row of their pages matches the filter.
	RowsSkipped atomic.Int64
}

// rowRange is the half-open range [from, to) of row positions.
type rowRange struct{ from, to int64 }

// intersectRanges returns the rows in both a and b (sorted, disjoint).
func intersectRanges(a, b []rowRange) []rowRange {
	var out []rowRange
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		lo, hi := max(a[i].from, b[j].from), min(a[i].to, b[j].to)
		if lo < hi {
			out = append(out, rowRange{lo, hi})
		}
		if a[i].to < b[j].to {
			i++
		} else {
			j++
		}
	}
	return out
}

// unionRanges returns the rows in a or b (sorted, disjoint, adjacent merged).
func unionRanges(a, b []rowRange) []rowRange {
	all := append(append(make([]rowRange, 0, len(a)+len(b)), a...), b...)
	sort.Slice(all, func(i, j int) bool { return all[i].from < all[j].from })
	var out []rowRange
	for _, r := range all {
		if n := len(out); n > 0 && r.from <= out[n-1].to {
			out[n-1].to = max(out[n-1].to, r.to)
			continue
		}
		out = append(out, r)
	}
	return out
}

// rangeRows is the number of rows in rs.
func rangeRows(rs []rowRange) int64 {
	var n int64
	for _, r := range rs {
		n += r.to - r.from
	}
	return n
}

// pageSel is a read's selection: the file row positions that may match,
// sorted and disjoint, and per row group the kept ranges relative to it
// (absent: the whole row group is kept).
type pageSel struct {
	ranges []rowRange
	byRG   map[int][]rowRange
}

// at returns, for the row at file position pos of a run ending at end, how
// many rows to skip before the next kept row (0 when pos is kept) and how
// many kept rows follow from there without a gap (capped at end).
func (s *pageSel) at(pos, end int64) (skip, take int64) {
	i := sort.Search(len(s.ranges), func(i int) bool { return s.ranges[i].to > pos })
	if i == len(s.ranges) || s.ranges[i].from >= end {
		return end - pos, 0
	}
	if r := s.ranges[i]; r.from > pos {
		return r.from - pos, 0
	}
	return 0, min(s.ranges[i].to, end) - pos
}

// pageSelection returns the selection of rows of row groups rgs that the
// page index cannot exclude for opts.Filter, or nil when it excludes none
// (no filter, no usable index). The indexes are read through ra.
func (f *ParquetFile) pageSelection(ra io.ReaderAt, st *fastState, opts ReadOptions, rgs []int) *pageSel {
	if opts.Filter == nil || opts.NoPageIndex || st == nil || st.pf == nil {
		return nil
	}
	ev := &pageEval{f: f, ra: ra, st: st, fields: opts.Fields}
	sel := &pageSel{byRG: map[int][]rowRange{}}
	excluded := false
	for _, rg := range rgs {
		rows := f.RowGroupNumRows(rg)
		ev.rg, ev.rows = rg, rows
		kept := ev.eval(opts.Filter, false)
		start := f.rgStart[rg]
		if rangeRows(kept) < rows {
			excluded = true
			sel.byRG[rg] = kept
		}
		for _, r := range kept {
			sel.ranges = append(sel.ranges, rowRange{start + r.from, start + r.to})
		}
	}
	if !excluded {
		return nil
	}
	return sel
}

// pageEval evaluates a filter over the pages of one row group.
type pageEval struct {
	f      *ParquetFile
	ra     io.ReaderAt
	st     *fastState
	fields []types.DataField
	rg     int
	rows   int64
}

func (e *pageEval) all() []rowRange {
	if e.rows == 0 {
		return nil
	}
	return []rowRange{{0, e.rows}}
}

// eval returns the rows (relative to the row group) of pages where p (NOT
// p when neg) may hold; NOT is pushed to the leaves as MayMatch does.
func (e *pageEval) eval(p predicate.Predicate, neg bool) []rowRange {
	switch x := p.(type) {
	case predicate.Const:
		if bool(x) != neg {
			return e.all()
		}
		return nil
	case *predicate.Not:
		return e.eval(x.Child, !neg)
	case *predicate.And:
		if neg {
			return e.any(x.Children, true)
		}
		return e.every(x.Children, false)
	case *predicate.Or:
		if neg {
			return e.every(x.Children, true)
		}
		return e.any(x.Children, false)
	case *predicate.Leaf:
		return e.leaf(x, neg)
	}
	return e.all()
}

func (e *pageEval) every(ps []predicate.Predicate, neg bool) []rowRange {
	out := e.all()
	for _, c := range ps {
		if len(out) == 0 {
			break
		}
		out = intersectRanges(out, e.eval(c, neg))
	}
	return out
}

func (e *pageEval) any(ps []predicate.Predicate, neg bool) []rowRange {
	var out []rowRange
	for _, c := range ps {
		out = unionRanges(out, e.eval(c, neg))
		if rangeRows(out) == e.rows {
			break
		}
	}
	return out
}

// leaf returns the rows of the pages of the leaf's column that may match.
func (e *pageEval) leaf(x *predicate.Leaf, neg bool) []rowRange {
	fd, ok := e.field(x)
	if !ok {
		return e.all()
	}
	c, err := e.f.resolve(fd)
	if err != nil || c.top < 0 || len(e.f.leaves[c.top]) != 1 || c.fileType.IsNested() {
		return e.all()
	}
	leaf := e.f.leaves[c.top][0]
	col := e.f.md.Schema.Column(leaf)
	if !pageBoundsUsable(col) {
		return e.all()
	}
	cc, _ := e.st.pf.RowGroups()[e.rg].ColumnChunks()[leaf].(*pgo.FileColumnChunk)
	if cc == nil {
		return e.all()
	}
	oi, ok := usableOffsetIndex(cc, e.ra, e.rows)
	if !ok {
		return e.all()
	}
	ci, err := cc.ColumnIndexFrom(e.ra)
	if err != nil || ci.NumPages() != oi.NumPages() {
		return e.all()
	}
	var p predicate.Predicate = x
	if neg {
		p = &predicate.Not{Child: x}
	}
	cols := map[int]predicate.ColumnStats{}
	var out []rowRange
	for i, n := 0, oi.NumPages(); i < n; i++ {
		from, to := oi.FirstRowIndex(i), e.rows
		if i+1 < n {
			to = oi.FirstRowIndex(i + 1)
		}
		cs := predicate.ColumnStats{NullCount: -1}
		if ci.NullPage(i) {
			cs.NullCount = to - from
		} else {
			mn, ok1 := pageLiteral(ci.MinValue(i), col, c.fileType)
			mx, ok2 := pageLiteral(ci.MaxValue(i), col, c.fileType)
			if ok1 && ok2 {
				mn, ok1 = evolveLiteral(mn, c.fileType, fd.Type)
				mx, ok2 = evolveLiteral(mx, c.fileType, fd.Type)
				if ok1 && ok2 {
					cs.Min, cs.Max = mn, mx
				}
			}
		}
		cols[x.FieldID] = cs
		if predicate.MayMatch(p, predicate.MapStats{Rows: to - from, Columns: cols}) {
			if k := len(out); k > 0 && out[k-1].to == from {
				out[k-1].to = to
			} else {
				out = append(out, rowRange{from, to})
			}
		}
	}
	return out
}

// field finds the read field a leaf refers to (by id, else by name).
func (e *pageEval) field(x *predicate.Leaf) (types.DataField, bool) {
	for _, f := range e.fields {
		if f.ID == x.FieldID {
			return f, true
		}
	}
	for _, f := range e.fields {
		if f.Name == x.Column {
			return f, true
		}
	}
	return types.DataField{}, false
}

// pageBoundsUsable reports whether a leaf column's column index bounds are
// exact and ordered as its values: INT32/INT64 with no logical type, a
// signed integer, DATE, TIME, TIMESTAMP or DECIMAL.
func pageBoundsUsable(col *schema.Column) bool {
	switch col.PhysicalType().String() {
	case "INT32", "INT64":
	default:
		return false
	}
	switch lt := col.LogicalType().(type) {
	case schema.IntLogicalType:
		return lt.IsSigned()
	case *schema.IntLogicalType:
		return lt.IsSigned()
	}
	return true
}

// pageLiteral converts a column index bound (an INT32/INT64 value) to a
// literal of fileType, as statsLiterals does for footer statistics.
func pageLiteral(v pgo.Value, col *schema.Column, t types.DataType) (predicate.Literal, bool) {
	if v.IsNull() {
		return nil, false
	}
	var x int64
	switch v.Kind() {
	case pgo.Int32:
		x = int64(v.Int32())
		switch t.Root {
		case types.TinyInt, types.SmallInt, types.Int, types.Date, types.Time, types.BigInt:
			return x, true
		}
	case pgo.Int64:
		x = v.Int64()
		switch t.Root {
		case types.BigInt, types.Int, types.SmallInt, types.TinyInt:
			return x, true
		case types.Timestamp, types.TimestampLTZ:
			unit, ok := int64TimestampUnit(col)
			if !ok {
				return nil, false
			}
			return tsLiteral(x, unit), true
		}
	default:
		return nil, false
	}
	if t.Root == types.Decimal {
		return predicate.Decimal{Unscaled: big.NewInt(x), Scale: t.Scale}, true
	}
	return nil, false
}

// selectedPageRanges returns the byte ranges of column chunk (rg, leaf)
// holding the rows kept (relative to rg): the dictionary page and the pages
// overlapping kept rows. false when the chunk has no usable offset index
// (announce the whole chunk).
func (f *ParquetFile) selectedPageRanges(ra io.ReaderAt, rg, leaf int, kept []rowRange, out []fileio.Range) ([]fileio.Range, bool) {
	st := &f.fast
	if st.pf == nil {
		return out, false
	}
	cc, _ := st.pf.RowGroups()[rg].ColumnChunks()[leaf].(*pgo.FileColumnChunk)
	if cc == nil {
		return out, false
	}
	rows := f.RowGroupNumRows(rg)
	oi, ok := usableOffsetIndex(cc, ra, rows)
	if !ok {
		return out, false
	}
	md, err := f.md.RowGroup(rg).ColumnChunk(leaf)
	if err != nil {
		return out, false
	}
	if md.HasDictionaryPage() && md.DictionaryPageOffset() > 0 && md.DictionaryPageOffset() < oi.Offset(0) {
		out = append(out, fileio.Range{Off: md.DictionaryPageOffset(), Len: oi.Offset(0) - md.DictionaryPageOffset()})
	}
	k := 0
	for i, n := 0, oi.NumPages(); i < n; i++ {
		from, to := oi.FirstRowIndex(i), rows
		if i+1 < n {
			to = oi.FirstRowIndex(i + 1)
		}
		for k < len(kept) && kept[k].to <= from {
			k++
		}
		if k < len(kept) && kept[k].from < to {
			out = append(out, fileio.Range{Off: oi.Offset(i), Len: oi.CompressedPageSize(i)})
		}
	}
	return out, true
}

// clipReader serves a column's page reads on an object store when a page
// selection announced only some pages: parquet-go's page reader fills a
// read buffer (ReadBufferSize) past the page it needs, which would fetch
// the unannounced pages that follow with a request of their own. A read
// starting inside an announced range is cut at the range's end (a short
// read without error, which the buffered reader takes as a partial fill);
// any other read is passed through whole.
type clipReader struct {
	ra    io.ReaderAt
	allow []fileio.Range // sorted, disjoint
}

func (c *clipReader) ReadAt(p []byte, off int64) (int, error) {
	i := sort.Search(len(c.allow), func(i int) bool { return c.allow[i].Off+c.allow[i].Len > off })
	if i < len(c.allow) && c.allow[i].Off <= off {
		if end := c.allow[i].Off + c.allow[i].Len; off+int64(len(p)) > end {
			return c.ra.ReadAt(p[:end-off], off)
		}
	}
	return c.ra.ReadAt(p, off)
}

// clipReaders gives each decoder of a prefetching read with a page
// selection a clipReader over the ranges announced for its column.
func (r *fastReader) clipReaders(rgs []int) {
	if r.pre == nil || r.psel == nil {
		return
	}
	for _, d := range r.decs {
		var rs []fileio.Range
		for _, rg := range rgs {
			kept, partial := r.psel.byRG[rg]
			if !partial {
				rs = r.f.chunkRanges(rg, []int{d.fc.leaf}, rs)
				continue
			}
			var ok bool
			if rs, ok = r.f.selectedPageRanges(r.f.ra, rg, d.fc.leaf, kept, rs); !ok {
				rs = r.f.chunkRanges(rg, []int{d.fc.leaf}, rs)
			}
		}
		sort.Slice(rs, func(i, j int) bool { return rs[i].Off < rs[j].Off })
		merged := rs[:0]
		for _, x := range rs {
			if n := len(merged); n > 0 && x.Off <= merged[n-1].Off+merged[n-1].Len {
				merged[n-1].Len = max(merged[n-1].Len, x.Off+x.Len-merged[n-1].Off)
				continue
			}
			merged = append(merged, x)
		}
		d.ra = &clipReader{ra: r.f.ra, allow: merged}
	}
}

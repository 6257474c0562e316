package format

import (
	"sort"

	"github.com/paimon-flightsql/paimon-flightsql/paimon/fileio"
)

// rgPrefetcher announces to a network file (fileio.Prefetcher) the column
// chunks a Parquet reader is about to read: the row group being read and
// the next one, so the next row group's chunks arrive while this one
// decodes. On a local file it does nothing.
type rgPrefetcher struct {
	f      *ParquetFile
	leaves []int    // leaf columns decoded
	rgs    []int    // row groups in reading order
	next   int      // rgs[:next] are announced
	sel    *pageSel // when set: only the pages of kept rows are announced
}

// newRGPrefetcher returns nil when the file's reader does not prefetch or
// no column is decoded.
func (f *ParquetFile) newRGPrefetcher(rgs, leaves []int) *rgPrefetcher {
	if _, ok := f.ra.(fileio.Prefetcher); !ok || len(leaves) == 0 {
		return nil
	}
	if rgs == nil {
		rgs = make([]int, f.NumRowGroups())
		for i := range rgs {
			rgs[i] = i
		}
	}
	return &rgPrefetcher{f: f, leaves: leaves, rgs: rgs}
}

// at is called before reading the rows [pos, end) (file positions): a
// batch may span adjacent row groups.
func (p *rgPrefetcher) at(pos, end int64) {
	if p == nil || p.next >= len(p.rgs) {
		return
	}
	last := max(pos, end-1)
	rg := sort.Search(len(p.f.rgStart), func(i int) bool { return p.f.rgStart[i] > last }) - 1
	i := p.next - 1
	for i+1 < len(p.rgs) && p.rgs[i+1] <= rg {
		i++
	}
	// Announce through the row group after the current one.
	var ranges []fileio.Range
	for p.next < len(p.rgs) && p.next <= i+1 {
		ranges = p.rgRanges(p.rgs[p.next], ranges)
		p.next++
	}
	fileio.Prefetch(p.f.ra, ranges)
}

// rgRanges appends the byte ranges of row group rg to announce: with a page
// selection that excludes rows of rg, only the pages of kept rows (and
// dictionaries) of chunks with an offset index, nothing when no row is kept.
func (p *rgPrefetcher) rgRanges(rg int, out []fileio.Range) []fileio.Range {
	if p.sel == nil {
		return p.f.chunkRanges(rg, p.leaves, out)
	}
	kept, partial := p.sel.byRG[rg]
	if !partial {
		return p.f.chunkRanges(rg, p.leaves, out)
	}
	if len(kept) == 0 {
		return out
	}
	for _, leaf := range p.leaves {
		var ok bool
		if out, ok = p.f.selectedPageRanges(p.f.ra, rg, leaf, kept, out); !ok {
			out = p.f.chunkRanges(rg, []int{leaf}, out)
		}
	}
	return out
}

// chunkRanges appends the byte ranges of row group rg's column chunks of
// the given leaves (dictionary page included). Chunks whose metadata is
// unreadable are left out: announcing is only a hint.
func (f *ParquetFile) chunkRanges(rg int, leaves []int, out []fileio.Range) []fileio.Range {
	md := f.md.RowGroup(rg)
	for _, leaf := range leaves {
		cc, err := md.ColumnChunk(leaf)
		if err != nil {
			continue
		}
		start := cc.DataPageOffset()
		if cc.HasDictionaryPage() && cc.DictionaryPageOffset() > 0 && cc.DictionaryPageOffset() < start {
			start = cc.DictionaryPageOffset()
		}
		n := cc.TotalCompressedSize()
		if start < 0 || n <= 0 || start >= f.size {
			continue
		}
		out = append(out, fileio.Range{Off: start, Len: min(n, f.size-start)})
	}
	return out
}

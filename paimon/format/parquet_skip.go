package format

import (
	"bytes"
	"fmt"
	"sync/atomic"

	pgo "github.com/parquet-go/parquet-go"
)

// Skipping rows no one needs (late materialisation). When a batch keeps no
// row of a column — the filter or the row filter dropped them all, or a
// deletion vector did — the column's cursor skips the batch's rows instead
// of collecting them: the rest of the current page is passed over, and the
// rows beyond it are remembered (pend) and skipped when a page is next
// needed:
//
//   - column chunks wholly inside the skipped range are never opened
//     (neither their dictionary nor their pages are read or decompressed);
//   - inside a chunk that has an offset index, FilePages.SeekToRow jumps to
//     the start of the page holding the first needed row without decoding
//     the pages before it (the index is checked first: row indexes start
//     at 0 and increase, pages lie in order inside the chunk; a chunk
//     whose index fails the check is read page by page), and the rows
//     before the needed one are skipped inside that page;
//   - otherwise the pages are read and dropped until the row is reached.
//
// The chunk's row accounting (chunk, and the checks against the row
// group's row count) holds in every case; a chunk that is skipped to its
// end is not checked for surplus rows (its values are never used).

// seekWithOffsetIndex lets skipPending seek by offset indexes (tests turn
// it off to check the page-by-page path on the same files).
var seekWithOffsetIndex = true

// skipSeeks counts the seeks by offset index (tests).
var skipSeeks atomic.Int64

// skip passes over the next n rows.
func (c *colCursor) skip(n int) {
	if c.cur != nil && c.row < c.cur.rows {
		k := min(n, c.cur.rows-c.row)
		c.advance(k)
		n -= k
	}
	c.pend += int64(n)
}

// advance moves the current page's cursor k rows on.
func (c *colCursor) advance(k int) {
	if c.cur.defs != nil {
		c.val += bytes.Count(c.cur.defs[c.row:c.row+k], []byte{c.fc.maxDef})
	} else {
		c.val += k
	}
	c.row += k
}

// skipPending skips the pending rows that whole chunks and an offset index
// can skip; what is left is skipped by nextPage reading pages.
func (c *colCursor) skipPending() error {
	for c.pend > 0 {
		if c.pages == nil {
			if c.rgi >= len(c.run) {
				return fmt.Errorf("column %s: skip past the row groups", c.name)
			}
			if rows := c.runRows[c.rgi]; c.pend >= rows {
				c.pend -= rows // the whole chunk: never opened
				c.rgi++
				continue
			}
			if err := c.openChunk(); err != nil {
				return err
			}
		}
		if left := c.runRows[c.rgi] - c.chunk; c.pend >= left {
			c.pages.Close() // the rest of the chunk
			c.pages = nil
			c.rgi++
			c.pend -= left
			continue
		}
		cc, _ := c.run[c.rgi].ColumnChunks()[c.fc.leaf].(*pgo.FileColumnChunk)
		if cc == nil || !seekWithOffsetIndex {
			return nil // read page by page
		}
		idx, ok := usableOffsetIndex(cc, c.ra, c.runRows[c.rgi])
		if !ok {
			return nil
		}
		// Seek to the start of the page holding the target row (a whole
		// page: parquet-go's mid-page slices are not used); nextPage skips
		// the rows before the target inside it.
		target := c.chunk + c.pend
		start := int64(-1)
		for i := idx.NumPages() - 1; i >= 0; i-- {
			if fr := idx.FirstRowIndex(i); fr <= target {
				start = fr
				break
			}
		}
		if start <= c.chunk {
			return nil // the target is in the next page already
		}
		if err := c.pages.SeekToRow(start); err != nil {
			return fmt.Errorf("column %s: seek to row %d: %w", c.name, start, err)
		}
		c.chunk, c.pend = start, target-start
		skipSeeks.Add(1)
		return nil
	}
	return nil
}

// usableOffsetIndex returns the chunk's offset index when SeekToRow may
// trust it: first row indexes from 0, increasing, below the chunk's row
// count; page offsets increasing.
func usableOffsetIndex(cc *pgo.FileColumnChunk, ra interface {
	ReadAt([]byte, int64) (int, error)
}, rows int64) (pgo.OffsetIndex, bool) {
	idx, err := cc.OffsetIndexFrom(ra)
	if err != nil { // none, or unreadable: read page by page
		return nil, false
	}
	n := idx.NumPages()
	if n == 0 || idx.FirstRowIndex(0) != 0 {
		return nil, false
	}
	for i := 1; i < n; i++ {
		if idx.FirstRowIndex(i) <= idx.FirstRowIndex(i-1) || idx.FirstRowIndex(i) >= rows ||
			idx.Offset(i) <= idx.Offset(i-1) {
			return nil, false
		}
	}
	return idx, true
}

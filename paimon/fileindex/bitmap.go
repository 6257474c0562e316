package fileindex

import (
	"sort"
	"strings"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// Bitmap index versions (BitmapFileIndex.VERSION_1/2).
const (
	bitmapV1 = 1
	bitmapV2 = 2
)

// bitmapEntry locates the bitmap of one value: offset < 0 inlines the single
// row -1-offset; otherwise [offset, offset+length) of the body, length -1
// meaning "to the end" (v1's last bitmap).
type bitmapEntry struct {
	offset, length int32
}

// bitmapIndex is a decoded BitmapFileIndex (v1 or v2). v1's value table is
// decoded eagerly; v2's blocks on demand, as Java reads them: an equality
// lookup decodes the one block whose first key is the greatest not above the
// value. Bitmaps are read on demand.
type bitmapIndex struct {
	ctx      string
	kind     kind
	t        types.DataType
	rows     int64
	hasNull  bool
	null     bitmapEntry
	distinct int
	entries  map[key]bitmapEntry // by kind.mapKey: v1's values, v2's decoded blocks
	blocks   []bitmapBlock       // v2 only
	area     []byte              // v2: the block area
	all      bool                // every value is in entries
	body     []byte
}

// bitmapBlock is one v2 index block: its first key and offset in the block
// area; decoded once looked up.
type bitmapBlock struct {
	first   key
	off     int32
	decoded bool
}

func (*bitmapIndex) Type() string { return TypeBitmap }

func openBitmap(b []byte, t types.DataType, rows int64, ctx string) (Reader, error) {
	k := bitmapKind(t)
	if k == kindNone || len(b) == 0 {
		return nil, nil
	}
	c := newCursor(b, ctx)
	version := c.u8("version")
	if c.err != nil {
		return nil, c.err
	}
	if version != bitmapV1 && version != bitmapV2 {
		return nil, nil // a version this reader does not know: ignore the index
	}
	ix := &bitmapIndex{ctx: ctx, kind: k, t: t, entries: map[key]bitmapEntry{}}
	rowCount := c.i32("row count")
	distinct := c.count("value count", k.minSize()) // v2: block entries (checked there)
	ix.distinct = distinct
	ix.hasNull = c.u8("has-null flag") != 0
	if ix.hasNull {
		ix.null.offset = c.i32("null offset")
		ix.null.length = -1
		if version == bitmapV2 {
			ix.null.length = c.i32("null bitmap length")
		}
	}
	if c.err != nil {
		return nil, c.err
	}
	if int64(rowCount) != rows {
		return nil, nil // not an index of this file's rows: ignore it
	}
	ix.rows = rows
	if version == bitmapV1 {
		ix.all = true
		if err := ix.readV1(c, distinct); err != nil {
			return nil, err
		}
	} else if err := ix.readV2(c); err != nil {
		return nil, err
	}
	return ix, nil
}

// readV1 reads BitmapFileIndexMeta: (value, offset) pairs in write order;
// lengths follow from the next non-negative offset.
func (ix *bitmapIndex) readV1(c *cursor, n int) error {
	type ve struct {
		k   key
		off int32
	}
	vals := make([]ve, 0, n)
	for i := 0; i < n && c.err == nil; i++ {
		k := ix.kind.read(c, "value")
		vals = append(vals, ve{k, c.i32("offset")})
	}
	if c.err != nil {
		return c.err
	}
	ix.body = c.b[c.pos:]
	lastOff := int32(-1)
	if ix.hasNull {
		lastOff = ix.null.offset
	}
	lastIdx := -2 // -1 = the null bitmap
	if ix.hasNull && ix.null.offset >= 0 {
		lastIdx = -1
	}
	setLen := func(idx int, length int32) {
		if idx == -1 {
			ix.null.length = length
		} else if idx >= 0 {
			e := ix.entries[ix.kind.mapKey(vals[idx].k)]
			e.length = length
			ix.entries[ix.kind.mapKey(vals[idx].k)] = e
		}
	}
	for i, v := range vals {
		ix.entries[ix.kind.mapKey(v.k)] = bitmapEntry{offset: v.off, length: -1}
		if v.off >= 0 {
			if lastOff >= 0 && lastIdx >= -1 {
				setLen(lastIdx, v.off-lastOff)
			}
			lastIdx, lastOff = i, v.off
		}
	}
	return nil
}

// readV2 reads BitmapFileIndexMetaV2's block index (first key and offset of
// each block) and the body offset; the blocks of (value, offset, length)
// entries sorted by value are decoded by block().
func (ix *bitmapIndex) readV2(c *cursor) error {
	n := c.count("block count", ix.kind.minSize()+4)
	ix.blocks = make([]bitmapBlock, 0, n)
	for i := 0; i < n && c.err == nil; i++ {
		first := ix.kind.read(c, "block key")
		ix.blocks = append(ix.blocks, bitmapBlock{first: first, off: c.i32("block offset")})
	}
	bodyOff := c.i32("body offset")
	if c.err != nil {
		return c.err
	}
	if bodyOff < 0 || int64(bodyOff) > int64(c.remaining()) {
		return corruptf("%s: bitmap body offset %d outside the %d bytes left", ix.ctx, bodyOff, c.remaining())
	}
	ix.area = c.b[c.pos : c.pos+int(bodyOff)]
	ix.body = c.b[c.pos+int(bodyOff):]
	for i, b := range ix.blocks {
		if b.off < 0 || b.off >= bodyOff {
			return corruptf("%s: index block at %d outside the %d block bytes", ix.ctx, b.off, bodyOff)
		}
		if i > 0 && ix.kind.compare(ix.blocks[i-1].first, b.first) >= 0 {
			return corruptf("%s: index blocks out of order at block %d", ix.ctx, i)
		}
	}
	return nil
}

// block decodes v2 block i into entries (once); it returns how many values it holds.
func (ix *bitmapIndex) block(i int) (int, error) {
	b := &ix.blocks[i]
	bc := newCursor(ix.area[b.off:], ix.ctx+" block")
	m := bc.count("block entry count", ix.kind.minSize()+8)
	if b.decoded {
		return m, nil
	}
	for j := 0; j < m && bc.err == nil; j++ {
		k := ix.kind.read(bc, "value")
		e := bitmapEntry{offset: bc.i32("offset"), length: bc.i32("length")}
		if bc.err == nil {
			ix.entries[ix.kind.mapKey(k)] = e
		}
	}
	if bc.err != nil {
		return 0, bc.err
	}
	b.decoded = true
	return m, nil
}

// entry finds the bitmap entry of a value.
func (ix *bitmapIndex) entry(k key) (bitmapEntry, bool, error) {
	if !ix.all && len(ix.blocks) > 0 {
		// The block whose first key is the greatest not above k (Java's findBlock).
		i := sort.Search(len(ix.blocks), func(i int) bool { return ix.kind.compare(ix.blocks[i].first, k) > 0 }) - 1
		if i < 0 {
			return bitmapEntry{}, false, nil
		}
		if _, err := ix.block(i); err != nil {
			return bitmapEntry{}, false, err
		}
	}
	e, ok := ix.entries[ix.kind.mapKey(k)]
	return e, ok, nil
}

// allEntries decodes every block; false when there are more than
// maxRangeValues values (the caller then does not answer).
func (ix *bitmapIndex) allEntries() (bool, error) {
	if ix.distinct > maxRangeValues {
		return false, nil
	}
	if !ix.all {
		total := 0
		for i := range ix.blocks {
			m, err := ix.block(i)
			if err != nil {
				return false, err
			}
			total += m
		}
		if total != ix.distinct {
			return false, corruptf("%s: %d values in the blocks, the meta says %d", ix.ctx, total, ix.distinct)
		}
		ix.all = true
	}
	return true, nil
}

// bitmapOf reads the rows of one entry.
func (ix *bitmapIndex) bitmapOf(e bitmapEntry) (*roaring.Bitmap, error) {
	if e.offset < 0 {
		row := -1 - int64(e.offset)
		if row >= ix.rows {
			return nil, corruptf("%s: inlined row %d outside the file's %d rows", ix.ctx, row, ix.rows)
		}
		return roaring.BitmapOf(uint32(row)), nil
	}
	if int64(e.offset) > int64(len(ix.body)) {
		return nil, corruptf("%s: bitmap at %d outside the %d body bytes", ix.ctx, e.offset, len(ix.body))
	}
	b := ix.body[e.offset:]
	if e.length >= 0 {
		if int(e.length) > len(b) {
			return nil, corruptf("%s: bitmap [%d, +%d) outside the %d body bytes", ix.ctx, e.offset, e.length, len(ix.body))
		}
		b = b[:e.length]
	}
	bm, _, err := readBitmap(b, ix.ctx)
	if err != nil {
		return nil, err
	}
	return bm, checkRows(bm, ix.rows, ix.ctx)
}

// lookup returns the rows holding any of keys.
func (ix *bitmapIndex) lookup(keys []key) (*roaring.Bitmap, error) {
	out := roaring.New()
	for _, k := range keys {
		e, ok, err := ix.entry(k)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		bm, err := ix.bitmapOf(e)
		if err != nil {
			return nil, err
		}
		out.Or(bm)
	}
	return out, nil
}

func (ix *bitmapIndex) nulls() (*roaring.Bitmap, error) {
	if !ix.hasNull {
		return roaring.New(), nil
	}
	return ix.bitmapOf(ix.null)
}

// Eval answers =, <>, IN, NOT IN, IS NULL and IS NOT NULL exactly as Java's
// reader does (NOT forms flip over all rows, nulls included: a superset).
// Range leaves are answered by uniting the bitmaps of the values in range.
func (ix *bitmapIndex) Eval(l *predicate.Leaf) (Result, error) {
	switch l.Op {
	case predicate.IsNull:
		bm, err := ix.nulls()
		if err != nil {
			return Remain, err
		}
		return Rows(bm), nil
	case predicate.IsNotNull:
		bm, err := ix.nulls()
		if err != nil {
			return Remain, err
		}
		return Rows(flip(bm, ix.rows)), nil
	case predicate.Eq, predicate.In, predicate.NotEq, predicate.NotIn:
		var keys []key
		for _, lit := range l.Literals {
			ks, ok := eqProbes(ix.t, ix.kind, lit)
			if !ok {
				return Remain, nil
			}
			keys = append(keys, ks...)
		}
		bm, err := ix.lookup(keys)
		if err != nil {
			return Remain, err
		}
		if l.Op == predicate.NotEq || l.Op == predicate.NotIn {
			if len(keys) == 0 {
				return Remain, nil
			}
			return Rows(flip(bm, ix.rows)), nil
		}
		return Rows(bm), nil
	case predicate.StartsWith:
		pre, ok := prefixProbe(ix.t, ix.kind, l)
		if !ok {
			return Remain, nil
		}
		if all, err := ix.allEntries(); err != nil || !all {
			return Remain, err
		}
		var keys []key
		for mk := range ix.entries {
			if strings.HasPrefix(mk.s, pre) {
				keys = append(keys, mk)
			}
		}
		bm, err := ix.lookup(keys)
		if err != nil {
			return Remain, err
		}
		return Rows(bm), nil
	case predicate.Lt, predicate.LtEq, predicate.Gt, predicate.GtEq:
		if len(l.Literals) != 1 {
			return Remain, nil
		}
		lower := l.Op == predicate.Gt || l.Op == predicate.GtEq
		b, ok := boundProbe(ix.t, ix.kind, l.Literals[0], lower)
		if !ok {
			return Remain, nil
		}
		if all, err := ix.allEntries(); err != nil || !all {
			return Remain, err
		}
		var keys []key
		for mk := range ix.entries {
			v := ix.valueOf(mk)
			c := ix.kind.compare(v, b)
			if (l.Op == predicate.Lt && c < 0) || (l.Op == predicate.LtEq && c <= 0) ||
				(l.Op == predicate.Gt && c > 0) || (l.Op == predicate.GtEq && c >= 0) {
				keys = append(keys, v)
			}
		}
		bm, err := ix.lookup(keys)
		if err != nil {
			return Remain, err
		}
		return Rows(bm), nil
	}
	return Remain, nil
}

// maxRangeValues bounds the distinct values a range leaf scans in a bitmap
// index (beyond it the leaf is not answered by the index).
const maxRangeValues = 1 << 16

// valueOf turns a map key back into a comparable key.
func (ix *bitmapIndex) valueOf(mk key) key {
	if ix.kind.isFloat() {
		return key{f: floatFromCanonical(mk.i)}
	}
	return mk
}

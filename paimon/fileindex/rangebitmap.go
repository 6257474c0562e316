package fileindex

import (
	"sort"
	"strings"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// rangeBitmapIndex is a decoded RangeBitmapFileIndex: the sorted distinct
// values (the dictionary; a value's code is its rank) and a bit-sliced index
// mapping each non-null row to the code of its value.
type rangeBitmapIndex struct {
	ctx   string
	kind  kind
	t     types.DataType
	rows  int64
	keys  []key // sorted by kind.compare; keys[code]
	codes *slices
}

func (*rangeBitmapIndex) Type() string { return TypeRangeBitmap }

// section reads an int32 header length and returns a cursor over the header
// and the offset just after it.
func section(b []byte, at int, ctx, what string) (*cursor, int, error) {
	if at < 0 || at > len(b) {
		return nil, 0, corruptf("%s: %s at %d outside the %d bytes", ctx, what, at, len(b))
	}
	c := newCursor(b[at:], ctx+" "+what)
	n := c.i32("header length")
	if c.err == nil && (n < 0 || int(n) > c.remaining()) {
		c.fail("header", int(n))
	}
	if c.err != nil {
		return nil, 0, c.err
	}
	return newCursor(c.take(int(n), "header"), ctx+" "+what+" header"), at + 4 + int(n), nil
}

func openRangeBitmap(b []byte, t types.DataType, rows int64, ctx string) (Reader, error) {
	k := rangeKind(t)
	if k == kindNone {
		return nil, nil
	}
	h, dictAt, err := section(b, 0, ctx, "range bitmap")
	if err != nil {
		return nil, err
	}
	if v := h.u8("version"); h.err == nil && v != 1 {
		return nil, nil // unknown version: ignore the index
	}
	rid := h.i32("row count")
	card := h.i32("cardinality")
	if h.err != nil {
		return nil, h.err
	}
	if int64(rid) != rows {
		return nil, nil
	}
	ix := &rangeBitmapIndex{ctx: ctx, kind: k, t: t, rows: rows, codes: &slices{}}
	if card <= 0 {
		return ix, nil // no non-null value
	}
	k.read(h, "min")
	k.read(h, "max")
	dictLen := h.i32("dictionary length")
	if h.err != nil {
		return nil, h.err
	}
	if dictLen < 0 || int64(dictAt)+int64(dictLen) > int64(len(b)) {
		return nil, corruptf("%s: dictionary of %d bytes at %d outside the %d bytes", ctx, dictLen, dictAt, len(b))
	}
	if int64(card) > int64(dictLen) { // every key takes at least one byte
		return nil, corruptf("%s: cardinality %d in a %d-byte dictionary", ctx, card, dictLen)
	}
	if ix.keys, err = readDictionary(b[dictAt:dictAt+int(dictLen)], k, int(card), ctx); err != nil {
		return nil, err
	}
	if ix.codes, err = readCodeSlices(b, dictAt+int(dictLen), rows, ctx); err != nil {
		return nil, err
	}
	return ix, nil
}

// readDictionary decodes a ChunkedDictionary into all its keys, in code order.
func readDictionary(b []byte, k kind, card int, ctx string) ([]key, error) {
	h, bodyAt, err := section(b, 0, ctx, "dictionary")
	if err != nil {
		return nil, err
	}
	if v := h.u8("version"); h.err == nil && v != 1 {
		return nil, corruptf("%s: dictionary version %d", ctx, v)
	}
	chunks := h.i32("chunk count")
	offsLen, chunksLen := h.i32("offsets length"), h.i32("chunks length")
	if h.err != nil {
		return nil, h.err
	}
	body := b[bodyAt:]
	if chunks < 0 || offsLen < 0 || chunksLen < 0 || int64(offsLen)+int64(chunksLen) > int64(len(body)) || int64(chunks)*4 > int64(offsLen) {
		return nil, corruptf("%s: dictionary of %d chunks (%d + %d bytes) in %d bytes", ctx, chunks, offsLen, chunksLen, len(body))
	}
	offs := newCursor(body[:offsLen], ctx+" dictionary offsets")
	chunkBytes := body[offsLen : offsLen+chunksLen]
	keyBytes := body[offsLen+chunksLen:]
	keys := make([]key, 0, card)
	var starts []int32
	for i := 0; i < int(chunks); i++ {
		starts = append(starts, offs.i32("chunk offset"))
	}
	for i, st := range starts {
		end := chunksLen
		if i+1 < len(starts) {
			end = starts[i+1]
		}
		if st < 0 || st > end || end > chunksLen {
			return nil, corruptf("%s: dictionary chunk %d at [%d, %d) outside %d bytes", ctx, i, st, end, chunksLen)
		}
		c := newCursor(chunkBytes[st:end], ctx+" dictionary chunk")
		if v := c.u8("chunk version"); c.err == nil && v != 1 {
			return nil, corruptf("%s: dictionary chunk version %d", ctx, v)
		}
		head := k.read(c, "chunk key")
		code := c.i32("chunk code")
		off := c.i32("chunk keys offset")
		size := c.i32("chunk size")
		var offsetsLen, keysLen, fixed int32
		if k == kindString {
			offsetsLen, keysLen = c.i32("chunk offsets length"), c.i32("chunk keys length")
		} else {
			keysLen, fixed = c.i32("chunk keys length"), c.i32("fixed length")
		}
		if c.err != nil {
			return nil, c.err
		}
		if int(code) != len(keys) {
			return nil, corruptf("%s: dictionary chunk %d starts at code %d, want %d", ctx, i, code, len(keys))
		}
		if size < 0 || int64(len(keys))+1+int64(size) > int64(card) {
			return nil, corruptf("%s: dictionary chunk %d holds %d keys past the cardinality %d", ctx, i, size, card)
		}
		if off < 0 || offsetsLen < 0 || keysLen < 0 || int64(off)+int64(offsetsLen)+int64(keysLen) > int64(len(keyBytes)) {
			return nil, corruptf("%s: dictionary chunk %d keys outside the %d key bytes", ctx, i, len(keyBytes))
		}
		keys = append(keys, head)
		if k == kindString {
			if int64(size)*4 > int64(offsetsLen) {
				return nil, corruptf("%s: dictionary chunk %d: %d keys, %d offset bytes", ctx, i, size, offsetsLen)
			}
			oc := newCursor(keyBytes[off:off+offsetsLen], ctx+" chunk key offsets")
			kb := keyBytes[off+offsetsLen : off+offsetsLen+keysLen]
			for j := int32(0); j < size; j++ {
				ko := oc.i32("key offset")
				if oc.err != nil {
					return nil, oc.err
				}
				if ko < 0 || int(ko) > len(kb) {
					return nil, corruptf("%s: key offset %d outside %d bytes", ctx, ko, len(kb))
				}
				kc := newCursor(kb[ko:], ctx+" chunk key")
				v := k.read(kc, "key")
				if kc.err != nil {
					return nil, kc.err
				}
				keys = append(keys, v)
			}
		} else {
			if int(fixed) != k.width() || int64(size)*int64(fixed) > int64(keysLen) {
				return nil, corruptf("%s: dictionary chunk %d: %d keys of %d bytes in %d bytes", ctx, i, size, fixed, keysLen)
			}
			kc := newCursor(keyBytes[off:off+keysLen], ctx+" chunk keys")
			for j := int32(0); j < size; j++ {
				keys = append(keys, k.read(kc, "key"))
			}
			if kc.err != nil {
				return nil, kc.err
			}
		}
	}
	if offs.err != nil {
		return nil, offs.err
	}
	if len(keys) != card {
		return nil, corruptf("%s: dictionary holds %d keys, the header says %d", ctx, len(keys), card)
	}
	for i := 1; i < len(keys); i++ {
		if k.compare(keys[i-1], keys[i]) >= 0 {
			return nil, corruptf("%s: dictionary keys out of order at code %d", ctx, i)
		}
	}
	return keys, nil
}

// readCodeSlices decodes the BitSliceIndexBitmap of the rows' codes.
func readCodeSlices(b []byte, at int, rows int64, ctx string) (*slices, error) {
	h, bodyAt, err := section(b, at, ctx, "bit-sliced index")
	if err != nil {
		return nil, err
	}
	if v := h.u8("version"); h.err == nil && v != 1 {
		return nil, corruptf("%s: bit-sliced index version %d", ctx, v)
	}
	n := int(int8(h.u8("slice count")))
	ebmLen := h.i32("existence bitmap length")
	idxLen := h.i32("slice index length")
	if h.err == nil && (n < 0 || n > 64 || idxLen != int32(8*n) || ebmLen < 0) {
		return nil, corruptf("%s: %d slices, index of %d bytes, existence bitmap of %d bytes", ctx, n, idxLen, ebmLen)
	}
	type span struct{ off, length int32 }
	spans := make([]span, n)
	for i := range spans {
		spans[i] = span{h.i32("slice offset"), h.i32("slice length")}
	}
	if h.err != nil {
		return nil, h.err
	}
	body := b[bodyAt:]
	if int64(ebmLen) > int64(len(body)) {
		return nil, corruptf("%s: existence bitmap of %d bytes in %d", ctx, ebmLen, len(body))
	}
	s := &slices{}
	if s.ebm, _, err = readBitmap(body[:ebmLen], ctx+" existence bitmap"); err != nil {
		return nil, err
	}
	if err := checkRows(s.ebm, rows, ctx); err != nil {
		return nil, err
	}
	rest := body[ebmLen:]
	for i, sp := range spans {
		if sp.off < 0 || sp.length < 0 || int64(sp.off)+int64(sp.length) > int64(len(rest)) {
			return nil, corruptf("%s: slice %d at [%d, +%d) outside %d bytes", ctx, i, sp.off, sp.length, len(rest))
		}
		bm, _, err := readBitmap(rest[sp.off:sp.off+sp.length], ctx+" slice")
		if err != nil {
			return nil, err
		}
		s.slices = append(s.slices, bm)
	}
	return s, nil
}

// find returns the code of v, or -(insertion point)-1 (ChunkedDictionary.find).
func (ix *rangeBitmapIndex) find(v key) int {
	i := sort.Search(len(ix.keys), func(i int) bool { return ix.kind.compare(ix.keys[i], v) >= 0 })
	if i < len(ix.keys) && ix.kind.compare(ix.keys[i], v) == 0 {
		return i
	}
	return -i - 1
}

// Eval answers every comparison, IN/NOT IN and the null tests exactly (the
// float zeros widened as in boundProbe, so the answer is a superset).
func (ix *rangeBitmapIndex) Eval(l *predicate.Leaf) (Result, error) {
	notNull := ix.codes.ebmOrEmpty()
	switch l.Op {
	case predicate.IsNull:
		return Rows(flip(notNull, ix.rows)), nil
	case predicate.IsNotNull:
		return Rows(notNull.Clone()), nil
	case predicate.Eq, predicate.In, predicate.NotEq, predicate.NotIn:
		eq := roaring.New()
		for _, lit := range l.Literals {
			ks, ok := eqProbes(ix.t, ix.kind, lit)
			if !ok {
				return Remain, nil
			}
			for _, k := range ks {
				if c := ix.find(k); c >= 0 {
					_, e, _ := ix.codes.compare(int64(c))
					eq.Or(e)
				}
			}
		}
		if len(l.Literals) == 0 {
			return Remain, nil
		}
		if l.Op == predicate.NotEq || l.Op == predicate.NotIn {
			return Rows(roaring.AndNot(notNull, eq)), nil
		}
		return Rows(eq), nil
	case predicate.StartsWith:
		pre, ok := prefixProbe(ix.t, ix.kind, l)
		if !ok {
			return Remain, nil
		}
		// Keys with the prefix are the codes [lo, hi) of the sorted dictionary.
		lo := sort.Search(len(ix.keys), func(i int) bool { return ix.keys[i].s >= pre })
		hi := lo
		for hi < len(ix.keys) && strings.HasPrefix(ix.keys[hi].s, pre) {
			hi++
		}
		if lo == hi {
			return Skip, nil
		}
		_, loEq, loGt := ix.codes.compare(int64(lo))
		hiLt, _, _ := ix.codes.compare(int64(hi))
		return Rows(roaring.And(roaring.Or(loEq, loGt), hiLt)), nil
	case predicate.Lt, predicate.LtEq, predicate.Gt, predicate.GtEq:
		if len(l.Literals) != 1 {
			return Remain, nil
		}
		lower := l.Op == predicate.Gt || l.Op == predicate.GtEq
		v, ok := boundProbe(ix.t, ix.kind, l.Literals[0], lower)
		if !ok {
			return Remain, nil
		}
		c := ix.find(v)
		found := c >= 0
		if !found {
			c = -c - 1 // first code greater than v
		}
		lt, eq, gt := ix.codes.compare(int64(c))
		switch l.Op {
		case predicate.Lt: // codes < c
			return Rows(lt), nil
		case predicate.LtEq: // codes <= c when found, < c otherwise
			if found {
				return Rows(roaring.Or(lt, eq)), nil
			}
			return Rows(lt), nil
		case predicate.Gt: // codes > c when found, >= c otherwise
			if found {
				return Rows(gt), nil
			}
			return Rows(roaring.Or(gt, eq)), nil
		}
		return Rows(roaring.Or(gt, eq)), nil // GtEq: codes >= c
	}
	return Remain, nil
}

package fileindex

import (
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
	dict  *dictionary // nil when no value is non-null
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
	if ix.dict, err = readDictionary(b[dictAt:dictAt+int(dictLen)], k, int(card), ctx); err != nil {
		return nil, err
	}
	if ix.codes, err = readCodeSlices(b, dictAt+int(dictLen), rows, ctx); err != nil {
		return nil, err
	}
	return ix, nil
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
func (ix *rangeBitmapIndex) find(v key) (int, error) {
	if ix.dict == nil {
		return -1, nil
	}
	return ix.dict.find(v)
}

// prefixEnd returns the smallest string above every string starting with
// pre, or ok=false when there is none (pre is empty or all 0xFF bytes).
func prefixEnd(pre string) (string, bool) {
	b := []byte(pre)
	for len(b) > 0 && b[len(b)-1] == 0xFF {
		b = b[:len(b)-1]
	}
	if len(b) == 0 {
		return "", false
	}
	b[len(b)-1]++
	return string(b), true
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
				c, err := ix.find(k)
				if err != nil {
					return Remain, err
				}
				if c >= 0 {
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
		if ix.dict == nil {
			return Skip, nil
		}
		lo, err := ix.dict.lowerBound(key{s: pre})
		if err != nil {
			return Remain, err
		}
		hi := ix.dict.card
		if end, ok := prefixEnd(pre); ok {
			if hi, err = ix.dict.lowerBound(key{s: end}); err != nil {
				return Remain, err
			}
		}
		if lo >= hi {
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
		c, err := ix.find(v)
		if err != nil {
			return Remain, err
		}
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

package fileindex

import (
	"math"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// slices is a bit-sliced index of non-negative values: row r holds
// base + Σ 2^i over the slices containing r, for the rows of ebm.
type slices struct {
	base   int64
	ebm    *roaring.Bitmap
	slices []*roaring.Bitmap
}

// compare returns the rows whose value is <, = and > v (O'Neil's
// algorithm over the slices), all within ebm.
func (s *slices) compare(v int64) (lt, eq, gt *roaring.Bitmap) {
	if s.ebm == nil || s.ebm.IsEmpty() {
		return roaring.New(), roaring.New(), roaring.New()
	}
	if v < s.base {
		return roaring.New(), roaring.New(), s.ebm.Clone()
	}
	// v - base in [0, 2^64): exact in uint64 even when the int64 difference wraps.
	q := uint64(v) - uint64(s.base)
	if n := len(s.slices); n < 64 && q>>uint(n) != 0 {
		return s.ebm.Clone(), roaring.New(), roaring.New()
	}
	gt = roaring.New()
	eq = s.ebm.Clone()
	for i := len(s.slices) - 1; i >= 0; i-- {
		if (q>>uint(i))&1 == 1 {
			eq.And(s.slices[i])
		} else {
			gt.Or(roaring.And(eq, s.slices[i]))
			eq.AndNot(s.slices[i])
		}
	}
	lt = roaring.AndNot(s.ebm, roaring.Or(eq, gt))
	return lt, eq, gt
}

// readSlices reads BitSliceIndexRoaringBitmap.map: version, min, max, ebm,
// slice count, slices.
func readSlices(c *cursor, rows int64) *slices {
	if v := c.u8("bsi version"); c.err == nil && v != 1 {
		c.err = corruptf("%s: bsi version %d, only 1 is supported", c.ctx, v)
		return nil
	}
	mn := c.i64("min")
	c.i64("max")
	s := &slices{base: mn, ebm: c.bitmap("existence bitmap")}
	n := c.count("slice count", 8)
	if c.err == nil && n > 64 {
		c.err = corruptf("%s: %d slices (at most 64)", c.ctx, n)
	}
	for i := 0; i < n && c.err == nil; i++ {
		s.slices = append(s.slices, c.bitmap("slice"))
	}
	if c.err != nil {
		return nil
	}
	if err := checkRows(s.ebm, rows, c.ctx); err != nil {
		c.err = err
		return nil
	}
	return s
}

// bsiIndex is a decoded BitSliceIndexBitmapFileIndex: non-negative values in
// pos, negative ones by absolute value in neg.
type bsiIndex struct {
	t        types.DataType
	rows     int64
	pos, neg *slices
}

func (*bsiIndex) Type() string { return TypeBSI }

func openBSI(b []byte, t types.DataType, rows int64, ctx string) (Reader, error) {
	switch t.Root {
	case types.TinyInt, types.SmallInt, types.Int, types.BigInt, types.Date, types.Time:
	case types.Decimal:
		if t.Precision > 18 {
			return nil, nil
		}
	case types.Timestamp, types.TimestampLTZ:
		if t.Precision > 6 {
			return nil, nil
		}
	default:
		return nil, nil
	}
	c := newCursor(b, ctx)
	if v := c.u8("version"); c.err == nil && v != 1 {
		return nil, nil // unknown version: ignore the index
	}
	n := c.i32("row count")
	if c.err != nil {
		return nil, c.err
	}
	if int64(n) != rows {
		return nil, nil
	}
	ix := &bsiIndex{t: t, rows: rows, pos: &slices{}, neg: &slices{}}
	if c.u8("has-positive flag") != 0 {
		ix.pos = readSlices(c, rows)
	}
	if c.err == nil && c.u8("has-negative flag") != 0 {
		ix.neg = readSlices(c, rows)
	}
	if c.err != nil {
		return nil, c.err
	}
	return ix, nil
}

func (ix *bsiIndex) notNull() *roaring.Bitmap {
	out := roaring.New()
	if ix.pos.ebm != nil {
		out.Or(ix.pos.ebm)
	}
	if ix.neg.ebm != nil {
		out.Or(ix.neg.ebm)
	}
	return out
}

// cmp returns the rows with value <, = and > v over both halves.
func (ix *bsiIndex) cmp(v int64) (lt, eq, gt *roaring.Bitmap) {
	if v >= 0 {
		plt, peq, pgt := ix.pos.compare(v)
		return roaring.Or(plt, ix.neg.ebmOrEmpty()), peq, pgt
	}
	// v < 0 (and > MinInt64): rows of neg hold -x; x < v ⇔ -x > -v.
	nlt, neq, ngt := ix.neg.compare(-v)
	return ngt, neq, roaring.Or(nlt, ix.pos.ebmOrEmpty())
}

func (s *slices) ebmOrEmpty() *roaring.Bitmap {
	if s.ebm == nil {
		return roaring.New()
	}
	return s.ebm
}

func (ix *bsiIndex) Eval(l *predicate.Leaf) (Result, error) {
	switch l.Op {
	case predicate.IsNull:
		return Rows(flip(ix.notNull(), ix.rows)), nil
	case predicate.IsNotNull:
		return Rows(ix.notNull()), nil
	}
	vals := make([]int64, 0, len(l.Literals))
	for _, lit := range l.Literals {
		k, ok := probe(ix.t, kindInt64, lit)
		if !ok || k.i == math.MinInt64 {
			return Remain, nil // the writer cannot store MinInt64: no vouching for it
		}
		vals = append(vals, k.i)
	}
	if len(vals) == 0 {
		return Remain, nil
	}
	switch l.Op {
	case predicate.Eq, predicate.In, predicate.NotEq, predicate.NotIn:
		eq := roaring.New()
		for _, v := range vals {
			_, e, _ := ix.cmp(v)
			eq.Or(e)
		}
		if l.Op == predicate.NotEq || l.Op == predicate.NotIn {
			return Rows(roaring.AndNot(ix.notNull(), eq)), nil
		}
		return Rows(eq), nil
	case predicate.Lt, predicate.LtEq, predicate.Gt, predicate.GtEq:
		lt, eq, gt := ix.cmp(vals[0])
		switch l.Op {
		case predicate.Lt:
			return Rows(lt), nil
		case predicate.LtEq:
			return Rows(roaring.Or(lt, eq)), nil
		case predicate.Gt:
			return Rows(gt), nil
		}
		return Rows(roaring.Or(gt, eq)), nil
	}
	return Remain, nil
}

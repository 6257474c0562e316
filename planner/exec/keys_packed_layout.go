package exec

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
)

// The layout of a ktPacked (keys_packed.go): where each column's fields
// go, chosen from the first batch.

// pkLayout places every column's fields into the key and tag words (and,
// when wide, the second key word; first fit, widest first), reporting
// whether they fit.
func pkLayout(cols []pkCol, wide bool) bool {
	type item struct {
		f    *pkField
		size int
	}
	items := make([]item, 0, 2*len(cols))
	for i := range cols {
		c := &cols[i]
		switch c.kind {
		case pkFixed:
			size := 8 * c.w
			if c.rng {
				size = c.vb
			}
			items = append(items, item{&c.val, size}, item{&c.tag, 1})
		case pkBool:
			items = append(items, item{&c.val, 1}, item{&c.tag, 1})
		default:
			items = append(items, item{&c.val, 8 * c.k}, item{&c.tag, bits.Len(uint(c.k + 1))})
		}
	}
	slices.SortStableFunc(items, func(a, b item) int { return b.size - a.size })
	used := [3]int{}
	caps := [3]int{64, 32, 0}
	if wide {
		caps[2] = 64
	}
	for _, it := range items {
		if it.size == 0 {
			*it.f = pkField{}
			continue
		}
		placed := false
		for w := range 3 {
			if used[w]+it.size <= caps[w] {
				*it.f = pkField{word: uint8(w), shift: uint8(used[w]), bits: uint8(it.size)}
				used[w] += it.size
				placed = true
				break
			}
		}
		if !placed {
			return false
		}
	}
	return true
}

// choose picks the string widths from the first batch's longest values
// (lens) and lays the columns out; false when they do not fit. In order:
// 96 bits at full width; 96 bits with the fixed-width columns of 4 or 8
// bytes range-packed (base and width from the first batch's values, keys,
// with at least two spare bits, four times the range, and then every bit
// the layout leaves free, for later batches: widenRanges); 160 bits (wide)
// at full width; 160 bits range-packed.
func (t *ktPacked) choose(lens []int, keys []arrow.Array) bool {
	for _, wide := range []bool{false, true} {
		t.wide = wide
		for i := range t.cols {
			t.cols[i].rng, t.cols[i].base, t.cols[i].vb, t.cols[i].mn, t.cols[i].span = false, 0, 0, 0, 0
		}
		if t.chooseWidths(lens) {
			return true
		}
		if t.rangePack(keys) && t.chooseWidths(lens) {
			t.widenRanges()
			return true
		}
	}
	t.wide = false
	return false
}

// rangePack range-packs the fixed-width columns of 4 or 8 bytes whose
// first batch's range leaves bits to spare, reporting whether any is.
func (t *ktPacked) rangePack(keys []arrow.Array) bool {
	any := false
	for i := range t.cols {
		c := &t.cols[i]
		if c.kind != pkFixed || c.w < 4 || c.noRange {
			continue
		}
		mn, mx, ok := pkRange(keys[i], c.w)
		if !ok {
			continue
		}
		span := uint64(mx) - uint64(mn)
		vb := bits.Len64(span) + 2
		if vb >= 8*c.w {
			continue
		}
		// centre the spare room: values may come below the first min too
		c.rng, c.base, c.vb, c.mn, c.span = true, pkRangeBase(mn, span, vb), vb, mn, span
		any = true
	}
	return any
}

// widenRanges gives the bits the layout leaves free to the range-packed
// columns (round robin, one bit at a time, up to one less than the
// column's width), each range staying centred on the first batch's: later
// batches outside the first one's range (ids that grow, such as the group
// ids of a DISTINCT aggregate's table) then keep the packed path instead
// of turning the table into a ktGen. The layout is laid again at the end.
func (t *ktPacked) widenRanges() {
	for grown := true; grown; {
		grown = false
		for i := range t.cols {
			c := &t.cols[i]
			if !c.rng || c.vb >= 8*c.w-1 {
				continue
			}
			vb, base := c.vb, c.base
			c.vb++
			c.base = pkRangeBase(c.mn, c.span, c.vb)
			if pkLayout(t.cols, t.wide) {
				grown = true
			} else {
				c.vb, c.base = vb, base
			}
		}
	}
	pkLayout(t.cols, t.wide)
}

// pkRangeBase is the base of a range of vb bits centred on [mn, mn+span].
func pkRangeBase(mn int64, span uint64, vb int) int64 {
	slack := (uint64(1)<<vb - span) / 2
	return int64(uint64(mn) - slack)
}

// pkRange returns the least and greatest valid value (sign-extended) of a
// fixed-width column of w bytes; ok=false without valid values.
func pkRange(col arrow.Array, w int) (mn, mx int64, ok bool) {
	raw := ktFixedBytes(col, w)
	bm, off := ktValidity(col)
	n := col.Len()
	for r := 0; r < n; r++ {
		if bm != nil && !bitutil.BitIsSet(bm, off+r) {
			continue
		}
		var v int64
		if w == 4 {
			v = int64(int32(binary.LittleEndian.Uint32(raw[4*r:])))
		} else {
			v = int64(binary.LittleEndian.Uint64(raw[8*r:]))
		}
		if !ok || v < mn {
			mn = v
		}
		if !ok || v > mx {
			mx = v
		}
		ok = true
	}
	return mn, mx, ok
}

func (t *ktPacked) chooseWidths(lens []int) bool {
	for i := range t.cols {
		if c := &t.cols[i]; c.kind == pkStr || c.kind == pkLargeStr {
			if lens[i] > 8 {
				return false
			}
			c.k = lens[i]
		}
	}
	if !pkLayout(t.cols, t.wide) {
		return false
	}
	// Widen the string columns (round robin) while they fit: room for
	// longer values later without falling back.
	for grown := true; grown; {
		grown = false
		for i := range t.cols {
			c := &t.cols[i]
			if (c.kind != pkStr && c.kind != pkLargeStr) || c.k >= 8 {
				continue
			}
			c.k++
			if pkLayout(t.cols, t.wide) {
				grown = true
			} else {
				c.k--
			}
		}
	}
	return pkLayout(t.cols, t.wide)
}

// lens sets sc.lens[i] to the longest valid value of each string column
// (checking the offsets).
func (t *ktPacked) lens(keys []arrow.Array, sc *pkScratch) error {
	sc.lens = ktResize(sc.lens, len(t.cols))
	for i, c := range t.cols {
		sc.lens[i] = 0
		if c.kind != pkStr && c.kind != pkLargeStr {
			continue
		}
		o32, o64, data, err := ktVarParts(keys[i], c.kind == pkLargeStr)
		if err != nil {
			return err
		}
		bm, off := ktValidity(keys[i])
		if o64 != nil {
			sc.lens[i], err = pkMaxLen(o64, len(data), bm, off)
		} else {
			sc.lens[i], err = pkMaxLen(o32, len(data), bm, off)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func pkMaxLen[O int32 | int64](offs []O, dataLen int, bm []byte, off int) (int, error) {
	if offs[0] < 0 || int64(offs[len(offs)-1]) > int64(dataLen) {
		return 0, fmt.Errorf("exec: key column offsets outside its data")
	}
	m := O(0)
	for r := 0; r+1 < len(offs); r++ {
		l := offs[r+1] - offs[r]
		if l < 0 {
			return 0, fmt.Errorf("exec: key column offsets decrease at row %d", r)
		}
		if l > m && (bm == nil || bitutil.BitIsSet(bm, off+r)) {
			m = l
		}
	}
	return int(min(int64(m), math.MaxInt32)), nil
}

package exec

import (
	"encoding/binary"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
)

// Packing a batch of keys into a ktPacked's words (keys_packed.go).

// pkPut writes a field without branching on its word: the value shifted
// into place, masked to nothing for the other words.
type pkPut struct {
	ls, ms, hs uint8
	lm, mm, hm uint64
}

func (f pkField) put() pkPut {
	switch f.word {
	case 0:
		return pkPut{ls: f.shift, lm: ^uint64(0)}
	case 2:
		return pkPut{ms: f.shift, mm: ^uint64(0)}
	}
	return pkPut{hs: f.shift, hm: ^uint64(0)}
}

// pack writes the packed key of every row into sc.lo/sc.mid/sc.hi and
// sets gids to 0. A row with a string longer than its column's k makes
// long true; when !ins its gid is set to -1 (a miss). A column with no
// field in the second key word (every column of a narrow layout) gets a
// nil mid: its loop skips that word.
func (t *ktPacked) pack(keys []arrow.Array, gids []int32, sc *pkScratch, ins bool) (long bool, err error) {
	n := len(gids)
	sc.lo = ktResize(sc.lo, n)
	sc.hi = ktResize(sc.hi, n)
	lo, hi := sc.lo[:n], sc.hi[:n]
	clear(lo)
	clear(hi)
	var mid []uint64
	if t.wide {
		sc.mid = ktResize(sc.mid, n)
		mid = sc.mid[:n]
		clear(mid)
	}
	clear(gids)
	for i, c := range t.cols {
		col := keys[i]
		bm, off := ktValidity(col)
		mid := mid
		if c.val.word != 2 && c.tag.word != 2 {
			mid = nil
		}
		switch c.kind {
		case pkFixed:
			raw := ktFixedBytes(col, c.w)
			if c.rng {
				var l bool
				if c.w == 4 {
					l = pkRangeLoop(arrow.Int32Traits.CastFromBytes(raw), c, bm, off, lo, mid, hi, gids, ins)
				} else {
					l = pkRangeLoop(arrow.Int64Traits.CastFromBytes(raw), c, bm, off, lo, mid, hi, gids, ins)
				}
				if l && ins {
					return true, nil
				}
				long = long || l
				continue
			}
			switch c.w {
			case 1:
				pkFixedLoop(arrow.Uint8Traits.CastFromBytes(raw), c, bm, off, lo, mid, hi)
			case 2:
				pkFixedLoop(arrow.Uint16Traits.CastFromBytes(raw), c, bm, off, lo, mid, hi)
			case 4:
				pkFixedLoop(arrow.Uint32Traits.CastFromBytes(raw), c, bm, off, lo, mid, hi)
			default:
				pkFixedLoop(arrow.Uint64Traits.CastFromBytes(raw), c, bm, off, lo, mid, hi)
			}
		case pkBool:
			d := col.Data()
			var vb []byte
			if b := d.Buffers()[1]; b != nil {
				vb = b.Bytes()
			}
			vp, tp := c.val.put(), c.tag.put()
			for r := range lo {
				if bm != nil && !bitutil.BitIsSet(bm, off+r) {
					continue
				}
				v := uint64(0)
				if vb != nil && bitutil.BitIsSet(vb, d.Offset()+r) {
					v = 1
				}
				lo[r] |= (v<<vp.ls)&vp.lm | (1<<tp.ls)&tp.lm
				if mid != nil {
					mid[r] |= (v<<vp.ms)&vp.mm | (1<<tp.ms)&tp.mm
				}
				hi[r] |= uint32((v<<vp.hs)&vp.hm | (1<<tp.hs)&tp.hm)
			}
		default:
			o32, o64, data, err := ktVarParts(col, c.kind == pkLargeStr)
			if err != nil {
				return false, err
			}
			var l bool
			if o64 != nil {
				l, err = pkStrLoop(o64, data, c, bm, off, lo, mid, hi, gids, ins)
			} else {
				l, err = pkStrLoop(o32, data, c, bm, off, lo, mid, hi, gids, ins)
			}
			if err != nil {
				return false, err
			}
			long = long || l
		}
	}
	return long, nil
}

func pkFixedLoop[T uint8 | uint16 | uint32 | uint64](vals []T, c pkCol, bm []byte, off int, lo, mid []uint64, hi []uint32) {
	vals = vals[:len(lo)]
	vp, tp := c.val.put(), c.tag.put()
	tl, tm, th := (1<<tp.ls)&tp.lm, (1<<tp.ms)&tp.mm, uint32((1<<tp.hs)&tp.hm)
	for r, v := range vals {
		if bm != nil && !bitutil.BitIsSet(bm, off+r) {
			continue
		}
		x := uint64(v)
		lo[r] |= (x<<vp.ls)&vp.lm | tl
		if mid != nil {
			mid[r] |= (x<<vp.ms)&vp.mm | tm
		}
		hi[r] |= uint32((x<<vp.hs)&vp.hm) | th
	}
}

// pkRangeLoop packs a range-packed column; a value outside the range sets
// long (and, when !ins, its gid to -1; when ins it stops at once).
func pkRangeLoop[T int32 | int64](vals []T, c pkCol, bm []byte, off int, lo, mid []uint64, hi []uint32, gids []int32, ins bool) (long bool) {
	vals = vals[:len(lo)]
	vp, tp := c.val.put(), c.tag.put()
	tl, tm, th := (1<<tp.ls)&tp.lm, (1<<tp.ms)&tp.mm, uint32((1<<tp.hs)&tp.hm)
	base, vb := uint64(c.base), uint(c.vb)
	for r, v := range vals {
		if bm != nil && !bitutil.BitIsSet(bm, off+r) {
			continue
		}
		x := uint64(int64(v)) - base
		if x>>vb != 0 {
			long = true
			if ins {
				return true
			}
			gids[r] = -1
			continue
		}
		lo[r] |= (x<<vp.ls)&vp.lm | tl
		if mid != nil {
			mid[r] |= (x<<vp.ms)&vp.mm | tm
		}
		hi[r] |= uint32((x<<vp.hs)&vp.hm) | th
	}
	return long
}

func pkStrLoop[O int32 | int64](offs []O, data []byte, c pkCol, bm []byte, off int, lo, mid []uint64, hi []uint32, gids []int32, ins bool) (long bool, err error) {
	if offs[0] < 0 || int64(offs[len(offs)-1]) > int64(len(data)) {
		return false, fmt.Errorf("exec: key column offsets outside its data")
	}
	k := uint(c.k)
	vp, tp := c.val.put(), c.tag.put()
	offs = offs[:len(lo)+1]
	for r := range lo {
		if bm != nil && !bitutil.BitIsSet(bm, off+r) {
			continue // tag 0: NULL
		}
		s, e := offs[r], offs[r+1]
		l := uint(e - s)
		if l > k {
			if e < s {
				return false, fmt.Errorf("exec: key column offsets decrease at row %d", r)
			}
			long = true
			if ins {
				return true, nil
			}
			gids[r] = -1
			continue
		}
		var x uint64
		if int(s)+8 <= len(data) {
			x = binary.LittleEndian.Uint64(data[s:]) & (^uint64(0) >> (64 - 8*l))
		} else {
			x = ktPack(data[s:e])
		}
		tg := uint64(l + 1)
		lo[r] |= (x<<vp.ls)&vp.lm | (tg<<tp.ls)&tp.lm
		if mid != nil {
			mid[r] |= (x<<vp.ms)&vp.mm | (tg<<tp.ms)&tp.mm
		}
		hi[r] |= uint32((x<<vp.hs)&vp.hm | (tg<<tp.hs)&tp.hm)
	}
	return long, nil
}

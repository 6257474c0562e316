package exec

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// ---- several short columns packed into 96 or 160 bits ----------------------

// ktPacked keys two or more columns whose values together fit in 96 bits
// (the 64-bit key and the 32-bit tag of a ktU64Map slot) or, when they do
// not, in 160 bits (wide: two 64-bit words and the 32-bit tag of a
// ktU128Map slot, keys_wide.go; BIGINT+INT, two BIGINTs). Each column is
// a fixed-width non-float type of 1, 2, 4 or 8 bytes, a BOOLEAN, or a
// STRING/BINARY (or LARGE_*) column whose values are at most k bytes.
//
// Each column owns two bit fields (placed by pkLayout, a field never
// straddles two words):
//
//   - fixed width: the value's 8w raw bits, and a validity bit (1 = valid;
//     the value is 0 when NULL);
//   - BOOLEAN: the value bit and a validity bit;
//   - strings: the k bytes little-endian (zero padded), and length+1 in
//     bits.Len(k+1) bits, 0 meaning NULL.
//
// So equal keys pack equally and vice versa; NULL differs from every value
// (and from the empty string). Floats are not packed (they go to ktGen).
//
// When the fixed-width fields do not fit at full width (two BIGINTs), the
// 4- and 8-byte columns are range-packed: the sign-extended value minus a
// base, in as many bits as the first batch's range needs plus two (see
// choose; only when the full widths fit neither 96 nor 160 bits, or when
// range-packing makes them fit 96). A later insert outside the range turns
// the table into a ktGen
// like a long string; a lookup outside it is a miss.
//
// The k of each string column is chosen at the first non-empty Insert from
// that batch's longest value (then widened while the layout still fits).
// When a later Insert holds a longer value (or the first batch does not
// fit at all), the table turns into a ktGen: existing keys are decoded
// with Keys and inserted in id order, so ids are kept. A Lookup of a value
// longer than k is simply a miss.
type ktPacked struct {
	types []arrow.DataType
	cols  []pkCol
	ready bool // the layout is chosen
	wide  bool // the layout uses the second key word: m2 and mid
	m     ktU64Map
	m2    ktU128Map
	lo    []uint64 // key words by id
	mid   []uint64 // second key words by id (wide)
	hi    []uint32 // tag words by id
	gen   *ktGen   // once the keys no longer fit: everything goes here
	sc    pkScratch
}

type pkField struct {
	word  uint8 // 0: the 64-bit key, 1: the 32-bit tag, 2: the second 64-bit key (wide)
	shift uint8
	bits  uint8
}

func (f pkField) mask() uint64 {
	if f.bits >= 64 {
		return ^uint64(0)
	}
	return 1<<f.bits - 1
}

func (f pkField) get(lo, mid uint64, hi uint32) uint64 {
	x := lo
	switch f.word {
	case 1:
		x = uint64(hi)
	case 2:
		x = mid
	}
	return (x >> f.shift) & f.mask()
}

const (
	pkFixed uint8 = iota
	pkBool
	pkStr
	pkLargeStr
)

type pkCol struct {
	kind uint8
	w    int // fixed: bytes
	// fixed, range-packed (rng): the value is stored as its sign-extended
	// difference from base in vb bits; a value outside that range does
	// not fit (like a string longer than k).
	rng  bool
	base int64
	vb   int
	k    int // strings: the longest value packed
	val  pkField
	tag  pkField // fixed/bool: validity bit; strings: length+1, 0 = NULL
}

type pkScratch struct {
	lo   []uint64
	mid  []uint64
	hi   []uint32
	lens []int
}

var pkScratchPool = sync.Pool{New: func() any { return new(pkScratch) }}

// newKtPacked returns a ktPacked for types, or nil when a column can not be
// packed.
func newKtPacked(types []arrow.DataType) *ktPacked {
	if len(types) < 2 {
		return nil
	}
	cols := make([]pkCol, len(types))
	for i, dt := range types {
		if dt == nil {
			return nil
		}
		switch dt.ID() {
		case arrow.BOOL:
			cols[i] = pkCol{kind: pkBool}
			continue
		case arrow.STRING, arrow.BINARY:
			cols[i] = pkCol{kind: pkStr}
			continue
		case arrow.LARGE_STRING, arrow.LARGE_BINARY:
			cols[i] = pkCol{kind: pkLargeStr}
			continue
		case arrow.FLOAT16, arrow.FLOAT32, arrow.FLOAT64:
			return nil
		}
		w, ok := ktFixedWidth(dt)
		if !ok || (w != 1 && w != 2 && w != 4 && w != 8) {
			return nil
		}
		cols[i] = pkCol{kind: pkFixed, w: w}
	}
	return &ktPacked{types: types, cols: cols}
}

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
// with two spare bits, four times the range, for later batches); 160 bits
// (wide) at full width; 160 bits range-packed.
func (t *ktPacked) choose(lens []int, keys []arrow.Array) bool {
	for _, wide := range []bool{false, true} {
		t.wide = wide
		for i := range t.cols {
			t.cols[i].rng, t.cols[i].base, t.cols[i].vb = false, 0, 0
		}
		if t.chooseWidths(lens) {
			return true
		}
		if t.rangePack(keys) && t.chooseWidths(lens) {
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
		if c.kind != pkFixed || c.w < 4 {
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
		slack := (uint64(1)<<vb - span) / 2
		c.rng, c.base, c.vb = true, int64(uint64(mn)-slack), vb
		any = true
	}
	return any
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

func (t *ktPacked) Len() int {
	if t.gen != nil {
		return t.gen.Len()
	}
	return len(t.lo)
}

func (t *ktPacked) Bytes() int64 {
	if t.gen != nil {
		return t.gen.Bytes() + 64
	}
	return t.m.bytes() + t.m2.bytes() + 8*int64(cap(t.lo)) + 8*int64(cap(t.mid)) + 4*int64(cap(t.hi)) +
		8*int64(cap(t.sc.lo)) + 8*int64(cap(t.sc.mid)) + 4*int64(cap(t.sc.hi)) + 64
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

func (t *ktPacked) Insert(keys []arrow.Array, gids []int32) error {
	if t.gen != nil {
		return t.gen.Insert(keys, gids)
	}
	if err := ktCheck(t.types, keys, len(gids)); err != nil {
		return err
	}
	n := len(gids)
	if n == 0 {
		return nil
	}
	sc := &t.sc
	if !t.ready {
		if err := t.lens(keys, sc); err != nil {
			return err
		}
		if !t.choose(sc.lens, keys) {
			if err := t.migrate(); err != nil {
				return err
			}
			return t.gen.Insert(keys, gids)
		}
		t.ready = true
	}
	if len(t.lo)+n > ktMaxKeys {
		return fmt.Errorf("exec: key table over %d keys", ktMaxKeys)
	}
	long, err := t.pack(keys, gids, sc, true)
	if err != nil {
		return err
	}
	if long { // a string longer than its k: the general path from now on
		if err := t.migrate(); err != nil {
			return err
		}
		return t.gen.Insert(keys, gids)
	}
	if t.wide {
		t.insertWide(sc.lo[:n], sc.mid[:n], sc.hi[:n], gids)
		return nil
	}
	lo, hi := sc.lo[:n], sc.hi[:n]
	m := &t.m
	if m.slots == nil {
		m.init(64)
	}
	lastK, lastH, lastG := uint64(0), uint32(0), int32(-1)
	for r := range gids {
		k, h := lo[r], hi[r]
		if k == lastK && h == lastH && lastG >= 0 {
			gids[r] = lastG
			continue
		}
		// The first probe inline; collisions and misses go the long way.
		var g int32
		if s := &m.slots[ktHash64(k, int32(h))>>m.shift]; s.key == k && s.tag == int32(h) && s.id != 0 {
			g = s.id - 1
		} else {
			var added bool
			g, added = m.findOrAdd(k, int32(h), int32(len(t.lo)))
			if added {
				t.lo = append(t.lo, k)
				t.hi = append(t.hi, h)
			}
		}
		gids[r], lastK, lastH, lastG = g, k, h, g
	}
	return nil
}

func (t *ktPacked) Lookup(keys []arrow.Array, gids []int32) error {
	if t.gen != nil {
		return t.gen.Lookup(keys, gids)
	}
	if err := ktCheck(t.types, keys, len(gids)); err != nil {
		return err
	}
	n := len(gids)
	if n == 0 {
		return nil
	}
	if !t.ready {
		for r := range gids {
			gids[r] = -1
		}
		return nil
	}
	sc := pkScratchPool.Get().(*pkScratch)
	defer pkScratchPool.Put(sc)
	if _, err := t.pack(keys, gids, sc, false); err != nil { // long rows: gids -1
		return err
	}
	if t.wide {
		t.lookupWide(sc.lo[:n], sc.mid[:n], sc.hi[:n], gids)
		return nil
	}
	lo, hi := sc.lo[:n], sc.hi[:n]
	lastK, lastH, lastG := uint64(0), uint32(0), int32(-2)
	for r := range gids {
		if gids[r] < 0 {
			continue
		}
		k, h := lo[r], hi[r]
		if k == lastK && h == lastH && lastG != -2 {
			gids[r] = lastG
			continue
		}
		g := t.m.find(k, int32(h))
		gids[r], lastK, lastH, lastG = g, k, h, g
	}
	return nil
}

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

// migrate turns the table into a ktGen holding the same keys under the
// same ids.
func (t *ktPacked) migrate() error {
	g := newKtGen(t.types)
	if n := len(t.lo); n > 0 {
		keys, err := t.Keys(memory.NewGoAllocator())
		if err != nil {
			return err
		}
		gids := make([]int32, n)
		err = g.Insert(keys, gids)
		for _, k := range keys {
			k.Release()
		}
		if err != nil {
			return err
		}
		for id, x := range gids {
			if x != int32(id) {
				return fmt.Errorf("exec: key table migration: key %d became %d", id, x)
			}
		}
	}
	t.gen = g
	t.m, t.m2, t.lo, t.mid, t.hi, t.sc = ktU64Map{}, ktU128Map{}, nil, nil, nil, pkScratch{}
	return nil
}

func (t *ktPacked) Keys(mem memory.Allocator) ([]arrow.Array, error) {
	if t.gen != nil {
		return t.gen.Keys(mem)
	}
	n := len(t.lo)
	res := make([]arrow.Array, 0, len(t.cols))
	for i, c := range t.cols {
		valid := ktBuffer(mem, int(bitutil.BytesForBits(int64(n))))
		vb := valid.Bytes()
		nulls := 0
		for id := range n {
			if c.tag.get(t.words(id)) != 0 {
				bitutil.SetBit(vb, id)
			} else {
				nulls++
			}
		}
		if nulls == 0 {
			valid.Release()
			valid = nil
		}
		switch c.kind {
		case pkFixed:
			data := ktBuffer(mem, n*c.w)
			b := data.Bytes()
			for id := range n {
				v := c.val.get(t.words(id))
				if c.rng && c.tag.get(t.words(id)) != 0 {
					v += uint64(c.base)
				}
				switch c.w {
				case 1:
					b[id] = byte(v)
				case 2:
					binary.LittleEndian.PutUint16(b[2*id:], uint16(v))
				case 4:
					binary.LittleEndian.PutUint32(b[4*id:], uint32(v))
				default:
					binary.LittleEndian.PutUint64(b[8*id:], v)
				}
			}
			res = append(res, ktMakeArray(t.types[i], n, nulls, valid, data))
		case pkBool:
			data := ktBuffer(mem, int(bitutil.BytesForBits(int64(n))))
			b := data.Bytes()
			for id := range n {
				if c.val.get(t.words(id)) != 0 {
					bitutil.SetBit(b, id)
				}
			}
			res = append(res, ktMakeArray(t.types[i], n, nulls, valid, data))
		default:
			total := 0
			for id := range n {
				if l := c.tag.get(t.words(id)); l > 0 {
					total += int(l - 1)
				}
			}
			large := c.kind == pkLargeStr
			if !large && total > math.MaxInt32 {
				if valid != nil {
					valid.Release()
				}
				for _, a := range res {
					a.Release()
				}
				return nil, fmt.Errorf("exec: %d bytes of %s keys do not fit 32-bit offsets", total, t.types[i])
			}
			data := ktBuffer(mem, total)
			db := data.Bytes()
			var offs *memory.Buffer
			var o32 []int32
			var o64 []int64
			if large {
				offs = ktBuffer(mem, 8*(n+1))
				o64 = arrow.Int64Traits.CastFromBytes(offs.Bytes())
			} else {
				offs = ktBuffer(mem, 4*(n+1))
				o32 = arrow.Int32Traits.CastFromBytes(offs.Bytes())
			}
			p := 0
			for id := range n {
				if l := int(c.tag.get(t.words(id))); l > 1 {
					x := c.val.get(t.words(id))
					for j := range l - 1 {
						db[p+j] = byte(x >> (8 * j))
					}
					p += l - 1
				}
				if large {
					o64[id+1] = int64(p)
				} else {
					o32[id+1] = int32(p)
				}
			}
			res = append(res, ktMakeArray(t.types[i], n, nulls, valid, offs, data))
		}
	}
	return res, nil
}

package exec

import (
	"encoding/binary"
	"fmt"
	"math"
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
	gen   KeyTable // once the keys no longer fit (a ktInterned or ktGen): everything goes here
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
	rng     bool
	noRange bool // never range-packed (a ktInterned's string ids grow)
	base    int64
	vb      int
	mn      int64  // range-packed: the first batch's least value
	span    uint64 // and its greatest minus its least
	k       int    // strings: the longest value packed
	val     pkField
	tag     pkField // fixed/bool: validity bit; strings: length+1, 0 = NULL
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

// migrate turns the table into a ktGen holding the same keys under the
// same ids.
func (t *ktPacked) migrate() error {
	var g KeyTable
	if ktInternable(t.types) {
		g = newKtInterned(t.types)
	} else {
		g = newKtGen(t.types)
	}
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

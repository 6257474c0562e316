package exec

import "math/bits"

// ---- the wide layout of ktPacked: 128-bit keys and a 32-bit tag ------------

// ktU128Map is ktU64Map with two key words: open addressing with linear
// probing over (k0, k1, tag) -> id, growing at half load; slots hold id+1
// so that the zero value is an empty slot. It backs the wide layout of
// ktPacked (keys_packed.go): multi-column keys of up to 160 bits such as
// (BIGINT, INT) or two BIGINTs with their validity bits.
type ktU128Slot struct {
	k0, k1 uint64
	id     int32 // id+1; 0 = empty
	tag    int32
}

type ktU128Map struct {
	slots []ktU128Slot
	mask  uint64
	shift uint
	n     int
}

func (m *ktU128Map) init(size int) {
	m.slots = make([]ktU128Slot, size)
	m.mask = uint64(size - 1)
	m.shift = 64 - uint(log2(size))
}

// ktHash128 folds the second word into the first (multiplied and rotated,
// so that small values of both words do not cancel) and finishes like
// ktHash64; the index is taken from the high bits.
func ktHash128(k0, k1 uint64, tag int32) uint64 {
	return ktHash64(k0^bits.RotateLeft64(k1*0xC2B2AE3D27D4EB4F, 31), tag)
}

// find returns the id of (k0, k1, tag) or -1.
func (m *ktU128Map) find(k0, k1 uint64, tag int32) int32 {
	if m.slots == nil {
		return -1
	}
	for i := ktHash128(k0, k1, tag) >> m.shift; ; i = (i + 1) & m.mask {
		s := &m.slots[i]
		if s.id == 0 {
			return -1
		}
		if s.k0 == k0 && s.k1 == k1 && s.tag == tag {
			return s.id - 1
		}
	}
}

// findOrAdd returns the id of (k0, k1, tag), adding it with id next when
// absent (added reports that).
func (m *ktU128Map) findOrAdd(k0, k1 uint64, tag int32, next int32) (id int32, added bool) {
	if m.slots == nil {
		m.init(64)
	}
	h := ktHash128(k0, k1, tag)
	i := h >> m.shift
	for {
		s := &m.slots[i]
		if s.id == 0 {
			break
		}
		if s.k0 == k0 && s.k1 == k1 && s.tag == tag {
			return s.id - 1, false
		}
		i = (i + 1) & m.mask
	}
	if 2*(m.n+1) > len(m.slots) {
		m.grow()
		i = h >> m.shift
		for m.slots[i].id != 0 {
			i = (i + 1) & m.mask
		}
	}
	m.slots[i] = ktU128Slot{k0: k0, k1: k1, id: next + 1, tag: tag}
	m.n++
	return next, true
}

func (m *ktU128Map) grow() { m.growTo(2 * len(m.slots)) }

// reserve sizes the table (at most half full) for n keys.
func (m *ktU128Map) reserve(n int) {
	size := ktMapSize(len(m.slots), n)
	if m.slots == nil {
		m.init(size)
	} else if size > len(m.slots) {
		m.growTo(size)
	}
}

func (m *ktU128Map) growTo(size int) {
	old := m.slots
	m.init(size)
	for _, s := range old {
		if s.id == 0 {
			continue
		}
		i := ktHash128(s.k0, s.k1, s.tag) >> m.shift
		for m.slots[i].id != 0 {
			i = (i + 1) & m.mask
		}
		m.slots[i] = s
	}
}

func (m *ktU128Map) bytes() int64 { return int64(cap(m.slots)) * 24 }

// words returns the packed key of id (mid is 0 in a narrow layout).
func (t *ktPacked) words(id int) (lo, mid uint64, hi uint32) {
	if t.wide {
		mid = t.mid[id]
	}
	return t.lo[id], mid, t.hi[id]
}

// insertWide sets gids to the ids of the packed keys (lo, mid, hi), adding
// the new ones (the caller checked the key count).
func (t *ktPacked) insertWide(lo, mid []uint64, hi []uint32, gids []int32) {
	m := &t.m2
	if m.slots == nil {
		m.init(64)
	}
	lo, mid, hi = lo[:len(gids)], mid[:len(gids)], hi[:len(gids)]
	lastK, lastM, lastH, lastG := uint64(0), uint64(0), uint32(0), int32(-1)
	for r := range gids {
		k, k1, h := lo[r], mid[r], hi[r]
		if k == lastK && k1 == lastM && h == lastH && lastG >= 0 {
			gids[r] = lastG
			continue
		}
		g, added := m.findOrAdd(k, k1, int32(h), int32(len(t.lo)))
		if added {
			t.lo = append(t.lo, k)
			t.mid = append(t.mid, k1)
			t.hi = append(t.hi, h)
		}
		gids[r], lastK, lastM, lastH, lastG = g, k, k1, h, g
	}
}

// lookupWide sets the gids not already -1 (a value that can not be packed)
// to the ids of the packed keys, -1 for a miss. It only reads the table.
func (t *ktPacked) lookupWide(lo, mid []uint64, hi []uint32, gids []int32) {
	lo, mid, hi = lo[:len(gids)], mid[:len(gids)], hi[:len(gids)]
	lastK, lastM, lastH, lastG := uint64(0), uint64(0), uint32(0), int32(-2)
	for r := range gids {
		if gids[r] < 0 {
			continue
		}
		k, k1, h := lo[r], mid[r], hi[r]
		if k == lastK && k1 == lastM && h == lastH && lastG != -2 {
			gids[r] = lastG
			continue
		}
		g := t.m2.find(k, k1, int32(h))
		gids[r], lastK, lastM, lastH, lastG = g, k, k1, h, g
	}
}

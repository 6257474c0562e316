package exec

import (
	"bytes"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// The hash tables behind the KeyTables (keys_impl.go, keys_bytes.go):
//
//   - ktU64Map: open addressing with linear probing over (uint64 key, small
//     tag) -> id; integer-like keys (tag 0) and strings of at most 8 bytes
//     packed into the key (tag = length).
//   - ktBytesMap: open addressing over (64-bit hash) -> id, the key bytes
//     living in a ktArena indexed by id (long strings, encoded composite
//     keys).
//
// Both grow at half load, so a probe sequence is short. Slots hold id+1
// so that the zero value is an empty slot (no initialisation pass).

const ktMaxKeys = math.MaxInt32 - 1

type ktSlot struct {
	key uint64
	id  int32 // id+1; 0 = empty
	tag int32
}

type ktU64Map struct {
	slots []ktSlot
	mask  uint64
	shift uint
	n     int
}

func (m *ktU64Map) init(size int) {
	m.slots = make([]ktSlot, size)
	m.mask = uint64(size - 1)
	m.shift = 64 - uint(log2(size))
}

func log2(size int) int {
	n := 0
	for 1<<n < size {
		n++
	}
	return n
}

func ktHash64(key uint64, tag int32) uint64 {
	// A murmur-style finaliser: arithmetic progressions, multiples of
	// powers of two and sign-extended negatives all spread evenly (the
	// index is taken from the high bits).
	key += uint64(tag) * 0x632BE59BD9B4E019
	key ^= key >> 33
	key *= 0xFF51AFD7ED558CCD
	key ^= key >> 33
	return key * 0x9E3779B97F4A7C15
}

// find returns the id of (key, tag) or -1.
func (m *ktU64Map) find(key uint64, tag int32) int32 {
	if m.slots == nil {
		return -1
	}
	for i := ktHash64(key, tag) >> m.shift; ; i = (i + 1) & m.mask {
		s := &m.slots[i]
		if s.id == 0 {
			return -1
		}
		if s.key == key && s.tag == tag {
			return s.id - 1
		}
	}
}

// findOrAdd returns the id of (key, tag), adding it with id next when
// absent (added reports that).
func (m *ktU64Map) findOrAdd(key uint64, tag int32, next int32) (id int32, added bool) {
	if m.slots == nil {
		m.init(64)
	}
	i := ktHash64(key, tag) >> m.shift
	for {
		s := &m.slots[i]
		if s.id == 0 {
			break
		}
		if s.key == key && s.tag == tag {
			return s.id - 1, false
		}
		i = (i + 1) & m.mask
	}
	if 2*(m.n+1) > len(m.slots) {
		m.grow()
		i = ktHash64(key, tag) >> m.shift
		for m.slots[i].id != 0 {
			i = (i + 1) & m.mask
		}
	}
	m.slots[i] = ktSlot{key: key, id: next + 1, tag: tag}
	m.n++
	return next, true
}

func (m *ktU64Map) grow() { m.growTo(2 * len(m.slots)) }

// ktMapSize is the table size (a power of two, at least 64 and cur) that
// holds n keys at most half full.
func ktMapSize(cur, n int) int {
	size := max(64, cur)
	for 2*n > size {
		size *= 2
	}
	return size
}

// reserve sizes the table (at most half full) for n keys.
func (m *ktU64Map) reserve(n int) {
	size := ktMapSize(len(m.slots), n)
	if m.slots == nil {
		m.init(size)
	} else if size > len(m.slots) {
		m.growTo(size)
	}
}

func (m *ktU64Map) growTo(size int) {
	old := m.slots
	m.init(size)
	for _, s := range old {
		if s.id == 0 {
			continue
		}
		i := ktHash64(s.key, s.tag) >> m.shift
		for m.slots[i].id != 0 {
			i = (i + 1) & m.mask
		}
		m.slots[i] = s
	}
}

func (m *ktU64Map) bytes() int64 { return int64(cap(m.slots)) * 16 }

// ktArena stores byte keys by id: key id is data[offs[id]:offs[id+1]].
type ktArena struct {
	data []byte
	offs []int64 // len = keys+1 once used
}

func (a *ktArena) get(id int32) []byte {
	return a.data[a.offs[id]:a.offs[id+1]]
}

func (a *ktArena) add(b []byte) {
	if a.offs == nil {
		a.offs = make([]int64, 1, 1024)
	}
	if len(a.data)+len(b) > cap(a.data) {
		a.data = ktGrow(a.data, len(b))
	}
	if len(a.offs) == cap(a.offs) {
		a.offs = ktGrow(a.offs, 1)
	}
	a.data = append(a.data, b...)
	a.offs = append(a.offs, int64(len(a.data)))
}

// ktGrow returns s with room for at least extra more elements, doubling
// its capacity (append grows large slices by 1.25×: a table of a million
// keys then copies its arena about five times over).
func ktGrow[T any](s []T, extra int) []T {
	if cap(s)-len(s) >= extra {
		return s
	}
	n := max(2*cap(s), len(s)+extra, 256)
	out := make([]T, len(s), n)
	copy(out, s)
	return out
}

func (a *ktArena) len() int { return max(0, len(a.offs)-1) }

func (a *ktArena) bytes() int64 { return int64(cap(a.data)) + 8*int64(cap(a.offs)) }

type ktBSlot struct {
	h  uint64
	id int32 // id+1; 0 = empty
}

type ktBytesMap struct {
	slots []ktBSlot
	mask  uint64
	n     int
}

func (m *ktBytesMap) find(h uint64, key []byte, ar *ktArena) int32 {
	if m.slots == nil {
		return -1
	}
	for i := h & m.mask; ; i = (i + 1) & m.mask {
		s := &m.slots[i]
		if s.id == 0 {
			return -1
		}
		if s.h == h && bytes.Equal(ar.get(s.id-1), key) {
			return s.id - 1
		}
	}
}

// add records id under h (the key is known to be absent).
func (m *ktBytesMap) add(h uint64, id int32) {
	if 2*(m.n+1) > len(m.slots) {
		m.reserve(m.n + 1)
	}
	m.put(ktBSlot{h: h, id: id + 1})
	m.n++
}

// reserve grows the table (at most half full) to hold n keys without
// growing again.
func (m *ktBytesMap) reserve(n int) {
	size := ktMapSize(len(m.slots), n)
	if size == len(m.slots) {
		return
	}
	old := m.slots
	m.slots = make([]ktBSlot, size)
	m.mask = uint64(size - 1)
	for _, s := range old {
		if s.id != 0 {
			m.put(s)
		}
	}
}

func (m *ktBytesMap) put(s ktBSlot) {
	i := s.h & m.mask
	for m.slots[i].id != 0 {
		i = (i + 1) & m.mask
	}
	m.slots[i] = s
}

func (m *ktBytesMap) bytes() int64 { return int64(cap(m.slots)) * 16 }

// ---- helpers shared by the tables ------------------------------------------

// ktValidity is a column's validity bitmap and offset, or nil when it has
// no nulls.
func ktValidity(col arrow.Array) ([]byte, int) {
	if col.NullN() == 0 {
		return nil, 0
	}
	return col.NullBitmapBytes(), col.Data().Offset()
}

// ktFixedWidth is the byte width of a fixed-width, byte-aligned type.
func ktFixedWidth(t arrow.DataType) (int, bool) {
	if t.ID() == arrow.BOOL || t.ID() == arrow.NULL {
		return 0, false
	}
	if t.ID() == arrow.DICTIONARY || t.ID() == arrow.EXTENSION || t.ID() == arrow.RUN_END_ENCODED {
		return 0, false
	}
	fw, ok := t.(arrow.FixedWidthDataType)
	if !ok || fw.BitWidth()%8 != 0 || fw.BitWidth() == 0 {
		return 0, false
	}
	return fw.BitWidth() / 8, true
}

// ktFixedBytes returns the n values of a fixed-width column as raw bytes.
func ktFixedBytes(col arrow.Array, w int) []byte {
	d := col.Data()
	bufs := d.Buffers()
	if len(bufs) < 2 || bufs[1] == nil {
		return make([]byte, d.Len()*w)
	}
	return bufs[1].Bytes()[d.Offset()*w : (d.Offset()+d.Len())*w]
}

// ktSameType reports whether arrays of type got may be keyed as want.
func ktSameType(want, got arrow.DataType) bool {
	if want.ID() != got.ID() {
		return false
	}
	if want.ID() == arrow.TIMESTAMP { // the zone does not change the values
		return want.(*arrow.TimestampType).Unit == got.(*arrow.TimestampType).Unit
	}
	return arrow.TypeEqual(want, got)
}

func ktCheck(types []arrow.DataType, keys []arrow.Array, n int) error {
	if len(keys) != len(types) {
		return fmt.Errorf("exec: key table of %d columns given %d", len(types), len(keys))
	}
	for i, k := range keys {
		if k == nil {
			return fmt.Errorf("exec: key column %d is nil", i)
		}
		if !ktSameType(types[i], k.DataType()) {
			return fmt.Errorf("exec: key column %d is %s, the table keys %s", i, k.DataType(), types[i])
		}
		if k.Len() != n {
			return fmt.Errorf("exec: key column %d has %d rows for %d ids", i, k.Len(), n)
		}
	}
	return nil
}

// ktBuffer returns a buffer of n zeroed bytes from mem.
func ktBuffer(mem memory.Allocator, n int) *memory.Buffer {
	b := memory.NewResizableBuffer(mem)
	b.Resize(n)
	clear(b.Bytes())
	return b
}

// ktMakeArray assembles an array from its buffers (it takes over the
// references passed: validity may be nil).
func ktMakeArray(dt arrow.DataType, n, nulls int, bufs ...*memory.Buffer) arrow.Array {
	d := array.NewData(dt, n, bufs, nil, nulls, 0)
	for _, b := range bufs {
		if b != nil {
			b.Release()
		}
	}
	a := array.MakeFromData(d)
	d.Release()
	return a
}

// ktValidityBuffer builds a validity bitmap of n bits where only bit nullID
// is clear (nil when nullID < 0).
func ktValidityBuffer(mem memory.Allocator, n int, nullID int32) *memory.Buffer {
	if nullID < 0 {
		return nil
	}
	b := ktBuffer(mem, int(bitutil.BytesForBits(int64(n))))
	bitutil.SetBitsTo(b.Bytes(), 0, int64(n), true)
	bitutil.ClearBit(b.Bytes(), int(nullID))
	return b
}

// Canonical float bits: -0 is 0 and every NaN one NaN.
func ktFloat64Bits(v float64) uint64 {
	switch {
	case v == 0:
		return 0
	case v != v:
		return 0x7FF8000000000000
	}
	return math.Float64bits(v)
}

func ktFloat32Bits(v float32) uint32 {
	switch {
	case v == 0:
		return 0
	case v != v:
		return 0x7FC00000
	}
	return math.Float32bits(v)
}

func ktFloat16Bits(b uint16) uint16 {
	switch {
	case b&0x7FFF == 0:
		return 0
	case b&0x7C00 == 0x7C00 && b&0x03FF != 0:
		return 0x7E00
	}
	return b
}

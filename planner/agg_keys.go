package planner

import (
	"encoding/binary"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
)

// A keyer maps the key columns of a batch to group ids, calling newGroup
// for keys it has not seen (newGroup records the key values and returns
// the next id; ids are dense and in order of first appearance). One keyer
// is specialised per key shape:
//
//   - no key: every row is group 0;
//   - one string key: 1-byte keys through a direct 256-entry table, keys of
//     up to 8 bytes packed into a uint64 (plus the length) in an
//     open-addressing table, longer keys in a map;
//   - one integer/date key: an open-addressing table keyed by the value;
//   - anything else (several keys, booleans): the general path, which
//     encodes the key bytes of each row into a map key.
//
// NULL keys form one group of their own in every keyer.
type keyer interface {
	assign(cols []arrow.Array, gids []int32, newGroup newGroupFn) error
	// fresh returns an empty keyer of the same kind.
	fresh() keyer
}

type newGroupFn func(cols []arrow.Array, r int) (int32, error)

// nullGroup returns the group of NULL keys (*g, -1 until row r is the first).
func nullGroup(g *int32, cols []arrow.Array, r int, newGroup newGroupFn) (int32, error) {
	if *g < 0 {
		ng, err := newGroup(cols, r)
		if err != nil {
			return 0, err
		}
		*g = ng
	}
	return *g, nil
}

func newKeyer(keyTypes []arrow.DataType) keyer {
	switch {
	case len(keyTypes) == 0:
		return &noKeyer{}
	case len(keyTypes) == 1 && keyTypes[0].ID() == arrow.STRING:
		return newStringKeyer()
	case len(keyTypes) == 1 && keyTypes[0].ID() != arrow.BOOL:
		return newIntKeyer()
	}
	return newGeneralKeyer()
}

// noKeyer: no GROUP BY, one group.
type noKeyer struct{ made bool }

func (k *noKeyer) fresh() keyer { return &noKeyer{} }

func (k *noKeyer) assign(cols []arrow.Array, gids []int32, newGroup newGroupFn) error {
	if !k.made {
		if _, err := newGroup(cols, 0); err != nil {
			return err
		}
		k.made = true
	}
	clear(gids)
	return nil
}

// ---- open-addressing table of (uint64, tag) -> group id -----------------

type slot struct {
	key uint64
	gid int32 // -1: empty
	tag uint8
}

// u64Table is a linear-probing hash table keyed by a uint64 and a small
// tag (a string's length; 0 for integers). It grows at half load.
type u64Table struct {
	slots []slot
	mask  uint64
	shift uint
	n     int
}

func newU64Table() u64Table {
	t := u64Table{}
	t.init(64)
	return t
}

func (t *u64Table) init(size int) {
	t.slots = make([]slot, size)
	for i := range t.slots {
		t.slots[i].gid = -1
	}
	t.mask = uint64(size - 1)
	t.shift = uint(64 - bitsLen(uint64(size-1)))
}

func bitsLen(x uint64) int {
	n := 0
	for x != 0 {
		n++
		x >>= 1
	}
	return n
}

func (t *u64Table) hash(key uint64, tag uint8) uint64 {
	return ((key ^ uint64(tag)<<59) * 0x9e3779b97f4a7c15) >> t.shift
}

// find returns the group of (key, tag), or -1.
func (t *u64Table) find(key uint64, tag uint8) int32 {
	for i := t.hash(key, tag); ; i = (i + 1) & t.mask {
		s := &t.slots[i]
		if s.gid < 0 || (s.key == key && s.tag == tag) {
			return s.gid
		}
	}
}

func (t *u64Table) insert(key uint64, tag uint8, gid int32) {
	if 2*(t.n+1) > len(t.slots) {
		old := t.slots
		t.init(2 * len(old))
		for _, s := range old {
			if s.gid >= 0 {
				t.put(s)
			}
		}
	}
	t.put(slot{key: key, gid: gid, tag: tag})
	t.n++
}

func (t *u64Table) put(s slot) {
	i := t.hash(s.key, s.tag)
	for t.slots[i].gid >= 0 {
		i = (i + 1) & t.mask
	}
	t.slots[i] = s
}

// ---- one string key --------------------------------------------------------

type stringKeyer struct {
	one   [256]int32 // 1-byte keys
	short u64Table   // keys of 0..8 bytes (tag = length)
	long  map[string]int32
	nullG int32
}

func newStringKeyer() *stringKeyer {
	k := &stringKeyer{short: newU64Table(), long: map[string]int32{}, nullG: -1}
	for i := range k.one {
		k.one[i] = -1
	}
	return k
}

func (k *stringKeyer) fresh() keyer { return newStringKeyer() }

// packShort packs b (at most 8 bytes) into a uint64, zero padded.
func packShort(b []byte) uint64 {
	if len(b) == 8 {
		return binary.LittleEndian.Uint64(b)
	}
	var x uint64
	for i := len(b) - 1; i >= 0; i-- {
		x = x<<8 | uint64(b[i])
	}
	return x
}

func (k *stringKeyer) assign(cols []arrow.Array, gids []int32, newGroup newGroupFn) error {
	col, ok := cols[0].(*array.String)
	if !ok {
		return fmt.Errorf("unexpected column type %s", cols[0].DataType())
	}
	offs := col.ValueOffsets()[:len(gids)+1]
	data := col.ValueBytes()
	base := offs[0]
	bits, off := validity(col)
	// The last short key found is checked before the table.
	lastX, lastL, lastG := uint64(0), uint8(0), int32(-1)
	for r := range gids {
		if bits != nil && !bitutil.BitIsSet(bits, off+r) {
			g, err := nullGroup(&k.nullG, cols, r, newGroup)
			if err != nil {
				return err
			}
			gids[r] = g
			continue
		}
		s, e := offs[r]-base, offs[r+1]-base
		switch l := e - s; {
		case l == 1:
			if g := k.one[data[s]]; g >= 0 {
				gids[r] = g
				continue
			}
		case l <= 8:
			// Load 8 bytes at once where the buffer allows, keep l of them.
			var x uint64
			if int(s)+8 <= len(data) {
				x = binary.LittleEndian.Uint64(data[s:]) & (^uint64(0) >> (64 - 8*uint(l)))
			} else {
				x = packShort(data[s:e])
			}
			if x == lastX && uint8(l) == lastL && lastG >= 0 {
				gids[r] = lastG
				continue
			}
			if g := k.short.find(x, uint8(l)); g >= 0 {
				gids[r], lastX, lastL, lastG = g, x, uint8(l), g
				continue
			}
		}
		g, err := k.slow(cols, r, data[s:e], newGroup)
		if err != nil {
			return err
		}
		gids[r] = g
	}
	return nil
}

// slow finds or creates the group of a key the loop above did not find.
func (k *stringKeyer) slow(cols []arrow.Array, r int, b []byte, newGroup newGroupFn) (int32, error) {
	switch {
	case len(b) == 1:
		g, err := newGroup(cols, r)
		if err == nil {
			k.one[b[0]] = g
		}
		return g, err
	case len(b) <= 8:
		x, tag := packShort(b), uint8(len(b))
		if g := k.short.find(x, tag); g >= 0 {
			return g, nil
		}
		g, err := newGroup(cols, r)
		if err == nil {
			k.short.insert(x, tag, g)
		}
		return g, err
	}
	if g, ok := k.long[string(b)]; ok {
		return g, nil
	}
	g, err := newGroup(cols, r)
	if err == nil {
		k.long[string(b)] = g
	}
	return g, err
}

// ---- one integer or date key -----------------------------------------------

type intKeyer struct {
	tab   u64Table
	nullG int32
}

func newIntKeyer() *intKeyer { return &intKeyer{tab: newU64Table(), nullG: -1} }

func (k *intKeyer) fresh() keyer { return newIntKeyer() }

func (k *intKeyer) assign(cols []arrow.Array, gids []int32, newGroup newGroupFn) error {
	switch x := cols[0].(type) {
	case *array.Int64:
		return assignInts(k, x.Int64Values(), cols, gids, newGroup)
	case *array.Int32:
		return assignInts(k, x.Int32Values(), cols, gids, newGroup)
	case *array.Int16:
		return assignInts(k, x.Int16Values(), cols, gids, newGroup)
	case *array.Int8:
		return assignInts(k, x.Int8Values(), cols, gids, newGroup)
	case *array.Date32:
		return assignInts(k, x.Date32Values(), cols, gids, newGroup)
	}
	return fmt.Errorf("unexpected column type %s", cols[0].DataType())
}

func assignInts[T intValue](k *intKeyer, vals []T, cols []arrow.Array, gids []int32, newGroup newGroupFn) error {
	vals = vals[:len(gids)]
	bits, off := validity(cols[0])
	// The previous row's key is checked first: sorted or clustered keys
	// repeat.
	lastV, lastG := uint64(0), int32(-1)
	for r := range gids {
		if bits != nil && !bitutil.BitIsSet(bits, off+r) {
			g, err := nullGroup(&k.nullG, cols, r, newGroup)
			if err != nil {
				return err
			}
			gids[r] = g
			continue
		}
		v := uint64(int64(vals[r]))
		if v == lastV && lastG >= 0 {
			gids[r] = lastG
			continue
		}
		g := k.tab.find(v, 0)
		if g < 0 {
			var err error
			if g, err = newGroup(cols, r); err != nil {
				return err
			}
			k.tab.insert(v, 0, g)
		}
		gids[r], lastV, lastG = g, v, g
	}
	return nil
}

// ---- general path ----------------------------------------------------------

// generalKeyer encodes each row's key columns (a null flag, then the value
// bytes) into a map key.
type generalKeyer struct {
	index map[string]int32
	buf   []byte
}

func newGeneralKeyer() *generalKeyer { return &generalKeyer{index: map[string]int32{}} }

func (k *generalKeyer) fresh() keyer { return newGeneralKeyer() }

func (k *generalKeyer) assign(cols []arrow.Array, gids []int32, newGroup newGroupFn) error {
	for r := range gids {
		b := k.buf[:0]
		for _, col := range cols {
			if col.IsNull(r) {
				b = append(b, 0)
				continue
			}
			b = append(b, 1)
			switch x := col.(type) {
			case *array.String:
				s := x.Value(r)
				b = binary.AppendUvarint(b, uint64(len(s)))
				b = append(b, s...)
			case *array.Int64:
				b = binary.LittleEndian.AppendUint64(b, uint64(x.Value(r)))
			case *array.Int32:
				b = binary.LittleEndian.AppendUint32(b, uint32(x.Value(r)))
			case *array.Int16:
				b = binary.LittleEndian.AppendUint16(b, uint16(x.Value(r)))
			case *array.Int8:
				b = append(b, byte(x.Value(r)))
			case *array.Date32:
				b = binary.LittleEndian.AppendUint32(b, uint32(x.Value(r)))
			case *array.Boolean:
				if x.Value(r) {
					b = append(b, 1)
				} else {
					b = append(b, 0)
				}
			default:
				return fmt.Errorf("unexpected column type %s", col.DataType())
			}
		}
		k.buf = b
		g, ok := k.index[string(b)]
		if !ok {
			var err error
			if g, err = newGroup(cols, r); err != nil {
				return err
			}
			k.index[string(b)] = g
		}
		gids[r] = g
	}
	return nil
}

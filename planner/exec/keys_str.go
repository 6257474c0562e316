package exec

import (
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// ---- one string / binary column --------------------------------------------

// ktStr keys one STRING, BINARY, LARGE_STRING or LARGE_BINARY column: keys
// of at most 8 bytes are packed into a uint64 with their length as the tag,
// longer ones hashed with maphash; every key's bytes are kept in id order
// in an arena (which Keys copies out).
type ktStr struct {
	types  []arrow.DataType
	large  bool
	short  ktU64Map
	long   ktBytesMap
	ar     ktArena
	nullID int32
	seed   maphash.Seed
}

func newKtStr(types []arrow.DataType) *ktStr {
	id := types[0].ID()
	return &ktStr{types: types, large: id == arrow.LARGE_STRING || id == arrow.LARGE_BINARY, nullID: -1, seed: maphash.MakeSeed()}
}

func (t *ktStr) Insert(keys []arrow.Array, gids []int32) error { return t.run(keys, gids, true) }
func (t *ktStr) Lookup(keys []arrow.Array, gids []int32) error { return t.run(keys, gids, false) }
func (t *ktStr) Len() int                                      { return t.ar.len() }
func (t *ktStr) Bytes() int64 {
	return t.short.bytes() + t.long.bytes() + t.ar.bytes() + 64
}

func (t *ktStr) run(keys []arrow.Array, gids []int32, ins bool) error {
	if err := ktCheck(t.types, keys, len(gids)); err != nil {
		return err
	}
	n := len(gids)
	if n == 0 {
		return nil
	}
	if ins && t.ar.len()+n > ktMaxKeys {
		return fmt.Errorf("exec: key table over %d keys", ktMaxKeys)
	}
	col := keys[0]
	d := col.Data()
	bufs := d.Buffers()
	if len(bufs) < 3 || bufs[1] == nil {
		return fmt.Errorf("exec: key column of %s without offsets", col.DataType())
	}
	var data []byte
	if bufs[2] != nil {
		data = bufs[2].Bytes()
	}
	bits, off := ktValidity(col)
	if t.large {
		offs := arrow.Int64Traits.CastFromBytes(bufs[1].Bytes())[d.Offset() : d.Offset()+n+1]
		return ktStrLoop(t, offs, data, bits, off, gids, ins)
	}
	offs := arrow.Int32Traits.CastFromBytes(bufs[1].Bytes())[d.Offset() : d.Offset()+n+1]
	return ktStrLoop(t, offs, data, bits, off, gids, ins)
}

func ktStrLoop[O int32 | int64](t *ktStr, offs []O, data []byte, bits []byte, off int, gids []int32, ins bool) error {
	if int64(offs[len(offs)-1]) > int64(len(data)) || offs[0] < 0 {
		return fmt.Errorf("exec: key column offsets outside its data")
	}
	lastX, lastL, lastG := uint64(0), int32(-1), int32(-1)
	for r := range gids {
		if bits != nil && !bitutil.BitIsSet(bits, off+r) {
			if t.nullID < 0 && ins {
				t.nullID = int32(t.ar.len())
				t.ar.add(nil)
			}
			gids[r] = t.nullID
			continue
		}
		s, e := offs[r], offs[r+1]
		if e < s {
			return fmt.Errorf("exec: key column offsets decrease at row %d", r)
		}
		l := int(e - s)
		var g int32
		if l <= 8 {
			var x uint64
			if int(s)+8 <= len(data) {
				x = binary.LittleEndian.Uint64(data[s:]) & (^uint64(0) >> (64 - 8*uint(l)))
			} else {
				x = ktPack(data[s:e])
			}
			if x == lastX && int32(l) == lastL && lastG >= 0 {
				gids[r] = lastG
				continue
			}
			if ins {
				var added bool
				g, added = t.short.findOrAdd(x, int32(l), int32(t.ar.len()))
				if added {
					t.ar.add(data[s:e])
				}
			} else {
				g = t.short.find(x, int32(l))
			}
			lastX, lastL, lastG = x, int32(l), g
		} else {
			b := data[s:e]
			h := maphash.Bytes(t.seed, b)
			g = t.long.find(h, b, &t.ar)
			if g < 0 && ins {
				g = int32(t.ar.len())
				t.ar.add(b)
				t.long.add(h, g)
			}
		}
		gids[r] = g
	}
	return nil
}

// ktPack packs b (at most 8 bytes) little-endian into a uint64.
func ktPack(b []byte) uint64 {
	var x uint64
	for i := len(b) - 1; i >= 0; i-- {
		x = x<<8 | uint64(b[i])
	}
	return x
}

func (t *ktStr) Keys(mem memory.Allocator) ([]arrow.Array, error) {
	n := t.ar.len()
	if !t.large && len(t.ar.data) > math.MaxInt32 {
		return nil, fmt.Errorf("exec: %d bytes of %s keys do not fit 32-bit offsets", len(t.ar.data), t.types[0])
	}
	nulls := 0
	if t.nullID >= 0 {
		nulls = 1
	}
	valid := ktValidityBuffer(mem, n, t.nullID)
	offs := ktOffsetsBuffer(mem, t.ar.offs, n, t.large)
	data := ktBuffer(mem, len(t.ar.data))
	copy(data.Bytes(), t.ar.data)
	return []arrow.Array{ktMakeArray(t.types[0], n, nulls, valid, offs, data)}, nil
}

// ktOffsetsBuffer writes n+1 offsets (int64 or int32) into a buffer.
func ktOffsetsBuffer(mem memory.Allocator, offs []int64, n int, large bool) *memory.Buffer {
	if large {
		b := ktBuffer(mem, 8*(n+1))
		o := arrow.Int64Traits.CastFromBytes(b.Bytes())
		copy(o, offs)
		return b
	}
	b := ktBuffer(mem, 4*(n+1))
	o := arrow.Int32Traits.CastFromBytes(b.Bytes())
	for i := 0; i < n+1 && i < len(offs); i++ {
		o[i] = int32(offs[i])
	}
	return b
}

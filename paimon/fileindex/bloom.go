package fileindex

import (
	"math"

	"github.com/cespare/xxhash/v2"

	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// maxBloomHashes bounds the hash functions of a filter (work per probe).
const maxBloomHashes = 1024

// bloomIndex is a decoded BloomFilterFileIndex: a BloomFilter64 whose bytes
// are an int32 BE hash-function count and the bit set (bit i in byte i/8,
// mask 1<<(i%8)).
type bloomIndex struct {
	t      types.DataType
	hashes int32
	bits   []byte
}

func (*bloomIndex) Type() string { return TypeBloomFilter }

func openBloom(b []byte, t types.DataType, ctx string) (Reader, error) {
	switch t.Root {
	case types.Char, types.VarChar, types.Binary, types.VarBinary,
		types.TinyInt, types.SmallInt, types.Int, types.BigInt, types.Float, types.Double,
		types.Date, types.Time:
	case types.Timestamp, types.TimestampLTZ:
		if t.Precision > 6 {
			return nil, nil
		}
	default:
		return nil, nil
	}
	if len(b) < 5 {
		return nil, corruptf("%s: %d bytes, want a hash count and a bit set", ctx, len(b))
	}
	// Java adds the four bytes as signed values; for the small counts
	// writers produce this equals the big-endian int.
	n := int32(int8(b[0]))<<24 + int32(int8(b[1]))<<16 + int32(int8(b[2]))<<8 + int32(int8(b[3]))
	// Java sizes filters with round(bits/items·ln 2) hash functions, about
	// 1.44·log2(1/fpp): far below maxBloomHashes for any usable fpp.
	if n <= 0 || n > maxBloomHashes || len(b)-4 > math.MaxInt32/8 {
		return nil, corruptf("%s: %d hash functions over %d bytes", ctx, n, len(b)-4)
	}
	return &bloomIndex{t: t, hashes: n, bits: b[4:]}, nil
}

// test is BloomFilter64.testHash.
func (ix *bloomIndex) test(h uint64) bool {
	h1, h2 := int32(uint32(h)), int32(uint32(h>>32))
	numBits := int32(len(ix.bits) * 8)
	for i := int32(1); i <= ix.hashes; i++ {
		c := h1 + i*h2
		if c < 0 {
			c = ^c
		}
		pos := c % numBits
		if ix.bits[pos>>3]&(1<<(pos&7)) == 0 {
			return false
		}
	}
	return true
}

// wangHash is FastHash.getLongHash (Thomas Wang's 64-bit integer hash).
func wangHash(key int64) uint64 {
	key = (^key) + (key << 21)
	key ^= key >> 24
	key = (key + (key << 3)) + (key << 8)
	key ^= key >> 14
	key = (key + (key << 2)) + (key << 4)
	key ^= key >> 28
	key += key << 31
	return uint64(key)
}

// hashes returns FastHash of the values equal to lit (both zeros for a float
// zero); ok is false when lit cannot be hashed exactly.
func (ix *bloomIndex) hashesOf(lit predicate.Literal) ([]uint64, bool) {
	t := ix.t
	switch t.Root {
	case types.VarChar:
		s, ok := lit.(string)
		if !ok {
			return nil, false
		}
		return []uint64{xxhash.Sum64String(s)}, true
	case types.Binary, types.VarBinary:
		switch v := lit.(type) {
		case []byte:
			return []uint64{xxhash.Sum64(v)}, true
		case string:
			return []uint64{xxhash.Sum64String(v)}, true
		}
		return nil, false
	case types.Float, types.Double:
		ks, ok := eqProbes(t, bitmapKind(t), lit)
		if !ok {
			return nil, false
		}
		var out []uint64
		for _, k := range ks {
			if t.Root == types.Float {
				// Float.floatToIntBits, widened to long with sign extension.
				out = append(out, wangHash(int64(int32(math.Float32bits(float32(k.f))))))
			} else {
				out = append(out, wangHash(int64(math.Float64bits(k.f))))
			}
		}
		return out, true
	case types.Char:
		return nil, false
	}
	k, ok := probe(t, rangeKind(t), lit)
	if !ok {
		return nil, false
	}
	return []uint64{wangHash(k.i)}, true
}

// Eval answers = and IN: Skip when no literal can be in the filter.
func (ix *bloomIndex) Eval(l *predicate.Leaf) (Result, error) {
	if l.Op != predicate.Eq && l.Op != predicate.In {
		return Remain, nil
	}
	for _, lit := range l.Literals {
		hs, ok := ix.hashesOf(lit)
		if !ok {
			return Remain, nil
		}
		for _, h := range hs {
			if ix.test(h) {
				return Remain, nil
			}
		}
	}
	if len(l.Literals) == 0 {
		return Remain, nil
	}
	return Skip, nil
}

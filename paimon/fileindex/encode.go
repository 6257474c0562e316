package fileindex

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"sort"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/cespare/xxhash/v2"

	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// The builders below write index bodies byte for byte as Paimon Java's
// writers do (BitmapFileIndex.Writer, BitSliceIndexBitmapFileIndex.Writer,
// BloomFilterFileIndex.Writer, RangeBitmap.Appender). Values are one per row
// in predicate-literal convention, nil for NULL. They exist so tests and
// tools can produce the indexes Java writers produce.

// valueKey converts a row value to its index key without normalising
// (-0.0 stays -0.0).
func valueKey(t types.DataType, k kind, v any) (key, error) {
	switch k {
	case kindFloat32, kindFloat64:
		f, ok := v.(float64)
		if !ok {
			return key{}, fmt.Errorf("fileindex: value %v (%T) for %s", v, v, t)
		}
		if k == kindFloat32 {
			f = float64(float32(f))
		}
		return key{f: f}, nil
	case kindString:
		s, ok := v.(string)
		if !ok {
			return key{}, fmt.Errorf("fileindex: value %v (%T) for %s", v, v, t)
		}
		return key{s: s}, nil
	}
	kv, ok := probe(t.WithNullable(true), k, v)
	if !ok {
		return key{}, fmt.Errorf("fileindex: value %v (%T) for %s", v, v, t)
	}
	return kv, nil
}

func (k kind) write(b []byte, v key) []byte {
	switch k {
	case kindBool, kindInt8:
		return append(b, byte(v.i))
	case kindInt16:
		return binary.BigEndian.AppendUint16(b, uint16(v.i))
	case kindInt32:
		return binary.BigEndian.AppendUint32(b, uint32(v.i))
	case kindInt64:
		return binary.BigEndian.AppendUint64(b, uint64(v.i))
	case kindFloat32:
		return binary.BigEndian.AppendUint32(b, math.Float32bits(float32(v.f)))
	case kindFloat64:
		return binary.BigEndian.AppendUint64(b, math.Float64bits(v.f))
	}
	b = binary.BigEndian.AppendUint32(b, uint32(len(v.s)))
	return append(b, v.s...)
}

func (k kind) size(v key) int {
	if k == kindString {
		return 4 + len(v.s)
	}
	return k.width()
}

// serialize is RoaringBitmap32.serialize (run-optimised portable format).
func serialize(bm *roaring.Bitmap) []byte {
	c := bm.Clone()
	c.RunOptimize()
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		panic(err) // writing to a bytes.Buffer cannot fail
	}
	return buf.Bytes()
}

// BuildBitmap writes a BitmapFileIndex body of version 1 or 2 (2 is Java's
// default) for a column of type t. Java lays the bitmaps out in its HashMap's
// iteration order; for integer and boolean columns so does this builder,
// making the bytes identical; other columns use first-seen order (the same
// index, possibly another byte order).
func BuildBitmap(version int, t types.DataType, values []any) ([]byte, error) {
	k := bitmapKind(t)
	if k == kindNone || (version != bitmapV1 && version != bitmapV2) {
		return nil, fmt.Errorf("fileindex: no bitmap index v%d for %s", version, t)
	}
	type ent struct {
		k  key
		bm *roaring.Bitmap
	}
	var ents []*ent
	byKey := map[key]*ent{}
	nulls := roaring.New()
	for row, v := range values {
		if v == nil {
			nulls.Add(uint32(row))
			continue
		}
		kv, err := valueKey(t, k, v)
		if err != nil {
			return nil, err
		}
		e := byKey[k.mapKey(kv)]
		if e == nil {
			e = &ent{k: kv, bm: roaring.New()}
			byKey[k.mapKey(kv)] = e
			ents = append(ents, e)
		}
		e.bm.Add(uint32(row))
	}
	if k == kindInt8 || k == kindInt16 || k == kindInt32 || k == kindInt64 || k == kindBool {
		hashMapOrder(ents, func(e *ent) int32 {
			switch k {
			case kindInt64:
				return int32(e.k.i ^ int64(uint64(e.k.i)>>32)) // Long.hashCode
			case kindBool:
				if e.k.i == 1 {
					return 1231 // Boolean.hashCode(true)
				}
				return 1237
			}
			return int32(e.k.i) // Integer/Short/Byte.hashCode
		})
	}
	nullBytes := serialize(nulls)
	offRef := int32(0)
	if nulls.GetCardinality() > 1 {
		offRef = int32(len(nullBytes))
	}
	offsets := make([]int32, len(ents))
	var bodies [][]byte
	for i, e := range ents {
		if e.bm.GetCardinality() == 1 {
			offsets[i] = -1 - int32(e.bm.Minimum())
			continue
		}
		b := serialize(e.bm)
		bodies = append(bodies, b)
		offsets[i] = offRef
		offRef += int32(len(b))
	}
	hasNull := !nulls.IsEmpty()
	nullOff := int32(0)
	if nulls.GetCardinality() == 1 {
		nullOff = -1 - int32(nulls.Minimum())
	}
	out := []byte{byte(version)}
	out = binary.BigEndian.AppendUint32(out, uint32(len(values)))
	out = binary.BigEndian.AppendUint32(out, uint32(len(ents)))
	out = append(out, boolByte(hasNull))
	if version == bitmapV1 {
		if hasNull {
			out = binary.BigEndian.AppendUint32(out, uint32(nullOff))
		}
		for i, e := range ents {
			out = k.write(out, e.k)
			out = binary.BigEndian.AppendUint32(out, uint32(offsets[i]))
		}
	} else {
		if hasNull {
			out = binary.BigEndian.AppendUint32(out, uint32(nullOff))
			out = binary.BigEndian.AppendUint32(out, uint32(len(nullBytes)))
		}
		// Lengths as BitmapFileIndexMetaV2's constructor computes them.
		lengths := map[int]int32{} // entry index → length; -1 = the null bitmap
		last, lastOff := -1, nullOff
		for i := range ents {
			if offsets[i] >= 0 {
				if lastOff >= 0 {
					lengths[last] = offsets[i] - lastOff
				}
				last, lastOff = i, offsets[i]
			}
		}
		lengths[last] = offRef - lastOff
		order := make([]int, len(ents))
		for i := range order {
			order[i] = i
		}
		sort.SliceStable(order, func(a, b int) bool { return k.compare(ents[order[a]].k, ents[order[b]].k) < 0 })
		const blockLimit = 16 << 10
		type block struct {
			first   key
			entries []int
			size    int
		}
		var blocks []*block
		for _, i := range order {
			sz := 8 + k.size(ents[i].k)
			if len(blocks) == 0 || blocks[len(blocks)-1].size+sz > blockLimit {
				blocks = append(blocks, &block{first: ents[i].k, size: 4})
			}
			bl := blocks[len(blocks)-1]
			bl.entries = append(bl.entries, i)
			bl.size += sz
		}
		out = binary.BigEndian.AppendUint32(out, uint32(len(blocks)))
		off := 0
		for _, bl := range blocks {
			out = k.write(out, bl.first)
			out = binary.BigEndian.AppendUint32(out, uint32(off))
			off += bl.size
		}
		out = binary.BigEndian.AppendUint32(out, uint32(off))
		for _, bl := range blocks {
			out = binary.BigEndian.AppendUint32(out, uint32(len(bl.entries)))
			for _, i := range bl.entries {
				l, ok := lengths[i]
				if !ok {
					l = -1
				}
				out = k.write(out, ents[i].k)
				out = binary.BigEndian.AppendUint32(out, uint32(offsets[i]))
				out = binary.BigEndian.AppendUint32(out, uint32(l))
			}
		}
	}
	if nulls.GetCardinality() > 1 {
		out = append(out, nullBytes...)
	}
	for _, b := range bodies {
		out = append(out, b...)
	}
	return out, nil
}

func boolByte(b bool) byte {
	if b {
		return 1
	}
	return 0
}

// bsiAppend writes BitSliceIndexRoaringBitmap.Appender.serialize for the
// (row, value) pairs with values in [mn, mx].
func bsiAppend(out []byte, mn, mx int64, rows []uint32, vals []int64) []byte {
	n := 64 - bitsLeadingZeros(uint64(mx-mn))
	ebm := roaring.New()
	sl := make([]*roaring.Bitmap, n)
	for i := range sl {
		sl[i] = roaring.New()
	}
	for j, r := range rows {
		v := uint64(vals[j] - mn)
		for i := 0; v != 0; i++ {
			if v&1 == 1 {
				sl[i].Add(r)
			}
			v >>= 1
		}
		ebm.Add(r)
	}
	out = append(out, 1)
	out = binary.BigEndian.AppendUint64(out, uint64(mn))
	out = binary.BigEndian.AppendUint64(out, uint64(mx))
	out = append(out, serialize(ebm)...)
	out = binary.BigEndian.AppendUint32(out, uint32(n))
	for _, s := range sl {
		out = append(out, serialize(s)...)
	}
	return out
}

func bitsLeadingZeros(x uint64) int {
	n := 0
	for i := 63; i >= 0 && x>>uint(i)&1 == 0; i-- {
		n++
	}
	return n
}

// BuildBSI writes a BitSliceIndexBitmapFileIndex body.
func BuildBSI(t types.DataType, values []any) ([]byte, error) {
	var pr, nr []uint32
	var pv, nv []int64
	var pMin, pMax, nMin, nMax int64 // Java starts min and max at 0
	for row, v := range values {
		if v == nil {
			continue
		}
		kv, ok := probe(t.WithNullable(true), kindInt64, v)
		if !ok || kv.i == math.MinInt64 {
			return nil, fmt.Errorf("fileindex: value %v (%T) for a bsi index of %s", v, v, t)
		}
		if kv.i < 0 {
			a := -kv.i
			nr, nv = append(nr, uint32(row)), append(nv, a)
			nMin, nMax = min(nMin, a), max(nMax, a)
		} else {
			pr, pv = append(pr, uint32(row)), append(pv, kv.i)
			pMin, pMax = min(pMin, kv.i), max(pMax, kv.i)
		}
	}
	out := []byte{1}
	out = binary.BigEndian.AppendUint32(out, uint32(len(values)))
	out = append(out, boolByte(len(pr) > 0))
	if len(pr) > 0 {
		out = bsiAppend(out, pMin, pMax, pr, pv)
	}
	out = append(out, boolByte(len(nr) > 0))
	if len(nr) > 0 {
		out = bsiAppend(out, nMin, nMax, nr, nv)
	}
	return out, nil
}

// BuildBloomFilter writes a BloomFilterFileIndex body sized for items
// values at false-positive probability fpp (Java's defaults: 1,000,000 and 0.1).
func BuildBloomFilter(t types.DataType, values []any, items int, fpp float64) ([]byte, error) {
	nb := int32(-float64(items) * math.Log(fpp) / (math.Ln2 * math.Ln2))
	numBits := nb + (8 - nb%8)
	numHash := max(1, int32(math.Round(float64(numBits)/float64(items)*math.Ln2)))
	ix := &bloomIndex{t: t, hashes: numHash, bits: make([]byte, numBits/8)}
	for _, v := range values {
		if v == nil {
			continue
		}
		var h uint64
		switch t.Root {
		case types.VarChar, types.Char:
			h = xxhash.Sum64String(v.(string))
		case types.Binary, types.VarBinary:
			h = xxhash.Sum64(v.([]byte))
		case types.Float:
			h = wangHash(int64(int32(math.Float32bits(float32(v.(float64))))))
		case types.Double:
			h = wangHash(int64(math.Float64bits(v.(float64))))
		default:
			k, ok := probe(t.WithNullable(true), rangeKind(t), v)
			if !ok {
				return nil, fmt.Errorf("fileindex: value %v (%T) for a bloom filter of %s", v, v, t)
			}
			h = wangHash(k.i)
		}
		ix.add(h)
	}
	out := binary.BigEndian.AppendUint32(nil, uint32(numHash))
	return append(out, ix.bits...), nil
}

// add is BloomFilter64.addHash.
func (ix *bloomIndex) add(h uint64) {
	h1, h2 := int32(uint32(h)), int32(uint32(h>>32))
	numBits := int32(len(ix.bits) * 8)
	for i := int32(1); i <= ix.hashes; i++ {
		c := h1 + i*h2
		if c < 0 {
			c = ^c
		}
		pos := c % numBits
		ix.bits[pos>>3] |= 1 << (pos & 7)
	}
}

// BuildRangeBitmap writes a RangeBitmapFileIndex body whose dictionary
// chunks hold at most chunkSize key bytes (Java's default "16kb"; "0b" for
// BOOLEAN, TINYINT and SMALLINT).
func BuildRangeBitmap(t types.DataType, values []any, chunkSize int) ([]byte, error) {
	k := rangeKind(t)
	if k == kindNone {
		return nil, fmt.Errorf("fileindex: no range-bitmap index for %s", t)
	}
	type ent struct {
		k  key
		bm *roaring.Bitmap
	}
	byKey := map[key]*ent{}
	var ents []*ent
	for row, v := range values {
		if v == nil {
			continue
		}
		kv, err := valueKey(t, k, v)
		if err != nil {
			return nil, err
		}
		e := byKey[k.mapKey(kv)]
		if e == nil {
			e = &ent{k: kv, bm: roaring.New()}
			byKey[k.mapKey(kv)] = e
			ents = append(ents, e)
		}
		e.bm.Add(uint32(row))
	}
	sort.Slice(ents, func(a, b int) bool { return k.compare(ents[a].k, ents[b].k) < 0 })

	// Dictionary: chunks of a head key plus as many keys as fit.
	var offsets, chunks, keys []byte
	for i := 0; i < len(ents); {
		head := ents[i].k
		code := i
		keysOff := len(keys)
		i++
		var ko, kb []byte
		size := 0
		for ; i < len(ents); i++ {
			sz := k.size(ents[i].k)
			if k == kindString {
				if sz > chunkSize-len(kb) || 4 > chunkSize-len(ko) {
					break
				}
				ko = binary.BigEndian.AppendUint32(ko, uint32(len(kb)))
			} else if sz > chunkSize-len(kb) {
				break
			}
			kb = k.write(kb, ents[i].k)
			size++
		}
		offsets = binary.BigEndian.AppendUint32(offsets, uint32(len(chunks)))
		chunks = append(chunks, 1)
		chunks = k.write(chunks, head)
		chunks = binary.BigEndian.AppendUint32(chunks, uint32(code))
		chunks = binary.BigEndian.AppendUint32(chunks, uint32(keysOff))
		chunks = binary.BigEndian.AppendUint32(chunks, uint32(size))
		if k == kindString {
			chunks = binary.BigEndian.AppendUint32(chunks, uint32(len(ko)))
			chunks = binary.BigEndian.AppendUint32(chunks, uint32(len(kb)))
		} else {
			chunks = binary.BigEndian.AppendUint32(chunks, uint32(len(kb)))
			chunks = binary.BigEndian.AppendUint32(chunks, uint32(k.width()))
		}
		keys = append(append(keys, ko...), kb...)
	}
	dict := binary.BigEndian.AppendUint32(nil, 13)
	dict = append(dict, 1)
	dict = binary.BigEndian.AppendUint32(dict, uint32(len(offsets)/4))
	dict = binary.BigEndian.AppendUint32(dict, uint32(len(offsets)))
	dict = binary.BigEndian.AppendUint32(dict, uint32(len(chunks)))
	dict = append(append(append(dict, offsets...), chunks...), keys...)

	// Bit-sliced index of codes.
	n := max(64-bitsLeadingZeros(uint64(max(len(ents)-1, 0))), 1)
	if len(ents) == 0 {
		n = 64 // Appender(0, -1): 64 - numberOfLeadingZeros(-1) = 64
	}
	ebm := roaring.New()
	sl := make([]*roaring.Bitmap, n)
	for i := range sl {
		sl[i] = roaring.New()
	}
	for code, e := range ents {
		for i := 0; i < n; i++ {
			if code>>uint(i)&1 == 1 {
				sl[i].Or(e.bm)
			}
		}
		ebm.Or(e.bm)
	}
	ebmBytes := serialize(ebm)
	var idx, body []byte
	for _, s := range sl {
		b := serialize(s)
		idx = binary.BigEndian.AppendUint32(idx, uint32(len(body)))
		idx = binary.BigEndian.AppendUint32(idx, uint32(len(b)))
		body = append(body, b...)
	}
	bsi := binary.BigEndian.AppendUint32(nil, uint32(1+1+4+4+len(idx)))
	bsi = append(bsi, 1, byte(n))
	bsi = binary.BigEndian.AppendUint32(bsi, uint32(len(ebmBytes)))
	bsi = binary.BigEndian.AppendUint32(bsi, uint32(len(idx)))
	bsi = append(append(append(bsi, idx...), ebmBytes...), body...)

	headerSize := 1 + 4 + 4 + 4
	if len(ents) > 0 {
		headerSize += 2 * k.size(ents[0].k)
		if k == kindString {
			headerSize += k.size(ents[len(ents)-1].k) - k.size(ents[0].k)
		}
	}
	out := binary.BigEndian.AppendUint32(nil, uint32(headerSize))
	out = append(out, 1)
	out = binary.BigEndian.AppendUint32(out, uint32(len(values)))
	out = binary.BigEndian.AppendUint32(out, uint32(len(ents)))
	if len(ents) > 0 {
		out = k.write(out, ents[0].k)
		out = k.write(out, ents[len(ents)-1].k)
	}
	out = binary.BigEndian.AppendUint32(out, uint32(len(dict)))
	return append(append(out, dict...), bsi...), nil
}

// hashMapOrder sorts entries (given in insertion order) into the iteration
// order of a java.util.HashMap holding them: by bucket (spread hash masked by
// the table size, which doubles from 16 whenever the size passes 3/4 of
// it), insertion order within a bucket.
func hashMapOrder[E any](ents []E, hash func(E) int32) {
	capacity := 16
	for len(ents) > capacity*3/4 {
		capacity *= 2
	}
	bucket := func(e E) int {
		h := hash(e)
		return int(uint32(h^int32(uint32(h)>>16)) & uint32(capacity-1))
	}
	sort.SliceStable(ents, func(a, b int) bool { return bucket(ents[a]) < bucket(ents[b]) })
}

package fileindex

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"sort"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// Absent marks a row BuildBTree leaves out of the file (another file of a
// rotated row range holds it); nil is a NULL key.
var Absent any = absentRow{}

type absentRow struct{}

// BuildBTree writes a BTree global index file over values (row ordinal =
// position, nil = NULL) of a column of type t, in the layout Java's
// BTreeIndexWriter produces: entries sorted by key (equal keys — by Java's
// comparator, so -0.0 and 0.0 apart — grouped, ordinals ascending), data
// blocks of at most blockEntries entries (aligned when all entries of a
// block have one size, as Java's BlockWriter), the null bitmap
// (Roaring64NavigableMap portable + CRC) when there are NULLs, no bloom
// filter, the index block and the footer. Keys are serialized as
// KeySerializer does (btree_keys.go; NaN canonical as floatToIntBits).
// The block boundaries follow blockEntries, not Java's byte-size rule, so
// only the key and entry encodings are claimed identical to Java's.
func BuildBTree(t types.DataType, values []any, blockEntries int) ([]byte, error) {
	k := btreeKind(t)
	if k == kindNone {
		return nil, fmt.Errorf("fileindex: btree keys of %s not supported", t)
	}
	if blockEntries <= 0 {
		blockEntries = 1 << 30
	}
	type row struct {
		k key
		o int
	}
	var rows []row
	nulls := roaring.New()
	for i, v := range values {
		if v == Absent {
			continue
		}
		if v == nil {
			nulls.Add(uint32(i))
			continue
		}
		kv, err := btreeValueKey(t, k, v)
		if err != nil {
			return nil, err
		}
		rows = append(rows, row{kv, i})
	}
	sort.SliceStable(rows, func(a, b int) bool { return btreeCompare(k, rows[a].k, rows[b].k) < 0 })
	var ents []BTreeEntry
	for i := 0; i < len(rows); {
		j := i
		var ords []int64
		for j < len(rows) && btreeCompare(k, rows[i].k, rows[j].k) == 0 {
			ords = append(ords, int64(rows[j].o))
			j++
		}
		ents = append(ents, BTreeEntry{Key: encodeBTreeKey(k, rows[i].k), Ordinals: ords})
		i = j
	}
	if len(ents) == 0 && nulls.IsEmpty() {
		return nil, fmt.Errorf("fileindex: Java never writes an empty btree index file")
	}
	le := binary.LittleEndian
	var out, index []byte
	for i := 0; i < len(ents); i += blockEntries {
		blk := ents[i:min(i+blockEntries, len(ents))]
		var kvs []blockEntry
		for _, e := range blk {
			v := binary.AppendUvarint(nil, uint64(len(e.Ordinals)))
			for _, o := range e.Ordinals {
				v = binary.AppendUvarint(v, uint64(o))
			}
			kvs = append(kvs, blockEntry{e.Key, v})
		}
		off := len(out)
		var size int
		out, size = appendBTreeBlock(out, kvs)
		h := binary.AppendUvarint(nil, uint64(off))
		h = binary.AppendUvarint(h, uint64(size))
		index = append(index, encodeBlockEntry(blk[len(blk)-1].Key, h)...)
	}
	var nullOff, nullSize int
	if !nulls.IsEmpty() {
		nulls.RunOptimize()
		nb := le.AppendUint64(nil, 1)
		nb = le.AppendUint32(nb, 0)
		bm, err := nulls.ToBytes()
		if err != nil {
			return nil, err
		}
		nb = append(nb, bm...)
		nullOff, nullSize = len(out), len(nb)
		out = le.AppendUint32(append(out, nb...), crc32.ChecksumIEEE(nb))
	}
	var idxKVs []blockEntry
	for i := 0; i < len(index); {
		k, _ := lenBytes(index, &i)
		v, _ := lenBytes(index, &i)
		idxKVs = append(idxKVs, blockEntry{k, v})
	}
	idxOff := len(out)
	// No keys (all NULL): an empty UNALIGNED index block, as Java's
	// BlockWriter finishes one without entries.
	out, idxSize := appendBTreeBlock(out, idxKVs)
	out = append(out, make([]byte, 20)...) // no bloom filter
	out = le.AppendUint64(out, uint64(idxOff))
	out = le.AppendUint32(out, uint32(idxSize))
	out = le.AppendUint64(out, uint64(nullOff))
	out = le.AppendUint32(out, uint32(nullSize))
	out = le.AppendUint32(out, 1)
	return le.AppendUint32(out, btreeMagic), nil
}

func encodeBlockEntry(k, v []byte) []byte {
	b := binary.AppendUvarint(nil, uint64(len(k)))
	b = append(b, k...)
	b = binary.AppendUvarint(b, uint64(len(v)))
	return append(b, v...)
}

// appendBTreeBlock appends one block (entries, layout tail) and its
// trailer (compression 0, CRC); size is the block without the trailer.
func appendBTreeBlock(out []byte, kvs []blockEntry) ([]byte, int) {
	le := binary.LittleEndian
	var body, starts []byte
	same, first := true, 0
	for i, e := range kvs {
		starts = le.AppendUint32(starts, uint32(len(body)))
		enc := encodeBlockEntry(e.key, e.value)
		if i == 0 {
			first = len(enc)
		}
		same = same && len(enc) == first
		body = append(body, enc...)
	}
	var b []byte
	if same && len(kvs) > 0 {
		b = le.AppendUint32(body, uint32(len(body)/len(kvs)))
		b = append(b, 0)
	} else {
		b = append(body, starts...)
		b = le.AppendUint32(b, uint32(len(kvs)))
		b = append(b, 1)
	}
	out = append(out, b...)
	out = le.AppendUint32(append(out, 0), crc32.Update(crc32.ChecksumIEEE(b), crc32.IEEETable, []byte{0}))
	return out, len(b)
}

// btreeValueKey is the BTree key of a row value (no normalisation: -0.0
// stays -0.0; NaN canonical).
func btreeValueKey(t types.DataType, k kind, v any) (key, error) {
	if k == kindBigDecimal {
		d, ok := v.(predicate.Decimal)
		if !ok || d.Unscaled == nil || d.Scale != t.Scale {
			return key{}, fmt.Errorf("fileindex: value %v (%T) for %s", v, v, t)
		}
		return key{s: string(toByteArray(d.Unscaled))}, nil
	}
	if k == kindTSNanos {
		ts, ok := v.(predicate.Timestamp)
		if !ok || ts.NanoOfMilli < 0 || ts.NanoOfMilli > 999_999 {
			return key{}, fmt.Errorf("fileindex: value %v (%T) for %s", v, v, t)
		}
		return key{i: ts.Millis, n: ts.NanoOfMilli}, nil
	}
	return valueKey(t, k, v)
}

package fileindex

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"

	"github.com/RoaringBitmap/roaring/v2"
)

// BTree global index files (index type "btree" in the index manifest, with a
// _GLOBAL_INDEX entry), as Paimon Java 2.0 and paimon-cpp write them: a
// sorted-string-table of key → row ordinals. Layout (all fixed-width
// integers little endian, "varint" = unsigned LEB128):
//
//	data blocks, index block, [bloom filter], [null bitmap], footer (52 bytes)
//	footer: bloom filter handle (int64 offset, int32 size, int64 expected
//	        entries; all zero = none), index block handle (int64 offset,
//	        int32 size), null bitmap handle (int64 offset, int32 size; zero =
//	        none), int32 version (1), int32 magic 0x50425449 ("ITBP")
//	block:  entries (varint key length, key, varint value length, value),
//	        then either int32 entry size + byte 0 (ALIGNED: every entry has
//	        that size) or one int32 start offset per entry, int32 entry count
//	        + byte 1 (UNALIGNED); after the block a 5-byte trailer: byte
//	        compression (0 = none) and int32 CRC-32 (IEEE, java.util.zip.CRC32) of the block bytes and
//	        the compression byte
//	index block entry: key = last key of a data block, value = varint
//	        offset, varint size of that data block
//	data block entry: key = serialized key (INT: 4 bytes little endian),
//	        value = varint count n > 0, then n varint row ordinals
//
//	null bitmap: Roaring64NavigableMap.serializePortable of the ordinals
//	        whose key is NULL (uint64 LE bucket count, per bucket uint32 LE
//	        high bits + a portable 32-bit RoaringBitmap), then int32 LE
//	        CRC-32 of those bytes; the handle's size excludes the CRC
//
// The decoder checks every length, offset, restart position and checksum;
// it reads uncompressed blocks only, and does not read the bloom filter
// (its handle is reported; Java writes none).

const (
	btreeMagic      = 0x50425449
	btreeFooterSize = 52
	blockTrailer    = 5
)

// BTreeIndex is a decoded BTree global index file.
type BTreeIndex struct {
	Version    int32
	Entries    []BTreeEntry    // in file order (ascending key)
	HasBloom   bool            // a bloom filter block exists (not decoded)
	NullBitmap bool            // a null bitmap block exists
	Nulls      *roaring.Bitmap // ordinals whose key is NULL (empty without a null bitmap)
}

// BTreeEntry is one key and the row ordinals holding it.
type BTreeEntry struct {
	Key      []byte
	Ordinals []int64
}

// DecodeBTreeIndex decodes a BTree global index file.
func DecodeBTreeIndex(data []byte) (*BTreeIndex, error) {
	if len(data) < btreeFooterSize {
		return nil, fmt.Errorf("btree index: %d bytes, shorter than the %d-byte footer", len(data), btreeFooterSize)
	}
	f := data[len(data)-btreeFooterSize:]
	le := binary.LittleEndian
	if m := le.Uint32(f[48:]); m != btreeMagic {
		return nil, fmt.Errorf("btree index: magic %#x, want %#x", m, btreeMagic)
	}
	out := &BTreeIndex{Version: int32(le.Uint32(f[44:]))}
	if out.Version != 1 {
		return nil, fmt.Errorf("btree index: unsupported version %d", out.Version)
	}
	out.HasBloom = le.Uint64(f[0:]) != 0 || le.Uint32(f[8:]) != 0 || le.Uint64(f[12:]) != 0
	out.NullBitmap = le.Uint64(f[32:]) != 0 || le.Uint32(f[40:]) != 0
	body := len(data) - btreeFooterSize
	out.Nulls = roaring.New()
	if out.NullBitmap {
		nb, err := btreeNulls(data[:body], int64(le.Uint64(f[32:])), int64(int32(le.Uint32(f[40:]))))
		if err != nil {
			return nil, err
		}
		out.Nulls = nb
	}
	idx, err := btreeBlock(data, body, int64(le.Uint64(f[20:])), int64(int32(le.Uint32(f[28:]))), "index block")
	if err != nil {
		return nil, err
	}
	for i, e := range idx {
		off, n := uvarint(e.value)
		size, m := uvarint(e.value[max(n, 0):])
		if n <= 0 || m <= 0 || n+m != len(e.value) || off > uint64(body) || size > uint64(body) {
			return nil, fmt.Errorf("btree index: index entry %d: bad block handle", i)
		}
		ents, err := btreeBlock(data, body, int64(off), int64(size), "data block")
		if err != nil {
			return nil, err
		}
		for _, d := range ents {
			ords, err := btreeOrdinals(d.value)
			if err != nil {
				return nil, fmt.Errorf("btree index: data block at %d: %w", off, err)
			}
			out.Entries = append(out.Entries, BTreeEntry{Key: d.key, Ordinals: ords})
		}
	}
	return out, nil
}

// btreeNulls decodes the null bitmap block [off, off+size) followed by its
// CRC. Ordinals must fit in 31 bits (the callers' row counts do).
func btreeNulls(data []byte, off, size int64) (*roaring.Bitmap, error) {
	if off < 0 || size <= 0 || off > int64(len(data)) || size > int64(len(data))-off-4 {
		return nil, fmt.Errorf("btree index: null bitmap [%d, +%d) outside the file", off, size)
	}
	blk := data[off : off+size]
	if got, want := binary.LittleEndian.Uint32(data[off+size:]), crc32.ChecksumIEEE(blk); got != want {
		return nil, fmt.Errorf("btree index: null bitmap checksum %#x, want %#x", got, want)
	}
	// Roaring64NavigableMap portable: uint64 LE bucket count, per bucket
	// uint32 LE high 32 bits and a portable RoaringBitmap of the low bits.
	if len(blk) < 8 {
		return nil, fmt.Errorf("btree index: null bitmap of %d bytes", len(blk))
	}
	n := binary.LittleEndian.Uint64(blk)
	rest := blk[8:]
	out := roaring.New()
	for i := uint64(0); i < n; i++ {
		if len(rest) < 4 {
			return nil, fmt.Errorf("btree index: null bitmap: bucket %d truncated", i)
		}
		high := binary.LittleEndian.Uint32(rest)
		bm, used, err := readBitmap(rest[4:], "btree index: null bitmap")
		if err != nil {
			return nil, err
		}
		rest = rest[4+used:]
		if bm.IsEmpty() {
			continue
		}
		if high != 0 || bm.Maximum() >= 1<<31 {
			return nil, fmt.Errorf("btree index: null ordinal beyond 2^31")
		}
		out.Or(bm)
	}
	if len(rest) != 0 {
		return nil, fmt.Errorf("btree index: %d bytes after the null bitmap", len(rest))
	}
	return out, nil
}

type blockEntry struct{ key, value []byte }

// btreeBlock decodes the block [off, off+size) of data (limited to the first
// limit bytes) and checks its trailer.
// The index block may be empty (UNALIGNED with 0 entries: a file whose
// keys are all NULL); a data block may not.
func btreeBlock(data []byte, limit int, off, size int64, what string) ([]blockEntry, error) {
	allowEmpty := what == "index block"
	if off < 0 || size < 5 || off > int64(limit) || size > int64(limit)-off-blockTrailer {
		return nil, fmt.Errorf("btree index: %s [%d, +%d) outside the file", what, off, size)
	}
	blk := data[off : off+size]
	tr := data[off+size : off+size+blockTrailer]
	if tr[0] != 0 {
		return nil, fmt.Errorf("btree index: %s at %d: compression %d not supported", what, off, tr[0])
	}
	crc := crc32.Update(crc32.ChecksumIEEE(blk), crc32.IEEETable, tr[:1])
	if got := binary.LittleEndian.Uint32(tr[1:]); got != crc {
		return nil, fmt.Errorf("btree index: %s at %d: checksum %#x, want %#x", what, off, got, crc)
	}
	le := binary.LittleEndian
	typ := blk[len(blk)-1]
	n := int(int32(le.Uint32(blk[len(blk)-5:])))
	var end int
	var starts []byte
	switch typ {
	case 0: // aligned: n is the entry size
		end = len(blk) - 5
		if n <= 0 || end%n != 0 {
			return nil, fmt.Errorf("btree index: %s at %d: aligned entry size %d does not divide %d bytes", what, off, n, end)
		}
	case 1:
		if n < 0 || n == 0 && !allowEmpty || n > (len(blk)-5)/4 {
			return nil, fmt.Errorf("btree index: %s at %d: bad entry count %d", what, off, n)
		}
		end = len(blk) - 5 - 4*n
		starts = blk[end : len(blk)-5]
	default:
		return nil, fmt.Errorf("btree index: %s at %d: unknown block type %d", what, off, typ)
	}
	var out []blockEntry
	for i := 0; i < end; {
		if typ == 0 && i%n != 0 || typ == 1 && (len(out) >= n || int(le.Uint32(starts[4*len(out):])) != i) {
			return nil, fmt.Errorf("btree index: %s at %d: entry at %d does not match the block's layout", what, off, i)
		}
		k, err := lenBytes(blk[:end], &i)
		if err != nil {
			return nil, fmt.Errorf("btree index: %s at %d: key: %w", what, off, err)
		}
		v, err := lenBytes(blk[:end], &i)
		if err != nil {
			return nil, fmt.Errorf("btree index: %s at %d: value: %w", what, off, err)
		}
		out = append(out, blockEntry{k, v})
	}
	if len(out) == 0 && !allowEmpty || typ == 1 && len(out) != n || typ == 0 && len(out) != end/n {
		return nil, fmt.Errorf("btree index: %s at %d: %d entries do not match the block's layout", what, off, len(out))
	}
	return out, nil
}

// lenBytes reads a varint length and that many bytes at *i.
func lenBytes(b []byte, i *int) ([]byte, error) {
	l, n := uvarint(b[*i:])
	if n <= 0 || l > uint64(len(b)-*i-n) {
		return nil, fmt.Errorf("bad length at %d", *i)
	}
	*i += n
	v := b[*i : *i+int(l)]
	*i += int(l)
	return v, nil
}

// btreeOrdinals decodes a data-block value: varint count n > 0, n varints.
func btreeOrdinals(v []byte) ([]int64, error) {
	c, n := uvarint(v)
	if n <= 0 || c == 0 || c > uint64(len(v)-n) { // every ordinal takes at least a byte
		return nil, fmt.Errorf("bad ordinal count")
	}
	out := make([]int64, 0, c)
	v = v[n:]
	for range c {
		x, m := uvarint(v)
		if m <= 0 || x > 1<<62 {
			return nil, fmt.Errorf("bad ordinal")
		}
		out = append(out, int64(x))
		v = v[m:]
	}
	if len(v) != 0 {
		return nil, fmt.Errorf("%d bytes after the ordinals", len(v))
	}
	return out, nil
}

// uvarint is binary.Uvarint limited to 64 bits (n <= 0 on error).
func uvarint(b []byte) (uint64, int) { return binary.Uvarint(b) }

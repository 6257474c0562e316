package write

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"sort"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/paimon-flightsql/paimon-flightsql/paimon"
)

// Deletion vector index files (paimon-format.md §7.2). The deletion package
// had no encoder when the writer was built, so this is a private one.

const (
	dvIndexType   = "DELETION_VECTORS"
	dvMagic32     = 1581511376
	dvMagic64     = 1681511377
	dvFileVersion = 1
)

// encodeDVIndex encodes the deletion vectors of dvs (data file → deleted
// positions) as one index file, entries ordered by data file name. It
// returns the bytes and the DeletionVectorMeta ranges.
func encodeDVIndex(dvs map[string]*roaring.Bitmap, bitmap64 bool) ([]byte, []*dvRange, error) {
	names := make([]string, 0, len(dvs))
	for n, bm := range dvs {
		if bm != nil && !bm.IsEmpty() {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	var buf bytes.Buffer
	buf.WriteByte(dvFileVersion)
	ranges := []*dvRange{}
	for _, n := range names {
		bm := dvs[n].Clone()
		bm.RunOptimize()
		var body bytes.Buffer
		if bitmap64 {
			var magic [4]byte
			binary.LittleEndian.PutUint32(magic[:], dvMagic64)
			body.Write(magic[:])
			var hdr [12]byte
			binary.LittleEndian.PutUint64(hdr[:8], 1) // one 32-bit bitmap: key 0
			binary.LittleEndian.PutUint32(hdr[8:], 0)
			body.Write(hdr[:])
		} else {
			var magic [4]byte
			binary.BigEndian.PutUint32(magic[:], dvMagic32)
			body.Write(magic[:])
		}
		if _, err := bm.WriteTo(&body); err != nil {
			return nil, nil, fmt.Errorf("serialize deletion vector of %s: %w", n, err)
		}
		off := buf.Len()
		var w [4]byte
		binary.BigEndian.PutUint32(w[:], uint32(body.Len()))
		buf.Write(w[:])
		buf.Write(body.Bytes())
		binary.BigEndian.PutUint32(w[:], crc32.ChecksumIEEE(body.Bytes()))
		buf.Write(w[:])
		length := int32(body.Len())
		if bitmap64 {
			length += 8
		}
		card := int64(bm.GetCardinality())
		ranges = append(ranges, &dvRange{DataFile: n, Offset: int32(off), Length: length, Cardinality: &card})
	}
	return buf.Bytes(), ranges, nil
}

// decodeDV reads one deletion vector at [off, off+length) of an index file.
func decodeDV(data []byte, file string, off, length int32) (*roaring.Bitmap, error) {
	bad := func(msg string) error {
		return fmt.Errorf("%w: deletion vector index %s at offset %d: %s", paimon.ErrCorrupt, file, off, msg)
	}
	if off < 1 || int(off)+8 > len(data) {
		return nil, bad("offset out of range")
	}
	size := int32(binary.BigEndian.Uint32(data[off:]))
	magicBE := binary.BigEndian.Uint32(data[off+4:])
	magicLE := binary.LittleEndian.Uint32(data[off+4:])
	end := int(off) + 4 + int(size)
	if size < 4 || end > len(data) {
		return nil, bad("size out of range")
	}
	body := data[off+8 : end]
	switch {
	case magicBE == dvMagic32:
		if size != length {
			return nil, bad(fmt.Sprintf("length %d != size %d", length, size))
		}
		bm := roaring.New()
		if _, err := bm.ReadFrom(bytes.NewReader(body)); err != nil {
			return nil, bad(err.Error())
		}
		return bm, nil
	case magicLE == dvMagic64:
		if size != length-8 {
			return nil, bad(fmt.Sprintf("length %d != size %d + 8", length, size))
		}
		if len(body) < 8 {
			return nil, bad("truncated 64-bit bitmap")
		}
		count := binary.LittleEndian.Uint64(body)
		r := bytes.NewReader(body[8:])
		out := roaring.New()
		for i := uint64(0); i < count; i++ {
			var key uint32
			if err := binary.Read(r, binary.LittleEndian, &key); err != nil {
				return nil, bad("truncated 64-bit bitmap")
			}
			bm := roaring.New()
			if _, err := bm.ReadFrom(r); err != nil {
				return nil, bad(err.Error())
			}
			if key != 0 && !bm.IsEmpty() {
				return nil, bad("positions beyond 2^32 are not supported")
			}
			out.Or(bm)
		}
		return out, nil
	}
	return nil, bad("unknown magic number")
}

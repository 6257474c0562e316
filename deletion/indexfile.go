package deletion

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
)

// IndexVersion is the version byte at the start of a DV index file (VERSION_ID_V1).
const IndexVersion = 1

// Range locates one data file's vector inside an index file, as recorded in
// the index manifest's _DELETIONS_VECTORS_RANGES (DeletionVectorMeta):
// DataFile = f0, Offset = f1, Length = f2, Cardinality = _CARDINALITY
// (negative when unknown, e.g. in manifests written before it existed).
type Range struct {
	DataFile    string
	Offset      int64
	Length      int64
	Cardinality int64
}

// Entry is one vector read from an index file with its range. DataFile is
// only known when the entry was located through a Range.
type Entry struct {
	Range
	Vector Vector
}

// NamedVector pairs a data file name with its vector, for writing.
type NamedVector struct {
	DataFile string
	Vector   Vector
}

// EncodeEntry frames a vector as an index-file entry
// (BE size | body | BE CRC32 of body) and returns it with the length the
// index manifest records for it (size for 32-bit, the whole entry for 64-bit).
func EncodeEntry(v Vector) (entry []byte, length int64, err error) {
	body, err := v.MarshalBinary()
	if err != nil {
		return nil, 0, err
	}
	if len(body) > math.MaxInt32 {
		return nil, 0, fmt.Errorf("deletion: vector body of %d bytes too large", len(body))
	}
	entry = make([]byte, 4, len(body)+8)
	binary.BigEndian.PutUint32(entry, uint32(len(body)))
	entry = append(entry, body...)
	entry = binary.BigEndian.AppendUint32(entry, crc32.ChecksumIEEE(body))
	if v.Is64() {
		return entry, int64(len(entry)), nil
	}
	return entry, int64(len(body)), nil
}

// EncodeIndexFile writes a DV index file holding vectors in the given order
// and returns its bytes and the ranges (with cardinalities) to record in the
// index manifest. An empty list gives the 1-byte file Java writes.
func EncodeIndexFile(vectors []NamedVector) ([]byte, []Range, error) {
	out := []byte{IndexVersion}
	ranges := make([]Range, 0, len(vectors))
	for _, nv := range vectors {
		entry, length, err := EncodeEntry(nv.Vector)
		if err != nil {
			return nil, nil, fmt.Errorf("deletion: data file %s: %w", nv.DataFile, err)
		}
		ranges = append(ranges, Range{DataFile: nv.DataFile, Offset: int64(len(out)), Length: length, Cardinality: nv.Vector.Cardinality()})
		out = append(out, entry...)
	}
	return out, ranges, nil
}

// ReadVector reads and verifies the vector of one data file from an index
// file of size bytes, at the given range. file names the index file in
// errors. The entry's framing, size (against rng.Length), CRC and, when
// rng.Cardinality >= 0, cardinality are all checked.
func ReadVector(file string, r io.ReaderAt, size int64, rng Range) (Vector, error) {
	fail := func(cause error, format string, a ...any) error {
		msg := fmt.Sprintf(format, a...)
		if msg != "" {
			msg = ": " + msg
		}
		return fmt.Errorf("deletion: index file %s, data file %s at offset %d: %w%s", file, rng.DataFile, rng.Offset, cause, msg)
	}
	if rng.Offset < 1 || rng.Offset > size-8 {
		return nil, fail(ErrCorrupt, "entry offset outside the %d-byte file", size)
	}
	var hdr [8]byte
	if _, err := r.ReadAt(hdr[:], rng.Offset); err != nil {
		return nil, fail(err, "reading entry header")
	}
	bodySize := int64(int32(binary.BigEndian.Uint32(hdr[:4])))
	is64 := false
	switch {
	case int32(binary.BigEndian.Uint32(hdr[4:])) == Magic32:
		if rng.Length >= 0 && bodySize != rng.Length {
			return nil, fail(ErrCorrupt, "size not match, actual size: %d, expected size: %d", bodySize, rng.Length)
		}
	case int32(binary.LittleEndian.Uint32(hdr[4:])) == Magic64:
		is64 = true
		if rng.Length >= 0 && bodySize != rng.Length-8 {
			return nil, fail(ErrCorrupt, "size not match, actual size: %d, expected size: %d (64-bit entry length %d includes size and CRC)", bodySize, rng.Length-8, rng.Length)
		}
	default:
		return nil, fail(ErrCorrupt, "invalid magic number %d", int32(binary.BigEndian.Uint32(hdr[4:])))
	}
	if bodySize < 4 || bodySize > size-rng.Offset-8 {
		return nil, fail(ErrCorrupt, "entry size %d exceeds the %d-byte file", bodySize, size)
	}
	buf := make([]byte, bodySize+4)
	if _, err := r.ReadAt(buf, rng.Offset+4); err != nil {
		return nil, fail(err, "reading entry")
	}
	body := buf[:bodySize]
	if want, got := binary.BigEndian.Uint32(buf[bodySize:]), crc32.ChecksumIEEE(body); want != got {
		return nil, fail(ErrCorrupt, "CRC32 mismatch: stored 0x%08X, computed 0x%08X", want, got)
	}
	v, err := Unmarshal(body)
	if err != nil {
		return nil, fail(err, "")
	}
	if v.Is64() != is64 {
		return nil, fail(ErrCorrupt, "magic changed between header and body")
	}
	if rng.Cardinality >= 0 && v.Cardinality() != rng.Cardinality {
		return nil, fail(ErrCorrupt, "cardinality %d, index manifest says %d", v.Cardinality(), rng.Cardinality)
	}
	return v, nil
}

// checkVersion validates the version byte of an index file.
func checkVersion(file string, data []byte) error {
	if len(data) == 0 {
		return fmt.Errorf("deletion: index file %s: %w: empty file", file, ErrCorrupt)
	}
	if data[0] != IndexVersion {
		return fmt.Errorf("deletion: index file %s: %w: version %d, only version %d is supported", file, ErrCorrupt, data[0], IndexVersion)
	}
	return nil
}

// ReadIndexFile reads the vectors of the given ranges from a whole index
// file held in memory, keyed by data file name.
func ReadIndexFile(file string, data []byte, ranges []Range) (map[string]Vector, error) {
	if err := checkVersion(file, data); err != nil {
		return nil, err
	}
	out := make(map[string]Vector, len(ranges))
	ra := bytesReaderAt(data)
	for _, rng := range ranges {
		if _, dup := out[rng.DataFile]; dup {
			return nil, fmt.Errorf("deletion: index file %s: data file %s listed twice", file, rng.DataFile)
		}
		v, err := ReadVector(file, ra, int64(len(data)), rng)
		if err != nil {
			return nil, err
		}
		out[rng.DataFile] = v
	}
	return out, nil
}

// DecodeIndexFile decodes every entry of an index file sequentially, without
// the index manifest (entries tile the file from byte 1). The returned
// ranges have no DataFile; their Length follows the manifest convention.
func DecodeIndexFile(file string, data []byte) ([]Entry, error) {
	if err := checkVersion(file, data); err != nil {
		return nil, err
	}
	var out []Entry
	ra := bytesReaderAt(data)
	for off := int64(1); off < int64(len(data)); {
		if int64(len(data))-off < 8 {
			return nil, fmt.Errorf("deletion: index file %s at offset %d: %w: %d trailing bytes", file, off, ErrCorrupt, int64(len(data))-off)
		}
		bodySize := int64(int32(binary.BigEndian.Uint32(data[off:])))
		v, err := ReadVector(file, ra, int64(len(data)), Range{Offset: off, Length: -1, Cardinality: -1})
		if err != nil {
			return nil, err
		}
		length := bodySize
		if v.Is64() {
			length = bodySize + 8
		}
		out = append(out, Entry{Range: Range{Offset: off, Length: length, Cardinality: v.Cardinality()}, Vector: v})
		off += bodySize + 8
	}
	return out, nil
}

type bytesReaderAt []byte

func (b bytesReaderAt) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 || off > int64(len(b)) {
		return 0, errors.New("offset out of range")
	}
	n := copy(p, b[off:])
	if n < len(p) {
		return n, io.ErrUnexpectedEOF
	}
	return n, nil
}

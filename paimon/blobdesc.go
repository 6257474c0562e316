package paimon

import (
	"encoding/binary"
	"fmt"
	"strings"
)

// BlobDescriptor is Paimon's serialized reference to a BLOB value stored in
// another file (org.apache.paimon.data.BlobDescriptor): the bytes
// [Offset, Offset+Length) of the file at URI. Tables list the BLOB columns
// stored this way, inline in their data files, in blob-descriptor-field.
type BlobDescriptor struct {
	Version byte
	URI     string
	Offset  int64
	Length  int64
}

// blobDescriptorMagic is "BLOBDESC" as a little-endian long (version 2+).
const blobDescriptorMagic = 0x424C4F4244455343

// ParseBlobDescriptor decodes a serialized descriptor (little-endian:
// version byte, magic long (version >= 2), URI length int, URI bytes, offset
// long, length long). Damaged input is an error wrapping ErrCorrupt.
func ParseBlobDescriptor(b []byte) (BlobDescriptor, error) {
	bad := func(what string) (BlobDescriptor, error) {
		return BlobDescriptor{}, fmt.Errorf("%w: blob descriptor: %s", ErrCorrupt, what)
	}
	if len(b) < 1 {
		return bad("empty")
	}
	d := BlobDescriptor{Version: b[0]}
	if d.Version > 2 {
		return BlobDescriptor{}, fmt.Errorf("%w: blob descriptor version %d (this reader knows versions 1 and 2)", ErrUnsupported, d.Version)
	}
	b = b[1:]
	if d.Version > 1 {
		if len(b) < 8 {
			return bad("too short")
		}
		if binary.LittleEndian.Uint64(b) != blobDescriptorMagic {
			return bad("missing BLOBDESC magic")
		}
		b = b[8:]
	}
	if len(b) < 4 {
		return bad("too short")
	}
	n := int64(int32(binary.LittleEndian.Uint32(b)))
	b = b[4:]
	if n < 0 || n > int64(len(b)) || int64(len(b))-n < 16 {
		return bad("bad URI length")
	}
	d.URI = string(b[:n])
	b = b[n:]
	d.Offset = int64(binary.LittleEndian.Uint64(b))
	d.Length = int64(binary.LittleEndian.Uint64(b[8:]))
	if d.Offset < 0 || d.Length < 0 {
		return bad(fmt.Sprintf("negative offset %d or length %d", d.Offset, d.Length))
	}
	return d, nil
}

// BlobDescriptorFields returns the columns of blob-descriptor-field (or its
// fallback key blob.stored-descriptor-fields): BLOB columns whose data files
// hold serialized BlobDescriptors instead of the bytes.
func (s *TableSchema) BlobDescriptorFields() map[string]bool {
	v := s.Option("blob-descriptor-field", "")
	if v == "" {
		v = s.Option("blob.stored-descriptor-fields", "")
	}
	out := map[string]bool{}
	for _, n := range strings.Split(v, ",") {
		if n = strings.TrimSpace(n); n != "" {
			out[n] = true
		}
	}
	return out
}

package paimon

import (
	"testing"
)

// FuzzParseBlobDescriptor: arbitrary bytes give a descriptor or an error.
func FuzzParseBlobDescriptor(f *testing.F) {
	f.Add([]byte{2, 0x43, 0x53, 0x45, 0x44, 0x42, 0x4f, 0x4c, 0x42, 1, 0, 0, 0, 'x', 1, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0})
	f.Add([]byte{1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := ParseBlobDescriptor(b)
		if err == nil && (d.Offset < 0 || d.Length < 0 || len(d.URI) > len(b)) {
			t.Fatalf("bad descriptor %+v", d)
		}
	})
}

func TestParseBlobDescriptor(t *testing.T) {
	b := []byte{2, 0x43, 0x53, 0x45, 0x44, 0x42, 0x4f, 0x4c, 0x42, 1, 0, 0, 0, 'x', 1, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0}
	d, err := ParseBlobDescriptor(b)
	if err != nil || d.URI != "x" || d.Offset != 1 || d.Length != 2 || d.Version != 2 {
		t.Fatalf("%+v %v", d, err)
	}
	// Version 1 has no magic.
	d, err = ParseBlobDescriptor([]byte{1, 1, 0, 0, 0, 'y', 3, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0})
	if err != nil || d.URI != "y" || d.Offset != 3 || d.Length != 4 {
		t.Fatalf("v1: %+v %v", d, err)
	}
	for _, bad := range [][]byte{nil, {3}, {2, 1, 2, 3}, b[:20], append([]byte{2, 0, 0, 0, 0, 0, 0, 0, 0}, b[9:]...)} {
		if _, err := ParseBlobDescriptor(bad); err == nil {
			t.Fatalf("%v parsed", bad)
		}
	}
}

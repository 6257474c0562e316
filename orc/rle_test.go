package orc

import (
	"errors"
	"slices"
	"testing"
)

func TestVarint(t *testing.T) {
	// Base 128 varint table of the specification.
	cases := []struct {
		in   []byte
		want uint64
	}{
		{[]byte{0x00}, 0}, {[]byte{0x01}, 1}, {[]byte{0x7f}, 127},
		{[]byte{0x80, 0x01}, 128}, {[]byte{0x81, 0x01}, 129},
		{[]byte{0xff, 0x7f}, 16383}, {[]byte{0x80, 0x80, 0x01}, 16384},
		{[]byte{0x81, 0x80, 0x01}, 16385},
	}
	for _, c := range cases {
		got, next, err := readUvarint(c.in, 0)
		if err != nil || got != c.want || next != len(c.in) {
			t.Errorf("readUvarint(% x) = %d, %d, %v; want %d", c.in, got, next, err, c.want)
		}
	}
	// Zigzag table.
	for u, want := range []int64{0, -1, 1, -2, 2} {
		if got := unZigZag(uint64(u)); got != want {
			t.Errorf("unZigZag(%d) = %d, want %d", u, got, want)
		}
	}
	if _, _, err := readUvarint([]byte{0x80, 0x80}, 0); !errors.Is(err, errCorrupt) {
		t.Errorf("truncated varint: err = %v", err)
	}
	if _, _, err := readUvarint([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f}, 0); !errors.Is(err, errCorrupt) {
		t.Errorf("overlong varint: err = %v", err)
	}
}

func TestByteRLE(t *testing.T) {
	// "a hundred 0's is encoded as [0x61, 0x00] and the sequence 0x44, 0x45
	// would be encoded as [0xfe, 0x44, 0x45]".
	r := byteRLE{src: []byte{0x61, 0x00, 0xfe, 0x44, 0x45}}
	got := make([]byte, 102)
	// Read in uneven pieces to exercise the run state.
	if err := r.next(got[:37]); err != nil {
		t.Fatal(err)
	}
	if err := r.next(got[37:101]); err != nil {
		t.Fatal(err)
	}
	if err := r.next(got[101:]); err != nil {
		t.Fatal(err)
	}
	want := append(make([]byte, 100), 0x44, 0x45)
	if !slices.Equal(got, want) {
		t.Errorf("got % x", got)
	}
	if err := r.next(make([]byte, 1)); !errors.Is(err, errCorrupt) {
		t.Errorf("reading past the end: err = %v", err)
	}
	r = byteRLE{src: []byte{0xfd, 0x01}} // 3 literals, 1 present
	if err := r.next(make([]byte, 3)); !errors.Is(err, errCorrupt) {
		t.Errorf("truncated literals: err = %v", err)
	}
}

func TestBoolRLE(t *testing.T) {
	// "the byte sequence [0xff, 0x80] would be one true followed by seven
	// false values" — encoded with byte RLE as 2 literals.
	r := boolRLE{bytes: byteRLE{src: []byte{0xfe, 0xff, 0x80}}}
	got := make([]bool, 16)
	if err := r.next(got[:3]); err != nil {
		t.Fatal(err)
	}
	if err := r.next(got[3:]); err != nil {
		t.Fatal(err)
	}
	want := []bool{true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false}
	if !slices.Equal(got, want) {
		t.Errorf("got %v", got)
	}
}

func readInts(t *testing.T, r intReader, n int) []int64 {
	t.Helper()
	got := make([]int64, n)
	// Two reads so that runs are split across calls.
	if err := r.next(got[:n/2]); err != nil {
		t.Fatal(err)
	}
	if err := r.next(got[n/2:]); err != nil {
		t.Fatal(err)
	}
	return got
}

func TestIntRLEv1(t *testing.T) {
	// 100 instances of 7: [0x61, 0x00, 0x07].
	got := readInts(t, &rleV1{src: []byte{0x61, 0x00, 0x07}}, 100)
	for i, v := range got {
		if v != 7 {
			t.Fatalf("value %d = %d", i, v)
		}
	}
	// 100 down to 1: [0x61, 0xff, 0x64].
	got = readInts(t, &rleV1{src: []byte{0x61, 0xff, 0x64}}, 100)
	for i, v := range got {
		if v != int64(100-i) {
			t.Fatalf("value %d = %d", i, v)
		}
	}
	// Literals [2, 3, 6, 7, 11]: [0xfb, 0x02, 0x03, 0x06, 0x07, 0xb].
	got = readInts(t, &rleV1{src: []byte{0xfb, 0x02, 0x03, 0x06, 0x07, 0xb}}, 5)
	if want := []int64{2, 3, 6, 7, 11}; !slices.Equal(got, want) {
		t.Errorf("literals: got %v", got)
	}
	// Signed: zigzag 3 = -2.
	got = readInts(t, &rleV1{src: []byte{0xfe, 0x03, 0x04}, signed: true}, 2)
	if want := []int64{-2, 2}; !slices.Equal(got, want) {
		t.Errorf("signed literals: got %v", got)
	}
	if err := (&rleV1{src: []byte{0x61, 0x00}}).next(make([]int64, 1)); !errors.Is(err, errCorrupt) {
		t.Errorf("truncated run: err = %v", err)
	}
}

func TestIntRLEv2(t *testing.T) {
	cases := []struct {
		name string
		in   []byte
		want []int64
	}{
		{"short repeat", []byte{0x0a, 0x27, 0x10}, []int64{10000, 10000, 10000, 10000, 10000}},
		{"direct", []byte{0x5e, 0x03, 0x5c, 0xa1, 0xab, 0x1e, 0xde, 0xad, 0xbe, 0xef},
			[]int64{23713, 43806, 57005, 48879}},
		{"patched base", []byte{0x8e, 0x13, 0x2b, 0x21, 0x07, 0xd0, 0x1e, 0x00, 0x14, 0x70, 0x28, 0x32,
			0x3c, 0x46, 0x50, 0x5a, 0x64, 0x6e, 0x78, 0x82, 0x8c, 0x96, 0xa0, 0xaa, 0xb4, 0xbe, 0xfc, 0xe8},
			[]int64{2030, 2000, 2020, 1000000, 2040, 2050, 2060, 2070, 2080, 2090, 2100, 2110, 2120,
				2130, 2140, 2150, 2160, 2170, 2180, 2190}},
		{"delta", []byte{0xc6, 0x09, 0x02, 0x02, 0x22, 0x42, 0x42, 0x46},
			[]int64{2, 3, 5, 7, 11, 13, 17, 19, 23, 29}},
	}
	var all []byte
	var allWant []int64
	for _, c := range cases {
		got := readInts(t, &rleV2{src: c.in}, len(c.want))
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: got %v\nwant %v", c.name, got, c.want)
		}
		all = append(all, c.in...)
		allWant = append(allWant, c.want...)
	}
	// The four runs back to back, read across run boundaries.
	if got := readInts(t, &rleV2{src: all}, len(allWant)); !slices.Equal(got, allWant) {
		t.Errorf("concatenated: got %v", got)
	}

	// Signed variants: short repeat of zigzag 3 = -2; a decreasing delta
	// run with fixed delta -3 (width 0) from base -1.
	got := readInts(t, &rleV2{src: []byte{0x00, 0x03}, signed: true}, 3)
	if want := []int64{-2, -2, -2}; !slices.Equal(got, want) {
		t.Errorf("signed short repeat: got %v", got)
	}
	got = readInts(t, &rleV2{src: []byte{0xc0, 0x04, 0x01, 0x05}, signed: true}, 5)
	if want := []int64{-1, -4, -7, -10, -13}; !slices.Equal(got, want) {
		t.Errorf("signed fixed delta: got %v", got)
	}
	// Patched base with a negative base: base width 1 byte, 0x81 = -1,
	// width 8, two values [0, 5], no patches -> [-1, 4].
	got = readInts(t, &rleV2{src: []byte{0x8e, 0x01, 0x07, 0x00, 0x81, 0x00, 0x05}}, 2)
	if want := []int64{-1, 4}; !slices.Equal(got, want) {
		t.Errorf("negative base: got %v", got)
	}

	for _, bad := range [][]byte{
		{0x0a, 0x27},             // short repeat missing a byte
		{0x5e, 0x03, 0x5c, 0xa1}, // direct missing values
		{0x8e, 0x13, 0x2b},       // patched base header truncated
		{0x8e, 0x00, 0x07, 0x21, 0x00, 0x00, 0xff, 0xff}, // patch index beyond run
		{0xc6, 0x09, 0x02}, // delta missing delta base
	} {
		if err := (&rleV2{src: bad}).next(make([]int64, 4)); !errors.Is(err, errCorrupt) {
			t.Errorf("% x: err = %v, want corrupt data", bad, err)
		}
	}
}

func TestWidthTables(t *testing.T) {
	wantWidth := map[byte]int{0: 1, 1: 2, 3: 4, 7: 8, 15: 16, 23: 24, 24: 26, 25: 28, 26: 30, 27: 32, 28: 40, 29: 48, 30: 56, 31: 64}
	for code, w := range wantWidth {
		if got := decodeWidth(code); got != w {
			t.Errorf("decodeWidth(%d) = %d, want %d", code, got, w)
		}
	}
	wantFixed := map[int]int{1: 1, 24: 24, 25: 26, 26: 26, 27: 28, 29: 30, 31: 32, 33: 40, 41: 48, 49: 56, 57: 64, 64: 64}
	for n, w := range wantFixed {
		if got := closestFixedBits(n); got != w {
			t.Errorf("closestFixedBits(%d) = %d, want %d", n, got, w)
		}
	}
}

func TestDecimalVarint(t *testing.T) {
	cases := []struct {
		in     []byte
		hi     int64
		lo     uint64
		nbytes int
	}{
		{[]byte{0x00}, 0, 0, 1},
		{[]byte{0x01}, -1, ^uint64(0), 1},       // zigzag 1 = -1
		{[]byte{0x80, 0x01}, 0, 64, 2},          // zigzag 128 = 64
		{[]byte{0xfe, 0xff, 0x03}, 0, 32767, 3}, // zigzag 65534 = 32767
		// 2^64 needs 65 bits: zigzag 2^65 = bytes of 2^65 in base 128.
		{[]byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x04}, 1, 0, 10},
	}
	for _, c := range cases {
		hi, lo, next, err := readVarint128(c.in, 0)
		if err != nil || hi != c.hi || lo != c.lo || next != c.nbytes {
			t.Errorf("readVarint128(% x) = %d,%d,%d,%v; want %d,%d", c.in, hi, lo, next, err, c.hi, c.lo)
		}
	}
	tooBig := append(slices.Repeat([]byte{0xff}, 18), 0x7f)
	if _, _, _, err := readVarint128(tooBig, 0); !errors.Is(err, errCorrupt) {
		t.Errorf("133-bit varint: err = %v", err)
	}
}

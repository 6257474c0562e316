package deletion

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/RoaringBitmap/roaring/v2/roaring64"
	"github.com/hamba/avro/v2/ocf"

	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
)

func positions(v Vector) []int64 { return slices.Collect(v.Positions()) }

const compatDir = "apache-paimon/paimon-core/src/test/resources/compatibility"

// The Java-written dvindex-32 file (DeletionVectorsIndexFileTest.testReadOldDeletionVector32Bit).
func TestJavaDVIndex32(t *testing.T) {
	path := filepath.Join(testutil.Fixture(t, compatDir), "dvindex-32")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	entries, err := DecodeIndexFile(path, data)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		off, length int64
		pos         []int64
	}{{1, 24, []int64{2, 3}}, {33, 22, []int64{1}}}
	if len(entries) != len(want) {
		t.Fatalf("%d entries", len(entries))
	}
	for i, w := range want {
		e := entries[i]
		if e.Offset != w.off || e.Length != w.length || e.Cardinality != int64(len(w.pos)) || e.Vector.Is64() {
			t.Errorf("entry %d: %+v", i, e.Range)
		}
		if got := positions(e.Vector); !slices.Equal(got, w.pos) {
			t.Errorf("entry %d positions %v want %v", i, got, w.pos)
		}
	}
	// Through the manifest ranges.
	m, err := ReadIndexFile(path, data, []Range{{"a", 1, 24, 2}, {"b", 33, 22, 1}})
	if err != nil || !m["a"].IsDeleted(3) || m["a"].IsDeleted(1) || !m["b"].IsDeleted(1) {
		t.Fatalf("ReadIndexFile: %v %v", m, err)
	}
	// Go's roaring output is byte-identical to Java's for these vectors.
	a, _ := NewBitmap32Of(2, 3)
	b, _ := NewBitmap32Of(1)
	enc, ranges, err := EncodeIndexFile([]NamedVector{{"a", a}, {"b", b}})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(enc, data) {
		t.Errorf("re-encoded index file differs:\n got %x\nwant %x", enc, data)
	}
	if ranges[1] != (Range{"b", 33, 22, 1}) {
		t.Errorf("ranges %+v", ranges)
	}
}

// unwrap removes hamba/avro's generic union wrappers.
func unwrap(v any) any {
	for {
		m, ok := v.(map[string]any)
		if !ok || len(m) != 1 {
			return v
		}
		var k string
		for k = range m {
		}
		if !strings.Contains(k, ".") && k != "array" {
			return v
		}
		v = m[k]
	}
}

type dvFile struct {
	path   string
	ranges []Range
}

// fixtureDVFiles reads every index manifest of the fixture tables and
// returns the DELETION_VECTORS index files with their ranges.
func fixtureDVFiles(t testing.TB) []dvFile {
	root := testutil.FixturesDir(t)
	manifests, _ := filepath.Glob(filepath.Join(root, "*", "*", "*.db", "*", "manifest", "index-manifest-*"))
	byPath := map[string]dvFile{}
	for _, mp := range manifests {
		f, err := os.Open(mp)
		if err != nil {
			t.Fatal(err)
		}
		d, err := ocf.NewDecoder(f)
		if err != nil {
			f.Close()
			continue // not Avro
		}
		for d.HasNext() {
			var rec any
			if err := d.Decode(&rec); err != nil {
				t.Fatalf("%s: %v", mp, err)
			}
			r := unwrap(rec).(map[string]any)
			if r["_INDEX_TYPE"] != "DELETION_VECTORS" {
				continue
			}
			path := filepath.Join(filepath.Dir(filepath.Dir(mp)), "index", r["_FILE_NAME"].(string))
			df := dvFile{path: path}
			rs, _ := unwrap(r["_DELETIONS_VECTORS_RANGES"]).([]any)
			for _, x := range rs {
				m := unwrap(x).(map[string]any)
				rng := Range{DataFile: m["f0"].(string), Offset: int64(m["f1"].(int)), Length: int64(m["f2"].(int)), Cardinality: -1}
				if c, ok := unwrap(m["_CARDINALITY"]).(int64); ok {
					rng.Cardinality = c
				}
				df.ranges = append(df.ranges, rng)
			}
			byPath[path] = df
		}
		f.Close()
	}
	var out []dvFile
	for _, df := range byPath {
		out = append(out, df)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].path < out[j].path })
	return out
}

// TestFixtureDVFiles reads every DV index file of the fixture tables through
// its index-manifest ranges, and re-encodes it byte-identically.
func TestFixtureDVFiles(t *testing.T) {
	files := fixtureDVFiles(t)
	if len(files) < 4 {
		t.Fatalf("found %d DV index files", len(files))
	}
	vectors := 0
	for _, df := range files {
		data, err := os.ReadFile(df.path)
		if err != nil {
			t.Fatal(err)
		}
		m, err := ReadIndexFile(df.path, data, df.ranges)
		if err != nil {
			t.Fatal(err)
		}
		seq, err := DecodeIndexFile(df.path, data)
		if err != nil {
			t.Fatal(err)
		}
		if len(seq) != len(df.ranges) {
			t.Errorf("%s: %d sequential entries, %d ranges", df.path, len(seq), len(df.ranges))
		}
		ordered := slices.Clone(df.ranges)
		sort.Slice(ordered, func(i, j int) bool { return ordered[i].Offset < ordered[j].Offset })
		var nvs []NamedVector
		for _, r := range ordered {
			nvs = append(nvs, NamedVector{r.DataFile, m[r.DataFile]})
			vectors++
		}
		enc, ranges, err := EncodeIndexFile(nvs)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(enc, data) {
			t.Errorf("%s: re-encoding differs\n got %x\nwant %x", df.path, enc, data)
		}
		for i, r := range ranges {
			if r.Offset != ordered[i].Offset || r.Length != ordered[i].Length {
				t.Errorf("%s: range %+v, manifest says %+v", df.path, r, ordered[i])
			}
		}
	}
	t.Logf("%d fixture DV index files, %d vectors: read via manifest ranges and re-encoded byte-identically", len(files), vectors)
}

// TestBitmap64Layout checks the 64-bit entry framing of spec §7.2 /
// pitfall 10 against hand-built bytes and the roaring64 portable format.
func TestBitmap64Layout(t *testing.T) {
	v, err := NewBitmap64Of(5, 1<<32|7, 2<<32)
	if err != nil {
		t.Fatal(err)
	}
	body, err := v.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(body[:4], []byte{0xD1, 0xD3, 0x39, 0x64}) {
		t.Errorf("magic bytes %x", body[:4])
	}
	// Hand-built: count, then key + 32-bit portable bitmap per key.
	var want bytes.Buffer
	want.Write(body[:4])
	binary.Write(&want, binary.LittleEndian, uint64(3))
	for k, low := range []uint32{5, 7, 0} {
		binary.Write(&want, binary.LittleEndian, uint32(k))
		b, _ := NewBitmap32Of(int64(low))
		bb, _ := b.MarshalBinary()
		want.Write(bb[4:])
	}
	if !bytes.Equal(body, want.Bytes()) {
		t.Errorf("body\n got %x\nwant %x", body, want.Bytes())
	}
	// roaring64's portable format is the same body when no key is empty.
	r64 := roaring64.BitmapOf(5, 1<<32|7, 2<<32)
	var rb bytes.Buffer
	if _, err := r64.WriteTo(&rb); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(body[4:], rb.Bytes()) {
		t.Errorf("differs from roaring64 portable format:\n got %x\nwant %x", body[4:], rb.Bytes())
	}
	entry, length, err := EncodeEntry(v)
	if err != nil {
		t.Fatal(err)
	}
	if length != int64(len(entry)) || int(binary.BigEndian.Uint32(entry)) != len(body) ||
		binary.BigEndian.Uint32(entry[len(entry)-4:]) != crc32.ChecksumIEEE(body) {
		t.Errorf("64-bit entry framing wrong: length %d, entry %x", length, entry)
	}
	file, ranges, err := EncodeIndexFile([]NamedVector{{"x", v}, {"y", mustV32(t, 9)}})
	if err != nil {
		t.Fatal(err)
	}
	if ranges[0].Length != int64(len(body))+8 || ranges[1].Offset != 1+ranges[0].Length || ranges[1].Length != 4+int64(len(mustBody(t, mustV32(t, 9)))-4) {
		t.Errorf("ranges %+v", ranges)
	}
	m, err := ReadIndexFile("f", file, ranges)
	if err != nil {
		t.Fatal(err)
	}
	if got := positions(m["x"]); !slices.Equal(got, []int64{5, 1<<32 | 7, 2 << 32}) || !m["x"].Is64() {
		t.Errorf("x = %v", got)
	}
	// A 64-bit body with a gap between keys (legal for Java/Iceberg readers).
	var gap bytes.Buffer
	gap.Write(body[:4])
	binary.Write(&gap, binary.LittleEndian, uint64(1))
	binary.Write(&gap, binary.LittleEndian, uint32(3))
	b, _ := NewBitmap32Of(1)
	bb, _ := b.MarshalBinary()
	gap.Write(bb[4:])
	g, err := Unmarshal(gap.Bytes())
	if err != nil || !g.IsDeleted(3<<32|1) || g.Cardinality() != 1 {
		t.Errorf("gap body: %v %v", g, err)
	}
}

func mustV32(t *testing.T, p ...int64) *Bitmap32 {
	v, err := NewBitmap32Of(p...)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func mustBody(t *testing.T, v Vector) []byte {
	b, err := v.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestVectorOps(t *testing.T) {
	a := mustV32(t, 1, 5, 100000)
	if !a.IsDeleted(5) || a.IsDeleted(6) || a.IsDeleted(-1) || a.IsDeleted(1<<40) || a.Cardinality() != 3 || a.IsEmpty() {
		t.Error("Bitmap32 basics")
	}
	if err := a.Add(1 << 31); err == nil {
		t.Error("Bitmap32.Add(2^31): no error")
	}
	if err := a.Merge(mustV32(t, 2, 5)); err != nil || !slices.Equal(positions(a), []int64{1, 2, 5, 100000}) {
		t.Errorf("merge32: %v %v", positions(a), err)
	}
	b, _ := NewBitmap64Of(1 << 33)
	if err := b.Merge(a); err != nil || b.Cardinality() != 5 || !b.IsDeleted(100000) {
		t.Errorf("merge64: %v %v", positions(b), err)
	}
	if err := a.Merge(b); err == nil {
		t.Error("merging a large 64-bit vector into 32-bit: no error")
	}
	small, _ := NewBitmap64Of(7)
	if err := a.Merge(small); err != nil || !a.IsDeleted(7) {
		t.Errorf("merge64 into 32: %v", err)
	}
	for _, v := range []Vector{a, b, NewBitmap32(), NewBitmap64()} {
		body := mustBody(t, v)
		back, err := Unmarshal(body)
		if err != nil || !slices.Equal(positions(back), positions(v)) || back.Is64() != v.Is64() {
			t.Errorf("round trip %v: %v %v", positions(v), positions(back), err)
		}
	}
	// Runs are run-optimized, as Java's serialization is.
	run := NewBitmap32()
	for i := int64(0); i < 10000; i++ {
		_ = run.Add(i)
	}
	if n := len(mustBody(t, run)); n > 64 {
		t.Errorf("10000-position run serialized to %d bytes", n)
	}
}

func TestCorruptIndexFiles(t *testing.T) {
	v := mustV32(t, 2, 3)
	file, ranges, _ := EncodeIndexFile([]NamedVector{{"data-1.parquet", v}})
	flip := func(i int) []byte { b := slices.Clone(file); b[i] ^= 0x40; return b }
	cases := map[string]struct {
		data []byte
		rng  Range
		msg  string
	}{
		"crc":         {flip(len(file) - 1), ranges[0], "CRC32 mismatch"},
		"bitmap byte": {flip(20), ranges[0], "CRC32 mismatch"},
		"magic":       {flip(6), ranges[0], "invalid magic"},
		"length":      {file, Range{"data-1.parquet", 1, ranges[0].Length + 1, -1}, "size not match"},
		"offset":      {file, Range{"data-1.parquet", 100, ranges[0].Length, -1}, "outside"},
		"cardinality": {file, Range{"data-1.parquet", 1, ranges[0].Length, 5}, "cardinality 2"},
		"version":     {append([]byte{2}, file[1:]...), ranges[0], "version 2"},
		"truncated":   {file[:len(file)-2], ranges[0], "exceeds"},
	}
	for name, c := range cases {
		_, err := ReadIndexFile("index-x", c.data, []Range{c.rng})
		if err == nil || !strings.Contains(err.Error(), c.msg) || !strings.Contains(err.Error(), "index-x") {
			t.Errorf("%s: err = %v", name, err)
			continue
		}
		if name != "version" && !strings.Contains(err.Error(), "data-1.parquet") {
			t.Errorf("%s: error does not name the data file: %v", name, err)
		}
		if !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: not ErrCorrupt: %v", name, err)
		}
	}
	if _, err := DecodeIndexFile("index-x", file[:len(file)-1]); err == nil {
		t.Error("truncated sequential decode: no error")
	}
	if _, err := DecodeIndexFile("index-x", nil); err == nil {
		t.Error("empty file: no error")
	}
	if es, err := DecodeIndexFile("index-x", []byte{1}); err != nil || len(es) != 0 {
		t.Errorf("1-byte file: %v %v", es, err)
	}
}

// DeletedIn reports exactly the positions IsDeleted reports, in ascending
// order, for ranges inside, across and outside the bitmap keys.
func TestDeletedIn(t *testing.T) {
	k1 := int64(1) << 32
	v32, err := NewBitmap32Of(0, 1, 5, 63, 64, 65, 1000, 70000, 70001, Max32)
	if err != nil {
		t.Fatal(err)
	}
	v64, err := NewBitmap64Of(0, 7, 70000, k1-1, k1, k1+3, 3*k1+9)
	if err != nil {
		t.Fatal(err)
	}
	ranges := [][2]int64{{0, 0}, {0, 1}, {0, 2}, {-5, 6}, {2, 64}, {63, 66}, {64, 70001}, {999, 1001},
		{70001, 70002}, {Max32 - 1, Max32 + 10}, {Max32 + 1, Max32 + 5}, {5, 3},
		{k1 - 2, k1 + 4}, {k1 + 4, 3 * k1}, {k1 - 1, 4 * k1}, {3*k1 + 9, 3*k1 + 10}, {0, 5 * k1}}
	for _, v := range []Vector{v32, v64} {
		var all []int64
		for p := range v.Positions() {
			all = append(all, p)
		}
		for _, r := range ranges {
			var got []int64
			v.DeletedIn(r[0], r[1], func(p int64) { got = append(got, p) })
			var want []int64
			for _, p := range all {
				if p >= r[0] && p < r[1] && v.IsDeleted(p) {
					want = append(want, p)
				}
			}
			if !slices.Equal(got, want) {
				t.Errorf("64-bit=%v DeletedIn(%d, %d) = %v, want %v", v.Is64(), r[0], r[1], got, want)
			}
		}
	}
}

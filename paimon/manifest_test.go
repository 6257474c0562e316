package paimon

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/hamba/avro/v2"

	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/fileio"
)

type manifestFixture struct {
	path string
	kind ManifestKind
	data []byte
}

func kindOfName(name string) ManifestKind {
	switch {
	case strings.HasPrefix(name, "manifest-list-"):
		return KindManifestList
	case strings.HasPrefix(name, "index-manifest-"):
		return KindIndexManifest
	}
	return KindManifest
}

// avroManifestFixtures returns every Avro manifest-like file of the fixtures.
func avroManifestFixtures(t testing.TB) []manifestFixture {
	root := testutil.FixturesDir(t)
	var out []manifestFixture
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Base(filepath.Dir(p)) != "manifest" {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil || !bytes.HasPrefix(b, ocfMagic) {
			return nil
		}
		out = append(out, manifestFixture{p, kindOfName(d.Name()), b})
		return nil
	})
	return out
}

func decodeAny(f manifestFixture) (any, error) {
	switch f.kind {
	case KindManifestList:
		var out []ManifestFileMeta
		err := DecodeManifestList(f.path, f.data, "avro", func(m ManifestFileMeta) error { out = append(out, m); return nil })
		return out, err
	case KindIndexManifest:
		var out []IndexManifestEntry
		err := DecodeIndexManifest(f.path, f.data, "avro", func(m IndexManifestEntry) error { out = append(out, m); return nil })
		return out, err
	}
	var out []ManifestEntry
	err := DecodeManifest(f.path, f.data, "avro", func(m ManifestEntry) error { out = append(out, m); return nil })
	return out, err
}

func encodeAny(v any, codec ManifestCodec) ([]byte, error) {
	switch v := v.(type) {
	case []ManifestFileMeta:
		return EncodeManifestList(v, codec, 1)
	case []IndexManifestEntry:
		return EncodeIndexManifest(v, codec, 1)
	case []ManifestEntry:
		return EncodeManifest(v, codec, 1)
	}
	panic("unexpected")
}

func TestManifestFixturesDecodeAndReencode(t *testing.T) {
	fixtures := avroManifestFixtures(t)
	if len(fixtures) == 0 {
		t.Fatal("no Avro manifest fixtures")
	}
	counts := map[ManifestKind]int{}
	for _, f := range fixtures {
		v, err := decodeAny(f)
		if err != nil {
			t.Errorf("%s: %v", f.path, err)
			continue
		}
		counts[f.kind]++
		if reflect.ValueOf(v).Len() == 0 && f.kind != KindManifestList {
			t.Errorf("%s: no entries", f.path)
		}
		for _, codec := range []ManifestCodec{CodecZstandard, CodecNull, CodecDeflate, CodecSnappy} {
			enc, err := encodeAny(v, codec)
			if err != nil {
				t.Fatal(err)
			}
			v2, err := decodeAny(manifestFixture{f.path + "(re-encoded)", f.kind, enc})
			if err != nil {
				t.Fatalf("%s: re-encoded (%s) does not decode: %v", f.path, codec, err)
			}
			if !reflect.DeepEqual(normalize(v), normalize(v2)) {
				t.Errorf("%s: re-encoding (%s) changed values:\n%#v\n%#v", f.path, codec, v, v2)
			}
			enc2, _ := encodeAny(v2, CodecNull)
			enc1, _ := encodeAny(v, CodecNull)
			if !bytes.Equal(stripSync(enc1), stripSync(enc2)) {
				t.Errorf("%s: encode->decode->encode not byte-identical", f.path)
			}
		}
	}
	t.Logf("decoded %v", counts)
	if counts[KindManifestList] == 0 || counts[KindManifest] == 0 || counts[KindIndexManifest] == 0 {
		t.Errorf("missing kinds: %v", counts)
	}
}

// normalize drops fields 1.4 writers cannot represent (master-only).
func normalize(v any) any {
	switch v := v.(type) {
	case []ManifestEntry:
		out := append([]ManifestEntry(nil), v...)
		for i := range out {
			out[i].File.WriteColsSequences = nil
		}
		return out
	case []IndexManifestEntry:
		out := append([]IndexManifestEntry(nil), v...)
		for i := range out {
			if g := out[i].IndexFile.GlobalIndex; g != nil {
				c := *g
				c.SourceMeta = nil
				out[i].IndexFile.GlobalIndex = &c
			}
		}
		return out
	}
	return v
}

// stripSync zeroes sync markers so two encodings can be compared.
func stripSync(b []byte) []byte {
	f, err := parseOCF(b)
	if err != nil {
		return b
	}
	return bytes.ReplaceAll(b, f.sync, make([]byte, 16))
}

// The schemas we write must equal the writer schemas Java embeds (canonical
// form), for the newest layout found in the fixtures: fixtures are a prefix
// of 1.4.2, so compare our schema truncated to the fixture's field count.
func TestWriterSchemasMatchJava(t *testing.T) {
	ours := map[ManifestKind]avro.Schema{}
	for k, s := range map[ManifestKind]string{KindManifestList: ManifestListSchema, KindManifest: ManifestSchema, KindIndexManifest: IndexManifestSchema} {
		p, err := parseAvroSchema([]byte(s))
		if err != nil {
			t.Fatalf("%s schema: %v", k, err)
		}
		ours[k] = p
	}
	checked := 0
	for _, f := range avroManifestFixtures(t) {
		of, err := parseOCF(f.data)
		if err != nil {
			t.Fatal(err)
		}
		if of.codec != "zstandard" {
			t.Errorf("%s: codec %s", f.path, of.codec)
		}
		theirs, ok := of.schema.(*avro.RecordSchema)
		if !ok {
			continue // pre-0.9 nullable top-level union
		}
		trimmed := trimToJava(ours[f.kind].(*avro.RecordSchema), theirs)
		if trimmed == nil {
			t.Errorf("%s: not a prefix of our schema:\n%s", f.path, of.schemaRaw)
			continue
		}
		if trimmed.String() != theirs.String() {
			t.Errorf("%s: canonical form differs:\n ours   %s\n theirs %s", f.path, trimmed.String(), theirs.String())
		}
		// Full form too (defaults, logical types), structurally.
		a, _ := trimmed.MarshalJSON()
		b, _ := theirs.MarshalJSON()
		var am, bm any
		jsonUnmarshal(a, &am)
		jsonUnmarshal(b, &bm)
		if !reflect.DeepEqual(am, bm) {
			t.Errorf("%s: full schema differs:\n ours   %s\n theirs %s", f.path, a, b)
		}
		checked++
	}
	if checked == 0 {
		t.Fatal("no schema compared")
	}
}

// trimToJava re-parses our schema JSON with each record's fields cut to the
// number of fields the Java file has (older writers write a prefix).
func trimToJava(ours, theirs *avro.RecordSchema) *avro.RecordSchema {
	var cut func(o, t *avro.RecordSchema) map[string]any
	cut = func(o, t *avro.RecordSchema) map[string]any {
		if len(t.Fields()) > len(o.Fields()) {
			return nil
		}
		var fields []any
		for i, tf := range t.Fields() {
			of := o.Fields()[i]
			if of.Name() != tf.Name() {
				return nil
			}
			fj, _ := of.MarshalJSON()
			var m map[string]any
			jsonUnmarshal(fj, &m)
			if orec, tr := findRecord(of.Type()), findRecord(tf.Type()); orec != nil && tr != nil {
				sub := cut(orec, tr)
				if sub == nil {
					return nil
				}
				m["type"] = replaceRecord(m["type"], sub)
			}
			fields = append(fields, m)
		}
		return map[string]any{"type": "record", "name": o.Name(), "namespace": o.Namespace(), "fields": fields}
	}
	m := cut(ours, theirs)
	if m == nil {
		return nil
	}
	b, _ := jsonMarshal(m)
	s, err := parseAvroSchema(b)
	if err != nil {
		return nil
	}
	return s.(*avro.RecordSchema)
}

func findRecord(s avro.Schema) *avro.RecordSchema {
	switch s := s.(type) {
	case *avro.RecordSchema:
		return s
	case *avro.UnionSchema:
		for _, t := range s.Types() {
			if r := findRecord(t); r != nil {
				return r
			}
		}
	case *avro.ArraySchema:
		return findRecord(s.Items())
	}
	return nil
}

// replaceRecord replaces the (single) record inside a JSON type tree.
func replaceRecord(t any, rec map[string]any) any {
	switch v := t.(type) {
	case map[string]any:
		if v["type"] == "record" {
			return rec
		}
		if it, ok := v["items"]; ok {
			v["items"] = replaceRecord(it, rec)
		}
		return v
	case []any:
		for i := range v {
			v[i] = replaceRecord(v[i], rec)
		}
		return v
	}
	return t
}

func TestManifestCorruption(t *testing.T) {
	fixtures := avroManifestFixtures(t)
	for _, f := range fixtures[:min(len(fixtures), 8)] {
		for _, n := range []int{0, 3, 10, len(f.data) / 2, len(f.data) - 1} {
			_, err := decodeAny(manifestFixture{f.path, f.kind, f.data[:n]})
			if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), f.path) {
				t.Errorf("%s truncated to %d: %v", f.path, n, err)
			}
		}
		if of, _ := parseOCF(f.data); of.body.remaining() == 0 {
			continue // no data block: the only sync marker is the header's
		}
		bad := append([]byte(nil), f.data...)
		bad[len(bad)-5] ^= 0xff // sync marker
		if _, err := decodeAny(manifestFixture{f.path, f.kind, bad}); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: bad sync: %v", f.path, err)
		}
	}
}

func TestManifestVersionRejected(t *testing.T) {
	e := ManifestEntry{File: DataFileMeta{FileName: "f", ExtraFiles: []string{}}}
	rec := encodeManifestEntry(&e)
	rec[0] = 6 // zigzag(3)
	data, _ := writeOCF(ManifestSchema, CodecNull, 1, [][]byte{rec})
	err := DecodeManifest("m", data, "avro", func(ManifestEntry) error { return nil })
	if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "_VERSION 3") || !strings.Contains(err.Error(), "m:") {
		t.Fatalf("%v", err)
	}
}

// Every Avro-manifest fixture table: the live file set of every snapshot
// matches the snapshot's totalRecordCount.
func TestFileSetFixtures(t *testing.T) {
	root := testutil.FixturesDir(t)
	ctx := context.Background()
	io, err := fileio.NewLocal(root)
	if err != nil {
		t.Fatal(err)
	}
	tables, orcSnapshots := 0, 0
	for _, tp := range fixtureTables(t, root) {
		for _, branch := range append([]string{"main"}, mustBranches(t, io, tp)...) {
			tbl, err := OpenTable(ctx, io, tp, branch)
			if err != nil {
				t.Fatalf("%s@%s: %v", tp, branch, err)
			}
			schema, err := tbl.LatestSchema(ctx)
			if err != nil {
				t.Fatal(err)
			}
			snaps, err := tbl.Snapshots(ctx)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range snaps {
				set, err := tbl.ReadFileSet(ctx, s, nil)
				if schema.ManifestFormat() == "orc" {
					orcSnapshots++
				}
				if err != nil {
					t.Errorf("%s@%s snapshot %d: %v", tp, branch, s.ID, err)
					continue
				}
				var rows int64
				for _, e := range set.Entries {
					rows += e.File.RowCount
				}
				if rows != s.TotalRecordCount {
					t.Errorf("%s@%s snapshot %d: live rows %d, totalRecordCount %d", tp, branch, s.ID, rows, s.TotalRecordCount)
				}
				delta, err := tbl.ReadDelta(ctx, s, nil)
				if err != nil {
					t.Fatal(err)
				}
				var d int64
				for _, e := range delta {
					if e.Kind == FileKindAdd {
						d += e.File.RowCount
					} else {
						d -= e.File.RowCount
					}
				}
				if d != s.DeltaRecordCount {
					t.Errorf("%s snapshot %d: delta rows %d, deltaRecordCount %d", tp, s.ID, d, s.DeltaRecordCount)
				}
				if s.IndexManifest != nil && len(set.IndexEntries) == 0 {
					t.Errorf("%s snapshot %d: empty index manifest", tp, s.ID)
				}
				// Pruning hook: skipping every manifest yields nothing.
				set2, err := tbl.ReadFileSet(ctx, s, &FileSetOptions{ManifestFilter: func(*ManifestFileMeta) (bool, error) { return false, nil }})
				if err != nil || len(set2.Entries) != 0 || (len(set2.Manifests) > 0 && !set2.Pruned[0]) {
					t.Errorf("pruning: %v", err)
				}
				tables++
			}
		}
	}
	if tables == 0 {
		t.Fatal("no snapshot checked")
	}
	if orcSnapshots < 9 { // append_09 (5), append_with_empty_partition (1), testtbl (3)
		t.Errorf("%d snapshots with ORC manifests checked, want at least 9", orcSnapshots)
	}
}

func fixtureTables(t *testing.T, root string) []string {
	var out []string
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() && d.Name() == "schema" && filepath.Base(filepath.Dir(filepath.Dir(p))) != "branch" {
			rel, _ := filepath.Rel(root, filepath.Dir(p))
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	return out
}

func mustBranches(t *testing.T, io fileio.FileIO, tp string) []string {
	tbl, err := OpenTable(context.Background(), io, tp, "")
	if err != nil {
		t.Fatal(err)
	}
	b, err := tbl.ListBranches(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return b
}

package paimon

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
)

// FuzzDecodeManifest feeds arbitrary bytes to the manifest list, manifest and
// index manifest decoders. Seeds are every Avro manifest file of the
// fixtures (skipped when the fixtures are absent). Corrupt input must yield an
// error naming the file, never a panic.
func FuzzDecodeManifest(f *testing.F) {
	if dir, ok := testutil.LocateFixtures(); ok {
		filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && filepath.Base(filepath.Dir(p)) == "manifest" {
				if b, err := os.ReadFile(p); err == nil && len(b) < 1<<20 && strings.HasPrefix(string(b), "Obj\x01") {
					f.Add(b)
				}
			}
			return nil
		})
	}
	f.Add([]byte("Obj\x01"))
	f.Fuzz(func(t *testing.T, data []byte) {
		const name = "manifest/fuzz-0"
		check := func(err error) {
			if err == nil {
				return
			}
			if !strings.Contains(err.Error(), name) {
				t.Fatalf("error does not name the file: %v", err)
			}
			if strings.Contains(err.Error(), "decoder panic") {
				t.Fatalf("decoder panicked: %v", err)
			}
		}
		check(DecodeManifestList(name, data, "avro", func(ManifestFileMeta) error { return nil }))
		check(DecodeManifest(name, data, "avro", func(ManifestEntry) error { return nil }))
		check(DecodeIndexManifest(name, data, "avro", func(IndexManifestEntry) error { return nil }))
	})
}

// FuzzParseMetadataJSON checks the JSON readers and that whatever parses
// re-encodes to something that parses again.
func FuzzParseMetadataJSON(f *testing.F) {
	if dir, ok := testutil.LocateFixtures(); ok {
		filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || strings.Contains(p, "/expected/") {
				return nil
			}
			switch filepath.Base(filepath.Dir(p)) {
			case "snapshot", "schema", "tag":
				if b, err := os.ReadFile(p); err == nil && len(b) < 1<<16 {
					f.Add(b)
				}
			}
			return nil
		})
	}
	f.Add([]byte(`{"version":3,"id":1}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if s, err := ParseSnapshot(data); err == nil {
			out, _ := s.MarshalJSON()
			if _, err := ParseSnapshot(out); err != nil {
				t.Fatalf("snapshot re-encoding does not parse: %v\n%s", err, out)
			}
		}
		if tag, err := ParseTag(data); err == nil {
			out, _ := tag.MarshalJSON()
			if _, err := ParseTag(out); err != nil {
				t.Fatalf("tag re-encoding does not parse: %v\n%s", err, out)
			}
		}
		if s, err := ParseSchema(data); err == nil {
			if out, err := s.MarshalJSON(); err == nil {
				if _, err := ParseSchema(out); err != nil {
					t.Fatalf("schema re-encoding does not parse: %v\n%s", err, out)
				}
			}
		}
	})
}

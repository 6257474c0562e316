package paimon

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
)

func fixtureFiles(t *testing.T, dirName, prefix string) []string {
	t.Helper()
	root := testutil.FixturesDir(t)
	var out []string
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		if filepath.Base(filepath.Dir(p)) == dirName && strings.HasPrefix(d.Name(), prefix) && !strings.Contains(p, "/expected/") {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// javaWritten reports whether the file was pretty-printed by Jackson (paimon-cpp
// and hand-edited files use other formatting).
func javaWritten(b []byte) bool {
	return bytes.HasPrefix(b, []byte("{\n  \"")) && bytes.Contains(b, []byte("\" : ")) && !bytes.Contains(b, []byte("\": "))
}

func TestSchemaFixturesRoundTrip(t *testing.T) {
	files := fixtureFiles(t, "schema", "schema-")
	if len(files) == 0 {
		t.Fatal("no schema fixtures")
	}
	for _, f := range files {
		b, _ := os.ReadFile(f)
		s, err := ParseSchema(b)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		if len(s.Fields) == 0 {
			t.Errorf("%s: no fields", f)
		}
		out, err := s.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		if javaWritten(b) && !bytes.Equal(out, b) {
			t.Errorf("%s: re-encoding differs:\n%s\n----\n%s", f, out, b)
		}
		s2, err := ParseSchema(out)
		if err != nil {
			t.Fatal(err)
		}
		out2, _ := s2.MarshalJSON()
		if !bytes.Equal(out, out2) {
			t.Errorf("%s: encode->decode->encode not stable", f)
		}
	}
}

func TestSnapshotFixturesRoundTrip(t *testing.T) {
	files := append(fixtureFiles(t, "snapshot", "snapshot-"), fixtureFiles(t, "changelog", "changelog-")...)
	if len(files) == 0 {
		t.Fatal("no snapshot fixtures")
	}
	java := 0
	for _, f := range files {
		b, _ := os.ReadFile(f)
		s, err := ParseSnapshot(b)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		if s.ID <= 0 || s.DeltaManifestList == "" || s.CommitKind == "" {
			t.Errorf("%s: incomplete %+v", f, s)
		}
		if !strings.HasSuffix(f, "snapshot-"+itoa(s.ID)) {
			t.Errorf("%s: id %d does not match name", f, s.ID)
		}
		out, _ := s.MarshalJSON()
		if javaWritten(b) {
			java++
			if !bytes.Equal(out, b) {
				t.Errorf("%s: re-encoding differs:\n%s\n----\n%s", f, out, b)
			}
		}
	}
	if java == 0 {
		t.Error("no Java-written snapshot fixture found")
	}
}

func TestTagFixtures(t *testing.T) {
	for _, f := range fixtureFiles(t, "tag", "tag-") {
		b, _ := os.ReadFile(f)
		tag, err := ParseTag(b)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		ct, ok := tag.CreateTime()
		if !ok || ct.Year() < 2000 {
			t.Errorf("%s: create time %v", f, ct)
		}
		if tag.TagTimeRetained == nil {
			t.Errorf("%s: no retained", f)
		}
		out, _ := tag.MarshalJSON()
		tag2, err := ParseTag(out)
		if err != nil {
			t.Fatal(err)
		}
		if *tag2.TagTimeRetained != *tag.TagTimeRetained || len(tag2.TagCreateTime) != len(tag.TagCreateTime) || tag2.ID != tag.ID {
			t.Errorf("%s: tag round trip differs", f)
		}
	}
}

func Test14SnapshotByteIdentity(t *testing.T) {
	// The spec's 1.4.2 example, completed.
	src := `{
  "version" : 3,
  "id" : 2,
  "schemaId" : 0,
  "baseManifestList" : "manifest-list-9f85-2",
  "baseManifestListSize" : 1020,
  "deltaManifestList" : "manifest-list-9f85-3",
  "deltaManifestListSize" : 1101,
  "indexManifest" : "index-manifest-5d67-0",
  "commitUser" : "0b5b7a3e",
  "commitIdentifier" : 9223372036854775807,
  "commitKind" : "APPEND",
  "timeMillis" : 1720496663041,
  "totalRecordCount" : 10,
  "deltaRecordCount" : 5,
  "watermark" : -9223372036854775808,
  "statistics" : "stat-1-0",
  "properties" : {
    "b" : "1",
    "a" : "x\"<y>é"
  },
  "nextRowId" : 0
}`
	s, err := ParseSnapshot([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	out, _ := s.MarshalJSON()
	if string(out) != src {
		t.Fatalf("got\n%s", out)
	}
	// A freshly built snapshot omits optional fields.
	n := &Snapshot{Version: 3, ID: 1, BaseManifestList: "a", DeltaManifestList: "b", CommitUser: "u", CommitKind: CommitAppend}
	out, _ = n.MarshalJSON()
	if strings.Contains(string(out), "null") || strings.Contains(string(out), "changelog") {
		t.Fatalf("unexpected optional keys:\n%s", out)
	}
	// explicit nulls and compact formatting are accepted
	s, err = ParseSnapshot([]byte(`{"id":3,"schemaId":1,"baseManifestList":"x","deltaManifestList":"y","changelogManifestList":null,"watermark":null,"unknown":{"a":[1]},"commitKind":"COMPACT","logOffsets":{"1":5}}`))
	if err != nil || s.Watermark != nil || s.ChangelogManifestList != nil || s.LogOffsets[1] != 5 || s.Version != 1 {
		t.Fatalf("%+v %v", s, err)
	}
}

func TestTagEncoding(t *testing.T) {
	d := 5 * time.Second
	tag := &Tag{Snapshot: Snapshot{Version: 3, ID: 1, CommitKind: CommitAppend}, TagCreateTime: LocalDateTimeArray(time.Date(2024, 5, 1, 10, 20, 0, 0, time.UTC)), TagTimeRetained: &d}
	out, _ := tag.MarshalJSON()
	if !strings.Contains(string(out), `"tagCreateTime" : [ 2024, 5, 1, 10, 20 ],`) || !strings.HasSuffix(string(out), "\"tagTimeRetained\" : 5.000000000\n}") {
		t.Fatalf("%s", out)
	}
	if a := LocalDateTimeArray(time.Date(2024, 5, 1, 10, 20, 0, 7, time.UTC)); len(a) != 7 || a[5] != 0 || a[6] != 7 {
		t.Fatal(a)
	}
}

func TestConsumerStatisticsHint(t *testing.T) {
	c := &Consumer{NextSnapshot: 7}
	if string(c.Encode()) != "{\n  \"nextSnapshot\" : 7\n}" {
		t.Fatalf("%s", c.Encode())
	}
	c2, err := ParseConsumer([]byte(`{"nextSnapshot":7,"x":1}`))
	if err != nil || c2.NextSnapshot != 7 {
		t.Fatal(err)
	}
	src := "{\n  \"snapshotId\" : 3,\n  \"schemaId\" : 0,\n  \"mergedRecordCount\" : 10,\n  \"colStats\" : {\n    \"b\" : {\n      \"colId\" : 1,\n      \"nullCount\" : 0\n    },\n    \"a\" : {\n      \"colId\" : 0\n    }\n  }\n}"
	st, err := ParseStatistics([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	out, _ := st.Encode()
	if string(out) != src {
		t.Fatalf("%s", out)
	}
	if id, err := ParseHint([]byte("12")); err != nil || id != 12 || string(EncodeHint(12)) != "12" {
		t.Fatal(err)
	}
}

func TestSchemaCompatAndHelpers(t *testing.T) {
	s, err := ParseSchema([]byte(`{"id":0,"fields":[{"id":0,"name":"k","type":"INT NOT NULL"},{"id":1,"name":"p","type":"STRING"}],"highestFieldId":1,"partitionKeys":["p"],"primaryKeys":["k","p"],"options":{}}`))
	if err != nil {
		t.Fatal(err)
	}
	if s.Version != 1 || s.Bucket() != 1 || s.FileFormat() != "orc" {
		t.Fatalf("compat: v%d bucket %d format %s", s.Version, s.Bucket(), s.FileFormat())
	}
	if got := s.TrimmedPrimaryKeys(); len(got) != 1 || got[0] != "k" {
		t.Fatal(got)
	}
	if got := s.BucketKeys(); len(got) != 1 || got[0] != "k" {
		t.Fatal(got)
	}
	s, _ = ParseSchema([]byte(`{"version":2,"id":0,"fields":[],"options":{"bucket-key":"a, b"}}`))
	if s.Bucket() != -1 || s.FileFormat() != "orc" || len(s.BucketKeys()) != 2 {
		t.Fatal(s.Options)
	}
	s, _ = ParseSchema([]byte(`{"version":3,"id":0,"fields":[],"options":{}}`))
	if s.Bucket() != -1 || s.FileFormat() != "parquet" || s.ManifestFormat() != "avro" || !s.PartitionLegacyName() || s.MergeEngine() != "deduplicate" {
		t.Fatal(s.Options)
	}
}

func itoa(n int64) string { return string(EncodeHint(n)) }

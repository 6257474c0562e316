package scan

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/fileio"
)

// runExpected runs every batch expectation of the table at tableDir.
func runExpected(t *testing.T, tableDir string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(tableDir, "expected", "index.json"))
	if err != nil {
		t.Fatal(err)
	}
	var idx fixtureIndex
	if err := json.Unmarshal(data, &idx); err != nil {
		t.Fatal(err)
	}
	if len(idx.Expected) == 0 {
		t.Fatal("no expectations")
	}
	for _, e := range idx.Expected {
		var q fixtureQuery
		if err := json.Unmarshal(e.Query, &q); err != nil {
			t.Fatal(err)
		}
		t.Run(e.File, func(t *testing.T) {
			runFixtureQuery(t, tableDir, filepath.Join(tableDir, "expected", e.File), q)
		})
	}
}

// TestRound2AvroDataFiles reads the two tables with Avro DATA files
// (file.format=avro: all primitive types, nested ROW/MAP/ARRAY, maps with
// non-string keys encoded as arrays of key/value records) to their expected rows.
func TestRound2AvroDataFiles(t *testing.T) {
	root := testutil.Round2Dir(t)
	for _, rel := range []string{
		"paimon-cpp/avro/append_multiple.db/append_multiple",
		"paimon-cpp/avro/append_with_multiple_map.db/append_with_multiple_map",
	} {
		t.Run(filepath.Base(rel), func(t *testing.T) { runExpected(t, filepath.Join(root, rel)) })
	}
}

// binaryAsText turns the base64 the JSON writer gives BINARY values into
// their UTF-8 text, as the fixtures show them, also inside lists, maps
// (lists of [key, value]) and structs.
func binaryAsText(t arrow.DataType, v any) any {
	switch tt := t.(type) {
	case *arrow.BinaryType:
		if s, ok := v.(string); ok {
			raw, _ := base64.StdEncoding.DecodeString(s)
			return string(raw)
		}
	case *arrow.ListType:
		if xs, ok := v.([]any); ok {
			for i := range xs {
				xs[i] = binaryAsText(tt.Elem(), xs[i])
			}
		}
	case *arrow.MapType:
		if xs, ok := v.([]any); ok {
			for _, e := range xs {
				if kv, ok := e.([]any); ok && len(kv) == 2 {
					kv[0] = binaryAsText(tt.KeyType(), kv[0])
					kv[1] = binaryAsText(tt.ItemType(), kv[1])
				}
			}
		}
	case *arrow.StructType:
		if o, ok := v.(map[string]any); ok {
			for _, f := range tt.Fields() {
				if x, ok := o[f.Name]; ok {
					o[f.Name] = binaryAsText(f.Type, x)
				}
			}
		}
	}
	return v
}

// rewriteManifests rewrites every manifest and index manifest of the table
// copy at dir through edit / editIndex, then the manifest lists' sizes.
func rewriteManifests(t *testing.T, dir string, edit func(*paimon.ManifestEntry), editIndex func(*paimon.IndexManifestEntry)) {
	mdir := filepath.Join(dir, "manifest")
	ents, err := os.ReadDir(mdir)
	if err != nil {
		t.Fatal(err)
	}
	sizes := map[string]int64{}
	write := func(name string, b []byte, err error) {
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(mdir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
		sizes[name] = int64(len(b))
	}
	for _, e := range ents {
		name := e.Name()
		data, err := os.ReadFile(filepath.Join(mdir, name))
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case strings.HasPrefix(name, "manifest-list-"):
		case strings.HasPrefix(name, "index-manifest-"):
			var out []paimon.IndexManifestEntry
			if err := paimon.DecodeIndexManifest(name, data, "avro", func(e paimon.IndexManifestEntry) error {
				editIndex(&e)
				out = append(out, e)
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			b, err := paimon.EncodeIndexManifest(out, "", 0)
			write(name, b, err)
		default:
			var out []paimon.ManifestEntry
			if err := paimon.DecodeManifest(name, data, "avro", func(e paimon.ManifestEntry) error {
				edit(&e)
				out = append(out, e)
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			b, err := paimon.EncodeManifest(out, "", 0)
			write(name, b, err)
		}
	}
	for _, e := range ents {
		name := e.Name()
		if !strings.HasPrefix(name, "manifest-list-") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(mdir, name))
		if err != nil {
			t.Fatal(err)
		}
		var out []paimon.ManifestFileMeta
		if err := paimon.DecodeManifestList(name, data, "avro", func(m paimon.ManifestFileMeta) error {
			if n, ok := sizes[m.FileName]; ok {
				m.FileSize = n
			}
			out = append(out, m)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		b, err := paimon.EncodeManifestList(out, "", 0)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(mdir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// externalFixture copies the external-path fixture table into a temporary
// warehouse and its external data folder to a directory OUTSIDE that
// warehouse, then points the table at the new folder: the schema option
// data-file.external-paths (declared as declared(extDir)) and every
// _EXTERNAL_PATH of the manifests (FILE:/tmp/external/... →
// file:<extDir>/...), as the fixture's external_path_remap says the source
// test does. It returns the table directory and the external folder.
//
// With indexOutside, the DV index files are moved to <extDir>/index and
// their index manifest entries given that external path (what
// index-file-in-data-file-dir writes next to external data files).
func externalFixture(t *testing.T, declared func(extDir string) string, indexOutside bool) (string, string) {
	root := testutil.Round2Dir(t)
	src := filepath.Join(root, "paimon-cpp/parquet/pk_dv_index_not_in_data_with_external.db")
	tmp := t.TempDir()
	tableDir := filepath.Join(tmp, "wh", "db.db", "pk_dv_index_not_in_data_with_external")
	extDir := filepath.Join(tmp, "outside", "external")
	copyTree(t, filepath.Join(src, "pk_dv_index_not_in_data_with_external"), tableDir)
	copyTree(t, filepath.Join(src, "external"), extDir)
	sp := filepath.Join(tableDir, "schema", "schema-0")
	sch, err := os.ReadFile(sp)
	if err != nil {
		t.Fatal(err)
	}
	const orig = `"FILE:///tmp/external"`
	if !bytes.Contains(sch, []byte(orig)) {
		t.Fatalf("schema-0 has no %s", orig)
	}
	sch = bytes.ReplaceAll(sch, []byte(orig), []byte(strconv.Quote(declared(extDir))))
	if err := os.WriteFile(sp, sch, 0o644); err != nil {
		t.Fatal(err)
	}
	n := 0
	rewriteManifests(t, tableDir, func(e *paimon.ManifestEntry) {
		if e.File.ExternalPath != nil {
			p := strings.Replace(*e.File.ExternalPath, "FILE:/tmp/external", "file:"+filepath.ToSlash(extDir), 1)
			e.File.ExternalPath = &p
			n++
		}
	}, func(e *paimon.IndexManifestEntry) {
		if !indexOutside {
			return
		}
		from := filepath.Join(tableDir, "index", e.IndexFile.FileName)
		to := filepath.Join(extDir, "index", e.IndexFile.FileName)
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(from, to); err != nil && !errors.Is(err, os.ErrNotExist) {
			t.Fatal(err)
		}
		p := "file:" + filepath.ToSlash(to)
		e.IndexFile.ExternalPath = &p
		n++
	})
	if n == 0 {
		t.Fatal("no _EXTERNAL_PATH in the manifests")
	}
	return tableDir, extDir
}

// TestRound2ExternalDataPaths reads a primary-key DV table whose data files
// all live outside the table (and here outside the warehouse) where the
// manifests' _EXTERNAL_PATH says, to its expected rows; then checks that a
// location the table does not declare is refused.
func TestRound2ExternalDataPaths(t *testing.T) {
	tableDir, _ := externalFixture(t, func(ext string) string { return "FILE://" + filepath.ToSlash(ext) }, false)
	runExpected(t, tableDir)

	t.Run("DV index files outside too", func(t *testing.T) {
		tableDir, _ := externalFixture(t, func(ext string) string { return "file:" + filepath.ToSlash(ext) }, true)
		if ents, _ := os.ReadDir(filepath.Join(tableDir, "index")); len(ents) != 0 {
			t.Fatalf("index files left in the table: %d", len(ents))
		}
		runExpected(t, tableDir)
	})

	t.Run("undeclared location refused", func(t *testing.T) {
		tableDir, _ := externalFixture(t, func(ext string) string { return "file://" + filepath.ToSlash(filepath.Dir(ext)) + "/elsewhere" }, false)
		err := readTableErr(t, tableDir)
		if err == nil || !errors.Is(err, fileio.ErrOutsideRoot) || !strings.Contains(err.Error(), "data-file.external-paths") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("no option refused", func(t *testing.T) {
		tableDir, _ := externalFixture(t, func(string) string { return "" }, false)
		err := readTableErr(t, tableDir)
		if err == nil || !errors.Is(err, fileio.ErrOutsideRoot) {
			t.Fatalf("err = %v", err)
		}
	})
}

// readTableErr plans and reads the latest snapshot, returning the first error.
func readTableErr(t *testing.T, tableDir string) error {
	ctx := context.Background()
	mem := testutil.CheckedAllocator(t)
	fio, err := fileio.NewLocal(filepath.Dir(tableDir))
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := paimon.OpenTable(ctx, fio, filepath.Base(tableDir), "")
	if err != nil {
		return err
	}
	sc, err := New(ctx, tbl, Options{})
	if err != nil {
		return err
	}
	plan, err := sc.Plan(ctx)
	if err != nil {
		return err
	}
	rd, err := sc.Read(ctx, mem, plan.Splits)
	if err != nil {
		return err
	}
	defer rd.Release()
	for rd.Next() {
	}
	return rd.Err()
}

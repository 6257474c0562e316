package scan

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"

	"github.com/paimon-flightsql/paimon-flightsql/internal/orctest"
	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/fileio"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/format"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// TestFixtureRowsFromORCDataFiles: the fixtures hold no ORC data files, so
// every Avro-manifest fixture table with expected rows is copied, each of its
// Parquet data files is rewritten as an ORC file of the same rows (columns
// named as Paimon names them, 2-row stripes so batches and deletion-vector
// positions cross stripes; the Parquet file is removed), and the manifests
// are rewritten to name the ORC files. The scan must then return the same
// expected rows: append, primary-key merge-on-read, deletion vectors,
// schema evolution, nested types and timestamps, all from ORC.
func TestFixtureRowsFromORCDataFiles(t *testing.T) {
	root := testutil.FixturesDir(t)
	var indexes []string
	filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
		if err == nil && info.Name() == "index.json" && filepath.Base(filepath.Dir(p)) == "expected" {
			indexes = append(indexes, p)
		}
		return nil
	})
	checked, tables := 0, 0
	for _, idxPath := range indexes {
		tableDir := filepath.Dir(filepath.Dir(idxPath))
		parquets := 0
		filepath.WalkDir(tableDir, func(p string, d fs.DirEntry, err error) error {
			if err == nil && strings.HasSuffix(p, ".parquet") {
				parquets++
			}
			return nil
		})
		if parquets == 0 || orcManifests(t, tableDir) {
			continue
		}
		var idx fixtureIndex
		data, err := os.ReadFile(idxPath)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, &idx); err != nil {
			t.Fatalf("%s: %v", idxPath, err)
		}
		rel := strings.TrimPrefix(tableDir, root+"/")
		dst := filepath.Join(t.TempDir(), filepath.Base(tableDir))
		copyTree(t, tableDir, dst)
		converted := convertToORC(t, dst)
		if converted == 0 {
			t.Fatalf("%s: no data file converted", rel)
		}
		tables++
		for _, e := range idx.Expected {
			var q fixtureQuery
			if len(e.Query) == 0 || string(e.Query) == "null" {
				continue
			}
			if err := json.Unmarshal(e.Query, &q); err != nil {
				t.Fatal(err)
			}
			if q.Mode != "" || q.Incremental != "" || q.SystemTable != "" || q.Decode != "" || !strings.HasSuffix(e.File, ".jsonl") {
				continue
			}
			t.Run(rel+"/"+e.File, func(t *testing.T) {
				runFixtureQuery(t, dst, filepath.Join(tableDir, "expected", e.File), q)
			})
			checked++
		}
	}
	if tables < 8 || checked < 19 {
		t.Fatalf("only %d tables / %d expected results checked from ORC data", tables, checked)
	}
	t.Logf("checked %d expected results of %d tables from ORC data files", checked, tables)
}

func orcManifests(t *testing.T, tableDir string) bool {
	ms, _ := filepath.Glob(filepath.Join(tableDir, "manifest", "*"))
	for _, m := range ms {
		b, err := os.ReadFile(m)
		if err != nil {
			t.Fatal(err)
		}
		return bytes.HasPrefix(b, []byte("ORC"))
	}
	return false
}

func copyTree(t *testing.T, src, dst string) {
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func orcName(n string) string { return strings.TrimSuffix(n, ".parquet") + ".orc" }

// convertToORC rewrites the data files and manifests of the table copy at
// dir; it returns the number of data files converted.
func convertToORC(t *testing.T, dir string) int { return convertSomeToORC(t, dir, nil) }

// convertSomeToORC is convertToORC for the data files pick selects (all when
// pick is nil); the others stay Parquet, so the table mixes both formats.
func convertSomeToORC(t *testing.T, dir string, pick func(name string) bool) int {
	rename := func(n string) string {
		if pick == nil || pick(n) {
			return orcName(n)
		}
		return n
	}
	ctx := context.Background()
	fio, err := fileio.NewLocal(filepath.Dir(dir))
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := paimon.OpenTable(ctx, fio, filepath.Base(dir), "")
	if err != nil {
		t.Fatal(err)
	}
	tbls := []*paimon.Table{tbl}
	branches, err := tbl.ListBranches(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range branches {
		bt, err := paimon.OpenTable(ctx, fio, filepath.Base(dir), b)
		if err != nil {
			t.Fatal(err)
		}
		tbls = append(tbls, bt)
	}
	paths := map[string]string{} // data file name → path
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".parquet") {
			paths[d.Name()] = p
		}
		return nil
	})
	sizes := map[string]int64{} // converted data file → ORC size
	convert := func(name string, schemaID int64) {
		if _, done := sizes[name]; done || (pick != nil && !pick(name)) {
			return
		}
		p, ok := paths[name]
		if !ok {
			return // referenced but not shipped (e.g. only in DELETE entries)
		}
		// The schema id is the main branch's or, for files a branch wrote,
		// that branch's: take the one naming every column of the file.
		var lastErr error
		for _, tb := range tbls {
			sc, err := tb.Schema(ctx, schemaID)
			if err != nil {
				lastErr = err
				continue
			}
			n, err := parquetToORC(t, p, sc)
			if err == nil {
				sizes[name] = n
				return
			}
			lastErr = err
		}
		t.Fatal(lastErr)
	}
	// Manifests and index manifests first, then the lists naming them.
	rewriteManifests(t, dir, func(e *paimon.ManifestEntry) {
		convert(e.File.FileName, e.File.SchemaID)
		if n, ok := sizes[e.File.FileName]; ok {
			e.File.FileSize = n
		}
		e.File.FileName = rename(e.File.FileName)
	}, func(e *paimon.IndexManifestEntry) {
		for i := range e.IndexFile.DVRanges {
			e.IndexFile.DVRanges[i].DataFileName = rename(e.IndexFile.DVRanges[i].DataFileName)
		}
	})
	for name, p := range paths {
		if _, ok := sizes[name]; ok {
			if err := os.Remove(p); err != nil {
				t.Fatal(err)
			}
		}
	}
	return len(sizes)
}

// parquetToORC writes the rows of a Parquet data file as an ORC file next
// to it, with the same column names; it returns the ORC file's size.
func parquetToORC(t *testing.T, p string, sc *paimon.TableSchema) (int64, error) {
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	pr, err := file.NewParquetReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]types.DataField{}
	for _, f := range sc.Fields {
		byName[f.Name] = f
	}
	root := pr.MetaData().Schema.Root()
	var fields []types.DataField
	for i := 0; i < root.NumFields(); i++ {
		n := root.Field(i).Name()
		switch {
		case n == format.SequenceNumberFieldName:
			fields = append(fields, format.SequenceNumberField())
		case n == format.ValueKindFieldName:
			fields = append(fields, format.ValueKindField())
		case strings.HasPrefix(n, format.KeyFieldPrefix):
			f, ok := byName[strings.TrimPrefix(n, format.KeyFieldPrefix)]
			if !ok {
				return 0, fmt.Errorf("%s: key column %s not in schema %d", p, n, sc.ID)
			}
			fields = append(fields, format.KeyField(f))
		default:
			f, ok := byName[n]
			if !ok {
				return 0, fmt.Errorf("%s: column %s not in schema %d", p, n, sc.ID)
			}
			fields = append(fields, f)
		}
	}
	df, err := format.Open(bytes.NewReader(data), int64(len(data)), p, sc.Fields)
	if err != nil {
		t.Fatal(err)
	}
	rr, err := df.Read(context.Background(), format.ReadOptions{Fields: fields})
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	cols := make([][]arrow.Array, len(fields))
	var rows int64
	for rr.Next() {
		rec := rr.RecordBatch()
		for k := range fields {
			rec.Column(k).Retain()
			cols[k] = append(cols[k], rec.Column(k))
		}
		rows += rec.NumRows()
	}
	if err := rr.Err(); err != nil {
		t.Fatal(err)
	}
	arrs := make([]arrow.Array, len(fields))
	for k := range fields {
		if len(cols[k]) == 0 {
			arrs[k] = array.MakeArrayOfNull(memory.DefaultAllocator, format.ArrowType(fields[k].Type), 0)
		} else if arrs[k], err = array.Concatenate(cols[k], memory.DefaultAllocator); err != nil {
			t.Fatal(err)
		}
		for _, a := range cols[k] {
			a.Release()
		}
	}
	rec := array.NewRecordBatch(format.ArrowSchema(fields), arrs, rows)
	defer rec.Release()
	for _, a := range arrs {
		a.Release()
	}
	out, err := orctest.Write(fields, rec, orctest.Options{StripeRows: 2, RLEv2: true, Zstd: true})
	if err != nil {
		t.Fatalf("%s: %v", p, err)
	}
	if err := os.WriteFile(orcName(p), out, 0o644); err != nil {
		t.Fatal(err)
	}
	return int64(len(out)), nil
}

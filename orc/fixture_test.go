package orc

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/parquet-go/parquet-go"

	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
)

// orcTables returns the fixture tables whose schema says manifest.format=orc.
func orcTables(t testing.TB) []string {
	root := testutil.FixturesDir(t)
	re := regexp.MustCompile(`"manifest.format"\s*:\s*"orc"`)
	var tables []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasPrefix(d.Name(), "schema-") {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if re.Match(b) {
			tables = append(tables, filepath.Dir(filepath.Dir(p)))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(tables) < 4 {
		t.Fatalf("found %d tables with ORC manifests, want at least 4", len(tables))
	}
	return tables
}

// orcFiles lists the ORC files of the fixture tables.
func orcFiles(t testing.TB) []string {
	var files []string
	for _, table := range orcTables(t) {
		ents, err := os.ReadDir(filepath.Join(table, "manifest"))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			files = append(files, filepath.Join(table, "manifest", e.Name()))
		}
	}
	return files
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.ReaderAt
	n atomic.Int64
}

func (c *countingReader) ReadAt(p []byte, off int64) (int, error) {
	c.n.Add(int64(len(p)))
	return c.r.ReadAt(p, off)
}

func openFixture(t testing.TB, path string) (*File, *countingReader) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cr := &countingReader{r: bytes.NewReader(b)}
	f, err := Open(cr, int64(len(b)), filepath.Base(path))
	if err != nil {
		t.Fatal(err)
	}
	return f, cr
}

// readAll decodes every stripe and returns the rows as JSON objects.
func readAll(t testing.TB, f *File, mem memory.Allocator, cols []int) []map[string]any {
	t.Helper()
	var rows []map[string]any
	for i := 0; i < f.NumStripes(); i++ {
		rec, err := f.ReadStripe(context.Background(), i, mem, cols)
		if err != nil {
			t.Fatal(err)
		}
		if rec.NumRows() != f.StripeRows(i) {
			t.Errorf("stripe %d: %d rows, footer says %d", i, rec.NumRows(), f.StripeRows(i))
		}
		rows = append(rows, recordRows(t, rec)...)
		rec.Release()
	}
	return rows
}

func recordRows(t testing.TB, rec arrow.RecordBatch) []map[string]any {
	t.Helper()
	b, err := rec.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	var rows []map[string]any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&rows); err != nil {
		t.Fatal(err)
	}
	return rows
}

func num(t testing.TB, v any) int64 {
	t.Helper()
	n, ok := v.(json.Number)
	if !ok {
		t.Fatalf("%v (%T) is not a number", v, v)
	}
	i, err := n.Int64()
	if err != nil {
		t.Fatal(err)
	}
	return i
}

// TestFixtureFiles decodes every ORC file of the fixtures and checks the
// data against the file's own statistics, projection against the full read,
// and batched reading against whole-stripe reading.
func TestFixtureFiles(t *testing.T) {
	files := orcFiles(t)
	if len(files) < 30 {
		t.Fatalf("found %d ORC fixture files, want at least 30", len(files))
	}
	for _, p := range files {
		t.Run(filepath.Base(p), func(t *testing.T) {
			mem := testutil.CheckedAllocator(t)
			f, cr := openFixture(t, p)
			if f.Compression() != CompressionZstd {
				t.Errorf("compression %v, the fixtures are written with ZSTD", f.Compression())
			}
			rows := readAll(t, f, mem, nil)
			if int64(len(rows)) != f.NumRows() {
				t.Fatalf("decoded %d rows, footer says %d", len(rows), f.NumRows())
			}
			fullBytes := cr.n.Load()

			// Top-level integer and string columns agree with the file's
			// statistics: value count, min and max.
			for ci, c := range f.Schema().Root.Children {
				st, ok := f.FileStats(c.ID)
				if !ok {
					t.Fatalf("no file statistics for column %s", c.Name)
				}
				var vals []any
				for _, r := range rows {
					if r[c.Name] != nil {
						vals = append(vals, r[c.Name])
					}
				}
				if c.Kind != KindStruct && c.Kind != KindList && uint64(len(vals)) != st.NumValues {
					t.Errorf("column %s: %d values, statistics say %d", c.Name, len(vals), st.NumValues)
				}
				if len(vals) == 0 || st.Min == nil {
					continue
				}
				switch c.Kind {
				case KindInt, KindLong, KindByte:
					lo, hi := num(t, vals[0]), num(t, vals[0])
					for _, v := range vals {
						lo, hi = min(lo, num(t, v)), max(hi, num(t, v))
					}
					if lo != st.Min.(int64) || hi != st.Max.(int64) {
						t.Errorf("column %s: min/max %d/%d, statistics %v/%v", c.Name, lo, hi, st.Min, st.Max)
					}
				case KindString:
					lo, hi := vals[0].(string), vals[0].(string)
					for _, v := range vals {
						lo, hi = min(lo, v.(string)), max(hi, v.(string))
					}
					if lo != st.Min.(string) || hi != st.Max.(string) {
						t.Errorf("column %s: min/max %q/%q, statistics %v/%v", c.Name, lo, hi, st.Min, st.Max)
					}
				}

				// Projecting this single column reads fewer bytes and gives
				// the same values.
				pf, pcr := openFixture(t, p)
				tailBytes := pcr.n.Load()
				prow := readAll(t, pf, mem, []int{ci})
				for i := range rows {
					if len(prow[i]) != 1 || !jsonEqual(prow[i][c.Name], rows[i][c.Name]) {
						t.Fatalf("row %d: projected %v, full %v", i, prow[i], rows[i][c.Name])
					}
				}
				if len(f.Schema().Root.Children) > 1 && pcr.n.Load()-tailBytes >= fullBytes-tailBytes && f.NumRows() > 0 {
					t.Errorf("projection of %s read %d stripe bytes, full read %d", c.Name, pcr.n.Load()-tailBytes, fullBytes-tailBytes)
				}
			}

			// Batches of 2 rows through the RecordReader give the same rows.
			rr, err := f.NewRecordReader(context.Background(), mem, ReaderOptions{BatchSize: 2})
			if err != nil {
				t.Fatal(err)
			}
			defer rr.Release()
			var batched []map[string]any
			for rr.Next() {
				if rr.RecordBatch().NumRows() > 2 {
					t.Fatalf("batch of %d rows", rr.RecordBatch().NumRows())
				}
				batched = append(batched, recordRows(t, rr.RecordBatch())...)
			}
			if err := rr.Err(); err != nil {
				t.Fatal(err)
			}
			if !jsonEqual(batched, rows) {
				t.Errorf("batched read differs from stripe read")
			}
		})
	}
}

func jsonEqual(a, b any) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && bytes.Equal(x, y)
}

type snapshotJSON struct {
	ID                int64  `json:"id"`
	BaseManifestList  string `json:"baseManifestList"`
	DeltaManifestList string `json:"deltaManifestList"`
	TotalRecordCount  *int64 `json:"totalRecordCount"`
	DeltaRecordCount  *int64 `json:"deltaRecordCount"`
	CommitKind        string `json:"commitKind"`
}

// TestFixtureManifests reads the ORC manifest lists and manifests of every
// fixture table and checks them against the rest of the table: manifest
// files named by the lists exist with the listed sizes and added/deleted
// counts; data files named by the manifests exist with the recorded size and
// Parquet row count; and each snapshot's record counts equal the sums over
// its manifests.
func TestFixtureManifests(t *testing.T) {
	for _, table := range orcTables(t) {
		rel, _ := filepath.Rel(testutil.FixturesDir(t), table)
		t.Run(rel, func(t *testing.T) {
			mem := testutil.CheckedAllocator(t)
			mdir := filepath.Join(table, "manifest")
			read := func(name string) []map[string]any {
				f, _ := openFixture(t, filepath.Join(mdir, name))
				return readAll(t, f, mem, nil)
			}
			dataFiles := map[string]int64{} // base name -> size
			filepath.WalkDir(table, func(p string, d fs.DirEntry, err error) error {
				if err == nil && !d.IsDir() && strings.HasPrefix(d.Name(), "data-") {
					st, err := d.Info()
					if err != nil {
						return err
					}
					dataFiles[d.Name()] = st.Size()
				}
				return nil
			})

			// net row count (ADD - DELETE) of one manifest file
			checked := map[string]int64{}
			manifestRows := func(name string) int64 {
				if n, ok := checked[name]; ok {
					return n
				}
				var net int64
				for _, e := range read(name) {
					file := e["_FILE"].(map[string]any)
					fname := file["_FILE_NAME"].(string)
					rows := num(t, file["_ROW_COUNT"])
					switch num(t, e["_KIND"]) {
					case 0:
						net += rows
					case 1:
						net -= rows
					default:
						t.Errorf("%s: _KIND %v", name, e["_KIND"])
					}
					if len(dataFiles) == 0 {
						continue // metadata-only fixture: no data files shipped
					}
					size, ok := dataFiles[fname]
					if !ok {
						t.Errorf("%s: data file %s not in the table", name, fname)
						continue
					}
					if size != num(t, file["_FILE_SIZE"]) {
						t.Errorf("%s: %s has %d bytes, manifest says %v", name, fname, size, file["_FILE_SIZE"])
					}
					if strings.HasSuffix(fname, ".parquet") {
						if n := parquetRows(t, table, fname); n != rows {
							t.Errorf("%s: %s has %d rows, manifest says %d", name, fname, n, rows)
						}
					}
				}
				checked[name] = net
				return net
			}
			// net row count of a manifest list, checking its entries
			listRows := func(name string) int64 {
				var net int64
				for _, m := range read(name) {
					mname := m["_FILE_NAME"].(string)
					st, err := os.Stat(filepath.Join(mdir, mname))
					if err != nil {
						t.Errorf("%s: manifest %s: %v", name, mname, err)
						continue
					}
					if st.Size() != num(t, m["_FILE_SIZE"]) {
						t.Errorf("%s: %s has %d bytes, list says %v", name, mname, st.Size(), m["_FILE_SIZE"])
					}
					var added, deleted int64
					for _, e := range read(mname) {
						if num(t, e["_KIND"]) == 0 {
							added++
						} else {
							deleted++
						}
					}
					if added != num(t, m["_NUM_ADDED_FILES"]) || deleted != num(t, m["_NUM_DELETED_FILES"]) {
						t.Errorf("%s: %s has %d/%d added/deleted entries, list says %v/%v", name, mname, added, deleted, m["_NUM_ADDED_FILES"], m["_NUM_DELETED_FILES"])
					}
					net += manifestRows(mname)
				}
				return net
			}

			snaps, _ := filepath.Glob(filepath.Join(table, "snapshot", "snapshot-*"))
			lists, _ := filepath.Glob(filepath.Join(mdir, "manifest-list-*"))
			if len(lists) == 0 {
				t.Fatal("no manifest lists")
			}
			for _, l := range lists {
				listRows(filepath.Base(l))
			}
			for _, sp := range snaps {
				b, err := os.ReadFile(sp)
				if err != nil {
					t.Fatal(err)
				}
				var s snapshotJSON
				if err := json.Unmarshal(b, &s); err != nil {
					t.Fatal(err)
				}
				base, delta := listRows(s.BaseManifestList), listRows(s.DeltaManifestList)
				if s.TotalRecordCount != nil && base+delta != *s.TotalRecordCount {
					t.Errorf("snapshot %d: manifests hold %d rows, totalRecordCount %d", s.ID, base+delta, *s.TotalRecordCount)
				}
				if s.DeltaRecordCount != nil && delta != *s.DeltaRecordCount {
					t.Errorf("snapshot %d: delta manifests hold %d rows, deltaRecordCount %d", s.ID, delta, *s.DeltaRecordCount)
				}
			}
			t.Logf("%d manifest lists, %d manifests, %d snapshots, %d data files", len(lists), len(checked), len(snaps), len(dataFiles))
		})
	}
}

func parquetRows(t testing.TB, table, name string) int64 {
	t.Helper()
	var path string
	filepath.WalkDir(table, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Name() == name {
			path = p
		}
		return nil
	})
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	st, err := fh.Stat()
	if err != nil {
		t.Fatal(err)
	}
	pf, err := parquet.OpenFile(fh, st.Size())
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return pf.NumRows()
}

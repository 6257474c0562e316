package sysviews

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/arrowrow"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/fileio"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/format"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// warehouse is a temporary warehouse with a catalog over it.
type warehouse struct {
	dir string
	io  fileio.FileIO
	cat *catalog.FS
}

func newWarehouse(t *testing.T, opts ...catalog.FSOption) *warehouse {
	t.Helper()
	dir := t.TempDir()
	io, err := fileio.NewLocal(dir)
	if err != nil {
		t.Fatal(err)
	}
	opts = append([]catalog.FSOption{catalog.WithSystemTables(New())}, opts...)
	return &warehouse{dir: dir, io: io, cat: catalog.NewFS(io, ".", opts...)}
}

// copyFixture copies a fixture table directory (relative to the fixtures
// root) into the warehouse as db.table.
func (w *warehouse) copyFixture(t *testing.T, rel, db, table string) {
	t.Helper()
	w.copyDir(t, testutil.Fixture(t, rel), db, table)
}

// copyDir copies a table directory into the warehouse as db.table.
func (w *warehouse) copyDir(t *testing.T, src, db, table string) {
	t.Helper()
	dst := filepath.Join(w.dir, db+".db", table)
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		r, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, r)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// result is a read system table: column names and rows of Go values
// (arrowrow.Value convention; timestamps as time.Time is not assumed).
type result struct {
	cols []string
	rows [][]any
}

func (r *result) col(name string) int {
	for i, c := range r.cols {
		if c == name {
			return i
		}
	}
	return -1
}

// get returns column name of row i.
func (r *result) get(t *testing.T, i int, name string) any {
	t.Helper()
	c := r.col(name)
	if c < 0 {
		t.Fatalf("no column %s in %v", name, r.cols)
	}
	return r.rows[i][c]
}

// read scans tbl with req and collects all rows (CheckedAllocator).
func read(t *testing.T, tbl catalog.Table, req catalog.ScanRequest) (*result, catalog.Scan) {
	t.Helper()
	res, sc, err := tryRead(t, tbl, req)
	if err != nil {
		t.Fatal(err)
	}
	return res, sc
}

func tryRead(t *testing.T, tbl catalog.Table, req catalog.ScanRequest) (*result, catalog.Scan, error) {
	t.Helper()
	mem := testutil.CheckedAllocator(t)
	if req.Limit == 0 {
		req.Limit = -1
	}
	sc, err := tbl.NewScan(context.Background(), req)
	if err != nil {
		return nil, nil, err
	}
	rr, err := sc.Read(context.Background(), sc.Splits(), catalog.ReadOptions{Mem: mem})
	if err != nil {
		return nil, sc, err
	}
	defer rr.Release()
	res := &result{}
	for _, f := range rr.Schema().Fields() {
		res.cols = append(res.cols, f.Name)
	}
	for rr.Next() {
		rec := rr.RecordBatch()
		if !rec.Schema().Equal(sc.Schema()) {
			t.Fatalf("batch schema %v, scan schema %v", rec.Schema(), sc.Schema())
		}
		for i := 0; i < int(rec.NumRows()); i++ {
			row := make([]any, rec.NumCols())
			for c := range row {
				row[c] = cellValue(rec.Column(c), i)
			}
			res.rows = append(res.rows, row)
		}
	}
	if err := rr.Err(); err != nil {
		return nil, sc, err
	}
	return res, sc, nil
}

// cellValue converts one cell: lists become []any, timestamps time.Time,
// everything else arrowrow.Value.
func cellValue(a arrow.Array, i int) any {
	if a.IsNull(i) {
		return nil
	}
	switch x := a.(type) {
	case *array.Timestamp:
		unit := x.DataType().(*arrow.TimestampType).Unit
		return x.Value(i).ToTime(unit)
	case *array.List:
		start, end := x.ValueOffsets(i)
		var out []any
		for j := start; j < end; j++ {
			out = append(out, cellValue(x.ListValues(), int(j)))
		}
		return out
	}
	return arrowrow.Value(a, i)
}

func getTable(t *testing.T, cat *catalog.FS, db, name string) catalog.Table {
	t.Helper()
	tbl, err := cat.GetTable(context.Background(), db, name)
	if err != nil {
		t.Fatalf("GetTable(%s.%s): %v", db, name, err)
	}
	return tbl
}

// record builds an Arrow record over fields (plus extra string columns
// named in extra, appended after them) from rows.
func record(t *testing.T, mem memory.Allocator, fields []types.DataField, rows [][]any) arrow.RecordBatch {
	t.Helper()
	b := array.NewRecordBuilder(mem, format.ArrowSchema(fields))
	defer b.Release()
	for _, r := range rows {
		for i, v := range r {
			if err := arrowrow.AppendValue(b.Field(i), v); err != nil {
				t.Fatal(err)
			}
		}
	}
	return b.NewRecordBatch()
}

func wantErr(t *testing.T, err error, msg string, kind error) {
	t.Helper()
	if err == nil {
		t.Fatalf("want error %q, got nil", msg)
	}
	if err.Error() != msg {
		t.Fatalf("error = %q, want exactly %q", err.Error(), msg)
	}
	if kind != nil && !errors.Is(err, kind) {
		t.Fatalf("error %q does not match %v", err, kind)
	}
}

func sortedStrings(vals []any) []string {
	out := make([]string, len(vals))
	for i, v := range vals {
		out[i], _ = v.(string)
	}
	sort.Strings(out)
	return out
}

func column(r *result, name string) []any {
	c := r.col(name)
	out := make([]any, len(r.rows))
	for i, row := range r.rows {
		out[i] = row[c]
	}
	return out
}

func joinStrings(s []string) string { return strings.Join(s, ",") }

func timeMillis(v any) int64 { return v.(interface{ UnixMilli() int64 }).UnixMilli() }

package format

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

type tableSchema struct {
	ID          int               `json:"id"`
	Fields      []types.DataField `json:"fields"`
	PrimaryKeys []string          `json:"primaryKeys"`
}

func loadSchemas(t *testing.T, table string) []tableSchema {
	t.Helper()
	paths, _ := filepath.Glob(filepath.Join(table, "schema", "schema-*"))
	var out []tableSchema
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var s tableSchema
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	if len(out) == 0 {
		t.Fatalf("no schema in %s", table)
	}
	return out
}

func dataFiles(t *testing.T, table string) []string {
	var files []string
	filepath.WalkDir(table, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".parquet") {
			files = append(files, p)
		}
		return nil
	})
	sort.Strings(files)
	return files
}

func openPath(t *testing.T, p string, fields []types.DataField) DataFile {
	t.Helper()
	fh, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fh.Close() })
	st, _ := fh.Stat()
	df, err := Open(fh, st.Size(), filepath.Base(p), fields)
	if err != nil {
		t.Fatal(err)
	}
	return df
}

// fileSchema picks the schema version a file was written with (the manifest
// would say; tests infer it): the newest schema whose field names, and field
// ids where the file has them, match every non-system column of the file.
func fileSchema(t *testing.T, p string, schemas []tableSchema) tableSchema {
	t.Helper()
	pf := openPath(t, p, nil).(*ParquetFile)
	root := pf.md.Schema.Root()
	for i := len(schemas) - 1; i >= 0; i-- {
		s := schemas[i]
		byName := map[string]int{}
		for _, f := range s.Fields {
			byName[f.Name] = f.ID
		}
		ok := true
		for j := 0; j < root.NumFields(); j++ {
			n := root.Field(j)
			if strings.HasPrefix(n.Name(), "_") {
				continue
			}
			id, found := byName[n.Name()]
			if !found || (n.FieldID() >= 0 && int(n.FieldID()) != id) {
				ok = false
				break
			}
		}
		if ok {
			return s
		}
	}
	t.Fatalf("%s matches no schema", p)
	return tableSchema{}
}

// readAll reads every batch of a file and returns the rows rendered
// canonically, checking batch positions.
func readAll(t *testing.T, df DataFile, opts ReadOptions) (rows []string, recs int) {
	t.Helper()
	rr, err := df.Read(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	var pos int64
	for rr.Next() {
		rec := rr.RecordBatch()
		if !rec.Schema().Equal(ArrowSchema(opts.Fields)) {
			t.Fatalf("%s: batch schema %s\nwant %s", df.Name(), rec.Schema(), ArrowSchema(opts.Fields))
		}
		if opts.RowGroups == nil && rr.FirstRow() != pos {
			t.Fatalf("%s: batch first row %d, want %d", df.Name(), rr.FirstRow(), pos)
		}
		pos = rr.FirstRow() + rec.NumRows()
		for i := 0; i < int(rec.NumRows()); i++ {
			m := map[string]string{}
			for c, f := range opts.Fields {
				m[f.Name] = canonArrow(f.Type, rec.Column(c), i)
			}
			rows = append(rows, renderRow(opts.Fields, m))
		}
		recs++
	}
	if err := rr.Err(); err != nil {
		t.Fatal(err)
	}
	return rows, recs
}

func renderRow(fields []types.DataField, m map[string]string) string {
	parts := make([]string, len(fields))
	for i, f := range fields {
		parts[i] = f.Name + "=" + m[f.Name]
	}
	return strings.Join(parts, ", ")
}

// canonArrow renders one Arrow value of Paimon type t canonically.
func canonArrow(t types.DataType, a arrow.Array, i int) string {
	if a.IsNull(i) {
		return "null"
	}
	switch t.Root {
	case types.Decimal:
		v := a.(*array.Decimal128).Value(i)
		return new(big.Rat).SetFrac(v.BigInt(), new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(t.Scale)), nil)).RatString()
	case types.Date:
		return time.Unix(int64(a.(*array.Date32).Value(i))*86400, 0).UTC().Format("2006-01-02")
	case types.Timestamp, types.TimestampLTZ:
		tt := a.(*array.Timestamp)
		unit := tt.DataType().(*arrow.TimestampType).Unit
		return arrow.Timestamp(tt.Value(i)).ToTime(unit).UTC().Format(time.RFC3339Nano)
	case types.Float:
		return strconv.FormatFloat(float64(a.(*array.Float32).Value(i)), 'g', -1, 32)
	case types.Array:
		l := a.(*array.List)
		s, e := l.ValueOffsets(i)
		var parts []string
		for j := s; j < e; j++ {
			parts = append(parts, canonArrow(*t.Element, l.ListValues(), int(j)))
		}
		return "[" + strings.Join(parts, " ") + "]"
	case types.Map:
		m := a.(*array.Map)
		s, e := m.ValueOffsets(i)
		var parts []string
		for j := s; j < e; j++ {
			parts = append(parts, "("+canonArrow(*t.Key, m.Keys(), int(j))+":"+canonArrow(*t.Value, m.Items(), int(j))+")")
		}
		return "[" + strings.Join(parts, " ") + "]"
	case types.Row:
		st := a.(*array.Struct)
		var parts []string
		for j, f := range t.Fields {
			parts = append(parts, f.Name+":"+canonArrow(f.Type, st.Field(j), i))
		}
		return "{" + strings.Join(parts, " ") + "}"
	case types.Binary, types.VarBinary:
		return string(a.(*array.Binary).Value(i))
	}
	return a.ValueStr(i)
}

// canonExpected renders an expected/*.jsonl value the way canonArrow does.
func canonExpected(t *testing.T, ty types.DataType, v any) string {
	if v == nil {
		return "null"
	}
	switch ty.Root {
	case types.Decimal:
		r, ok := new(big.Rat).SetString(v.(string))
		if !ok {
			t.Fatalf("bad decimal %v", v)
		}
		return r.RatString()
	case types.Timestamp, types.TimestampLTZ:
		tm, err := time.Parse("2006-01-02 15:04:05.999999999", v.(string))
		if err != nil {
			t.Fatal(err)
		}
		return tm.UTC().Format(time.RFC3339Nano)
	case types.Float:
		return strconv.FormatFloat(float64(float32(v.(float64))), 'g', -1, 32)
	case types.Double:
		return strconv.FormatFloat(v.(float64), 'g', -1, 64)
	case types.Array:
		var parts []string
		for _, e := range v.([]any) {
			parts = append(parts, canonExpected(t, *ty.Element, e))
		}
		return "[" + strings.Join(parts, " ") + "]"
	case types.Map:
		var parts []string
		for _, e := range v.([]any) {
			kv := e.([]any)
			parts = append(parts, "("+canonExpected(t, *ty.Key, kv[0])+":"+canonExpected(t, *ty.Value, kv[1])+")")
		}
		return "[" + strings.Join(parts, " ") + "]"
	case types.Row:
		m := v.(map[string]any)
		var parts []string
		for _, f := range ty.Fields {
			parts = append(parts, f.Name+":"+canonExpected(t, f.Type, m[f.Name]))
		}
		return "{" + strings.Join(parts, " ") + "}"
	}
	return fmt.Sprint(v)
}

func expectedRows(t *testing.T, path string, fields []types.DataField) []string {
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	var rows []string
	sc := bufio.NewScanner(fh)
	for sc.Scan() {
		var m map[string]any
		d := json.NewDecoder(strings.NewReader(sc.Text()))
		if err := d.Decode(&m); err != nil {
			t.Fatal(err)
		}
		r := map[string]string{}
		for _, f := range fields {
			r[f.Name] = canonExpected(t, f.Type, m[f.Name])
		}
		rows = append(rows, renderRow(fields, r))
	}
	return rows
}

func sameMultiset(t *testing.T, got, want []string) {
	t.Helper()
	sort.Strings(got)
	sort.Strings(want)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("rows differ\ngot:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

const cppParquet = "paimon-cpp/parquet/"

func fixtureTable(t *testing.T, name string) string {
	return testutil.Fixture(t, cppParquet+name+".db/"+name)
}

// TestFixturesExpectedRows compares whole-table expectations for tables
// whose expected rows are exactly the union of their data files.
func TestFixturesExpectedRows(t *testing.T) {
	for _, name := range []string{
		"append_complex_build_in_fieldid",
		"append_with_multiple_ts_precision_and_timezone",
		"append_table_with_alter_table",
	} {
		t.Run(name, func(t *testing.T) {
			mem := testutil.CheckedAllocator(t)
			table := fixtureTable(t, name)
			schemas := loadSchemas(t, table)
			cur := schemas[len(schemas)-1].Fields
			var got []string
			for _, p := range dataFiles(t, table) {
				fs := fileSchema(t, p, schemas)
				rows, _ := readAll(t, openPath(t, p, fs.Fields), ReadOptions{Fields: cur, Allocator: mem, BatchSize: 2})
				got = append(got, rows...)
			}
			sameMultiset(t, got, expectedRows(t, filepath.Join(table, "expected", "latest.jsonl"), cur))
		})
	}
}

// TestFixturesAllDecode reads every Parquet data file of every Parquet
// fixture table with its table's latest schema (plus system columns for
// primary-key tables) and checks row counts and positions.
func TestFixturesAllDecode(t *testing.T) {
	root := testutil.FixturesDir(t)
	var tables []string
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() && fileExists(filepath.Join(p, "schema", "schema-0")) {
			tables = append(tables, p)
			return filepath.SkipDir
		}
		return nil
	})
	n := 0
	for _, table := range tables {
		files := dataFiles(t, table)
		if len(files) == 0 {
			continue
		}
		rel, _ := filepath.Rel(root, table)
		t.Run(rel, func(t *testing.T) {
			mem := testutil.CheckedAllocator(t)
			schemas := loadSchemas(t, table)
			latest := schemas[len(schemas)-1]
			fields := append([]types.DataField(nil), latest.Fields...)
			if len(latest.PrimaryKeys) > 0 {
				var sys []types.DataField
				for _, pk := range latest.PrimaryKeys {
					for _, f := range latest.Fields {
						if f.Name == pk {
							sys = append(sys, KeyField(f))
						}
					}
				}
				fields = append(append(sys, SequenceNumberField(), ValueKindField()), fields...)
			}
			for _, p := range files {
				fs := fileSchema(t, p, schemas)
				df := openPath(t, p, fs.Fields)
				rows, _ := readAll(t, df, ReadOptions{Fields: fields, Allocator: mem, BatchSize: 3})
				if int64(len(rows)) != df.NumRows() {
					t.Fatalf("%s: %d rows, footer says %d", p, len(rows), df.NumRows())
				}
				n++
			}
		})
	}
	if n < 40 {
		t.Fatalf("decoded only %d fixture files", n)
	}
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

var _ = memory.DefaultAllocator

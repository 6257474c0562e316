package binrow

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/hamba/avro/v2/ocf"
	"github.com/parquet-go/parquet-go"

	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// fixtureTable is the part of a fixture table's schema these tests need.
type fixtureTable struct {
	dir     string
	schemas map[int64]tableSchema
	latest  tableSchema
}

type tableSchema struct {
	Fields        []types.DataField `json:"fields"`
	PartitionKeys []string          `json:"partitionKeys"`
	PrimaryKeys   []string          `json:"primaryKeys"`
	Options       map[string]string `json:"options"`
}

func (s tableSchema) typesOf(names []string) ([]types.DataType, error) {
	out := make([]types.DataType, len(names))
	for i, n := range names {
		idx := types.RowType(s.Fields).FieldIndex(n)
		if idx < 0 {
			return nil, fmt.Errorf("no field %q", n)
		}
		out[i] = s.Fields[idx].Type
	}
	return out, nil
}

func (s tableSchema) trimmedPK() []string {
	var out []string
	for _, k := range s.PrimaryKeys {
		if !contains(s.PartitionKeys, k) {
			out = append(out, k)
		}
	}
	return out
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// fixtureTables finds every table directory (one holding schema/) in the fixtures.
func fixtureTables(t testing.TB) []fixtureTable {
	root := testutil.FixturesDir(t)
	var out []fixtureTable
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || !d.IsDir() || d.Name() != "schema" {
			return err
		}
		dir := filepath.Dir(p)
		ft := fixtureTable{dir: dir, schemas: map[int64]tableSchema{}}
		ents, err := os.ReadDir(p)
		if err != nil {
			return err
		}
		latest := int64(-1)
		for _, e := range ents {
			id, err := strconv.ParseInt(strings.TrimPrefix(e.Name(), "schema-"), 10, 64)
			if err != nil {
				continue
			}
			b, err := os.ReadFile(filepath.Join(p, e.Name()))
			if err != nil {
				return err
			}
			var s tableSchema
			if err := json.Unmarshal(b, &s); err != nil {
				return fmt.Errorf("%s: %w", e.Name(), err)
			}
			ft.schemas[id] = s
			if id > latest {
				latest, ft.latest = id, s
			}
		}
		if latest >= 0 {
			out = append(out, ft)
		}
		return filepath.SkipDir
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].dir < out[j].dir })
	return out
}

// unwrap removes hamba/avro's generic union wrappers ({"type name": value}).
func unwrap(v any) any {
	for {
		m, ok := v.(map[string]any)
		if !ok || len(m) != 1 {
			return v
		}
		var k string
		for k = range m {
		}
		if !strings.Contains(k, ".") && k != "array" && k != "string" && k != "bytes" && k != "long" && k != "int" {
			return v
		}
		v = m[k]
	}
}

func field(rec any, name string) any { return unwrap(unwrap(rec).(map[string]any)[name]) }

// readAvro returns the unwrapped records of an Avro container file, or
// ok=false when the file is not Avro (ORC manifests).
func readAvro(t testing.TB, path string) (recs []map[string]any, ok bool) {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	magic := make([]byte, 4)
	if _, err := io.ReadFull(f, magic); err != nil || string(magic[:3]) != "Obj" {
		return nil, false
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	d, err := ocf.NewDecoder(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	for d.HasNext() {
		var v any
		if err := d.Decode(&v); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		recs = append(recs, unwrap(v).(map[string]any))
	}
	if err := d.Error(); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return recs, true
}

// serializedRow is one serialized BinaryRow found in a fixture manifest with
// the types it must decode with.
type serializedRow struct {
	where string
	types []types.DataType
	bytes []byte
}

// fixtureRows collects every partition, key, stats and partition-stats row
// of every Avro manifest in the fixtures.
func fixtureRows(t testing.TB) []serializedRow {
	var rows []serializedRow
	for _, tb := range fixtureTables(t) {
		ents, err := os.ReadDir(filepath.Join(tb.dir, "manifest"))
		if err != nil {
			continue
		}
		ptypes, err := tb.latest.typesOf(tb.latest.PartitionKeys)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			path := filepath.Join(tb.dir, "manifest", e.Name())
			recs, ok := readAvro(t, path)
			if !ok {
				continue
			}
			add := func(what string, ts []types.DataType, v any) {
				b, _ := unwrap(v).([]byte)
				if b == nil {
					return
				}
				rows = append(rows, serializedRow{where: path + " " + what, types: ts, bytes: b})
			}
			for i, r := range recs {
				at := fmt.Sprintf("#%d", i)
				switch {
				case strings.HasPrefix(e.Name(), "manifest-list-"):
					ps := field(r, "_PARTITION_STATS")
					add(at+" _PARTITION_STATS._MIN_VALUES", StatsFieldTypes(ptypes), field(ps, "_MIN_VALUES"))
					add(at+" _PARTITION_STATS._MAX_VALUES", StatsFieldTypes(ptypes), field(ps, "_MAX_VALUES"))
				case strings.HasPrefix(e.Name(), "index-manifest-"):
					add(at+" _PARTITION", ptypes, r["_PARTITION"])
				case strings.HasPrefix(e.Name(), "manifest-"):
					add(at+" _PARTITION", ptypes, r["_PARTITION"])
					file := field(r, "_FILE")
					sid := field(file, "_SCHEMA_ID").(int64)
					s, ok := tb.schemas[sid]
					if !ok {
						t.Fatalf("%s: schema %d missing", path, sid)
					}
					ktypes, err := s.typesOf(s.trimmedPK())
					if err != nil {
						t.Fatal(err)
					}
					add(at+" _MIN_KEY", ktypes, field(file, "_MIN_KEY"))
					add(at+" _MAX_KEY", ktypes, field(file, "_MAX_KEY"))
					ks := field(file, "_KEY_STATS")
					add(at+" _KEY_STATS._MIN_VALUES", StatsFieldTypes(ktypes), field(ks, "_MIN_VALUES"))
					add(at+" _KEY_STATS._MAX_VALUES", StatsFieldTypes(ktypes), field(ks, "_MAX_VALUES"))
					cols := types.RowType(s.Fields).Names()
					if sc := field(file, "_VALUE_STATS_COLS"); sc != nil {
						cols = cols[:0]
						for _, c := range sc.([]any) {
							cols = append(cols, c.(string))
						}
					}
					vs := field(file, "_VALUE_STATS")
					if mv, ok := field(vs, "_MIN_VALUES").([]byte); ok && field(file, "_VALUE_STATS_COLS") == nil {
						// append_table_with_append_pt_branch: files written on a branch whose
						// schema files were not copied; use the table schema of that arity.
						if a, _, err := SplitSerialized(mv); err == nil && a != len(cols) {
							for _, other := range tb.schemas {
								if len(other.Fields) == a {
									cols = types.RowType(other.Fields).Names()
									s = other
								}
							}
						}
					}
					vtypes, err := s.typesOf(cols)
					if err != nil {
						t.Fatal(err)
					}
					add(at+" _VALUE_STATS._MIN_VALUES", StatsFieldTypes(vtypes), field(vs, "_MIN_VALUES"))
					add(at+" _VALUE_STATS._MAX_VALUES", StatsFieldTypes(vtypes), field(vs, "_MAX_VALUES"))
				}
			}
		}
	}
	return rows
}

// TestFixtureRowsRoundTrip decodes every serialized row of every Avro
// manifest in the fixtures and checks that re-encoding gives Java's bytes.
func TestFixtureRowsRoundTrip(t *testing.T) {
	rows := fixtureRows(t)
	if len(rows) < 100 {
		t.Fatalf("only %d fixture rows found", len(rows))
	}
	seen := map[string]bool{}
	for _, r := range rows {
		vals, err := Deserialize(r.types, r.bytes)
		if err != nil {
			t.Errorf("%s: %v", r.where, err)
			continue
		}
		again, err := Serialize(r.types, vals)
		if err != nil {
			t.Errorf("%s: re-encode %v: %v", r.where, vals, err)
			continue
		}
		if string(again) != string(r.bytes) {
			t.Errorf("%s: re-encoding %v\n got %x\nwant %x", r.where, vals, again, r.bytes)
		}
		for i, ty := range r.types {
			seen[ty.Root.String()+nullTag(vals[i])] = true
		}
	}
	var kinds []string
	for k := range seen {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	t.Logf("%d fixture rows round-tripped; type kinds seen: %v", len(rows), kinds)
	for _, want := range []string{"INT", "STRING", "DOUBLE", "TIMESTAMP", "DECIMAL"} {
		found := false
		for _, k := range kinds {
			found = found || strings.HasPrefix(k, want) || (want == "STRING" && strings.HasPrefix(k, "VARCHAR"))
		}
		if !found {
			t.Errorf("no fixture row of type %s", want)
		}
	}
}

func nullTag(v any) string {
	if v == nil {
		return "(null)"
	}
	return ""
}

// TestFixtureBuckets checks that every row of every data file of the
// fixed-bucket fixture tables hashes to the bucket directory holding it.
func TestFixtureBuckets(t *testing.T) {
	checkedTables, checkedRows := 0, 0
	for _, tb := range fixtureTables(t) {
		n, err := strconv.Atoi(tb.latest.Options["bucket"])
		if err != nil || n <= 0 {
			continue
		}
		if f := tb.latest.Options["bucket-function.type"]; f != "" && f != "default" {
			continue
		}
		keys := tb.latest.trimmedPK()
		if bk := tb.latest.Options["bucket-key"]; bk != "" {
			keys = strings.Split(bk, ",")
		}
		ktypes, err := tb.latest.typesOf(keys)
		if err != nil {
			t.Fatal(err)
		}
		files, _ := filepath.Glob(filepath.Join(tb.dir, "*", "bucket-*", "*.parquet"))
		more, _ := filepath.Glob(filepath.Join(tb.dir, "bucket-*", "*.parquet"))
		files = append(files, more...)
		if len(files) == 0 {
			continue
		}
		checkedTables++
		for _, path := range files {
			want, err := strconv.Atoi(strings.TrimPrefix(filepath.Base(filepath.Dir(path)), "bucket-"))
			if err != nil {
				t.Fatal(err)
			}
			cols := readParquetColumns(t, path, keys)
			for row := range cols[0] {
				vals := make([]any, len(keys))
				for i := range keys {
					vals[i] = cols[i][row]
				}
				got, err := BucketOf(ktypes, vals, n)
				if err != nil {
					t.Fatal(err)
				}
				if got != want {
					t.Errorf("%s row %d key %v: bucket %d, file is in bucket-%d", path, row, vals, got, want)
				}
				checkedRows++
			}
		}
	}
	if checkedTables < 3 || checkedRows < 20 {
		t.Fatalf("checked only %d tables / %d rows", checkedTables, checkedRows)
	}
	t.Logf("%d fixed-bucket tables, %d rows hash to their bucket", checkedTables, checkedRows)
}

// readParquetColumns reads the named top-level columns as Go values
// (INT32 → int64, BYTE_ARRAY → string, INT64 → int64).
func readParquetColumns(t *testing.T, path string, names []string) [][]any {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	out := make([][]any, len(names))
	for i, n := range names {
		col := pf.Root().Column(n)
		if col == nil {
			t.Fatalf("%s: no column %q", path, n)
		}
		for _, rg := range pf.RowGroups() {
			pages := rg.ColumnChunks()[col.Index()].Pages()
			for {
				p, err := pages.ReadPage()
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					t.Fatalf("%s: %v", path, err)
				}
				vals := make([]parquet.Value, p.NumValues())
				k, err := p.Values().ReadValues(vals)
				if err != nil && !errors.Is(err, io.EOF) {
					t.Fatalf("%s: %v", path, err)
				}
				for _, v := range vals[:k] {
					switch {
					case v.IsNull():
						out[i] = append(out[i], nil)
					case v.Kind() == parquet.Int32:
						out[i] = append(out[i], int64(v.Int32()))
					case v.Kind() == parquet.Int64:
						out[i] = append(out[i], v.Int64())
					case v.Kind() == parquet.ByteArray:
						out[i] = append(out[i], string(v.ByteArray()))
					default:
						t.Fatalf("%s: unsupported key kind %v", path, v.Kind())
					}
				}
			}
			pages.Close()
		}
	}
	return out
}

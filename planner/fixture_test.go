package planner

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/fileio"
)

// fixtureRow is one expected row: column → rendered value.
type fixtureRow map[string]string

func renderJSON(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case json.Number:
		if strings.ContainsAny(string(x), ".eE") {
			f, _ := x.Float64()
			return strconv.FormatFloat(f, 'g', -1, 64)
		}
		return string(x)
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func readJSONL(t *testing.T, path string) []fixtureRow {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows []fixtureRow
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		d := json.NewDecoder(strings.NewReader(sc.Text()))
		d.UseNumber()
		var m map[string]any
		if err := d.Decode(&m); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		r := fixtureRow{}
		for k, v := range m {
			r[k] = renderJSON(v)
		}
		rows = append(rows, r)
	}
	return rows
}

func canon(rows []fixtureRow) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		keys := make([]string, 0, len(r))
		for k := range r {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, len(keys))
		for j, k := range keys {
			parts[j] = k + "=" + r[k]
		}
		out[i] = strings.Join(parts, ",")
	}
	sort.Strings(out)
	return out
}

func runFixture(t *testing.T, e *Engine, sql string) ([]fixtureRow, error) {
	t.Helper()
	mem := testutil.CheckedAllocator(t)
	rdr, err := Run(context.Background(), e, sql, Session{}, mem)
	if err != nil {
		return nil, err
	}
	defer rdr.Release()
	var rows []fixtureRow
	names := rdr.Schema().Fields()
	for rdr.Next() {
		for _, line := range renderRows(rdr.RecordBatch()) {
			vals := strings.Split(line, "|")
			if len(vals) != len(names) {
				return nil, fmt.Errorf("row %q has a '|' inside a value", line)
			}
			r := fixtureRow{}
			for i, f := range names {
				r[f.Name] = vals[i]
			}
			rows = append(rows, r)
		}
	}
	return rows, rdr.Err()
}

var snapshotFile = regexp.MustCompile(`^snapshot-(\d+)\.jsonl$`)

// TestFixtureTables runs SELECT * (latest and time-travelled snapshots) over
// the parquet fixture tables and compares with their expected rows; then,
// for equality and range filters on every integer/string column, compares
// the real pruning scan's answer with the expected rows filtered here.
func TestFixtureTables(t *testing.T) {
	for _, root := range testutil.FixtureDirs(t) {
		fixtureTables(t, filepath.Join(root, "paimon-cpp", "parquet"))
	}
}

// fixtureProjection returns the column list an expected file was asserted
// with ("projection" in expected/index.json), or nil.
func fixtureProjection(exp, file string) []string {
	data, err := os.ReadFile(filepath.Join(exp, "index.json"))
	if err != nil {
		return nil
	}
	var idx struct {
		Expected []struct {
			File  string `json:"file"`
			Query struct {
				Projection json.RawMessage `json:"projection"`
			} `json:"query"`
		} `json:"expected"`
	}
	if json.Unmarshal(data, &idx) != nil {
		return nil
	}
	for _, e := range idx.Expected {
		var p []string
		if e.File == file && json.Unmarshal(e.Query.Projection, &p) == nil {
			return p
		}
	}
	return nil
}

func fixtureTables(t *testing.T, dir string) {
	io, err := fileio.NewLocal(dir)
	if err != nil {
		t.Fatal(err)
	}
	e := New(catalog.NewFS(io, ""), Options{BatchSize: 3})
	tables, _ := filepath.Glob(filepath.Join(dir, "*.db", "*", "expected"))
	for _, exp := range tables {
		tdir := filepath.Dir(exp)
		db := strings.TrimSuffix(filepath.Base(filepath.Dir(tdir)), ".db")
		name := db + "." + filepath.Base(tdir)
		files := map[string]string{}
		if _, err := os.Stat(filepath.Join(exp, "latest.jsonl")); err == nil {
			files["latest.jsonl"] = ""
		}
		ents, _ := os.ReadDir(exp)
		for _, en := range ents {
			if m := snapshotFile.FindStringSubmatch(en.Name()); m != nil {
				files[en.Name()] = m[1]
			}
		}
		for file, snap := range files {
			t.Run(name+"/"+file, func(t *testing.T) {
				hint := ""
				if snap != "" {
					hint = " /*+ OPTIONS('scan.snapshot-id'='" + snap + "') */"
				}
				want := readJSONL(t, filepath.Join(exp, file))
				tab, err := e.cat.GetTable(context.Background(), db, filepath.Base(tdir))
				if err != nil {
					t.Fatal(err)
				}
				proj := fixtureProjection(exp, file)
				// Compare scalar non-time columns only (nested values and timestamps
				// are rendered differently by the fixtures).
				var cols []string
				for _, f := range tab.Schema().Fields() {
					if proj != nil && !slices.Contains(proj, f.Name) {
						continue // not asserted by the source test
					}
					if catalog.IsSystemColumn(f) && (len(want) == 0 || want[0][f.Name] == "") {
						continue // system column the expected rows do not show
					}
					if c := classOf(f.Type); c != cOther && c != cTimestamp && c != cTime {
						cols = append(cols, "`"+f.Name+"`")
					} else {
						for _, r := range want {
							delete(r, f.Name)
						}
					}
				}
				if len(cols) == 0 {
					t.Skip("no column comparable as text")
				}
				testutil.LinkExternalPaths(t, tdir)
				got, err := runFixture(t, e, "SELECT "+strings.Join(cols, ", ")+" FROM "+name+hint)
				if p, ok := testutil.PendingFixture(tdir); ok {
					testutil.CheckPending(t, p, err)
				}
				if errors.Is(err, catalog.ErrUnsupported) {
					t.Skipf("scan does not support this table yet: %v", err)
				}
				if err != nil {
					t.Fatal(err)
				}
				// FLOAT columns hold float32 values: render them at float32
				// precision, as the fixtures do.
				norm32 := func(rows []fixtureRow) {
					for _, f := range tab.Schema().Fields() {
						if f.Type.ID() != arrow.FLOAT32 {
							continue
						}
						for _, r := range rows {
							if x, err := strconv.ParseFloat(r[f.Name], 64); err == nil {
								r[f.Name] = strconv.FormatFloat(float64(float32(x)), 'g', -1, 32)
							}
						}
					}
				}
				norm32(got)
				if !slices.Equal(canon(got), canon(want)) {
					t.Fatalf("SELECT * FROM %s%s\n got: %v\nwant: %v", name, hint, canon(got), canon(want))
				}
				// Filters: pruning must never change a result.
				if len(want) == 0 {
					return
				}
				numeric := map[string]bool{}
				for _, f := range tab.Schema().Fields() {
					numeric[f.Name] = isNumeric(classOf(f.Type))
				}
				for col := range want[0] {
					var vals []string
					for _, r := range want {
						if !slices.Contains(vals, r[col]) && r[col] != "NULL" {
							vals = append(vals, r[col])
						}
					}
					sort.Strings(vals)
					for _, v := range vals[:min(3, len(vals))] {
						n, isInt := strconv.ParseInt(v, 10, 64)
						lit := "'" + strings.ReplaceAll(v, "'", "''") + "'"
						if isInt == nil && numeric[col] {
							lit = v
						} else if !numeric[col] {
							isInt = errors.New("string column")
						} else if strings.ContainsAny(v, ".-:") {
							continue // floats, dates, timestamps: equality on rendered text is not meaningful
						}
						checks := []struct {
							op   string
							keep func(string) bool
						}{{"=", func(s string) bool { return s == v }}}
						if isInt == nil {
							checks = append(checks, struct {
								op   string
								keep func(string) bool
							}{">", func(s string) bool {
								x, err := strconv.ParseFloat(s, 64)
								return err == nil && x > float64(n)
							}})
						}
						for _, c := range checks {
							var fw []fixtureRow
							for _, r := range want {
								if c.keep(r[col]) {
									fw = append(fw, r)
								}
							}
							sql := fmt.Sprintf("SELECT %s FROM %s%s WHERE `%s` %s %s", strings.Join(cols, ", "), name, hint, col, c.op, lit)
							got, err := runFixture(t, e, sql)
							if err != nil {
								t.Fatalf("%s: %v", sql, err)
							}
							norm32(got)
							if !slices.Equal(canon(got), canon(fw)) {
								t.Errorf("%s\n got: %v\nwant: %v", sql, canon(got), canon(fw))
							}
						}
					}
				}
			})
		}
	}
}

// TestFixtureExplainPruning checks that EXPLAIN reports the real scan's
// partition pruning on a fixture table (2 partitions × 2 files).
func TestFixtureExplainPruning(t *testing.T) {
	dir := filepath.Join(testutil.FixturesDir(t), "paimon-cpp", "parquet")
	io, err := fileio.NewLocal(dir)
	if err != nil {
		t.Fatal(err)
	}
	e := New(catalog.NewFS(io, ""), Options{})
	for sql, want := range map[string]string{
		"EXPLAIN SELECT k FROM append_table_with_alter_table.append_table_with_alter_table WHERE key0 = 1":  "data files: 4 total, 2 pruned by partition",
		"EXPLAIN SELECT k FROM append_table_with_alter_table.append_table_with_alter_table WHERE key0 = 7":  "manifests: 2 total, 2 pruned",
		"EXPLAIN SELECT k FROM append_table_with_alter_table.append_table_with_alter_table WHERE k > 0":     "data files: 4 total, 0 pruned by partition",
		"EXPLAIN SELECT k FROM append_table_with_alter_table.append_table_with_alter_table WHERE key0 >= 0": "pushed filter: key0 >= 0",
	} {
		rows, err := runFixture(t, e, sql)
		if err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		found := false
		var plan []string
		for _, r := range rows {
			plan = append(plan, r["plan"])
			found = found || strings.Contains(r["plan"], want)
		}
		if !found {
			t.Errorf("%s: no line containing %q in\n%s", sql, want, strings.Join(plan, "\n"))
		}
	}
}

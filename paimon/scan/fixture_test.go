package scan

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-flightsql/paimon-flightsql/internal/rowfmt"
	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/fileio"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

type fixtureIndex struct {
	Expected []struct {
		File    string          `json:"file"`
		Rows    int             `json:"row_count"`
		Query   json.RawMessage `json:"query"`
		Columns []struct {
			Name string `json:"name"`
			Type string `json:"type"`
		} `json:"columns"`
	} `json:"expected"`
}

type fixtureQuery struct {
	SnapshotID      *int64          `json:"snapshot_id"`
	Branch          string          `json:"branch"`
	PartitionFilter json.RawMessage `json:"partition_filter"`
	BucketFilter    *int32          `json:"bucket_filter"`
	RowFilter       string          `json:"row_filter"`
	Mode            string          `json:"mode"`
	Incremental     string          `json:"incremental"`
	SystemTable     string          `json:"system_table"`
	Decode          string          `json:"decode"`
	Projection      json.RawMessage `json:"projection"` // a list of names (or prose)
	// columns to read: Projection, else the expected columns when they
	// include system fields (_ROW_ID ...), else nil (all)
	columns []string
}

// TestFixtureExpectedRows reads every fixture table with expected batch rows
// and compares them as multisets.
func TestFixtureExpectedRows(t *testing.T) {
	var indexes []string
	roots := map[string]string{} // index path → fixture root
	for _, root := range testutil.FixtureDirs(t) {
		filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
			if err == nil && info.Name() == "index.json" && filepath.Base(filepath.Dir(p)) == "expected" {
				indexes = append(indexes, p)
				roots[p] = root
			}
			return nil
		})
	}
	if len(indexes) == 0 {
		t.Fatal("no expected/index.json found under fixtures")
	}
	checked := 0
	for _, idxPath := range indexes {
		tableDir := filepath.Dir(filepath.Dir(idxPath))
		var idx fixtureIndex
		data, err := os.ReadFile(idxPath)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, &idx); err != nil {
			t.Fatalf("%s: %v", idxPath, err)
		}
		for _, e := range idx.Expected {
			var q fixtureQuery
			if len(e.Query) == 0 || string(e.Query) == "null" {
				continue
			}
			if err := json.Unmarshal(e.Query, &q); err != nil {
				t.Fatalf("%s %s: %v", idxPath, e.File, err)
			}
			if q.Mode != "" || q.Incremental != "" || q.SystemTable != "" || q.Decode != "" || !strings.HasSuffix(e.File, ".jsonl") {
				continue // streaming plans, deltas and system tables are tested elsewhere
			}
			var proj []string
			json.Unmarshal(q.Projection, &proj) // prose projections read all columns
			q.columns = proj
			for _, c := range e.Columns {
				if strings.Contains(c.Type, "system field") {
					q.columns = nil
					for _, c := range e.Columns {
						q.columns = append(q.columns, c.Name)
					}
					if proj != nil {
						q.columns = proj
					}
					break
				}
			}
			name := strings.TrimPrefix(tableDir, roots[idxPath]+"/") + "/" + e.File
			t.Run(name, func(t *testing.T) {
				testutil.LinkExternalPaths(t, tableDir)
				err := runFixtureQuery(t, tableDir, filepath.Join(filepath.Dir(idxPath), e.File), q)
				if p, ok := testutil.PendingFixture(tableDir); ok {
					testutil.CheckPending(t, p, err)
				}
				if err != nil {
					t.Fatal(err)
				}
			})
			checked++
		}
	}
	t.Logf("checked %d expected results", checked)
}

// runFixtureQuery reads one expected result's query and compares the rows
// (failing t); it returns the error of opening, planning or reading.
func runFixtureQuery(t *testing.T, tableDir, expectedFile string, q fixtureQuery) error {
	ctx := context.Background()
	mem := testutil.CheckedAllocator(t)
	fio, err := fileio.NewLocal(filepath.Dir(tableDir))
	if err != nil {
		return err
	}
	tbl, err := paimon.OpenTable(ctx, fio, filepath.Base(tableDir), q.Branch)
	if err != nil {
		return err
	}
	opts := Options{Concurrency: 2, Columns: q.columns}
	if q.SnapshotID != nil {
		opts.SnapshotID = *q.SnapshotID
	}
	sc, err := New(ctx, tbl, opts)
	if err != nil {
		return err
	}
	filter, err := fixtureFilter(sc.TableSchema(), q)
	if err != nil {
		t.Fatal(err)
	}
	want := canonicalExpected(t, expectedFile)
	sort.Strings(want)
	// With and without metadata pruning: pruning never changes a result.
	for _, noPrune := range []bool{false, true} {
		opts.Filter = filter
		opts.NoPruning = noPrune
		if sc, err = New(ctx, tbl, opts); err != nil {
			return err
		}
		plan, err := sc.Plan(ctx)
		if err != nil {
			return err
		}
		splits := plan.Splits
		if q.BucketFilter != nil {
			splits = splits[:0:0]
			for _, sp := range plan.Splits {
				if sp.Bucket == *q.BucketFilter {
					splits = append(splits, sp)
				}
			}
		}
		rd, err := sc.Read(ctx, mem, splits)
		if err != nil {
			return err
		}
		var got []string
		for rd.Next() {
			got = append(got, canonicalBatch(t, rd.RecordBatch())...)
		}
		err = rd.Err()
		rd.Release()
		if err != nil {
			return err
		}
		sort.Strings(got)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("rows differ (no pruning: %v)\n got (%d):\n  %s\nwant (%d):\n  %s", noPrune, len(got), strings.Join(got, "\n  "), len(want), strings.Join(want, "\n  "))
		}
	}
	return nil
}

// fixtureFilter builds the predicate of a fixture query's partition and row filters.
func fixtureFilter(sc *paimon.TableSchema, q fixtureQuery) (predicate.Predicate, error) {
	var conj []predicate.Predicate
	if len(q.PartitionFilter) > 0 && string(q.PartitionFilter) != "null" {
		var alts []map[string]string
		if q.PartitionFilter[0] == '[' {
			if err := json.Unmarshal(q.PartitionFilter, &alts); err != nil {
				return nil, err
			}
		} else {
			var one map[string]string
			if err := json.Unmarshal(q.PartitionFilter, &one); err != nil {
				return nil, err
			}
			alts = append(alts, one)
		}
		var ors []predicate.Predicate
		for _, alt := range alts {
			var ands []predicate.Predicate
			for col, v := range alt {
				f, ok := sc.FieldByName(col)
				if !ok {
					return nil, fmt.Errorf("partition column %s", col)
				}
				if v == sc.PartitionDefaultName() {
					ands = append(ands, &predicate.Leaf{Column: col, FieldID: f.ID, Type: f.Type, Op: predicate.IsNull})
					continue
				}
				lit, err := literalFor(f.Type, v)
				if err != nil {
					return nil, err
				}
				ands = append(ands, &predicate.Leaf{Column: col, FieldID: f.ID, Type: f.Type, Op: predicate.Eq, Literals: []any{lit}})
			}
			ors = append(ors, predicate.NewAnd(ands...))
		}
		conj = append(conj, predicate.NewOr(ors...))
	}
	if q.RowFilter != "" {
		p, err := fixtureRowFilter(sc, q.RowFilter)
		if err != nil {
			return nil, err
		}
		conj = append(conj, p)
	}
	if len(conj) == 0 {
		return nil, nil
	}
	return predicate.NewAnd(conj...), nil
}

// fixtureRowFilter parses the row filters of the fixtures: comparisons of a
// column with a literal ('text' quoted), joined by AND or by OR.
func fixtureRowFilter(sc *paimon.TableSchema, text string) (predicate.Predicate, error) {
	leaf := func(s string) (predicate.Predicate, error) {
		s = strings.TrimSpace(s)
		col, rest, _ := strings.Cut(s, " ")
		f, ok := sc.FieldByName(col)
		if !ok {
			return nil, fmt.Errorf("row filter column %s", col)
		}
		mk := func(op predicate.Op, vals ...string) (predicate.Predicate, error) {
			l := &predicate.Leaf{Column: f.Name, FieldID: f.ID, Type: f.Type, Op: op}
			for _, v := range vals {
				v = strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(v), "'"), "'")
				lit, err := literalFor(f.Type, v)
				if err != nil {
					return nil, err
				}
				l.Literals = append(l.Literals, lit)
			}
			return l, nil
		}
		rest = strings.TrimSpace(rest)
		switch up := strings.ToUpper(rest); {
		case up == "IS NULL":
			return mk(predicate.IsNull)
		case up == "IS NOT NULL":
			return mk(predicate.IsNotNull)
		case strings.HasPrefix(up, "IN (") || strings.HasPrefix(up, "NOT IN ("):
			op, list := predicate.In, rest[len("IN ("):]
			if strings.HasPrefix(up, "NOT") {
				op, list = predicate.NotIn, rest[len("NOT IN ("):]
			}
			return mk(op, strings.Split(strings.TrimSuffix(list, ")"), ",")...)
		}
		for _, o := range []struct {
			text string
			op   predicate.Op
		}{{"<>", predicate.NotEq}, {"!=", predicate.NotEq}, {">=", predicate.GtEq}, {"<=", predicate.LtEq}, {"=", predicate.Eq}, {">", predicate.Gt}, {"<", predicate.Lt}} {
			if v, ok := strings.CutPrefix(rest, o.text); ok {
				return mk(o.op, v)
			}
		}
		return nil, fmt.Errorf("unsupported row filter %q", s)
	}
	for _, sep := range []string{" OR ", " AND "} {
		if parts := strings.Split(text, sep); len(parts) > 1 {
			var ps []predicate.Predicate
			for _, part := range parts {
				p, err := leaf(part)
				if err != nil {
					return nil, err
				}
				ps = append(ps, p)
			}
			if sep == " OR " {
				return predicate.NewOr(ps...), nil
			}
			return predicate.NewAnd(ps...), nil
		}
	}
	return leaf(text)
}

func literalFor(t types.DataType, v string) (any, error) {
	switch t.Root {
	case types.TinyInt, types.SmallInt, types.Int, types.BigInt:
		return strconv.ParseInt(v, 10, 64)
	case types.Float, types.Double:
		return strconv.ParseFloat(v, 64)
	case types.Char, types.VarChar:
		return v, nil
	}
	return nil, fmt.Errorf("no literal for %s", t)
}

var tsRe = regexp.MustCompile(`^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2})(\.\d+)?Z?$`)

// canon normalises a JSON value so our rendering and the fixtures' compare:
// timestamps lose the T/Z and trailing fractional zeros, numbers compare at
// float32 precision.
func canon(v any) any {
	switch x := v.(type) {
	case string:
		if m := tsRe.FindStringSubmatch(x); m != nil {
			frac := strings.TrimRight(m[3], "0")
			if frac == "." {
				frac = ""
			}
			return m[1] + " " + m[2] + frac
		}
		return x
	case json.Number:
		f, _ := x.Float64()
		return canonFloat(f)
	case float64:
		return canonFloat(x)
	case []any:
		out := make([]any, len(x))
		for i := range x {
			out[i] = canon(x[i])
		}
		return out
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			out[k] = canon(e)
		}
		return out
	}
	return v
}

func canonFloat(f float64) string {
	if f == math.Trunc(f) && math.Abs(f) < 1e15 {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return strconv.FormatFloat(float64(float32(f)), 'g', 7, 32)
}

func canonicalBatch(t *testing.T, b arrow.RecordBatch) []string {
	var out []string
	var buf bytes.Buffer
	w, _ := rowfmt.NewWriter(&buf, "jsonl")
	if err := w.Write(b); err != nil {
		t.Fatal(err)
	}
	sc := b.Schema()
	for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		if line == "" {
			continue
		}
		dec := json.NewDecoder(strings.NewReader(line))
		dec.UseNumber()
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < sc.NumFields(); i++ {
			m[sc.Field(i).Name] = binaryAsText(sc.Field(i).Type, m[sc.Field(i).Name])
		}
		c, _ := json.Marshal(canon(m))
		out = append(out, string(c))
	}
	return out
}

func canonicalExpected(t *testing.T, file string) []string {
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		dec := json.NewDecoder(strings.NewReader(line))
		dec.UseNumber()
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			t.Fatal(err)
		}
		c, _ := json.Marshal(canon(m))
		out = append(out, string(c))
	}
	return out
}

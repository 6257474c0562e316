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
		File  string          `json:"file"`
		Rows  int             `json:"row_count"`
		Query json.RawMessage `json:"query"`
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
}

// TestFixtureExpectedRows reads every fixture table with expected batch rows
// and compares them as multisets.
func TestFixtureExpectedRows(t *testing.T) {
	root := testutil.FixturesDir(t)
	var indexes []string
	filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
		if err == nil && info.Name() == "index.json" && filepath.Base(filepath.Dir(p)) == "expected" {
			indexes = append(indexes, p)
		}
		return nil
	})
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
			name := strings.TrimPrefix(tableDir, root+"/") + "/" + e.File
			t.Run(name, func(t *testing.T) {
				runFixtureQuery(t, tableDir, filepath.Join(filepath.Dir(idxPath), e.File), q)
			})
			checked++
		}
	}
	t.Logf("checked %d expected results", checked)
}

func runFixtureQuery(t *testing.T, tableDir, expectedFile string, q fixtureQuery) {
	ctx := context.Background()
	mem := testutil.CheckedAllocator(t)
	fio, err := fileio.NewLocal(filepath.Dir(tableDir))
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := paimon.OpenTable(ctx, fio, filepath.Base(tableDir), q.Branch)
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{Concurrency: 2}
	if q.SnapshotID != nil {
		opts.SnapshotID = *q.SnapshotID
	}
	sc, err := New(ctx, tbl, opts)
	if err != nil {
		t.Fatal(err)
	}
	filter, err := fixtureFilter(sc.TableSchema(), q)
	if err != nil {
		t.Fatal(err)
	}
	opts.Filter = filter
	if sc, err = New(ctx, tbl, opts); err != nil {
		t.Fatal(err)
	}
	plan, err := sc.Plan(ctx)
	if err != nil {
		t.Fatal(err)
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
		t.Fatal(err)
	}
	defer rd.Release()
	var got []string
	for rd.Next() {
		got = append(got, canonicalBatch(t, rd.RecordBatch())...)
	}
	if err := rd.Err(); err != nil {
		t.Fatal(err)
	}
	want := canonicalExpected(t, expectedFile)
	sort.Strings(got)
	sort.Strings(want)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("rows differ\n got (%d):\n  %s\nwant (%d):\n  %s", len(got), strings.Join(got, "\n  "), len(want), strings.Join(want, "\n  "))
	}
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
		m := regexp.MustCompile(`^(\w+)\s*(>=|<=|=|>|<)\s*(\S+)$`).FindStringSubmatch(q.RowFilter)
		if m == nil {
			return nil, fmt.Errorf("unsupported row filter %q", q.RowFilter)
		}
		f, ok := sc.FieldByName(m[1])
		if !ok {
			return nil, fmt.Errorf("row filter column %s", m[1])
		}
		lit, err := literalFor(f.Type, m[3])
		if err != nil {
			return nil, err
		}
		op := map[string]predicate.Op{">": predicate.Gt, ">=": predicate.GtEq, "<": predicate.Lt, "<=": predicate.LtEq, "=": predicate.Eq}[m[2]]
		conj = append(conj, &predicate.Leaf{Column: f.Name, FieldID: f.ID, Type: f.Type, Op: op, Literals: []any{lit}})
	}
	if len(conj) == 0 {
		return nil, nil
	}
	return predicate.NewAnd(conj...), nil
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

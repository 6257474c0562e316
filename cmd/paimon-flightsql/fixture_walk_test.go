package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/paimon-flightsql/paimon-flightsql/internal/rowfmt"
	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
)

// walkEntry is one expected result of a fixture table that the CLI and the
// Flight server can express: a snapshot, a column list, a SQL row filter.
type walkEntry struct {
	warehouse, db, table, tableDir string
	file                           string // expected jsonl
	snapshot                       *int64
	columns                        []string
	binary                         map[string]string // column → Paimon type, for columns holding bytes (shown as UTF-8 text)
	rowFilter                      string
}

// fixtureWalk lists the expected results of both fixture folders that cat,
// query and Flight can run (partition/bucket/branch-filtered and streaming
// results are covered by paimon/scan's walk only).
func fixtureWalk(t *testing.T) []walkEntry {
	var out []walkEntry
	for _, root := range testutil.FixtureDirs(t) {
		filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
			if err != nil || info.Name() != "index.json" || filepath.Base(filepath.Dir(p)) != "expected" {
				return nil
			}
			var idx struct {
				Expected []struct {
					File    string `json:"file"`
					Columns []struct {
						Name string `json:"name"`
						Type string `json:"type"`
					} `json:"columns"`
					Query map[string]json.RawMessage `json:"query"`
				} `json:"expected"`
			}
			data, _ := os.ReadFile(p)
			if json.Unmarshal(data, &idx) != nil {
				t.Fatalf("%s: bad index", p)
			}
			tableDir := filepath.Dir(filepath.Dir(p))
			dbDir := filepath.Dir(tableDir)
			if !strings.HasSuffix(dbDir, ".db") {
				return nil
			}
		entries:
			for _, e := range idx.Expected {
				if !strings.HasSuffix(e.File, ".jsonl") || e.Query == nil {
					continue
				}
				w := walkEntry{warehouse: filepath.Dir(dbDir), db: strings.TrimSuffix(filepath.Base(dbDir), ".db"),
					table: filepath.Base(tableDir), tableDir: tableDir, file: filepath.Join(filepath.Dir(p), e.File), binary: map[string]string{}}
				for k, v := range e.Query {
					switch k {
					case "snapshot_id":
						json.Unmarshal(v, &w.snapshot)
					case "row_filter":
						json.Unmarshal(v, &w.rowFilter)
					case "projection":
						json.Unmarshal(v, &w.columns) // prose projections: all columns
					case "note", "schema_id", "external_path_remap", "as_of_timestamp":
					default:
						if string(v) != "null" {
							continue entries // partition/bucket/branch/mode/...: not expressible here
						}
					}
				}
				system := false
				for _, c := range e.Columns {
					system = system || strings.Contains(c.Type, "system field")
					if strings.Contains(c.Type, "BLOB") || strings.Contains(c.Type, "BYTES") || strings.Contains(c.Type, "BINARY") {
						w.binary[c.Name] = c.Type
					}
				}
				if system && w.columns == nil {
					for _, c := range e.Columns {
						w.columns = append(w.columns, c.Name)
					}
				}
				out = append(out, w)
			}
			return nil
		})
	}
	return out
}

func (w walkEntry) name() string { return w.db + "/" + w.table + "/" + filepath.Base(w.file) }

func (w walkEntry) sql() string {
	cols := "*"
	if w.columns != nil {
		q := make([]string, len(w.columns))
		for i, c := range w.columns {
			q[i] = "`" + c + "`"
		}
		cols = strings.Join(q, ", ")
	}
	s := fmt.Sprintf("SELECT %s FROM `%s`.`%s`", cols, w.db, w.table)
	if w.snapshot != nil {
		s += fmt.Sprintf(" /*+ OPTIONS('scan.snapshot-id'='%d') */", *w.snapshot)
	}
	if w.rowFilter != "" {
		s += " WHERE " + w.rowFilter
	}
	return s
}

var walkTS = regexp.MustCompile(`^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2})(\.\d+)?Z?$`)

// walkCanon normalises a decoded JSON value: timestamps lose T/Z and
// trailing fractional zeros, numbers compare at float32 precision.
func walkCanon(v any) any {
	switch x := v.(type) {
	case string:
		if m := walkTS.FindStringSubmatch(x); m != nil {
			frac := strings.TrimRight(m[3], "0")
			if frac == "." {
				frac = ""
			}
			return m[1] + " " + m[2] + frac
		}
		return x
	case json.Number:
		f, _ := x.Float64()
		if f == math.Trunc(f) && math.Abs(f) < 1e15 {
			return strconv.FormatFloat(f, 'f', -1, 64)
		}
		return strconv.FormatFloat(float64(float32(f)), 'g', 7, 32)
	case []any:
		for i := range x {
			x[i] = walkCanon(x[i])
		}
	case map[string]any:
		for k := range x {
			x[k] = walkCanon(x[k])
		}
	}
	return v
}

// walkRows canonicalises jsonl text (binary columns base64-decoded when
// decode is set: our renderers print bytes as base64).
func walkRows(t *testing.T, text string, binary map[string]string, decode bool) []string {
	var out []string
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		d := json.NewDecoder(strings.NewReader(line))
		d.UseNumber()
		var m map[string]any
		if err := d.Decode(&m); err != nil {
			t.Fatalf("bad jsonl %q: %v", line, err)
		}
		for k := range m {
			if typ, ok := binary[k]; ok && decode {
				m[k] = bytesAsText(t, k, typ, m[k])
			}
		}
		b, _ := json.Marshal(walkCanon(m))
		out = append(out, string(b))
	}
	sort.Strings(out)
	return out
}

func (w walkEntry) compare(t *testing.T, how, got string) {
	t.Helper()
	data, err := os.ReadFile(w.file)
	if err != nil {
		t.Fatal(err)
	}
	want := walkRows(t, string(data), nil, false)
	g := walkRows(t, got, w.binary, true)
	if strings.Join(g, "\n") != strings.Join(want, "\n") {
		t.Fatalf("%s: rows differ\n got (%d):\n  %s\nwant (%d):\n  %s", how, len(g), strings.Join(g, "\n  "), len(want), strings.Join(want, "\n  "))
	}
}

// pendingOrFail skips a pending table whose error is the expected one and
// fails otherwise.
func (w walkEntry) pendingOrFail(t *testing.T, how string, err error) {
	t.Helper()
	if p, ok := testutil.PendingFixture(w.tableDir); ok {
		testutil.CheckPending(t, p, err)
	}
	if err != nil {
		t.Fatalf("%s: %v", how, err)
	}
}

// TestFixtureWalkCatQuery reads every expressible expected result of both
// fixture folders through `cat` (no row filter) and `query`.
func TestFixtureWalkCatQuery(t *testing.T) {
	for _, w := range fixtureWalk(t) {
		t.Run(w.name(), func(t *testing.T) {
			testutil.LinkExternalPaths(t, w.tableDir)
			if w.rowFilter == "" {
				args := []string{"cat", w.tableDir}
				if w.snapshot != nil {
					args = append(args, "--snapshot", strconv.FormatInt(*w.snapshot, 10))
				}
				if w.columns != nil {
					args = append(args, "--columns", strings.Join(w.columns, ","))
				}
				code, out, errs := runCmd(t, args...)
				var err error
				if code != 0 {
					err = errors.New(errs)
				}
				w.pendingOrFail(t, "cat", err)
				w.compare(t, "cat", out)
			}
			code, out, errs := runCmd(t, "query", "--warehouse", w.warehouse, "--format", "jsonl", w.sql())
			var err error
			if code != 0 {
				err = errors.New(errs)
			}
			w.pendingOrFail(t, "query "+w.sql(), err)
			w.compare(t, "query "+w.sql(), out)
		})
	}
}

// TestFixtureWalkFlight runs the same queries through `serve` and arrow-go's
// Flight SQL client (one server per warehouse).
func TestFixtureWalkFlight(t *testing.T) {
	byWarehouse := map[string][]walkEntry{}
	var order []string
	for _, w := range fixtureWalk(t) {
		if _, ok := byWarehouse[w.warehouse]; !ok {
			order = append(order, w.warehouse)
		}
		byWarehouse[w.warehouse] = append(byWarehouse[w.warehouse], w)
	}
	for _, wh := range order {
		cl, stop := startWalkServer(t, wh)
		for _, w := range byWarehouse[wh] {
			t.Run(w.name(), func(t *testing.T) {
				testutil.LinkExternalPaths(t, w.tableDir)
				out, err := flightRows(t, cl, w.sql())
				w.pendingOrFail(t, "flight "+w.sql(), err)
				w.compare(t, "flight "+w.sql(), out)
			})
		}
		stop()
	}
}

func startWalkServer(t *testing.T, warehouse string) (*flightsql.Client, func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var out, errb syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--warehouse", warehouse, "--listen", "127.0.0.1:0"}, &out, &errb)
	}()
	var addr string
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if i := strings.Index(out.String(), "grpc://"); i >= 0 {
			addr = strings.TrimSpace(out.String()[i+len("grpc://"):])
			break
		}
	}
	if addr == "" {
		cancel()
		t.Fatalf("server did not start: %s", errb.String())
	}
	cl, err := flightsql.NewClient(addr, nil, nil, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	cl.Alloc = testutil.CheckedAllocator(t)
	return cl, func() {
		cl.Close()
		cancel()
		select {
		case code := <-done:
			if code != 0 {
				t.Errorf("serve exited %d: %s", code, errb.String())
			}
		case <-time.After(15 * time.Second):
			t.Error("serve did not stop after cancellation")
		}
	}
}

// flightRows executes sql and renders every endpoint's rows as jsonl.
func flightRows(t *testing.T, cl *flightsql.Client, sql string) (string, error) {
	ctx := context.Background()
	info, err := cl.Execute(ctx, sql)
	if err != nil {
		return "", err
	}
	var buf bytes.Buffer
	w, err := rowfmt.NewWriter(&buf, "jsonl")
	if err != nil {
		return "", err
	}
	for _, ep := range info.Endpoint {
		rd, err := cl.DoGet(ctx, ep.Ticket)
		if err != nil {
			return "", err
		}
		for rd.Next() {
			if err := w.Write(rd.RecordBatch()); err != nil {
				rd.Release()
				return "", err
			}
		}
		err = rd.Err()
		rd.Release()
		if err != nil {
			return "", err
		}
	}
	if err := w.Close(); err != nil {
		return "", err
	}
	return buf.String(), nil
}

// bytesAsText turns the base64 our renderers give BYTES/BINARY/BLOB values
// into their UTF-8 text, as the fixtures show them, following the Paimon
// type string (also inside ARRAY, MAP — a list of [key, value] — and ROW).
func bytesAsText(t *testing.T, col, typ string, v any) any {
	typ = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(typ), "NOT NULL"))
	upper := strings.ToUpper(typ)
	inner := func(prefix string) string { return typ[len(prefix) : len(typ)-1] }
	switch {
	case v == nil:
		return nil
	case strings.HasPrefix(upper, "ARRAY<"):
		if xs, ok := v.([]any); ok {
			for i := range xs {
				xs[i] = bytesAsText(t, col, inner("ARRAY<"), xs[i])
			}
		}
	case strings.HasPrefix(upper, "MAP<"):
		parts := splitTopLevel(inner("MAP<"))
		if xs, ok := v.([]any); ok && len(parts) == 2 {
			for _, e := range xs {
				if kv, ok := e.([]any); ok && len(kv) == 2 {
					kv[0] = bytesAsText(t, col, parts[0], kv[0])
					kv[1] = bytesAsText(t, col, parts[1], kv[1])
				}
			}
		}
	case strings.HasPrefix(upper, "ROW<"):
		if o, ok := v.(map[string]any); ok {
			for _, f := range splitTopLevel(inner("ROW<")) {
				name, ftyp, _ := strings.Cut(strings.TrimSpace(f), " ")
				name = strings.Trim(name, "`\"")
				if x, ok := o[name]; ok {
					o[name] = bytesAsText(t, col, ftyp, x)
				}
			}
		}
	case strings.HasPrefix(upper, "BYTES"), strings.HasPrefix(upper, "BINARY"), strings.HasPrefix(upper, "VARBINARY"), strings.HasPrefix(upper, "BLOB"):
		if s, ok := v.(string); ok {
			raw, err := base64.StdEncoding.DecodeString(s)
			if err != nil {
				t.Fatalf("column %s: %q is not base64", col, s)
			}
			return string(raw)
		}
	}
	return v
}

// splitTopLevel splits a comma-separated type list at depth 0 of <>/().
func splitTopLevel(s string) []string {
	var out []string
	depth, start := 0, 0
	for i, r := range s {
		switch r {
		case '<', '(':
			depth++
		case '>', ')':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, strings.TrimSpace(s[start:i]))
				start = i + 1
			}
		}
	}
	return append(out, strings.TrimSpace(s[start:]))
}

// TestCompactRefusesDataEvolution: the writer refuses tables whose row ids
// and column subsets it would not maintain (a compaction that unions
// data-evolution files would corrupt the table).
func TestCompactRefusesDataEvolution(t *testing.T) {
	const name = "data_evolution_with_dense_stats"
	src := testutil.Round2Fixture(t, "paimon-cpp/parquet/"+name+".db/"+name)
	wh := t.TempDir()
	if err := os.CopyFS(filepath.Join(wh, "db.db", "t"), os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	filepath.Walk(wh, func(p string, info os.FileInfo, err error) error {
		if err == nil {
			os.Chmod(p, info.Mode()|0o200)
		}
		return nil
	})
	code, _, errs := runCmd(t, "compact", "--warehouse", wh, "db.t")
	if code == 0 || !strings.Contains(errs, "data-evolution") {
		t.Fatalf("compact exit %d: %s", code, errs)
	}
}

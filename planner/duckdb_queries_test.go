package planner

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
	"github.com/paimon-flightsql/paimon-flightsql/internal/rowfmt"
	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/fileio"
	"github.com/paimon-flightsql/paimon-flightsql/sysviews"
)

// TestDuckDBFixtureQueries runs the SQL queries (and expected rows) that the
// DuckDB Paimon extension's tests assert on the testtbl fixture, through our
// planner over the real table (ORC manifests, three snapshots).
func TestDuckDBFixtureQueries(t *testing.T) {
	dir := testutil.Fixture(t, "duckdb-paimon-polardb/data")
	mem := testutil.CheckedAllocator(t)
	fio, err := fileio.NewLocal(dir)
	if err != nil {
		t.Fatal(err)
	}
	e := New(catalog.NewFS(fio, ".", catalog.WithSystemTables(sysviews.New())), Options{})
	f, err := os.Open(filepath.Join(dir, "testdb.db", "testtbl", "expected", "queries.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	n := 0
	for sc.Scan() {
		var q struct {
			SQL        string     `json:"normalized_sql"`
			SnapshotID *int64     `json:"snapshot_id"`
			AsOf       *string    `json:"as_of_timestamp"`
			Rows       [][]string `json:"rows"`
			Ordered    bool       `json:"order_significant"`
		}
		if err := json.Unmarshal(sc.Bytes(), &q); err != nil {
			t.Fatal(err)
		}
		sql := strings.ReplaceAll(q.SQL, "{table}", "testdb.testtbl")
		sess := Session{Options: map[string]string{}}
		if q.SnapshotID != nil {
			sess.Options["scan.snapshot-id"] = strconv.FormatInt(*q.SnapshotID, 10)
		}
		if q.AsOf != nil {
			ts, err := parseAsOf(*q.AsOf)
			if err != nil {
				t.Fatalf("%s: %v", *q.AsOf, err)
			}
			sess.Options["scan.timestamp-millis"] = strconv.FormatInt(ts, 10)
		}
		n++
		t.Run(strconv.Itoa(n)+" "+sql, func(t *testing.T) {
			rd, err := Run(context.Background(), e, sql, sess, mem)
			if err != nil {
				t.Fatal(err)
			}
			defer rd.Release()
			var got []string
			for rd.Next() {
				b := rd.RecordBatch()
				for i := 0; i < int(b.NumRows()); i++ {
					cells := make([]string, b.NumCols())
					for c := range cells {
						cells[c] = canonCell(rowfmt.Text(rowfmt.Value(b.Column(c), i, -1)), b.Column(c).IsNull(i))
					}
					got = append(got, strings.Join(cells, "|"))
				}
			}
			if err := rd.Err(); err != nil {
				t.Fatal(err)
			}
			var want []string
			for _, r := range q.Rows {
				cells := make([]string, len(r))
				for c, v := range r {
					cells[c] = canonCell(v, v == "NULL")
				}
				want = append(want, strings.Join(cells, "|"))
			}
			if !q.Ordered {
				sort.Strings(got)
				sort.Strings(want)
			}
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Fatalf("session %v\n got %q\nwant %q", sess.Options, got, want)
			}
		})
	}
	if n == 0 {
		t.Fatal("no queries read")
	}
}

// parseAsOf reads DuckDB's AS OF timestamps (UTC wall clock).
func parseAsOf(s string) (int64, error) {
	for _, layout := range []string{"2006-01-02 15:04:05.999999999", "2006-01-02 15:04:05", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UnixMilli(), nil
		}
	}
	return 0, strconv.ErrSyntax
}

// canonCell makes numbers compare by value ("11.0" = "11") and NULLs equal.
func canonCell(s string, null bool) string {
	if null {
		return "NULL"
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		return strconv.FormatFloat(f, 'g', 12, 64)
	}
	return s
}

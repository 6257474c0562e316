package planner

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/fileio"
	"github.com/paimon-flightsql/paimon-flightsql/sysviews"
)

// TestUpdateAppendTable: UPDATE on append tables, with deletion vectors
// (rows marked deleted + new versions appended) and without (copy-on-write),
// through SQL: SET expressions over the old row, casts to the column type,
// WHERE pushed down, affected rows returned, one snapshot per UPDATE.
func TestUpdateAppendTable(t *testing.T) {
	for _, with := range []string{"'deletion-vectors.enabled' = 'true'", "'bucket' = '-1'"} {
		t.Run(with, func(t *testing.T) {
			fio, err := fileio.NewLocal(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			e := New(catalog.NewFS(fio, ".", catalog.WithSystemTables(sysviews.New())), Options{})
			must := func(sql string) int64 {
				t.Helper()
				n, err := execUpdate(t, e, sql)
				if err != nil {
					t.Fatalf("%s: %v", sql, err)
				}
				return n
			}
			must("CREATE DATABASE `default`")
			must("CREATE TABLE ap (k BIGINT, v INT, s STRING, d DECIMAL(10, 2)) WITH (" + with + ")")
			must("INSERT INTO ap VALUES (1, 10, 'a', 1.5), (2, 20, 'b', NULL), (3, NULL, 'c', 2.25)")
			must("INSERT INTO ap VALUES (4, 40, 'd', 0), (5, 50, NULL, 1)")
			snaps := func() string { return strings.Join(runQuery(t, e, "SELECT count(*) FROM `ap$snapshots`"), "") }
			before := snaps()
			if n := must("UPDATE ap SET v = v + k * 1000, s = upper(s) || '!', d = d * 2 WHERE k >= 2 AND k < 5"); n != 3 {
				t.Fatalf("UPDATE affected %d rows, want 3", n)
			}
			got := strings.Join(runQuery(t, e, "SELECT k, v, s, d FROM ap ORDER BY k"), ",")
			want := "1|10|a|1.50,2|2020|B!|NULL,3|NULL|C!|4.50,4|4040|D!|0.00,5|50|NULL|1.00"
			if got != want {
				t.Fatalf("after UPDATE:\n got %s\nwant %s", got, want)
			}
			if after := snaps(); after == before {
				t.Fatal("UPDATE made no snapshot")
			} else if b, a := atoiT(t, before), atoiT(t, after); a != b+1 {
				t.Fatalf("UPDATE made %d snapshots, want 1", a-b)
			}
			// Every row, and a constant cast to the column type.
			if n := must("UPDATE ap SET v = 7"); n != 5 {
				t.Fatalf("UPDATE without WHERE affected %d rows", n)
			}
			if got := strings.Join(runQuery(t, e, "SELECT count(*), sum(v), count(DISTINCT s) FROM ap"), ","); got != "5|35|4" {
				t.Fatalf("after UPDATE all: %s", got)
			}
			if n := must("UPDATE ap SET v = 8 WHERE k > 100"); n != 0 {
				t.Fatalf("UPDATE of nothing affected %d rows", n)
			}
			// ? parameters in SET and WHERE (prepared once, executed twice).
			st, err := e.Prepare(context.Background(), "UPDATE ap SET v = ?, s = s || ? WHERE k = ? OR k > ?", Session{})
			if err != nil {
				t.Fatal(err)
			}
			if pt := st.ParamTypes(); len(pt) != 4 || pt[0].ID() != arrow.INT32 || pt[2].ID() != arrow.INT64 {
				t.Fatalf("parameter types %v", pt)
			}
			if n, err := st.ExecuteUpdate(context.Background(), []any{int64(99), "?", int64(1), int64(4)}); err != nil || n != 2 {
				t.Fatalf("UPDATE with parameters: %d %v", n, err)
			}
			if n, err := st.ExecuteUpdate(context.Background(), []any{nil, "", int64(2), int64(100)}); err != nil || n != 1 {
				t.Fatalf("UPDATE with parameters, again: %d %v", n, err)
			}
			if got := strings.Join(runQuery(t, e, "SELECT k, v, s FROM ap ORDER BY k"), ","); got != "1|99|a?,2|NULL|B!,3|7|C!,4|7|D!,5|99|NULL" {
				t.Fatalf("after UPDATE with parameters: %s", got)
			}
			for sql, want := range map[string]error{
				"UPDATE ap SET nope = 1":                   catalog.ErrInvalid,
				"UPDATE ap SET v = 1 WHERE upper(s) = 'A'": catalog.ErrUnsupported,
				"UPDATE ap SET v = count(*)":               catalog.ErrInvalid,
			} {
				if _, err := execUpdate(t, e, sql); !errors.Is(err, want) {
					t.Errorf("%s: %v, want %v", sql, err, want)
				}
			}
		})
	}
}

func atoiT(t *testing.T, s string) int {
	t.Helper()
	n := 0
	for _, c := range s {
		if c < '0' || c > '9' {
			t.Fatalf("not a number: %q", s)
		}
		n = n*10 + int(c-'0')
	}
	return n
}

// TestUpdateRefusedMergeEngines: as Paimon's Spark UPDATE, primary-key
// tables with the aggregation or first-row merge engine are refused (the
// rewritten rows would be aggregated again, or ignored).
func TestUpdateRefusedMergeEngines(t *testing.T) {
	fio, err := fileio.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	e := New(catalog.NewFS(fio, "."), Options{})
	for _, sql := range []string{"CREATE DATABASE `default`",
		"CREATE TABLE ag (k INT NOT NULL, v BIGINT, PRIMARY KEY (k) NOT ENFORCED) WITH ('merge-engine' = 'aggregation', 'fields.v.aggregate-function' = 'sum', 'bucket' = '1')",
		"CREATE TABLE fr (k INT NOT NULL, v BIGINT, PRIMARY KEY (k) NOT ENFORCED) WITH ('merge-engine' = 'first-row', 'bucket' = '1')",
		"INSERT INTO ag VALUES (1, 5), (1, 6)"} {
		if _, err := execUpdate(t, e, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	if got := strings.Join(runQuery(t, e, "SELECT k, v FROM ag"), ","); got != "1|11" {
		t.Fatalf("aggregation table: %s", got)
	}
	for _, tbl := range []string{"ag", "fr"} {
		if _, err := execUpdate(t, e, "UPDATE "+tbl+" SET v = 1 WHERE k = 1"); !errors.Is(err, catalog.ErrUnsupported) || !strings.Contains(err.Error(), "merge engine") {
			t.Errorf("UPDATE %s: %v", tbl, err)
		}
	}
}

package planner

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
)

// TestReaderRowFilter: a residual filter handed to the reader (late
// materialisation) keeps exactly the rows the same condition keeps when
// evaluated without a WHERE (CASE over every row), EXPLAIN ANALYZE shows
// the reader applying it, and an error of the condition reads the same
// as without it (not as a damaged file).
func TestReaderRowFilter(t *testing.T) {
	mem := testutil.CheckedAllocator(t)
	e := New(goldenWarehouse(t, mem), Options{})
	one := func(sql string) (string, error) {
		rows, err := tryQuery(t, e, sql)
		return strings.Join(rows, "|"), err
	}
	conds := []string{
		"v % 7 = 1",
		"CAST(user AS VARCHAR) LIKE '%3%'",
		"v + user > 20000 OR day IS NULL",
		"NOT (v % 3 = 0) AND user <> 2",
	}
	for _, c := range conds {
		got, err := one("SELECT COUNT(*), SUM(v), MIN(day), MAX(user) FROM clicks WHERE " + c)
		if err != nil {
			t.Fatalf("%s: %v", c, err)
		}
		want, err := one("SELECT SUM(CASE WHEN " + c + " THEN 1 ELSE 0 END), SUM(CASE WHEN " + c + " THEN v END), " +
			"MIN(CASE WHEN " + c + " THEN day END), MAX(CASE WHEN " + c + " THEN user END) FROM clicks")
		if err != nil {
			t.Fatalf("%s (reference): %v", c, err)
		}
		if got != want {
			t.Errorf("WHERE %s: got %s, want %s", c, got, want)
		}
	}
	plan, err := one("EXPLAIN ANALYZE SELECT * FROM clicks WHERE v % 7 = 1")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(plan, "row filter in reader: 160 rows in") {
		t.Errorf("EXPLAIN ANALYZE does not show the reader's row filter:\n%s", strings.ReplaceAll(plan, "|", "\n"))
	}
	_, errWhere := one("SELECT * FROM clicks WHERE CAST(CAST(v AS VARCHAR) || 'x' AS INTEGER) > 1")
	_, errCase := one("SELECT CASE WHEN CAST(CAST(v AS VARCHAR) || 'x' AS INTEGER) > 1 THEN 1 END FROM clicks")
	if errWhere == nil || errCase == nil {
		t.Fatalf("bad cast: WHERE %v, CASE %v", errWhere, errCase)
	}
	if strings.Contains(strings.ToLower(errWhere.Error()), "corrupt") || strings.Contains(errWhere.Error(), ".parquet") ||
		!strings.HasPrefix(errWhere.Error(), "cannot CAST") || !strings.HasPrefix(errCase.Error(), "cannot CAST") {
		t.Errorf("WHERE error %q; without a WHERE: %q", errWhere, errCase)
	}
}

// TestStringTopNBound: ORDER BY a string column LIMIT n (the bound filters
// rows in the reader, never files) returns the first n rows of the full
// sort, ascending and descending, NULLs first and last.
func TestStringTopNBound(t *testing.T) {
	mem := testutil.CheckedAllocator(t)
	e := New(goldenWarehouse(t, mem), Options{})
	rows := func(sql string) []string { return runQuery(t, e, sql) }
	ctas, err := Run(context.Background(), e, "CREATE TABLE strs AS SELECT CASE WHEN v % 11 = 0 THEN NULL ELSE 'k' || CAST(v % 97 AS VARCHAR) END AS s, v FROM clicks", Session{}, mem)
	if err != nil {
		t.Fatal(err)
	}
	ctas.Release()
	for _, order := range []string{"s, v", "s DESC, v", "s NULLS FIRST, v", "s DESC NULLS LAST, v"} {
		for _, n := range []int{1, 5, 37} {
			full := rows("SELECT s, v FROM strs ORDER BY " + order)
			got := rows(fmt.Sprintf("SELECT s, v FROM strs ORDER BY %s LIMIT %d", order, n))
			if strings.Join(got, "\n") != strings.Join(full[:n], "\n") {
				t.Errorf("ORDER BY %s LIMIT %d:\n got %v\nwant %v", order, n, got, full[:n])
			}
		}
	}
}

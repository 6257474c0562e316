package planner

import (
	"fmt"
	"strings"
	"testing"

	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
)

// TestRuntimeRangeSkips: a hash join's build key range skips the probe
// scan's files and row groups by their statistics (the probe side runs
// after the build), and answers stay those of the unpruned join; joins that
// keep unmatched probe rows skip nothing.
func TestRuntimeRangeSkips(t *testing.T) {
	testutil.CheckedAllocator(t)
	e, _ := emptyWarehouse(t)
	mustUpdate(t, e, "CREATE DATABASE s")
	mustUpdate(t, e, "CREATE TABLE s.f (k BIGINT, v BIGINT) WITH ('bucket' = '-1')")
	// one file of four row groups (131072 rows each), then a second file
	mustUpdate(t, e, "INSERT INTO s.f SELECT range, range % 7 FROM range(400000)")
	mustUpdate(t, e, "INSERT INTO s.f SELECT range, range % 5 FROM range(400000, 500000)")
	mustUpdate(t, e, "CREATE TABLE s.d (k BIGINT, w INT)")
	mustUpdate(t, e, "INSERT INTO s.d VALUES (5, 1), (17, 2), (9, NULL)")
	one := func(sql string) string {
		rows, err := tryQuery(t, e, sql)
		if err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		return strings.Join(rows, "|")
	}
	for sql, want := range map[string]string{
		"SELECT COUNT(*), SUM(f.v) FROM s.f JOIN s.d ON f.k = d.k":                       "3|10",
		"SELECT COUNT(*) FROM s.f WHERE k IN (SELECT k FROM s.d)":                        "3",
		"SELECT COUNT(*), COUNT(d.w) FROM s.f LEFT JOIN s.d ON f.k = d.k":                "500000|2",
		"SELECT COUNT(*) FROM s.f WHERE k NOT IN (SELECT k FROM s.d)":                    "499997",
		"SELECT f.k FROM s.f JOIN s.d ON f.k = d.k + 399998 ORDER BY 1":                  "400003|400007|400015",
		"SELECT COUNT(*) FROM s.f JOIN (SELECT k FROM s.d WHERE k > 100) x ON f.k = x.k": "0",
	} {
		if got := one(sql); got != want {
			t.Errorf("%s: got %s, want %s", sql, got, want)
		}
	}
	stat := func(plan, format string) int {
		n := -1
		for _, l := range strings.Split(plan, "|") {
			if strings.Contains(l, strings.SplitN(format, "%d", 2)[0]) {
				if i := strings.Index(l, strings.SplitN(format, "%d", 2)[0]); i >= 0 {
					fmt.Sscanf(strings.TrimSpace(l[i:]), format, &n)
				}
			}
		}
		return n
	}
	plan := one("EXPLAIN ANALYZE SELECT COUNT(*), SUM(f.v) FROM s.f JOIN s.d ON f.k = d.k")
	if got := stat(plan, "join key range: %d files skipped"); got != 1 {
		t.Errorf("files skipped by the key range: %d, want 1:\n%s", got, strings.ReplaceAll(plan, "|", "\n"))
	}
	var total, skipped int
	for _, l := range strings.Split(plan, "|") {
		if i := strings.Index(l, "row groups: "); i >= 0 && strings.Contains(plan, "s.f") {
			var a, b int
			if _, err := fmt.Sscanf(l[i:], "row groups: %d total, %d skipped", &a, &b); err == nil && a > total {
				total, skipped = a, b
			}
		}
	}
	if total != 4 || skipped != 3 {
		t.Errorf("row groups of s.f: %d total, %d skipped; want 4 and 3:\n%s", total, skipped, strings.ReplaceAll(plan, "|", "\n"))
	}
	plan = one("EXPLAIN ANALYZE SELECT COUNT(*) FROM s.f LEFT JOIN s.d ON f.k = d.k")
	if strings.Contains(plan, "join key range:") {
		t.Errorf("a LEFT JOIN skipped probe files:\n%s", strings.ReplaceAll(plan, "|", "\n"))
	}
}

// EXPLAIN ANALYZE puts each operator's actual rows on its own line, whatever
// statistics lines the scans above print (page index, join key range...).
func TestAnalyzeRowsOnTheirOperators(t *testing.T) {
	testutil.CheckedAllocator(t)
	e, _ := emptyWarehouse(t)
	mustUpdate(t, e, "CREATE DATABASE s")
	mustUpdate(t, e, "CREATE TABLE s.f (k BIGINT, v BIGINT) WITH ('bucket' = '-1', 'parquet.page.size' = '1 kb')")
	mustUpdate(t, e, "INSERT INTO s.f SELECT range, range % 7 FROM range(3000)")
	mustUpdate(t, e, "INSERT INTO s.f SELECT range, range % 7 FROM range(5000, 6000)")
	mustUpdate(t, e, "CREATE TABLE s.d (k BIGINT)")
	mustUpdate(t, e, "INSERT INTO s.d VALUES (5), (17), (9), (12)")
	rows, err := tryQuery(t, e, "EXPLAIN ANALYZE SELECT COUNT(*) FROM s.f JOIN (SELECT k FROM s.d WHERE k < 15) d ON f.k = d.k WHERE f.k BETWEEN 1 AND 100")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"Scan s.f": "actual rows=3)", "Scan s.d": "actual rows=3)", "HashJoin": "actual rows=3)"}
	seen := map[string]bool{}
	for _, l := range rows {
		for op, w := range want {
			if strings.Contains(l, op) {
				seen[op] = true
				if !strings.HasSuffix(strings.TrimSpace(l), w) {
					t.Errorf("%s line %q, want it to end with %q:\n%s", op, l, w, strings.Join(rows, "\n"))
				}
			}
		}
	}
	if !strings.Contains(strings.Join(rows, "\n"), "page index: ") {
		t.Errorf("no page index line (the case this test is about):\n%s", strings.Join(rows, "\n"))
	}
	if len(seen) != len(want) {
		t.Errorf("operators seen %v:\n%s", seen, strings.Join(rows, "\n"))
	}
}

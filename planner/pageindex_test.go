package planner

import (
	"fmt"
	"strings"
	"testing"

	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
)

// TestPageIndexPruning: a table written with small Parquet pages carries a
// page index; a selective filter on its sorted key skips the other pages
// (EXPLAIN ANALYZE "page index: N rows skipped") and every filter returns
// what the same condition gives evaluated on all rows.
func TestPageIndexPruning(t *testing.T) {
	testutil.CheckedAllocator(t)
	e, _ := emptyWarehouse(t)
	mustUpdate(t, e, "CREATE DATABASE s")
	mustUpdate(t, e, "CREATE TABLE s.pi (k BIGINT, v INT, s STRING) WITH ('bucket' = '-1', 'parquet.page.size' = '1 kb')")
	const n = 3000
	var vals []string
	for i := 0; i < n; i++ {
		v := "NULL"
		if i%13 != 0 {
			v = fmt.Sprint((i * 7919) % 1000)
		}
		vals = append(vals, fmt.Sprintf("(%d, %s, 's%d')", i, v, i%37))
	}
	mustUpdate(t, e, "INSERT INTO s.pi VALUES "+strings.Join(vals, ", "))
	one := func(sql string) string {
		rows, err := tryQuery(t, e, sql)
		if err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		return strings.Join(rows, "|")
	}
	for _, c := range []string{
		"k BETWEEN 1500 AND 1599",
		"k < 10 OR k >= 2990",
		"NOT (k >= 100) AND v IS NOT NULL",
		"k IN (5, 2500, 2999) OR v = 7",
		"k > 100000",
		"v IS NULL AND k < 600",
	} {
		got := one("SELECT COUNT(*), SUM(v), MIN(k), MAX(k) FROM s.pi WHERE " + c)
		want := one("SELECT SUM(CASE WHEN " + c + " THEN 1 ELSE 0 END), SUM(CASE WHEN " + c + " THEN v END), " +
			"MIN(CASE WHEN " + c + " THEN k END), MAX(CASE WHEN " + c + " THEN k END) FROM s.pi")
		if got != want {
			t.Errorf("WHERE %s: got %s, want %s", c, got, want)
		}
	}
	plan := one("EXPLAIN ANALYZE SELECT * FROM s.pi WHERE k BETWEEN 1500 AND 1599")
	var skipped int
	for _, l := range strings.Split(plan, "|") {
		if i := strings.Index(l, "page index: "); i >= 0 {
			fmt.Sscanf(l[i:], "page index: %d rows skipped", &skipped)
		}
	}
	if skipped < n-1000 {
		t.Errorf("page index skipped %d rows, want at least %d:\n%s", skipped, n-1000, strings.ReplaceAll(plan, "|", "\n"))
	}
}

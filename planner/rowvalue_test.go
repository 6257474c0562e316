package planner

import (
	"slices"
	"strings"
	"testing"

	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
)

// TestRowValues checks row values against DuckDB 1.5's answers: rows
// compare as STRUCTs (NULL fields are values: NULL = NULL, NULL after
// every value), IN (list) is the OR of those equalities, and IN
// (subquery) is NULL, unmatched, when either side has a NULL component.
func TestRowValues(t *testing.T) {
	e, _ := newTestEngine(t, testutil.CheckedAllocator(t))
	const vals = `(SELECT * FROM (VALUES (1, NULL), (1, 2), (2, NULL), (NULL, NULL), (3, 4), (2, 5), (NULL, 7), (4, 2)) v(a, b))`
	const sub = `(SELECT * FROM (VALUES (1, 2), (3, NULL)) w(x, y))`
	const sub2 = `(SELECT * FROM (VALUES (1, 2), (3, 4)) w(x, y))`
	for _, c := range []struct{ sql, want string }{
		{`SELECT (1, NULL) = (1, NULL), (1, NULL) = (1, 2), (1, NULL) < (2, 3), (1, NULL) < (1, 3), (NULL, 1) < (2, 1), (1, 2) <> (1, NULL), (1, 3) < (1, NULL), (1, NULL) <= (1, NULL), (2, 'b') > (2, 'a'), (1, 2) >= (1, 3)`,
			"true|false|true|false|false|true|true|true|true|false"},
		{`SELECT (1, (2, 3)) = (1, (2, 3)), (1, (2, NULL)) < (1, (2, 3)), (1, (2, 3)) IN ((1, (2, 4)), (1, (2, 3)))`, "true|false|true"},
		{`SELECT (1, 2) = NULL, NULL < (1, 2), (1, 2) IN ((1, 2), NULL), (1, 3) IN ((1, 2), NULL), (1, 3) NOT IN ((1, 2), (1, 4))`, "NULL|NULL|true|NULL|true"},
		{`SELECT a, b, (a, b) IN (SELECT x, y FROM ` + sub + ` s), (a, b) NOT IN (SELECT x, y FROM ` + sub2 + ` s), (a, b) IN (SELECT x, y FROM ` + sub + ` s WHERE x > 10) FROM ` + vals + ` t`,
			"1|2|true|false|false\n1|NULL|NULL|NULL|false\n2|5|NULL|true|false\n2|NULL|NULL|NULL|false\n3|4|NULL|false|false\n4|2|NULL|true|false\nNULL|7|NULL|NULL|false\nNULL|NULL|NULL|NULL|false"},
		{`SELECT a, b FROM ` + vals + ` t WHERE (a, b) IN (SELECT x, y FROM ` + sub + ` s)`, "1|2"},
		{`SELECT a, b FROM ` + vals + ` t WHERE (a, b) NOT IN (SELECT x, y FROM ` + sub2 + ` s)`, "2|5\n4|2"},
		{`SELECT a, b FROM ` + vals + ` t WHERE (a, b) NOT IN (SELECT x, y FROM ` + sub + ` s)`, ""},
		{`SELECT a, b FROM ` + vals + ` t WHERE (a, 2) IN (SELECT x, y FROM ` + sub + ` s)`, "1|2\n1|NULL"},
		{`SELECT a, b FROM ` + vals + ` t WHERE EXISTS (SELECT 1 FROM ` + sub + ` s WHERE (x, y) = (a, b))`, "1|2"},
		{`SELECT a, b FROM ` + vals + ` t WHERE (a, b) = (1, NULL) OR (a, b) IN ((NULL, 7))`, "1|NULL\nNULL|7"},
		{`SELECT a, b FROM ` + vals + ` t WHERE (a, b) > (2, NULL) OR (a, b) <= (1, 2)`, "1|2\n3|4\n4|2\nNULL|7\nNULL|NULL"},
		{`SELECT COUNT(*) FROM orders WHERE (id, qty) IN (SELECT id, qty FROM orders WHERE id < 5)`, "3"},
		// correlated (DuckDB refuses it): the NULL rule over the rows the
		// correlation keeps — o's own row (id 3 has a NULL name)
		{`SELECT id, (id, name) IN (SELECT p.id, p.name FROM orders p WHERE p.id = o.id) FROM orders o`,
			"1|true\n2|true\n3|NULL\n4|true\n5|true\n6|true\n7|true\n8|true"},
		{`SELECT id, (id + 1, name) NOT IN (SELECT p.id, p.name FROM orders p WHERE p.name = o.name) FROM orders o`,
			"1|true\n2|true\n3|true\n4|true\n5|true\n6|true\n7|true\n8|true"},
		{`SELECT id FROM orders WHERE (id, name) NOT IN (SELECT id + 1, name FROM orders WHERE name IS NOT NULL)`, "1\n2\n4\n5\n6\n7\n8"},
		// the subquery's (4, NULL) makes every unmatched mark NULL
		{`SELECT id FROM orders WHERE (id, name) NOT IN (SELECT id + 1, name FROM orders)`, ""},
	} {
		got := runQuery(t, e, c.sql)
		slices.Sort(got)
		if g := strings.Join(got, "\n"); g != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.sql, g, c.want)
		}
	}
	deep := "1"
	for range 100 {
		deep = "{'a': " + deep + "}"
	}
	for _, c := range []struct{ sql, want string }{
		{`SELECT ` + deep + ` < ` + deep, "more than 100000 expression nodes"},
		{`SELECT (1, 2) = (1, 2, 3)`, "cannot compare rows of 2 and 3 values"},
		{`SELECT (1, 2) IN (SELECT id FROM orders)`, "must return 2 columns, not 1"},
		{`SELECT (1, 2) IN ((1, 2), (1, 2, 3))`, "got a row of 3"},
		{`SELECT (1, 2) IN (1, 2)`, "needs rows of 2 values"},
		{`SELECT (1, 2) = id FROM orders`, "comparing a row value with id of type BIGINT"},
		{`SELECT id FROM orders WHERE (id, qty) < ANY (SELECT id, qty FROM orders)`, "only = ANY"},
	} {
		_, err := tryQuery(t, e, c.sql)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err %v, want %q", c.sql, err, c.want)
		}
	}
}

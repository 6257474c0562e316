package parse

import (
	"errors"
	"testing"

	"github.com/xwb1989/sqlparser"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
)

// The markers of aggregate ORDER BY, QUALIFY, DISTINCT ON, * EXCLUDE /
// REPLACE, SIMILAR TO and TRY_CAST: the parse must equal sqlparser's parse
// of the marker text.
func TestFrontendMarkers(t *testing.T) {
	cases := []struct{ in, want string }{
		{`SELECT STRING_AGG(DISTINCT s, ',' ORDER BY s DESC, id) FROM t`, "SELECT paimon_agg_order(STRING_AGG(DISTINCT s, ','), 0) FROM t"},
		{`SELECT LISTAGG(s, ',') WITHIN GROUP (ORDER BY s) FILTER (WHERE x > 1) FROM t`, "SELECT paimon_filter(paimon_agg_order(LISTAGG(s, ','), 0), x > 1) FROM t"},
		{`SELECT a FROM t QUALIFY a > 1 AND b`, "SELECT a, (a > 1 AND b) AS paimon_qualify FROM t"},
		{`SELECT a FROM t WINDOW w AS (ORDER BY a) QUALIFY a > 1`, "SELECT a, (a > 1) AS paimon_qualify FROM t"},
		{`SELECT a FROM t QUALIFY a > 1 WINDOW w AS (ORDER BY a)`, "SELECT a, (a > 1) AS paimon_qualify FROM t"},
		{`SELECT DISTINCT ON (a, b + 1) a, c FROM t`, "SELECT a, c, paimon_distinct_on(a, b + 1) AS paimon_distinct_on FROM t"},
		{`SELECT t.* EXCLUDE (a, "B") REPLACE (c + 1 AS c), d FROM t`, "SELECT t.*, paimon_star_mod(paimon_exclude('a', 'B'), paimon_replace(c + 1, 'c')) AS paimon_star_mod, d FROM t"},
		{`SELECT * EXCLUDE a FROM t`, "SELECT *, paimon_star_mod(paimon_exclude('a')) AS paimon_star_mod FROM t"},
		{`SELECT a + 1 NOT SIMILAR TO 'b.*', TRY_CAST(a AS INT) FROM t WHERE a SIMILAR TO c`, "SELECT not regexp_full_match(a + 1, 'b.*'), paimon_try_cast(a, 'INT') FROM t WHERE regexp_full_match(a, c)"},
		{`SELECT qualify FROM t`, "SELECT qualify FROM t"},
		{`SELECT a IS DISTINCT FROM b FROM t QUALIFY c`, "SELECT not (a <=> b), (c) AS paimon_qualify FROM t"},
		{`SELECT a FROM (SELECT a FROM t) WHERE a > 1`, "SELECT a FROM (SELECT a FROM t) AS unnamed_subquery WHERE a > 1"},
		{`SELECT * FROM (SELECT 1), (SELECT 2) x, (SELECT 3) AS y, (SELECT 4)`, "SELECT * FROM (SELECT 1) AS unnamed_subquery, (SELECT 2) AS x, (SELECT 3) AS y, (SELECT 4) AS unnamed_subquery2"},
		{`SELECT * FROM t JOIN (SELECT 1 AS b) ON a = b WHERE a IN (SELECT 1)`, "SELECT * FROM t JOIN (SELECT 1 AS b) AS unnamed_subquery ON a = b WHERE a IN (SELECT 1)"},
	}
	for _, c := range cases {
		st, err := Parse(c.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", c.in, err)
			continue
		}
		want, err := sqlparser.Parse(c.want)
		if err != nil {
			t.Fatalf("bad expectation %q: %v", c.want, err)
		}
		if got := render(st); got != sqlparser.String(want) {
			t.Errorf("Parse(%q)\n got %s\nwant %s", c.in, got, sqlparser.String(want))
		}
	}
	st, err := Parse(`SELECT STRING_AGG(s, ',' ORDER BY a DESC NULLS FIRST, b) FROM t`)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.AggOrders) != 1 || len(st.AggOrders[0].OrderBy) != 2 || st.AggOrders[0].WithinGroup {
		t.Fatalf("AggOrders = %+v", st.AggOrders)
	}
	if o := st.AggOrders[0].OrderBy[0]; o.Direction != sqlparser.DescScr || !st.NullsFirst[o] {
		t.Fatalf("first key %s, nulls first %v", sqlparser.String(o), st.NullsFirst[o])
	}
	for in, kind := range map[string]error{
		`SELECT SUM(x ORDER BY y) OVER () FROM t`:                      catalog.ErrUnsupported,
		`SELECT STRING_AGG(x ORDER BY y) WITHIN GROUP (ORDER BY y)`:    catalog.ErrInvalid,
		`SELECT STRING_AGG(ORDER BY y) FROM t`:                         catalog.ErrInvalid,
		`SELECT x FROM t QUALIFY`:                                      catalog.ErrInvalid,
		`SELECT DISTINCT ON () x FROM t`:                               catalog.ErrInvalid,
		`SELECT * EXCLUDE (t.a) FROM t`:                                catalog.ErrUnsupported,
		`SELECT * EXCLUDE`:                                             catalog.ErrInvalid,
		`SELECT * REPLACE (a) FROM t`:                                  catalog.ErrInvalid,
		`SELECT a FROM t WHERE a SIMILAR TO 'x' ESCAPE '!'`:            catalog.ErrUnsupported,
		`SELECT 1 AS paimon_qualify`:                                   catalog.ErrInvalid,
		`SELECT LISTAGG(x) WITHIN GROUP ORDER BY x FROM t`:             catalog.ErrInvalid,
		`SELECT LISTAGG(x) WITHIN GROUP (PARTITION BY x) FROM t`:       catalog.ErrInvalid,
		`SELECT * EXCLUDE (a) EXCLUDE (b) FROM t`:                      catalog.ErrInvalid,
		`SELECT paimon_agg_order(count(x), 0) FROM t`:                  catalog.ErrInvalid,
		`SELECT a, paimon_distinct_on(a) AS paimon_distinct_on FROM t`: catalog.ErrInvalid,
	} {
		if _, err := Parse(in); !errors.Is(err, kind) {
			t.Errorf("Parse(%q) = %v, want %v", in, err, kind)
		}
	}
}

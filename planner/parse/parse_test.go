package parse

import (
	"errors"
	"strings"
	"testing"

	"github.com/xwb1989/sqlparser"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
)

// The rewrites of the old planner/normalize.go: the parse of the input must
// equal sqlparser's parse of the expected MySQL text.
func TestNormaliseRewrites(t *testing.T) {
	cases := []struct{ in, want string }{
		{`SELECT "a b", "x""y" FROM "T"`, "SELECT `a b`, `x\"y` FROM `T`"},
		{`SELECT * FROM t$files`, "SELECT * FROM `t$files`"},
		{`SELECT * FROM db.t$branch_b$files`, "SELECT * FROM `db`.`t$branch_b$files`"},
		{`SELECT * FROM sys.tables`, "SELECT * FROM `sys`.`tables`"},
		{`SELECT 1 FROM t WHERE d = DATE '2024-01-01'`, "SELECT 1 FROM t WHERE d = paimon_date('2024-01-01')"},
		{`SELECT TIMESTAMP '2024-01-01 10:00:00'`, "SELECT paimon_timestamp('2024-01-01 10:00:00')"},
		{`SELECT CAST(a AS DOUBLE), CAST(CAST(b AS INT) AS decimal(10, 2))`, "SELECT paimon_cast(a, 'DOUBLE'), paimon_cast(paimon_cast(b, 'INT'), 'DECIMAL(10, 2)')"},
		{`SELECT EXTRACT(YEAR FROM d)`, "SELECT paimon_extract('YEAR', d)"},
		{`SELECT SUBSTRING(s FROM 2 FOR 3), SUBSTR(s, 1)`, "SELECT paimon_substring(s , 2 , 3), paimon_substring(s, 1)"},
		{`SELECT YEAR(d), LEFT(s, 2)`, "SELECT paimon_year(d), paimon_left(s, 2)"},
		{"SELECT 1 -- comment\n;", "SELECT 1"},
		{`SELECT 'DATE ''x'' "q" t$files CAST(a AS DOUBLE)' FROM t`, `SELECT 'DATE ''x'' "q" t$files CAST(a AS DOUBLE)' FROM t`},
		{`SELECT 'a\'b "c"' FROM t`, `SELECT 'a\'b "c"' FROM t`},
		{`SELECT 1.5e3, .5, x.y`, "SELECT 1.5e3, .5, `x`.`y`"},
		{`SELECT key, value FROM t$options WHERE key = 'key'`, "SELECT `key`, value FROM `t$options` WHERE `key` = 'key'"},
		{`SELECT a FROM t WHERE b BETWEEN .5 AND 1`, `SELECT a FROM t WHERE b BETWEEN .5 AND 1`},
		{`SELECT "prénom" FROM t`, "SELECT `prénom` FROM t"},
		{`SELECT {fn UCASE(x)}, {d '2024-01-01'}, {ts '2024-01-01 00:00:00'}, {t '10:00:00'} FROM t`,
			"SELECT UCASE(x), paimon_date('2024-01-01'), paimon_timestamp('2024-01-01 00:00:00'), paimon_time('10:00:00') FROM t"},
		{`SELECT {fn CONVERT(a, SQL_VARCHAR)} FROM t WHERE s LIKE 'a!%' {escape '!'}`, `SELECT paimon_cast(a, 'VARCHAR') FROM t WHERE s LIKE 'a!%' ESCAPE '!'`},
		{`SELECT TIME '10:00:00'`, `SELECT paimon_time('10:00:00')`},
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
}

// TestParse renders the structure of each statement (see render_test.go).
func TestParse(t *testing.T) {
	cases := []struct{ in, want string }{
		// 1. WITH
		{`WITH x (a) AS (SELECT 1), y AS (SELECT * FROM x UNION SELECT 2) SELECT * FROM y`,
			`with x(a) as [select 1 from dual], y as [(select * from x union select 2 from dual)] select * from y`},
		{`WITH a AS (WITH b AS (SELECT 1 c) SELECT c FROM b) SELECT * FROM a ORDER BY c LIMIT 1`,
			`with a as [with b as [select 1 as c from dual] select c from b] select * from a order by c asc limit 1`},
		{`WITH a AS MATERIALIZED (SELECT 1) (SELECT * FROM a)`, `with a as [select 1 from dual] select * from a`},
		{`WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t WHERE n < 3), u AS (SELECT 2) SELECT * FROM t`,
			`with recursive t(n) as [(select 1 from dual union all select n + 1 from t where n < 3)], u as [select 2 from dual] select * from t`},
		// 2. set operations
		{`SELECT a FROM t UNION ALL SELECT b FROM u INTERSECT SELECT c FROM v EXCEPT SELECT d FROM w ORDER BY 1 LIMIT 3`,
			`((select a from t union all (select b from u intersect select c from v)) except select d from w) order by 1 asc limit 3`},
		{`SELECT 1 UNION DISTINCT SELECT 2 MINUS ALL SELECT 3 INTERSECT ALL SELECT 4`,
			`((select 1 from dual union select 2 from dual) except all (select 3 from dual intersect all select 4 from dual))`},
		{`(SELECT a FROM t) UNION (SELECT b FROM u ORDER BY x LIMIT 3)`,
			`(select a from t union [select b from u order by x asc limit 3])`},
		{`(SELECT a FROM t ORDER BY a) ORDER BY a DESC`, `[select a from t order by a asc] order by a desc`},
		{`((SELECT 1))`, `select 1 from dual`},
		{`SELECT a FROM t ORDER BY a LIMIT 2`, `select a from t order by a asc limit 2`},
		// 3. extracted queries
		{`SELECT * FROM t WHERE a IN (SELECT a FROM u EXCEPT SELECT b FROM v) AND EXISTS (WITH q AS (SELECT 1) SELECT * FROM q)`,
			"select * from t where a in (select * from paimon_subquery_0) and exists (select * from paimon_subquery_1)\n" +
				"S0: (select a from u except select b from v)\nS1: with q as [select 1 from dual] select * from q"},
		{`SELECT (SELECT max(a) FROM u UNION SELECT 1) FROM ((SELECT a FROM t) INTERSECT (SELECT a FROM u)) AS x`,
			"select (select * from paimon_subquery_0) from (select * from paimon_subquery_1) as x\n" +
				"S0: (select max(a) from u union select 1 from dual)\nS1: (select a from t intersect select a from u)"},
		{`SELECT * FROM (SELECT a FROM t ORDER BY a LIMIT 1) x WHERE a IN (SELECT a FROM u OFFSET 2)`,
			"select * from (select a from t order by a asc limit 1) as x where a in (select * from paimon_subquery_0)\nS0: select a from u offset 2"},
		// 4. windows and FILTER
		{`SELECT rank() OVER (PARTITION BY a, b ORDER BY c DESC NULLS FIRST ROWS BETWEEN 3 PRECEDING AND CURRENT ROW) FROM t`,
			"select paimon_window(rank(), 0) from t\nW0: partition by a, b; order by c desc; rows 3 preceding .. current row\nN: c desc first=true"},
		{`SELECT sum(x) FILTER (WHERE y > 1) OVER w, count(*) OVER (w ORDER BY z ROWS 2 PRECEDING), avg(x) FILTER (WHERE y IS NULL) FROM t WINDOW w AS (PARTITION BY z)`,
			"select paimon_window(paimon_filter(sum(x), y > 1), 0), paimon_window(count(*), 1), paimon_filter(avg(x), y is null) from t\n" +
				"W0: partition by z\nW1: partition by z; order by z asc; rows 2 preceding .. current row"},
		{`SELECT lag(x, 1) OVER (ORDER BY d RANGE BETWEEN INTERVAL '1' DAY PRECEDING AND UNBOUNDED FOLLOWING), count(*) OVER () FROM t`,
			"select paimon_window(lag(x, 1), 0), paimon_window(count(*), 1) from t\nW0: order by d asc; range interval '1' day preceding .. unbounded following\nW1: "},
		// 5. derived column lists
		{`SELECT * FROM (SELECT 1, 2) AS c (x, y), t AS u (p) WHERE x = 1`,
			"select * from (select 1, 2 from dual) as c, t as u where x = 1\nD: (select 1, 2 from dual) as c [x y]\nD: t as u [p]"},
		// 6. joins
		{`SELECT * FROM a FULL OUTER JOIN b ON a.x = b.x FULL JOIN c USING (x) CROSS JOIN d NATURAL JOIN e LEFT JOIN f USING (y) RIGHT OUTER JOIN g USING (z) STRAIGHT_JOIN h ON 1`,
			"select * from a full join b on a.x = b.x full join c using (x) join d natural join e left join f using (y) right join g using (z) join h on 1"},
		// 7. ||
		{`SELECT a || b || 'c' FROM t`, `select a || b || 'c' from t`},
		// 8. INTERVAL
		{`SELECT INTERVAL '3 months', INTERVAL '1 day 2 hours', INTERVAL 90 DAY, INTERVAL '1' YEAR, INTERVAL '2' DAYS, DATE '1998-12-01' - INTERVAL '90' DAY`,
			`select interval '3' month, paimon_interval('1 day 2 hours'), interval 90 day, interval '1' year, interval '2' day, paimon_date('1998-12-01') - interval '90' day from dual`},
		{`SELECT INTERVAL '14 months 3 days 02:00:01.5', INTERVAL '1:30', INTERVAL '-2 days -00:00:01.25'`,
			`select paimon_interval('14 months 3 days 02:00:01.5'), paimon_interval('1:30'), paimon_interval('-2 days -00:00:01.25') from dual`},
		// 9. NULLS, OFFSET, FETCH
		{`SELECT a FROM t ORDER BY a NULLS LAST, b DESC OFFSET 3 ROWS FETCH FIRST 5 ROWS ONLY`,
			"select a from t order by a asc, b desc limit 3, 5\nN: a asc first=false"},
		{`SELECT a FROM t FETCH NEXT ROW ONLY`, `select a from t limit 1`},
		{`SELECT a FROM t LIMIT 5 OFFSET 2`, `select a from t limit 2, 5`},
		{`SELECT a FROM t OFFSET 5`, `select a from t offset 5`},
		{`SELECT a FROM t LIMIT ALL`, `select a from t`},
		// 10. ILIKE, DISTINCT FROM, ::, GROUPING SETS
		{`SELECT a FROM t WHERE a ILIKE '%x%' AND b NOT ILIKE 'y' || c ESCAPE '!'`,
			`select a from t where a like paimon_ci('%x%') and b not like paimon_ci('y' || c) escape '!'`},
		{`SELECT a IS DISTINCT FROM b, a + 1 IS NOT DISTINCT FROM c, -f(x) * 2 IS DISTINCT FROM (y) + 1 FROM t`,
			`select not (a <=> b), a + 1 <=> c, not (-f(x) * 2 <=> (y) + 1) from t`},
		{`SELECT a::int, (a+b)::decimal(10,2), f(x)::text::varchar, t.c::double precision, '1'::date FROM t`,
			`select paimon_cast(a, 'INT'), paimon_cast((a + b), 'DECIMAL(10,2)'), paimon_cast(paimon_cast(f(x), 'TEXT'), 'VARCHAR'), paimon_cast(t.c, 'DOUBLE PRECISION'), paimon_cast('1', 'DATE') from t`},
		{`SELECT a FROM t GROUP BY GROUPING SETS ((a, b), a, ()), ROLLUP (a, b), CUBE (a)`,
			`select a from t group by paimon_grouping_sets(paimon_set(a, b), paimon_set(a), paimon_set()), ROLLUP(a, b), CUBE(a)`},
		{`SELECT COUNT(DISTINCT a, b) FROM t`, `select COUNT(distinct a, b) from t`},
		// 11. catalogs
		{`SELECT * FROM paimon.default.lineitem l JOIN "paimon"."default"."orders" ON l.a = orders.b, other.db.t`,
			"select * from `default`.lineitem as l join `default`.orders on l.a = orders.b, db.t\nC: [paimon other]"},
		{`SELECT db.t.c FROM db.t`, `select db.t.c from db.t`},
		// hints, parameters, EXPLAIN, CALL, other statements
		{`SELECT a FROM t /*+ OPTIONS('scan.snapshot-id'='3') */ AS x JOIN u /*+ OPTIONS('a'='b') */ ON x.a = u.a`,
			"select a from t as x join u on x.a = u.a\nH: t as x map[scan.snapshot-id:3]\nH: u map[a:b]"},
		{`SELECT a FROM t /*+ INDEX(x) */ WHERE a = ?`, `select a from t where a = :v1`},
		{`EXPLAIN ANALYZE SELECT 1`, `explain analyze select 1 from dual`},
		{`CALL sys.compact('db.t', 'full');`, `call sys.compact["db.t" "full"]`},
		{"CALL sys.compact(`table` => 'db.t', \"mode\" => 'x')", `call sys.compact[] map[mode:x table:db.t]`},
		{`SHOW TABLES`, `show tables`},
		{`DELETE FROM "t" WHERE a = 1 AND b IN (SELECT 1 UNION SELECT 2)`, "delete from t where a = 1 and b in (select * from paimon_subquery_0)\nS0: (select 1 from dual union select 2 from dual)"},
	}
	for _, c := range cases {
		st, err := Parse(c.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", c.in, err)
			continue
		}
		if got := render(st); got != c.want {
			t.Errorf("Parse(%q)\n got %s\nwant %s", c.in, got, c.want)
		}
	}
}

func TestParseDetails(t *testing.T) {
	st, err := Parse(`SELECT REGEXP_REPLACE(r, '^https?://(?:www\.)?([^/]+)/.*$', '\1'), 'it''s', 'a\'b' FROM t WHERE a = ? AND b = ?`)
	if err != nil {
		t.Fatal(err)
	}
	if st.NumParams != 2 {
		t.Errorf("NumParams = %d", st.NumParams)
	}
	sel := st.Query.Body.(*Select)
	args := sel.SelectExprs[0].(*sqlparser.AliasedExpr).Expr.(*sqlparser.FuncExpr).Exprs
	if v := string(args[1].(*sqlparser.AliasedExpr).Expr.(*sqlparser.SQLVal).Val); v != `^https?://(?:www\.)?([^/]+)/.*$` {
		t.Errorf("regex literal = %q", v)
	}
	if v := string(args[2].(*sqlparser.AliasedExpr).Expr.(*sqlparser.SQLVal).Val); v != `\1` {
		t.Errorf(`'\1' = %q`, v)
	}
	for k, want := range map[int]string{1: "it's", 2: "a'b"} {
		if v := string(sel.SelectExprs[k].(*sqlparser.AliasedExpr).Expr.(*sqlparser.SQLVal).Val); v != want {
			t.Errorf("literal %d = %q, want %q", k, v, want)
		}
	}
	if sel.OrderBy != nil || sel.Limit != nil {
		t.Error("ORDER BY / LIMIT left in the Select")
	}
	// FULL JOIN and the interval unit as the binder sees them.
	st, err = Parse(`SELECT * FROM a FULL JOIN b USING (x, y) WHERE d > DATE '2020-01-01' - INTERVAL '3' MONTHS`)
	if err != nil {
		t.Fatal(err)
	}
	sel = st.Query.Body.(*Select)
	j := sel.From[0].(*sqlparser.JoinTableExpr)
	if j.Join != FullJoinStr || len(j.Condition.Using) != 2 || j.Condition.Using[0].String() != "x" {
		t.Errorf("join = %s %v", j.Join, j.Condition.Using)
	}
	iv := sel.Where.Expr.(*sqlparser.ComparisonExpr).Right.(*sqlparser.BinaryExpr).Right.(*sqlparser.IntervalExpr)
	if iv.Unit != "month" || string(iv.Expr.(*sqlparser.SQLVal).Val) != "3" {
		t.Errorf("interval = %s", sqlparser.String(iv))
	}
	// TPC-H Q15 and Q13 shapes.
	qs := loadQueries(t, "tpch.sql")
	st, err = Parse(qs[14])
	if err != nil {
		t.Fatal(err)
	}
	if w := st.Query.With; len(w) != 1 || w[0].Name != "revenue0" || strings.Join(w[0].Columns, ",") != "supplier_no,total_revenue" {
		t.Errorf("Q15 WITH = %+v", w)
	}
	st, err = Parse(qs[12])
	if err != nil {
		t.Fatal(err)
	}
	for a, cols := range st.DerivedColumns {
		if a.As.String() != "c_orders" || strings.Join(cols, ",") != "c_custkey,c_count" {
			t.Errorf("Q13 derived columns %s %v", a.As.String(), cols)
		}
	}
	if len(st.DerivedColumns) != 1 {
		t.Errorf("Q13: %d derived column lists", len(st.DerivedColumns))
	}
}

func TestParseErrors(t *testing.T) {
	cases := []struct {
		in   string
		want string
		is   error
	}{
		{`SELECT 'abc`, "unterminated ' quote starting at position 8", catalog.ErrInvalid},
		{`SELECT "abc`, `unterminated " quote starting at position 8`, catalog.ErrInvalid},
		{`SELECT 1 /* x`, "unterminated comment starting at position 10", catalog.ErrInvalid},
		{`SELECT 1; SELECT 2`, "multiple statements are not supported", catalog.ErrUnsupported},
		{`SELECT CAST(a) FROM t`, "CAST without AS <type>", catalog.ErrInvalid},
		{`SELECT a FROM t /*+ OPTIONS('k') */`, "malformed hint", catalog.ErrInvalid},
		{`SELECT a FROM t x /*+ OPTIONS('k'='v') */`, "directly follow the table name", catalog.ErrInvalid},
		{`CALL sys.compact(t)`, "argument 1 must be a string, number or boolean literal, got t", catalog.ErrUnsupported},
		{`EXPLAIN`, "EXPLAIN needs a statement", catalog.ErrInvalid},
		{``, "empty statement", catalog.ErrInvalid},
		{"SELECT a\nFROM t WHERE a = = 1", "syntax error (expected an expression after '=') at line 2, column 18 near '='\nFROM t WHERE a = = 1\n                 ^", catalog.ErrInvalid},
		{"SELECT a FROM t WHERE a = 1 AND", "syntax error (expected an expression after 'AND', found the end of the statement) at line 1, column 29 near 'AND'", catalog.ErrInvalid},
		{"SELECT * FROM", "syntax error (expected a table name after 'FROM')", catalog.ErrInvalid},
		{"SELECT a FROM t WHER a = 1", `syntax error ('WHER' is not a keyword here (did you mean "WHERE"?))`, catalog.ErrInvalid},
		{`SELECT a FROM t WHERE d > DATE '2020-01-01' AND b FORM`, `syntax error ('FORM' is not a keyword here (did you mean "FROM"?)) at line 1, column 51 near 'FORM'`, catalog.ErrInvalid},
		{`WITH RECURSIVE t AS SELECT 1`, "expected (query) after WITH t AS", catalog.ErrInvalid},
		{`SELECT a FROM t ORDER BY a UNION SELECT 1`, "ORDER BY / LIMIT before UNION", catalog.ErrInvalid},
		{`SELECT a | paimon_bit_or FROM t`, "reserved", catalog.ErrInvalid},
		{`SELECT ~~a FROM t`, "operator ~~", catalog.ErrUnsupported},
		{`SELECT :x FROM t`, "named parameters", catalog.ErrUnsupported},
		{`SELECT count(*) OVER (ROWS BETWEEN CURRENT ROW AND 1 PRECEDING) FROM t`, "frame starts after it ends", catalog.ErrInvalid},
		{`SELECT count(*) OVER (ORDER BY a GROUPS 1 PRECEDING EXCLUDE OTHERS) FROM t`, "expected CURRENT ROW, GROUP, TIES or NO OTHERS after EXCLUDE", catalog.ErrInvalid},
		{`SELECT count(*) OVER (ORDER BY a ROWS 1 PRECEDING EXCLUDE TIES x) FROM t`, "unexpected x after the window frame", catalog.ErrInvalid},
		{`SELECT count(*) OVER w FROM t`, "window w is not defined", catalog.ErrInvalid},
		{`SELECT a FROM t FETCH FIRST 3 ROWS WITH TIES`, "WITH TIES is not supported", catalog.ErrUnsupported},
		{`SELECT * FROM a FULL JOIN b`, "FULL JOIN needs ON or USING", catalog.ErrInvalid},
		{`SELECT INTERVAL '2' HOUR TO MINUTE`, "TO ... is not supported", catalog.ErrUnsupported},
		{`SELECT INTERVAL 'soon'`, "cannot read INTERVAL 'soon'", catalog.ErrInvalid},
		{`SELECT * FROM a.b.c.d`, "table name with 4 parts", catalog.ErrInvalid},
		{`SELECT * FROM paimon_subquery_0`, "the name paimon_subquery_0 is reserved", catalog.ErrInvalid},
		{`SELECT paimon_window(x, 0) FROM t`, "is reserved", catalog.ErrInvalid},
		{`SELECT (1`, `unbalanced "("`, catalog.ErrInvalid},
		{`SELECT 1)`, `unbalanced ")"`, catalog.ErrInvalid},
		{`VALUES (1)`, "syntax error", catalog.ErrInvalid},
		{`SELECT 1 UNION VALUES (1)`, "VALUES is not supported here", catalog.ErrUnsupported},
		{`SELECT {x 1}`, "ODBC escape {x ...} is not supported", catalog.ErrUnsupported},
		{`SELECT a FROM t WHERE a = 1 LIMIT 1 junk`, "syntax error", catalog.ErrInvalid},
		{strings.Repeat("(", 300) + "1" + strings.Repeat(")", 300), "nested deeper than", catalog.ErrInvalid},
	}
	for _, c := range cases {
		_, err := Parse(c.in)
		if err == nil || !strings.Contains(err.Error(), c.want) || !errors.Is(err, c.is) {
			t.Errorf("Parse(%q) = %v\nwant error containing %q wrapping %v", c.in, err, c.want, c.is)
		}
	}
}

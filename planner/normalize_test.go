package planner

import (
	"errors"
	"strings"
	"testing"

	"github.com/xwb1989/sqlparser"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
)

func TestNormalize(t *testing.T) {
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
		{`SELECT a FROM t /*+ OPTIONS('scan.snapshot-id'='3') */ WHERE a = 1`, "SELECT a FROM t   WHERE a = 1"},
		{`SELECT 1.5e3, .5, x.y`, "SELECT 1.5e3, .5, `x`.`y`"},
		{`SELECT key, value FROM t$options WHERE key = 'key'`, "SELECT `key`, value FROM `t$options` WHERE `key` = 'key'"},
	}
	for _, c := range cases {
		n, err := normalize(c.in)
		if err != nil {
			t.Errorf("normalize(%q): %v", c.in, err)
			continue
		}
		if n.sql != c.want {
			t.Errorf("normalize(%q)\n got %q\nwant %q", c.in, n.sql, c.want)
		}
	}
}

func TestNormalizeHintsExplainCall(t *testing.T) {
	n, err := normalize(`EXPLAIN SELECT a FROM t /*+ OPTIONS('scan.snapshot-id'='3', 'branch'='b') */`)
	if err != nil {
		t.Fatal(err)
	}
	if !n.explain || n.options["scan.snapshot-id"] != "3" || n.options["branch"] != "b" || n.hintTab != "t" {
		t.Fatalf("got %+v", n)
	}
	c, err := normalize(`CALL sys.compact('db.t', 'full');`)
	if err != nil {
		t.Fatal(err)
	}
	if c.call == nil || c.call.proc != "sys.compact" || strings.Join(c.call.args, ",") != "db.t,full" {
		t.Fatalf("got %+v", c.call)
	}
}

func TestNormalizeErrors(t *testing.T) {
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
		{`SELECT a FROM t /*+ OPTIONS('a'='1') */, u /*+ OPTIONS('b'='2') */`, "OPTIONS hints on more than one table (t, u)", catalog.ErrUnsupported},
		{`CALL sys.compact(t)`, "argument 1 must be a string literal, got t", catalog.ErrUnsupported},
		{`EXPLAIN`, "EXPLAIN needs a statement", catalog.ErrInvalid},
	}
	for _, c := range cases {
		_, err := normalize(c.in)
		if err == nil || !strings.Contains(err.Error(), c.want) || !errors.Is(err, c.is) {
			t.Errorf("normalize(%q) = %v, want error containing %q wrapping %v", c.in, err, c.want, c.is)
		}
	}
}

// FuzzNormalize checks that the normaliser never panics and that whatever
// it produces is never worse than the input for the parser on simple cases.
func FuzzNormalize(f *testing.F) {
	for _, s := range []string{`SELECT "a" FROM t$files WHERE d = DATE '2024-01-01'`, `CAST(x AS DOUBLE)`, `'\'`, `/*+ OPTIONS('a'='b') */`, `EXTRACT(`, `CALL x(`, `"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := normalize(s)
		if err == nil && n.call == nil {
			_, _ = sqlparser.Parse(n.sql)
		}
	})
}

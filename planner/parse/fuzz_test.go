package parse

import (
	"errors"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/xwb1989/sqlparser"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
)

// FuzzParse checks that no input makes Parse panic or return an error that
// is neither ErrInvalid nor ErrUnsupported.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`SELECT "a" FROM t$files WHERE d = DATE '2024-01-01'`, `CAST(x AS DOUBLE)`, `'\'`, `/*+ OPTIONS('a'='b') */`,
		`EXTRACT(`, `CALL x(`, `"`, `WITH a AS (SELECT 1) SELECT * FROM a UNION (SELECT 2 ORDER BY 1 LIMIT 1)`,
		`SELECT sum(x) FILTER (WHERE y) OVER (PARTITION BY a ORDER BY b NULLS FIRST ROWS 1 PRECEDING) FROM t WINDOW w AS ()`,
		`SELECT * FROM (SELECT 1) AS c (x) FULL JOIN d USING (x) WHERE a::int IS DISTINCT FROM b || 'x' ILIKE ?`,
		`SELECT {fn UCASE(x)}, {d '2024-01-01'}, INTERVAL '1 day 2 hours' FROM paimon.db.t OFFSET 1 ROWS FETCH FIRST 2 ROWS ONLY`,
		`SELECT a FROM t GROUP BY GROUPING SETS ((a), ())`, `SELECT 1 INTERSECT SELECT 2 EXCEPT SELECT 3`,
		`SELECT DISTINCT ON (a) t.* EXCLUDE (b) REPLACE (c + 1 AS c), STRING_AGG(x, ',' ORDER BY y DESC NULLS FIRST) FILTER (WHERE z) FROM t QUALIFY ROW_NUMBER() OVER w = 1 WINDOW w AS (ORDER BY a)`,
		`SELECT LISTAGG(x, ';') WITHIN GROUP (ORDER BY x), TRY_CAST(x AS INT), s NOT SIMILAR TO 'a.*', COUNT(DISTINCT (a, b)) FROM t`,
		`SELECT ~a + b | c & d << 2 >> e || 'x', (a | b) & ~(c), f(x | y, ~z[1]) FROM t WHERE a | b = 3`,
		`SELECT {'a': {b: [1]}}.a.b[1], struct_pack(x := 1, t.y), MAP {'k': 1}['k'], {fn f(x)} FROM t WHERE (a, b) IN (SELECT 1, 2)`,
	} {
		f.Add(s)
	}

	// Writes: ALTER TABLE columns, INSERT OVERWRITE, CTAS.
	for _, s := range []string{
		`ALTER TABLE t ADD (a ROW<x INT> NOT NULL COMMENT 'c' FIRST, b INT AFTER a)`, `ALTER TABLE d.t MODIFY a DECIMAL(5, 2) NULL AFTER b`,
		`ALTER TABLE t ALTER COLUMN a DROP NOT NULL`, `INSERT OVERWRITE TABLE t PARTITION (a = -1, b = 'x') (c) SELECT 1`,
		`CREATE TABLE IF NOT EXISTS t PARTITIONED BY (a) WITH ('k' = 'v') AS SELECT 1 AS a`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		st, err := Parse(s)
		if err != nil {
			if !errors.Is(err, catalog.ErrInvalid) && !errors.Is(err, catalog.ErrUnsupported) {
				t.Fatalf("Parse(%q): error %v wraps neither ErrInvalid nor ErrUnsupported", s, err)
			}
			return
		}
		if st.Query == nil && st.Other == nil && st.Call == nil && st.DDL == nil && st.Insert == nil {
			t.Fatalf("Parse(%q): empty statement without error", s)
		}
	})
}

func orChain(size int) string {
	var b strings.Builder
	b.WriteString("SELECT a FROM t WHERE a = 0")
	for i := 1; b.Len() < size; i++ {
		b.WriteString(" OR a = 'v")
		b.WriteString(strings.Repeat("x", i%7))
		b.WriteString("'")
	}
	return b.String()
}

// TestHostileInputs: big and deep statements end quickly, with a result or
// a clear error (the bound is generous; BenchmarkOrChain measures).
func TestHostileInputs(t *testing.T) {
	deep := strings.Repeat("(", 100000) + "1" + strings.Repeat(")", 100000)
	cases := []struct {
		name, sql string
		ok        bool
	}{
		{"or chain 1MB", orChain(1 << 20), true},
		{"100k parens", "SELECT " + deep, false},
		{"100k open parens", "SELECT " + strings.Repeat("(", 100000), false},
		{"150 nested calls", "SELECT " + strings.Repeat("f(", 150) + "1" + strings.Repeat(")", 150), true},
		{"150 nested casts", "SELECT " + strings.Repeat("CAST(", 150) + "1" + strings.Repeat(" AS INT)", 150), true},
		{"deep subqueries", "SELECT * FROM t WHERE a IN " + strings.Repeat("(SELECT a FROM t WHERE a IN ", 60) + "(1)" + strings.Repeat(")", 60), true},
		{"many windows", "SELECT " + strings.Repeat("count(*) OVER (PARTITION BY a ORDER BY b), ", 5000) + "1 FROM t", true},
		{"many set operations", strings.Repeat("SELECT 1 UNION ", 5000) + "SELECT 2", true},
		{"many :: casts", "SELECT " + strings.Repeat("a::int + ", 20000) + "1 FROM t", true},
		{"long identifier", "SELECT " + strings.Repeat("x", 1<<20) + " FROM t", true},
		{"unterminated string 1MB", "SELECT '" + strings.Repeat("x", 1<<20), false},
		{"hostile names", "SELECT `a``b`, \"c\"\"d`e\" FROM `x``y`.\"z\"", true},
	}
	for _, c := range cases {
		start := time.Now()
		st, err := Parse(c.sql)
		d := time.Since(start)
		if c.ok && (err != nil || st == nil) {
			t.Errorf("%s: %v", c.name, err)
		}
		if !c.ok && err == nil {
			t.Errorf("%s: no error", c.name)
		}
		if err != nil && !errors.Is(err, catalog.ErrInvalid) && !errors.Is(err, catalog.ErrUnsupported) {
			t.Errorf("%s: %v wraps neither ErrInvalid nor ErrUnsupported", c.name, err)
		}
		if err != nil && len(err.Error()) > 1000 {
			t.Errorf("%s: error message of %d bytes", c.name, len(err.Error()))
		}
		if d > 10*time.Second {
			t.Errorf("%s: took %v", c.name, d)
		}
	}
}

// BenchmarkOrChain parses a 1 MB chain of ORs (about 45,000). It also
// reports process CPU time per statement (cpu-ns/op), which stays
// meaningful on a loaded machine where wall time does not.
func BenchmarkOrChain(b *testing.B) {
	sql := orChain(1 << 20)
	b.SetBytes(int64(len(sql)))
	c0 := cpuTime()
	for i := 0; i < b.N; i++ {
		if _, err := Parse(sql); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(cpuTime()-c0)/float64(b.N), "cpu-ns/op")
}

// BenchmarkOrChainSQLParser is the floor: sqlparser alone on the same text.
func BenchmarkOrChainSQLParser(b *testing.B) {
	sql := orChain(1 << 20)
	b.SetBytes(int64(len(sql)))
	c0 := cpuTime()
	for i := 0; i < b.N; i++ {
		if _, err := sqlparser.Parse(sql); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(cpuTime()-c0)/float64(b.N), "cpu-ns/op")
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

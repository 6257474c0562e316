package integration

import (
	"context"
	"flag"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/apache/arrow-adbc/go/adbc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/integration/clickbench"
	"github.com/paimon-flightsql/paimon-flightsql/integration/sqlgen"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/fileio"
	"github.com/paimon-flightsql/paimon-flightsql/planner"
)

var clickbenchRows = flag.Int64("clickbench.rows", 200_000, "rows of the generated ClickBench hits table of TestClickBench")

// clickbenchFlight are the queries also run over Flight SQL (ADBC driver).
var clickbenchFlight = []int{1, 8, 13, 24, 29, 43}

// TestClickBench runs the 43 ClickBench queries over a generated hits
// table with our engine (in-process; a few also over Flight SQL) and with
// DuckDB over the same Parquet files, and requires the same results
// (clickbenchSpec: tie-aware for ORDER BY ... LIMIT).
func TestClickBench(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "warehouse")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	fio, err := fileio.NewLocal(dir)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	bmem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	if err := clickbench.Build(ctx, fio, *clickbenchRows, clickbench.BuildOptions{Allocator: bmem}); err != nil {
		t.Fatal(err)
	}
	bmem.AssertSize(t, 0)
	files, err := clickbench.DataFiles(ctx, dir, clickbench.Database, clickbench.Table)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("built %d rows in %d files in %v", *clickbenchRows, len(files), time.Since(start).Round(time.Millisecond))
	duck, err := sqlgen.OpenDuck(2)
	if err != nil {
		t.Fatal(err)
	}
	defer duck.Close()
	if err := duck.View(clickbench.Table, files); err != nil {
		t.Fatal(err)
	}
	// The generator's promises the comparison relies on.
	sanity, err := duck.Query("SELECT COUNT(*), COUNT(DISTINCT EventTime), SUM(CASE WHEN CAST(EventTime AS DATE) = EventDate THEN 1 ELSE 0 END) FROM hits")
	if err != nil {
		t.Fatal(err)
	}
	n := sqlgen.IntV(*clickbenchRows)
	if r := sanity.Rows[0]; !sqlgen.Equal(r[0], n, 0) || !sqlgen.Equal(r[1], n, 0) || !sqlgen.Equal(r[2], n, 0) {
		t.Fatalf("generated data: rows, distinct EventTime, EventDate = date(EventTime): %s, want %d each", r, *clickbenchRows)
	}
	queries := clickbench.Queries()

	t.Run("comparator", func(t *testing.T) { testClickBenchComparator(t, duck, files, queries) })

	eng := planner.New(openCatalog(t, dir), planner.Options{})
	sess := planner.Session{Database: clickbench.Database}
	var ours time.Duration
	for _, q := range queries {
		t.Run(q.Name(), func(t *testing.T) {
			want, err := duck.Query(q.SQL)
			if err != nil {
				t.Fatalf("DuckDB: %v\n%s", err, q.SQL)
			}
			if len(want.Rows) == 0 {
				t.Errorf("generated data: DuckDB returns no rows for\n%s", q.SQL)
			}
			spec, err := clickbenchSpec(q, duck)
			if err != nil {
				t.Fatal(err)
			}
			t0 := time.Now()
			got, err := runOurs(ctx, t, eng, q.SQL, sess)
			ours += time.Since(t0)
			if err != nil {
				t.Fatalf("ours: %v\n%s", err, q.SQL)
			}
			if err := sqlgen.Compare(got, want, spec); err != nil {
				t.Errorf("%s\n%v\nours:\n%sDuckDB:\n%s", q.SQL, err, got.Format(20), want.Format(20))
			}
		})
	}
	t.Logf("our engine: %v for the 43 queries", ours.Round(time.Millisecond))

	t.Run("flight", func(t *testing.T) {
		srv := startServer(t, dir)
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		t.Cleanup(func() { mem.AssertSize(t, 0) }) // after the connection is closed
		cnxn := openADBC(t, srv, mem, nil)
		for _, n := range clickbenchFlight {
			q := queries[n-1]
			t.Run(q.Name(), func(t *testing.T) {
				want, err := duck.Query(q.SQL)
				if err != nil {
					t.Fatal(err)
				}
				spec, err := clickbenchSpec(q, duck)
				if err != nil {
					t.Fatal(err)
				}
				got, err := adbcResult(ctx, cnxn, qualifyHits(q.SQL))
				if err != nil {
					t.Fatalf("Flight SQL: %v\n%s", err, q.SQL)
				}
				if err := sqlgen.Compare(got, want, spec); err != nil {
					t.Errorf("%s\n%v\nFlight SQL:\n%sDuckDB:\n%s", q.SQL, err, got.Format(20), want.Format(20))
				}
			})
		}
	})
}

var fromHits = regexp.MustCompile(`\bFROM hits\b`)

// qualifyHits names the database of the table for clients without a
// session database.
func qualifyHits(sql string) string {
	return fromHits.ReplaceAllString(sql, "FROM "+clickbench.Database+"."+clickbench.Table)
}

// runOurs runs sql with planner.Run under a checked allocator, which must
// be empty once the result is read and released (also after an error).
func runOurs(ctx context.Context, t testing.TB, eng *planner.Engine, sql string, sess planner.Session) (sqlgen.Result, error) {
	t.Helper()
	res, leaked, err := runOursLeak(ctx, eng, sql, sess)
	if leaked != 0 {
		t.Errorf("ours: %d bytes still allocated after the result was released (err %v)\n%s", leaked, err, sql)
	}
	return res, err
}

// runOursLeak runs sql under a checked allocator and reports what it
// still holds after the reader is released.
func runOursLeak(ctx context.Context, eng *planner.Engine, sql string, sess planner.Session) (sqlgen.Result, int, error) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	rdr, err := planner.Run(ctx, eng, sql, sess, mem)
	if err != nil {
		return sqlgen.Result{}, mem.CurrentAlloc(), err
	}
	res, err := sqlgen.FromArrow(rdr)
	rdr.Release()
	return res, mem.CurrentAlloc(), err
}

// adbcResult runs sql with a fresh statement of an ADBC connection.
func adbcResult(ctx context.Context, cnxn adbc.Connection, sql string) (sqlgen.Result, error) {
	st, err := cnxn.NewStatement()
	if err != nil {
		return sqlgen.Result{}, err
	}
	defer st.Close()
	if err := st.SetSqlQuery(sql); err != nil {
		return sqlgen.Result{}, err
	}
	rdr, _, err := st.ExecuteQuery(ctx)
	if err != nil {
		return sqlgen.Result{}, err
	}
	defer rdr.Release()
	return sqlgen.FromArrow(rdr)
}

// clickbenchSpec is q.Spec with the unlimited result for LIMIT without
// ORDER BY.
func clickbenchSpec(q clickbench.Query, duck *sqlgen.Duck) (sqlgen.Spec, error) {
	spec := q.Spec()
	if q.NeedsSuperset() {
		all, err := duck.Query(q.UnlimitedSQL())
		if err != nil {
			return spec, err
		}
		spec.Superset = &all
	}
	return spec, nil
}

// testClickBenchComparator checks the comparison itself on DuckDB results:
// DuckDB (2 threads) against DuckDB (1 thread, other tie breaks) agrees;
// altering a value, a sort key, the order or the row count disagrees.
func testClickBenchComparator(t *testing.T, duck *sqlgen.Duck, files []string, queries []clickbench.Query) {
	d1, err := sqlgen.OpenDuck(1)
	if err != nil {
		t.Fatal(err)
	}
	defer d1.Close()
	if err := d1.View(clickbench.Table, files); err != nil {
		t.Fatal(err)
	}
	valueChecked := 0
	for _, q := range queries {
		a, err := duck.Query(q.SQL)
		if err != nil {
			t.Fatalf("%s: %v", q.Name(), err)
		}
		b, err := d1.Query(q.SQL)
		if err != nil {
			t.Fatalf("%s: %v", q.Name(), err)
		}
		spec, err := clickbenchSpec(q, duck)
		if err != nil {
			t.Fatal(err)
		}
		if err := sqlgen.Compare(b, a, spec); err != nil {
			t.Errorf("%s: DuckDB 1 thread vs 2 threads: %v\n%s", q.Name(), err, q.SQL)
		}
		if len(a.Rows) == 0 {
			continue
		}
		fails := func(what string, got sqlgen.Result) {
			t.Helper()
			if sqlgen.Compare(got, a, spec) == nil {
				t.Errorf("%s: %s: the comparison passed\n%s", q.Name(), what, got.Format(5))
			}
		}
		// A value of a row in a complete key group (or any row when the
		// comparison is not keyed).
		row, col := alterable(a, spec)
		if row >= 0 {
			fails(fmt.Sprintf("value of row %d column %d altered", row, col), alter(a, row, col))
			valueChecked++
		}
		if len(spec.Keys) > 0 {
			fails("sort key of row 0 altered", alter(a, 0, spec.Keys[0].Col))
		}
		fewer := sqlgen.Result{Columns: a.Columns, Rows: a.Rows[:len(a.Rows)-1]}
		fails("one row less", fewer)
		if spec.Ordered && len(a.Rows) > 1 && spec.Superset == nil {
			if i, ok := swappable(a, spec); ok {
				sw := clone(a)
				sw.Rows[i], sw.Rows[i+1] = sw.Rows[i+1], sw.Rows[i]
				fails(fmt.Sprintf("rows %d and %d swapped", i, i+1), sw)
			}
		}
	}
	if valueChecked < 30 {
		t.Errorf("only %d queries had a value whose alteration must be detected", valueChecked)
	}

	// Ties: with LIMIT the last group may hold any of its rows, with an
	// OFFSET the first too; other groups must match.
	r := func(s string, c int64) sqlgen.Row { return sqlgen.Row{sqlgen.StrV(s), sqlgen.IntV(c)} }
	res := func(rows ...sqlgen.Row) sqlgen.Result { return sqlgen.Result{Columns: []string{"k", "c"}, Rows: rows} }
	byC := []sqlgen.SortKey{{Col: 1, Desc: true}}
	want := res(r("a", 3), r("b", 2), r("c", 1))
	for _, tc := range []struct {
		name string
		got  sqlgen.Result
		spec sqlgen.Spec
		ok   bool
	}{
		{"tie at the limit", res(r("a", 3), r("b", 2), r("d", 1)), sqlgen.Spec{Ordered: true, Keys: byC, Limit: 3}, true},
		{"tie without limit", res(r("a", 3), r("b", 2), r("d", 1)), sqlgen.Spec{Ordered: true, Keys: byC, Limit: -1}, false},
		{"short of the limit", res(r("a", 3), r("b", 2), r("d", 1)), sqlgen.Spec{Ordered: true, Keys: byC, Limit: 4}, false},
		{"first group with offset", res(r("z", 3), r("b", 2), r("c", 1)), sqlgen.Spec{Ordered: true, Keys: byC, Limit: 3, Offset: 5}, true},
		{"first group without offset", res(r("z", 3), r("b", 2), r("c", 1)), sqlgen.Spec{Ordered: true, Keys: byC, Limit: 3}, false},
		{"interior group", res(r("a", 3), r("z", 2), r("c", 1)), sqlgen.Spec{Ordered: true, Keys: byC, Limit: 3, Offset: 5}, false},
		{"unsorted", res(r("b", 2), r("a", 3), r("c", 1)), sqlgen.Spec{Ordered: true, Keys: byC, Limit: 3}, false},
		{"multiset", res(r("c", 1), r("a", 3), r("b", 2)), sqlgen.Spec{Limit: -1}, true},
		{"multiset differs", res(r("c", 1), r("a", 3), r("b", 3)), sqlgen.Spec{Limit: -1}, false},
		{"row by row", res(r("a", 3), r("c", 1), r("b", 2)), sqlgen.Spec{Ordered: true, Limit: -1}, false},
		{"superset", res(r("b", 2)), sqlgen.Spec{Limit: 1, Superset: &want}, true},
		{"not in superset", res(r("b", 3)), sqlgen.Spec{Limit: 1, Superset: &want}, false},
	} {
		w := want
		if tc.spec.Superset != nil {
			w = res(r("x", 0))
		}
		if err := sqlgen.Compare(tc.got, w, tc.spec); (err == nil) != tc.ok {
			t.Errorf("%s: Compare = %v, want ok=%v", tc.name, err, tc.ok)
		}
	}
	// Numbers by value, floats within the tolerance, DATE = TIMESTAMP at midnight.
	day := time.Date(2013, 7, 15, 0, 0, 0, 0, time.UTC)
	dec := sqlgen.BigV(big.NewInt(1250), 2) // 12.50
	for _, tc := range []struct {
		a, b sqlgen.Value
		eq   bool
	}{
		{sqlgen.IntV(7), sqlgen.BigV(big.NewInt(7), 0), true},
		{sqlgen.IntV(7), sqlgen.FloatV(7), true},
		{dec, sqlgen.FloatV(12.5), true},
		{dec, sqlgen.BigV(big.NewInt(125), 1), true},
		{dec, sqlgen.BigV(big.NewInt(1251), 2), false},
		{sqlgen.FloatV(1), sqlgen.FloatV(1 + 1e-12), true},
		{sqlgen.FloatV(1), sqlgen.FloatV(1 + 1e-6), false},
		{sqlgen.TimeV(day), sqlgen.TimeV(day.Add(0)), true},
		{sqlgen.TimeV(day), sqlgen.TimeV(day.Add(time.Second)), false},
		{sqlgen.Value{}, sqlgen.IntV(0), false},
		{sqlgen.Value{}, sqlgen.Value{}, true},
		{sqlgen.StrV("1"), sqlgen.IntV(1), false},
	} {
		if got := sqlgen.Equal(tc.a, tc.b, sqlgen.DefaultRelTol); got != tc.eq {
			t.Errorf("Equal(%s, %s) = %v", tc.a, tc.b, got)
		}
	}
	// A DATE column read from DuckDB equals a TIMESTAMP at midnight.
	dt, err := duck.Query("SELECT DATE '2013-07-15', TIMESTAMP '2013-07-15 00:00:00'")
	if err != nil {
		t.Fatal(err)
	}
	if v := dt.Rows[0]; !sqlgen.Equal(v[0], v[1], 0) || !sqlgen.Equal(v[0], sqlgen.TimeV(day), 0) {
		t.Errorf("DuckDB DATE vs TIMESTAMP: %s", v)
	}
}

func clone(r sqlgen.Result) sqlgen.Result {
	out := sqlgen.Result{Columns: r.Columns}
	for _, row := range r.Rows {
		out.Rows = append(out.Rows, append(sqlgen.Row(nil), row...))
	}
	return out
}

// alterable finds a row and a non-key column whose value a comparison
// under spec must check, or -1.
func alterable(r sqlgen.Result, spec sqlgen.Spec) (row, col int) {
	if spec.Superset != nil {
		return 0, 0 // an altered row is no longer a row of the unlimited result
	}
	isKey := map[int]bool{}
	for _, k := range spec.Keys {
		isKey[k.Col] = true
	}
	n := len(r.Rows)
	for i := range n {
		if len(spec.Keys) > 0 {
			// Skip the groups a LIMIT/OFFSET may cut.
			same := func(j int) bool {
				if j < 0 || j >= n {
					return false
				}
				for _, k := range spec.Keys {
					if !sqlgen.Equal(r.Rows[i][k.Col], r.Rows[j][k.Col], 0) {
						return false
					}
				}
				return true
			}
			lo := i
			for lo > 0 && same(lo-1) {
				lo--
			}
			hi := i
			for hi < n-1 && same(hi+1) {
				hi++
			}
			if (lo == 0 && spec.Offset > 0) || (hi == n-1 && spec.Limit >= 0 && n == spec.Limit) {
				continue
			}
		}
		for c := range r.Rows[i] {
			if !isKey[c] {
				return i, c
			}
		}
	}
	return -1, -1
}

// alter returns r with the value at (row, col) changed.
func alter(r sqlgen.Result, row, col int) sqlgen.Result {
	out := clone(r)
	v := out.Rows[row][col]
	switch v.Kind {
	case sqlgen.Int:
		v.I++
	case sqlgen.Dec:
		v = sqlgen.FloatV(v.FloatValue() + 1)
	case sqlgen.Float:
		v.F = v.F*(1+1e-6) + 1e-6
	case sqlgen.Str:
		v.S += "x"
	case sqlgen.Bool:
		v.I = 1 - v.I
	case sqlgen.Time:
		v.T = v.T.Add(time.Second)
	case sqlgen.Null:
		v = sqlgen.IntV(0)
	}
	out.Rows[row][col] = v
	return out
}

// swappable finds adjacent rows with different sort keys (or different
// rows when the comparison is row by row).
func swappable(r sqlgen.Result, spec sqlgen.Spec) (int, bool) {
	for i := 0; i+1 < len(r.Rows); i++ {
		if len(spec.Keys) == 0 {
			if !sqlgen.RowsEqual(r.Rows[i], r.Rows[i+1], 0) {
				return i, true
			}
			continue
		}
		for _, k := range spec.Keys {
			if !sqlgen.Equal(r.Rows[i][k.Col], r.Rows[i+1][k.Col], 0) {
				return i, true
			}
		}
	}
	return 0, false
}

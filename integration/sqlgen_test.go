package integration

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
	"github.com/paimon-flightsql/paimon-flightsql/integration/clickbench"
	"github.com/paimon-flightsql/paimon-flightsql/integration/sqlgen"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/fileio"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/write"
	"github.com/paimon-flightsql/paimon-flightsql/planner"
)

var (
	sqlgenSeed = flag.Uint64("sqlgen.seed", 0, "seed of TestSQLGen (0 = $SQLGEN_SEED, else from the clock)")
	sqlgenN    = flag.Int("sqlgen.n", 1000, "number of random queries of TestSQLGen")
)

// sqlgenDetailed is how many failing queries are printed in full.
const sqlgenDetailed = 10

func sqlgenSeedValue(t *testing.T) uint64 {
	if *sqlgenSeed != 0 {
		return *sqlgenSeed
	}
	if s := os.Getenv("SQLGEN_SEED"); s != "" {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("SQLGEN_SEED=%q: %v", s, err)
		}
		return v
	}
	return uint64(time.Now().UnixNano())
}

// buildSQLGenWarehouse writes the generated tables (two commits each, so
// two files) and returns the warehouse directory.
func buildSQLGenWarehouse(t *testing.T, seed uint64, tables []sqlgen.Table) string {
	t.Helper()
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "warehouse")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	fio, err := fileio.NewLocal(dir)
	if err != nil {
		t.Fatal(err)
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	for _, tb := range tables {
		w, err := write.CreateTable(ctx, fio, sqlgen.Database, tb.Name, write.TableSpec{Fields: tb.Fields()})
		if err != nil {
			t.Fatal(err)
		}
		rec := tb.Data(mem, seed)
		half := rec.NumRows() / 2
		for _, part := range [][2]int64{{0, half}, {half, rec.NumRows()}} {
			s := rec.NewSlice(part[0], part[1])
			wr := w.NewWriter(mem)
			err := wr.Write(ctx, s)
			s.Release()
			if err == nil {
				_, err = wr.Commit(ctx)
			}
			if err != nil {
				rec.Release()
				t.Fatalf("%s: %v", tb.Name, err)
			}
		}
		rec.Release()
	}
	mem.AssertSize(t, 0)
	return dir
}

// openSQLGenDuck opens DuckDB with the generated tables loaded from their
// Paimon data files (a view re-reads the Parquet footers on every query:
// too slow for a thousand small queries).
func openSQLGenDuck(t *testing.T, dir string, tables []sqlgen.Table, threads int) *sqlgen.Duck {
	t.Helper()
	d, err := sqlgen.OpenDuck(threads)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	for _, tb := range tables {
		files, err := clickbench.DataFiles(context.Background(), dir, sqlgen.Database, tb.Name)
		if err != nil {
			t.Fatal(err)
		}
		if err := d.Load(tb.Name, files); err != nil {
			t.Fatal(err)
		}
	}
	return d
}

// TestSQLGen runs -sqlgen.n random queries (seed -sqlgen.seed or
// $SQLGEN_SEED to replay) with our engine and with DuckDB over the same
// Parquet files. A query DuckDB rejects is skipped (at most 10% may be);
// any error of ours, ErrUnsupported included, and any difference fail.
func TestSQLGen(t *testing.T) {
	seed := sqlgenSeedValue(t)
	t.Logf("sqlgen seed %d (replay: go test -run SQLGen -sqlgen.seed %d)", seed, seed)
	tables := sqlgen.Tables()
	dir := buildSQLGenWarehouse(t, seed, tables)
	duck := openSQLGenDuck(t, dir, tables, 1)
	features := sqlgen.AllFeatures()

	t.Run("generator", func(t *testing.T) {
		a, b := sqlgen.NewGenerator(seed, features, tables), sqlgen.NewGenerator(seed, features, tables)
		for range 200 {
			if qa, qb := a.Next(), b.Next(); qa.SQL != qb.SQL {
				t.Fatalf("same seed, different queries:\n%s\n%s", qa.SQL, qb.SQL)
			}
		}
		// Narrowed features are respected.
		narrow := sqlgen.NewGenerator(seed, sqlgen.Features{}, tables)
		for range 300 {
			q := narrow.Next().SQL
			for _, w := range []string{"JOIN", " OVER ", "UNION", "INTERSECT", "EXCEPT", "GROUP BY", "SELECT 1", " IN (SELECT", "CASE", "COALESCE", "LIKE", " OR ", "ORDER BY"} {
				if strings.Contains(q, w) {
					t.Fatalf("no features, but %q in\n%s", w, q)
				}
			}
		}
		// The full mix produces every construct.
		full := sqlgen.NewGenerator(seed, features, tables)
		seen := map[string]bool{}
		words := []string{"LEFT JOIN", "RIGHT JOIN", "FULL", "CROSS JOIN", "USING (", "NOT IN (SELECT", "NOT EXISTS", "EXISTS (", "(SELECT COUNT(*)",
			"GROUP BY", "HAVING", "COUNT(DISTINCT", "DISTINCT", "UNION ALL", "INTERSECT", "EXCEPT", "ROW_NUMBER()", "RANK()", "DENSE_RANK()",
			"OVER (", "ORDER BY", "LIMIT", "OFFSET", "BETWEEN", "LIKE", "IS NULL", "CASE WHEN", "COALESCE(", "AVG(", "MIN(", "MAX(", "SUM(", " OR ", "NOT ",
			") AS x", "DATE '", "TIMESTAMP '", " ANY (SELECT", " ALL (SELECT", "COUNT(*) + 1"}
		for range 2000 {
			q := full.Next().SQL
			for _, w := range words {
				if strings.Contains(q, w) {
					seen[w] = true
				}
			}
		}
		for _, w := range words {
			if !seen[w] {
				t.Errorf("2000 queries of the full mix never contain %q", w)
			}
		}
	})

	// The generated queries are deterministic (total orders, no LIMIT
	// without ORDER BY): DuckDB with 1 and 2 threads agree under the specs.
	t.Run("deterministic", func(t *testing.T) {
		d2 := openSQLGenDuck(t, dir, tables, 2)
		gen := sqlgen.NewGenerator(seed^0xd00d, features, tables)
		checked := 0
		for range 150 {
			q := gen.Next()
			a, err := duck.Query(q.SQL)
			if err != nil {
				continue
			}
			b, err := d2.Query(q.SQL)
			if err != nil {
				t.Fatalf("DuckDB 2 threads rejects what 1 thread ran: %v\n%s", err, q.SQL)
			}
			if err := sqlgen.Compare(b, a, q.Spec); err != nil {
				t.Errorf("DuckDB 2 threads vs 1 thread: %v\n%s\n2 threads:\n%s1 thread:\n%s", err, q.SQL, b.Format(20), a.Format(20))
			}
			checked++
		}
		if checked < 100 {
			t.Errorf("only %d of 150 queries ran in DuckDB", checked)
		}
	})

	eng := planner.New(openCatalog(t, dir), planner.Options{})
	sess := planner.Session{Database: sqlgen.Database}
	gen := sqlgen.NewGenerator(seed, features, tables)
	var (
		rejected, failed, unsupported, nonEmpty, leaks int
		duckTime, oursTime                             time.Duration
		maxRows                                        int
		failures                                       []string
		rejects                                        []string
		slowest                                        []slowQuery
	)
	n := *sqlgenN
	for qi := 0; qi < n; qi++ {
		q := gen.Next()
		t0 := time.Now()
		want, err := duck.Query(q.SQL)
		duckTime += time.Since(t0)
		if err != nil {
			rejected++
			if len(rejects) < 5 {
				rejects = append(rejects, fmt.Sprintf("%v\n  %s", firstLineOf(err.Error()), q.SQL))
			}
			continue
		}
		if len(want.Rows) > 0 {
			nonEmpty++
		}
		maxRows = max(maxRows, len(want.Rows))
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		t0 = time.Now()
		got, leaked, err := runOursLeak(ctx, eng, q.SQL, sess)
		el := time.Since(t0)
		oursTime += el
		slowest = append(slowest, slowQuery{el, q.SQL})
		slices.SortFunc(slowest, func(a, b slowQuery) int { return cmp.Compare(b.d, a.d) })
		slowest = slowest[:min(len(slowest), 3)]
		cancel()
		if leaked != 0 {
			leaks++
			if err == nil {
				err = fmt.Errorf("ours: %d bytes still allocated after the result was released", leaked)
			} else {
				err = fmt.Errorf("%w (and %d bytes still allocated after the error)", err, leaked)
			}
		}
		if err == nil {
			err = sqlgen.Compare(got, want, q.Spec)
		} else {
			if errors.Is(err, catalog.ErrUnsupported) {
				unsupported++
			}
			err = fmt.Errorf("ours: %w", err)
		}
		if err == nil {
			continue
		}
		failed++
		if len(failures) < sqlgenDetailed {
			failures = append(failures, fmt.Sprintf("query %d (seed %d):\n%s\n%v\nours:\n%sDuckDB:\n%s", qi, seed, q.SQL, err, got.Format(20), want.Format(20)))
		} else if len(failures) < sqlgenDetailed+20 {
			failures = append(failures, fmt.Sprintf("query %d: %s\n  %s", qi, firstLineOf(err.Error()), q.SQL))
		}
	}
	ran := n - rejected
	t.Logf("sqlgen seed %d: %d queries, %d rejected by DuckDB, %d ran (%d non-empty, largest %d rows): %d failed (%d ErrUnsupported, %d leaking); DuckDB %v, ours %v",
		seed, n, rejected, ran, nonEmpty, maxRows, failed, unsupported, leaks, duckTime.Round(time.Millisecond), oursTime.Round(time.Millisecond))
	for _, s := range slowest {
		t.Logf("slow in our engine: %v: %s", s.d.Round(time.Millisecond), s.sql)
	}
	for _, r := range rejects {
		t.Logf("rejected by DuckDB: %s", r)
	}
	if rejected*10 > n {
		t.Errorf("DuckDB rejected %d of %d queries (> 10%%): the generator must produce valid SQL", rejected, n)
	}
	if ran > 0 && nonEmpty*2 < ran {
		t.Errorf("only %d of %d queries returned rows: the generator proves little", nonEmpty, ran)
	}
	if failed > 0 {
		t.Errorf("%d of %d queries failed (seed %d; replay: go test -run SQLGen -sqlgen.seed %d):\n\n%s", failed, ran, seed, seed, strings.Join(failures, "\n\n"))
	}
}

type slowQuery struct {
	d   time.Duration
	sql string
}

func firstLineOf(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

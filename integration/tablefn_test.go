package integration

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
	"github.com/paimon-flightsql/paimon-flightsql/integration/clickbench"
	"github.com/paimon-flightsql/paimon-flightsql/integration/sqlgen"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/write"
	"github.com/paimon-flightsql/paimon-flightsql/planner"
)

// TestUnnestNestedDemo compares UNNEST over the list column of the demo's
// append table nested (tags ARRAY<STRING>, with NULL and empty lists) with
// DuckDB reading the same Parquet files.
func TestUnnestNestedDemo(t *testing.T) {
	ctx := context.Background()
	files, err := clickbench.DataFiles(ctx, demoWarehouse, write.DemoDatabase, "nested")
	if err != nil {
		t.Fatal(err)
	}
	duck, err := sqlgen.OpenDuck(1)
	if err != nil {
		t.Fatal(err)
	}
	defer duck.Close()
	if err := duck.Load("nested", files); err != nil {
		t.Fatal(err)
	}
	eng := planner.New(openCatalog(t, demoWarehouse), planner.Options{})
	sess := planner.Session{Database: write.DemoDatabase}
	for _, q := range []string{
		"SELECT id, unnest(tags) AS tag FROM nested",
		"SELECT n.id, t.tag FROM nested n, unnest(n.tags) AS t(tag)",
		"SELECT n.id, t.tag FROM nested n JOIN unnest(n.tags) AS t(tag) ON t.tag LIKE '%a%' WHERE n.id < 500",
		"SELECT tag, COUNT(*) AS c FROM nested, unnest(tags) AS t(tag) GROUP BY tag",
		"SELECT id, unnest(tags) AS tag, unnest(range(3)) AS k FROM nested WHERE id % 7 = 0",
		"SELECT COUNT(*) AS c FROM nested WHERE tags IS NULL OR len(tags) = 0",
		"SELECT COUNT(*) AS c FROM nested, unnest(tags)",
	} {
		want, werr := duck.Query(q)
		if werr != nil {
			t.Fatalf("DuckDB: %s: %v", q, werr)
		}
		qctx, cancel := context.WithTimeout(ctx, time.Minute)
		got, leaked, err := runOursLeak(qctx, eng, q, sess)
		cancel()
		if err != nil {
			t.Errorf("%s: %v", q, err)
			continue
		}
		if leaked != 0 {
			t.Errorf("%s: %d bytes leaked", q, leaked)
		}
		if len(want.Rows) == 0 {
			t.Errorf("%s: DuckDB returns no rows; the case proves nothing", q)
		}
		if err := sqlgen.Compare(got, want, sqlgen.Spec{Limit: -1}); err != nil {
			t.Errorf("%s: %v\nours:\n%sDuckDB:\n%s", q, err, got.Format(10), want.Format(10))
		}
	}
	// attrs is a MAP: refused (DuckDB refuses UNNEST of a MAP too)
	if _, _, err := runOursLeak(ctx, eng, "SELECT id, unnest(attrs) FROM nested", sess); !errors.Is(err, catalog.ErrUnsupported) {
		t.Errorf("UNNEST of a MAP: %v, want ErrUnsupported", err)
	}
}

// TestUnnestFixture compares UNNEST over the FLOAT array column f2 of the
// fixture table append_complex_build_in_fieldid (written by paimon-cpp)
// with DuckDB reading the same files.
func TestUnnestFixture(t *testing.T) {
	ctx := context.Background()
	dir := needFixtures(t)
	const db, tbl = "append_complex_build_in_fieldid", "append_complex_build_in_fieldid"
	files, err := clickbench.DataFiles(ctx, dir, db, tbl)
	if err != nil {
		t.Fatal(err)
	}
	duck, err := sqlgen.OpenDuck(1)
	if err != nil {
		t.Fatal(err)
	}
	defer duck.Close()
	if err := duck.Load(tbl, files); err != nil {
		t.Fatal(err)
	}
	eng := planner.New(openCatalog(t, dir), planner.Options{})
	sess := planner.Session{Database: db}
	for _, q := range []string{
		"SELECT f5, unnest(f2) AS x FROM " + tbl,
		"SELECT a.f5, u.x FROM " + tbl + " a, unnest(a.f2) AS u(x)",
		"SELECT a.f5, u.x FROM " + tbl + " a LEFT JOIN unnest(a.f2) AS u(x) ON u.x > 0",
	} {
		want, werr := duck.Query(q)
		if werr != nil {
			t.Fatalf("DuckDB: %s: %v", q, werr)
		}
		got, leaked, err := runOursLeak(ctx, eng, q, sess)
		if err != nil {
			t.Errorf("%s: %v", q, err)
			continue
		}
		if leaked != 0 {
			t.Errorf("%s: %d bytes leaked", q, leaked)
		}
		if len(want.Rows) == 0 {
			t.Errorf("%s: DuckDB returns no rows; the case proves nothing", q)
		}
		if err := sqlgen.Compare(got, want, sqlgen.Spec{Limit: -1}); err != nil {
			t.Errorf("%s: %v\nours:\n%sDuckDB:\n%s", q, err, got.Format(10), want.Format(10))
		}
	}
}

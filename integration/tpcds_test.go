package integration

// TestTPCDS runs TPC-DS queries over TPC-DS data with our engine and with
// DuckDB on the same Paimon data files, and reports each query's match and
// time ratio. Neither the data generator nor the query texts ship with this
// repository (TPC's license): it runs only when $TPCDS_DAT names a folder of
// dsdgen output (<table>.dat, generated with -TERMINATE N), $TPCDS_DDL the
// kit's tpcds.sql and $TPCDS_QUERIES a folder of query files (*.sql, one
// query each); $TPCDS_WH is the warehouse built from the .dat files on
// first use (default: a temporary folder), $TPCDS_ONLY a comma-separated
// list of query names. docs/benchmarks.md ("TPC-DS") says how to get them.

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
	"github.com/paimon-flightsql/paimon-flightsql/integration/clickbench"
	"github.com/paimon-flightsql/paimon-flightsql/integration/sqlgen"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/fileio"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/write"
	"github.com/paimon-flightsql/paimon-flightsql/planner"
)

var tpcdsTables = []string{"call_center", "catalog_page", "catalog_returns", "catalog_sales", "customer", "customer_address", "customer_demographics", "date_dim", "household_demographics", "income_band", "inventory", "item", "promotion", "reason", "ship_mode", "store", "store_returns", "store_sales", "time_dim", "warehouse", "web_page", "web_returns", "web_sales", "web_site"}

func buildTPCDS(t *testing.T, wh string) {
	ctx := context.Background()
	dat := os.Getenv("TPCDS_DAT")
	duck, err := sqlgen.OpenDuck(2)
	if err != nil {
		t.Fatal(err)
	}
	defer duck.Close()
	ddl, err := os.ReadFile(os.Getenv("TPCDS_DDL"))
	if err != nil {
		t.Fatal(err)
	}
	for _, stmt := range strings.Split(string(ddl), ";") {
		if strings.TrimSpace(stmt) == "" {
			continue
		}
		if err := duck.Exec(stmt); err != nil {
			t.Fatalf("%v\n%s", err, stmt)
		}
	}
	pqDir := t.TempDir()
	os.MkdirAll(wh, 0o755)
	fio, err := fileio.NewLocal(wh)
	if err != nil {
		t.Fatal(err)
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	for _, name := range tpcdsTables {
		start := time.Now()
		if err := duck.Exec(fmt.Sprintf("COPY %s FROM '%s' (DELIMITER '|', HEADER false, NULL '')", name, filepath.Join(dat, name+".dat"))); err != nil {
			if err := duck.Exec(fmt.Sprintf("COPY %s FROM '%s' (DELIMITER '|', HEADER false, NULL '', ENCODING 'latin-1')", name, filepath.Join(dat, name+".dat"))); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
		}
		pq := filepath.Join(pqDir, name+".parquet")
		if err := duck.Exec(fmt.Sprintf("COPY %s TO '%s' (FORMAT parquet)", name, pq)); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(pq)
		if err != nil {
			t.Fatal(err)
		}
		rdr, err := file.NewParquetReader(f)
		if err != nil {
			t.Fatal(err)
		}
		fr, err := pqarrow.NewFileReader(rdr, pqarrow.ArrowReadProperties{BatchSize: 64 << 10}, mem)
		if err != nil {
			t.Fatal(err)
		}
		rr, err := fr.GetRecordReader(ctx, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		fields, err := catalog.FieldsFromArrow(rr.Schema())
		if err != nil {
			t.Fatal(err)
		}
		w, err := write.CreateTable(ctx, fio, "tpcds", name, write.TableSpec{Fields: fields})
		if err != nil {
			t.Fatal(err)
		}
		wr := w.NewWriter(mem)
		n := 0
		for rr.Next() {
			rec := rr.Record()
			n += int(rec.NumRows())
			if err := wr.Write(ctx, rec); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := wr.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		rr.Release()
		f.Close()
		t.Logf("%s: %d rows in %v", name, n, time.Since(start))
	}
}

func TestTPCDS(t *testing.T) {
	qdir := os.Getenv("TPCDS_QUERIES")
	if os.Getenv("TPCDS_DAT") == "" || os.Getenv("TPCDS_DDL") == "" || qdir == "" {
		t.Skip("TPC-DS data and queries not given ($TPCDS_DAT, $TPCDS_DDL, $TPCDS_QUERIES; see docs/benchmarks.md, \"TPC-DS\"); skipping")
	}
	wh := os.Getenv("TPCDS_WH")
	if wh == "" {
		wh = t.TempDir()
	}
	if _, err := os.Stat(filepath.Join(wh, "tpcds.db", "store_sales")); err != nil {
		buildTPCDS(t, wh)
	}
	ctx := context.Background()
	duck, err := sqlgen.OpenDuck(2)
	if err != nil {
		t.Fatal(err)
	}
	defer duck.Close()
	for _, name := range tpcdsTables {
		files, err := clickbench.DataFiles(ctx, wh, "tpcds", name)
		if err != nil {
			t.Fatal(err)
		}
		if err := duck.View(name, files); err != nil {
			t.Fatal(err)
		}
	}
	eng := planner.New(openCatalog(t, wh), planner.Options{})
	ents, _ := os.ReadDir(qdir)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	only := os.Getenv("TPCDS_ONLY")
	var ok, fail []string
	for _, n := range names {
		q := strings.TrimSuffix(n, ".sql")
		if only != "" && !strings.Contains(","+only+",", ","+q+",") {
			continue
		}
		b, _ := os.ReadFile(filepath.Join(qdir, n))
		sql := strings.TrimSpace(string(b))
		sql = strings.TrimSuffix(sql, ";")
		t0 := time.Now()
		want, werr := duck.Query(sql)
		dt := time.Since(t0)
		qctx, cancel := context.WithTimeout(ctx, 120*time.Second)
		t1 := time.Now()
		got, leaked, gerr := runOursLeak(qctx, eng, sql, planner.Session{Database: "tpcds"})
		ot := time.Since(t1)
		cancel()
		var diff error
		switch {
		case werr != nil && gerr != nil:
			diff = fmt.Errorf("both err: duck %v; ours %v", firstLineOf(werr.Error()), firstLineOf(gerr.Error()))
		case werr != nil:
			diff = fmt.Errorf("duck err %v", firstLineOf(werr.Error()))
		case gerr != nil:
			diff = fmt.Errorf("ours err: %v", gerr)
		default:
			if err := sqlgen.Compare(got, want, sqlgen.Spec{Ordered: false, Limit: -1}); err != nil {
				diff = fmt.Errorf("DIFF %v\nours:\n%sDuckDB:\n%s", err, got.Format(8), want.Format(8))
			}
		}
		if leaked != 0 {
			diff = fmt.Errorf("leaked %d; %v", leaked, diff)
		}
		if diff != nil {
			fail = append(fail, q)
			t.Logf("%s FAIL (duck %v ours %v): %v", q, dt.Round(time.Millisecond), ot.Round(time.Millisecond), diff)
		} else {
			ok = append(ok, q)
			t.Logf("%s ok rows=%d duck %v ours %v ratio %.2f", q, len(want.Rows), dt.Round(time.Millisecond), ot.Round(time.Millisecond), dt.Seconds()/ot.Seconds())
		}
	}
	t.Logf("TPC-DS: %d queries match DuckDB, %d do not: %v", len(ok), len(fail), fail)
	if len(fail) > 0 {
		t.Errorf("%d queries differ from DuckDB or fail (a query DuckDB rejects counts too): %v", len(fail), fail)
	}
}

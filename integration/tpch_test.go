package integration

import (
	"context"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/apache/arrow-adbc/go/adbc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/integration/tpch"
	"github.com/paimon-flightsql/paimon-flightsql/planner"
)

// defaultTPCHScale is the scale factor of TestTPCH (600k lineitem rows;
// the build takes about 5 s on 2 cores). $PAIMON_TPCH_SF overrides it.
const defaultTPCHScale = 0.1

// tpchFlightQueries also run through the Flight SQL server (ADBC driver).
var tpchFlightQueries = []string{"q01", "q03", "q11", "q18"}

func tpchScale(t *testing.T) float64 {
	t.Helper()
	s := os.Getenv("PAIMON_TPCH_SF")
	if s == "" {
		return defaultTPCHScale
	}
	sf, err := strconv.ParseFloat(s, 64)
	if err != nil || !(sf > 0) {
		t.Fatalf("PAIMON_TPCH_SF=%q: want a scale factor > 0", s)
	}
	return sf
}

// tpchReference is DuckDB's answer to one query over the same Parquet
// files, and for queries with LIMIT also the answer without it (ties at
// the cut).
type tpchReference struct {
	want, unlimited tpch.Result
	limited         bool
}

func (r *tpchReference) compare(q tpch.Query, got tpch.Result) error {
	if r.limited {
		return tpch.CompareWithTies(q, got, r.want, r.unlimited)
	}
	return tpch.Compare(q, got, r.want)
}

// TestTPCH builds the TPC-H tables once (SF $PAIMON_TPCH_SF, default 0.1)
// and runs each of the 22 queries through planner.Run (TestTPCH/q01 …) and
// a few through the Flight SQL server with the ADBC driver
// (TestTPCH/flight/…), comparing with DuckDB (2 threads) on the same
// Parquet files: see tpch.Compare for the rules.
func TestTPCH(t *testing.T) {
	sf := tpchScale(t)
	ctx := context.Background()
	dir := t.TempDir()
	buildMem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	start := time.Now()
	m, err := tpch.BuildWith(ctx, dir, sf, tpch.Options{Mem: buildMem})
	if err != nil {
		t.Fatal(err)
	}
	buildMem.AssertSize(t, 0)
	t.Logf("TPC-H SF %g built in %v (%d lineitem, %d orders rows)", sf, time.Since(start).Round(time.Millisecond), m.Rows["lineitem"], m.Rows["orders"])

	duck, err := tpch.OpenDuck(ctx, dir, 2)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { duck.Close() })
	var duckTime time.Duration
	refs := map[string]*tpchReference{}
	// reference runs q in DuckDB (once per query) and checks that the
	// generated data qualifies: rows, and no NULL in a one-row aggregate.
	reference := func(t *testing.T, q tpch.Query) *tpchReference {
		t.Helper()
		if r := refs[q.Name]; r != nil {
			return r
		}
		t0 := time.Now()
		r := &tpchReference{limited: q.Limit > 0}
		var err error
		if r.want, err = tpch.DuckQuery(ctx, duck, q.SQL); err != nil {
			t.Fatalf("DuckDB: %v", err)
		}
		if r.limited {
			if r.unlimited, err = tpch.DuckQuery(ctx, duck, q.WithoutLimit()); err != nil {
				t.Fatalf("DuckDB without LIMIT: %v", err)
			}
		}
		duckTime += time.Since(t0)
		refs[q.Name] = r
		if len(r.want.Rows) == 0 {
			t.Errorf("generator: DuckDB returns no rows for %s at SF %g", q.Name, sf)
		}
		if len(r.want.Rows) == 1 {
			for c, v := range r.want.Rows[0] {
				if v == nil {
					t.Errorf("generator: DuckDB returns NULL in column %s of %s at SF %g", r.want.Columns[c], q.Name, sf)
				}
			}
		}
		return r
	}

	eng := planner.New(openCatalog(t, dir), planner.Options{})
	sess := planner.Session{Database: tpch.Database}
	for _, q := range tpch.Queries() {
		t.Run(q.Name, func(t *testing.T) {
			ref := reference(t, q)
			qctx, cancel := context.WithTimeout(ctx, time.Minute)
			defer cancel()
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			t0 := time.Now()
			rdr, err := planner.Run(qctx, eng, q.SQL, sess, mem)
			if err != nil {
				t.Fatalf("planner.Run: %v", err)
			}
			got, err := tpch.ReadArrow(rdr)
			if err != nil {
				t.Fatalf("reading the result: %v", err)
			}
			t.Logf("ours %v, %d rows", time.Since(t0).Round(time.Millisecond), len(got.Rows))
			if err := ref.compare(q, got); err != nil {
				t.Error(err)
			}
		})
	}

	t.Run("flight", func(t *testing.T) {
		srv := startServer(t, dir)
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		// Registered before the connection's cleanup, so it runs after it.
		t.Cleanup(func() { waitAllocs(t, mem, "ADBC driver allocator") })
		cnxn := openADBC(t, srv, mem, nil)
		if err := cnxn.(adbc.GetSetOptions).SetOption(adbc.OptionKeyCurrentDbSchema, tpch.Database); err != nil {
			t.Fatal(err)
		}
		for _, name := range tpchFlightQueries {
			q, ok := tpch.QueryByName(name)
			if !ok {
				t.Fatalf("no query %s", name)
			}
			t.Run(name, func(t *testing.T) {
				ref := reference(t, q)
				st, err := cnxn.NewStatement()
				if err != nil {
					t.Fatal(err)
				}
				defer st.Close()
				if err := st.SetSqlQuery(q.SQL); err != nil {
					t.Fatal(err)
				}
				qctx, cancel := context.WithTimeout(ctx, time.Minute)
				defer cancel()
				rdr, _, err := st.ExecuteQuery(qctx)
				if err != nil {
					t.Fatalf("Flight SQL: %v", err)
				}
				got, err := tpch.ReadArrow(rdr)
				if err != nil {
					t.Fatalf("reading the Flight SQL result: %v", err)
				}
				if err := ref.compare(q, got); err != nil {
					t.Error(err)
				}
			})
		}
	})
	t.Logf("DuckDB (2 threads): %d queries in %v", len(refs), duckTime.Round(time.Millisecond))
}

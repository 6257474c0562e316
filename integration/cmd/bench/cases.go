package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	flightsqlclient "github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
	"github.com/paimon-flightsql/paimon-flightsql/flightsql"
	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/fileio"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/scan"
	"github.com/paimon-flightsql/paimon-flightsql/planner"
	"github.com/paimon-flightsql/paimon-flightsql/sysviews"
)

type bench struct {
	cfg  *config
	wh   *warehouse
	cat  *catalog.FS
	eng  *planner.Engine
	duck *duck
	rep  *report
	// s3pid is the versitygw process of the s3 suite (its CPU is reported).
	s3pid int
}

func newBench(ctx context.Context, cfg *config) (*bench, error) {
	wh, err := openWarehouse(cfg.warehouse, cfg.scale, cfg.out)
	if err != nil {
		return nil, err
	}
	cat := catalog.NewFS(wh.io, ".", catalog.WithSystemTables(sysviews.New()))
	b := &bench{cfg: cfg, wh: wh, cat: cat, eng: planner.New(cat, planner.Options{}),
		rep: &report{Machine: machineInfo(), Scale: cfg.scale, Runs: cfg.runs, Started: time.Now(), Warehouse: wh.dir, Extras: map[string]any{}}}
	fmt.Fprintf(cfg.out, "machine: %s, nproc %s, %s, %s, load %s\n", b.rep.Machine["cpu"], b.rep.Machine["nproc"], b.rep.Machine["mem"], b.rep.Machine["go"], b.rep.Machine["loadavg_at_start"])
	return b, nil
}

func (b *bench) close() {
	if b.duck != nil {
		b.duck.close()
	}
}

func (b *bench) duckDB() (*duck, error) {
	if b.duck == nil {
		d, err := openDuck(b.cfg.threads)
		if err != nil {
			return nil, err
		}
		b.duck = d
		if _, err := d.arrow("SELECT version()", func(rec arrow.RecordBatch) {
			if s, ok := rec.Column(0).(*array.String); ok && s.Len() > 0 {
				b.rep.Machine["duckdb"] = strings.Clone(s.Value(0))
			}
		}); err != nil {
			return nil, err
		}
		fmt.Fprintf(b.cfg.out, "duckdb %s, threads %d\n", b.rep.Machine["duckdb"], b.cfg.threads)
	}
	return b.duck, nil
}

func (b *bench) suite(ctx context.Context, s string) error {
	switch s {
	case "scan":
		return b.suiteScan(ctx)
	case "filter":
		return b.suiteFilter(ctx)
	case "agg":
		return b.suiteAgg(ctx)
	case "dv":
		return b.suiteDV(ctx)
	case "plan":
		return b.suitePlan(ctx)
	case "flight":
		return b.suiteFlight(ctx)
	case "rss":
		return b.suiteRSS(ctx)
	case "tpch":
		return b.suiteTPCH(ctx)
	case "clickbench":
		return b.suiteClickBench(ctx)
	case "s3":
		return b.suiteS3(ctx)
	}
	return fmt.Errorf("unknown suite %q", s)
}

// ---- helpers ------------------------------------------------------------

func (b *bench) openTable(ctx context.Context, name string) (*paimon.Table, error) {
	return paimon.OpenTable(ctx, b.wh.io, benchDB+".db/"+name, "")
}

// dataFiles lists the absolute paths of the live data files of a table.
func (b *bench) dataFiles(ctx context.Context, name string) ([]string, error) {
	t, err := b.openTable(ctx, name)
	if err != nil {
		return nil, err
	}
	s, err := scan.New(ctx, t, scan.Options{})
	if err != nil {
		return nil, err
	}
	p, err := s.Plan(ctx)
	if err != nil {
		return nil, err
	}
	var out []string
	for i := range p.Splits {
		sp := &p.Splits[i]
		for j := range sp.Files {
			rel, err := s.DataFilePath(sp, &sp.Files[j])
			if err != nil {
				return nil, err
			}
			out = append(out, filepath.Join(b.wh.dir, rel))
		}
	}
	return out, nil
}

// scanTable reads a table with paimon/scan (plan included) and drains it.
func (b *bench) scanTable(ctx context.Context, name string, cols []string) (int64, error) {
	return b.scanTableMem(ctx, name, cols, memory.DefaultAllocator)
}

func (b *bench) scanTableMem(ctx context.Context, name string, cols []string, mem memory.Allocator) (int64, error) {
	t, err := b.openTable(ctx, name)
	if err != nil {
		return 0, err
	}
	s, err := scan.New(ctx, t, scan.Options{Columns: cols, Concurrency: b.cfg.threads})
	if err != nil {
		return 0, err
	}
	p, err := s.Plan(ctx)
	if err != nil {
		return 0, err
	}
	rd, err := s.Read(ctx, mem, p.Splits)
	if err != nil {
		return 0, err
	}
	return drain(rd)
}

func drain(rd array.RecordReader) (int64, error) {
	defer rd.Release()
	var n int64
	for rd.Next() {
		n += rd.RecordBatch().NumRows()
	}
	if e, ok := rd.(interface{ Err() error }); ok {
		return n, e.Err()
	}
	return n, nil
}

// sql runs a query through our planner (all partitions) and drains it.
func (b *bench) sql(ctx context.Context, q string) (int64, error) {
	rd, err := planner.Run(ctx, b.eng, q, planner.Session{Database: benchDB}, memory.DefaultAllocator)
	if err != nil {
		return 0, err
	}
	return drain(rd)
}

// pqarrowRaw decodes files with arrow-go pqarrow directly (threads files at
// once, PreAllocBinaryData, 64k batches): the Parquet library's own limit.
func pqarrowRaw(ctx context.Context, files []string, cols []string, threads int) (int64, error) {
	var rows atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, len(files))
	sem := make(chan struct{}, threads)
	for _, f := range files {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			pf, err := file.OpenParquetFile(f, false)
			if err != nil {
				errs <- err
				return
			}
			defer pf.Close()
			fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: 64 << 10, PreAllocBinaryData: true}, memory.DefaultAllocator)
			if err != nil {
				errs <- err
				return
			}
			var idx []int
			if cols != nil {
				sc := pf.MetaData().Schema
				for _, c := range cols {
					i := sc.ColumnIndexByName(c)
					if i < 0 {
						errs <- fmt.Errorf("%s: no column %s", f, c)
						return
					}
					idx = append(idx, i)
				}
			}
			rr, err := fr.GetRecordReader(ctx, idx, nil)
			if err != nil {
				errs <- err
				return
			}
			defer rr.Release()
			for rr.Next() {
				rows.Add(rr.RecordBatch().NumRows())
			}
			if err := rr.Err(); err != nil && !errors.Is(err, context.Canceled) {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		return 0, err
	}
	return rows.Load(), nil
}

var allColumns = []string{"l_orderkey", "l_partkey", "l_suppkey", "l_linenumber", "l_quantity", "l_extendedprice", "l_discount", "l_tax",
	"l_returnflag", "l_linestatus", "l_shipdate", "l_commitdate", "l_receiptdate", "l_shipinstruct", "l_shipmode", "l_comment"}

// floorSQL is DuckDB's decode floor for cols: an aggregate that must
// decode every value of every column (MIN has no shortcut from Parquet
// statistics in DuckDB).
func floorSQL(cols []string, from string) string {
	agg := make([]string, len(cols))
	for i, c := range cols {
		agg[i] = "min(" + c + ")"
	}
	return "SELECT count(*), " + strings.Join(agg, ", ") + " FROM " + from
}

// ---- suites -------------------------------------------------------------

func (b *bench) suiteScan(ctx context.Context) error {
	if _, err := b.wh.lineitem(ctx); err != nil {
		return err
	}
	files, err := b.dataFiles(ctx, "lineitem")
	if err != nil {
		return err
	}
	b.rep.Extras["lineitem_files"] = len(files)
	fmt.Fprintf(b.cfg.out, "lineitem: %d rows in %d files\n", b.wh.sizes.lineitem, len(files))
	d, err := b.duckDB()
	if err != nil {
		return err
	}
	from := "read_parquet(" + parquetList(files) + ")"
	narrow := []string{"l_orderkey", "l_extendedprice"}

	full, err := b.measure("scan", "full(16 cols)", "ours", func() (int64, error) { return b.scanTable(ctx, "lineitem", nil) })
	if err != nil {
		return err
	}
	fullSQL, err := b.measure("scan", "full(16 cols)", "ours-sql", func() (int64, error) { return b.sql(ctx, "SELECT * FROM lineitem") })
	if err != nil {
		return err
	}
	pqFull, err := b.measure("scan", "full(16 cols)", "pqarrow-raw", func() (int64, error) { return pqarrowRaw(ctx, files, nil, b.cfg.threads) })
	if err != nil {
		return err
	}
	duckFloor, err := b.measure("scan", "full(16 cols)", "duckdb-engine", func() (int64, error) {
		_, err := d.arrow(floorSQL(allColumns, from), nil)
		return b.wh.sizes.lineitem, err
	})
	if err != nil {
		return err
	}
	duckFull, err := b.measure("scan", "full(16 cols)", "duckdb-arrow", func() (int64, error) { return d.arrow("SELECT * FROM "+from, nil) })
	if err != nil {
		return err
	}
	nar, err := b.measure("scan", "narrow(2 cols)", "ours", func() (int64, error) { return b.scanTable(ctx, "lineitem", narrow) })
	if err != nil {
		return err
	}
	pqNar, err := b.measure("scan", "narrow(2 cols)", "pqarrow-raw", func() (int64, error) { return pqarrowRaw(ctx, files, narrow, b.cfg.threads) })
	if err != nil {
		return err
	}
	duckNarFloor, err := b.measure("scan", "narrow(2 cols)", "duckdb-engine", func() (int64, error) {
		_, err := d.arrow(floorSQL(narrow, from), nil)
		return b.wh.sizes.lineitem, err
	})
	if err != nil {
		return err
	}
	duckNar, err := b.measure("scan", "narrow(2 cols)", "duckdb-arrow", func() (int64, error) {
		return d.arrow("SELECT l_orderkey, l_extendedprice FROM "+from, nil)
	})
	if err != nil {
		return err
	}
	b.compare("full scan vs DuckDB engine floor", full, duckFloor, 1.0)
	b.compare("full scan vs DuckDB Arrow export", full, duckFull, 1.0)
	b.compare("full scan vs raw pqarrow", full, pqFull, 0.9)
	b.compare("full scan via SQL planner vs DuckDB floor", fullSQL, duckFloor, 1.0)
	b.compare("narrow scan vs DuckDB Arrow export", nar, duckNar, 1.0)
	b.compare("narrow scan vs DuckDB engine floor", nar, duckNarFloor, 0)
	b.compare("narrow scan vs raw pqarrow", nar, pqNar, 0.9)
	return nil
}

func (b *bench) suiteFilter(ctx context.Context) error {
	if _, err := b.wh.lineitem(ctx); err != nil {
		return err
	}
	files, err := b.dataFiles(ctx, "lineitem")
	if err != nil {
		return err
	}
	d, err := b.duckDB()
	if err != nil {
		return err
	}
	from := "read_parquet(" + parquetList(files) + ")"
	n := b.wh.sizes.lineitem
	// 1% of the rows: l_orderkey = i/4+1 is sorted, take a range in the middle.
	lo := n/4*2/5 + 1
	hi := lo + n/400 - 1
	sorted := fmt.Sprintf("l_orderkey BETWEEN %d AND %d", lo, hi)
	random := "l_partkey BETWEEN 1 AND 20000" // l_partkey is uniform in 1..2,000,000

	ours, err := b.measure("filter", "sorted key 1%", "ours-sql", func() (int64, error) { return b.sql(ctx, "SELECT * FROM lineitem WHERE "+sorted) })
	if err != nil {
		return err
	}
	base, err := b.measure("filter", "sorted key 1%", "duckdb-arrow", func() (int64, error) { return d.arrow("SELECT * FROM "+from+" WHERE "+sorted, nil) })
	if err != nil {
		return err
	}
	b.compare("1% filter, sorted key vs DuckDB", ours, base, 1.0)

	ours, err = b.measure("filter", "random key 1%", "ours-sql", func() (int64, error) { return b.sql(ctx, "SELECT * FROM lineitem WHERE "+random) })
	if err != nil {
		return err
	}
	base, err = b.measure("filter", "random key 1%", "duckdb-arrow", func() (int64, error) { return d.arrow("SELECT * FROM "+from+" WHERE "+random, nil) })
	if err != nil {
		return err
	}
	b.compare("1% filter, non-clustered key vs DuckDB", ours, base, 0.5)

	// Partition column: 4 of 365 days (1.1%) of the plan table.
	if _, err := b.wh.planTable(ctx); err != nil {
		return err
	}
	part := fmt.Sprintf("dt BETWEEN '%s' AND '%s'", planDay(100), planDay(103))
	glob := filepath.Join(b.wh.dir, benchDB+".db", "plan", "dt=*", "bucket-*", "*.parquet")
	ours, err = b.measure("filter", "partition 1%", "ours-sql", func() (int64, error) { return b.sql(ctx, "SELECT * FROM plan WHERE "+part) })
	if err != nil {
		return err
	}
	base, err = b.measure("filter", "partition 1%", "duckdb-arrow", func() (int64, error) {
		return d.arrow("SELECT dt, id, v FROM read_parquet('"+glob+"', hive_partitioning = true) WHERE "+part, nil)
	})
	if err != nil {
		return err
	}
	b.compare("1% filter, partition column vs DuckDB", ours, base, 1.0)
	return nil
}

const aggSQL = `SELECT l_returnflag, count(*), sum(l_quantity), sum(l_extendedprice), min(l_discount), max(l_shipdate)
FROM %s GROUP BY l_returnflag`

func (b *bench) suiteAgg(ctx context.Context) error {
	if _, err := b.wh.lineitem(ctx); err != nil {
		return err
	}
	files, err := b.dataFiles(ctx, "lineitem")
	if err != nil {
		return err
	}
	d, err := b.duckDB()
	if err != nil {
		return err
	}
	ours, err := b.measure("agg", "group by (4 aggs)", "ours-sql", func() (int64, error) { return b.sql(ctx, fmt.Sprintf(aggSQL, "lineitem")) })
	if err != nil {
		return err
	}
	base, err := b.measure("agg", "group by (4 aggs)", "duckdb-engine", func() (int64, error) {
		return d.arrow(fmt.Sprintf(aggSQL, "read_parquet("+parquetList(files)+")"), nil)
	})
	if err != nil {
		return err
	}
	b.compare("aggregates vs DuckDB engine", ours, base, 0.5)
	return nil
}

func (b *bench) suiteDV(ctx context.Context) error {
	for _, t := range []struct {
		name string
		dv   bool
	}{{"pk_dv", true}, {"pk_mor", false}} {
		if _, err := b.wh.pkTable(ctx, t.name, t.dv); err != nil {
			return err
		}
	}
	if _, err := b.wh.pkAppend(ctx); err != nil {
		return err
	}
	app, err := b.measure("dv", "append (same rows)", "ours", func() (int64, error) { return b.scanTable(ctx, "pk_append", nil) })
	if err != nil {
		return err
	}
	dv, err := b.measure("dv", "deletion vectors", "ours", func() (int64, error) { return b.scanTable(ctx, "pk_dv", nil) })
	if err != nil {
		return err
	}
	mor, err := b.measure("dv", "merge-on-read", "ours", func() (int64, error) { return b.scanTable(ctx, "pk_mor", nil) })
	if err != nil {
		return err
	}
	if dv.Rows != app.Rows || mor.Rows != app.Rows {
		return fmt.Errorf("row counts differ: append %d, dv %d, mor %d", app.Rows, dv.Rows, mor.Rows)
	}
	b.compare("DV read vs append scan", dv, app, 0.9)
	b.compare("merge-on-read vs append scan", mor, app, 0.5)
	return nil
}

// suitePlan measures Prepare at each checkpoint snapshot: nocache (the
// process-wide manifest cache disabled), cold (the cache cleared before each
// run: every surviving manifest is read, decoded and cached) and warm
// (manifests served from the cache, as on a server that planned the table
// before).
func (b *bench) suitePlan(ctx context.Context) error {
	ti, err := b.wh.planTable(ctx)
	if err != nil {
		return err
	}
	queries := []struct{ name, where string }{
		{"all files", ""},
		{"1 day", fmt.Sprintf(" WHERE dt = '%s'", planDay(200))},
		{"1 day + bucket key", fmt.Sprintf(" WHERE dt = '%s' AND id = %d", planDay(200), 200*planRowsPerDay+5)},
	}
	modes := []struct {
		engine        string
		cold, nocache bool
	}{{"ours-nocache", false, true}, {"ours-cold", true, false}, {"ours-warm", false, false}}
	cache := paimon.DefaultManifestCache()
	type point struct {
		files int
		stats map[string]int64
		r     *result
	}
	pts := map[string][][]point{}
	for _, cp := range ti.Checkpoints {
		rows := map[string][]point{}
		for _, q := range queries {
			sess := planner.Session{Database: benchDB, Options: map[string]string{"scan.snapshot-id": strconv.FormatInt(cp.Snapshot, 10)}}
			for _, m := range modes {
				var st *planner.Statement
				r, err := b.measure("plan", fmt.Sprintf("%dr %s", cp.Rounds, q.name), m.engine, func() (int64, error) {
					if m.nocache {
						budget := cache.MaxBytes()
						cache.SetMaxBytes(0)
						defer cache.SetMaxBytes(budget)
					}
					if m.cold {
						cache.Clear()
					}
					var err error
					st, err = b.eng.Prepare(ctx, "SELECT * FROM plan"+q.where, sess)
					if err != nil {
						return 0, err
					}
					return int64(st.NumPartitions()), nil
				})
				if err != nil {
					return err
				}
				ps := st.PruningStats()
				r.Extra = map[string]float64{}
				for k, v := range ps {
					r.Extra[k] = float64(v)
				}
				files := int(ps["files_total"])
				fmt.Fprintf(b.cfg.out, "         pruning: %v\n", ps)
				rows[m.engine] = append(rows[m.engine], point{files: files, stats: ps, r: r})
			}
		}
		for k, row := range rows {
			pts[k] = append(pts[k], row)
		}
	}
	cs := cache.Stats()
	fmt.Fprintf(b.cfg.out, "  manifest cache: %d manifests, %.1f MiB of %.0f MiB, %d hits, %d misses, %d evictions\n",
		cs.Manifests, float64(cs.Bytes)/(1<<20), float64(cs.MaxBytes)/(1<<20), cs.Hits, cs.Misses, cs.Evictions)
	growth := map[string]any{}
	for _, m := range modes {
		ep := pts[m.engine]
		if len(ep) < 2 {
			continue
		}
		first, last := ep[0], ep[len(ep)-1]
		for i, q := range queries {
			g := last[i].r.Median / first[i].r.Median
			growth[q.name+" ("+m.engine+")"] = map[string]float64{"time_growth": g, "files_first": float64(first[0].files), "files_last": float64(last[0].files)}
			fmt.Fprintf(b.cfg.out, "  planning %-20s %-12s %d → %d files: time ×%.1f\n", q.name, m.engine, first[0].files, last[0].files, g)
		}
	}
	if len(growth) > 0 {
		b.rep.Extras["plan_growth"] = growth
	}
	return nil
}

// engineAdapter adapts *planner.Engine to flightsql.Engine (as in
// cmd/paimon-flightsql).
type engineAdapter struct{ e *planner.Engine }

func (a engineAdapter) Prepare(ctx context.Context, sql string, sess flightsql.Session) (flightsql.Statement, error) {
	st, err := a.e.Prepare(ctx, sql, planner.Session{Database: sess.Database, Options: sess.Options})
	if err != nil {
		return nil, err
	}
	return st, nil
}

// startFlight serves the catalog over loopback with an engine whose
// statements have at most parts partitions, spread over at most maxEps
// endpoints (0 = one endpoint per partition).
func (b *bench) startFlight(parts, maxEps int) (addr string, stop func(), err error) {
	srv, err := flightsql.NewServer(flightsql.Config{NoAuth: true, Logger: slog.New(slog.DiscardHandler), MaxEndpoints: maxEps},
		engineAdapter{planner.New(b.cat, planner.Options{Concurrency: parts})}, b.cat)
	if err != nil {
		return "", nil, err
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(lis) }()
	return lis.Addr().String(), func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
		<-done
	}, nil
}

// flightQuery runs sql through a Flight SQL client and fetches every
// endpoint, up to par at once.
func flightQuery(ctx context.Context, cl *flightsqlclient.Client, sql string, par int) (int64, int, error) {
	info, err := cl.Execute(ctx, sql)
	if err != nil {
		return 0, 0, err
	}
	var rows atomic.Int64
	var wg sync.WaitGroup
	sem := make(chan struct{}, par)
	errs := make(chan error, len(info.Endpoint))
	for _, ep := range info.Endpoint {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			rd, err := cl.DoGet(ctx, ep.Ticket)
			if err != nil {
				errs <- err
				return
			}
			defer rd.Release()
			for rd.Next() {
				rows.Add(rd.RecordBatch().NumRows())
			}
			if err := rd.Err(); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		return 0, 0, err
	}
	return rows.Load(), len(info.Endpoint), nil
}

func (b *bench) suiteFlight(ctx context.Context) error {
	if _, err := b.wh.lineitem(ctx); err != nil {
		return err
	}
	const q = "SELECT * FROM " + benchDB + ".lineitem"
	inproc, err := b.measure("flight", "full(16 cols)", "ours-sql", func() (int64, error) { return b.sql(ctx, q) })
	if err != nil {
		return err
	}
	// gRPC's default 4 MiB receive limit: the server slices big batches.
	dial := []grpc.DialOption{grpc.WithTransportCredentials(insecure.NewCredentials())}
	var one, many, grouped *result
	for _, c := range []struct {
		engine              string
		parts, maxEps, fets int
	}{
		{"flight-1", 1, 0, 1},                            // one partition, one endpoint
		{"flight-par", 16, 0, b.cfg.threads},             // one endpoint per split
		{"flight-grp", 16, b.cfg.threads, b.cfg.threads}, // splits spread over `threads` endpoints
	} {
		addr, stop, err := b.startFlight(c.parts, c.maxEps)
		if err != nil {
			return err
		}
		cl, err := flightsqlclient.NewClient(addr, nil, nil, dial...)
		if err != nil {
			stop()
			return err
		}
		var eps int
		r, err := b.measure("flight", "full(16 cols)", c.engine, func() (int64, error) {
			n, e, err := flightQuery(ctx, cl, q, c.fets)
			eps = e
			return n, err
		})
		cl.Close()
		stop()
		if err != nil {
			return err
		}
		r.Note = fmt.Sprintf("%d endpoint(s), %d fetched at once", eps, min(eps, c.fets))
		r.Extra = map[string]float64{"endpoints": float64(eps)}
		fmt.Fprintf(b.cfg.out, "         %s\n", r.Note)
		switch c.engine {
		case "flight-1":
			one = r
		case "flight-par":
			many = r
		default:
			grouped = r
		}
	}
	b.compare("Flight 1 stream vs in-process", one, inproc, 0.6)
	b.compare("Flight parallel endpoints vs 1 stream", many, one, 1.0)
	b.compare("Flight grouped endpoints vs 1 stream", grouped, one, 0)
	return nil
}

// suiteRSS streams the whole lineitem table in a child process (default
// GOGC) and reads its peak RSS.
func (b *bench) suiteRSS(ctx context.Context) error {
	if _, err := b.wh.lineitem(ctx); err != nil {
		return err
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	var peaks []float64
	r := &result{Suite: "rss", Case: "stream full table", Engine: "ours", Extra: map[string]float64{}}
	for i := 0; i < 3; i++ {
		cmd := exec.CommandContext(ctx, exe, "--child", "stream", "--warehouse", b.cfg.warehouse, "--threads", strconv.Itoa(b.cfg.threads))
		env := []string{}
		for _, e := range os.Environ() {
			if !strings.HasPrefix(e, "GOGC=") && !strings.HasPrefix(e, "GOMEMLIMIT=") {
				env = append(env, e)
			}
		}
		cmd.Env = env
		cmd.Stderr = os.Stderr
		outb, err := cmd.Output()
		if err != nil {
			return fmt.Errorf("child: %w", err)
		}
		var hwm, rows int64
		var secs float64
		if _, err := fmt.Sscanf(strings.TrimSpace(string(outb)), "rows=%d seconds=%g vmhwm_kb=%d", &rows, &secs, &hwm); err != nil {
			return fmt.Errorf("child output %q: %w", outb, err)
		}
		peaks = append(peaks, float64(hwm)/1024)
		r.Runs = append(r.Runs, secs)
		r.Rows = rows
	}
	slicesSort(peaks)
	slicesSort(r.Runs)
	r.Min, r.Max, r.Median = r.Runs[0], r.Runs[len(r.Runs)-1], r.Runs[len(r.Runs)/2]
	r.Extra["peak_rss_mib_median"] = peaks[len(peaks)/2]
	r.Extra["peak_rss_mib_max"] = peaks[len(peaks)-1]
	b.rep.Results = append(b.rep.Results, r)
	met := peaks[len(peaks)-1] <= 400
	fmt.Fprintf(b.cfg.out, "rss      stream full table, child process, default GOGC: peak RSS %.0f MiB median, %.0f MiB max (target ≤ 400: %s); %.2fs median\n",
		peaks[len(peaks)/2], peaks[len(peaks)-1], metStr(met), r.Median)
	b.rep.Ratios = append(b.rep.Ratios, ratio{Name: "peak RSS streaming the full table", Ours: "rss", Value: peaks[len(peaks)-1], Target: 400, Met: met})
	return nil
}

func slicesSort(s []float64) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// runChild is the child side of measurements that need a fresh process.
func runChild(ctx context.Context, what, wh string, threads int, out io.Writer) error {
	if what != "stream" {
		return fmt.Errorf("unknown child measurement %q", what)
	}
	abs, err := filepath.Abs(wh)
	if err != nil {
		return err
	}
	fio, err := fileio.NewLocal(abs)
	if err != nil {
		return err
	}
	b := &bench{cfg: &config{threads: threads}, wh: &warehouse{dir: abs, io: fio}}
	t0 := time.Now()
	n, err := b.scanTable(ctx, "lineitem", nil)
	if err != nil {
		return err
	}
	secs := time.Since(t0).Seconds()
	hwm, err := vmHWM()
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "rows=%d seconds=%g vmhwm_kb=%d\n", n, secs, hwm)
	return nil
}

// vmHWM reads the peak resident set size of this process in kB.
func vmHWM() (int64, error) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			return strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
		}
	}
	return 0, errors.New("no VmHWM in /proc/self/status")
}

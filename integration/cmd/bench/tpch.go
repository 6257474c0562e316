package main

// The tpch suite: the 22 TPC-H queries (integration/tpch) at --tpch-sf,
// each run once to warm up and then tpchRuns times in both engines — ours
// in-process with planner.Run, DuckDB (--threads threads) over the same
// Parquet files through views — with the answers of the warm-up runs
// compared (tpch.Compare). It ends with a Markdown table for
// docs/benchmarks.md: median seconds, DuckDB ÷ ours (> 1 = we are faster),
// the geometric mean over the queries both engines answered identically,
// and a mark on queries below 0.2×.

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/integration/tpch"
	"github.com/paimon-flightsql/paimon-flightsql/planner"
)

// tpchRuns is the number of timed runs per query and engine.
const tpchRuns = 3

// tpchSlow marks queries where DuckDB ÷ ours is below this ratio.
const tpchSlow = 0.2

// tpchTimeout bounds each of our runs (a query the engine cannot plan well
// is reported as failed instead of stalling the suite).
const tpchTimeout = 10 * time.Minute

// tpchRow is one query's outcome.
type tpchRow struct {
	q          tpch.Query
	duck, ours *result
	rows       int
	problem    string // "" = both ran and agree
}

// ensureTPCH builds the TPC-H tables in the warehouse at sf, or checks
// that the ones there were built at sf.
func (b *bench) ensureTPCH(ctx context.Context, sf float64) error {
	m, err := tpch.Built(b.wh.dir)
	if err != nil {
		return err
	}
	if m != nil {
		if m.SF != sf {
			return fmt.Errorf("warehouse %s holds TPC-H SF %g, not %g: use another --warehouse", b.wh.dir, m.SF, sf)
		}
		fmt.Fprintf(b.cfg.out, "TPC-H SF %g: reusing the tables in %s (built in %.1fs)\n", sf, b.wh.dir, m.BuildSec)
		return nil
	}
	z := tpch.SizesFor(sf)
	total := 30 + z.Suppliers + 5*z.Parts + z.Customers + 5*z.Orders
	p := newProgress(b.cfg.out, fmt.Sprintf("build tpch SF %g", sf))
	done := map[string]int64{}
	var sum int64
	_, err = tpch.BuildWith(ctx, b.wh.dir, sf, tpch.Options{Progress: func(table string, rows int64) {
		sum += rows - done[table]
		done[table] = rows
		p.update(min(sum, total), total)
	}})
	if err != nil {
		fmt.Fprintln(b.cfg.out)
		return err
	}
	p.done()
	return nil
}

func (b *bench) suiteTPCH(ctx context.Context) error {
	sf := b.cfg.tpchSF
	queries := tpch.Queries()
	if sel := strings.TrimSpace(b.cfg.tpchQueries); sel != "" && sel != "all" {
		queries = queries[:0]
		for _, name := range strings.Split(sel, ",") {
			q, ok := tpch.QueryByName(name)
			if !ok {
				return fmt.Errorf("--tpch-queries: no TPC-H query %q", name)
			}
			queries = append(queries, q)
		}
	}
	if err := b.ensureTPCH(ctx, sf); err != nil {
		return err
	}
	d, err := b.duckDB()
	if err != nil {
		return err
	}
	views, err := tpch.DuckViews(b.wh.dir)
	if err != nil {
		return err
	}
	for _, v := range views {
		if _, err := d.arrow(v, nil); err != nil {
			return err
		}
	}
	sess := planner.Session{Database: tpch.Database}
	var rows []*tpchRow
	for _, q := range queries {
		row := &tpchRow{q: q}
		rows = append(rows, row)
		var want, got tpch.Result
		var werr error
		row.duck, err = b.tpchMeasure(q.Name, "duckdb", func(keep bool) (int64, error) {
			if !keep {
				return d.arrow(q.SQL, nil)
			}
			return d.arrow(q.SQL, func(rec arrow.RecordBatch) {
				if werr == nil {
					werr = want.AppendRecord(rec)
				}
			})
		})
		if err == nil {
			err = werr
		}
		if err != nil {
			row.problem = "DuckDB failed: " + err.Error()
			continue
		}
		row.rows = len(want.Rows)
		row.ours, err = b.tpchMeasure(q.Name, "ours", func(keep bool) (int64, error) {
			ctx, cancel := context.WithTimeout(ctx, tpchTimeout)
			defer cancel()
			rd, err := planner.Run(ctx, b.eng, q.SQL, sess, memory.DefaultAllocator)
			if err != nil {
				return 0, err
			}
			if !keep {
				return drain(rd)
			}
			got, err = tpch.ReadArrow(rd)
			return int64(len(got.Rows)), err
		})
		if err != nil {
			row.problem = "FAILED: " + err.Error()
			continue
		}
		if err := tpch.Compare(q, got, want); err != nil {
			row.problem = "WRONG RESULT: " + err.Error()
			fmt.Fprintf(b.cfg.out, "  %v\n", err)
			continue
		}
		b.compare("TPC-H "+q.Name+" DuckDB ÷ ours", row.ours, row.duck, tpchSlow)
	}
	b.printTPCH(sf, rows)
	return nil
}

// tpchMeasure runs fn once to warm up (keep = true: the caller keeps the
// result), then tpchRuns times, and records the result; an error of any run
// is returned (and nothing recorded: the suite reports the failure).
func (b *bench) tpchMeasure(name, engine string, fn func(keep bool) (int64, error)) (*result, error) {
	fmt.Fprintf(b.cfg.out, "%-8s %-26s %-14s ", "tpch", name, engine)
	r := &result{Suite: "tpch", Case: name, Engine: engine}
	fail := func(err error) (*result, error) {
		fmt.Fprintf(b.cfg.out, "FAILED: %s\n", firstLine(err.Error()))
		return nil, err
	}
	if _, err := fn(true); err != nil {
		return fail(err)
	}
	stop, err := b.startProfile("tpch", name, engine)
	if err != nil {
		return fail(err)
	}
	defer stop()
	var cpus []float64
	for range tpchRuns {
		runtime.GC()
		c0 := cpuSeconds()
		t0 := time.Now()
		n, err := fn(false)
		if err != nil {
			return fail(err)
		}
		r.Runs = append(r.Runs, time.Since(t0).Seconds())
		cpus = append(cpus, cpuSeconds()-c0)
		r.Rows = n
	}
	r.Median, r.CPU = median(r.Runs), median(cpus)
	r.Min, r.Max = slices.Min(r.Runs), slices.Max(r.Runs)
	fmt.Fprintf(b.cfg.out, "median %9.4fs  (%.4f–%.4f)  cpu %7.3fs  rows %d\n", r.Median, r.Min, r.Max, r.CPU, r.Rows)
	b.rep.Results = append(b.rep.Results, r)
	return r, nil
}

// mdCell makes text safe for one Markdown table cell.
func mdCell(s string) string {
	s = firstLine(s)
	return strings.ReplaceAll(s, "|", `\|`)
}

func (b *bench) printTPCH(sf float64, rows []*tpchRow) {
	w := b.cfg.out
	fmt.Fprintf(w, "\n### TPC-H SF %g\n\n", sf)
	fmt.Fprintf(w, "%s, GOMAXPROCS %d, DuckDB %s with %d threads over the same Parquet files; median of %d runs after a warm-up.\n"+
		"Ratio = DuckDB ÷ ours (> 1: we are faster); ⚠ marks ratios below %.1f×.\n\n",
		b.rep.Machine["cpu"], runtime.GOMAXPROCS(0), b.rep.Machine["duckdb"], b.cfg.threads, tpchRuns, tpchSlow)
	fmt.Fprintln(w, "| query | rows | DuckDB s | ours s | DuckDB ÷ ours | note |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---|")
	logSum, n, slow := 0.0, 0, 0
	for _, r := range rows {
		duckS, oursS, ratio, note := "—", "—", "—", ""
		if r.duck != nil {
			duckS = fmt.Sprintf("%.3f", r.duck.Median)
		}
		if r.ours != nil {
			oursS = fmt.Sprintf("%.3f", r.ours.Median)
		}
		switch {
		case r.problem != "":
			note = mdCell(r.problem)
		case r.ours.Median > 0:
			v := r.duck.Median / r.ours.Median
			ratio = fmt.Sprintf("%.3g×", v)
			logSum += math.Log(v)
			n++
			if v < tpchSlow {
				note = fmt.Sprintf("⚠ < %.1f×", tpchSlow)
				slow++
			}
		}
		fmt.Fprintf(w, "| Q%s | %d | %s | %s | %s | %s |\n", strings.TrimLeft(strings.TrimPrefix(r.q.Name, "q"), "0"), r.rows, duckS, oursS, ratio, note)
	}
	geo := "—"
	if n > 0 {
		geo = fmt.Sprintf("%.3g×", math.Exp(logSum/float64(n)))
	}
	fmt.Fprintf(w, "| **geomean** (%d of %d queries) | | | | **%s** | %d below %.1f× |\n", n, len(rows), geo, slow, tpchSlow)
	extra := map[string]any{"sf": sf, "runs": tpchRuns, "queries": len(rows), "queries_ok": n, "below_0.2": slow}
	if n > 0 {
		extra["geomean_ratio"] = math.Exp(logSum / float64(n))
	}
	problems := map[string]string{}
	for _, r := range rows {
		if r.problem != "" {
			problems[r.q.Name] = r.problem
		}
	}
	extra["problems"] = problems
	b.rep.Extras["tpch"] = extra
}

package main

// The clickbench suite: the 43 ClickBench queries (integration/clickbench)
// over a generated hits table of --clickbench-rows rows, each run once to
// warm up and then --clickbench-runs times in both engines — ours
// in-process with planner.Run, DuckDB (--threads threads) over the same
// Parquet files through a view — with the answers of the warm-up runs
// compared (tie-aware, sqlgen.Compare). It ends with a Markdown table:
// per-query medians, DuckDB ÷ ours (> 1 = we are faster), the geometric
// mean over the queries both engines answered alike, and a mark on
// queries below 0.1×.

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/integration/clickbench"
	"github.com/paimon-flightsql/paimon-flightsql/integration/sqlgen"
	"github.com/paimon-flightsql/paimon-flightsql/planner"
)

func init() { allSuites = append(allSuites, "clickbench") }

var (
	clickbenchRows int64
	clickbenchRuns int
	clickbenchSel  string
)

// clickbenchFlags registers the suite's flags (called from run).
func clickbenchFlags(fs *flag.FlagSet) {
	fs.Int64Var(&clickbenchRows, "clickbench-rows", 1_000_000, "rows of the generated ClickBench hits table of the clickbench suite")
	fs.IntVar(&clickbenchRuns, "clickbench-runs", 3, "timed runs per ClickBench query and engine (after one warm-up)")
	fs.StringVar(&clickbenchSel, "clickbench-queries", "all", "comma-separated ClickBench queries of the clickbench suite (q01,q29 or 1,29) or all")
}

// clickbenchSlow marks queries where DuckDB ÷ ours is below this ratio.
const clickbenchSlow = 0.1

// clickbenchLayout changes whenever the generated data changes.
const clickbenchLayout = 1

type clickbenchMarker struct {
	Layout   int     `json:"layout"`
	Rows     int64   `json:"rows"`
	BuildSec float64 `json:"build_seconds"`
}

type clickbenchRow struct {
	q          clickbench.Query
	duck, ours *result
	rows       int
	problem    string // "" = both ran and agree
}

// ensureClickBench builds clickbench.hits with rows rows, or checks that
// the table in the warehouse was built with as many.
func (b *bench) ensureClickBench(ctx context.Context, rows int64) error {
	marker := filepath.Join(b.wh.dir, ".bench", "clickbench-hits.json")
	data, err := os.ReadFile(marker)
	switch {
	case err == nil:
		var m clickbenchMarker
		if err := json.Unmarshal(data, &m); err != nil {
			return fmt.Errorf("%s: %w", marker, err)
		}
		if m.Rows != rows || m.Layout != clickbenchLayout {
			return fmt.Errorf("warehouse %s holds a ClickBench table of %d rows (layout %d), not %d (layout %d): use another --warehouse",
				b.wh.dir, m.Rows, m.Layout, rows, clickbenchLayout)
		}
		fmt.Fprintf(b.cfg.out, "ClickBench: reusing hits (%d rows, built in %.1fs)\n", m.Rows, m.BuildSec)
		return nil
	case !errors.Is(err, os.ErrNotExist):
		return err
	}
	if _, err := os.Stat(filepath.Join(b.wh.dir, clickbench.Database+".db", clickbench.Table)); err == nil {
		return fmt.Errorf("table %s.%s exists in %s but was not completely built: delete it or use another --warehouse", clickbench.Database, clickbench.Table, b.wh.dir)
	}
	p := newProgress(b.cfg.out, "build clickbench.hits")
	if err := clickbench.Build(ctx, b.wh.io, rows, clickbench.BuildOptions{Progress: func(d int64) { p.update(d, rows) }}); err != nil {
		fmt.Fprintln(b.cfg.out)
		return err
	}
	m := clickbenchMarker{Layout: clickbenchLayout, Rows: rows, BuildSec: p.done().Seconds()}
	if err := os.MkdirAll(filepath.Dir(marker), 0o755); err != nil {
		return err
	}
	data, _ = json.MarshalIndent(m, "", "  ")
	return os.WriteFile(marker, data, 0o644)
}

// duckResult collects DuckDB's Arrow batches as a comparable result.
func duckResult(res *sqlgen.Result) (func(arrow.RecordBatch), *error) {
	var err error
	return func(rec arrow.RecordBatch) {
		if err != nil {
			return
		}
		if res.Columns == nil {
			for _, f := range rec.Schema().Fields() {
				res.Columns = append(res.Columns, f.Name)
			}
		}
		for i := 0; i < int(rec.NumRows()); i++ {
			row := make(sqlgen.Row, rec.NumCols())
			for c := range row {
				if row[c], err = sqlgen.ArrowValue(rec.Column(c), i); err != nil {
					return
				}
			}
			res.Rows = append(res.Rows, row)
		}
	}, &err
}

func (b *bench) suiteClickBench(ctx context.Context) error {
	rows := clickbenchRows
	if rows <= 0 {
		rows = 1_000_000
	}
	if err := b.ensureClickBench(ctx, rows); err != nil {
		return err
	}
	files, err := clickbench.DataFiles(ctx, b.wh.dir, clickbench.Database, clickbench.Table)
	if err != nil {
		return err
	}
	d, err := b.duckDB()
	if err != nil {
		return err
	}
	if _, err := d.arrow("CREATE OR REPLACE VIEW hits AS SELECT * FROM read_parquet("+parquetList(files)+")", nil); err != nil {
		return err
	}
	fmt.Fprintf(b.cfg.out, "ClickBench: %d rows in %d files\n", rows, len(files))
	sess := planner.Session{Database: clickbench.Database}
	var out []*clickbenchRow
	queries, err := clickbenchSelect(clickbenchSel)
	if err != nil {
		return err
	}
	for _, q := range queries {
		row := &clickbenchRow{q: q}
		out = append(out, row)
		var want, got sqlgen.Result
		collect, cerr := duckResult(&want)
		row.duck, err = b.clickbenchMeasure(q.Name(), "duckdb", func(keep bool) (int64, error) {
			if !keep {
				return d.arrow(q.SQL, nil)
			}
			return d.arrow(q.SQL, collect)
		})
		if err == nil {
			err = *cerr
		}
		if err != nil {
			row.problem = "DuckDB failed: " + err.Error()
			continue
		}
		row.rows = len(want.Rows)
		row.ours, err = b.clickbenchMeasure(q.Name(), "ours", func(keep bool) (int64, error) {
			rd, err := planner.Run(ctx, b.eng, q.SQL, sess, memory.DefaultAllocator)
			if err != nil {
				return 0, err
			}
			if !keep {
				return drain(rd)
			}
			defer rd.Release()
			got, err = sqlgen.FromArrow(rd)
			return int64(len(got.Rows)), err
		})
		if err != nil {
			row.problem = "FAILED: " + err.Error()
			continue
		}
		if len(want.Columns) == 0 && len(want.Rows) == 0 {
			// DuckDB's Arrow export of an empty result has no batch to
			// take the column names from: only the rows are compared.
			want.Columns = got.Columns
		}
		spec := q.Spec()
		if q.NeedsSuperset() {
			var all sqlgen.Result
			collect, cerr := duckResult(&all)
			if _, err := d.arrow(q.UnlimitedSQL(), collect); err != nil || *cerr != nil {
				row.problem = fmt.Sprintf("DuckDB failed on the unlimited query: %v %v", err, *cerr)
				continue
			}
			spec.Superset = &all
		}
		if err := sqlgen.Compare(got, want, spec); err != nil {
			row.problem = "WRONG RESULT: " + err.Error()
			fmt.Fprintf(b.cfg.out, "  %s: %s\n", q.Name(), firstLine(err.Error()))
			continue
		}
		b.compare("ClickBench "+q.Name()+" DuckDB ÷ ours", row.ours, row.duck, 0)
	}
	b.printClickBench(rows, out)
	return nil
}

// clickbenchMeasure runs fn once to warm up (keep = true: the caller keeps
// the result), then clickbenchRuns times, and records the result; an error
// of any run is returned and nothing recorded.
func (b *bench) clickbenchMeasure(name, engine string, fn func(keep bool) (int64, error)) (*result, error) {
	fmt.Fprintf(b.cfg.out, "%-10s %-24s %-14s ", "clickbench", name, engine)
	r := &result{Suite: "clickbench", Case: name, Engine: engine}
	fail := func(err error) (*result, error) {
		fmt.Fprintf(b.cfg.out, "FAILED: %s\n", firstLine(err.Error()))
		return nil, err
	}
	if _, err := fn(true); err != nil {
		return fail(err)
	}
	stop, err := b.startProfile("clickbench", name, engine)
	if err != nil {
		return fail(err)
	}
	defer stop()
	var cpus []float64
	for range max(clickbenchRuns, 1) {
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

func (b *bench) printClickBench(rows int64, out []*clickbenchRow) {
	w := b.cfg.out
	cell := func(s string) string { return strings.ReplaceAll(firstLine(s), "|", `\|`) }
	fmt.Fprintf(w, "\n### ClickBench, %d rows\n\n", rows)
	fmt.Fprintf(w, "%s, GOMAXPROCS %d, DuckDB %s with %d threads over the same Parquet files; median of %d runs after a warm-up.\n"+
		"Ratio = DuckDB ÷ ours (> 1: we are faster); ⚠ marks ratios below %.1f×.\n\n",
		b.rep.Machine["cpu"], runtime.GOMAXPROCS(0), b.rep.Machine["duckdb"], b.cfg.threads, max(clickbenchRuns, 1), clickbenchSlow)
	fmt.Fprintln(w, "| query | rows | DuckDB s | ours s | DuckDB ÷ ours | note |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---|")
	logSum, n, slow := 0.0, 0, 0
	for _, r := range out {
		duckS, oursS, ratio, note := "—", "—", "—", ""
		if r.duck != nil {
			duckS = fmt.Sprintf("%.4f", r.duck.Median)
		}
		if r.ours != nil {
			oursS = fmt.Sprintf("%.4f", r.ours.Median)
		}
		switch {
		case r.problem != "":
			note = cell(r.problem)
		case r.ours.Median > 0:
			v := r.duck.Median / r.ours.Median
			ratio = fmt.Sprintf("%.3g×", v)
			logSum += math.Log(v)
			n++
			if v < clickbenchSlow {
				note = fmt.Sprintf("⚠ < %.1f×", clickbenchSlow)
				slow++
			}
		}
		fmt.Fprintf(w, "| Q%d | %d | %s | %s | %s | %s |\n", r.q.N, r.rows, duckS, oursS, ratio, note)
	}
	geo := "—"
	extra := map[string]any{"rows": rows, "runs": max(clickbenchRuns, 1), "queries": len(out), "queries_ok": n, "below_0.1": slow}
	if n > 0 {
		g := math.Exp(logSum / float64(n))
		geo = fmt.Sprintf("%.3g×", g)
		extra["geomean_ratio"] = g
	}
	fmt.Fprintf(w, "| **geomean** (%d of %d queries) | | | | **%s** | %d below %.1f× |\n", n, len(out), geo, slow, clickbenchSlow)
	problems := map[string]string{}
	for _, r := range out {
		if r.problem != "" {
			problems[r.q.Name()] = r.problem
		}
	}
	extra["problems"] = problems
	b.rep.Extras["clickbench"] = extra
}

// clickbenchSelect returns the queries named in sel ("all", or
// comma-separated q01/1 style names).
func clickbenchSelect(sel string) ([]clickbench.Query, error) {
	all := clickbench.Queries()
	sel = strings.TrimSpace(sel)
	if sel == "" || sel == "all" {
		return all, nil
	}
	var out []clickbench.Query
	for _, name := range strings.Split(sel, ",") {
		name = strings.ToLower(strings.TrimSpace(name))
		n, err := strconv.Atoi(strings.TrimPrefix(name, "q"))
		if err != nil || n < 1 || n > len(all) {
			return nil, fmt.Errorf("--clickbench-queries: no ClickBench query %q (1..%d)", name, len(all))
		}
		out = append(out, all[n-1])
	}
	return out, nil
}

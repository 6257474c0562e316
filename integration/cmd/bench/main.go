// Command bench measures paimon-flightsql against DuckDB and against the
// Parquet library's own decode limit, on the same Parquet files, in one run:
//
//	cd integration && go run ./cmd/bench --warehouse /tmp/bench-wh [--scale 0.1] \
//	    [--suite scan|filter|agg|dv|flight|plan|rss|tpch|clickbench|s3|all] [--json out.json] [--runs 5] \
//	    [--tpch-sf 1] [--tpch-queries q01,q06]
//
// It builds the benchmark tables with paimon/write on first use (and reuses
// them afterwards), runs every case once to warm up and then --runs times,
// and prints the median, the spread and the ratios against the baselines of
// the same run (> 1 means paimon-flightsql is faster). See docs/benchmarks.md.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"syscall"
	"time"
)

type config struct {
	warehouse string
	scale     float64
	suites    map[string]bool
	jsonOut   string
	runs      int
	threads   int
	profDir   string
	out       io.Writer
	// tpch suite (tpch.go): scale factor and query selection.
	tpchSF      float64
	tpchQueries string
}

// result is one measured case.
type result struct {
	Suite  string    `json:"suite"`
	Case   string    `json:"case"`
	Engine string    `json:"engine"`
	Runs   []float64 `json:"runs_s"`
	Median float64   `json:"median_s"`
	Min    float64   `json:"min_s"`
	Max    float64   `json:"max_s"`
	Rows   int64     `json:"rows"`
	// CPU is the median process CPU time (user+system, all threads) per run:
	// steadier than wall time on a loaded machine.
	CPU   float64            `json:"cpu_s"`
	Extra map[string]float64 `json:"extra,omitempty"`
	Note  string             `json:"note,omitempty"`
}

// ratio compares two results: Value = baseline median / ours median.
type ratio struct {
	Name     string  `json:"name"`
	Ours     string  `json:"ours"`
	Baseline string  `json:"baseline"`
	Value    float64 `json:"value"`
	Target   float64 `json:"target"`
	Met      bool    `json:"met"`
}

type report struct {
	Machine   map[string]string `json:"machine"`
	Scale     float64           `json:"scale"`
	Runs      int               `json:"runs"`
	Started   time.Time         `json:"started"`
	Results   []*result         `json:"results"`
	Ratios    []ratio           `json:"ratios"`
	Extras    map[string]any    `json:"extras,omitempty"`
	Warehouse string            `json:"warehouse"`
}

var allSuites = []string{"scan", "filter", "agg", "dv", "plan", "flight", "rss", "tpch"}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	wh := fs.String("warehouse", "", "warehouse `dir` for the benchmark tables (built on first use; keep it outside the repository)")
	scale := fs.Float64("scale", 1, "data size: 1 → 10M lineitem rows, 2M primary-key rows, up to 100k files in the plan table")
	suite := fs.String("suite", "all", "comma-separated suites: "+strings.Join(allSuites, ", ")+" or all")
	jsonOut := fs.String("json", "", "also write the results as JSON to this `file`")
	runs := fs.Int("runs", 5, "timed runs per case (after one warm-up)")
	threads := fs.Int("threads", 2, "threads for every engine (DuckDB threads, scan concurrency)")
	prof := fs.String("cpuprofile", "", "write a CPU profile of each of our cases into this `dir`")
	tpchSF := fs.Float64("tpch-sf", 1, "TPC-H scale factor of the tpch suite (1 → 6M lineitem rows)")
	tpchQueries := fs.String("tpch-queries", "all", "comma-separated TPC-H queries of the tpch suite (q01,q06 or 1,6) or all")
	clickbenchFlags(fs)
	child := fs.String("child", "", "internal: run a measurement in this child process")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *wh == "" {
		fs.Usage()
		return errors.New("--warehouse is required")
	}
	if *runs < 1 {
		return errors.New("--runs must be at least 1")
	}
	if *child != "" {
		return runChild(ctx, *child, *wh, *threads, out)
	}
	cfg := &config{warehouse: *wh, scale: *scale, suites: map[string]bool{}, jsonOut: *jsonOut, runs: *runs, threads: *threads, profDir: *prof, out: out,
		tpchSF: *tpchSF, tpchQueries: *tpchQueries}
	for _, s := range strings.Split(*suite, ",") {
		s = strings.TrimSpace(s)
		switch {
		case s == "all":
			for _, a := range allSuites {
				cfg.suites[a] = true
			}
		case slices.Contains(allSuites, s):
			cfg.suites[s] = true
		default:
			return fmt.Errorf("unknown suite %q (want %s or all)", s, strings.Join(allSuites, ", "))
		}
	}
	if cfg.profDir != "" {
		if err := os.MkdirAll(cfg.profDir, 0o755); err != nil {
			return err
		}
	}
	b, err := newBench(ctx, cfg)
	if err != nil {
		return err
	}
	defer b.close()
	for _, s := range allSuites {
		if !cfg.suites[s] {
			continue
		}
		fmt.Fprintf(out, "\n== suite %s ==\n", s)
		if err := b.suite(ctx, s); err != nil {
			return fmt.Errorf("suite %s: %w", s, err)
		}
	}
	b.printSummary()
	if cfg.jsonOut != "" {
		data, _ := json.MarshalIndent(b.rep, "", "  ")
		if err := os.WriteFile(cfg.jsonOut, data, 0o644); err != nil {
			return err
		}
		fmt.Fprintf(out, "\nJSON written to %s\n", cfg.jsonOut)
	}
	return nil
}

func machineInfo() map[string]string {
	m := map[string]string{
		"nproc":      fmt.Sprint(runtime.NumCPU()),
		"gomaxprocs": fmt.Sprint(runtime.GOMAXPROCS(0)),
		"go":         runtime.Version(),
		"gogc":       os.Getenv("GOGC"),
		"os":         runtime.GOOS + "/" + runtime.GOARCH,
	}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(l, "model name") {
				m["cpu"] = strings.TrimSpace(l[strings.IndexByte(l, ':')+1:])
				break
			}
		}
	}
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		if l, _, ok := strings.Cut(string(b), "\n"); ok {
			m["mem"] = strings.Join(strings.Fields(l)[1:], " ")
		}
	}
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		m["loadavg_at_start"] = strings.Join(strings.Fields(string(b))[:3], " ")
	}
	return m
}

// measure runs fn once to warm up, then runs times, and records the result.
// Our own cases (engine "ours*") are CPU-profiled when --cpuprofile is set.
func (b *bench) measure(suite, name, engine string, fn func() (int64, error)) (*result, error) {
	r := &result{Suite: suite, Case: name, Engine: engine}
	fmt.Fprintf(b.cfg.out, "%-8s %-26s %-14s ", suite, name, engine)
	if _, err := fn(); err != nil {
		fmt.Fprintln(b.cfg.out, "FAILED")
		return nil, fmt.Errorf("%s/%s (%s): %w", suite, name, engine, err)
	}
	var prof *os.File
	if b.cfg.profDir != "" && (strings.HasPrefix(engine, "ours") || strings.HasPrefix(engine, "flight")) {
		var err error
		prof, err = os.Create(filepath.Join(b.cfg.profDir, fmt.Sprintf("%s-%s-%s.pprof", suite, name, engine)))
		if err != nil {
			return nil, err
		}
		if err := pprof.StartCPUProfile(prof); err != nil {
			prof.Close()
			return nil, err
		}
	}
	var cpus []float64
	for i := 0; i < b.cfg.runs; i++ {
		runtime.GC()
		c0 := cpuSeconds()
		t0 := time.Now()
		n, err := fn()
		d := time.Since(t0).Seconds()
		cpus = append(cpus, cpuSeconds()-c0)
		if err != nil {
			if prof != nil {
				pprof.StopCPUProfile()
				prof.Close()
			}
			fmt.Fprintln(b.cfg.out, "FAILED")
			return nil, fmt.Errorf("%s/%s (%s): %w", suite, name, engine, err)
		}
		r.Runs = append(r.Runs, d)
		r.Rows = n
	}
	if prof != nil {
		pprof.StopCPUProfile()
		prof.Close()
	}
	s := slices.Clone(r.Runs)
	slices.Sort(s)
	r.Min, r.Max = s[0], s[len(s)-1]
	r.Median = median(r.Runs)
	r.CPU = median(cpus)
	fmt.Fprintf(b.cfg.out, "median %9.4fs  (%.4f–%.4f)  cpu %7.3fs  rows %d\n", r.Median, r.Min, r.Max, r.CPU, r.Rows)
	b.rep.Results = append(b.rep.Results, r)
	return r, nil
}

// startProfile starts a CPU profile of one of our cases when --cpuprofile
// is set; the returned function stops it (a no-op otherwise).
func (b *bench) startProfile(suite, name, engine string) (func(), error) {
	if b.cfg.profDir == "" || !(strings.HasPrefix(engine, "ours") || strings.HasPrefix(engine, "flight")) {
		return func() {}, nil
	}
	f, err := os.Create(filepath.Join(b.cfg.profDir, fmt.Sprintf("%s-%s-%s.pprof", suite, name, engine)))
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}

// compare records baseline/ours as a ratio with its target.
func (b *bench) compare(name string, ours, base *result, target float64) {
	if ours == nil || base == nil || ours.Median == 0 {
		return
	}
	v := base.Median / ours.Median
	rt := ratio{Name: name, Ours: ours.Case + "/" + ours.Engine, Baseline: base.Case + "/" + base.Engine, Value: v, Target: target, Met: v >= target}
	b.rep.Ratios = append(b.rep.Ratios, rt)
	if target == 0 {
		fmt.Fprintf(b.cfg.out, "  ratio %-44s %6.2f×  (for information)\n", name, v)
		return
	}
	fmt.Fprintf(b.cfg.out, "  ratio %-44s %6.2f×  (target ≥ %.2f: %s)\n", name, v, target, metStr(rt.Met))
}

func metStr(ok bool) string {
	if ok {
		return "met"
	}
	return "MISSED"
}

func (b *bench) printSummary() {
	w := b.cfg.out
	fmt.Fprintf(w, "\n== summary (scale %g, %d runs, GOMAXPROCS %d, load at start %s) ==\n", b.cfg.scale, b.cfg.runs, runtime.GOMAXPROCS(0), b.rep.Machine["loadavg_at_start"])
	fmt.Fprintf(w, "%-8s %-26s %-14s %10s %21s %8s %10s\n", "suite", "case", "engine", "median s", "min–max s", "cpu s", "rows")
	for _, r := range b.rep.Results {
		fmt.Fprintf(w, "%-8s %-26s %-14s %10.4f %10.4f–%-10.4f %8.3f %10d\n", r.Suite, r.Case, r.Engine, r.Median, r.Min, r.Max, r.CPU, r.Rows)
	}
	fmt.Fprintf(w, "\n%-46s %8s %8s %s\n", "ratio (baseline ÷ ours; > 1 = we are faster)", "value", "target", "")
	for _, r := range b.rep.Ratios {
		status := metStr(r.Met)
		if r.Target == 0 {
			status = "(information)"
		}
		if strings.Contains(r.Name, "RSS") {
			fmt.Fprintf(w, "%-46s %6.0fMiB ≤%6.0f  %s\n", r.Name, r.Value, r.Target, status)
			continue
		}
		fmt.Fprintf(w, "%-46s %7.2f× %7.2f  %s\n", r.Name, r.Value, r.Target, status)
	}
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// cpuSeconds is the CPU time (user + system) used by this process so far.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)/1e6
}

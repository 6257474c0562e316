package flightsql

import (
	"fmt"
	"io"
	"math"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"
)

// metrics is a small Prometheus registry written in the text exposition
// format (version 0.0.4), so the server needs no client library.
type metrics struct {
	mu       sync.Mutex
	counters map[string]map[string]float64 // name → rendered labels → value
	gauges   map[string]map[string]float64
	hists    map[string]map[string]*histogram
	help     map[string]string
}

var latencyBuckets = []float64{0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60}

type histogram struct {
	counts []uint64 // per bucket, not cumulative
	sum    float64
	n      uint64
}

const metricPrefix = "paimon_flightsql_"

func newMetrics() *metrics {
	m := &metrics{
		counters: map[string]map[string]float64{},
		gauges:   map[string]map[string]float64{},
		hists:    map[string]map[string]*histogram{},
		help: map[string]string{
			"rpcs_total":              "Flight RPCs handled, by method and gRPC code.",
			"rpc_duration_seconds":    "Flight RPC latency, by method.",
			"queries_total":           "SQL statements planned, by kind (query, update, prepare).",
			"batches_abandoned_total": "Batches gRPC never released after their stream's connection died (released by the server instead).",
			"plans_reused_total":      "DoGet streams served from the plan cached by GetFlightInfo (no planning).",
			"errors_total":            "Failed RPCs, by gRPC code.",
			"rows_sent_total":         "Result rows streamed by DoGet.",
			"bytes_sent_total":        "IPC bytes (header and body) streamed by DoGet.",
			"streams_active":          "DoGet result streams in progress.",
			"cancellations_total":     "Queries cancelled by CancelFlightInfo.",
			"pruning_total":           "Scan pruning counters reported by the engine, by kind.",
			"updates_rows_total":      "Rows affected by DELETE/CALL statements.",
			"auth_failures_total":     "Rejected authentication attempts.",
		},
	}
	return m
}

func labelString(kv ...string) string {
	if len(kv) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteByte('{')
	for i := 0; i+1 < len(kv); i += 2 {
		if i > 0 {
			b.WriteByte(',')
		}
		v := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(kv[i+1])
		fmt.Fprintf(&b, `%s="%s"`, kv[i], v)
	}
	b.WriteByte('}')
	return b.String()
}

func (m *metrics) add(name string, v float64, labels ...string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.counters[name]
	if s == nil {
		s = map[string]float64{}
		m.counters[name] = s
	}
	s[labelString(labels...)] += v
}

func (m *metrics) gaugeAdd(name string, v float64, labels ...string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.gauges[name]
	if s == nil {
		s = map[string]float64{}
		m.gauges[name] = s
	}
	s[labelString(labels...)] += v
}

func (m *metrics) observe(name string, d time.Duration, labels ...string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.hists[name]
	if s == nil {
		s = map[string]*histogram{}
		m.hists[name] = s
	}
	key := labelString(labels...)
	h := s[key]
	if h == nil {
		h = &histogram{counts: make([]uint64, len(latencyBuckets))}
		s[key] = h
	}
	sec := d.Seconds()
	for i, ub := range latencyBuckets {
		if sec <= ub {
			h.counts[i]++
			break
		}
	}
	h.sum += sec
	h.n++
}

// value returns a counter's value (for tests and logs).
func (m *metrics) value(name string, labels ...string) float64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.counters[name][labelString(labels...)]
}

func sortedKeys[V any](mp map[string]V) []string {
	keys := make([]string, 0, len(mp))
	for k := range mp {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func fmtFloat(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return fmt.Sprintf("%d", int64(v))
	}
	return fmt.Sprintf("%g", v)
}

// write renders all metrics in the Prometheus text format.
func (m *metrics) write(w io.Writer) {
	m.mu.Lock()
	defer m.mu.Unlock()
	emit := func(kind string, series map[string]map[string]float64) {
		for _, name := range sortedKeys(series) {
			full := metricPrefix + name
			fmt.Fprintf(w, "# HELP %s %s\n# TYPE %s %s\n", full, m.help[name], full, kind)
			for _, l := range sortedKeys(series[name]) {
				fmt.Fprintf(w, "%s%s %s\n", full, l, fmtFloat(series[name][l]))
			}
		}
	}
	emit("counter", m.counters)
	emit("gauge", m.gauges)
	for _, name := range sortedKeys(m.hists) {
		full := metricPrefix + name
		fmt.Fprintf(w, "# HELP %s %s\n# TYPE %s histogram\n", full, m.help[name], full)
		for _, l := range sortedKeys(m.hists[name]) {
			h := m.hists[name][l]
			inner := strings.TrimSuffix(strings.TrimPrefix(l, "{"), "}")
			sep := ""
			if inner != "" {
				sep = ","
			}
			var cum uint64
			for i, ub := range latencyBuckets {
				cum += h.counts[i]
				fmt.Fprintf(w, "%s_bucket{%s%sle=\"%g\"} %d\n", full, inner, sep, ub, cum)
			}
			fmt.Fprintf(w, "%s_bucket{%s%sle=\"+Inf\"} %d\n", full, inner, sep, h.n)
			fmt.Fprintf(w, "%s_sum%s %g\n%s_count%s %d\n", full, l, h.sum, full, l, h.n)
		}
	}
}

// ServeHTTP serves the metrics page.
func (m *metrics) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	m.write(w)
}

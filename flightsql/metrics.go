package flightsql

import (
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	pmetrics "github.com/paimon-flightsql/paimon-flightsql/internal/metrics"
)

// metrics are the server's own Prometheus metrics, in a registry per
// Server (tests run several servers in one process); the /metrics page
// gathers it together with the process-wide internal/metrics registry
// (Go runtime, process, queue, memory, spills, cancellations).
type metrics struct {
	reg *prometheus.Registry

	rpcs             *prometheus.CounterVec   // method, code
	rpcDuration      *prometheus.HistogramVec // method
	queries          *prometheus.CounterVec   // kind
	batchesAbandoned prometheus.Counter
	plansReused      prometheus.Counter
	errors           *prometheus.CounterVec // code
	rowsSent         prometheus.Counter
	bytesSent        prometheus.Counter
	streamsActive    prometheus.Gauge
	cancellations    prometheus.Counter
	pruning          *prometheus.CounterVec // kind
	updatesRows      prometheus.Counter
	authFailures     prometheus.Counter
	ticketsNoSplits  prometheus.Counter
}

var latencyBuckets = []float64{0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60}

const metricPrefix = pmetrics.Prefix

func newMetrics() *metrics {
	counter := func(name, help string) prometheus.Counter {
		return prometheus.NewCounter(prometheus.CounterOpts{Name: metricPrefix + name, Help: help})
	}
	counterVec := func(name, help string, labels ...string) *prometheus.CounterVec {
		return prometheus.NewCounterVec(prometheus.CounterOpts{Name: metricPrefix + name, Help: help}, labels)
	}
	m := &metrics{
		reg:  prometheus.NewRegistry(),
		rpcs: counterVec("rpcs_total", "Flight RPCs handled, by method and gRPC code.", "method", "code"),
		rpcDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: metricPrefix + "rpc_duration_seconds", Help: "Flight RPC latency, by method.", Buckets: latencyBuckets,
		}, []string{"method"}),
		queries:          counterVec("queries_total", "SQL statements planned, by kind (query, update, prepare).", "kind"),
		batchesAbandoned: counter("batches_abandoned_total", "Batches gRPC never released after their stream's connection died (released by the server instead)."),
		plansReused:      counter("plans_reused_total", "DoGet streams served from the plan cached by GetFlightInfo (no planning)."),
		errors:           counterVec("errors_total", "Failed RPCs, by gRPC code.", "code"),
		rowsSent:         counter("rows_sent_total", "Result rows streamed by DoGet."),
		bytesSent:        counter("bytes_sent_total", "IPC bytes (header and body) streamed by DoGet."),
		streamsActive:    prometheus.NewGauge(prometheus.GaugeOpts{Name: metricPrefix + "streams_active", Help: "DoGet result streams in progress."}),
		cancellations:    counter("cancellations_total", "Queries cancelled by CancelFlightInfo."),
		pruning:          counterVec("pruning_total", "Scan pruning counters reported by the engine, by kind.", "kind"),
		updatesRows:      counter("updates_rows_total", "Rows affected by DELETE/CALL statements."),
		authFailures:     counter("auth_failures_total", "Rejected authentication attempts."),
		ticketsNoSplits:  counter("tickets_without_splits_total", "Endpoint tickets that carry SQL instead of planned splits (splits over the ticket or FlightInfo size limit)."),
	}
	m.reg.MustRegister(m.rpcs, m.rpcDuration, m.queries, m.batchesAbandoned, m.plansReused, m.errors,
		m.rowsSent, m.bytesSent, m.streamsActive, m.cancellations, m.pruning, m.updatesRows, m.authFailures, m.ticketsNoSplits)
	return m
}

func (m *metrics) observeRPC(method, code string, d time.Duration, failed bool) {
	m.rpcs.WithLabelValues(method, code).Inc()
	m.rpcDuration.WithLabelValues(method).Observe(d.Seconds())
	if failed {
		m.errors.WithLabelValues(code).Inc()
	}
}

// cancelledByRPC counts a query cancelled by CancelFlightInfo/CancelQuery.
func (m *metrics) cancelledByRPC() {
	m.cancellations.Inc()
	pmetrics.Cancelled("cancel_rpc")
}

// handler serves this server's metrics and the process-wide ones.
func (m *metrics) handler() http.Handler {
	return promhttp.HandlerFor(prometheus.Gatherers{m.reg, pmetrics.Registry}, promhttp.HandlerOpts{})
}

// value returns the value of a counter or gauge series of this server
// (name without the prefix; labels as name, value pairs), for tests.
func (m *metrics) value(name string, labels ...string) float64 {
	fams, err := m.reg.Gather()
	if err != nil {
		return -1
	}
	for _, f := range fams {
		if f.GetName() != metricPrefix+name {
			continue
		}
	series:
		for _, s := range f.GetMetric() {
			got := map[string]string{}
			for _, l := range s.GetLabel() {
				got[l.GetName()] = l.GetValue()
			}
			if len(got) != len(labels)/2 {
				continue
			}
			for i := 0; i+1 < len(labels); i += 2 {
				if got[labels[i]] != labels[i+1] {
					continue series
				}
			}
			switch {
			case s.Counter != nil:
				return s.Counter.GetValue()
			case s.Gauge != nil:
				return s.Gauge.GetValue()
			}
		}
	}
	return 0
}

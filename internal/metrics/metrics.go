package metrics

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// Prefix starts every metric name of the server.
const Prefix = "paimon_flightsql_"

// Registry holds the process-wide metrics below and the Go runtime
// (go_goroutines, go_memstats_*, ...) and process (process_cpu_seconds_total,
// process_resident_memory_bytes, ...) collectors.
var Registry = prometheus.NewRegistry()

var (
	// QueueLength is the number of queries waiting for admission.
	QueueLength = newGauge("queue_length", "Queries waiting for admission (admission control).")
	// QueriesRunning is the number of admitted queries in progress.
	QueriesRunning = newGauge("queries_running", "Queries admitted and in progress.")
	// AdmissionRejected counts queries refused because the queue wait ran out or the queue was full.
	AdmissionRejected = newCounter("admission_rejected_total", "Queries refused by admission control (ResourceExhausted).")
	// QueryMemoryBytes is the memory reserved by running queries from their budgets.
	QueryMemoryBytes = newGauge("query_memory_bytes", "Bytes reserved by running queries from their memory budgets.")
	// QueryPeakMemory observes each finished query's peak reservation.
	QueryPeakMemory = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    Prefix + "query_peak_memory_bytes",
		Help:    "Peak memory reserved by one query, observed when it ends.",
		Buckets: prometheus.ExponentialBuckets(1<<20, 4, 10), // 1 MiB .. 256 GiB
	})
	// Spills counts spill files written (sort, aggregation, join runs).
	Spills = newCounter("spills_total", "Spill files written to local disk by sorts, aggregations and joins.")
	// SpillBytes counts bytes written to spill files.
	SpillBytes = newCounter("spill_bytes_total", "Bytes written to spill files.")
	// QueriesCancelled counts queries stopped before their end, by reason
	// ("client", "timeout", "cancel_rpc", "shutdown", "memory").
	QueriesCancelled = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: Prefix + "queries_cancelled_total",
		Help: "Queries stopped before their end, by reason.",
	}, []string{"reason"})
)

func newGauge(name, help string) prometheus.Gauge {
	return prometheus.NewGauge(prometheus.GaugeOpts{Name: Prefix + name, Help: help})
}

func newCounter(name, help string) prometheus.Counter {
	return prometheus.NewCounter(prometheus.CounterOpts{Name: Prefix + name, Help: help})
}

func init() {
	Registry.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		QueueLength, QueriesRunning, AdmissionRejected, QueryMemoryBytes, QueryPeakMemory,
		Spills, SpillBytes, QueriesCancelled,
	)
}

// Cancelled counts one query stopped for reason.
func Cancelled(reason string) { QueriesCancelled.WithLabelValues(reason).Inc() }

// Spilled counts one spill file of n bytes.
func Spilled(n int64) {
	Spills.Inc()
	SpillBytes.Add(float64(n))
}

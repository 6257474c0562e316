package flightsql_test

import (
	"io"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"

	"github.com/paimon-flightsql/paimon-flightsql/internal/metrics"
)

// TestProcessWideMetrics: what other packages set through internal/metrics
// shows on every server's /metrics page, with the process collector.
func TestProcessWideMetrics(t *testing.T) {
	e := startServer(t, nil)
	metrics.QueueLength.Set(3)
	defer metrics.QueueLength.Set(0)
	metrics.Spilled(4096)
	metrics.Cancelled("timeout")
	metrics.QueryPeakMemory.Observe(5 << 20)
	rec := httptest.NewRecorder()
	e.srv.MetricsHandler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	body, _ := io.ReadAll(rec.Body)
	want := []string{
		"\npaimon_flightsql_queue_length 3\n",
		`paimon_flightsql_queries_cancelled_total{reason="timeout"} `,
		"\npaimon_flightsql_spill_bytes_total ",
		"\ngo_goroutines ",
	}
	if runtime.GOOS == "linux" {
		want = append(want, "\nprocess_resident_memory_bytes ", "\nprocess_open_fds ")
	}
	for _, w := range want {
		if !strings.Contains(string(body), w) {
			t.Errorf("metrics lack %q", w)
		}
	}
}

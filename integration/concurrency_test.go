package integration

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/planner"
)

// waitGoroutines waits until the goroutine count drops to at most limit,
// and fails with every goroutine's stack otherwise.
func waitGoroutines(t *testing.T, limit int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > limit {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			n := runtime.Stack(buf, true)
			t.Fatalf("goroutines: %d > %d\n%s", runtime.NumGoroutine(), limit, buf[:n])
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestConcurrentClientsAndAbandonedStreams: 8 clients (6 arrow-go, 2 ADBC)
// run queries against the real engine at the same time; every third query
// is abandoned after its first batch (context cancelled / reader
// released). Completed results must equal the in-process ones; afterwards
// the server's allocator holds nothing (while it still runs), and once
// server and clients are closed no goroutine survives them.
var loadQueries = []string{
	"SELECT * FROM orders",
	"SELECT * FROM lineitem WHERE l_quantity > 10",
	"SELECT l_shipmode, COUNT(*), SUM(l_extendedprice) FROM lineitem GROUP BY l_shipmode",
	"SELECT * FROM orders$files",
	"SELECT * FROM nested",
	"SELECT * FROM orders /*+ OPTIONS('scan.tag-name'='v1') */ WHERE dt >= '2024-01-07'",
	"SELECT o_orderkey, o_comment FROM orders ORDER BY o_comment DESC, o_orderkey LIMIT 500",
}

// abandonable index the loadQueries whose first endpoint streams several
// batches (16 endpoints over 56 buckets), so that dropping the stream
// after one batch leaves the server mid-scan.
var abandonable = [2]int{0, 5}

func TestConcurrentClientsAndAbandonedStreams(t *testing.T) {
	queries := loadQueries
	base := runtime.NumGoroutine()
	t.Run("load", func(t *testing.T) {
		srv := startDemo(t)
		want := make([]result, len(queries))
		for i, q := range queries {
			want[i] = inProcess(t, srv.Engine, q, planner.Session{}).sorted()
		}
		const clients, perClient = 8, 6
		errs := make(chan error, clients*perClient)
		var wg sync.WaitGroup
		for c := 0; c < clients; c++ {
			var run func(ctx context.Context, q int, abandon bool) error
			if c%4 == 3 {
				run = adbcRunner(t, srv, want)
			} else {
				run = flightRunner(newClient(t, srv), want)
			}
			wg.Add(1)
			go func(c int) {
				defer wg.Done()
				for i := 0; i < perClient; i++ {
					q, abandon := (c+i)%len(queries), (c+i)%3 == 0
					if abandon {
						q = abandonable[(c+i)%2] // streams of several batches
					}
					if err := run(context.Background(), q, abandon); err != nil {
						errs <- fmt.Errorf("client %d, %s: %w", c, queries[q], err)
					}
				}
			}(c)
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
		// Abandoned streams are torn down asynchronously; their memory must
		// come back while the server keeps running.
		waitAllocs(t, srv.Mem, "server allocator after abandoned streams")
	})
	waitGoroutines(t, base+2)
}

// flightRunner runs query q with the arrow-go client: fully (compared with
// want) or abandoned after the first batch of endpoint 0.
func flightRunner(c *fsClient, want []result) func(context.Context, int, bool) error {
	return func(ctx context.Context, q int, abandon bool) error {
		ctx, cancel := context.WithCancel(c.ctx)
		defer cancel()
		info, err := c.Execute(ctx, loadQueries[q])
		if err != nil {
			return err
		}
		if !abandon {
			got, err := c.fetch(ctx, info)
			if err != nil {
				return err
			}
			if d := got.sorted().diff(want[q]); d != "" {
				return fmt.Errorf("%s", d)
			}
			return nil
		}
		rdr, err := c.DoGet(ctx, info.Endpoint[0].Ticket)
		if err != nil {
			return err
		}
		if !rdr.Next() && rdr.Err() != nil {
			rdr.Release()
			return rdr.Err()
		}
		cancel() // drop the stream mid-way
		rdr.Release()
		return nil
	}
}

// adbcRunner runs queries through the ADBC driver (which reads endpoints
// concurrently); an abandoned query releases its reader after one batch.
func adbcRunner(t *testing.T, srv *testServer, want []result) func(context.Context, int, bool) error {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	t.Cleanup(func() { mem.AssertSize(t, 0) })
	cnxn := openADBC(t, srv, mem, nil)
	return func(ctx context.Context, q int, abandon bool) error {
		st, err := cnxn.NewStatement()
		if err != nil {
			return err
		}
		defer st.Close()
		if err := st.SetSqlQuery(loadQueries[q]); err != nil {
			return err
		}
		rdr, _, err := st.ExecuteQuery(ctx)
		if err != nil {
			return err
		}
		if abandon {
			rdr.Next()
			rdr.Release()
			return nil
		}
		got, err := readAll(rdr)
		if err != nil {
			return err
		}
		if d := got.sorted().diff(want[q]); d != "" {
			return fmt.Errorf("%s", d)
		}
		return nil
	}
}

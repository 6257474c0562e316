package integration

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/paimon-flightsql/paimon-flightsql/flightsql"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/fileio"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/write"
	"github.com/paimon-flightsql/paimon-flightsql/planner"
)

// longStatements are the hostile statements of issue 16: a 1 MB chain of
// ORs and a chain of 40k NOTs.
func longStatements() map[string]string {
	var or strings.Builder
	or.WriteString("SELECT count(*) FROM lineitem WHERE l_orderkey = 0")
	for i := 1; or.Len() < 1<<20; i++ {
		fmt.Fprintf(&or, " OR l_orderkey = %d", i)
	}
	return map[string]string{
		"1 MB OR chain": or.String(),
		"40k NOT chain": "SELECT count(*) FROM lineitem WHERE " + strings.Repeat("NOT ", 40000) + "l_orderkey = 1",
	}
}

// TestLongStatementsStop: with the statement limits lifted, the 1 MB OR
// chain and the 40k NOT chain stop on the server's query timeout and when
// the client goes away, in bounded time; under the default limits the NOT
// chain is refused at once with InvalidArgument.
func TestLongStatementsStop(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	lifted := planner.Options{MaxExpressionDepth: -1, MaxStatementBytes: -1}
	stmts := longStatements()

	t.Run("default limits", func(t *testing.T) {
		srv := startDemo(t)
		c := newClient(t, srv)
		start := time.Now()
		_, _, err := c.query(c.ctx, stmts["40k NOT chain"])
		wantCode(t, err, codes.InvalidArgument, "--max-expression-depth")
		if d := time.Since(start); d > 5*time.Second {
			t.Fatalf("refusal took %v", d)
		}
	})
	t.Run("query timeout", func(t *testing.T) {
		srv := startServerWith(t, demoWarehouse, lifted, func(c *flightsql.Config) { c.QueryTimeout = 200 * time.Millisecond })
		c := newClient(t, srv)
		for name, sql := range stmts {
			start := time.Now()
			_, _, err := c.query(c.ctx, sql)
			d := time.Since(start)
			t.Logf("%s: %v after %v", name, status.Code(err), d)
			if err == nil {
				continue // finished within the timeout: nothing to stop
			}
			wantCode(t, err, codes.DeadlineExceeded, "per-query timeout")
			if d > 10*time.Second {
				t.Fatalf("%s: stopped %v after a 200ms timeout", name, d)
			}
			waitRunning(t, srv, 0, 5*time.Second)
		}
	})
	t.Run("client goes away", func(t *testing.T) {
		srv := startServerWith(t, demoWarehouse, lifted)
		c := newClient(t, srv)
		for name, sql := range stmts {
			ctx, cancel := context.WithTimeout(c.ctx, 200*time.Millisecond)
			start := time.Now()
			_, _, err := c.query(ctx, sql)
			cancel()
			if err == nil {
				continue
			}
			// The server notices the dropped call and stops its work.
			waitRunning(t, srv, 0, 5*time.Second)
			t.Logf("%s: client gave up (%v); server idle %v after the start", name, status.Code(err), time.Since(start))
		}
	})
}

// waitRunning waits until the server runs n statements.
func waitRunning(t *testing.T, srv *testServer, n int, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for srv.srv.Running() != n {
		if time.Now().After(deadline) {
			t.Fatalf("server still runs %d statements after %v", srv.srv.Running(), within)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapInuse
}

// buildWideTable writes default.wide: rows of (id BIGINT, n INT, s STRING of
// width random letters), in several files.
func buildWideTable(t *testing.T, rows, width int) string {
	t.Helper()
	dir := t.TempDir()
	ctx := context.Background()
	io, err := fileio.NewLocal(dir)
	if err != nil {
		t.Fatal(err)
	}
	mem := memory.NewGoAllocator()
	tbl, err := write.CreateTable(ctx, io, "default", "wide", write.TableSpec{Fields: []types.DataField{
		{Name: "id", Type: types.NewBigInt()}, {Name: "n", Type: types.NewInt()}, {Name: "s", Type: types.NewString()}}})
	if err != nil {
		t.Fatal(err)
	}
	w := tbl.NewWriter(mem)
	sc := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "n", Type: arrow.PrimitiveTypes.Int32, Nullable: true}, {Name: "s", Type: arrow.BinaryTypes.String, Nullable: true}}, nil)
	x := uint64(88172645463325252)
	buf := make([]byte, width)
	const batch = 50_000
	for start := 0; start < rows; start += batch {
		b := array.NewRecordBuilder(mem, sc)
		for i := start; i < min(rows, start+batch); i++ {
			for j := range buf {
				x ^= x << 13
				x ^= x >> 7
				x ^= x << 17
				buf[j] = 'a' + byte(x%26)
			}
			b.Field(0).(*array.Int64Builder).Append(int64(i))
			b.Field(1).(*array.Int32Builder).Append(int32(i % 1000))
			b.Field(2).(*array.StringBuilder).Append(string(buf))
		}
		rec := b.NewRecordBatch()
		b.Release()
		err := w.Write(ctx, rec)
		rec.Release()
		if err != nil {
			t.Fatal(err)
		}
	}
	if _, err := w.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestUnreadStreamsBounded: 50 streams of a whole table that the client
// opens and never reads keep the server's memory bounded: gRPC flow control
// stops each producer after a few batches (the scan's prefetch: one batch
// per worker plus its output channel, plus the batch being sent), and
// admission control lets only MaxConcurrentQueries of them produce at all;
// the others wait in the queue and fail with ResourceExhausted. Their
// memory comes back once they are gone.
func TestUnreadStreamsBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	// The table is larger than what a stream may hold (a few batches), so
	// a producer that ignored back-pressure would show.
	const rows, width = 1_000_000, 100
	const rowBytes = 8 + 4 + width
	dir := buildWideTable(t, rows, width)
	const slots = 4
	srv := startServer(t, dir, func(c *flightsql.Config) {
		c.MaxConcurrentQueries = slots
		c.QueueTimeout = 3 * time.Second
	})
	c := newClient(t, srv)
	before := heapInUse()
	const streams = 50
	ctx, cancel := context.WithCancel(c.ctx)
	defer cancel()
	var infos []*flight.FlightInfo
	for i := 0; i < streams; i++ {
		info, err := c.Execute(ctx, "SELECT * FROM wide")
		if err != nil {
			t.Fatal(err)
		}
		infos = append(infos, info)
	}
	// DoGet returns once the schema arrived: queued streams block until
	// they are admitted or give up.
	var (
		mu        sync.Mutex
		rdrs      []*flight.Reader
		exhausted int
		wg        sync.WaitGroup
	)
	for _, info := range infos {
		for _, ep := range info.Endpoint {
			wg.Add(1)
			go func() {
				defer wg.Done()
				rdr, err := c.DoGet(ctx, ep.Ticket)
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil:
					rdrs = append(rdrs, rdr)
				case status.Code(err) == codes.ResourceExhausted:
					exhausted++
				case ctx.Err() == nil:
					t.Errorf("DoGet: %v", err)
				}
			}()
		}
	}
	// Let the admitted producers run into flow control.
	waitRunning(t, srv, slots, 10*time.Second)
	time.Sleep(time.Second)
	during := heapInUse()
	growth := int64(during) - int64(before)
	batch := int64(64*1024) * rowBytes // the scan's default batch of this table
	t.Logf("table: %d rows, %d MiB as Arrow, batches of %d MiB; %d unread streams (%d admitted, %d queued): Go heap %d → %d MiB (%d MiB per admitted stream)",
		rows, rows*rowBytes>>20, batch>>20, streams, srv.srv.Running(), srv.srv.Queued(), before>>20, during>>20, growth/slots>>20)
	// Per admitted stream: the scan's prefetch (an output slot and a batch
	// in hand per worker), the batch being sent, and up to gRPC's 16 MiB
	// stream window buffered by the (in-process) client.
	// The second check says no stream holds the whole table: the per-stream
	// bound (6 batches + 16 MiB = 58 MiB) is itself about half this table,
	// and the heap is shared with the package's parallel tests, so it
	// allows up to three quarters (a stream buffering the table holds 100%).
	if bound := slots * (6*batch + 16<<20); growth > bound || growth/slots > rows*rowBytes*3/4 {
		t.Fatalf("%d unread streams hold %d MiB (bound: %d admitted × (6 batches + 16 MiB) = %d MiB, and under three quarters of the table each)", streams, growth>>20, slots, bound>>20)
	}
	// The queued streams give up with ResourceExhausted.
	waitQueued(t, srv, 0, 10*time.Second)
	wg.Wait()
	if len(rdrs) != slots || exhausted != streams-slots {
		t.Fatalf("%d streams admitted and %d refused, want %d and %d", len(rdrs), exhausted, slots, streams-slots)
	}
	cancel()
	for _, r := range rdrs {
		r.Release()
	}
	waitRunning(t, srv, 0, 10*time.Second)
	after := heapInUse()
	t.Logf("after the streams are gone: Go heap %d MiB", after>>20)
	if growth := int64(after) - int64(before); growth > batch {
		t.Fatalf("%d MiB still held after the streams are gone", growth>>20)
	}
}

func waitQueued(t *testing.T, srv *testServer, n int, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for srv.srv.Queued() != n {
		if time.Now().After(deadline) {
			t.Fatalf("%d statements still queued after %v", srv.srv.Queued(), within)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

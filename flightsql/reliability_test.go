package flightsql_test

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/grpc/codes"

	pfsql "github.com/paimon-flightsql/paimon-flightsql/flightsql"
	"github.com/paimon-flightsql/paimon-flightsql/flightsql/flightsqltest"
	pmetrics "github.com/paimon-flightsql/paimon-flightsql/internal/metrics"
	"github.com/paimon-flightsql/paimon-flightsql/internal/panics"
	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
	promtest "github.com/prometheus/client_golang/prometheus/testutil"
)

// trapEngine wraps the test engine: "SELECT PANIC" panics in Prepare,
// "SELECT * FROM t /*panic-exec*/" panics in Execute, /*goroutine-panic*/
// fails the way a panic recovered in a query goroutine does, and
// /*block*/ blocks planning until the context ends (or forever with
// /*block-hard*/, ignoring the context).
type trapEngine struct {
	inner   *flightsqltest.Engine
	hard    chan struct{}
	started chan struct{}
}

func (e *trapEngine) Prepare(ctx context.Context, sql string, sess pfsql.Session) (pfsql.Statement, error) {
	switch {
	case sql == "SELECT PANIC":
		var m map[string]int
		m["x"]++ // nil map write
	case strings.Contains(sql, "/*block*/"):
		e.started <- struct{}{}
		<-ctx.Done()
		return nil, ctx.Err()
	case strings.Contains(sql, "/*block-hard*/"):
		e.started <- struct{}{}
		<-e.hard
		return nil, errors.New("released")
	}
	clean := sql
	for _, c := range []string{"/*panic-exec*/", "/*goroutine-panic*/"} {
		clean = strings.ReplaceAll(clean, c, "")
	}
	st, err := e.inner.Prepare(ctx, clean, sess)
	if err != nil {
		return nil, err
	}
	switch {
	case strings.Contains(sql, "/*panic-exec*/"):
		return trapStmt{Statement: st, mode: "panic"}, nil
	case strings.Contains(sql, "/*goroutine-panic*/"):
		return trapStmt{Statement: st, mode: "goroutine"}, nil
	}
	return st, nil
}

type trapStmt struct {
	pfsql.Statement
	mode string
}

func (s trapStmt) Execute(ctx context.Context, mem memory.Allocator, params []any, part int) (array.RecordReader, error) {
	if s.mode == "panic" {
		panic("exec exploded")
	}
	return nil, func() (err error) {
		done := make(chan struct{})
		go func() {
			defer close(done)
			defer func() { err = panics.Recovered("scan worker", recover()) }()
			var a []int
			_ = a[3]
		}()
		<-done
		return err
	}()
}

func startTrapServer(t *testing.T, mutate func(*pfsql.Config)) (*env, *trapEngine) {
	t.Helper()
	mem := testutil.CheckedAllocator(t)
	cat, release, err := flightsqltest.NewCatalog(mem)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(release)
	eng := &trapEngine{inner: flightsqltest.NewEngine(cat), hard: make(chan struct{}), started: make(chan struct{}, 64)}
	logBuf := &syncBuffer{}
	cfg := pfsql.Config{NoAuth: true, TokenKey: testKey, Allocator: mem,
		Logger: slog.New(slog.NewJSONHandler(logBuf, nil))}
	if mutate != nil {
		mutate(&cfg)
	}
	srv, err := pfsql.NewServer(cfg, eng, cat)
	if err != nil {
		t.Fatal(err)
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(lis) }()
	var once sync.Once
	t.Cleanup(func() {
		once.Do(func() { close(eng.hard) })
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
		<-served
	})
	return &env{srv: srv, addr: lis.Addr().String(), mem: mem, logBuf: logBuf}, eng
}

// TestPanicsBecomeInternal: a panic in a handler, in Execute and in a query
// goroutine is an Internal error naming the query id, logged with its
// stack, and the server keeps serving.
func TestPanicsBecomeInternal(t *testing.T) {
	e, _ := startTrapServer(t, nil)
	cl := e.client(t)
	ctx := context.Background()
	_, err := cl.Execute(ctx, "SELECT PANIC")
	wantCode(t, err, codes.Internal, "internal error in query ")
	for _, trap := range []string{"/*panic-exec*/", "/*goroutine-panic*/"} {
		info, err := cl.Execute(ctx, "SELECT * FROM orders "+trap)
		if err != nil {
			t.Fatal(err)
		}
		rdr, err := cl.DoGet(ctx, info.Endpoint[0].Ticket)
		if err == nil {
			for rdr.Next() {
			}
			err = rdr.Err()
			rdr.Release()
		}
		wantCode(t, err, codes.Internal, "query ")
		if !strings.Contains(err.Error(), "panic") {
			t.Fatalf("%s: %v does not say it was a panic", trap, err)
		}
		if strings.Contains(err.Error(), "goroutine ") {
			t.Fatalf("%s: the stack reached the client: %v", trap, err)
		}
	}
	if log := e.logBuf.String(); !strings.Contains(log, "stack") || !strings.Contains(log, "reliability_test.go") {
		t.Fatalf("the server log lacks the panic's stack:\n%s", log)
	}
	// Still serving.
	info, err := cl.Execute(ctx, "SELECT * FROM orders")
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := fetchAll(ctx, t, cl, info); n == 0 {
		t.Fatal("no rows after the panics")
	}
}

// TestAdmissionControl: with one slot, a second statement waits in the
// queue and fails with ResourceExhausted after the queue timeout; once the
// slot is free, statements run again.
func TestAdmissionControl(t *testing.T) {
	e, eng := startTrapServer(t, func(c *pfsql.Config) {
		c.MaxConcurrentQueries = 1
		c.QueueTimeout = 200 * time.Millisecond
	})
	cl := e.client(t)
	ctx, cancel := context.WithCancel(context.Background())
	blocked := make(chan error, 1)
	go func() {
		_, err := cl.Execute(ctx, "SELECT * FROM orders /*block*/")
		blocked <- err
	}()
	<-eng.started
	rejected := promtest.ToFloat64(pmetrics.AdmissionRejected)
	start := time.Now()
	_, err := cl.Execute(context.Background(), "SELECT * FROM orders")
	wantCode(t, err, codes.ResourceExhausted, "--max-concurrent-queries")
	if d := promtest.ToFloat64(pmetrics.AdmissionRejected) - rejected; d < 1 {
		t.Fatalf("admission_rejected_total grew by %v, want at least 1", d)
	}
	if d := time.Since(start); d < 150*time.Millisecond || d > 5*time.Second {
		t.Fatalf("queued statement failed after %v, want about the 200ms queue timeout", d)
	}
	if e.srv.Running() != 1 {
		t.Fatalf("running = %d, want 1", e.srv.Running())
	}
	cancel() // the client goes away: its planning stops and the slot is freed
	<-blocked
	waitFor(t, func() bool { return e.srv.Running() == 0 }, "the slot to be released")
	info, err := cl.Execute(context.Background(), "SELECT * FROM orders")
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := fetchAll(context.Background(), t, cl, info); n == 0 {
		t.Fatal("no rows")
	}
	// The endpoints of one query share its slot: a client that opens them
	// all at once and reads the last first does not wait on itself.
	if len(info.Endpoint) < 2 {
		t.Fatalf("want a query with several endpoints, got %d", len(info.Endpoint))
	}
	var rdrs []*flight.Reader
	for _, ep := range info.Endpoint {
		rdr, err := cl.DoGet(context.Background(), ep.Ticket)
		if err != nil {
			t.Fatalf("endpoint DoGet with the query's slot taken by its other endpoints: %v", err)
		}
		rdrs = append(rdrs, rdr)
	}
	if e.srv.Running() > 1 {
		t.Fatalf("%d endpoints of one query take %d slots, want at most 1", len(rdrs), e.srv.Running())
	}
	for i := len(rdrs) - 1; i >= 0; i-- {
		for rdrs[i].Next() {
		}
		if err := rdrs[i].Err(); err != nil {
			t.Fatal(err)
		}
		rdrs[i].Release()
	}
	waitFor(t, func() bool { return e.srv.Running() == 0 }, "the query's slot to be released")
}

// TestShutdownIsBounded: Shutdown drains for its context's time, then
// cancels what runs and returns even when a handler ignores cancellation.
func TestShutdownIsBounded(t *testing.T) {
	e, eng := startTrapServer(t, nil)
	cl := e.client(t)
	go func() { _, _ = cl.Execute(context.Background(), "SELECT * FROM orders /*block*/") }()
	go func() { _, _ = cl.Execute(context.Background(), "SELECT * FROM orders /*block-hard*/") }()
	<-eng.started
	<-eng.started
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	err := e.srv.Shutdown(ctx)
	d := time.Since(start)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("shutdown with running calls: %v, want DeadlineExceeded", err)
	}
	if d < 250*time.Millisecond || d > 4*time.Second {
		t.Fatalf("shutdown took %v: want the 300ms drain plus at most the 2s grace", d)
	}
}

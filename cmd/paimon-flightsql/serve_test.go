package main

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
)

// syncBuffer is a bytes.Buffer safe for the server goroutine and the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}
func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

// TestServeQueryAndShutdown starts `serve` on the fixtures, runs one query
// with arrow-go's Flight SQL client and shuts down on context cancellation.
func TestServeQueryAndShutdown(t *testing.T) {
	warehouse := testutil.Fixture(t, "paimon-cpp/parquet")
	ctx, cancel := context.WithCancel(context.Background())
	var out, errb syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--warehouse", warehouse, "--listen", "127.0.0.1:0"}, &out, &errb)
	}()
	var addr string
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if i := strings.Index(out.String(), "grpc://"); i >= 0 {
			addr = strings.TrimSpace(out.String()[i+len("grpc://"):])
			break
		}
	}
	if addr == "" {
		cancel()
		t.Fatalf("server did not start: %s", errb.String())
	}
	cl, err := flightsql.NewClient(addr, nil, nil, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	info, err := cl.Execute(ctx, "SELECT count(*) AS n FROM pk_09.pk_09")
	if err != nil {
		t.Fatal(err)
	}
	rd, err := cl.DoGet(ctx, info.Endpoint[0].Ticket)
	if err != nil {
		t.Fatal(err)
	}
	if !rd.Next() || rd.RecordBatch().NumRows() != 1 {
		t.Fatalf("no result: %v", rd.Err())
	}
	rd.Release()
	cl.Close()
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("serve exited %d: %s", code, errb.String())
		}
	case <-time.After(15 * time.Second):
		t.Fatal("serve did not stop after cancellation")
	}
}

func TestServeRefusesOpenNetworkWithoutAuth(t *testing.T) {
	warehouse := testutil.Fixture(t, "paimon-cpp/parquet")
	code, _, errs := runCmd(t, "serve", "--warehouse", warehouse, "--listen", "0.0.0.0:0")
	if code != 1 || !strings.Contains(errs, "--users") {
		t.Fatalf("exit %d, %q", code, errs)
	}
	code, _, errs = runCmd(t, "serve", "--demo", "--warehouse", warehouse)
	if code != 1 || !strings.Contains(errs, "either --warehouse or --demo") {
		t.Fatalf("exit %d, %q", code, errs)
	}
}

// Every command answers -h and --help with its usage and exit status 0.
func TestHelpExitsZero(t *testing.T) {
	for name := range commands {
		for _, h := range []string{"-h", "--help"} {
			var out, errb strings.Builder
			if code := run(context.Background(), []string{name, h}, &out, &errb); code != 0 {
				t.Errorf("%s %s: exit %d, stderr %q", name, h, code, errb.String())
			}
			if !strings.Contains(errb.String(), "usage:") {
				t.Errorf("%s %s: no usage printed: %q", name, h, errb.String())
			}
		}
	}
	for _, h := range []string{"-h", "--help", "help"} {
		var out, errb strings.Builder
		if code := run(context.Background(), []string{h}, &out, &errb); code != 0 {
			t.Errorf("%s: exit %d", h, code)
		}
	}
	var out, errb strings.Builder
	if code := run(context.Background(), []string{"serve", "--no-such-flag"}, &out, &errb); code != 2 {
		t.Errorf("bad flag: exit %d, want 2", code)
	}
}

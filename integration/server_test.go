package integration

import (
	"context"
	"log/slog"
	"net"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"golang.org/x/crypto/bcrypt"
	"google.golang.org/grpc/codes"

	"github.com/paimon-flightsql/paimon-flightsql/flightsql"
	"github.com/paimon-flightsql/paimon-flightsql/flightsql/flightsqltest"
)

// Credentials of the test user.
const (
	testUser     = "alice"
	testPassword = "s3cret"
)

// testServer is a running in-process server.
type testServer struct {
	Addr string
	URI  string // grpc://host:port for ADBC
}

// startServer starts the Flight SQL server in-process on 127.0.0.1:0 with
// authentication on (user alice). It is the one place that picks the engine
// and catalog: today the flightsqltest engine over in-memory tables
// (default.orders, default.customers, default.logs, sales.events, sys.tables);
// switch it to the planner over the demo warehouse and fixtures here.
func startServer(t *testing.T) *testServer {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	t.Cleanup(func() { mem.AssertSize(t, 0) })
	cat, release, err := flightsqltest.NewCatalog(mem)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(release)
	hash, err := bcrypt.GenerateFromPassword([]byte(testPassword), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := flightsql.NewServer(flightsql.Config{
		Users:      []flightsql.User{{Name: testUser, PasswordHash: string(hash)}},
		TokenKey:   []byte("integration-test-signing-key-0123456789"),
		Allocator:  mem,
		Logger:     slog.New(slog.DiscardHandler),
		ErrorCodes: []flightsql.ErrorCode{{Err: flightsqltest.ErrCorrupt, Code: codes.DataLoss}},
	}, flightsqltest.NewEngine(cat), cat)
	if err != nil {
		t.Fatal(err)
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(lis) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
		if err := <-served; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	addr := lis.Addr().String()
	return &testServer{Addr: addr, URI: "grpc://" + addr}
}

package integration

import (
	"context"
	"io/fs"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"golang.org/x/crypto/bcrypt"
	"google.golang.org/grpc/codes"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
	"github.com/paimon-flightsql/paimon-flightsql/flightsql"
	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/fileio"
	"github.com/paimon-flightsql/paimon-flightsql/planner"
	"github.com/paimon-flightsql/paimon-flightsql/sysviews"
)

// Credentials of the test user.
const (
	testUser     = "alice"
	testPassword = "s3cret"
)

// testServer is a running in-process server over a warehouse, with the
// real planner as engine.
type testServer struct {
	Addr string
	URI  string // grpc://host:port for ADBC
	// Mem is the server's allocator (results and metadata); it must be
	// back to zero once every stream has ended.
	Mem *memory.CheckedAllocator
	// Engine is an in-process planner over the same warehouse, for
	// comparisons ("what the server should have returned").
	Engine *planner.Engine
	srv    *flightsql.Server
}

// openCatalog opens warehouse dir as the server does (serve --warehouse).
func openCatalog(t testing.TB, dir string) *catalog.FS {
	t.Helper()
	fio, err := fileio.NewLocal(dir)
	if err != nil {
		t.Fatal(err)
	}
	return catalog.NewFS(fio, ".", catalog.WithSystemTables(sysviews.New()))
}

// startServer starts the Flight SQL server in-process on 127.0.0.1:0 over
// the warehouse dir, with the planner as engine (as cmd/paimon-flightsql
// serve wires it) and authentication on (user alice). The server's
// checked allocator must be empty when the test ends.
func startServer(t testing.TB, dir string, configure ...func(*flightsql.Config)) *testServer {
	t.Helper()
	return startServerWith(t, dir, planner.Options{}, configure...)
}

// startServerWith is startServer with planner options (limits, memory budget).
func startServerWith(t testing.TB, dir string, popts planner.Options, configure ...func(*flightsql.Config)) *testServer {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	cat := openCatalog(t, dir)
	hash, err := bcrypt.GenerateFromPassword([]byte(testPassword), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	cfg := flightsql.Config{
		Users:      []flightsql.User{{Name: testUser, PasswordHash: string(hash)}},
		TokenKey:   []byte("integration-test-signing-key-0123456789"),
		Allocator:  mem,
		Logger:     slog.New(slog.DiscardHandler),
		ErrorCodes: []flightsql.ErrorCode{{Err: paimon.ErrCorrupt, Code: codes.DataLoss}},
	}
	for _, f := range configure {
		f(&cfg)
	}
	srv, err := flightsql.NewServer(cfg, flightsql.PlannerEngine(planner.New(cat, popts)), cat)
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
		waitAllocs(t, mem, "server allocator after shutdown")
	})
	addr := lis.Addr().String()
	return &testServer{Addr: addr, URI: "grpc://" + addr, Mem: mem, srv: srv,
		Engine: planner.New(openCatalog(t, dir), planner.Options{})}
}

// startDemo serves the demo warehouse (read-only).
func startDemo(t testing.TB) *testServer { t.Helper(); return startServer(t, demoWarehouse) }

// startFixtures serves the fixture warehouse, or skips the test.
func startFixtures(t testing.TB) *testServer {
	t.Helper()
	return startServer(t, needFixtures(t))
}

// waitAllocs waits (abandoned streams are torn down asynchronously) until
// mem holds nothing, then asserts it.
func waitAllocs(t testing.TB, mem *memory.CheckedAllocator, what string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for mem.CurrentAlloc() != 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := mem.CurrentAlloc(); n != 0 {
		t.Errorf("%s: %d bytes still allocated", what, n)
	}
	mem.AssertSize(t, 0)
}

// copyWarehouse copies the demo warehouse into a fresh directory, for
// tests that write (DELETE, CALL sys.compact).
func copyWarehouse(t testing.TB, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "warehouse")
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

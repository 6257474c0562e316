package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
)

// The test binary doubles as the server binary: with this variable set,
// TestMain runs main() (signals included) instead of the tests.
const asServerEnv = "PAIMON_FLIGHTSQL_TEST_AS_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(asServerEnv) == "1" {
		os.Args = append([]string{os.Args[0]}, strings.Fields(os.Getenv(asServerEnv+"_ARGS"))...)
		main()
		return
	}
	os.Exit(m.Run())
}

// TestSIGTERMDrainsThenExits: SIGTERM while a long statement plans makes
// the server drain for --shutdown-timeout, cancel the statement and exit
// 0, in bounded time.
func TestSIGTERMDrainsThenExits(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	warehouse := testutil.Fixture(t, "paimon-cpp/parquet")
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), asServerEnv+"=1", asServerEnv+"_ARGS=serve --warehouse "+warehouse+
		" --listen 127.0.0.1:0 --shutdown-timeout 500ms --max-expression-depth -1 --max-statement-bytes -1")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	addrc := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if i := strings.Index(sc.Text(), "grpc://"); i >= 0 {
				addrc <- strings.TrimSpace(sc.Text()[i+len("grpc://"):])
			}
		}
	}()
	var addr string
	select {
	case addr = <-addrc:
	case <-time.After(30 * time.Second):
		t.Fatalf("server did not start: %s", stderr.String())
	}
	cl, err := flightsql.NewClient(addr, nil, nil, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	// A statement that keeps the server busy for a while: 100k NOTs over
	// an OR chain.
	var sql strings.Builder
	sql.WriteString("SELECT count(*) FROM pk_09.pk_09 WHERE " + strings.Repeat("NOT ", 100000) + "(f0 = 'x'")
	for i := 0; sql.Len() < 4<<20; i++ {
		fmt.Fprintf(&sql, " OR f0 = 'v%d'", i)
	}
	sql.WriteString(")")
	go func() { _, _ = cl.Execute(context.Background(), sql.String()) }()
	time.Sleep(300 * time.Millisecond) // the statement is being planned
	start := time.Now()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	select {
	case err := <-waited:
		if err != nil {
			t.Fatalf("server exited with %v:\n%s", err, stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("server still running 10s after SIGTERM:\n%s", stderr.String())
	}
	d := time.Since(start)
	t.Logf("exited %v after SIGTERM:\n%s", d, stderr.String())
	if !strings.Contains(stderr.String(), "shutting down") {
		t.Fatalf("no shutdown log:\n%s", stderr.String())
	}
}

package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"golang.org/x/crypto/bcrypt"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
)

// TestServeReloadsUsersOnSIGHUP removes a user from the users file and
// sends SIGHUP (file polling is off): the user's token fails at once.
func TestServeReloadsUsersOnSIGHUP(t *testing.T) {
	warehouse := testutil.Fixture(t, "paimon-cpp/parquet")
	dir := t.TempDir()
	users := filepath.Join(dir, "users")
	h, err := bcrypt.GenerateFromPassword([]byte("pw"), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(users, []byte("alice:"+string(h)+"\nbob:"+string(h)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errb syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--warehouse", warehouse, "--listen", "127.0.0.1:0", "--users", users, "--reload-interval", "-1s"}, &out, &errb)
	}()
	var addr string
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if i := strings.Index(out.String(), "grpc://"); i >= 0 {
			addr = strings.TrimSpace(out.String()[i+len("grpc://"):])
			break
		}
	}
	if addr == "" {
		t.Fatalf("server did not start: %s", errb.String())
	}
	cl, err := flightsql.NewClient(addr, nil, nil, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	bctx, err := cl.Client.AuthenticateBasicToken(ctx, "bob", "pw")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cl.Execute(bctx, "SELECT 1"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(users, []byte("alice:"+string(h)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, err := cl.Execute(bctx, "SELECT 1")
		if status.Code(err) == codes.Unauthenticated && strings.Contains(err.Error(), "no longer configured") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("bob still accepted after SIGHUP: %v\n%s", err, errb.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if !strings.Contains(errb.String(), "SIGHUP: credentials reloaded") {
		t.Errorf("no reload log line:\n%s", errb.String())
	}
	cancel()
	if code := <-done; code != 0 {
		t.Fatalf("serve exited %d: %s", code, errb.String())
	}
}

func TestServeOIDCFlagErrors(t *testing.T) {
	warehouse := testutil.Fixture(t, "paimon-cpp/parquet")
	code, _, errs := runCmd(t, "serve", "--warehouse", warehouse, "--listen", "127.0.0.1:0", "--oidc-audience", "x")
	if code != 1 || !strings.Contains(errs, "need --oidc-issuer") {
		t.Fatalf("exit %d, %q", code, errs)
	}
	code, _, errs = runCmd(t, "serve", "--warehouse", warehouse, "--listen", "127.0.0.1:0", "--oidc-issuer", "https://idp", "--oidc-audience", "x", "--oidc-readonly-claim", "groups")
	if code != 1 || !strings.Contains(errs, "name=value") {
		t.Fatalf("exit %d, %q", code, errs)
	}
}

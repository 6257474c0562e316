package flightsql_test

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"golang.org/x/crypto/bcrypt"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	pfsql "github.com/paimon-flightsql/paimon-flightsql/flightsql"
)

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	tmp := path + ".new"
	if err := os.WriteFile(tmp, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

func login(t *testing.T, cl *flightsql.Client, user, pass string) context.Context {
	t.Helper()
	ctx, err := cl.Client.AuthenticateBasicToken(context.Background(), user, pass)
	if err != nil {
		t.Fatalf("login %s: %v", user, err)
	}
	return ctx
}

func TestUsersFileReloadAppliesAtOnce(t *testing.T) {
	dir := t.TempDir()
	users := filepath.Join(dir, "users")
	alice, bob, carol := hash(t, "a"), hash(t, "b"), hash(t, "c")
	writeFile(t, users, "alice:"+alice+"\nbob:"+bob+"\ncarol:"+carol+"\n")
	e := startServer(t, func(c *pfsql.Config) {
		c.NoAuth = false
		c.UsersFile = users
		c.ReloadInterval = -1 // reload by hand
	})
	cl := e.client(t)
	actx, bctx, cctx := login(t, cl, "alice", "a"), login(t, cl, "bob", "b"), login(t, cl, "carol", "c")
	if _, err := cl.ExecuteUpdate(actx, "CALL sys.compact('default.orders')"); err != nil {
		t.Fatalf("alice may write: %v", err)
	}

	// Demote alice, remove bob, change carol's password; a broken line in
	// an intermediate version must not be applied.
	writeFile(t, users, "alice:"+alice+":readonly\nbob:plaintext\n")
	if err := e.srv.Reload(); err == nil || !strings.Contains(err.Error(), "bob") || !strings.Contains(err.Error(), "keeping the previous users") {
		t.Fatalf("broken users file: %v", err)
	}
	if _, err := cl.ExecuteUpdate(actx, "CALL sys.compact('default.orders')"); err != nil {
		t.Fatalf("broken file was applied: %v", err)
	}
	writeFile(t, users, "alice:"+alice+":readonly\ncarol:"+hash(t, "c2")+"\n")
	if err := e.srv.Reload(); err != nil {
		t.Fatal(err)
	}
	_, err := cl.ExecuteUpdate(actx, "CALL sys.compact('default.orders')")
	wantCode(t, err, codes.PermissionDenied, "read-only")
	if _, err := cl.Execute(actx, "SELECT * FROM orders"); err != nil {
		t.Fatalf("demoted alice may still read: %v", err)
	}
	_, err = cl.Execute(bctx, "SELECT * FROM orders")
	wantCode(t, err, codes.Unauthenticated, "no longer configured")
	_, err = cl.Client.AuthenticateBasicToken(context.Background(), "bob", "b")
	wantCode(t, err, codes.Unauthenticated, "bob")
	_, err = cl.Execute(cctx, "SELECT * FROM orders")
	wantCode(t, err, codes.Unauthenticated, "password change")
	login(t, cl, "carol", "c2")

	// Promotion applies at once too.
	writeFile(t, users, "alice:"+alice+"\n")
	if err := e.srv.Reload(); err != nil {
		t.Fatal(err)
	}
	if _, err := cl.ExecuteUpdate(actx, "CALL sys.compact('default.orders')"); err != nil {
		t.Fatalf("promoted alice: %v", err)
	}
}

func TestUsersFileIsPolled(t *testing.T) {
	users := filepath.Join(t.TempDir(), "users")
	writeFile(t, users, "alice:"+hash(t, "a")+"\nbob:"+hash(t, "b")+"\n")
	e := startServer(t, func(c *pfsql.Config) {
		c.NoAuth = false
		c.UsersFile = users
		c.ReloadInterval = 20 * time.Millisecond
	})
	cl := e.client(t)
	bctx := login(t, cl, "bob", "b")
	writeFile(t, users, "alice:"+hash(t, "a")+"\n")
	waitFor(t, func() bool {
		_, err := cl.Execute(bctx, "SELECT * FROM orders")
		return status.Code(err) == codes.Unauthenticated
	}, "removal of bob to be picked up by polling")
}

func TestKeyRotationRevokesTokens(t *testing.T) {
	dir := t.TempDir()
	keyFile := filepath.Join(dir, "key")
	writeFile(t, keyFile, "first-key-first-key-first-key-01\n")
	e := startServer(t, func(c *pfsql.Config) {
		c.NoAuth = false
		c.TokenKey = nil
		c.TokenKeyFile = keyFile
		c.ReloadInterval = -1
		c.Users = []pfsql.User{{Name: "alice", PasswordHash: hash(t, "a")}}
	})
	cl := e.client(t)
	old := login(t, cl, "alice", "a")
	info, err := cl.Execute(old, "SELECT * FROM customers")
	if err != nil {
		t.Fatal(err)
	}

	writeFile(t, keyFile, "short")
	if err := e.srv.Reload(); err == nil || !strings.Contains(err.Error(), "at least 16") {
		t.Fatalf("short key: %v", err)
	}
	if _, err := cl.Execute(old, "SELECT * FROM orders"); err != nil {
		t.Fatalf("rejected key file was applied: %v", err)
	}

	writeFile(t, keyFile, "second-key-second-key-second-key\n")
	if err := e.srv.Reload(); err != nil {
		t.Fatal(err)
	}
	_, err = cl.Execute(old, "SELECT * FROM orders")
	wantCode(t, err, codes.Unauthenticated, "signature invalid")
	fresh := login(t, cl, "alice", "a")
	// A ticket signed just before the rotation is still served.
	if n, _ := fetchAll(fresh, t, cl, info); n != 3 {
		t.Fatalf("rows %d", n)
	}
	// A second rotation drops the first key for tickets too.
	writeFile(t, keyFile, "third-key-third-key-third-key-03\n")
	if err := e.srv.Reload(); err != nil {
		t.Fatal(err)
	}
	fresh = login(t, cl, "alice", "a")
	rdr, err := cl.DoGet(fresh, info.Endpoint[0].Ticket)
	if err == nil {
		for rdr.Next() {
		}
		err = rdr.Err()
		rdr.Release()
	}
	wantCode(t, err, codes.InvalidArgument, "signature invalid")
}

func TestDecoyHashHasTheUsersCost(t *testing.T) {
	const cost = 8
	h, err := bcrypt.GenerateFromPassword([]byte("pw"), cost)
	if err != nil {
		t.Fatal(err)
	}
	e := startServer(t, func(c *pfsql.Config) {
		c.NoAuth = false
		c.Users = []pfsql.User{{Name: "alice", PasswordHash: string(h)}}
		c.LoginFailureBurst = -1
	})
	if got := e.srv.DecoyCostForTest(); got != cost {
		t.Fatalf("decoy cost %d, users' cost %d", got, cost)
	}
	// Timing: an unknown user costs about as much as a wrong password
	// (before, MinCost made it ~50x faster at cost 10).
	cl := e.client(t)
	median := func(user string) time.Duration {
		var ds []time.Duration
		for range 5 {
			start := time.Now()
			_, err := cl.Client.AuthenticateBasicToken(context.Background(), user, "wrong")
			ds = append(ds, time.Since(start))
			wantCode(t, err, codes.Unauthenticated, user)
		}
		sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
		return ds[2]
	}
	known, unknown := median("alice"), median("mallory")
	if unknown*3 < known {
		t.Fatalf("unknown user answers in %v, wrong password in %v: user enumeration by timing", unknown, known)
	}
	t.Logf("wrong password %v, unknown user %v", known, unknown)
}

func TestFailedLoginsAreRateLimited(t *testing.T) {
	var now = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	e := startServer(t, func(c *pfsql.Config) {
		c.NoAuth = false
		c.Users = []pfsql.User{{Name: "alice", PasswordHash: hash(t, "a")}, {Name: "bob", PasswordHash: hash(t, "b")}}
		c.LoginFailureBurst = 3
		c.LoginFailureInterval = time.Minute
	})
	e.srv.SetClockForTest(func() time.Time { return now })
	cl := e.client(t)
	bg := context.Background()
	// Successful logins cost nothing.
	for range 5 {
		login(t, cl, "bob", "b")
	}
	for range 3 {
		_, err := cl.Client.AuthenticateBasicToken(bg, "alice", "guess")
		wantCode(t, err, codes.Unauthenticated, "alice")
	}
	// Even the right password is refused now, with retry information.
	_, err := cl.Client.AuthenticateBasicToken(bg, "alice", "a")
	wantCode(t, err, codes.ResourceExhausted, "too many failed logins")
	var retry *errdetails.RetryInfo
	for _, d := range status.Convert(err).Details() {
		if r, ok := d.(*errdetails.RetryInfo); ok {
			retry = r
		}
	}
	if retry == nil || retry.GetRetryDelay().AsDuration() <= 0 || retry.GetRetryDelay().AsDuration() > time.Minute {
		t.Fatalf("retry info %v", retry)
	}
	// The client address is out of attempts too: bob is refused as well.
	_, err = cl.Client.AuthenticateBasicToken(bg, "bob", "b")
	wantCode(t, err, codes.ResourceExhausted, "client address")
	// Bearer tokens are not affected.
	now = now.Add(time.Minute)
	actx := login(t, cl, "alice", "a")
	if _, err := cl.Execute(actx, "SELECT * FROM orders"); err != nil {
		t.Fatal(err)
	}
}

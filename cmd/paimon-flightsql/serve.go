package main

import (
	"context"
	"crypto/rand"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"google.golang.org/grpc/codes"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
	"github.com/paimon-flightsql/paimon-flightsql/flightsql"
	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/planner"
)

func init() {
	register("serve", "serve a warehouse over Arrow Flight SQL", runServe)
}

// version is reported to clients (FLIGHT_SQL_SERVER_VERSION).
const version = "0.1.0"

// NewFlightServer builds the Flight SQL server over a catalog: the planner as
// engine, Paimon's corrupt-data errors mapped to DataLoss.
func NewFlightServer(cfg flightsql.Config, cat catalog.Catalog) (*flightsql.Server, error) {
	return newFlightServer(cfg, cat, planner.Options{})
}

func newFlightServer(cfg flightsql.Config, cat catalog.Catalog, popts planner.Options) (*flightsql.Server, error) {
	cfg.ErrorCodes = append(cfg.ErrorCodes, flightsql.ErrorCode{Err: paimon.ErrCorrupt, Code: codes.DataLoss})
	if cfg.ServerVersion == "" {
		cfg.ServerVersion = version
	}
	if popts.CatalogName = cfg.Catalog; popts.CatalogName == "" {
		popts.CatalogName = "paimon"
	}
	popts.Version = cfg.ServerVersion
	return flightsql.NewServer(cfg, flightsql.PlannerEngine(planner.New(cat, popts)), cat)
}

func runServe(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	warehouse := fs.String("warehouse", "", "warehouse `directory` or s3://bucket/prefix URL to serve")
	demo := fs.Bool("demo", false, "serve the demo warehouse (built on first run in --data-dir)")
	dataDir := fs.String("data-dir", defaultDemoDir(), "`directory` of the demo warehouse")
	demoScale := fs.Float64("demo-scale", defaultDemoScale, "lineitem size of a newly built demo warehouse (1 → ~1M rows)")
	listen := fs.String("listen", "127.0.0.1:32010", "listen `address`")
	noAuth := fs.Bool("no-auth", false, "accept every client without authentication (default when listening on loopback without --users)")
	users := fs.String("users", "", "users `file`: lines of user:bcrypt-hash[:readonly]")
	keyFile := fs.String("token-key-file", "", "`file` with the key that signs tokens and tickets (share it across nodes; random per process by default); re-read when it changes: a new key revokes all bearer tokens")
	reload := fs.Duration("reload-interval", 2*time.Second, "how often the users and key files are checked for changes (SIGHUP reloads at once; negative = SIGHUP only)")
	oidcIssuer := fs.String("oidc-issuer", "", "also accept bearer JWTs of this OpenID Connect `issuer` (its iss claim)")
	jwksURL := fs.String("jwks-url", "", "`URL` of the OIDC issuer's JWKS (default: jwks_uri of its discovery document)")
	oidcAudience := fs.String("oidc-audience", "", "`audience` OIDC tokens must carry (required with --oidc-issuer)")
	oidcROClaim := fs.String("oidc-readonly-claim", "", "`name=value`: OIDC tokens whose claim name is (or contains) value get the read-only role")
	oidcUserClaim := fs.String("oidc-user-claim", "sub", "OIDC `claim` that names the user")
	tlsCert := fs.String("tls-cert", "", "TLS certificate `file`")
	tlsKey := fs.String("tls-key", "", "TLS private key `file`")
	clientCA := fs.String("tls-client-ca", "", "CA `file` for client certificates (enables mTLS)")
	metrics := fs.String("metrics", "", "serve Prometheus metrics on this `address` (e.g. 127.0.0.1:9090)")
	timeout := fs.Duration("query-timeout", 0, "per-query `timeout` (0 = none)")
	maxEndpoints := fs.Int("max-endpoints", 0, "at most `N` endpoints per result (0 = one per partition); results under --endpoint-mib get one")
	endpointMiB := fs.Int64("endpoint-mib", flightsql.DefaultEndpointBytes>>20, "estimated result `MiB` per endpoint: smaller results get one endpoint (-1 = one per partition)")
	shutdownTimeout := fs.Duration("shutdown-timeout", 10*time.Second, "on SIGTERM/SIGINT, drain running queries for this `long`, then cancel them and exit")
	maxQueries := fs.Int("max-concurrent-queries", 0, "statements planned or streamed at once; others queue (0 = max(8, 4×CPUs), -1 = unlimited)")
	queueTimeout := fs.Duration("queue-timeout", 30*time.Second, "how `long` a statement waits for a slot before failing with RESOURCE_EXHAUSTED")
	memLimit := fs.String("memory-limit", "", "server-wide `size` (e.g. 1GiB) that the memory budgets of all queries draw from (default: half of the machine's or cgroup's memory; 0 = none)")
	spillDir := fs.String("spill-dir", "", "`directory` under which queries over their memory budget spill sorts, aggregations and joins (default: the OS temp directory)")
	spillLimit := fs.String("spill-limit", "", "server-wide disk `size` (e.g. 20GiB) of all spill files at once (default/0: unlimited; \"off\" disables spilling)")
	maxStmt := fs.Int("max-statement-bytes", 0, "longest SQL text accepted, in `bytes` (0 = 4 MiB, -1 = unlimited)")
	maxDepth := fs.Int("max-expression-depth", 0, "longest run of prefix operators (NOT, -, ~) nested without parentheses (0 = 256, -1 = unlimited; parentheses are capped at 190 levels)")
	maxRecursion := fs.Int("max-recursion", 0, "most rounds of the recursive term of a WITH RECURSIVE query before it fails (0 = 100000)")
	advertise := fs.String("advertise", "", "`host:port` peers and clients reach this node at (needed with --peers/--peers-file)")
	peers := fs.String("peers", "", "comma-separated `host:port` list of the nodes serving the same warehouse with the same --token-key-file; result endpoints are spread across the healthy ones")
	peersFile := fs.String("peers-file", "", "`file` of peers, one host:port per line; re-read when it changes")
	peerCheck := fs.Duration("peer-check-interval", 2*time.Second, "how often peers are health-checked (and --peers-file re-read)")
	catOpts := kvFlag{}
	fs.Var(catOpts, "catalog-option", "catalog option `key=value`; repeatable")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: paimon-flightsql serve (--warehouse W | --demo) [--listen 127.0.0.1:32010] [flags]")
		fs.PrintDefaults()
	}
	if _, err := parseFlags(fs, args, stderr); err != nil {
		return err
	}
	logger := slog.New(slog.NewTextHandler(stderr, nil))
	dir := *warehouse
	switch {
	case *demo && dir != "":
		return errors.New("use either --warehouse or --demo")
	case *demo:
		dir = *dataDir
		if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
			if err := buildDemo(ctx, dir, *demoScale, nil, stderr); err != nil {
				return err
			}
		}
	case dir == "":
		fs.Usage()
		return errUsage
	}
	cat, err := openCatalog(ctx, dir, catOpts)
	if err != nil {
		return err
	}
	cfg := flightsql.Config{
		Addr: *listen, UsersFile: *users, NoAuth: *noAuth,
		TLSCertFile: *tlsCert, TLSKeyFile: *tlsKey, ClientCAFile: *clientCA,
		MetricsAddr: *metrics, QueryTimeout: *timeout, Logger: logger,
		MaxEndpoints: *maxEndpoints, EndpointBytes: *endpointMiB << 20,
		MaxConcurrentQueries: *maxQueries, QueueTimeout: *queueTimeout,
		ReloadInterval: *reload,
		Advertise:      *advertise, PeersFile: *peersFile, PeerCheckInterval: *peerCheck,
	}
	for _, p := range strings.Split(*peers, ",") {
		if p = strings.TrimSpace(p); p != "" {
			cfg.Peers = append(cfg.Peers, p)
		}
	}
	if *oidcIssuer != "" {
		o := &flightsql.OIDCConfig{Issuer: *oidcIssuer, JWKSURL: *jwksURL, Audience: *oidcAudience, UserClaim: *oidcUserClaim}
		if *oidcROClaim != "" {
			name, value, ok := strings.Cut(*oidcROClaim, "=")
			if !ok || name == "" || value == "" {
				return fmt.Errorf("--oidc-readonly-claim %q: want name=value", *oidcROClaim)
			}
			o.ReadOnlyClaim, o.ReadOnlyValue = name, value
		}
		cfg.OIDC = o
	} else if *jwksURL != "" || *oidcAudience != "" || *oidcROClaim != "" {
		return errors.New("--jwks-url, --oidc-audience and --oidc-readonly-claim need --oidc-issuer")
	}
	if *maxEndpoints < 0 {
		return errors.New("--max-endpoints must be 0 or positive")
	}
	budget, err := serverMemoryBudget(*memLimit)
	if err != nil {
		return err
	}
	if soft, ok := setGoMemoryLimit(budget); ok {
		logger.Info("Go runtime soft memory limit set from --memory-limit", "gomemlimit", soft)
	}
	popts := planner.Options{MaxStatementBytes: *maxStmt, MaxExpressionDepth: *maxDepth, MaxRecursion: *maxRecursion, Memory: budget}
	if popts.Spill, err = spillOptions(*spillDir, *spillLimit); err != nil {
		return err
	}
	if *keyFile != "" {
		cfg.TokenKeyFile = *keyFile
	} else {
		cfg.TokenKey = make([]byte, 32)
		if _, err := rand.Read(cfg.TokenKey); err != nil {
			return err
		}
	}
	if !cfg.NoAuth && cfg.UsersFile == "" && cfg.OIDC == nil {
		if !isLoopback(*listen) {
			return fmt.Errorf("listening on %s without --users: pass --users FILE, or --no-auth to accept everyone", *listen)
		}
		cfg.NoAuth = true
		logger.Warn("no --users file: authentication disabled (loopback only)")
	}
	srv, err := newFlightServer(cfg, cat, popts)
	if err != nil {
		return err
	}
	lis, err := net.Listen("tcp", *listen)
	if err != nil {
		return err
	}
	stopHUP := reloadOnSIGHUP(srv, logger) // before the banner: once it is out, SIGHUP is safe
	defer stopHUP()
	scheme := "grpc"
	if *tlsCert != "" {
		scheme = "grpc+tls"
	}
	logger.Info("serving Flight SQL", "warehouse", dir, "listen", lis.Addr().String(), "tls", *tlsCert != "", "memory_limit", budget.Limit())
	fmt.Fprintf(stdout, "paimon-flightsql serving %s on %s://%s\n", dir, scheme, lis.Addr())
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(lis) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), *shutdownTimeout)
		defer cancel()
		logger.Info("shutting down", "drain", shutdownTimeout.String())
		if err := srv.Shutdown(sctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
			return err
		}
		return nil
	}
}

func isLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// reloadOnSIGHUP re-reads the users and key files on SIGHUP until the
// returned function is called.
func reloadOnSIGHUP(srv *flightsql.Server, logger *slog.Logger) func() {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGHUP)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-done:
				return
			case <-ch:
				if err := srv.Reload(); err != nil {
					logger.Error("SIGHUP: reloading credentials failed", "error", err)
				} else {
					logger.Info("SIGHUP: credentials reloaded")
				}
			}
		}
	}()
	return func() {
		signal.Stop(ch)
		close(done)
	}
}

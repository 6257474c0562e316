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
	"strings"
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
	cfg.ErrorCodes = append(cfg.ErrorCodes, flightsql.ErrorCode{Err: paimon.ErrCorrupt, Code: codes.DataLoss})
	if cfg.ServerVersion == "" {
		cfg.ServerVersion = version
	}
	catName := cfg.Catalog
	if catName == "" {
		catName = "paimon"
	}
	return flightsql.NewServer(cfg, flightsql.PlannerEngine(planner.New(cat, planner.Options{CatalogName: catName, Version: cfg.ServerVersion})), cat)
}

func runServe(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	warehouse := fs.String("warehouse", "", "warehouse `directory` to serve")
	demo := fs.Bool("demo", false, "serve the demo warehouse (built on first run in --data-dir)")
	dataDir := fs.String("data-dir", defaultDemoDir(), "`directory` of the demo warehouse")
	demoScale := fs.Float64("demo-scale", defaultDemoScale, "lineitem size of a newly built demo warehouse (1 → ~1M rows)")
	listen := fs.String("listen", "127.0.0.1:32010", "listen `address`")
	noAuth := fs.Bool("no-auth", false, "accept every client without authentication (default when listening on loopback without --users)")
	users := fs.String("users", "", "users `file`: lines of user:bcrypt-hash[:readonly]")
	keyFile := fs.String("token-key-file", "", "`file` with the key that signs tokens and tickets (share it across nodes; random per process by default)")
	tlsCert := fs.String("tls-cert", "", "TLS certificate `file`")
	tlsKey := fs.String("tls-key", "", "TLS private key `file`")
	clientCA := fs.String("tls-client-ca", "", "CA `file` for client certificates (enables mTLS)")
	metrics := fs.String("metrics", "", "serve Prometheus metrics on this `address` (e.g. 127.0.0.1:9090)")
	timeout := fs.Duration("query-timeout", 0, "per-query `timeout` (0 = none)")
	maxEndpoints := fs.Int("max-endpoints", 0, "at most `N` endpoints per result (0 = one per partition); results under --endpoint-mib get one")
	endpointMiB := fs.Int64("endpoint-mib", flightsql.DefaultEndpointBytes>>20, "estimated result `MiB` per endpoint: smaller results get one endpoint (-1 = one per partition)")
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
			if err := buildDemo(ctx, dir, *demoScale, stderr); err != nil {
				return err
			}
		}
	case dir == "":
		fs.Usage()
		return errUsage
	}
	cat, err := openCatalog(dir, catOpts)
	if err != nil {
		return err
	}
	cfg := flightsql.Config{
		Addr: *listen, UsersFile: *users, NoAuth: *noAuth,
		TLSCertFile: *tlsCert, TLSKeyFile: *tlsKey, ClientCAFile: *clientCA,
		MetricsAddr: *metrics, QueryTimeout: *timeout, Logger: logger,
		MaxEndpoints: *maxEndpoints, EndpointBytes: *endpointMiB << 20,
	}
	if *maxEndpoints < 0 {
		return errors.New("--max-endpoints must be 0 or positive")
	}
	if *keyFile != "" {
		k, err := os.ReadFile(*keyFile)
		if err != nil {
			return fmt.Errorf("token key: %w", err)
		}
		cfg.TokenKey = []byte(strings.TrimSpace(string(k)))
	} else {
		cfg.TokenKey = make([]byte, 32)
		if _, err := rand.Read(cfg.TokenKey); err != nil {
			return err
		}
	}
	if !cfg.NoAuth && cfg.UsersFile == "" {
		if !isLoopback(*listen) {
			return fmt.Errorf("listening on %s without --users: pass --users FILE, or --no-auth to accept everyone", *listen)
		}
		cfg.NoAuth = true
		logger.Warn("no --users file: authentication disabled (loopback only)")
	}
	srv, err := NewFlightServer(cfg, cat)
	if err != nil {
		return err
	}
	lis, err := net.Listen("tcp", *listen)
	if err != nil {
		return err
	}
	logger.Info("serving Flight SQL", "warehouse", dir, "listen", lis.Addr().String(), "tls", *tlsCert != "")
	fmt.Fprintf(stdout, "paimon-flightsql serving %s on grpc://%s\n", dir, lis.Addr())
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(lis) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		logger.Info("shutting down")
		return srv.Shutdown(sctx)
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

package flightsql

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	pb "github.com/apache/arrow-go/v18/arrow/flight/gen/flight"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
)

// Server is a Flight SQL server over an Engine and a Catalog.
type Server struct {
	cfg      Config
	eng      Engine
	cat      catalog.Catalog
	mem      memory.Allocator
	log      *slog.Logger
	sign     signer
	auth     *authenticator
	sessions *sessionStore
	queries  *queryRegistry
	plans    *planCache
	metrics  *metrics

	admission *admission // nil = unlimited
	queued    atomic.Int64

	grpc    *grpc.Server
	sql     *sqlServer
	mu      sync.Mutex
	httpSrv *http.Server
	httpLis net.Listener
	// stopReload ends the users/key file watcher (nil when not running).
	stopReload chan struct{}
	// health is the gRPC health service peers probe; peers spreads
	// endpoints across nodes (nil without Config.Peers/PeersFile).
	health *health.Server
	peers  *peerSet
}

// Reload re-reads the users file and the token key file now (the server
// also polls them every Config.ReloadInterval; cmd serve calls Reload on
// SIGHUP). A file that fails to load leaves the previous users or key in
// force and is reported in the error.
func (s *Server) Reload() error { return s.auth.reload() }

func (s *Server) startReloader() {
	if s.cfg.ReloadInterval < 0 || (s.cfg.UsersFile == "" && s.cfg.TokenKeyFile == "") {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopReload != nil {
		return
	}
	stop := make(chan struct{})
	s.stopReload = stop
	go func() {
		t := time.NewTicker(s.cfg.ReloadInterval)
		defer t.Stop()
		last := "" // log a failure once, not at every poll
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				err := s.auth.reload()
				switch {
				case err != nil && err.Error() != last:
					s.log.Error("reloading credentials failed", "error", err)
					last = err.Error()
				case err == nil && last != "":
					s.log.Info("credentials files readable again")
					last = ""
				}
			}
		}
	}()
}

// NewServer validates cfg and builds a server. Call Serve to accept
// connections.
func NewServer(cfg Config, eng Engine, cat catalog.Catalog) (*Server, error) {
	if eng == nil || cat == nil {
		return nil, errors.New("flightsql: NewServer needs an engine and a catalog")
	}
	cfg.setDefaults()
	s := &Server{
		cfg: cfg, eng: eng, cat: cat, mem: cfg.Allocator, log: cfg.Logger,
		sessions: newSessionStore(cfg.SessionTTL), queries: newQueryRegistry(), metrics: newMetrics(),
		plans: newPlanCache(cfg.Allocator, cfg.PlanCacheEntries, planCacheTTL),
	}
	if cfg.MaxConcurrentQueries > 0 {
		s.admission = newAdmission(cfg.MaxConcurrentQueries, cfg.QueueTimeout)
	}
	key := cfg.TokenKey
	if cfg.TokenKeyFile != "" {
		data, err := os.ReadFile(cfg.TokenKeyFile)
		if err != nil {
			return nil, fmt.Errorf("token key file: %w", err)
		}
		if key, err = parseKey(cfg.TokenKeyFile, data); err != nil {
			return nil, err
		}
	}
	if len(key) == 0 {
		key = make([]byte, 32)
		if _, err := rand.Read(key); err != nil {
			return nil, err
		}
		s.log.Warn("no token signing key configured: using a random key, so tokens, tickets and prepared statements are valid on this process only")
	} else if len(key) < 16 {
		return nil, fmt.Errorf("token signing key is %d bytes; use at least 16 (32 recommended)", len(key))
	}
	s.sign = newSigner(key)
	var err error
	if s.auth, err = newAuthenticator(&s.cfg, s.sign, s.log); err != nil {
		return nil, err
	}
	if cfg.TokenKeyFile != "" {
		data, _ := os.ReadFile(cfg.TokenKeyFile)
		s.auth.keySum = sha256.Sum256(data)
	}
	tlsCfg, err := s.cfg.tlsConfig()
	if err != nil {
		return nil, err
	}

	s.sql = &sqlServer{s: s}
	s.sql.Alloc = s.mem
	if err := s.sql.registerSqlInfo(); err != nil {
		return nil, err
	}
	codec, err := newWireCodec()
	if err != nil {
		return nil, err
	}
	opts := []grpc.ServerOption{
		grpc.ForceServerCodecV2(codec),
		grpc.ChainUnaryInterceptor(s.observeUnary, s.recoverUnary, s.authUnary),
		grpc.ChainStreamInterceptor(s.observeStream, s.recoverStream, s.authStream),
		grpc.MaxRecvMsgSize(64 << 20),
		// Results are large: frame them into 1 MiB socket writes instead of
		// gRPC's default 32 KiB (one syscall per two HTTP/2 frames), which
		// was a quarter of a loopback stream's CPU (docs/benchmarks.md).
		grpc.WriteBufferSize(writeBufferSize),
	}
	if tlsCfg != nil {
		opts = append(opts, grpc.Creds(credentials.NewTLS(tlsCfg)))
	}
	s.grpc = grpc.NewServer(opts...)
	if s.peers, err = newPeerSet(&s.cfg, tlsCfg, s.log.Info); err != nil {
		return nil, err
	}
	s.health = health.NewServer()
	healthpb.RegisterHealthServer(s.grpc, s.health)
	svc := &flightService{FlightServer: flightsql.NewFlightServerWithAllocator(s.sql, s.mem), s: s}
	flight.RegisterFlightServiceServer(s.grpc, svc)
	return s, nil
}

// Serve accepts Flight SQL connections on lis until Shutdown. When
// Config.MetricsAddr is set it also serves /metrics there.
func (s *Server) Serve(lis net.Listener) error {
	if s.cfg.MetricsAddr != "" {
		if err := s.startMetrics(); err != nil {
			return err
		}
	}
	s.startReloader()
	s.startPeers()
	s.log.Info("flight sql server listening", "addr", lis.Addr().String(), "tls", s.cfg.TLSCertFile != "", "auth", !s.cfg.NoAuth, "catalog", s.cfg.Catalog)
	err := s.grpc.Serve(lis)
	if errors.Is(err, grpc.ErrServerStopped) {
		return nil
	}
	return err
}

// ListenAndServe listens on Config.Addr and serves.
func (s *Server) ListenAndServe() error {
	lis, err := net.Listen("tcp", s.cfg.Addr)
	if err != nil {
		return err
	}
	return s.Serve(lis)
}

func (s *Server) startMetrics() error {
	lis, err := net.Listen("tcp", s.cfg.MetricsAddr)
	if err != nil {
		return fmt.Errorf("metrics listener: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", s.MetricsHandler())
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	s.mu.Lock()
	s.httpSrv, s.httpLis = srv, lis
	s.mu.Unlock()
	go func() {
		if err := srv.Serve(lis); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.log.Error("metrics server failed", "error", err)
		}
	}()
	s.log.Info("metrics listening", "addr", lis.Addr().String())
	return nil
}

// MetricsAddr returns the bound metrics address (nil until Serve started it).
func (s *Server) MetricsAddr() net.Addr {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.httpLis == nil {
		return nil
	}
	return s.httpLis.Addr()
}

// MetricsHandler serves the Prometheus text exposition of the server's metrics.
func (s *Server) MetricsHandler() http.Handler {
	return s.metrics.handler()
}

// Shutdown stops accepting calls and waits for running ones until ctx is
// done (drain), then cancels them, closes every connection and returns
// after at most a short grace (handlers that ignore cancellation are left
// behind rather than waited for: the process can exit).
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	httpSrv := s.httpSrv
	if s.stopReload != nil {
		close(s.stopReload)
		s.stopReload = nil
	}
	s.mu.Unlock()
	s.health.Shutdown() // peers stop naming this node while it drains
	s.stopPeers()
	if httpSrv != nil {
		_ = httpSrv.Shutdown(ctx)
	}
	done := make(chan struct{})
	go func() {
		s.grpc.GracefulStop()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		s.log.Warn("shutdown: drain time is up, cancelling running calls", "running", s.Running(), "queued", s.Queued())
		stopped := make(chan struct{})
		go func() {
			s.grpc.Stop()
			close(stopped)
		}()
		t := time.NewTimer(shutdownGrace)
		defer t.Stop()
		select {
		case <-done:
		case <-stopped:
		case <-t.C:
			s.log.Warn("shutdown: calls still running after cancellation; exiting without them")
		}
		return ctx.Err()
	}
}

// shutdownGrace is how long Shutdown waits for cancelled calls to return.
const shutdownGrace = 2 * time.Second

// flightService wraps arrow-go's Flight SQL router to serve query results
// itself (IPC compression, stateless tickets, metrics, view conversion) and
// to advertise the session actions.
type flightService struct {
	flight.FlightServer
	s *Server
}

func (f *flightService) DoGet(req *flight.Ticket, stream flight.FlightService_DoGetServer) error {
	var anyCmd anypb.Any
	if err := proto.Unmarshal(req.GetTicket(), &anyCmd); err != nil {
		return status.Errorf(codes.InvalidArgument, "ticket is not a Flight SQL ticket: %v", err)
	}
	msg, err := anyCmd.UnmarshalNew()
	if err != nil {
		return status.Errorf(codes.InvalidArgument, "ticket holds unknown message %s: %v", anyCmd.GetTypeUrl(), err)
	}
	switch cmd := msg.(type) {
	case *pb.TicketStatementQuery:
		return f.s.doGetTicket(stream, cmd.GetStatementHandle())
	case *pb.CommandPreparedStatementQuery:
		return f.s.doGetPrepared(stream, cmd.GetPreparedStatementHandle())
	}
	noteCommand(stream.Context(), "DoGet "+string(msg.ProtoReflect().Descriptor().Name()), "")
	return f.FlightServer.DoGet(req, stream)
}

func (f *flightService) ListActions(_ *flight.Empty, stream flight.FlightService_ListActionsServer) error {
	for _, a := range []string{
		flightsql.CreatePreparedStatementActionType,
		flightsql.ClosePreparedStatementActionType,
		flight.CancelFlightInfoActionType,
		flightsql.CancelQueryActionType,
		flight.SetSessionOptionsActionType,
		flight.GetSessionOptionsActionType,
		flight.CloseSessionActionType,
		flight.RenewFlightEndpointActionType,
	} {
		if err := stream.Send(&flight.ActionType{Type: a}); err != nil {
			return err
		}
	}
	return nil
}

// writeBufferSize is the gRPC transport's write buffer per connection.
const writeBufferSize = 1 << 20

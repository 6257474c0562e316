package flightsql

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"
)

// callInfo collects what handlers learn about an RPC, for its log line.
type callInfo struct {
	mu      sync.Mutex
	user    string
	command string
	query   string
	rows    int64
	bytes   int64
	qid     string // query id (recover.go): assigned at the start, a DoGet's from its ticket
}

type callInfoKey struct{}

func callInfoFrom(ctx context.Context) *callInfo {
	ci, _ := ctx.Value(callInfoKey{}).(*callInfo)
	return ci
}

func (s *Server) noteUser(ctx context.Context, user string) {
	if ci := callInfoFrom(ctx); ci != nil {
		ci.mu.Lock()
		ci.user = user
		ci.mu.Unlock()
	}
}

// noteCommand records the Flight SQL command and SQL text of a call.
func noteCommand(ctx context.Context, command, query string) {
	if ci := callInfoFrom(ctx); ci != nil {
		ci.mu.Lock()
		ci.command = command
		if query != "" {
			ci.query = query
		}
		ci.mu.Unlock()
	}
}

func noteTransfer(ctx context.Context, rows, bytes int64) {
	if ci := callInfoFrom(ctx); ci != nil {
		ci.mu.Lock()
		ci.rows += rows
		ci.bytes += bytes
		ci.mu.Unlock()
	}
}

func methodName(full string) string {
	return full[strings.LastIndexByte(full, '/')+1:]
}

// finish logs one line and updates the RPC metrics.
func (s *Server) finish(ctx context.Context, method string, start time.Time, ci *callInfo, err error) {
	d := time.Since(start)
	code := status.Code(err)
	s.metrics.observeRPC(method, code.String(), d, err != nil)
	ci.mu.Lock()
	attrs := []slog.Attr{
		slog.String("method", method),
		slog.String("code", code.String()),
		slog.Duration("duration", d),
		slog.String("user", ci.user),
	}
	if p, ok := peer.FromContext(ctx); ok && p.Addr != nil {
		attrs = append(attrs, slog.String("peer", p.Addr.String()))
	}
	if ci.qid != "" {
		attrs = append(attrs, slog.String("qid", ci.qid))
	}
	if ci.command != "" {
		attrs = append(attrs, slog.String("command", ci.command))
	}
	if ci.query != "" {
		q := ci.query
		if len(q) > 500 {
			q = q[:500] + "…"
		}
		attrs = append(attrs, slog.String("sql", q))
	}
	if ci.rows > 0 || ci.bytes > 0 {
		attrs = append(attrs, slog.Int64("rows", ci.rows), slog.Int64("bytes", ci.bytes))
	}
	ci.mu.Unlock()
	level := slog.LevelInfo
	if err != nil {
		attrs = append(attrs, slog.String("error", status.Convert(err).Message()))
		level = slog.LevelWarn
	}
	s.log.LogAttrs(context.Background(), level, "rpc", attrs...)
}

func (s *Server) observeUnary(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	if strings.HasPrefix(info.FullMethod, healthMethodPrefix) {
		return handler(ctx, req) // a probe every few seconds per peer: not logged
	}
	start := time.Now()
	ci := &callInfo{qid: newQueryID()}
	ctx = context.WithValue(ctx, callInfoKey{}, ci)
	resp, err := handler(ctx, req)
	s.finish(ctx, methodName(info.FullMethod), start, ci, err)
	return resp, err
}

func (s *Server) observeStream(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
	if strings.HasPrefix(info.FullMethod, healthMethodPrefix) {
		return handler(srv, ss)
	}
	start := time.Now()
	ci := &callInfo{qid: newQueryID()}
	ctx := context.WithValue(ss.Context(), callInfoKey{}, ci)
	err := handler(srv, &ctxStream{ServerStream: ss, ctx: ctx})
	s.finish(ctx, methodName(info.FullMethod), start, ci, err)
	return err
}

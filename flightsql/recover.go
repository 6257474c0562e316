package flightsql

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/paimon-flightsql/paimon-flightsql/internal/panics"
)

// Panic safety: recoverUnary and recoverStream turn a panic in a handler
// into codes.Internal, and the goroutines a query starts (operators, scan
// workers, manifest readers) turn theirs into errors matching
// panics.ErrPanic that travel back like any other error. Either way the
// client gets an Internal error naming the query id (the same id the
// server's log line carries, with the stack), and the process keeps
// serving.

// queryIDOf returns the query id of the call: the ticket's for a DoGet,
// else the one assigned when the call started.
func queryIDOf(ctx context.Context) string {
	if ci := callInfoFrom(ctx); ci != nil {
		ci.mu.Lock()
		defer ci.mu.Unlock()
		return ci.qid
	}
	return ""
}

// noteQueryID records the query id of the call (a DoGet's ticket).
func noteQueryID(ctx context.Context, qid string) {
	if ci := callInfoFrom(ctx); ci != nil && qid != "" {
		ci.mu.Lock()
		ci.qid = qid
		ci.mu.Unlock()
	}
}

func (s *Server) panicStatus(ctx context.Context, method string, r any) error {
	err := panics.Recovered(method, r)
	qid := queryIDOf(ctx)
	s.log.Error("panic in RPC handler", "method", method, "qid", qid, "panic", fmt.Sprint(r), "stack", string(panics.Stack(err)))
	return status.Errorf(codes.Internal, "internal error in query %s (%s): panic: %v; the server logged the details and keeps serving", qid, method, r)
}

// withQueryID makes an Internal error name the query id, and logs the stack
// of a panic recovered in one of the query's goroutines.
func (s *Server) withQueryID(ctx context.Context, method string, err error) error {
	if err == nil {
		return nil
	}
	st, ok := status.FromError(err)
	if !ok || st.Code() != codes.Internal {
		return err
	}
	qid := queryIDOf(ctx)
	if qid == "" || strings.Contains(st.Message(), qid) {
		return err
	}
	return status.Errorf(codes.Internal, "query %s: %s", qid, st.Message())
}

func (s *Server) recoverUnary(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (resp any, err error) {
	method := methodName(info.FullMethod)
	defer func() {
		if r := recover(); r != nil {
			resp, err = nil, s.panicStatus(ctx, method, r)
		}
	}()
	resp, err = handler(ctx, req)
	return resp, s.withQueryID(ctx, method, err)
}

func (s *Server) recoverStream(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) (err error) {
	method := methodName(info.FullMethod)
	ctx := ss.Context()
	defer func() {
		if r := recover(); r != nil {
			err = s.panicStatus(ctx, method, r)
		}
	}()
	return s.withQueryID(ctx, method, handler(srv, ss))
}

// logPanic logs the stack of a panic recovered in a query goroutine when
// its error is converted to a status (the stack never reaches the client).
func (s *Server) logPanic(err error) {
	var pe *panics.Error
	if errors.As(err, &pe) {
		s.log.Error("panic in query goroutine", "where", pe.Where, "panic", fmt.Sprint(pe.Value), "stack", string(pe.Stack))
	}
}

// newQueryID returns a fresh query id (16 random bytes, hex).
func newQueryID() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("crypto/rand failed: " + err.Error())
	}
	return hex.EncodeToString(b[:])
}

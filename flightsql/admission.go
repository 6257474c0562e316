package flightsql

import (
	"context"
	"fmt"
	"runtime"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Admission control: at most Config.MaxConcurrentQueries statements plan or
// stream at once; the others wait in a queue for at most QueueTimeout and
// then fail with ResourceExhausted. A DoGet holds its slot for the whole
// stream (planning included), so a client that opens streams and stops
// reading them holds slots, not an unbounded share of the server.

type admission struct {
	slots   chan struct{}
	timeout time.Duration
}

func newAdmission(n int, timeout time.Duration) *admission {
	return &admission{slots: make(chan struct{}, n), timeout: timeout}
}

type admittedKey struct{}

// admit takes a slot for the call in ctx (once per call: nested calls with
// the returned context take none). release must be called when the
// statement is done.
func (s *Server) admit(ctx context.Context) (context.Context, func(), error) {
	a := s.admission
	if a == nil || ctx.Value(admittedKey{}) != nil {
		return ctx, func() {}, nil
	}
	actx := context.WithValue(ctx, admittedKey{}, true)
	select {
	case a.slots <- struct{}{}:
		return actx, a.release, nil
	default:
	}
	s.queued.Add(1)
	defer s.queued.Add(-1)
	t := time.NewTimer(a.timeout)
	defer t.Stop()
	select {
	case a.slots <- struct{}{}:
		return actx, a.release, nil
	case <-ctx.Done():
		return nil, nil, status.FromContextError(ctx.Err()).Err()
	case <-t.C:
		return nil, nil, status.Error(codes.ResourceExhausted, fmt.Sprintf(
			"server busy: %d queries running (--max-concurrent-queries) and this one waited %s in the queue (--queue-timeout); retry later",
			cap(a.slots), a.timeout))
	}
}

func (a *admission) release() { <-a.slots }

// Running is the number of admitted statements; Queued those waiting.
func (s *Server) Running() int {
	if s.admission == nil {
		return 0
	}
	return len(s.admission.slots)
}

// Queued is the number of statements waiting for a slot.
func (s *Server) Queued() int { return int(s.queued.Load()) }

func defaultMaxConcurrentQueries() int { return max(8, 4*runtime.GOMAXPROCS(0)) }

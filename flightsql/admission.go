package flightsql

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	pmetrics "github.com/paimon-flightsql/paimon-flightsql/internal/metrics"
)

// Admission control: at most Config.MaxConcurrentQueries statements plan or
// stream at once; the others wait in a queue for at most QueueTimeout and
// then fail with ResourceExhausted. A DoGet holds its slot for the whole
// stream (planning included), so a client that opens streams and stops
// reading them holds slots, not an unbounded share of the server.

type admission struct {
	slots   chan struct{}
	timeout time.Duration

	// The DoGets of one query share its slot: clients such as ADBC open
	// every endpoint at once and read them in order, which would deadlock
	// if endpoint 0 waited behind endpoints holding slots of the same query.
	mu      sync.Mutex
	queries map[string]*admitted
}

type admitted struct{ refs int }

func newAdmission(n int, timeout time.Duration) *admission {
	return &admission{slots: make(chan struct{}, n), timeout: timeout, queries: map[string]*admitted{}}
}

type admittedKey struct{}

// admit takes a slot for the call in ctx (once per call: nested calls with
// the returned context take none). release must be called when the
// statement is done.
func (s *Server) admit(ctx context.Context) (context.Context, func(), error) {
	return s.admitQuery(ctx, "")
}

// admitQuery is admit for a stream of query qid: streams of one query
// share one slot, taken by the first and released by the last.
func (s *Server) admitQuery(ctx context.Context, qid string) (context.Context, func(), error) {
	a := s.admission
	if a == nil || ctx.Value(admittedKey{}) != nil {
		return ctx, func() {}, nil
	}
	actx := context.WithValue(ctx, admittedKey{}, true)
	if qid != "" {
		a.mu.Lock()
		if q := a.queries[qid]; q != nil {
			q.refs++
			a.mu.Unlock()
			return actx, func() { a.leave(qid) }, nil
		}
		a.mu.Unlock()
		if err := s.takeSlot(ctx); err != nil {
			return nil, nil, err
		}
		a.mu.Lock()
		defer a.mu.Unlock()
		if q := a.queries[qid]; q != nil { // another stream of the query got in meanwhile
			q.refs++
			a.release()
		} else {
			a.queries[qid] = &admitted{refs: 1}
		}
		return actx, func() { a.leave(qid) }, nil
	}
	if err := s.takeSlot(ctx); err != nil {
		return nil, nil, err
	}
	return actx, a.release, nil
}

func (a *admission) leave(qid string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	q := a.queries[qid]
	if q == nil {
		return
	}
	if q.refs--; q.refs == 0 {
		delete(a.queries, qid)
		a.release()
	}
}

// takeSlot waits for a free slot for at most the queue timeout.
func (s *Server) takeSlot(ctx context.Context) error {
	a := s.admission
	select {
	case a.slots <- struct{}{}:
		pmetrics.QueriesRunning.Inc()
		return nil
	default:
	}
	s.queued.Add(1)
	pmetrics.QueueLength.Inc()
	defer func() {
		s.queued.Add(-1)
		pmetrics.QueueLength.Dec()
	}()
	t := time.NewTimer(a.timeout)
	defer t.Stop()
	select {
	case a.slots <- struct{}{}:
		pmetrics.QueriesRunning.Inc()
		return nil
	case <-ctx.Done():
		return status.FromContextError(ctx.Err()).Err()
	case <-t.C:
		pmetrics.AdmissionRejected.Inc()
		return status.Error(codes.ResourceExhausted, fmt.Sprintf(
			"server busy: %d queries running (--max-concurrent-queries) and this one waited %s in the queue (--queue-timeout); retry later",
			cap(a.slots), a.timeout))
	}
}

func (a *admission) release() {
	<-a.slots
	pmetrics.QueriesRunning.Dec()
}

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

package flightsql

import (
	"context"
	"errors"
	"sync"
	"time"
)

// errCancelledByClient is the cause of contexts cancelled by CancelFlightInfo.
var errCancelledByClient = errors.New("query cancelled by CancelFlightInfo")

// queryRegistry tracks running DoGet streams by query id so that
// CancelFlightInfo can stop them, and remembers cancelled ids (until their
// tickets expire) so that endpoints fetched later fail fast. It is local to
// one node; tickets stay stateless.
type queryRegistry struct {
	mu        sync.Mutex
	running   map[string]map[*runningQuery]struct{}
	cancelled map[string]time.Time // query id → forget after
}

type runningQuery struct {
	cancel context.CancelCauseFunc
}

func newQueryRegistry() *queryRegistry {
	return &queryRegistry{running: map[string]map[*runningQuery]struct{}{}, cancelled: map[string]time.Time{}}
}

// begin registers a stream of query qid. The returned context is cancelled
// with errCancelledByClient by cancel(qid); done must be called when the
// stream ends.
func (r *queryRegistry) begin(ctx context.Context, qid string) (context.Context, func(), error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.cancelled[qid]; ok {
		return nil, nil, errCancelledByClient
	}
	cctx, cancel := context.WithCancelCause(ctx)
	rq := &runningQuery{cancel: cancel}
	set := r.running[qid]
	if set == nil {
		set = map[*runningQuery]struct{}{}
		r.running[qid] = set
	}
	set[rq] = struct{}{}
	return cctx, func() {
		r.mu.Lock()
		delete(set, rq)
		if len(set) == 0 && r.running[qid] != nil && len(r.running[qid]) == 0 {
			delete(r.running, qid)
		}
		r.mu.Unlock()
		cancel(nil)
	}, nil
}

// cancel stops every running stream of qid and rejects later ones until
// until. It returns how many streams were running.
func (r *queryRegistry) cancel(qid string, until time.Time) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := time.Now()
	for id, t := range r.cancelled {
		if now.After(t) {
			delete(r.cancelled, id)
		}
	}
	r.cancelled[qid] = until
	n := 0
	for rq := range r.running[qid] {
		rq.cancel(errCancelledByClient)
		n++
	}
	return n
}

// active returns the number of registered streams.
func (r *queryRegistry) active() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, set := range r.running {
		n += len(set)
	}
	return n
}

// isCancelled reports whether qid was cancelled on this node (and its
// tickets have not expired since).
func (r *queryRegistry) isCancelled(qid string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	t, ok := r.cancelled[qid]
	return ok && time.Now().Before(t)
}

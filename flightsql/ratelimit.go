package flightsql

import (
	"fmt"
	"math"
	"sync"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/durationpb"
)

// loginLimiter rate-limits password attempts with token buckets, one per
// user name and one per client address: an attempt takes a token from
// both (before bcrypt runs, so a flood costs no CPU), a successful one
// gives them back. Each bucket holds burst tokens and regains one per
// every. Full buckets are forgotten, so the maps hold only users and
// addresses that failed recently; past maxBuckets entries the limiter
// falls back to one shared bucket per kind (failing closed for new names,
// never growing without bound).
type loginLimiter struct {
	burst float64
	every time.Duration

	mu        sync.Mutex
	buckets   map[string]*bucket
	lastSweep time.Time
}

type bucket struct {
	tokens float64
	last   time.Time
}

const maxLimiterBuckets = 100_000

func newLoginLimiter(burst int, every time.Duration) *loginLimiter {
	if burst <= 0 {
		return nil
	}
	return &loginLimiter{burst: float64(burst), every: every, buckets: map[string]*bucket{}}
}

func (l *loginLimiter) refill(b *bucket, now time.Time) {
	if d := now.Sub(b.last); d > 0 {
		b.tokens = math.Min(l.burst, b.tokens+float64(d)/float64(l.every))
		b.last = now
	}
}

func (l *loginLimiter) get(key string, now time.Time) *bucket {
	b := l.buckets[key]
	if b == nil {
		if len(l.buckets) >= maxLimiterBuckets && now.Sub(l.lastSweep) >= time.Second {
			l.sweep(now) // at most once a second: a sweep walks every bucket
		}
		if len(l.buckets) >= maxLimiterBuckets {
			key = key[:2] + "*overflow*"
			if b = l.buckets[key]; b != nil {
				return b
			}
		}
		b = &bucket{tokens: l.burst, last: now}
		l.buckets[key] = b
	}
	return b
}

// sweep drops buckets that have refilled completely.
func (l *loginLimiter) sweep(now time.Time) {
	l.lastSweep = now
	for k, b := range l.buckets {
		if l.refill(b, now); b.tokens >= l.burst {
			delete(l.buckets, k)
		}
	}
}

// take spends one attempt of user from addr, or returns a ResourceExhausted
// status with the wait in a RetryInfo detail.
func (l *loginLimiter) take(user, addr string, now time.Time) error {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	keys := []string{"u:" + user, "a:" + addr}
	bs := make([]*bucket, len(keys))
	for i, k := range keys {
		bs[i] = l.get(k, now)
		l.refill(bs[i], now)
	}
	for i, b := range bs {
		if b.tokens < 1 {
			wait := time.Duration((1 - b.tokens) * float64(l.every)).Round(time.Millisecond)
			what := fmt.Sprintf("for user %q", user)
			if i == 1 {
				what = "from client address " + addr
			}
			st := status.New(codes.ResourceExhausted, fmt.Sprintf("too many failed logins %s; retry in %s", what, wait))
			if d, err := st.WithDetails(&errdetails.RetryInfo{RetryDelay: durationpb.New(wait)}); err == nil {
				st = d
			}
			return st.Err()
		}
	}
	for _, b := range bs {
		b.tokens--
	}
	return nil
}

// refund returns the attempt of a successful login.
func (l *loginLimiter) refund(user, addr string, now time.Time) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, k := range []string{"u:" + user, "a:" + addr} {
		if b := l.buckets[k]; b != nil {
			l.refill(b, now)
			if b.tokens = math.Min(l.burst, b.tokens+1); b.tokens >= l.burst {
				delete(l.buckets, k)
			}
		}
	}
}

package flightsql

import (
	"fmt"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

func TestLoginLimiterPerUserAcrossAddresses(t *testing.T) {
	l := newLoginLimiter(2, time.Minute)
	now := time.Unix(1000, 0)
	// A password-spraying client changes address: the user's bucket stops it.
	for i := range 2 {
		if err := l.take("alice", fmt.Sprintf("10.0.0.%d", i), now); err != nil {
			t.Fatal(err)
		}
	}
	err := l.take("alice", "10.0.0.9", now)
	if status.Code(err) != codes.ResourceExhausted {
		t.Fatalf("third attempt: %v", err)
	}
	if msg := status.Convert(err).Message(); msg != `too many failed logins for user "alice"; retry in 1m0s` {
		t.Fatalf("message %q", msg)
	}
	// Other users from fresh addresses are unaffected; half the interval
	// regains half an attempt (not enough), a whole one regains one.
	if err := l.take("bob", "10.0.1.1", now); err != nil {
		t.Fatal(err)
	}
	if err := l.take("alice", "10.0.0.9", now.Add(30*time.Second)); status.Code(err) != codes.ResourceExhausted {
		t.Fatalf("after 30s: %v", err)
	}
	if err := l.take("alice", "10.0.0.9", now.Add(time.Minute)); err != nil {
		t.Fatalf("after 1m: %v", err)
	}
	// Refunds remove full buckets: memory holds only recent failures.
	l.refund("bob", "10.0.1.1", now)
	if _, ok := l.buckets["u:bob"]; ok {
		t.Fatal("bob's full bucket kept")
	}
}

func TestLoginLimiterBoundsMemory(t *testing.T) {
	l := newLoginLimiter(1, time.Hour)
	now := time.Unix(1000, 0)
	for i := range maxLimiterBuckets + 10 {
		_ = l.take(fmt.Sprintf("user%d", i), fmt.Sprintf("addr%d", i), now)
	}
	if n := len(l.buckets); n > maxLimiterBuckets+2 {
		t.Fatalf("%d buckets", n)
	}
	// New names past the bound share the overflow bucket (fail closed).
	if err := l.take("fresh-name", "10.0.0.2", now); status.Code(err) != codes.ResourceExhausted {
		t.Fatalf("overflow: %v", err)
	}
}

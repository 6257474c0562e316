package flightsql

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// A slow JWKS refetch (triggered by an unknown kid) does not hold up
// tokens whose key is already known.
func TestJWKSFetchDoesNotBlockKnownKeys(t *testing.T) {
	ek, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	b64 := base64.RawURLEncoding.EncodeToString
	jwks, _ := json.Marshal(map[string]any{"keys": []map[string]string{{"kty": "EC", "kid": "k1", "crv": "P-256",
		"x": b64(ek.X.FillBytes(make([]byte, 32))), "y": b64(ek.Y.FillBytes(make([]byte, 32)))}}})
	var calls atomic.Int32
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if calls.Add(1) > 1 {
			<-release // every refetch hangs until the test lets it go
		}
		w.Write(jwks)
	}))
	defer srv.Close()
	defer close(release)
	v, err := newOIDCVerifier(OIDCConfig{Issuer: "https://idp", Audience: "a", JWKSURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	if _, err := v.key(context.Background(), "k1", now); err != nil {
		t.Fatal(err)
	}
	later := now.Add(time.Minute) // past jwksMinRefetch: an unknown kid refetches
	unknown := make(chan error, 1)
	go func() {
		_, err := v.key(context.Background(), "k2", later)
		unknown <- err
	}()
	for calls.Load() < 2 {
		time.Sleep(time.Millisecond)
	}
	start := time.Now()
	if _, err := v.key(context.Background(), "k1", later); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > time.Second {
		t.Fatalf("known key waited %v for the refetch", d)
	}
	// A caller that gives up while waiting for the fetch is released.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := v.key(ctx, "k3", later); err == nil {
		t.Fatal("unknown kid resolved while the fetch hangs")
	}
	release <- struct{}{}
	if err := <-unknown; err == nil || !strings.Contains(err.Error(), `unknown signing key "k2"`) {
		t.Fatalf("unknown kid: %v", err)
	}
}

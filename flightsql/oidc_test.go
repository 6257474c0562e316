package flightsql_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"log/slog"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"

	pfsql "github.com/paimon-flightsql/paimon-flightsql/flightsql"
	"github.com/paimon-flightsql/paimon-flightsql/flightsql/flightsqltest"
	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
)

const testIssuer = "https://idp.example.test/realms/lake"

// jwksServer serves a JWK Set with one RSA and one EC key on loopback,
// plus an OIDC discovery document.
type jwksServer struct {
	srv     *httptest.Server
	rsaKey  *rsa.PrivateKey
	ecKey   *ecdsa.PrivateKey
	fetches atomic.Int32
}

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

func newJWKSServer(t *testing.T) *jwksServer {
	t.Helper()
	rk, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	ek, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	j := &jwksServer{rsaKey: rk, ecKey: ek}
	keys := map[string]any{"keys": []map[string]string{
		{"kty": "RSA", "kid": "rsa-1", "use": "sig", "alg": "RS256",
			"n": b64(rk.N.Bytes()), "e": b64(big.NewInt(int64(rk.E)).Bytes())},
		{"kty": "EC", "kid": "ec-1", "use": "sig", "crv": "P-256",
			"x": b64(ek.X.FillBytes(make([]byte, 32))), "y": b64(ek.Y.FillBytes(make([]byte, 32)))},
		{"kty": "oct", "kid": "sym", "k": b64([]byte("not-a-public-key"))}, // skipped
	}}
	mux := http.NewServeMux()
	mux.HandleFunc("/jwks", func(w http.ResponseWriter, _ *http.Request) {
		j.fetches.Add(1)
		_ = json.NewEncoder(w).Encode(keys)
	})
	mux.HandleFunc("/.well-known/openid-configuration", func(w http.ResponseWriter, _ *http.Request) {
		_ = json.NewEncoder(w).Encode(map[string]string{"issuer": testIssuer, "jwks_uri": j.srv.URL + "/jwks"})
	})
	j.srv = httptest.NewServer(mux)
	t.Cleanup(j.srv.Close)
	return j
}

func (j *jwksServer) sign(t *testing.T, method jwt.SigningMethod, kid string, claims jwt.MapClaims) string {
	t.Helper()
	tok := jwt.NewWithClaims(method, claims)
	if kid != "" {
		tok.Header["kid"] = kid
	}
	var key any = j.rsaKey
	if _, ok := method.(*jwt.SigningMethodECDSA); ok {
		key = j.ecKey
	}
	s, err := tok.SignedString(key)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func claims(sub string, mutate func(jwt.MapClaims)) jwt.MapClaims {
	now := time.Now()
	c := jwt.MapClaims{"iss": testIssuer, "aud": []string{"paimon", "other"}, "sub": sub,
		"iat": now.Unix(), "exp": now.Add(time.Hour).Unix()}
	if mutate != nil {
		mutate(c)
	}
	return c
}

func TestOIDCBearerTokens(t *testing.T) {
	j := newJWKSServer(t)
	e := startServer(t, func(c *pfsql.Config) {
		c.NoAuth = false
		c.Users = []pfsql.User{{Name: "alice", PasswordHash: hash(t, "a")}}
		c.OIDC = &pfsql.OIDCConfig{Issuer: testIssuer, JWKSURL: j.srv.URL + "/jwks", Audience: "paimon",
			ReadOnlyClaim: "groups", ReadOnlyValue: "analysts"}
	})
	cl := e.client(t)
	bearer := func(tok string) context.Context {
		return metadata.AppendToOutgoingContext(context.Background(), "authorization", "Bearer "+tok)
	}

	// RSA: a writer.
	wctx := bearer(j.sign(t, jwt.SigningMethodRS256, "rsa-1", claims("erin", nil)))
	info, err := cl.Execute(wctx, "SELECT * FROM customers")
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := fetchAll(wctx, t, cl, info); n != 3 {
		t.Fatalf("rows %d", n)
	}
	if _, err := cl.ExecuteUpdate(wctx, "CALL sys.compact('default.orders')"); err != nil {
		t.Fatalf("OIDC writer: %v", err)
	}
	// EC, member of the read-only group.
	rctx := bearer(j.sign(t, jwt.SigningMethodES256, "ec-1", claims("ann", func(c jwt.MapClaims) {
		c["groups"] = []string{"staff", "analysts"}
	})))
	if _, err := cl.Execute(rctx, "SELECT * FROM orders"); err != nil {
		t.Fatal(err)
	}
	_, err = cl.ExecuteUpdate(rctx, "CALL sys.compact('default.orders')")
	wantCode(t, err, codes.PermissionDenied, `"ann" is read-only`)
	// The Basic → bearer exchange still works beside OIDC.
	actx := login(t, cl, "alice", "a")
	if _, err := cl.Execute(actx, "SELECT * FROM orders"); err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct {
		name, tok, want string
	}{
		{"wrong audience", j.sign(t, jwt.SigningMethodRS256, "rsa-1", claims("erin", func(c jwt.MapClaims) { c["aud"] = "someone-else" })), "audience"},
		{"wrong issuer", j.sign(t, jwt.SigningMethodRS256, "rsa-1", claims("erin", func(c jwt.MapClaims) { c["iss"] = "https://evil.example" })), `issuer "https://evil.example"`},
		{"expired", j.sign(t, jwt.SigningMethodRS256, "rsa-1", claims("erin", func(c jwt.MapClaims) {
			c["exp"] = time.Now().Add(-time.Hour).Unix()
		})), "expired"},
		{"no expiry", j.sign(t, jwt.SigningMethodRS256, "rsa-1", claims("erin", func(c jwt.MapClaims) { delete(c, "exp") })), "exp"},
		{"unknown kid", j.sign(t, jwt.SigningMethodRS256, "rsa-2", claims("erin", nil)), `unknown signing key "rsa-2"`},
		{"key of another kid", j.sign(t, jwt.SigningMethodES256, "rsa-1", claims("erin", nil)), "rsa-1"},
		{"HMAC with the public modulus", func() string {
			tok := jwt.NewWithClaims(jwt.SigningMethodHS256, claims("erin", nil))
			tok.Header["kid"] = "rsa-1"
			s, _ := tok.SignedString(j.rsaKey.N.Bytes())
			return s
		}(), "signing method HS256 is invalid"},
		{"alg none", func() string {
			s, _ := jwt.NewWithClaims(jwt.SigningMethodNone, claims("erin", nil)).SignedString(jwt.UnsafeAllowNoneSignatureType)
			return s
		}(), "signing method none is invalid"},
		{"no user claim", j.sign(t, jwt.SigningMethodRS256, "rsa-1", claims("", nil)), `no string claim "sub"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := cl.Execute(bearer(tc.tok), "SELECT * FROM orders")
			wantCode(t, err, codes.Unauthenticated, tc.want)
		})
	}
	// Unknown kids refetch the JWKS at most every 10 s.
	before := j.fetches.Load()
	for range 5 {
		_, err := cl.Execute(bearer(j.sign(t, jwt.SigningMethodRS256, "rsa-9", claims("erin", nil))), "SELECT * FROM orders")
		wantCode(t, err, codes.Unauthenticated, "unknown signing key")
	}
	if got := j.fetches.Load() - before; got > 1 {
		t.Fatalf("%d JWKS fetches for 5 unknown kids", got)
	}
}

func TestOIDCDiscoveryAndConfigErrors(t *testing.T) {
	j := newJWKSServer(t)
	// JWKSURL empty: read jwks_uri from the discovery document (the
	// issuer is the loopback server here).
	iss := j.srv.URL
	e := startServer(t, func(c *pfsql.Config) {
		c.NoAuth = false // OIDC alone is enough to run with auth
		c.OIDC = &pfsql.OIDCConfig{Issuer: iss, Audience: "paimon"}
	})
	cl := e.client(t)
	tok := j.sign(t, jwt.SigningMethodRS256, "rsa-1", claims("erin", func(c jwt.MapClaims) { c["iss"] = iss }))
	if _, err := cl.Execute(metadata.AppendToOutgoingContext(context.Background(), "authorization", "Bearer "+tok), "SELECT * FROM orders"); err != nil {
		t.Fatal(err)
	}
	mem := testutil.CheckedAllocator(t)
	cat, release, err := flightsqltest.NewCatalog(mem)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	for _, tc := range []struct {
		cfg  pfsql.OIDCConfig
		want string
	}{
		{pfsql.OIDCConfig{Audience: "x"}, "issuer is required"},
		{pfsql.OIDCConfig{Issuer: iss}, "audience is required"},
		{pfsql.OIDCConfig{Issuer: iss, Audience: "x", ReadOnlyClaim: "groups"}, "both a name and a value"},
	} {
		cfg := tc.cfg
		_, err := pfsql.NewServer(pfsql.Config{OIDC: &cfg, Logger: slog.New(slog.DiscardHandler)}, flightsqltest.NewEngine(cat), cat)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: got %v, want %q", cfg, err, tc.want)
		}
	}
}

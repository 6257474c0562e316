package flightsql

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// OIDCConfig makes the server accept bearer tokens of an OpenID Connect
// issuer besides its own.
type OIDCConfig struct {
	// Issuer must equal the tokens' "iss" claim.
	Issuer string
	// JWKSURL serves the issuer's signing keys (a JWK Set). When empty it
	// is read from Issuer + "/.well-known/openid-configuration" (jwks_uri).
	JWKSURL string
	// Audience must be one of the tokens' "aud" values (required).
	Audience string
	// UserClaim names the claim that is the user name (default "sub").
	UserClaim string
	// ReadOnlyClaim and ReadOnlyValue map tokens to the read-only role:
	// a token whose claim ReadOnlyClaim equals ReadOnlyValue (or, for a
	// list claim such as "groups", contains it) may query but not DELETE
	// or CALL. Empty ReadOnlyClaim: every OIDC user may write.
	ReadOnlyClaim, ReadOnlyValue string
	// Leeway tolerates clock skew on exp/nbf/iat (default 30s).
	Leeway time.Duration
	// HTTPClient fetches the discovery document and the JWKS (default: a
	// client with a 10 s timeout).
	HTTPClient *http.Client
}

// oidcMethods are the asymmetric algorithms accepted from an issuer (never
// HS*, which would let anyone who knows a public key forge tokens).
var oidcMethods = []string{"RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512"}

const (
	jwksMaxBytes   = 1 << 20
	jwksMinRefetch = 10 * time.Second // unknown kids refetch at most this often
	jwksMaxAge     = time.Hour        // keys are refreshed at least this often
)

type oidcVerifier struct {
	cfg OIDCConfig
	hc  *http.Client

	mu       sync.Mutex
	keys     map[string]jwkKey // by kid
	fetched  time.Time         // start of the last fetch
	jwksURL  string
	inflight chan struct{} // closed when the fetch in flight ends
	fetchErr error         // of the last fetch
}

type jwkKey struct {
	alg string // "" when the JWK names none
	pub crypto.PublicKey
}

func newOIDCVerifier(cfg OIDCConfig) (*oidcVerifier, error) {
	if cfg.Issuer == "" {
		return nil, errors.New("OIDC: issuer is required")
	}
	if cfg.Audience == "" {
		return nil, errors.New("OIDC: audience is required (tokens minted for another service must not be accepted)")
	}
	if (cfg.ReadOnlyClaim == "") != (cfg.ReadOnlyValue == "") {
		return nil, fmt.Errorf("OIDC: read-only claim needs both a name and a value (got %q=%q)", cfg.ReadOnlyClaim, cfg.ReadOnlyValue)
	}
	if cfg.UserClaim == "" {
		cfg.UserClaim = "sub"
	}
	if cfg.Leeway == 0 {
		cfg.Leeway = 30 * time.Second
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = &http.Client{Timeout: 10 * time.Second}
	}
	return &oidcVerifier{cfg: cfg, hc: hc, jwksURL: cfg.JWKSURL}, nil
}

// verify checks an issuer token and returns the user and role.
func (v *oidcVerifier) verify(ctx context.Context, tok string, now time.Time) (Identity, error) {
	claims := jwt.MapClaims{}
	_, err := jwt.ParseWithClaims(tok, claims, func(t *jwt.Token) (any, error) {
		kid, _ := t.Header["kid"].(string)
		k, err := v.key(ctx, kid, now)
		if err != nil {
			return nil, err
		}
		if k.alg != "" && k.alg != t.Method.Alg() {
			return nil, fmt.Errorf("key %q is for %s, token is signed with %s", kid, k.alg, t.Method.Alg())
		}
		return k.pub, nil
	},
		jwt.WithValidMethods(oidcMethods),
		jwt.WithIssuer(v.cfg.Issuer),
		jwt.WithAudience(v.cfg.Audience),
		jwt.WithExpirationRequired(),
		jwt.WithLeeway(v.cfg.Leeway),
		jwt.WithTimeFunc(func() time.Time { return now }),
	)
	if err != nil {
		sub, _ := claims["sub"].(string)
		rc := &jwt.RegisteredClaims{Subject: sub}
		if exp, e := claims.GetExpirationTime(); e == nil {
			rc.ExpiresAt = exp
		}
		switch {
		case errors.Is(err, jwt.ErrTokenInvalidAudience):
			return Identity{}, fmt.Errorf("OIDC token is not for this server (audience must include %q)", v.cfg.Audience)
		case errors.Is(err, jwt.ErrTokenExpired), errors.Is(err, jwt.ErrTokenSignatureInvalid), errors.Is(err, jwt.ErrTokenMalformed):
			return Identity{}, fmt.Errorf("OIDC %w", tokenError(err, rc))
		}
		return Identity{}, fmt.Errorf("OIDC token rejected: %v", err)
	}
	user, _ := claims[v.cfg.UserClaim].(string)
	if user == "" {
		return Identity{}, fmt.Errorf("OIDC token has no string claim %q to name the user", v.cfg.UserClaim)
	}
	return Identity{User: user, ReadOnly: v.readOnly(claims)}, nil
}

func (v *oidcVerifier) readOnly(c jwt.MapClaims) bool {
	if v.cfg.ReadOnlyClaim == "" {
		return false
	}
	switch x := c[v.cfg.ReadOnlyClaim].(type) {
	case string:
		return x == v.cfg.ReadOnlyValue
	case bool:
		return fmt.Sprint(x) == v.cfg.ReadOnlyValue
	case []any:
		for _, e := range x {
			if s, ok := e.(string); ok && s == v.cfg.ReadOnlyValue {
				return true
			}
		}
	}
	return false
}

// key returns the key kid names, fetching the JWKS when it is unknown or
// stale (unknown kids refetch at most every jwksMinRefetch). One fetch runs
// at a time, outside the lock: calls with a known key never wait for it,
// calls with an unknown kid wait for the fetch in flight.
func (v *oidcVerifier) key(ctx context.Context, kid string, now time.Time) (jwkKey, error) {
	v.mu.Lock()
	k, ok := v.lookup(kid)
	stale := now.Sub(v.fetched) >= jwksMaxAge
	if ok && (!stale || v.inflight != nil) {
		v.mu.Unlock()
		return k, nil
	}
	switch {
	case v.inflight == nil && (v.keys == nil || stale || now.Sub(v.fetched) >= jwksMinRefetch):
		done := make(chan struct{})
		v.inflight, v.fetched = done, now // fetched also on failure: a broken issuer is not hammered
		url := v.jwksURL
		v.mu.Unlock()
		keys, url, err := v.download(context.WithoutCancel(ctx), url)
		v.mu.Lock()
		if err == nil {
			v.keys, v.jwksURL = keys, url
		}
		v.fetchErr = err
		v.inflight = nil
		close(done)
	case v.inflight != nil:
		done := v.inflight
		v.mu.Unlock()
		select {
		case <-done:
		case <-ctx.Done():
			return jwkKey{}, ctx.Err()
		}
		v.mu.Lock()
	}
	defer v.mu.Unlock()
	if k, ok := v.lookup(kid); ok {
		return k, nil // after a failed refresh the known keys keep working
	}
	if v.fetchErr != nil && v.keys == nil {
		return jwkKey{}, v.fetchErr
	}
	if kid == "" {
		return jwkKey{}, fmt.Errorf("token names no key (kid) and the issuer's JWKS has %d keys", len(v.keys))
	}
	return jwkKey{}, fmt.Errorf("unknown signing key %q (not in the issuer's JWKS)", kid)
}

// lookup finds kid in the cached keys (a token without kid matches a JWKS
// of exactly one key). Call with v.mu held.
func (v *oidcVerifier) lookup(kid string) (jwkKey, bool) {
	if kid == "" {
		if len(v.keys) == 1 {
			for _, k := range v.keys {
				return k, true
			}
		}
		return jwkKey{}, false
	}
	k, ok := v.keys[kid]
	return k, ok
}

func (v *oidcVerifier) getJSON(ctx context.Context, url string, out any) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := v.hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, jwksMaxBytes+1))
	if err != nil {
		return err
	}
	if len(body) > jwksMaxBytes {
		return fmt.Errorf("GET %s: response exceeds %d bytes", url, jwksMaxBytes)
	}
	if err := json.Unmarshal(body, out); err != nil {
		return fmt.Errorf("GET %s: %w", url, err)
	}
	return nil
}

// download reads the JWKS (resolving jwks_uri by discovery first when url
// is empty) and returns its keys and URL.
func (v *oidcVerifier) download(ctx context.Context, url string) (map[string]jwkKey, string, error) {
	if url == "" {
		var disc struct {
			JWKSURI string `json:"jwks_uri"`
		}
		u := strings.TrimSuffix(v.cfg.Issuer, "/") + "/.well-known/openid-configuration"
		if err := v.getJSON(ctx, u, &disc); err != nil {
			return nil, "", fmt.Errorf("OIDC discovery: %w", err)
		}
		if disc.JWKSURI == "" {
			return nil, "", fmt.Errorf("OIDC discovery document %s has no jwks_uri", u)
		}
		url = disc.JWKSURI
	}
	var set struct {
		Keys []json.RawMessage `json:"keys"`
	}
	if err := v.getJSON(ctx, url, &set); err != nil {
		return nil, "", fmt.Errorf("OIDC JWKS: %w", err)
	}
	keys := map[string]jwkKey{}
	for _, raw := range set.Keys {
		if kid, k, ok := parseJWK(raw); ok {
			keys[kid] = k
		}
	}
	return keys, url, nil
}

// parseJWK decodes an RSA or EC signing key; other keys are skipped.
func parseJWK(raw json.RawMessage) (string, jwkKey, bool) {
	var j struct {
		Kty, Kid, Alg, Use, Crv string
		N, E, X, Y              string
	}
	if json.Unmarshal(raw, &j) != nil || (j.Use != "" && j.Use != "sig") {
		return "", jwkKey{}, false
	}
	b := func(s string) (*big.Int, bool) {
		d, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(s, "="))
		if err != nil || len(d) == 0 {
			return nil, false
		}
		return new(big.Int).SetBytes(d), true
	}
	switch j.Kty {
	case "RSA":
		n, ok1 := b(j.N)
		e, ok2 := b(j.E)
		if !ok1 || !ok2 || !e.IsInt64() || e.Int64() < 3 || e.Int64() > 1<<31 || n.BitLen() < 2048 {
			return "", jwkKey{}, false
		}
		return j.Kid, jwkKey{alg: j.Alg, pub: &rsa.PublicKey{N: n, E: int(e.Int64())}}, true
	case "EC":
		var curve elliptic.Curve
		switch j.Crv {
		case "P-256":
			curve = elliptic.P256()
		case "P-384":
			curve = elliptic.P384()
		case "P-521":
			curve = elliptic.P521()
		default:
			return "", jwkKey{}, false
		}
		x, ok1 := b(j.X)
		y, ok2 := b(j.Y)
		if !ok1 || !ok2 {
			return "", jwkKey{}, false
		}
		pub := &ecdsa.PublicKey{Curve: curve, X: x, Y: y}
		if !curve.IsOnCurve(x, y) { //nolint:staticcheck // validates untrusted points
			return "", jwkKey{}, false
		}
		return j.Kid, jwkKey{alg: j.Alg, pub: pub}, true
	}
	return "", jwkKey{}, false
}

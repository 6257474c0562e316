package flightsql

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Signed blobs (bearer tokens, tickets, prepared-statement handles) are
//
//	version(1) | purpose(1) | JSON payload | HMAC-SHA256(key, version|purpose|payload)
//
// The purpose byte keeps a ticket from being replayed as a token and vice
// versa. Payloads carry their own expiry. Any node configured with the same
// key verifies what another node issued.
const (
	sealVersion byte = 1

	purposeToken  byte = 't'
	purposeTicket byte = 'q'
	purposeHandle byte = 'p'
)

var (
	errBadSignature = errors.New("signature invalid (forged, corrupted, or issued with another signing key)")
	errExpired      = errors.New("expired")
)

type signer struct {
	key []byte
}

func purposeName(p byte) string {
	switch p {
	case purposeToken:
		return "bearer token"
	case purposeTicket:
		return "ticket"
	case purposeHandle:
		return "prepared statement handle"
	}
	return "signed value"
}

func (s signer) mac(b []byte) []byte {
	m := hmac.New(sha256.New, s.key)
	m.Write(b)
	return m.Sum(nil)
}

// seal signs the JSON encoding of v for purpose.
func (s signer) seal(purpose byte, v any) ([]byte, error) {
	payload, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", purposeName(purpose), err)
	}
	out := make([]byte, 0, 2+len(payload)+sha256.Size)
	out = append(out, sealVersion, purpose)
	out = append(out, payload...)
	return append(out, s.mac(out)...), nil
}

// open verifies b and decodes its payload into v.
func (s signer) open(purpose byte, b []byte, v any) error {
	if len(b) < 2+sha256.Size {
		return fmt.Errorf("%s is malformed (%d bytes)", purposeName(purpose), len(b))
	}
	if b[0] != sealVersion {
		return fmt.Errorf("%s has unsupported version %d", purposeName(purpose), b[0])
	}
	if b[1] != purpose {
		return fmt.Errorf("%s: got a %s instead", purposeName(purpose), purposeName(b[1]))
	}
	body, sig := b[:len(b)-sha256.Size], b[len(b)-sha256.Size:]
	if !hmac.Equal(sig, s.mac(body)) {
		return fmt.Errorf("%s %w", purposeName(purpose), errBadSignature)
	}
	if err := json.Unmarshal(body[2:], v); err != nil {
		return fmt.Errorf("%s payload: %w", purposeName(purpose), err)
	}
	return nil
}

// tokenClaims is the payload of a bearer token.
type tokenClaims struct {
	Sub      string `json:"sub"`
	ReadOnly bool   `json:"ro,omitempty"`
	Iat      int64  `json:"iat"`
	Exp      int64  `json:"exp"`
	Nonce    string `json:"n"`
}

func (s signer) issueToken(user string, readOnly bool, ttl time.Duration, now time.Time) (string, error) {
	b, err := s.seal(purposeToken, tokenClaims{
		Sub: user, ReadOnly: readOnly, Iat: now.Unix(), Exp: now.Add(ttl).Unix(), Nonce: randomID(),
	})
	if err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

func (s signer) verifyToken(tok string, now time.Time) (tokenClaims, error) {
	var c tokenClaims
	b, err := base64.RawURLEncoding.DecodeString(tok)
	if err != nil {
		return c, fmt.Errorf("bearer token is not base64url: %w", err)
	}
	if err := s.open(purposeToken, b, &c); err != nil {
		return c, err
	}
	if now.Unix() >= c.Exp {
		return c, fmt.Errorf("bearer token of user %q %w at %s; authenticate again", c.Sub, errExpired, time.Unix(c.Exp, 0).UTC().Format(time.RFC3339))
	}
	return c, nil
}

// randomID returns 16 random bytes in hex.
func randomID() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("crypto/rand failed: " + err.Error())
	}
	return hex.EncodeToString(b[:])
}

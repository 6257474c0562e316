package flightsql

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sync/atomic"
)

// Signed blobs (tickets, prepared-statement handles) are
//
//	version(1) | purpose(1) | JSON payload | HMAC-SHA256(key, version|purpose|payload)
//
// The purpose byte keeps a ticket from being replayed as a handle and vice
// versa (bearer tokens are JWTs, see jwt.go). Payloads carry their own expiry. Any node configured with the same
// key verifies what another node issued.
const (
	sealVersion byte = 1

	purposeToken  byte = 't'
	purposeTicket byte = 'q'
	purposeHandle byte = 'p'
)

var (
	errBadSignature = errors.New("signature invalid (forged, corrupted, or issued with another signing key)")
)

// signer seals tickets and handles and signs bearer tokens with the
// current key. Keys rotate (Config.TokenKeyFile changed, Server.Reload):
// bearer tokens verify against the current key only, so rotating the key
// revokes every token issued before; tickets and prepared handles also
// verify against the previous key, so queries planned just before a
// rotation can still be fetched (they stay bound to their user and expiry).
type signer struct {
	keys *atomic.Pointer[keyPair]
}

type keyPair struct {
	cur, prev []byte
	tokenKey  []byte // derived from cur: bearer tokens never share a MAC key with tickets
}

func newSigner(key []byte) signer {
	s := signer{keys: &atomic.Pointer[keyPair]{}}
	s.keys.Store(&keyPair{cur: key, tokenKey: deriveTokenKey(key)})
	return s
}

func deriveTokenKey(key []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte("paimon-flightsql bearer token key v1"))
	return m.Sum(nil)
}

// rotate makes key current and keeps the old one for tickets and handles.
// It reports whether the key changed.
func (s signer) rotate(key []byte) bool {
	old := s.keys.Load()
	if hmac.Equal(old.cur, key) {
		return false
	}
	s.keys.Store(&keyPair{cur: key, prev: old.cur, tokenKey: deriveTokenKey(key)})
	return true
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

func mac(key, b []byte) []byte {
	m := hmac.New(sha256.New, key)
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
	return append(out, mac(s.keys.Load().cur, out)...), nil
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
	kp := s.keys.Load()
	if !hmac.Equal(sig, mac(kp.cur, body)) && (kp.prev == nil || !hmac.Equal(sig, mac(kp.prev, body))) {
		return fmt.Errorf("%s %w", purposeName(purpose), errBadSignature)
	}
	if err := json.Unmarshal(body[2:], v); err != nil {
		return fmt.Errorf("%s payload: %w", purposeName(purpose), err)
	}
	return nil
}

// randomID returns 16 random bytes in hex.
func randomID() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("crypto/rand failed: " + err.Error())
	}
	return hex.EncodeToString(b[:])
}

package flightsql

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// Bearer tokens are standard JWTs (RFC 7519). The server issues HS256
// tokens on a Basic Handshake, signed with a key derived from the current
// signing key (signer.rotate revokes them all); with Config.OIDC it also
// accepts tokens of an OpenID Connect issuer, verified with its JWKS
// (oidc.go). Either way the token only names the user: every RPC takes the
// user's role from the current users file (or the OIDC claims).

// tokenIssuer is the "iss" of the tokens this server issues.
const tokenIssuer = "paimon-flightsql"

// ownClaims are the claims of a token this server issued.
type ownClaims struct {
	jwt.RegisteredClaims
	// ReadOnly is the role when the token was issued; informational only,
	// since every RPC checks the user's current role.
	ReadOnly bool `json:"ro,omitempty"`
	// PasswordFP fingerprints the user's password hash: changing a
	// password revokes the user's tokens.
	PasswordFP string `json:"pwf,omitempty"`
}

// passwordFingerprint is a short digest of a bcrypt hash ("" for none).
func passwordFingerprint(hash string) string {
	if hash == "" {
		return ""
	}
	h := sha256.Sum256([]byte("pwf:" + hash))
	return hex.EncodeToString(h[:8])
}

func (s signer) issueToken(user string, readOnly bool, pwfp string, ttl time.Duration, now time.Time) (string, error) {
	c := ownClaims{
		RegisteredClaims: jwt.RegisteredClaims{
			Issuer:    tokenIssuer,
			Subject:   user,
			IssuedAt:  jwt.NewNumericDate(now),
			ExpiresAt: jwt.NewNumericDate(now.Add(ttl)),
			ID:        randomID(),
		},
		ReadOnly:   readOnly,
		PasswordFP: pwfp,
	}
	tok, err := jwt.NewWithClaims(jwt.SigningMethodHS256, c).SignedString(s.keys.Load().tokenKey)
	if err != nil {
		return "", fmt.Errorf("sign bearer token: %w", err)
	}
	return tok, nil
}

// verifyToken checks a token this server issued: HS256 under the current
// key, our issuer, not expired.
func (s signer) verifyToken(tok string, now time.Time) (*ownClaims, error) {
	var c ownClaims
	key := s.keys.Load().tokenKey
	_, err := jwt.ParseWithClaims(tok, &c, func(*jwt.Token) (any, error) { return key, nil },
		jwt.WithValidMethods([]string{jwt.SigningMethodHS256.Alg()}),
		jwt.WithIssuer(tokenIssuer),
		jwt.WithExpirationRequired(),
		jwt.WithTimeFunc(func() time.Time { return now }),
	)
	if err != nil {
		return nil, tokenError(err, &c.RegisteredClaims)
	}
	if c.Subject == "" {
		return nil, errors.New("bearer token names no user (empty sub)")
	}
	return &c, nil
}

// tokenError turns a jwt validation error into a message that names what
// is wrong without echoing the token.
func tokenError(err error, c *jwt.RegisteredClaims) error {
	switch {
	case errors.Is(err, jwt.ErrTokenExpired):
		at := "?"
		if c.ExpiresAt != nil {
			at = c.ExpiresAt.UTC().Format(time.RFC3339)
		}
		return fmt.Errorf("bearer token of user %q expired at %s; authenticate again", c.Subject, at)
	case errors.Is(err, jwt.ErrTokenSignatureInvalid) && strings.Contains(err.Error(), "signing method"):
		return fmt.Errorf("bearer token rejected: %v", err)
	case errors.Is(err, jwt.ErrTokenSignatureInvalid):
		return errors.New("bearer token signature invalid (forged, corrupted, or signed with another or a rotated-out key)")
	case errors.Is(err, jwt.ErrTokenMalformed):
		return fmt.Errorf("bearer token is not a well-formed JWT: %v", err)
	}
	return fmt.Errorf("bearer token rejected: %v", err)
}

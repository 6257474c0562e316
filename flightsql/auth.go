package flightsql

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"golang.org/x/crypto/bcrypt"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"
)

// Identity is the authenticated caller of an RPC.
type Identity struct {
	User     string
	ReadOnly bool
	// Token is the bearer token the call carried or was issued ("" when none).
	Token string
}

type identityKey struct{}

// IdentityFromContext returns the caller identity set by the auth interceptor.
func IdentityFromContext(ctx context.Context) (Identity, bool) {
	id, ok := ctx.Value(identityKey{}).(Identity)
	return id, ok
}

const anonymousUser = "anonymous"

// authenticator checks credentials and issues tokens.
type authenticator struct {
	noAuth bool
	users  map[string]User
	sign   signer
	ttl    time.Duration
	now    func() time.Time
	// dummyHash makes unknown users cost as much as wrong passwords.
	dummyHash []byte
}

func newAuthenticator(cfg *Config, sign signer) (*authenticator, error) {
	a := &authenticator{noAuth: cfg.NoAuth, users: map[string]User{}, sign: sign, ttl: cfg.TokenTTL, now: time.Now}
	users := append([]User(nil), cfg.Users...)
	if cfg.UsersFile != "" {
		fromFile, err := LoadUsersFile(cfg.UsersFile)
		if err != nil {
			return nil, err
		}
		users = append(users, fromFile...)
	}
	for _, u := range users {
		if _, err := bcrypt.Cost([]byte(u.PasswordHash)); err != nil {
			return nil, fmt.Errorf("user %q: password hash is not bcrypt: %v", u.Name, err)
		}
		a.users[u.Name] = u
	}
	if !a.noAuth && len(a.users) == 0 {
		return nil, errors.New("authentication is on but no users are configured: give a users file or use NoAuth")
	}
	h, err := bcrypt.GenerateFromPassword([]byte(randomID()), bcrypt.MinCost)
	if err != nil {
		return nil, err
	}
	a.dummyHash = h
	return a, nil
}

func (a *authenticator) checkPassword(user, pass string) (User, error) {
	u, ok := a.users[user]
	if !ok {
		_ = bcrypt.CompareHashAndPassword(a.dummyHash, []byte(pass))
		return User{}, status.Errorf(codes.Unauthenticated, "invalid username or password (user %q)", user)
	}
	if bcrypt.CompareHashAndPassword([]byte(u.PasswordHash), []byte(pass)) != nil {
		return User{}, status.Errorf(codes.Unauthenticated, "invalid username or password (user %q)", user)
	}
	return u, nil
}

func parseBasic(cred string) (user, pass string, err error) {
	raw, err := base64.StdEncoding.DecodeString(cred)
	if err != nil {
		if raw, err = base64.RawStdEncoding.DecodeString(cred); err != nil {
			return "", "", status.Errorf(codes.Unauthenticated, "invalid Basic credentials: not base64: %v", err)
		}
	}
	user, pass, ok := strings.Cut(string(raw), ":")
	if !ok {
		return "", "", status.Error(codes.Unauthenticated, "invalid Basic credentials: want base64(user:password)")
	}
	return user, pass, nil
}

// authenticate resolves the identity of a call. handshake reports whether
// the call is Handshake; issued is a token to return to the client ("" for
// none).
func (a *authenticator) authenticate(ctx context.Context, handshake bool) (id Identity, issued string, err error) {
	var authz string
	if md, ok := metadata.FromIncomingContext(ctx); ok {
		if v := md.Get("authorization"); len(v) > 0 {
			authz = strings.TrimSpace(v[0])
		}
	}
	scheme, cred, _ := strings.Cut(authz, " ")
	cred = strings.TrimSpace(cred)
	now := a.now()

	switch {
	case strings.EqualFold(scheme, "Bearer") && cred != "":
		c, err := a.sign.verifyToken(cred, now)
		if err != nil {
			if a.noAuth {
				break // tokens are optional without auth
			}
			return Identity{}, "", status.Error(codes.Unauthenticated, err.Error())
		}
		if !a.noAuth {
			if _, ok := a.users[c.Sub]; !ok {
				return Identity{}, "", status.Errorf(codes.Unauthenticated, "bearer token names user %q, who is no longer configured", c.Sub)
			}
		}
		id = Identity{User: c.Sub, ReadOnly: c.ReadOnly, Token: cred}
		if handshake {
			issued = cred // echo: JDBC token= sends Bearer on Handshake
		}
		return id, issued, nil
	case strings.EqualFold(scheme, "Basic") && cred != "":
		user, pass, err := parseBasic(cred)
		if err != nil {
			return Identity{}, "", err
		}
		var u User
		if a.noAuth {
			u = User{Name: user}
			if u.Name == "" {
				u.Name = anonymousUser
			}
		} else if u, err = a.checkPassword(user, pass); err != nil {
			return Identity{}, "", err
		}
		tok, err := a.sign.issueToken(u.Name, u.ReadOnly, a.ttl, now)
		if err != nil {
			return Identity{}, "", status.Error(codes.Internal, err.Error())
		}
		return Identity{User: u.Name, ReadOnly: u.ReadOnly, Token: tok}, tok, nil
	case authz != "" && !a.noAuth:
		return Identity{}, "", status.Errorf(codes.Unauthenticated, "unsupported authorization scheme %q: use Basic on Handshake or Bearer", scheme)
	}
	if a.noAuth {
		user := anonymousUser
		if cn := peerCommonName(ctx); cn != "" {
			user = cn
		}
		id = Identity{User: user}
		if handshake {
			if issued, err = a.sign.issueToken(user, false, a.ttl, now); err != nil {
				return Identity{}, "", status.Error(codes.Internal, err.Error())
			}
			id.Token = issued
		}
		return id, issued, nil
	}
	return Identity{}, "", status.Error(codes.Unauthenticated, "missing authorization header: send Basic credentials on Handshake, then the returned Bearer token")
}

// peerCommonName returns the verified client certificate's common name (mTLS).
func peerCommonName(ctx context.Context) string {
	p, ok := peer.FromContext(ctx)
	if !ok || p.AuthInfo == nil {
		return ""
	}
	if ti, ok := p.AuthInfo.(credentials.TLSInfo); ok && len(ti.State.VerifiedChains) > 0 && len(ti.State.VerifiedChains[0]) > 0 {
		return ti.State.VerifiedChains[0][0].Subject.CommonName
	}
	return ""
}

// sessionKeyOf identifies the session of a call: the bearer token when
// there is one (one per Handshake, so one per client connection), else the
// client's address (one per connection).
func sessionKeyOf(ctx context.Context, id Identity) string {
	if id.Token != "" {
		h := sha256.Sum256([]byte(id.Token))
		return "t:" + hex.EncodeToString(h[:16])
	}
	if p, ok := peer.FromContext(ctx); ok && p.Addr != nil {
		return "p:" + id.User + "@" + p.Addr.String()
	}
	return "u:" + id.User
}

// authUnary and authStream are the auth interceptors.
func (s *Server) authUnary(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	id, issued, err := s.auth.authenticate(ctx, false)
	if err != nil {
		s.metrics.add("auth_failures_total", 1)
		return nil, err
	}
	if issued != "" {
		_ = grpc.SetHeader(ctx, metadata.Pairs("authorization", "Bearer "+issued))
	}
	s.noteUser(ctx, id.User)
	return handler(context.WithValue(ctx, identityKey{}, id), req)
}

func (s *Server) authStream(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
	handshake := strings.HasSuffix(info.FullMethod, "/Handshake")
	id, issued, err := s.auth.authenticate(ss.Context(), handshake)
	if err != nil {
		s.metrics.add("auth_failures_total", 1)
		return err
	}
	if issued != "" {
		md := metadata.Pairs("authorization", "Bearer "+issued)
		if err := ss.SetHeader(md); err != nil {
			return err
		}
		if handshake {
			ss.SetTrailer(md)
		}
	}
	s.noteUser(ss.Context(), id.User)
	return handler(srv, &ctxStream{ServerStream: ss, ctx: context.WithValue(ss.Context(), identityKey{}, id)})
}

// ctxStream replaces a stream's context.
type ctxStream struct {
	grpc.ServerStream
	ctx context.Context
}

func (c *ctxStream) Context() context.Context { return c.ctx }

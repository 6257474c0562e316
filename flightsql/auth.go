package flightsql

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/golang-jwt/jwt/v5"
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

// authenticator checks credentials and issues tokens. The users (file and
// Config.Users) and the signing key are reloadable: Reload swaps them
// atomically, and every RPC looks its user up in the current set, so a
// removed user's tokens fail and a demoted user is read-only at once.
type authenticator struct {
	noAuth    bool
	cfgUsers  []User
	usersFile string
	keyFile   string
	sign      signer
	ttl       time.Duration
	now       func() time.Time
	oidc      *oidcVerifier
	limiter   *loginLimiter
	log       *slog.Logger

	users atomic.Pointer[userSet]

	reloadMu sync.Mutex
	usersSum [32]byte // digest of the users file last applied
	keySum   [32]byte // digest of the key file last applied
}

// userSet is one generation of the configured users.
type userSet struct {
	byName map[string]User
	// decoy is checked for unknown users so that they cost as much as a
	// wrong password: a bcrypt hash at the highest cost among the users.
	decoy     []byte
	decoyCost int
}

func newAuthenticator(cfg *Config, sign signer, log *slog.Logger) (*authenticator, error) {
	a := &authenticator{
		noAuth: cfg.NoAuth, cfgUsers: cfg.Users, usersFile: cfg.UsersFile, keyFile: cfg.TokenKeyFile,
		sign: sign, ttl: cfg.TokenTTL, now: time.Now, log: log,
		limiter: newLoginLimiter(cfg.LoginFailureBurst, cfg.LoginFailureInterval),
	}
	if cfg.OIDC != nil {
		v, err := newOIDCVerifier(*cfg.OIDC)
		if err != nil {
			return nil, err
		}
		a.oidc = v
	}
	var data []byte
	if a.usersFile != "" {
		var err error
		if data, err = os.ReadFile(a.usersFile); err != nil {
			return nil, fmt.Errorf("users file: %w", err)
		}
	}
	set, err := a.buildUsers(data)
	if err != nil {
		return nil, err
	}
	a.usersSum = sha256.Sum256(data)
	a.users.Store(set)
	if !a.noAuth && len(set.byName) == 0 && a.oidc == nil {
		return nil, errors.New("authentication is on but no users are configured: give a users file, an OIDC issuer, or use NoAuth")
	}
	return a, nil
}

// buildUsers parses a users file's contents plus Config.Users.
func (a *authenticator) buildUsers(file []byte) (*userSet, error) {
	users := append([]User(nil), a.cfgUsers...)
	if a.usersFile != "" {
		fromFile, err := parseUsers(a.usersFile, file)
		if err != nil {
			return nil, err
		}
		users = append(users, fromFile...)
	}
	set := &userSet{byName: map[string]User{}, decoyCost: bcrypt.DefaultCost}
	maxCost := 0
	for _, u := range users {
		c, err := bcrypt.Cost([]byte(u.PasswordHash))
		if err != nil {
			return nil, fmt.Errorf("user %q: password hash is not bcrypt: %v", u.Name, err)
		}
		maxCost = max(maxCost, c)
		set.byName[u.Name] = u
	}
	if maxCost > 0 {
		set.decoyCost = maxCost
	}
	if old := a.users.Load(); old != nil && old.decoyCost == set.decoyCost {
		set.decoy = old.decoy
	} else {
		h, err := bcrypt.GenerateFromPassword([]byte(randomID()), set.decoyCost)
		if err != nil {
			return nil, err
		}
		set.decoy = h
	}
	return set, nil
}

// reload re-reads the users file and the key file and applies what
// changed. A file that fails to parse leaves the previous state in force
// (a half-written file never locks everyone out or lets anyone in).
func (a *authenticator) reload() error {
	a.reloadMu.Lock()
	defer a.reloadMu.Unlock()
	var errs []error
	if a.usersFile != "" {
		data, err := os.ReadFile(a.usersFile)
		if err != nil {
			errs = append(errs, fmt.Errorf("users file: %w (keeping the previous users)", err))
		} else if sum := sha256.Sum256(data); sum != a.usersSum {
			set, err := a.buildUsers(data)
			if err != nil {
				errs = append(errs, fmt.Errorf("%w (keeping the previous users)", err))
			} else {
				a.users.Store(set)
				a.usersSum = sum
				a.log.Info("users file reloaded", "file", a.usersFile, "users", len(set.byName))
			}
		}
	}
	if a.keyFile != "" {
		data, err := os.ReadFile(a.keyFile)
		if err != nil {
			errs = append(errs, fmt.Errorf("token key file: %w (keeping the previous key)", err))
		} else if sum := sha256.Sum256(data); sum != a.keySum {
			key, err := parseKey(a.keyFile, data)
			if err != nil {
				errs = append(errs, fmt.Errorf("%w (keeping the previous key)", err))
			} else {
				a.keySum = sum
				if a.sign.rotate(key) {
					a.log.Warn("token signing key rotated: bearer tokens issued before are revoked", "file", a.keyFile)
				}
			}
		}
	}
	return errors.Join(errs...)
}

// user returns the current account of name.
func (a *authenticator) user(name string) (User, bool) {
	u, ok := a.users.Load().byName[name]
	return u, ok
}

func (a *authenticator) checkPassword(user, pass string) (User, error) {
	set := a.users.Load()
	u, ok := set.byName[user]
	if !ok {
		_ = bcrypt.CompareHashAndPassword(set.decoy, []byte(pass))
		return User{}, status.Errorf(codes.Unauthenticated, "invalid username or password (user %q)", user)
	}
	if bcrypt.CompareHashAndPassword([]byte(u.PasswordHash), []byte(pass)) != nil {
		return User{}, status.Errorf(codes.Unauthenticated, "invalid username or password (user %q)", user)
	}
	return u, nil
}

// clientAddr is the caller's IP address (no port), the key of the
// per-address login limit.
func clientAddr(ctx context.Context) string {
	p, ok := peer.FromContext(ctx)
	if !ok || p.Addr == nil {
		return "unknown"
	}
	a := p.Addr.String()
	if host, _, err := net.SplitHostPort(a); err == nil {
		return host
	}
	return a
}

// bearer resolves a bearer token: one this server issued (the user must
// still exist with the same password; the role is the current one), or,
// with OIDC configured, one of the issuer.
func (a *authenticator) bearer(ctx context.Context, tok string, now time.Time) (Identity, error) {
	if a.oidc != nil {
		if iss, ok := unverifiedIssuer(tok); ok && iss == a.oidc.cfg.Issuer {
			id, err := a.oidc.verify(ctx, tok, now)
			if err != nil {
				return Identity{}, err
			}
			id.Token = tok
			return id, nil
		}
	}
	c, err := a.sign.verifyToken(tok, now)
	if err != nil {
		if iss, ok := unverifiedIssuer(tok); ok && iss != tokenIssuer {
			if a.oidc != nil {
				return Identity{}, fmt.Errorf("bearer token issuer %q is neither this server nor the OIDC issuer %q", iss, a.oidc.cfg.Issuer)
			}
			return Identity{}, fmt.Errorf("bearer token issuer %q is not accepted (no OIDC issuer is configured)", iss)
		}
		return Identity{}, err
	}
	id := Identity{User: c.Subject, ReadOnly: c.ReadOnly, Token: tok}
	if !a.noAuth {
		u, ok := a.user(c.Subject)
		if !ok {
			return Identity{}, fmt.Errorf("bearer token names user %q, who is no longer configured", c.Subject)
		}
		if c.PasswordFP != passwordFingerprint(u.PasswordHash) {
			return Identity{}, fmt.Errorf("bearer token of user %q predates a password change; authenticate again", c.Subject)
		}
		id.ReadOnly = u.ReadOnly
	}
	return id, nil
}

// unverifiedIssuer reads a JWT's "iss" without checking anything, to pick
// the verifier.
func unverifiedIssuer(tok string) (string, bool) {
	var c jwt.RegisteredClaims
	if _, _, err := jwt.NewParser().ParseUnverified(tok, &c); err != nil {
		return "", false
	}
	return c.Issuer, true
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
		id, err := a.bearer(ctx, cred, now)
		if err != nil {
			if a.noAuth {
				break // tokens are optional without auth
			}
			return Identity{}, "", status.Error(codes.Unauthenticated, err.Error())
		}
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
		} else {
			addr := clientAddr(ctx)
			if err := a.limiter.take(user, addr, now); err != nil {
				return Identity{}, "", err
			}
			if u, err = a.checkPassword(user, pass); err != nil {
				return Identity{}, "", err
			}
			a.limiter.refund(user, addr, a.now())
		}
		tok, err := a.sign.issueToken(u.Name, u.ReadOnly, passwordFingerprint(u.PasswordHash), a.ttl, now)
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
			if issued, err = a.sign.issueToken(user, false, "", a.ttl, now); err != nil {
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
	if strings.HasPrefix(info.FullMethod, healthMethodPrefix) {
		return handler(ctx, req) // peers probe health without credentials
	}
	id, issued, err := s.auth.authenticate(ctx, false)
	if err != nil {
		s.metrics.authFailures.Inc()
		return nil, err
	}
	if issued != "" {
		_ = grpc.SetHeader(ctx, metadata.Pairs("authorization", "Bearer "+issued))
	}
	s.noteUser(ctx, id.User)
	return handler(context.WithValue(ctx, identityKey{}, id), req)
}

func (s *Server) authStream(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
	if strings.HasPrefix(info.FullMethod, healthMethodPrefix) {
		return handler(srv, ss)
	}
	handshake := strings.HasSuffix(info.FullMethod, "/Handshake")
	id, issued, err := s.auth.authenticate(ss.Context(), handshake)
	if err != nil {
		s.metrics.authFailures.Inc()
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

package flightsql

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"golang.org/x/crypto/bcrypt"
)

// Config configures a Server. The zero value plus NoAuth (or users) is a
// working local configuration.
type Config struct {
	// Addr is the listen address used by ListenAndServe (default
	// "127.0.0.1:32010"). Serve takes a listener instead.
	Addr string

	// NoAuth disables authentication: every call is accepted as user
	// "anonymous" (Handshake still issues a token for clients that want one).
	NoAuth bool
	// UsersFile names a file of "user:bcrypt-hash[:readonly]" lines ('#'
	// starts a comment). Read-only users may query but not DELETE or CALL.
	// The file is re-read when its contents change (see ReloadInterval)
	// and on Server.Reload; every RPC uses the user's current entry, so a
	// removed user's tokens fail and a demotion applies at once.
	UsersFile string
	// Users are added to those of UsersFile.
	Users []User

	// TokenKey signs bearer tokens, tickets and prepared-statement handles
	// (HMAC-SHA256). Every node of a cluster must share it. When empty a
	// random key is generated, so tokens and tickets are valid on this
	// process only.
	TokenKey []byte
	// TokenKeyFile names a file holding the signing key (surrounding white
	// space ignored, at least 16 bytes); it overrides TokenKey and is
	// re-read like UsersFile. Writing a new key revokes every bearer token
	// issued before; tickets and prepared handles signed with the previous
	// key stay valid until their own expiry.
	TokenKeyFile string
	// ReloadInterval is how often UsersFile and TokenKeyFile are checked
	// for changes (default 2s; < 0 only reloads on Server.Reload).
	ReloadInterval time.Duration
	// LoginFailureBurst and LoginFailureInterval rate-limit password
	// attempts per user name and per client address: each may fail
	// LoginFailureBurst times in a row (default 10), then one attempt per
	// LoginFailureInterval (default 6s) until the bucket refills; excess
	// attempts get ResourceExhausted with a RetryInfo. Burst < 0 disables.
	LoginFailureBurst    int
	LoginFailureInterval time.Duration
	// OIDC, when set, also accepts bearer tokens of an OpenID Connect
	// issuer (JWTs verified with its JWKS).
	OIDC *OIDCConfig
	// TokenTTL is the lifetime of a bearer token (default 12h).
	TokenTTL time.Duration
	// HandleTTL is the lifetime of a ticket or prepared-statement handle
	// (default 24h).
	HandleTTL time.Duration
	// SessionTTL is how long idle session options are kept (default 8h).
	SessionTTL time.Duration

	// TLSCertFile and TLSKeyFile enable TLS. ClientCAFile additionally
	// requires and verifies client certificates (mTLS).
	TLSCertFile, TLSKeyFile, ClientCAFile string

	// QueryTimeout bounds planning and each DoGet stream (0 = none).
	QueryTimeout time.Duration
	// MetricsAddr, when set, serves Prometheus metrics at /metrics.
	MetricsAddr string
	// Logger receives one line per RPC (default slog.Default()).
	Logger *slog.Logger
	// Catalog is the single catalog name reported to clients (default "paimon").
	Catalog string
	// Allocator is used for results and metadata (default memory.DefaultAllocator).
	Allocator memory.Allocator
	// ErrorCodes maps extra sentinel errors to gRPC codes, e.g.
	// {paimon.ErrCorrupt, codes.DataLoss}. They are checked before the
	// catalog sentinels.
	ErrorCodes []ErrorCode
	// ServerVersion is reported in SqlInfo FLIGHT_SQL_SERVER_VERSION.
	ServerVersion string

	// MaxMessageBytes bounds the IPC body of one DoGet message: larger
	// batches are sent as several slices (no copy). Default 4 MiB, gRPC's
	// default receive limit, so clients that never raise it can read every
	// result; < 0 sends batches as the engine produced them.
	MaxMessageBytes int
	// PlanCacheEntries bounds the plans GetFlightInfo keeps for the DoGets
	// of its endpoints (default 256; < 0 disables the cache, so that every
	// DoGet plans its ticket's statement again). Cached plans are dropped
	// once every endpoint was streamed, after 10 minutes, or when the
	// query is cancelled; a DoGet that finds none plans again.
	PlanCacheEntries int
	// MaxEndpoints bounds the endpoints of one query result (0 = one per
	// partition the engine planned). With fewer endpoints than partitions,
	// endpoint i streams partitions i, i+MaxEndpoints, ... one after the
	// other, so that clients that fetch every endpoint at once (ADBC) run
	// at most MaxEndpoints partitions of a query concurrently; about
	// GOMAXPROCS suits a server whose clients fetch in parallel. Ordered
	// results keep one endpoint per partition.
	MaxEndpoints int
	// EndpointBytes is the estimated result size per endpoint (default 64
	// MiB): a query whose planned scans hold less than that gets one
	// endpoint, so clients that read only endpoints[0] get the whole
	// answer of a small query. Negative: one endpoint per partition
	// regardless of size.
	EndpointBytes int64

	// MaxConcurrentQueries bounds the statements planned or streamed at
	// once (a DoGet holds its slot until the stream ends); 0 =
	// max(8, 4×GOMAXPROCS), < 0 = unlimited. Others queue for QueueTimeout
	// (default 30s), then fail with ResourceExhausted.
	MaxConcurrentQueries int
	QueueTimeout         time.Duration

	// Advertise is the host:port other nodes and clients reach this node
	// at; needed with Peers or PeersFile.
	Advertise string
	// Peers are the host:port of the other nodes serving the same
	// warehouse with the same TokenKey (this node's own Advertise may be
	// listed too). With peers, the endpoints of a result name the peers
	// that pass health checks, round-robin by estimated bytes, this node
	// included (as arrow-flight-reuse-connection://?): clients that fetch
	// endpoints in parallel (ADBC) read from several nodes. See peers.go.
	Peers []string
	// PeersFile holds more peers, one host:port per line ('#' comments);
	// it is re-read when its contents change (every PeerCheckInterval).
	PeersFile string
	// PeerCheckInterval is how often peers are health-checked (gRPC
	// health, default 2s).
	PeerCheckInterval time.Duration
}

// DefaultEndpointBytes is the default Config.EndpointBytes.
const DefaultEndpointBytes = 64 << 20

// User is one account. PasswordHash is a bcrypt hash (see HashPassword).
type User struct {
	Name         string
	PasswordHash string
	ReadOnly     bool
}

// HashPassword returns the bcrypt hash of password for a users file.
func HashPassword(password string) (string, error) {
	h, err := bcrypt.GenerateFromPassword([]byte(password), bcrypt.DefaultCost)
	return string(h), err
}

// LoadUsersFile parses a users file: one "user:bcrypt-hash[:readonly]" per
// line; blank lines and lines starting with '#' are ignored.
func LoadUsersFile(path string) ([]User, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("users file: %w", err)
	}
	return parseUsers(path, data)
}

// parseKey checks the contents of a token key file (surrounding white
// space is ignored).
func parseKey(path string, data []byte) ([]byte, error) {
	k := []byte(strings.TrimSpace(string(data)))
	if len(k) < 16 {
		return nil, fmt.Errorf("token key file %s holds %d bytes; use at least 16 (32 random bytes recommended)", path, len(k))
	}
	return k, nil
}

func parseUsers(path string, data []byte) ([]User, error) {
	var users []User
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		parts := strings.Split(line, ":")
		if len(parts) < 2 || len(parts) > 3 || parts[0] == "" {
			return nil, fmt.Errorf("users file %s line %d: want user:bcrypt-hash[:readonly]", path, n)
		}
		if _, err := bcrypt.Cost([]byte(parts[1])); err != nil {
			return nil, fmt.Errorf("users file %s line %d: user %q: password hash is not bcrypt: %v", path, n, parts[0], err)
		}
		u := User{Name: parts[0], PasswordHash: parts[1]}
		if len(parts) == 3 {
			switch parts[2] {
			case "readonly", "ro":
				u.ReadOnly = true
			case "", "readwrite", "rw":
			default:
				return nil, fmt.Errorf("users file %s line %d: user %q: unknown flag %q (want readonly or readwrite)", path, n, parts[0], parts[2])
			}
		}
		users = append(users, u)
	}
	return users, sc.Err()
}

func (c *Config) setDefaults() {
	if c.Addr == "" {
		c.Addr = "127.0.0.1:32010"
	}
	if c.TokenTTL <= 0 {
		c.TokenTTL = 12 * time.Hour
	}
	if c.ReloadInterval == 0 {
		c.ReloadInterval = 2 * time.Second
	}
	if c.LoginFailureBurst == 0 {
		c.LoginFailureBurst = 10
	}
	if c.LoginFailureInterval <= 0 {
		c.LoginFailureInterval = 6 * time.Second
	}
	if c.HandleTTL <= 0 {
		c.HandleTTL = 24 * time.Hour
	}
	if c.PlanCacheEntries == 0 {
		c.PlanCacheEntries = 256
	}
	if c.MaxMessageBytes == 0 {
		c.MaxMessageBytes = defaultMaxMessageBytes
	}
	if c.SessionTTL <= 0 {
		c.SessionTTL = 8 * time.Hour
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.Catalog == "" {
		c.Catalog = "paimon"
	}
	if c.Allocator == nil {
		c.Allocator = memory.DefaultAllocator
	}
	if c.ServerVersion == "" {
		c.ServerVersion = "dev"
	}
	if c.EndpointBytes == 0 {
		c.EndpointBytes = DefaultEndpointBytes
	}
	if c.MaxConcurrentQueries == 0 {
		c.MaxConcurrentQueries = defaultMaxConcurrentQueries()
	}
	if c.QueueTimeout <= 0 {
		c.QueueTimeout = 30 * time.Second
	}
	if c.PeerCheckInterval <= 0 {
		c.PeerCheckInterval = 2 * time.Second
	}
}

// tlsConfig builds the server TLS configuration, or nil without TLS.
func (c *Config) tlsConfig() (*tls.Config, error) {
	if c.TLSCertFile == "" && c.TLSKeyFile == "" {
		if c.ClientCAFile != "" {
			return nil, fmt.Errorf("client CA file %s given without a TLS certificate and key", c.ClientCAFile)
		}
		return nil, nil
	}
	if c.TLSCertFile == "" || c.TLSKeyFile == "" {
		return nil, fmt.Errorf("TLS needs both a certificate and a key (got cert %q, key %q)", c.TLSCertFile, c.TLSKeyFile)
	}
	cert, err := tls.LoadX509KeyPair(c.TLSCertFile, c.TLSKeyFile)
	if err != nil {
		return nil, fmt.Errorf("TLS key pair %s/%s: %w", c.TLSCertFile, c.TLSKeyFile, err)
	}
	cfg := &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	if c.ClientCAFile != "" {
		pem, err := os.ReadFile(c.ClientCAFile)
		if err != nil {
			return nil, fmt.Errorf("client CA: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("client CA file %s holds no PEM certificate", c.ClientCAFile)
		}
		cfg.ClientCAs = pool
		cfg.ClientAuth = tls.RequireAndVerifyClientCert
	}
	return cfg, nil
}

package flightsql

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"
	pb "github.com/apache/arrow-go/v18/arrow/flight/gen/flight"
	"google.golang.org/grpc/metadata"
)

// Session option names. "catalog" and "schema" are the ADBC/JDBC standard
// names; the others are Paimon read options and are passed to the engine.
const (
	OptCatalog         = "catalog"
	OptSchema          = "schema"
	OptSnapshotID      = "scan.snapshot-id"
	OptTagName         = "scan.tag-name"
	OptTimestampMillis = "scan.timestamp-millis"
	OptBranch          = "branch"
	// OptCompression selects IPC compression of results: none, zstd or lz4.
	OptCompression = "compression"
)

// CompressionHeader is the gRPC request header that selects IPC body
// compression for a DoGet (none, zstd, lz4); it overrides the session
// option. Compression is off by default because the JDBC driver cannot
// read compressed bodies.
const CompressionHeader = "x-paimon-compression"

var scanOptions = []string{OptSnapshotID, OptTagName, OptTimestampMillis, OptBranch}

// timeTravelOptions are mutually exclusive.
var timeTravelOptions = []string{OptSnapshotID, OptTagName, OptTimestampMillis}

func isTimeTravel(name string) bool {
	return name == OptSnapshotID || name == OptTagName || name == OptTimestampMillis
}

// sessionStore keeps per-session options with an idle TTL. Sessions are
// keyed by bearer token or connection (see sessionKeyOf), never created by
// calls that set nothing.
type sessionStore struct {
	mu      sync.Mutex
	ttl     time.Duration
	entries map[string]*sessionEntry
	sweep   time.Time
}

type sessionEntry struct {
	opts map[string]string
	last time.Time
}

func newSessionStore(ttl time.Duration) *sessionStore {
	return &sessionStore{ttl: ttl, entries: map[string]*sessionEntry{}}
}

// get returns a copy of the options of key (nil when none).
func (st *sessionStore) get(key string) map[string]string {
	st.mu.Lock()
	defer st.mu.Unlock()
	now := time.Now()
	st.sweepLocked(now)
	e := st.entries[key]
	if e == nil {
		return nil
	}
	e.last = now
	out := make(map[string]string, len(e.opts))
	for k, v := range e.opts {
		out[k] = v
	}
	return out
}

func (st *sessionStore) update(key string, set map[string]string, unset []string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	now := time.Now()
	st.sweepLocked(now)
	e := st.entries[key]
	if e == nil {
		e = &sessionEntry{opts: map[string]string{}}
		st.entries[key] = e
	}
	e.last = now
	for k, v := range set {
		e.opts[k] = v
	}
	for _, k := range unset {
		delete(e.opts, k)
	}
	if len(e.opts) == 0 {
		delete(st.entries, key)
	}
}

func (st *sessionStore) close(key string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	delete(st.entries, key)
}

func (st *sessionStore) len() int {
	st.mu.Lock()
	defer st.mu.Unlock()
	return len(st.entries)
}

func (st *sessionStore) sweepLocked(now time.Time) {
	if now.Sub(st.sweep) < time.Minute && len(st.entries) < 10000 {
		return
	}
	st.sweep = now
	for k, e := range st.entries {
		if now.Sub(e.last) > st.ttl {
			delete(st.entries, k)
		}
	}
}

// optionString converts a session option value to its string form.
func optionString(v *flight.SessionOptionValue) (string, bool, error) {
	if v == nil || v.OptionValue == nil {
		return "", false, nil
	}
	switch x := v.OptionValue.(type) {
	case *pb.SessionOptionValue_StringValue:
		return x.StringValue, true, nil
	case *pb.SessionOptionValue_Int64Value:
		return strconv.FormatInt(x.Int64Value, 10), true, nil
	case *pb.SessionOptionValue_BoolValue:
		return strconv.FormatBool(x.BoolValue), true, nil
	case *pb.SessionOptionValue_DoubleValue:
		return strconv.FormatFloat(x.DoubleValue, 'f', -1, 64), true, nil
	}
	return "", false, fmt.Errorf("unsupported value type %T", v.OptionValue)
}

// validateOption checks one option value; it returns the canonical value.
func (s *Server) validateOption(ctx context.Context, name, val string) (string, error) {
	switch name {
	case OptCatalog:
		if !strings.EqualFold(val, s.cfg.Catalog) {
			return "", fmt.Errorf("unknown catalog %q (this server has one catalog, %q)", val, s.cfg.Catalog)
		}
		return s.cfg.Catalog, nil
	case OptSchema:
		dbs, err := s.cat.ListDatabases(ctx)
		if err != nil {
			return "", err
		}
		if !slices.Contains(dbs, val) {
			return "", fmt.Errorf("unknown schema (database) %q; databases: %s", val, strings.Join(dbs, ", "))
		}
		return val, nil
	case OptSnapshotID, OptTimestampMillis:
		n, err := strconv.ParseInt(val, 10, 64)
		if err != nil || n < 0 {
			return "", fmt.Errorf("%s must be a non-negative integer, got %q", name, val)
		}
		return strconv.FormatInt(n, 10), nil
	case OptTagName, OptBranch:
		if val == "" {
			return "", fmt.Errorf("%s must not be empty", name)
		}
		return val, nil
	case OptCompression:
		if _, err := parseCompression(val); err != nil {
			return "", err
		}
		return strings.ToLower(val), nil
	case OptMaxEndpoints:
		return validateMaxEndpoints(val)
	}
	return "", fmt.Errorf("unknown session option %q (known: catalog, schema, scan.snapshot-id, scan.tag-name, scan.timestamp-millis, branch, compression, max-endpoints)", name)
}

func isKnownOption(name string) bool {
	switch name {
	case OptCatalog, OptSchema, OptSnapshotID, OptTagName, OptTimestampMillis, OptBranch, OptCompression, OptMaxEndpoints:
		return true
	}
	return false
}

// effectiveOptions merges the stored session options with request headers
// of the same names (headers win).
func (s *Server) effectiveOptions(ctx context.Context) (map[string]string, error) {
	id, _ := IdentityFromContext(ctx)
	opts := s.sessions.get(sessionKeyOf(ctx, id))
	if opts == nil {
		opts = map[string]string{}
	}
	if md, ok := metadata.FromIncomingContext(ctx); ok {
		for _, name := range []string{OptCatalog, OptSchema, OptSnapshotID, OptTagName, OptTimestampMillis, OptBranch} {
			if v := md.Get(name); len(v) > 0 && v[0] != "" {
				cv, err := s.validateOption(ctx, name, v[0])
				if err != nil {
					return nil, fmt.Errorf("header %s: %w", name, err)
				}
				if isTimeTravel(name) {
					// A header time-travel option replaces the session's.
					for _, k := range timeTravelOptions {
						delete(opts, k)
					}
				}
				opts[name] = cv
			}
		}
	}
	return opts, nil
}

// sessionFor returns the engine session of the current call.
func (s *Server) sessionFor(ctx context.Context) (Session, error) {
	opts, err := s.effectiveOptions(ctx)
	if err != nil {
		return Session{}, err
	}
	id, _ := IdentityFromContext(ctx)
	sess := Session{Database: opts[OptSchema], Options: map[string]string{}, User: id.User}
	if sess.Database == "" {
		sess.Database = s.cat.DefaultDatabase()
	}
	for _, k := range scanOptions {
		if v, ok := opts[k]; ok {
			sess.Options[k] = v
		}
	}
	return sess, nil
}

// SetSessionOptions implements the Flight SetSessionOptions action.
func (q *sqlServer) SetSessionOptions(ctx context.Context, req *flight.SetSessionOptionsRequest) (*flight.SetSessionOptionsResult, error) {
	s := q.s
	noteCommand(ctx, "SetSessionOptions", "")
	res := &flight.SetSessionOptionsResult{Errors: map[string]*flight.SetSessionOptionsResultError{}}
	set := map[string]string{}
	var unset []string
	for name, v := range req.GetSessionOptions() {
		if !isKnownOption(name) {
			res.Errors[name] = &flight.SetSessionOptionsResultError{Value: flight.SetSessionOptionsResultErrorInvalidName}
			continue
		}
		str, present, err := optionString(v)
		if err != nil {
			res.Errors[name] = &flight.SetSessionOptionsResultError{Value: flight.SetSessionOptionsResultErrorInvalidValue}
			continue
		}
		if !present {
			unset = append(unset, name)
			continue
		}
		cv, err := s.validateOption(ctx, name, str)
		if err != nil {
			s.log.Debug("session option rejected", "option", name, "error", err)
			res.Errors[name] = &flight.SetSessionOptionsResultError{Value: flight.SetSessionOptionsResultErrorInvalidValue}
			continue
		}
		set[name] = cv
	}
	// Time-travel options are mutually exclusive: setting one replaces the others.
	for _, k := range timeTravelOptions {
		if _, ok := set[k]; ok {
			for _, other := range timeTravelOptions {
				if _, also := set[other]; other != k && !also {
					unset = append(unset, other)
				}
			}
		}
	}
	id, _ := IdentityFromContext(ctx)
	s.sessions.update(sessionKeyOf(ctx, id), set, unset)
	return res, nil
}

// GetSessionOptions implements the Flight GetSessionOptions action. catalog
// and schema are always reported.
func (q *sqlServer) GetSessionOptions(ctx context.Context, _ *flight.GetSessionOptionsRequest) (*flight.GetSessionOptionsResult, error) {
	s := q.s
	noteCommand(ctx, "GetSessionOptions", "")
	opts, err := s.effectiveOptions(ctx)
	if err != nil {
		return nil, s.toStatus(err, phasePlan)
	}
	if opts[OptCatalog] == "" {
		opts[OptCatalog] = s.cfg.Catalog
	}
	if opts[OptSchema] == "" {
		opts[OptSchema] = s.cat.DefaultDatabase()
	}
	out := make(map[string]any, len(opts))
	for k, v := range opts {
		out[k] = v
	}
	vals, err := flight.NewSessionOptionValues(out)
	if err != nil {
		return nil, s.toStatus(err, phaseExec)
	}
	return &flight.GetSessionOptionsResult{SessionOptions: vals}, nil
}

// CloseSession implements the Flight CloseSession action.
func (q *sqlServer) CloseSession(ctx context.Context, _ *flight.CloseSessionRequest) (*flight.CloseSessionResult, error) {
	noteCommand(ctx, "CloseSession", "")
	id, _ := IdentityFromContext(ctx)
	q.s.sessions.close(sessionKeyOf(ctx, id))
	return &flight.CloseSessionResult{Status: flight.CloseSessionResultClosed}, nil
}

// applySettings stores options set from SQL (SET name = value, USE db) in
// the caller's session, validated like SetSessionOptions.
func (s *Server) applySettings(ctx context.Context, settings map[string]string) error {
	set := map[string]string{}
	var unset []string
	for name, val := range settings {
		if !isKnownOption(name) {
			return fmt.Errorf("SET %s: unknown session option %q (known: catalog, schema, scan.snapshot-id, scan.tag-name, scan.timestamp-millis, branch, compression, max-endpoints)", name, name)
		}
		if strings.EqualFold(val, "default") || strings.EqualFold(val, "null") {
			unset = append(unset, name)
			continue
		}
		cv, err := s.validateOption(ctx, name, val)
		if err != nil {
			return fmt.Errorf("SET %s: %w", name, err)
		}
		set[name] = cv
		if isTimeTravel(name) {
			for _, other := range timeTravelOptions {
				if other != name {
					unset = append(unset, other)
				}
			}
		}
	}
	id, _ := IdentityFromContext(ctx)
	s.sessions.update(sessionKeyOf(ctx, id), set, unset)
	return nil
}

// settingStatement matches SQL that only sets session options.
var settingStatement = regexp.MustCompile(`(?is)^\s*(SET|USE)\s`)

func isSettingStatement(sql string) bool { return settingStatement.MatchString(sql) }

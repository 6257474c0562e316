package flightsql

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/klauspost/compress/zstd"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/timestamppb"
)

// sqlServer implements arrow-go's flightsql.Server on top of Server.
type sqlServer struct {
	flightsql.BaseServer
	s *Server
	// sqlInfoKeys are the registered SqlInfo keys (see sqlinfo.go).
	sqlInfoKeys map[uint32]bool
}

// execSpec is what it takes to run a statement anywhere: it is carried,
// signed, inside tickets and prepared-statement handles.
type execSpec struct {
	SQL    string            `json:"sql"`
	DB     string            `json:"db"`
	Opts   map[string]string `json:"opts,omitempty"`
	Params []byte            `json:"params,omitempty"` // Arrow IPC stream of bound parameter rows
	Sub    string            `json:"sub"`
	Exp    int64             `json:"exp"`
}

func (e execSpec) session() Session {
	opts := make(map[string]string, len(e.Opts))
	for k, v := range e.Opts {
		opts[k] = v
	}
	return Session{Database: e.DB, Options: opts, User: e.Sub}
}

// ticketClaims identify one endpoint of a query: partition Part, or, when
// Of > 0, the partitions Part, Part+Of, Part+2*Of, ... of the Parts the
// statement had when it was planned.
type ticketClaims struct {
	execSpec
	QID   string `json:"qid"`
	Part  int    `json:"part"`
	Of    int    `json:"of,omitempty"`
	Parts int    `json:"parts,omitempty"`
	// SplitsZ are the statement's planned scan splits (SplitsStatement),
	// zstd-compressed, so that a node without the cached plan reads them
	// without planning again; absent when they are too large: that node
	// then plans the statement again.
	SplitsZ []byte `json:"splits_z,omitempty"`
}

// Limits on the splits carried in tickets: compressed, one ticket's and all
// tickets' of a FlightInfo together (default gRPC clients refuse messages
// over 4 MiB); uncompressed, what is encoded at all (a 100k-file scan is
// not encoded to be dropped). Over any, tickets carry the SQL only.
const (
	ticketSplitsMax = 256 << 10
	infoSplitsMax   = 2 << 20
	rawSplitsMax    = 16 << 20
)

var (
	splitsEncoder, _ = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedDefault), zstd.WithEncoderConcurrency(1))
	splitsDecoder, _ = zstd.NewReader(nil, zstd.WithDecoderMaxMemory(rawSplitsMax), zstd.WithDecoderConcurrency(0))
)

// plannedSplits returns the compressed splits tickets of stmt should carry
// for eps endpoints (nil: none, or too large to carry).
func (s *Server) plannedSplits(stmt Statement, eps int, spec execSpec) []byte {
	ss, ok := stmt.(SplitsStatement)
	if !ok || len(spec.Params) > 0 {
		return nil
	}
	b, fits, err := ss.PlannedSplits(rawSplitsMax)
	if err != nil || !fits || len(b) > rawSplitsMax {
		s.metrics.ticketsNoSplits.Add(float64(eps))
		return nil
	}
	if len(b) == 0 {
		return nil
	}
	z := splitsEncoder.EncodeAll(b, nil)
	if len(z) > min(ticketSplitsMax, infoSplitsMax/max(eps, 1)) {
		s.metrics.ticketsNoSplits.Add(float64(eps))
		return nil
	}
	return z
}

// ticketSplits decompresses the splits a ticket carries (nil when none).
func ticketSplits(z []byte) ([]byte, error) {
	if len(z) == 0 {
		return nil, nil
	}
	b, err := splitsDecoder.DecodeAll(z, nil)
	if err != nil {
		return nil, fmt.Errorf("ticket splits: %w", err)
	}
	return b, nil
}

// handleClaims are a stateless prepared statement.
type handleClaims struct {
	execSpec
	ID string `json:"id"`
}

// checkSpec verifies expiry and ownership of a ticket or handle.
func (s *Server) checkSpec(ctx context.Context, what string, e execSpec) error {
	if time.Now().Unix() >= e.Exp {
		return status.Errorf(codes.InvalidArgument, "%s expired at %s; plan the statement again", what, time.Unix(e.Exp, 0).UTC().Format(time.RFC3339))
	}
	if s.cfg.NoAuth {
		return nil
	}
	id, _ := IdentityFromContext(ctx)
	if id.User != e.Sub {
		return status.Errorf(codes.PermissionDenied, "%s was issued to user %q, not %q", what, e.Sub, id.User)
	}
	return nil
}

func (s *Server) openHandle(ctx context.Context, b []byte) (handleClaims, error) {
	var h handleClaims
	if err := s.sign.open(purposeHandle, b, &h); err != nil {
		return h, status.Error(codes.InvalidArgument, err.Error())
	}
	return h, s.checkSpec(ctx, "prepared statement handle", h.execSpec)
}

func (s *Server) sealHandle(h handleClaims) ([]byte, error) {
	b, err := s.sign.seal(purposeHandle, h)
	if err != nil {
		return nil, status.Error(codes.Internal, err.Error())
	}
	return b, nil
}

// planCtx bounds planning by the per-query timeout.
func (s *Server) planCtx(ctx context.Context) (context.Context, context.CancelFunc) {
	if s.cfg.QueryTimeout > 0 {
		return context.WithTimeoutCause(ctx, s.cfg.QueryTimeout, fmt.Errorf("query exceeded the server's per-query timeout of %s", s.cfg.QueryTimeout))
	}
	return context.WithCancel(ctx)
}

// prepare plans sql and maps errors to gRPC codes.
func (s *Server) prepare(ctx context.Context, sql string, sess Session, kind string) (Statement, error) {
	s.metrics.queries.WithLabelValues(kind).Inc()
	ctx, release, err := s.admit(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	ctx, cancel := s.planCtx(ctx)
	defer cancel()
	stmt, err := s.eng.Prepare(ctx, sql, sess)
	if err != nil {
		if cause := context.Cause(ctx); cause != nil && ctx.Err() != nil && errors.Is(err, ctx.Err()) {
			err = fmt.Errorf("%w: %v", ctx.Err(), cause)
		}
		return nil, s.toStatus(err, phasePlan)
	}
	if stmt == nil {
		return nil, status.Errorf(codes.Internal, "engine returned no statement for %q", sql)
	}
	if ss, ok := stmt.(SettingStatement); ok && len(ss.Settings()) > 0 {
		if err := s.applySettings(ctx, ss.Settings()); err != nil {
			return nil, status.Error(codes.InvalidArgument, err.Error())
		}
	}
	if ps, ok := stmt.(PruningStatsStatement); ok {
		for k, v := range ps.PruningStats() {
			s.metrics.pruning.WithLabelValues(k).Add(float64(v))
		}
	}
	return stmt, nil
}

func (s *Server) newSpec(ctx context.Context, sql string, sess Session) execSpec {
	id, _ := IdentityFromContext(ctx)
	return execSpec{SQL: sql, DB: sess.Database, Opts: sess.Options, Sub: id.User,
		Exp: time.Now().Add(s.cfg.HandleTTL).Unix()}
}

// flightInfo describes a planned query: schema always set, one endpoint per
// partition, total_records when known, ordered only when the plan is.
func (s *Server) flightInfo(ctx context.Context, stmt Statement, spec execSpec, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	if p, ok := stmt.(PinnedStatement); ok {
		pinned := p.PinnedOptions()
		if len(pinned) > 0 {
			opts := make(map[string]string, len(spec.Opts)+len(pinned))
			for k, v := range spec.Opts {
				opts[k] = v
			}
			if _, ok := pinned[OptSnapshotID]; ok {
				// The pinned snapshot replaces the tag or timestamp it was resolved from.
				delete(opts, OptTagName)
				delete(opts, OptTimestampMillis)
			}
			for k, v := range pinned {
				opts[k] = v
			}
			spec.Opts = opts
		}
	}
	n := stmt.NumPartitions()
	if n < 1 {
		n = 1
	}
	eps, of := s.endpointCount(ctx, stmt, n)
	qid := queryIDOf(ctx) // the id the call's log line and errors carry
	if qid == "" {
		qid = newQueryID()
	}
	info := &flight.FlightInfo{
		Schema:           flight.SerializeSchema(resultSchema(stmt.Schema()), s.mem),
		FlightDescriptor: desc,
		TotalRecords:     -1,
		TotalBytes:       -1,
		Ordered:          stmt.Ordered(),
	}
	if rows, known := stmt.RowCount(); known && len(spec.Params) == 0 {
		info.TotalRecords = rows
	}
	splits := s.plannedSplits(stmt, eps, spec)
	for part := 0; part < eps; part++ {
		c := ticketClaims{execSpec: spec, QID: qid, Part: part, SplitsZ: splits}
		if of > 0 {
			c.Of, c.Parts = of, n
		}
		b, err := s.sign.seal(purposeTicket, c)
		if err != nil {
			return nil, status.Error(codes.Internal, err.Error())
		}
		tkt, err := flightsql.CreateStatementQueryTicket(b)
		if err != nil {
			return nil, status.Error(codes.Internal, err.Error())
		}
		info.Endpoint = append(info.Endpoint, &flight.FlightEndpoint{Ticket: &flight.Ticket{Ticket: tkt},
			ExpirationTime: timestamppb.New(time.Unix(spec.Exp, 0))})
	}
	if s.peers != nil {
		s.peers.assign(info.Endpoint, endpointWeights(stmt, eps, of, n))
	}
	s.plans.put(qid, spec, stmt, eps, time.Unix(spec.Exp, 0))
	return info, nil
}

func (q *sqlServer) GetFlightInfoStatement(ctx context.Context, cmd flightsql.StatementQuery, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	s := q.s
	noteCommand(ctx, "CommandStatementQuery", cmd.GetQuery())
	sess, err := s.sessionFor(ctx)
	if err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	stmt, err := s.prepare(ctx, cmd.GetQuery(), sess, "query")
	if err != nil {
		return nil, err
	}
	if stmt.IsUpdate() {
		return nil, status.Errorf(codes.InvalidArgument, "%q is an update statement: run it with DoPut CommandStatementUpdate (executeUpdate)", abbreviate(cmd.GetQuery()))
	}
	if len(stmt.ParamTypes()) > 0 {
		return nil, status.Errorf(codes.InvalidArgument, "%q has %d ? placeholders: prepare it and bind parameters", abbreviate(cmd.GetQuery()), len(stmt.ParamTypes()))
	}
	return s.flightInfo(ctx, stmt, s.newSpec(ctx, cmd.GetQuery(), sess), desc)
}

func (q *sqlServer) GetSchemaStatement(ctx context.Context, cmd flightsql.StatementQuery, _ *flight.FlightDescriptor) (*flight.SchemaResult, error) {
	s := q.s
	noteCommand(ctx, "GetSchema CommandStatementQuery", cmd.GetQuery())
	sess, err := s.sessionFor(ctx)
	if err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	stmt, err := s.prepare(ctx, cmd.GetQuery(), sess, "schema")
	if err != nil {
		return nil, err
	}
	return &flight.SchemaResult{Schema: flight.SerializeSchema(resultSchema(stmt.Schema()), s.mem)}, nil
}

func (q *sqlServer) DoPutCommandStatementUpdate(ctx context.Context, cmd flightsql.StatementUpdate) (int64, error) {
	s := q.s
	noteCommand(ctx, "CommandStatementUpdate", cmd.GetQuery())
	if isSettingStatement(cmd.GetQuery()) {
		// SET/USE change the session, not data: read-only users may run them.
		sess, err := s.sessionFor(ctx)
		if err != nil {
			return 0, status.Error(codes.InvalidArgument, err.Error())
		}
		_, err = s.prepare(ctx, cmd.GetQuery(), sess, "update")
		return 0, err
	}
	if err := s.checkWrite(ctx, cmd.GetQuery()); err != nil {
		return 0, err
	}
	sess, err := s.sessionFor(ctx)
	if err != nil {
		return 0, status.Error(codes.InvalidArgument, err.Error())
	}
	stmt, err := s.prepare(ctx, cmd.GetQuery(), sess, "update")
	if err != nil {
		return 0, err
	}
	if !stmt.IsUpdate() {
		return 0, status.Errorf(codes.InvalidArgument, "%q is a query, not an update: run it with GetFlightInfo CommandStatementQuery", abbreviate(cmd.GetQuery()))
	}
	if len(stmt.ParamTypes()) > 0 {
		return 0, status.Errorf(codes.InvalidArgument, "%q has %d ? placeholders: prepare it and bind parameters", abbreviate(cmd.GetQuery()), len(stmt.ParamTypes()))
	}
	n, err := s.runUpdate(ctx, stmt, [][]any{nil})
	s.logWrite(ctx, cmd.GetQuery(), n, err)
	return n, err
}

// logWrite records every write statement with its user.
func (s *Server) logWrite(ctx context.Context, sql string, rows int64, err error) {
	id, _ := IdentityFromContext(ctx)
	if err != nil {
		s.log.Warn("write failed", "user", id.User, "sql", abbreviate(sql), "error", err)
		return
	}
	s.log.Info("write", "user", id.User, "sql", abbreviate(sql), "rows", rows)
}

func (s *Server) checkWrite(ctx context.Context, sql string) error {
	id, _ := IdentityFromContext(ctx)
	if id.ReadOnly {
		return status.Errorf(codes.PermissionDenied, "user %q is read-only and may not run %q", id.User, abbreviate(sql))
	}
	return nil
}

func (s *Server) runUpdate(ctx context.Context, stmt Statement, rows [][]any) (int64, error) {
	ctx, release, err := s.admit(ctx)
	if err != nil {
		return 0, err
	}
	defer release()
	ctx, cancel := s.planCtx(ctx)
	defer cancel()
	var total int64
	for _, params := range rows {
		n, err := stmt.ExecuteUpdate(ctx, params)
		if err != nil {
			return total, s.toStatus(err, phaseExec)
		}
		total += n
	}
	s.metrics.updatesRows.Add(float64(total))
	return total, nil
}

// Prepared statements are stateless: the handle is the signed SQL, session
// and bound parameters. Binding returns a new handle; the old one stays
// valid (JDBC closes with the original handle).

func paramSchema(types []arrow.DataType) *arrow.Schema {
	fields := make([]arrow.Field, len(types))
	for i, t := range types {
		fields[i] = arrow.Field{Name: "$" + strconv.Itoa(i+1), Type: classicType(t), Nullable: true}
	}
	return arrow.NewSchema(fields, nil)
}

func (q *sqlServer) CreatePreparedStatement(ctx context.Context, req flightsql.ActionCreatePreparedStatementRequest) (flightsql.ActionCreatePreparedStatementResult, error) {
	s := q.s
	var res flightsql.ActionCreatePreparedStatementResult
	noteCommand(ctx, "CreatePreparedStatement", req.GetQuery())
	if len(req.GetTransactionId()) > 0 {
		return res, status.Error(codes.Unimplemented, "transactions are not supported")
	}
	sess, err := s.sessionFor(ctx)
	if err != nil {
		return res, status.Error(codes.InvalidArgument, err.Error())
	}
	stmt, err := s.prepare(ctx, req.GetQuery(), sess, "prepare")
	if err != nil {
		return res, err
	}
	h, err := s.sealHandle(handleClaims{execSpec: s.newSpec(ctx, req.GetQuery(), sess), ID: randomID()})
	if err != nil {
		return res, err
	}
	isUpdate := stmt.IsUpdate()
	res.Handle = h
	res.IsUpdate = &isUpdate
	res.ParameterSchema = paramSchema(stmt.ParamTypes())
	if isUpdate {
		res.DatasetSchema = arrow.NewSchema(nil, nil)
	} else {
		res.DatasetSchema = resultSchema(stmt.Schema())
	}
	return res, nil
}

func (q *sqlServer) ClosePreparedStatement(ctx context.Context, req flightsql.ActionClosePreparedStatementRequest) error {
	noteCommand(ctx, "ClosePreparedStatement", "")
	var h handleClaims
	// Stateless: nothing to free. Reject only handles we did not issue;
	// expired ones close fine.
	if err := q.s.sign.open(purposeHandle, req.GetPreparedStatementHandle(), &h); err != nil {
		return status.Error(codes.InvalidArgument, err.Error())
	}
	return nil
}

func (q *sqlServer) DoPutPreparedStatementQuery(ctx context.Context, cmd flightsql.PreparedStatementQuery, rdr flight.MessageReader, _ flight.MetadataWriter) ([]byte, error) {
	s := q.s
	h, err := s.openHandle(ctx, cmd.GetPreparedStatementHandle())
	if err != nil {
		return nil, err
	}
	noteCommand(ctx, "DoPut CommandPreparedStatementQuery (bind)", h.SQL)
	rows, ipcBytes, err := readParamRows(s.mem, rdr)
	if err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	stmt, err := s.prepareBound(ctx, h.SQL, h.session(), "bind", ipcBytes)
	if err != nil {
		return nil, err
	}
	if err := checkParamCount(stmt, rows, h.SQL); err != nil {
		return nil, err
	}
	h.Params = ipcBytes
	h.ID = randomID()
	// Always return a handle: JDBC replaces its handle with the reply.
	return s.sealHandle(h)
}

func checkParamCount(stmt Statement, rows [][]any, sql string) error {
	want := len(stmt.ParamTypes())
	if len(rows) > 0 && len(rows[0]) != want {
		return status.Errorf(codes.InvalidArgument, "%q has %d ? placeholders but %d parameter columns were bound", abbreviate(sql), want, len(rows[0]))
	}
	if len(rows) == 0 && want > 0 {
		return status.Errorf(codes.InvalidArgument, "%q has %d ? placeholders but no parameters were bound", abbreviate(sql), want)
	}
	return nil
}

func (q *sqlServer) GetFlightInfoPreparedStatement(ctx context.Context, cmd flightsql.PreparedStatementQuery, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	s := q.s
	h, err := s.openHandle(ctx, cmd.GetPreparedStatementHandle())
	if err != nil {
		return nil, err
	}
	noteCommand(ctx, "CommandPreparedStatementQuery", h.SQL)
	stmt, err := s.prepareBound(ctx, h.SQL, h.session(), "query", h.Params)
	if err != nil {
		return nil, err
	}
	if stmt.IsUpdate() {
		return nil, status.Errorf(codes.InvalidArgument, "%q is an update statement: execute it with DoPut CommandPreparedStatementUpdate", abbreviate(h.SQL))
	}
	rows, err := decodeParamRows(s.mem, h.Params)
	if err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	if err := checkParamCount(stmt, rows, h.SQL); err != nil {
		return nil, err
	}
	spec := h.execSpec
	spec.Exp = time.Now().Add(s.cfg.HandleTTL).Unix()
	return s.flightInfo(ctx, stmt, spec, desc)
}

func (q *sqlServer) GetSchemaPreparedStatement(ctx context.Context, cmd flightsql.PreparedStatementQuery, _ *flight.FlightDescriptor) (*flight.SchemaResult, error) {
	s := q.s
	h, err := s.openHandle(ctx, cmd.GetPreparedStatementHandle())
	if err != nil {
		return nil, err
	}
	noteCommand(ctx, "GetSchema CommandPreparedStatementQuery", h.SQL)
	stmt, err := s.prepareBound(ctx, h.SQL, h.session(), "schema", h.Params)
	if err != nil {
		return nil, err
	}
	return &flight.SchemaResult{Schema: flight.SerializeSchema(resultSchema(stmt.Schema()), s.mem)}, nil
}

func (q *sqlServer) DoPutPreparedStatementUpdate(ctx context.Context, cmd flightsql.PreparedStatementUpdate, rdr flight.MessageReader) (int64, error) {
	s := q.s
	h, err := s.openHandle(ctx, cmd.GetPreparedStatementHandle())
	if err != nil {
		return 0, err
	}
	noteCommand(ctx, "CommandPreparedStatementUpdate", h.SQL)
	if err := s.checkWrite(ctx, h.SQL); err != nil {
		return 0, err
	}
	rows, _, err := readParamRows(s.mem, rdr)
	if err != nil {
		return 0, status.Error(codes.InvalidArgument, err.Error())
	}
	if len(rows) == 0 {
		if rows, err = decodeParamRows(s.mem, h.Params); err != nil {
			return 0, status.Error(codes.InvalidArgument, err.Error())
		}
	}
	stmt, err := s.prepare(ctx, h.SQL, h.session(), "update")
	if err != nil {
		return 0, err
	}
	if !stmt.IsUpdate() {
		return 0, status.Errorf(codes.InvalidArgument, "%q is a query, not an update", abbreviate(h.SQL))
	}
	if err := checkParamCount(stmt, rows, h.SQL); err != nil {
		return 0, err
	}
	if len(rows) == 0 {
		rows = [][]any{nil}
	}
	n, err := s.runUpdate(ctx, stmt, rows)
	s.logWrite(ctx, h.SQL, n, err)
	return n, err
}

func (q *sqlServer) BeginTransaction(ctx context.Context, _ flightsql.ActionBeginTransactionRequest) ([]byte, error) {
	noteCommand(ctx, "BeginTransaction", "")
	return nil, status.Error(codes.Unimplemented, "transactions are not supported (each statement commits on its own)")
}

// CancelFlightInfo cancels the query behind the FlightInfo's tickets: running
// streams on this node stop, and later DoGets of those tickets fail.
func (q *sqlServer) CancelFlightInfo(ctx context.Context, req *flight.CancelFlightInfoRequest) (flight.CancelFlightInfoResult, error) {
	s := q.s
	noteCommand(ctx, "CancelFlightInfo", "")
	info := req.GetInfo()
	if info == nil || len(info.GetEndpoint()) == 0 {
		return flight.CancelFlightInfoResult{}, status.Error(codes.InvalidArgument, "CancelFlightInfo needs a FlightInfo with endpoints")
	}
	seen := map[string]bool{}
	for _, ep := range info.GetEndpoint() {
		t, err := flightsql.GetStatementQueryTicket(ep.GetTicket())
		if err != nil {
			continue // metadata tickets are not cancellable
		}
		var c ticketClaims
		if err := s.sign.open(purposeTicket, t.GetStatementHandle(), &c); err != nil {
			return flight.CancelFlightInfoResult{}, status.Error(codes.InvalidArgument, err.Error())
		}
		if err := s.checkSpec(ctx, "ticket", c.execSpec); err != nil {
			return flight.CancelFlightInfoResult{}, err
		}
		if !seen[c.QID] {
			seen[c.QID] = true
			n := s.queries.cancel(c.QID, time.Unix(c.Exp, 0))
			s.plans.drop(c.QID)
			s.metrics.cancelledByRPC()
			s.log.Info("query cancelled", "qid", c.QID, "running_streams", n)
		}
	}
	if len(seen) == 0 {
		return flight.CancelFlightInfoResult{Status: flight.CancelStatusNotCancellable}, nil
	}
	return flight.CancelFlightInfoResult{Status: flight.CancelStatusCancelled}, nil
}

// compressionFor picks the IPC compression of a DoGet: header, then session
// option, else none.
func (s *Server) compressionFor(ctx context.Context) ([]ipc.Option, string, error) {
	val := ""
	if md, ok := metadata.FromIncomingContext(ctx); ok {
		if v := md.Get(CompressionHeader); len(v) > 0 {
			val = v[0]
		}
	}
	if val == "" {
		id, _ := IdentityFromContext(ctx)
		val = s.sessions.get(sessionKeyOf(ctx, id))[OptCompression]
	}
	c, err := parseCompression(val)
	if err != nil {
		return nil, "", err
	}
	switch c {
	case "zstd":
		return []ipc.Option{ipc.WithZstd(), ipc.WithCompressConcurrency(2), ipc.WithMinSpaceSavings(0.1)}, c, nil
	case "lz4":
		return []ipc.Option{ipc.WithLZ4(), ipc.WithCompressConcurrency(2), ipc.WithMinSpaceSavings(0.1)}, c, nil
	}
	return nil, "none", nil
}

func parseCompression(v string) (string, error) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "", "none", "off":
		return "none", nil
	case "zstd":
		return "zstd", nil
	case "lz4", "lz4_frame", "lz4-frame":
		return "lz4", nil
	}
	return "", fmt.Errorf("unknown IPC compression %q (want none, zstd or lz4)", v)
}

func abbreviate(sql string) string {
	sql = strings.Join(strings.Fields(sql), " ")
	if len(sql) > 120 {
		return sql[:120] + "…"
	}
	return sql
}

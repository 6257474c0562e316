package flightsql

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/paimon-flightsql/paimon-flightsql/internal/bufpool"
)

// doGetTicket streams one endpoint of a statement query.
func (s *Server) doGetTicket(stream flight.FlightService_DoGetServer, handle []byte) error {
	ctx := stream.Context()
	var c ticketClaims
	if err := s.sign.open(purposeTicket, handle, &c); err != nil {
		return status.Error(codes.InvalidArgument, err.Error())
	}
	noteCommand(ctx, "DoGet TicketStatementQuery", c.SQL)
	noteQueryID(ctx, c.QID)
	if err := s.checkSpec(ctx, "ticket", c.execSpec); err != nil {
		return err
	}
	return s.stream(stream, c.execSpec, c.QID, &c)
}

// doGetPrepared streams all partitions of a prepared query (clients that
// DoGet the CommandPreparedStatementQuery directly).
func (s *Server) doGetPrepared(stream flight.FlightService_DoGetServer, handle []byte) error {
	ctx := stream.Context()
	h, err := s.openHandle(ctx, handle)
	if err != nil {
		return err
	}
	noteCommand(ctx, "DoGet CommandPreparedStatementQuery", h.SQL)
	noteQueryID(ctx, h.ID)
	return s.stream(stream, h.execSpec, h.ID, nil)
}

// stream plans spec and writes the partitions of endpoint ep (nil = all
// partitions) for every bound parameter row to the client.
func (s *Server) stream(stream flight.FlightService_DoGetServer, spec execSpec, qid string, ep *ticketClaims) (err error) {
	ctx, done, err := s.queries.begin(stream.Context(), qid)
	if err != nil {
		return status.Error(codes.Canceled, err.Error())
	}
	defer done()
	ctx, release, err := s.admitQuery(ctx, qid)
	if err != nil {
		return err
	}
	defer release()
	if s.cfg.QueryTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, s.cfg.QueryTimeout, fmt.Errorf("query exceeded the server's per-query timeout of %s", s.cfg.QueryTimeout))
		defer cancel()
	}
	s.metrics.streamsActive.Inc()
	defer s.metrics.streamsActive.Dec()

	var rows int64
	var wr *recordWriter
	defer func() {
		var sent int64
		if wr != nil {
			sent = wr.Bytes()
		}
		noteTransfer(stream.Context(), rows, sent)
		s.metrics.rowsSent.Add(float64(rows))
		s.metrics.bytesSent.Add(float64(sent))
		if err != nil && ctx.Err() != nil {
			// Report why the context ended rather than the symptom.
			if cause := context.Cause(ctx); cause != nil {
				code := codes.Canceled
				if errors.Is(ctx.Err(), context.DeadlineExceeded) {
					code = codes.DeadlineExceeded
				}
				err = status.Error(code, cause.Error())
			}
		}
	}()

	comp, _, err := s.compressionFor(stream.Context())
	if err != nil {
		return status.Error(codes.InvalidArgument, err.Error())
	}
	// A ticket of one endpoint reuses the plan GetFlightInfo made on this
	// node, if it is still cached; otherwise the statement is prepared
	// again, opening the splits the ticket carries (no scan planning), or,
	// for tickets without splits, planning it again.
	var stmt Statement
	var pool *bufpool.Pool
	mem := s.mem
	if ep != nil {
		var release func()
		if stmt, pool, release = s.plans.get(qid, spec); stmt != nil {
			mem = pool
			s.metrics.plansReused.Inc()
			// Runs after the deferred wait below: every batch sent is freed.
			defer release()
		}
	}
	if stmt == nil {
		sess := spec.session()
		kind := "execute"
		if ep != nil && len(ep.SplitsZ) > 0 {
			if sess.Splits, err = ticketSplits(ep.SplitsZ); err != nil {
				return status.Error(codes.InvalidArgument, err.Error())
			}
			kind = "execute_splits"
		}
		if stmt, err = s.prepareBound(ctx, spec.SQL, sess, kind, spec.Params); err != nil {
			return err
		}
		if ep != nil && !stmt.IsUpdate() {
			// Keep it for the query's other endpoints this node serves (a
			// peer named in the locations, or after eviction): they reuse it
			// as the planning node's endpoints do.
			eps := ep.Of
			if eps == 0 {
				eps = max(stmt.NumPartitions(), 1)
			}
			s.plans.put(qid, spec, stmt, eps, time.Unix(spec.Exp, 0))
			if cached, p, release := s.plans.get(qid, spec); cached != nil {
				stmt, pool, mem = cached, p, p
				defer release()
			}
		}
	}
	if stmt.IsUpdate() {
		return status.Errorf(codes.InvalidArgument, "%q is an update statement and has no result stream", abbreviate(spec.SQL))
	}
	paramRows, err := decodeParamRows(s.mem, spec.Params)
	if err != nil {
		return status.Error(codes.InvalidArgument, err.Error())
	}
	if err := checkParamCount(stmt, paramRows, spec.SQL); err != nil {
		return err
	}
	if len(paramRows) == 0 {
		paramRows = [][]any{nil}
	}
	n := max(stmt.NumPartitions(), 1)
	var parts []int
	switch {
	case ep == nil:
		for i := 0; i < n; i++ {
			parts = append(parts, i)
		}
	case ep.Of > 0:
		if ep.Parts != n || ep.Part < 0 || ep.Part >= ep.Of {
			return status.Errorf(codes.InvalidArgument, "ticket names endpoint %d of %d over %d partitions but %q now has %d partitions; run GetFlightInfo again", ep.Part, ep.Of, ep.Parts, abbreviate(spec.SQL), n)
		}
		for i := ep.Part; i < n; i += ep.Of {
			parts = append(parts, i)
		}
	default:
		if ep.Part < 0 || ep.Part >= n {
			return status.Errorf(codes.InvalidArgument, "ticket names partition %d but %q now has %d partitions; run GetFlightInfo again", ep.Part, abbreviate(spec.SQL), stmt.NumPartitions())
		}
		parts = []int{ep.Part}
	}

	sc := resultSchema(stmt.Schema())
	opts := append([]ipc.Option{ipc.WithSchema(sc), ipc.WithAllocator(s.mem)}, comp...)
	wr = newRecordWriter(stream, opts...)
	defer func() {
		if cerr := wr.Close(); cerr != nil && err == nil {
			err = s.toStatus(cerr, phaseExec)
		}
		// The batches sent by reference must outlive gRPC's use of them.
		if n := wr.Wait(ctx); n > 0 {
			s.metrics.batchesAbandoned.Add(float64(n))
		}
	}()

	co := &coalescer{s: s, wr: wr}
	defer co.release()
	for _, params := range paramRows {
		for _, part := range parts {
			n, err := s.streamPart(ctx, co, stmt, sc, params, part, mem, pool)
			rows += n
			if err != nil {
				return err
			}
		}
	}
	if err := co.flush(); err != nil {
		return err
	}
	if ep != nil {
		s.plans.done(qid, ep.Part)
	}
	return nil
}

func (s *Server) streamPart(ctx context.Context, co *coalescer, stmt Statement, sc *arrow.Schema, params []any, part int, mem memory.Allocator, pool *bufpool.Pool) (int64, error) {
	var rdr array.RecordReader
	var err error
	if ps, ok := stmt.(PoolStatement); ok && pool != nil {
		rdr, err = ps.ExecuteWithPool(ctx, mem, pool, params, part)
	} else {
		rdr, err = stmt.Execute(ctx, mem, params, part)
	}
	if err != nil {
		return 0, s.toStatus(err, phaseExec)
	}
	defer rdr.Release()
	var rows int64
	for rdr.Next() {
		if err := ctx.Err(); err != nil {
			return rows, status.FromContextError(err).Err()
		}
		rec, err := toClassicRecord(s.mem, sc, rdr.RecordBatch())
		if err != nil {
			return rows, status.Error(codes.Internal, err.Error())
		}
		n := rec.NumRows()
		err = co.add(rec)
		if err != nil {
			return rows, err
		}
		rows += n
	}
	if err := rdr.Err(); err != nil {
		return rows, s.toStatus(err, phaseExec)
	}
	if err := ctx.Err(); err != nil {
		return rows, status.FromContextError(err).Err()
	}
	return rows, nil
}

const defaultMaxMessageBytes = 4 << 20

// coalesceRows bounds the batches streamPart merges: batches with fewer
// rows are collected until the next one would exceed it.
const coalesceRows = 1024

// coalescer sends the batches of a stream, merging consecutive tiny ones
// (one per small data file or partition) up to coalesceRows: fewer IPC
// messages, and clients that read "the first batch" of a small result get
// all of it.
type coalescer struct {
	s           *Server
	wr          *recordWriter
	pending     []arrow.RecordBatch
	pendingRows int64
}

// add takes ownership of rec.
func (c *coalescer) add(rec arrow.RecordBatch) error {
	if rec.NumRows() < coalesceRows && c.pendingRows+rec.NumRows() <= coalesceRows {
		c.pending = append(c.pending, rec)
		c.pendingRows += rec.NumRows()
		return nil
	}
	if err := c.flush(); err != nil {
		rec.Release()
		return err
	}
	defer rec.Release()
	return c.send(rec)
}

func (c *coalescer) send(rec arrow.RecordBatch) error {
	if err := c.s.writeBatch(c.wr, rec); err != nil {
		return c.s.toStatus(err, phaseExec)
	}
	return nil
}

func (c *coalescer) flush() error {
	defer c.release()
	switch len(c.pending) {
	case 0:
		return nil
	case 1:
		return c.send(c.pending[0])
	}
	merged, err := concatBatches(c.s.mem, c.pending)
	if err != nil {
		// A type Concatenate cannot merge: send the batches as they are.
		for _, r := range c.pending {
			if err := c.send(r); err != nil {
				return err
			}
		}
		return nil
	}
	defer merged.Release()
	return c.send(merged)
}

func (c *coalescer) release() {
	for _, r := range c.pending {
		r.Release()
	}
	c.pending, c.pendingRows = nil, 0
}

// concatBatches concatenates batches of one schema column by column.
func concatBatches(mem memory.Allocator, recs []arrow.RecordBatch) (arrow.RecordBatch, error) {
	sc := recs[0].Schema()
	cols := make([]arrow.Array, sc.NumFields())
	var n int64
	for _, r := range recs {
		n += r.NumRows()
	}
	parts := make([]arrow.Array, len(recs))
	for c := range cols {
		for i, r := range recs {
			parts[i] = r.Column(c)
		}
		col, err := array.Concatenate(parts, mem)
		if err != nil {
			for _, done := range cols[:c] {
				done.Release()
			}
			return nil, fmt.Errorf("merging small batches: column %s: %w", sc.Field(c).Name, err)
		}
		cols[c] = col
	}
	out := array.NewRecordBatch(sc, cols, n)
	for _, c := range cols {
		c.Release()
	}
	return out, nil
}

// writeBatch sends rec, as slices of about half of MaxMessageBytes when it
// is larger than that, so that skewed row sizes still stay under the limit.
// Slicing copies nothing but the offsets of variable-width columns.
func (s *Server) writeBatch(wr *recordWriter, rec arrow.RecordBatch) error {
	limit := s.cfg.MaxMessageBytes
	rows := rec.NumRows()
	if limit <= 0 || rows <= 1 {
		return wr.Write(rec)
	}
	size := batchBytes(rec)
	if size <= int64(limit) {
		return wr.Write(rec)
	}
	per := max(1, int64(float64(rows)*float64(limit)/2/float64(size)))
	for off := int64(0); off < rows; off += per {
		sl := rec.NewSlice(off, min(off+per, rows))
		err := wr.Write(sl)
		sl.Release()
		if err != nil {
			return err
		}
	}
	return nil
}

// batchBytes is the size of rec's buffers (an upper bound for a slice).
func batchBytes(rec arrow.RecordBatch) int64 {
	var n int64
	var add func(d arrow.ArrayData)
	add = func(d arrow.ArrayData) {
		if isNilData(d) {
			return
		}
		for _, b := range d.Buffers() {
			if b != nil {
				n += int64(b.Len())
			}
		}
		for _, c := range d.Children() {
			add(c)
		}
		add(d.Dictionary())
	}
	for _, c := range rec.Columns() {
		add(c.Data())
	}
	return n
}

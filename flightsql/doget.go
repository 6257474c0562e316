package flightsql

import (
	"context"
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// countingStream counts the IPC bytes sent on a DoGet stream.
type countingStream struct {
	flight.FlightService_DoGetServer
	bytes int64
}

func (c *countingStream) Send(d *flight.FlightData) error {
	c.bytes += int64(len(d.DataHeader) + len(d.DataBody))
	return c.FlightService_DoGetServer.Send(d)
}

// doGetTicket streams one endpoint of a statement query.
func (s *Server) doGetTicket(stream flight.FlightService_DoGetServer, handle []byte) error {
	ctx := stream.Context()
	var c ticketClaims
	if err := s.sign.open(purposeTicket, handle, &c); err != nil {
		return status.Error(codes.InvalidArgument, err.Error())
	}
	noteCommand(ctx, "DoGet TicketStatementQuery", c.SQL)
	if err := s.checkSpec(ctx, "ticket", c.execSpec); err != nil {
		return err
	}
	return s.stream(stream, c.execSpec, c.QID, []int{c.Part})
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
	return s.stream(stream, h.execSpec, h.ID, nil)
}

// stream plans spec and writes the given partitions (nil = all) for every
// bound parameter row to the client.
func (s *Server) stream(stream flight.FlightService_DoGetServer, spec execSpec, qid string, parts []int) (err error) {
	ctx, done, err := s.queries.begin(stream.Context(), qid)
	if err != nil {
		return status.Error(codes.Canceled, err.Error())
	}
	defer done()
	if s.cfg.QueryTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, s.cfg.QueryTimeout, fmt.Errorf("query exceeded the server's per-query timeout of %s", s.cfg.QueryTimeout))
		defer cancel()
	}
	s.metrics.gaugeAdd("streams_active", 1)
	defer s.metrics.gaugeAdd("streams_active", -1)

	cs := &countingStream{FlightService_DoGetServer: stream}
	var rows int64
	defer func() {
		noteTransfer(stream.Context(), rows, cs.bytes)
		s.metrics.add("rows_sent_total", float64(rows))
		s.metrics.add("bytes_sent_total", float64(cs.bytes))
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
	stmt, err := s.prepare(ctx, spec.SQL, spec.session(), "execute")
	if err != nil {
		return err
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
	if parts == nil {
		n := max(stmt.NumPartitions(), 1)
		for i := 0; i < n; i++ {
			parts = append(parts, i)
		}
	} else if parts[0] < 0 || parts[0] >= max(stmt.NumPartitions(), 1) {
		return status.Errorf(codes.InvalidArgument, "ticket names partition %d but %q now has %d partitions; run GetFlightInfo again", parts[0], abbreviate(spec.SQL), stmt.NumPartitions())
	}

	sc := resultSchema(stmt.Schema())
	opts := append([]ipc.Option{ipc.WithSchema(sc), ipc.WithAllocator(s.mem)}, comp...)
	wr := flight.NewRecordWriter(cs, opts...)
	defer func() {
		if cerr := wr.Close(); cerr != nil && err == nil {
			err = s.toStatus(cerr, phaseExec)
		}
	}()

	for _, params := range paramRows {
		for _, part := range parts {
			n, err := s.streamPart(ctx, wr, stmt, sc, params, part)
			rows += n
			if err != nil {
				return err
			}
		}
	}
	return nil
}

func (s *Server) streamPart(ctx context.Context, wr *flight.Writer, stmt Statement, sc *arrow.Schema, params []any, part int) (int64, error) {
	rdr, err := stmt.Execute(ctx, s.mem, params, part)
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
		err = wr.Write(rec)
		n := rec.NumRows()
		rec.Release()
		if err != nil {
			return rows, s.toStatus(err, phaseExec)
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

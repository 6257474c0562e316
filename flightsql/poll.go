package flightsql

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
)

// PollFlightInfo for queries (ADBC's incremental execution mode,
// adbc.statement.exec.incremental) is answered in one round: the server
// plans the statement during the call, as GetFlightInfo does, and returns
// the complete FlightInfo with progress 1.0 and no descriptor to poll
// again. Planning reads metadata only (no data), so it is short next to
// the DoGets, which stream as the client reads; the query's long part is
// therefore already incremental on the client side. Nothing is kept
// between calls, so any node answers.

func pollDone(info *flight.FlightInfo) *flight.PollInfo {
	done := 1.0
	return &flight.PollInfo{Info: info, Progress: &done}
}

func (q *sqlServer) PollFlightInfoStatement(ctx context.Context, cmd flightsql.StatementQuery, desc *flight.FlightDescriptor) (*flight.PollInfo, error) {
	info, err := q.GetFlightInfoStatement(ctx, cmd, desc)
	if err != nil {
		return nil, err
	}
	return pollDone(info), nil
}

func (q *sqlServer) PollFlightInfoPreparedStatement(ctx context.Context, cmd flightsql.PreparedStatementQuery, desc *flight.FlightDescriptor) (*flight.PollInfo, error) {
	info, err := q.GetFlightInfoPreparedStatement(ctx, cmd, desc)
	if err != nil {
		return nil, err
	}
	return pollDone(info), nil
}

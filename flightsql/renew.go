package flightsql

import (
	"context"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"
)

// RenewFlightEndpoint extends the expiration of a query endpoint: its
// ticket is opened (signature, owner and expiry checked: an expired
// ticket cannot be renewed, plan the statement again) and sealed again
// with the expiry now + Config.HandleTTL. The ticket stays self-contained
// (SQL, session, planned splits), so any node of the cluster renews any
// endpoint and serves the renewed ticket. Locations are kept.
//
// A query cancelled on this node is not renewed. Cancellation is local to
// the node that received CancelFlightInfo (see cancel.go).
func (q *sqlServer) RenewFlightEndpoint(ctx context.Context, req *flight.RenewFlightEndpointRequest) (*flight.FlightEndpoint, error) {
	s := q.s
	noteCommand(ctx, "RenewFlightEndpoint", "")
	ep := req.GetEndpoint()
	if ep == nil || ep.GetTicket() == nil {
		return nil, status.Error(codes.InvalidArgument, "RenewFlightEndpoint needs an endpoint with a ticket")
	}
	t, err := flightsql.GetStatementQueryTicket(ep.GetTicket())
	if err != nil {
		return nil, status.Errorf(codes.InvalidArgument, "only query result endpoints can be renewed (this ticket is not a Flight SQL statement ticket: %v)", err)
	}
	var c ticketClaims
	if err := s.sign.open(purposeTicket, t.GetStatementHandle(), &c); err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	noteQueryID(ctx, c.QID)
	if err := s.checkSpec(ctx, "ticket", c.execSpec); err != nil {
		return nil, err
	}
	if s.queries.isCancelled(c.QID) {
		return nil, status.Errorf(codes.Canceled, "query %s was cancelled; its endpoints are not renewed", c.QID)
	}
	exp := time.Now().Add(s.cfg.HandleTTL)
	c.Exp = exp.Unix()
	b, err := s.sign.seal(purposeTicket, c)
	if err != nil {
		return nil, status.Error(codes.Internal, err.Error())
	}
	tkt, err := flightsql.CreateStatementQueryTicket(b)
	if err != nil {
		return nil, status.Error(codes.Internal, err.Error())
	}
	out := proto.Clone(ep).(*flight.FlightEndpoint)
	out.Ticket = &flight.Ticket{Ticket: tkt}
	out.ExpirationTime = timestamppb.New(time.Unix(c.Exp, 0))
	return out, nil
}

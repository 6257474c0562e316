package flightsql

import (
	"context"
	"errors"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
	"github.com/paimon-flightsql/paimon-flightsql/internal/panics"
	"github.com/paimon-flightsql/paimon-flightsql/planner/exec"
)

// GRPCCoder is optionally implemented by errors that know their gRPC code.
type GRPCCoder interface {
	GRPCCode() codes.Code
}

// ErrorCode maps errors matching Err (errors.Is) to Code. Config.ErrorCodes
// lets the caller add sentinels this package does not import, for example
// paimon.ErrCorrupt → codes.DataLoss.
type ErrorCode struct {
	Err  error
	Code codes.Code
}

// phase tells toStatus what an unclassified error most likely is.
type phase int

const (
	phasePlan phase = iota // errors from Prepare: unclassified means bad SQL
	phaseExec              // errors while executing: unclassified means internal
)

// toStatus converts err into a gRPC status error, keeping its message (which
// names the culprit) and choosing the code from, in order: an existing
// status, context errors, GRPCCoder, the configured list, the catalog
// sentinels, then the phase default.
func (s *Server) toStatus(err error, ph phase) error {
	if err == nil {
		return nil
	}
	if st, ok := status.FromError(err); ok {
		return st.Err()
	}
	if errors.Is(err, panics.ErrPanic) {
		s.logPanic(err)
		return status.Error(codes.Internal, err.Error())
	}
	return status.Error(s.codeOf(err, ph), err.Error())
}

func (s *Server) codeOf(err error, ph phase) codes.Code {
	var coder GRPCCoder
	switch {
	case errors.Is(err, context.Canceled):
		return codes.Canceled
	case errors.Is(err, context.DeadlineExceeded):
		return codes.DeadlineExceeded
	case errors.As(err, &coder):
		return coder.GRPCCode()
	}
	for _, ec := range s.cfg.ErrorCodes {
		if ec.Err != nil && errors.Is(err, ec.Err) {
			return ec.Code
		}
	}
	switch {
	case errors.Is(err, exec.ErrResourceExhausted):
		return codes.ResourceExhausted
	case errors.Is(err, catalog.ErrNotFound):
		return codes.NotFound
	case errors.Is(err, catalog.ErrUnsupported):
		return codes.Unimplemented
	case errors.Is(err, catalog.ErrInvalid):
		return codes.InvalidArgument
	case errors.Is(err, catalog.ErrExists):
		return codes.AlreadyExists
	}
	if ph == phasePlan {
		return codes.InvalidArgument
	}
	return codes.Internal
}

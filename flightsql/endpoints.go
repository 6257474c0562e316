package flightsql

import (
	"context"
	"fmt"
	"strconv"
)

// OptMaxEndpoints is the session option bounding the endpoints of a
// result (a positive integer; it can only lower the server's
// --max-endpoints).
const OptMaxEndpoints = "max-endpoints"

// endpointCount chooses the endpoints of a result planned in n partitions.
// It returns eps endpoints and, when eps < n, of = eps: endpoint i then
// streams partitions i, i+eps, ... one after the other.
//
//   - Small results get one endpoint: the estimated size (planned scan
//     rows times row width) divided by Config.EndpointBytes, rounded up.
//     Unknown sizes keep one endpoint per partition.
//   - Config.MaxEndpoints and the session's max-endpoints cap the count.
//   - Ordered results keep one endpoint per partition (they are read in
//     order; a sorted plan has one partition anyway).
func (s *Server) endpointCount(ctx context.Context, stmt Statement, n int) (eps, of int) {
	if n <= 1 || stmt.Ordered() {
		return n, 0
	}
	want := n
	if ss, ok := stmt.(SizedStatement); ok && s.cfg.EndpointBytes > 0 {
		if b, known := ss.EstimatedBytes(); known {
			want = int(min(int64(n), max(1, (b+s.cfg.EndpointBytes-1)/s.cfg.EndpointBytes)))
		}
	}
	if m := s.cfg.MaxEndpoints; m > 0 {
		want = min(want, m)
	}
	if m := s.sessionMaxEndpoints(ctx); m > 0 {
		want = min(want, m)
	}
	if want >= n {
		return n, 0
	}
	return want, want
}

func (s *Server) sessionMaxEndpoints(ctx context.Context) int {
	opts, err := s.effectiveOptions(ctx)
	if err != nil {
		return 0
	}
	m, _ := strconv.Atoi(opts[OptMaxEndpoints])
	return m
}

func validateMaxEndpoints(val string) (string, error) {
	n, err := strconv.Atoi(val)
	if err != nil || n < 1 {
		return "", fmt.Errorf("%s must be a positive integer, got %q", OptMaxEndpoints, val)
	}
	return strconv.Itoa(n), nil
}

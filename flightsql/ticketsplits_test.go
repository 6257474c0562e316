package flightsql

import (
	"bytes"
	"testing"
)

type splitsStmt struct {
	Statement
	b []byte
}

func (s splitsStmt) PlannedSplits(max int) ([]byte, bool, error) {
	if max > 0 && len(s.b) > max {
		return nil, false, nil
	}
	return s.b, true, nil
}

// TestTicketSplitsLimits: splits too large for one ticket, or for all the
// tickets of a FlightInfo together, are not carried (DoGet plans again).
func TestTicketSplitsLimits(t *testing.T) {
	s := &Server{metrics: newMetrics()}
	small := []byte(`{"scans":[]}`)
	if got := s.plannedSplits(splitsStmt{b: small}, 4, execSpec{}); !bytes.Equal(got, small) {
		t.Fatalf("small splits not carried: %q", got)
	}
	if got := s.plannedSplits(splitsStmt{b: small}, 4, execSpec{Params: []byte{1}}); got != nil {
		t.Fatal("splits carried for a statement with parameters")
	}
	big := bytes.Repeat([]byte("x"), ticketSplitsMax+1)
	if got := s.plannedSplits(splitsStmt{b: big}, 1, execSpec{}); got != nil {
		t.Fatal("splits over the ticket limit carried")
	}
	mid := bytes.Repeat([]byte("x"), infoSplitsMax/16+1)
	if got := s.plannedSplits(splitsStmt{b: mid}, 8, execSpec{}); got == nil {
		t.Fatal("splits under both limits not carried")
	}
	if got := s.plannedSplits(splitsStmt{b: mid}, 16, execSpec{}); got != nil {
		t.Fatal("splits over the FlightInfo limit carried")
	}
	if got := s.plannedSplits(splitsStmt{}, 3, execSpec{}); got != nil {
		t.Fatal("splits carried for a statement without scans")
	}
	if n := s.metrics.value("tickets_without_splits_total"); n != 17 {
		t.Fatalf("tickets_without_splits_total = %v, want 17", n)
	}
}

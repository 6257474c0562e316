package flightsql

import (
	"bytes"
	"math/rand"
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

// TestTicketSplitsLimits: carried splits are compressed and come back
// intact; splits too large for one ticket, for all the tickets of a
// FlightInfo together, or to encode at all are not carried (DoGet plans
// again), and neither are those of statements with parameters or none.
func TestTicketSplitsLimits(t *testing.T) {
	s := &Server{metrics: newMetrics()}
	small := bytes.Repeat([]byte(`{"scans":[{"key":"default.t","splits":[]}]}`), 100)
	z := s.plannedSplits(splitsStmt{b: small}, 4, execSpec{})
	if z == nil || len(z) >= len(small) {
		t.Fatalf("small splits: %d bytes carried for %d", len(z), len(small))
	}
	if back, err := ticketSplits(z); err != nil || !bytes.Equal(back, small) {
		t.Fatalf("round trip: %v", err)
	}
	if _, err := ticketSplits(append(z[:len(z)/2:len(z)/2], 1, 2, 3)); err == nil {
		t.Fatal("damaged splits decoded")
	}
	if got := s.plannedSplits(splitsStmt{b: small}, 4, execSpec{Params: []byte{1}}); got != nil {
		t.Fatal("splits carried for a statement with parameters")
	}
	if got := s.plannedSplits(splitsStmt{}, 3, execSpec{}); got != nil {
		t.Fatal("splits carried for a statement without scans")
	}
	noise := func(n int) []byte {
		b := make([]byte, n)
		rand.New(rand.NewSource(int64(n))).Read(b)
		return b
	}
	if got := s.plannedSplits(splitsStmt{b: noise(ticketSplitsMax + 1024)}, 1, execSpec{}); got != nil {
		t.Fatal("splits over the ticket limit carried")
	}
	mid := noise(infoSplitsMax/16 - 4096)
	if got := s.plannedSplits(splitsStmt{b: mid}, 8, execSpec{}); got == nil {
		t.Fatal("splits under both limits not carried")
	}
	if got := s.plannedSplits(splitsStmt{b: mid}, 17, execSpec{}); got != nil {
		t.Fatal("splits over the FlightInfo limit carried")
	}
	if got := s.plannedSplits(splitsStmt{b: bytes.Repeat([]byte("x"), rawSplitsMax+1)}, 1, execSpec{}); got != nil {
		t.Fatal("splits over the encoding limit carried")
	}
	if n := s.metrics.value("tickets_without_splits_total"); n != 19 {
		t.Fatalf("tickets_without_splits_total = %v, want 19", n)
	}
}

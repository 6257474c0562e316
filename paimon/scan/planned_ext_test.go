package scan_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/scan"
)

// TestPlannedSplitRefused: a split of another snapshot or of a branch that
// is not the scan's fallback is refused, naming the mismatch.
func TestPlannedSplitRefused(t *testing.T) {
	mem := testutil.CheckedAllocator(t)
	tbl, _ := buildPruneTable(t, mem)
	ctx := context.Background()
	sc, err := scan.New(ctx, tbl, scan.Options{})
	if err != nil {
		t.Fatal(err)
	}
	plan, err := sc.Plan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ps := sc.Export(plan.Splits[:1])
	if ps[0].SnapshotID != sc.SnapshotID() || ps[0].Branch != tbl.BranchName() {
		t.Fatalf("exported %+v", ps[0])
	}
	old, err := scan.New(ctx, tbl, scan.Options{SnapshotID: 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := old.Open(ctx, ps); !errors.Is(err, paimon.ErrInvalid) || !strings.Contains(err.Error(), "snapshot") {
		t.Fatalf("other snapshot: %v", err)
	}
	bad := ps[0]
	bad.Branch = "nope"
	if _, err := sc.Open(ctx, []scan.PlannedSplit{bad}); !errors.Is(err, paimon.ErrInvalid) || !strings.Contains(err.Error(), `"nope"`) {
		t.Fatalf("other branch: %v", err)
	}
}

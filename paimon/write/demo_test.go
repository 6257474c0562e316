package write

import (
	"context"
	"testing"

	"github.com/paimon-flightsql/paimon-flightsql/paimon"
)

func TestBuildDemo(t *testing.T) {
	ctx := context.Background()
	mem := checkedMem(t)
	io := newWarehouse(t)
	var last, total int64
	if err := BuildDemoIO(ctx, io, mem, 0.01, func(d, tot int64) { last, total = d, tot }); err != nil {
		t.Fatal(err)
	}
	if last != total || total == 0 {
		t.Fatalf("progress ended at %d/%d", last, total)
	}
	counts := map[string]int{}
	for _, name := range []string{"lineitem", "orders", "nested"} {
		tbl, err := OpenTable(ctx, io, DemoDatabase, name, "")
		if err != nil {
			t.Fatal(err)
		}
		counts[name] = len(readBoth(t, mem, tbl))
	}
	if counts["lineitem"] != 10000 || counts["nested"] != 1000 || counts["orders"] == 0 || counts["orders"] >= 2500 {
		t.Fatalf("row counts %v", counts)
	}
	orders, err := OpenTable(ctx, io, DemoDatabase, "orders", "")
	if err != nil {
		t.Fatal(err)
	}
	snaps, err := orders.Meta().Snapshots(ctx)
	if err != nil {
		t.Fatal(err)
	}
	kinds := ""
	for _, s := range snaps {
		kinds += string(s.CommitKind)[:1]
	}
	if kinds != "ACACAC" {
		t.Errorf("orders snapshots %q, want APPEND/COMPACT pairs", kinds)
	}
	if _, err := orders.Meta().Tag(ctx, "v1"); err != nil {
		t.Error(err)
	}
	dev, err := OpenTable(ctx, io, DemoDatabase, "orders", "dev")
	if err != nil {
		t.Fatal(err)
	}
	if n := len(readBoth(t, mem, dev)); n != 2500 {
		t.Errorf("branch dev has %d rows, want the 2500 of tag v1", n)
	}
	cs, err := orders.Meta().Consumers(ctx)
	if err != nil || len(cs) != 1 || cs[0].NextSnapshot != snaps[len(snaps)-1].ID {
		t.Errorf("consumers %v %v", cs, err)
	}
	// Rebuilding into the same warehouse fails clearly.
	if err := BuildDemoIO(ctx, io, mem, 0.01, nil); err == nil {
		t.Fatal("second BuildDemo succeeded")
	}
	_ = paimon.MainBranch
}

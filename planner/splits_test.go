package planner

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
)

// TestPlannedSplits: the encoding is valid JSON naming every scan, stops at
// the limit, and a statement prepared with it opens its scans on the
// carried splits (no planning) and returns the same rows.
func TestPlannedSplits(t *testing.T) {
	mem := testutil.CheckedAllocator(t)
	e, ft := newFakeEngine(t, mem)
	ctx := context.Background()
	const sql = "SELECT id FROM orders WHERE qty > 1"
	st, err := e.Prepare(ctx, sql, Session{})
	if err != nil {
		t.Fatal(err)
	}
	b, fits, err := st.PlannedSplits(0)
	if err != nil || !fits {
		t.Fatalf("PlannedSplits: %v fits=%v", err, fits)
	}
	var ps PlannedScans
	if err := json.Unmarshal(b, &ps); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	if len(ps.Scans) != 1 || len(ps.Scans[0].Splits) != 3 || !strings.HasPrefix(ps.Scans[0].Key, "default.orders|") {
		t.Fatalf("planned scans %s", b)
	}
	if _, fits, _ := st.PlannedSplits(len(b) - 1); fits {
		t.Fatal("fits under a limit smaller than the encoding")
	}
	want := runQuery(t, e, sql)

	// As the Flight server does: the pinned snapshot joins the session.
	pinned := Session{Options: st.PinnedOptions(), Splits: b}
	if pinned.Options["scan.snapshot-id"] != "7" {
		t.Fatalf("pinned %v", pinned.Options)
	}
	ft.reqs = nil
	st2, err := e.Prepare(ctx, sql, pinned)
	if err != nil {
		t.Fatal(err)
	}
	if len(ft.reqs) != 1 || len(ft.reqs[0].Splits) != 3 {
		t.Fatalf("prepared with splits: requests %+v", ft.reqs)
	}
	if st2.NumPartitions() != st.NumPartitions() {
		t.Fatalf("partitions %d, planned %d", st2.NumPartitions(), st.NumPartitions())
	}
	var got []string
	for p := 0; p < st2.NumPartitions(); p++ {
		rd, err := st2.Execute(ctx, mem, nil, p)
		if err != nil {
			t.Fatal(err)
		}
		for rd.Next() {
			got = append(got, renderRows(rd.RecordBatch())...)
		}
		if err := rd.Err(); err != nil {
			t.Fatal(err)
		}
		rd.Release()
	}
	if strings.Join(got, ";") != strings.Join(want, ";") {
		t.Fatalf("got %v want %v", got, want)
	}
	// Without the pin the keys differ: the scan is planned.
	ft.reqs = nil
	if _, err := e.Prepare(ctx, sql, Session{Splits: b}); err != nil || len(ft.reqs) != 1 || ft.reqs[0].Splits != nil {
		t.Fatalf("unpinned: %v %+v", err, ft.reqs)
	}
	if _, err := e.Prepare(ctx, sql, Session{Splits: []byte("{not json")}); err == nil {
		t.Fatal("bad splits accepted")
	}
}

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

// TestPlannedSplitsEstimates: the row counts and column ranges join
// ordering used travel with the splits, and a statement prepared with
// them uses them instead of planning the tables again.
func TestPlannedSplitsEstimates(t *testing.T) {
	mem := testutil.CheckedAllocator(t)
	e, ft := newFakeEngine(t, mem)
	ctx := context.Background()
	const sql = "SELECT o1.id FROM orders o1 JOIN orders o2 ON o1.id = o2.id JOIN orders o3 ON o3.qty = o2.qty"
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
	if len(ps.Est) != 1 || len(ps.Ranges) != 1 {
		t.Fatalf("planned estimates %v ranges %v", ps.Est, ps.Ranges)
	}
	for k, r := range ps.Ranges {
		if _, ok := ps.Est[k]; !ok || r["id"] != [2]int64{1, 5} {
			t.Fatalf("ranges %v for estimates %v", ps.Ranges, ps.Est)
		}
	}
	ft.reqs = nil
	st2, err := e.Prepare(ctx, sql, Session{Options: st.PinnedOptions(), Splits: b})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range ft.reqs {
		if r.Splits == nil {
			t.Fatalf("a table planned again: %+v", ft.reqs)
		}
	}
	rows, ranges := st2.sq.leafEst.snapshot()
	if len(rows) != 1 || len(ranges) != 1 {
		t.Fatalf("carried estimates not used: %v %v", rows, ranges)
	}
}

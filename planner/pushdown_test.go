package planner

import (
	"context"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
)

// fakeTable wraps a MemTable, records the requests it gets, reports fixed
// stats, optionally answers PushdownExact for every conjunct, and implements
// Deleter/Compactor.
type fakeTable struct {
	*catalog.MemTable
	reqs      []catalog.ScanRequest
	exact     bool
	reads     int
	deleted   []predicate.Predicate
	compacted []bool
}

func (f *fakeTable) NewScan(ctx context.Context, req catalog.ScanRequest) (catalog.Scan, error) {
	f.reqs = append(f.reqs, req)
	s, err := f.MemTable.NewScan(ctx, req)
	if err != nil {
		return nil, err
	}
	return &fakeScan{Scan: s, t: f}, nil
}

func (f *fakeTable) Delete(_ context.Context, p predicate.Predicate) (int64, error) {
	f.deleted = append(f.deleted, p)
	return 2, nil
}

func (f *fakeTable) Compact(_ context.Context, full bool) error {
	f.compacted = append(f.compacted, full)
	return nil
}

type fakeScan struct {
	catalog.Scan
	t *fakeTable
}

func (s *fakeScan) Pushdown() []catalog.FilterPushdown {
	a := s.Scan.Pushdown()
	if s.t.exact {
		a = catalog.Answers(len(a), catalog.PushdownExact)
	}
	return a
}

func (s *fakeScan) Stats() catalog.ScanStats {
	return catalog.ScanStats{SnapshotID: 7, ManifestsTotal: 10, ManifestsPruned: 6, FilesTotal: 100,
		FilesPrunedPartition: 50, FilesPrunedBucket: 20, FilesPrunedStats: 10, Residual: "price > 1"}
}

// ColumnRanges implements catalog.ColumnRanger (carried in planned splits).
func (s *fakeScan) ColumnRanges(context.Context) (map[string][2]int64, error) {
	return map[string][2]int64{"id": {1, 5}}, nil
}

func (s *fakeScan) Read(ctx context.Context, splits []catalog.Split, o catalog.ReadOptions) (catalog.Reader, error) {
	s.t.reads++
	return s.Scan.Read(ctx, splits, o)
}

func newFakeEngine(t *testing.T, mem memory.Allocator) (*Engine, *fakeTable) {
	t.Helper()
	var recs []arrow.RecordBatch
	for _, rows := range ordersRows {
		recs = append(recs, buildRecord(t, mem, ordersSchema, rows))
	}
	mt, err := catalog.NewMemTable(catalog.Identifier{Database: "default", Table: "orders"}, catalog.KindTable, ordersSchema, nil, recs)
	for _, r := range recs {
		r.Release()
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(mt.Release)
	ft := &fakeTable{MemTable: mt}
	cat := catalog.NewMemCatalog("default")
	cat.AddTable("default", ft)
	return New(cat, Options{}), ft
}

func TestPushdown(t *testing.T) {
	mem := testutil.CheckedAllocator(t)
	e, ft := newFakeEngine(t, mem)
	cases := []struct {
		sql, cols, filter string
		limit             int64
	}{
		{"SELECT id FROM orders WHERE qty = 5", "id,qty", "qty = 5", -1},
		{"SELECT id FROM orders WHERE 5 < qty AND name LIKE 'ap%' AND dt <= DATE '2024-01-02'", "id,name,dt,qty",
			"(qty > 5) AND (name LIKE 'ap%') AND (dt <= DATE '2024-01-02')", -1},
		{"SELECT name FROM orders WHERE id IN (1, 2) OR name IS NULL", "id,name", "(id IN (1, 2)) OR (name IS NULL)", -1},
		{"SELECT name FROM orders WHERE NOT (qty BETWEEN 1 AND 3)", "name,qty", "NOT ((qty >= 1) AND (qty <= 3))", -1},
		{"SELECT name FROM orders WHERE amount = 1.5 AND ts = TIMESTAMP '2024-01-01 00:00:00.001'", "name,amount,ts",
			"(amount = 1.50) AND (ts = TIMESTAMP(1704067200001 ms + 0 ns))", -1},
		// partially pushed: UPPER(...) stays residual, LIMIT is not pushed then
		{"SELECT id FROM orders WHERE qty > 1 AND UPPER(name) = 'X' LIMIT 3", "id,name,qty", "qty > 1", -1},
		{"SELECT id FROM orders WHERE qty > 1 LIMIT 3 OFFSET 2", "id,qty", "qty > 1", 5},
		{"SELECT id FROM orders ORDER BY id LIMIT 3", "id", "<nil>", -1},
		{"SELECT COUNT(*) FROM orders", "", "<nil>", -1},
		// not exactly convertible: int column vs fraction, LIKE with inner wildcard
		{"SELECT id FROM orders WHERE qty < 5.5 AND name LIKE 'a%e'", "id,name,qty", "<nil>", -1},
	}
	for _, c := range cases {
		ft.reqs = nil
		if _, err := tryQuery(t, e, c.sql); err != nil {
			t.Fatalf("%s: %v", c.sql, err)
		}
		if len(ft.reqs) != 1 {
			t.Fatalf("%s: %d scans planned", c.sql, len(ft.reqs))
		}
		r := ft.reqs[0]
		f := "<nil>"
		if r.Filter() != nil {
			f = r.Filter().String()
		}
		if got := strings.Join(r.Columns, ","); got != c.cols || f != c.filter || r.Limit != c.limit {
			t.Errorf("%s\n got cols=%q filter=%q limit=%d\nwant cols=%q filter=%q limit=%d", c.sql, got, f, r.Limit, c.cols, c.filter, c.limit)
		}
		if r.Columns == nil {
			t.Errorf("%s: Columns nil (means all columns)", c.sql)
		}
	}
}

// TestResidualWhenExact checks that a scan answering PushdownExact is trusted
// (no residual for pushed conjuncts) and that results stay right.
func TestResidualWhenExact(t *testing.T) {
	mem := testutil.CheckedAllocator(t)
	e, ft := newFakeEngine(t, mem)
	filterLine := func() string {
		st, err := e.Prepare(context.Background(), "EXPLAIN SELECT id FROM orders WHERE qty > 1 AND UPPER(name) = 'APPLE'", Session{})
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range st.explain {
			if strings.HasPrefix(strings.TrimSpace(l), "Filter ") {
				return strings.TrimSpace(l)
			}
		}
		return ""
	}
	ft.exact = true
	if got := filterLine(); !strings.Contains(got, "upper(") || strings.Contains(got, "qty") {
		t.Fatalf("exact scan: residual filter = %q, want only the UPPER conjunct", got)
	}
	ft.exact = false
	if got := filterLine(); !strings.Contains(got, "upper(") || !strings.Contains(got, "qty") {
		t.Fatalf("inexact scan: residual filter = %q, want both conjuncts", got)
	}
}

func TestCountFromMetadata(t *testing.T) {
	mem := testutil.CheckedAllocator(t)
	e, ft := newFakeEngine(t, mem)
	if got := runQuery(t, e, "SELECT COUNT(*) AS n FROM orders"); strings.Join(got, ";") != "8" {
		t.Fatalf("got %v", got)
	}
	if ft.reads != 0 {
		t.Fatalf("COUNT(*) read the table %d times", ft.reads)
	}
	st, err := e.Prepare(context.Background(), "SELECT COUNT(*) FROM orders", Session{})
	if err != nil {
		t.Fatal(err)
	}
	if n, ok := st.RowCount(); !ok || n != 1 {
		t.Fatalf("RowCount = %d, %v", n, ok)
	}
	// With a filter the table is read.
	if got := runQuery(t, e, "SELECT COUNT(*) FROM orders WHERE qty > 10"); strings.Join(got, ";") != "3" {
		t.Fatalf("got %v", got)
	}
	if ft.reads == 0 {
		t.Fatal("filtered COUNT(*) did not read")
	}
}

func TestOptionsAndHints(t *testing.T) {
	mem := testutil.CheckedAllocator(t)
	e, ft := newFakeEngine(t, mem)
	sess := Session{Options: map[string]string{"scan.snapshot-id": "1", "branch": "b"}}
	if _, err := e.Prepare(context.Background(), "SELECT id FROM orders /*+ OPTIONS('scan.snapshot-id'='3') */ WHERE id = 1", sess); err != nil {
		t.Fatal(err)
	}
	o := ft.reqs[0].Options
	if o["scan.snapshot-id"] != "3" || o["branch"] != "b" || len(o) != 2 {
		t.Fatalf("options = %v", o)
	}
	if sess.Options["scan.snapshot-id"] != "1" {
		t.Fatal("session options modified")
	}
}

func TestExplain(t *testing.T) {
	mem := testutil.CheckedAllocator(t)
	e, _ := newFakeEngine(t, mem)
	got := runQuery(t, e, "EXPLAIN SELECT name, COUNT(*) FROM orders WHERE qty > 1 AND UPPER(name) <> 'X' GROUP BY name ORDER BY 2 DESC LIMIT 5")
	want := []string{
		"Limit offset=0 fetch=5 (est rows=1)",
		"  Sort COUNT(*) DESC NULLS LAST fetch=5 (est rows=1)",
		"    Project orders.name AS name, __agg0 AS COUNT(*) (est rows=1)",
		"      HashAggregate groups=[orders.name AS name] aggs=[count(*)] (est rows=1)",
		"        Filter (orders.qty > 1 AND upper(orders.name) <> 'X') (est rows=1)",
		"          Scan default.orders [name qty] filter=qty > 1 splits=3 partitions=3 (est rows=8)",
		"            pushed filter: qty > 1 (unsupported)",
		"            snapshot: 7",
		"            splits: 3",
		"            manifests: 10 total, 6 pruned",
		"            data files: 100 total, 50 pruned by partition, 20 by bucket, 10 by stats",
		"            residual: price > 1",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("EXPLAIN\n got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	st, err := e.Prepare(context.Background(), "EXPLAIN SELECT 1", Session{})
	if err != nil {
		t.Fatal(err)
	}
	if st.Schema().Field(0).Name != "plan" || st.IsUpdate() {
		t.Fatal("EXPLAIN schema")
	}
	st, err = e.Prepare(context.Background(), "SELECT id FROM orders", Session{})
	if err != nil {
		t.Fatal(err)
	}
	if p := st.PinnedOptions(); p["scan.snapshot-id"] != "7" {
		t.Fatalf("PinnedOptions = %v", p)
	}
	if ps := st.PruningStats(); ps["files_pruned_partition"] != 50 || ps["row_groups_skipped"] != 0 { // read counters come from read reports: none before execution
		t.Fatalf("PruningStats = %v", ps)
	}
}

func TestUpdates(t *testing.T) {
	mem := testutil.CheckedAllocator(t)
	e, ft := newFakeEngine(t, mem)
	ctx := context.Background()
	st, err := e.Prepare(ctx, "DELETE FROM orders WHERE dt < DATE '2024-02-01' AND name = ?", Session{})
	if err != nil {
		t.Fatal(err)
	}
	if !st.IsUpdate() || st.Schema() != nil || len(st.ParamTypes()) != 1 || st.ParamTypes()[0].ID() != arrow.STRING {
		t.Fatalf("update statement: %v %v %v", st.IsUpdate(), st.Schema(), st.ParamTypes())
	}
	n, err := st.ExecuteUpdate(ctx, []any{"apple"})
	if err != nil || n != 2 {
		t.Fatalf("ExecuteUpdate = %d, %v", n, err)
	}
	if got := ft.deleted[0].String(); got != "(dt < DATE '2024-02-01') AND (name = 'apple')" {
		t.Fatalf("delete predicate %s", got)
	}
	if _, err := e.Prepare(ctx, "DELETE FROM orders WHERE UPPER(name) = 'X'", Session{}); err == nil || !strings.Contains(err.Error(), "DELETE condition upper(orders.name) = 'X' on table default.orders") {
		t.Fatalf("err = %v", err)
	}
	if _, err := st.Execute(ctx, mem, []any{"x"}, 0); err == nil {
		t.Fatal("Execute of an update succeeded")
	}
	for _, c := range []struct {
		sql  string
		full bool
	}{{"CALL sys.compact('default.orders')", false}, {"call sys.compact('orders', 'full')", true}} {
		st, err := e.Prepare(ctx, c.sql, Session{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := st.ExecuteUpdate(ctx, nil); err != nil {
			t.Fatal(err)
		}
		if got := ft.compacted[len(ft.compacted)-1]; got != c.full {
			t.Fatalf("%s: full = %v", c.sql, got)
		}
	}
	rdr, err := Run(ctx, e, "DELETE FROM orders", Session{}, mem)
	if err != nil {
		t.Fatal(err)
	}
	defer rdr.Release()
	if !rdr.Next() || renderRows(rdr.RecordBatch())[0] != "2" || ft.deleted[1] != predicate.AlwaysTrue {
		t.Fatal("Run DELETE")
	}
}

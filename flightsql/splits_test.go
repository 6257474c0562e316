package flightsql_test

import (
	"bytes"
	"context"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"sort"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/grpc/codes"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
	pfsql "github.com/paimon-flightsql/paimon-flightsql/flightsql"
	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/fileio"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/write"
	"github.com/paimon-flightsql/paimon-flightsql/planner"
)

// scanCounter counts, per catalog, the scans planned (NewScan without
// splits) and opened from carried splits.
type scanCounter struct{ planned, opened atomic.Int64 }

type countingCatalog struct {
	catalog.Catalog
	n *scanCounter
}

func (c countingCatalog) GetTable(ctx context.Context, db, name string) (catalog.Table, error) {
	t, err := c.Catalog.GetTable(ctx, db, name)
	if err != nil {
		return nil, err
	}
	return countingTable{Table: t, n: c.n}, nil
}

type countingTable struct {
	catalog.Table
	n *scanCounter
}

func (t countingTable) NewScan(ctx context.Context, req catalog.ScanRequest) (catalog.Scan, error) {
	if req.Splits == nil {
		t.n.planned.Add(1)
	} else {
		t.n.opened.Add(1)
	}
	return t.Table.NewScan(ctx, req)
}

// splitsWarehouse writes default.events: partitioned by day, one file per
// day for days 0..5, ten rows each (v = 100*day + i).
func splitsWarehouse(t *testing.T, mem memory.Allocator) string {
	ctx := context.Background()
	dir := t.TempDir()
	fio, err := fileio.NewLocal(dir)
	if err != nil {
		t.Fatal(err)
	}
	wt, err := write.CreateTable(ctx, fio, "default", "events", write.TableSpec{
		Fields: []types.DataField{
			{Name: "day", Type: types.NewInt().NotNull()},
			{Name: "v", Type: types.NewBigInt()},
		},
		PartitionKeys: []string{"day"},
		Options:       map[string]string{"bucket": "-1"},
	})
	if err != nil {
		t.Fatal(err)
	}
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "day", Type: arrow.PrimitiveTypes.Int32},
		{Name: "v", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	}, nil)
	for d := 0; d < 6; d++ {
		b := array.NewRecordBuilder(mem, sc)
		for i := 0; i < 10; i++ {
			b.Field(0).(*array.Int32Builder).Append(int32(d))
			b.Field(1).(*array.Int64Builder).Append(int64(100*d + i))
		}
		rec := b.NewRecordBatch()
		b.Release()
		w := wt.NewWriter(mem)
		if err := w.Write(ctx, rec); err != nil {
			t.Fatal(err)
		}
		rec.Release()
		if _, err := w.Commit(ctx); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// startPlannerServer serves the SQL engine over the warehouse at dir, with
// the test signing key.
func startPlannerServer(t *testing.T, dir string, n *scanCounter) *env {
	t.Helper()
	mem := testutil.CheckedAllocator(t)
	fio, err := fileio.NewLocal(dir)
	if err != nil {
		t.Fatal(err)
	}
	cat := countingCatalog{Catalog: catalog.NewFS(fio, "."), n: n}
	// EndpointBytes -1: one endpoint per partition however small the
	// result, so that each day's split travels in a ticket of its own.
	srv, err := pfsql.NewServer(pfsql.Config{NoAuth: true, TokenKey: testKey, Allocator: mem, EndpointBytes: -1,
		Logger: slog.New(slog.DiscardHandler)}, pfsql.PlannerEngine(planner.New(cat, planner.Options{})), cat)
	if err != nil {
		t.Fatal(err)
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(lis) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
		if err := <-served; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	return &env{srv: srv, addr: lis.Addr().String(), mem: mem}
}

// TestTicketSplitsReadOnAnotherNode: tickets carry the planned splits, so a
// node sharing the signing key serves every endpoint without planning the
// scan (no manifest is read: they are deleted before the DoGets), with the
// same rows; a ticket whose splits were altered is refused.
func TestTicketSplitsReadOnAnotherNode(t *testing.T) {
	mem := testutil.CheckedAllocator(t)
	dir := splitsWarehouse(t, mem)
	var na, nb scanCounter
	a := startPlannerServer(t, dir, &na)
	b := startPlannerServer(t, dir, &nb)
	ctx := context.Background()
	const sql = "SELECT v FROM events WHERE day >= 2 AND v % 2 = 0"
	info, err := a.client(t).Execute(ctx, sql)
	if err != nil {
		t.Fatal(err)
	}
	if na.planned.Load() == 0 {
		t.Fatal("node a did not plan")
	}
	if len(info.Endpoint) != 4 {
		t.Fatalf("%d endpoints, want 4 (one per remaining day)", len(info.Endpoint))
	}
	for _, ep := range info.Endpoint {
		if !bytes.Contains(ep.Ticket.Ticket, []byte(`"splits_z":"`)) {
			t.Fatalf("ticket carries no splits: %q", ep.Ticket.Ticket)
		}
	}

	t.Logf("ticket: %d bytes for 4 splits of one file each", len(info.Endpoint[0].Ticket.Ticket))
	// Node b cannot plan: the manifests are gone.
	if err := os.RemoveAll(filepath.Join(dir, "default.db", "events", "manifest")); err != nil {
		t.Fatal(err)
	}
	_, recs := fetchAll(ctx, t, b.client(t), info)
	got := int64s(recs, 0)
	sort.Slice(got, func(i, j int) bool { return got[i] < got[j] })
	var want []int64
	for d := 2; d < 6; d++ {
		for i := 0; i < 10; i += 2 {
			want = append(want, int64(100*d+i))
		}
	}
	if len(got) != len(want) {
		t.Fatalf("node b returned %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("node b returned %v, want %v", got, want)
		}
	}
	if p, o := nb.planned.Load(), nb.opened.Load(); p != 0 || o == 0 {
		t.Fatalf("node b planned %d scans and opened %d, want 0 planned", p, o)
	}
	// Tampering with the carried splits breaks the signature.
	tk := append([]byte(nil), info.Endpoint[0].Ticket.Ticket...)
	i := bytes.Index(tk, []byte(`"splits_z":"`))
	if i < 0 {
		t.Fatalf("no splits in the ticket: %q", tk)
	}
	tk[i+len(`"splits_z":"`)+8] ^= 1
	rdr, err := b.client(t).DoGet(ctx, &flight.Ticket{Ticket: tk})
	if err == nil {
		for rdr.Next() {
		}
		err = rdr.Err()
		rdr.Release()
	}
	wantCode(t, err, codes.InvalidArgument, "signature invalid")
}

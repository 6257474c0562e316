package flightsql_test

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"

	pfsql "github.com/paimon-flightsql/paimon-flightsql/flightsql"
	"github.com/paimon-flightsql/paimon-flightsql/flightsql/flightsqltest"
	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
)

// wideServer serves eng on loopback; cfg is adjusted by mutate.
func wideServer(t *testing.T, mem memory.Allocator, eng pfsql.Engine, mutate func(*pfsql.Config)) string {
	t.Helper()
	cat, release, err := flightsqltest.NewCatalog(mem)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(release)
	cfg := pfsql.Config{NoAuth: true, TokenKey: testKey, Allocator: mem, Logger: slog.New(slog.DiscardHandler)}
	if mutate != nil {
		mutate(&cfg)
	}
	srv, err := pfsql.NewServer(cfg, eng, cat)
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
	return lis.Addr().String()
}

// defaultClient has gRPC's default 4 MiB receive limit.
func defaultClient(t *testing.T, addr string) *flightsql.Client {
	t.Helper()
	cl, err := flightsql.NewClient(addr, nil, nil, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	cl.Alloc = testutil.CheckedAllocator(t)
	t.Cleanup(func() { cl.Close() })
	return cl
}

// nestedBatch has a list<utf8> and a struct<int64, utf8> column besides
// plain ones, with some nulls.
func nestedBatch(mem memory.Allocator, rows int) arrow.RecordBatch {
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "tags", Type: arrow.ListOf(arrow.BinaryTypes.String), Nullable: true},
		{Name: "pt", Type: arrow.StructOf(
			arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
			arrow.Field{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true}), Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(mem, sc)
	defer b.Release()
	lb := b.Field(1).(*array.ListBuilder)
	vb := lb.ValueBuilder().(*array.StringBuilder)
	sb := b.Field(2).(*array.StructBuilder)
	for r := 0; r < rows; r++ {
		if r%7 == 3 {
			b.Field(0).AppendNull()
		} else {
			b.Field(0).(*array.Int64Builder).Append(int64(r))
		}
		if r%5 == 1 {
			lb.AppendNull()
		} else {
			lb.Append(true)
			for k := 0; k < r%4; k++ {
				vb.Append(fmt.Sprintf("tag-%d-%d", r, k))
			}
		}
		if r%6 == 2 {
			sb.AppendNull()
		} else {
			sb.Append(true)
			sb.FieldBuilder(0).(*array.Int64Builder).Append(int64(r * 3))
			sb.FieldBuilder(1).(*array.StringBuilder).Append(fmt.Sprintf("pt %d", r))
		}
	}
	return b.NewRecordBatch()
}

// drainTicket reads one endpoint and returns its batches concatenated.
func drainTicket(ctx context.Context, t *testing.T, cl *flightsql.Client, tkt *flight.Ticket) arrow.RecordBatch {
	t.Helper()
	rdr, err := cl.DoGet(ctx, tkt)
	if err != nil {
		t.Fatal(err)
	}
	defer rdr.Release()
	var recs []arrow.RecordBatch
	for rdr.Next() {
		r := rdr.RecordBatch()
		r.Retain()
		recs = append(recs, r)
	}
	if err := rdr.Err(); err != nil {
		t.Fatal(err)
	}
	out := concat(t, cl.Alloc, rdr.Schema(), recs)
	for _, r := range recs {
		r.Release()
	}
	return out
}

func concat(t *testing.T, mem memory.Allocator, sc *arrow.Schema, recs []arrow.RecordBatch) arrow.RecordBatch {
	t.Helper()
	if len(recs) == 0 {
		return array.NewRecordBatch(sc, nil, 0)
	}
	tbl := array.NewTableFromRecords(sc, recs)
	defer tbl.Release()
	cols := make([]arrow.Array, tbl.NumCols())
	for i := range cols {
		c, err := array.Concatenate(tbl.Column(i).Data().Chunks(), mem)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Release()
		cols[i] = c
	}
	return array.NewRecordBatch(sc, cols, tbl.NumRows())
}

// expected concatenates the batches partition part serves.
func expected(t *testing.T, mem memory.Allocator, eng *wideEngine, part int) arrow.RecordBatch {
	t.Helper()
	var recs []arrow.RecordBatch
	for i := part; i < len(eng.recs); i += eng.parts {
		recs = append(recs, eng.recs[i])
	}
	return concat(t, mem, eng.recs[0].Schema(), recs)
}

func sameData(t *testing.T, what string, got, want arrow.RecordBatch) {
	t.Helper()
	defer got.Release()
	defer want.Release()
	if got.NumRows() != want.NumRows() {
		t.Fatalf("%s: %d rows, want %d", what, got.NumRows(), want.NumRows())
	}
	for i := 0; i < int(want.NumCols()); i++ {
		if !array.Equal(got.Column(i), want.Column(i)) {
			t.Fatalf("%s: column %s differs", what, want.ColumnName(i))
		}
	}
}

// Batches are sent without copying their buffers and, when larger than
// MaxMessageBytes, as several messages; the client sees the same rows,
// also for sliced batches, nested types and compressed streams, and nothing
// leaks.
func TestBatchesSentByReferenceAndSliced(t *testing.T) {
	mem := testutil.CheckedAllocator(t)
	big := wideBatches(mem, 1, 30000) // ~7 MB: over the 4 MiB default limit
	nested := nestedBatch(mem, 5000)
	sliced := nested.NewSlice(1234, 4321) // offsets that do not start at 0
	recs := []arrow.RecordBatch{nested, sliced}
	t.Cleanup(func() {
		for _, r := range append(big, recs...) {
			r.Release()
		}
	})
	ctx := context.Background()

	t.Run("default limit, big batch", func(t *testing.T) {
		eng := &wideEngine{recs: big, parts: 1}
		cl := defaultClient(t, wideServer(t, mem, eng, nil))
		info, err := cl.Execute(ctx, "SELECT * FROM wide")
		if err != nil {
			t.Fatal(err)
		}
		sameData(t, "big batch", drainTicket(ctx, t, cl, info.Endpoint[0].Ticket), expected(t, mem, eng, 0))
	})

	for _, c := range []struct {
		name  string
		limit int
		comp  string
	}{{"whole", -1, ""}, {"sliced", 16 << 10, ""}, {"sliced zstd", 16 << 10, "zstd"}, {"whole lz4", -1, "lz4"}} {
		t.Run(c.name, func(t *testing.T) {
			eng := &wideEngine{recs: recs, parts: 2}
			addr := wideServer(t, mem, eng, func(cfg *pfsql.Config) { cfg.MaxMessageBytes = c.limit })
			cl := defaultClient(t, addr)
			cctx := ctx
			if c.comp != "" {
				cctx = metadata.AppendToOutgoingContext(ctx, pfsql.CompressionHeader, c.comp)
			}
			info, err := cl.Execute(cctx, "SELECT * FROM wide")
			if err != nil {
				t.Fatal(err)
			}
			if len(info.Endpoint) != 2 {
				t.Fatalf("%d endpoints, want 2", len(info.Endpoint))
			}
			for p, ep := range info.Endpoint {
				sameData(t, fmt.Sprintf("partition %d", p), drainTicket(cctx, t, cl, ep.Ticket), expected(t, mem, eng, p))
			}
			if c.limit < 0 {
				return
			}
			// Every message respects the limit.
			raw, err := flight.NewClientWithMiddleware(addr, nil, nil, grpc.WithTransportCredentials(insecure.NewCredentials()))
			if err != nil {
				t.Fatal(err)
			}
			defer raw.Close()
			st, err := raw.DoGet(cctx, info.Endpoint[0].Ticket)
			if err != nil {
				t.Fatal(err)
			}
			msgs := 0
			for {
				fd, err := st.Recv()
				if err != nil {
					break
				}
				msgs++
				if n := proto.Size(fd); n > c.limit {
					t.Fatalf("message %d is %d bytes, over the %d limit", msgs, n, c.limit)
				}
			}
			if msgs < 10 {
				t.Fatalf("only %d messages: the batch was not sliced", msgs)
			}
		})
	}
}

// GetFlightInfo's plan serves the DoGets of its endpoints; a node without
// it (or a cache miss) plans the ticket again and returns the same rows.
func TestPlanReusedByEndpoints(t *testing.T) {
	mem := testutil.CheckedAllocator(t)
	recs := wideBatches(mem, 4, 100)
	t.Cleanup(func() {
		for _, r := range recs {
			r.Release()
		}
	})
	ctx := context.Background()
	eng := &wideEngine{recs: recs, parts: 4}
	cl := defaultClient(t, wideServer(t, mem, eng, nil))
	otherEng := &wideEngine{recs: recs, parts: 4}
	other := defaultClient(t, wideServer(t, mem, otherEng, nil))
	noCacheEng := &wideEngine{recs: recs, parts: 4}
	noCache := defaultClient(t, wideServer(t, mem, noCacheEng, func(c *pfsql.Config) { c.PlanCacheEntries = -1 }))

	info, err := cl.Execute(ctx, "SELECT * FROM wide")
	if err != nil {
		t.Fatal(err)
	}
	if n := eng.prepare.Load(); n != 1 {
		t.Fatalf("GetFlightInfo planned %d times", n)
	}
	for p, ep := range info.Endpoint {
		sameData(t, fmt.Sprintf("partition %d", p), drainTicket(ctx, t, cl, ep.Ticket), expected(t, mem, eng, p))
	}
	if n := eng.prepare.Load(); n != 1 {
		t.Fatalf("planned %d times for 1 GetFlightInfo and 4 DoGets, want 1", n)
	}
	// Fetched once each: the plan is dropped; fetching again plans again.
	sameData(t, "refetch", drainTicket(ctx, t, cl, info.Endpoint[2].Ticket), expected(t, mem, eng, 2))
	if n := eng.prepare.Load(); n != 2 {
		t.Fatalf("refetch after all endpoints: planned %d times, want 2", n)
	}
	// Another node with the same key serves the tickets by planning the
	// statement once: its first DoGet caches the plan for the others.
	for p, ep := range info.Endpoint {
		sameData(t, fmt.Sprintf("other node partition %d", p), drainTicket(ctx, t, other, ep.Ticket), expected(t, mem, eng, p))
	}
	if n := otherEng.prepare.Load(); n != 1 {
		t.Fatalf("other node planned %d times, want 1", n)
	}
	// Without the cache every DoGet plans.
	info, err = noCache.Execute(ctx, "SELECT * FROM wide")
	if err != nil {
		t.Fatal(err)
	}
	for p, ep := range info.Endpoint {
		sameData(t, fmt.Sprintf("no cache partition %d", p), drainTicket(ctx, t, noCache, ep.Ticket), expected(t, mem, eng, p))
	}
	if n := noCacheEng.prepare.Load(); n != 5 {
		t.Fatalf("without cache: planned %d times, want 5", n)
	}
}

// An expired ticket is refused with a clear error even while its plan is
// cached; a cancelled query's endpoints fail too.
func TestExpiredAndCancelledTickets(t *testing.T) {
	mem := testutil.CheckedAllocator(t)
	recs := wideBatches(mem, 2, 10)
	t.Cleanup(func() {
		for _, r := range recs {
			r.Release()
		}
	})
	ctx := context.Background()
	eng := &wideEngine{recs: recs, parts: 2}
	cl := defaultClient(t, wideServer(t, mem, eng, func(c *pfsql.Config) { c.HandleTTL = time.Second }))
	info, err := cl.Execute(ctx, "SELECT * FROM wide")
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(2100 * time.Millisecond)
	rdr, err := cl.DoGet(ctx, info.Endpoint[0].Ticket)
	if err == nil {
		for rdr.Next() {
		}
		err = rdr.Err()
		rdr.Release()
	}
	wantCode(t, err, codes.InvalidArgument, "expired")

	cl2 := defaultClient(t, wideServer(t, mem, &wideEngine{recs: recs, parts: 2}, nil))
	info, err = cl2.Execute(ctx, "SELECT * FROM wide")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cl2.CancelFlightInfo(ctx, &flight.CancelFlightInfoRequest{Info: info}); err != nil {
		t.Fatal(err)
	}
	rdr, err = cl2.DoGet(ctx, info.Endpoint[1].Ticket)
	if err == nil {
		for rdr.Next() {
		}
		err = rdr.Err()
		rdr.Release()
	}
	wantCode(t, err, codes.Canceled, "cancel")
}

// MaxEndpoints spreads the partitions over fewer endpoints; every row is
// served exactly once, from the cached plan or by a node that plans the
// ticket again, and MaxEndpoints 1 gives a single stream.
func TestMaxEndpointsGroupsPartitions(t *testing.T) {
	mem := testutil.CheckedAllocator(t)
	recs := wideBatches(mem, 5, 50)
	t.Cleanup(func() {
		for _, r := range recs {
			r.Release()
		}
	})
	ctx := context.Background()
	for _, maxEps := range []int{1, 2} {
		t.Run(fmt.Sprint(maxEps), func(t *testing.T) {
			eng := &wideEngine{recs: recs, parts: 5}
			cl := defaultClient(t, wideServer(t, mem, eng, func(c *pfsql.Config) { c.MaxEndpoints = maxEps }))
			otherEng := &wideEngine{recs: recs, parts: 5}
			other := defaultClient(t, wideServer(t, mem, otherEng, func(c *pfsql.Config) { c.MaxEndpoints = maxEps }))
			info, err := cl.Execute(ctx, "SELECT * FROM wide")
			if err != nil {
				t.Fatal(err)
			}
			if len(info.Endpoint) != maxEps {
				t.Fatalf("%d endpoints, want %d", len(info.Endpoint), maxEps)
			}
			for e, ep := range info.Endpoint {
				var want []arrow.RecordBatch
				for p := e; p < 5; p += maxEps {
					want = append(want, expected(t, mem, eng, p))
				}
				w := concat(t, mem, recs[0].Schema(), want)
				for _, r := range want {
					r.Release()
				}
				w.Retain()
				sameData(t, fmt.Sprintf("endpoint %d", e), drainTicket(ctx, t, cl, ep.Ticket), w)
				sameData(t, fmt.Sprintf("endpoint %d on another node", e), drainTicket(ctx, t, other, ep.Ticket), w)
			}
			if n := eng.prepare.Load(); n != 1 {
				t.Fatalf("planned %d times, want 1", n)
			}
			if n := otherEng.prepare.Load(); n != 1 { // once, then cached for the other endpoints
				t.Fatalf("other node planned %d times, want 1", n)
			}
		})
	}
	// A ticket whose statement now has another number of partitions is refused.
	eng := &wideEngine{recs: recs, parts: 5}
	cl := defaultClient(t, wideServer(t, mem, eng, func(c *pfsql.Config) { c.MaxEndpoints = 2; c.PlanCacheEntries = -1 }))
	info, err := cl.Execute(ctx, "SELECT * FROM wide")
	if err != nil {
		t.Fatal(err)
	}
	eng.repart.Store(4)
	rdr, err := cl.DoGet(ctx, info.Endpoint[0].Ticket)
	if err == nil {
		for rdr.Next() {
		}
		err = rdr.Err()
		rdr.Release()
	}
	wantCode(t, err, codes.InvalidArgument, "run GetFlightInfo again")
}

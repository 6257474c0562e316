package integration

import (
	"context"
	"errors"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	pfsql "github.com/paimon-flightsql/paimon-flightsql/flightsql"
	"github.com/paimon-flightsql/paimon-flightsql/planner"
)

// fsClient is an authenticated arrow-go flightsql.Client with a checked
// allocator (asserted empty at cleanup).
type fsClient struct {
	*flightsql.Client
	ctx context.Context // carries the bearer token
	mem *memory.CheckedAllocator
}

func newClient(t testing.TB, srv *testServer) *fsClient {
	t.Helper()
	cl, err := flightsql.NewClient(srv.Addr, nil, nil, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	cl.Alloc = mem
	t.Cleanup(func() { mem.AssertSize(t, 0) })
	t.Cleanup(func() { cl.Close() })
	ctx, err := cl.Client.AuthenticateBasicToken(context.Background(), testUser, testPassword)
	if err != nil {
		t.Fatal(err)
	}
	return &fsClient{Client: cl, ctx: ctx, mem: mem}
}

// fetch reads every endpoint of info, in order, into one result, and
// checks it against what FlightInfo announced (schema, total_records).
func (c *fsClient) fetch(ctx context.Context, info *flight.FlightInfo) (result, error) {
	sc, err := flight.DeserializeSchema(info.Schema, c.mem)
	if err != nil {
		return result{}, err
	}
	res := result{Fields: fieldStrings(sc)}
	for _, ep := range info.Endpoint {
		rdr, err := c.DoGet(ctx, ep.Ticket)
		if err != nil {
			return res, err
		}
		if got := fieldStrings(rdr.Schema()); !equalStrings(got, res.Fields) {
			rdr.Release()
			return res, errors.New("DoGet schema " + join(got) + " differs from FlightInfo.schema " + join(res.Fields))
		}
		for rdr.Next() {
			res.add(rdr.RecordBatch())
		}
		err = rdr.Err()
		rdr.Release()
		if err != nil {
			return res, err
		}
	}
	if info.TotalRecords >= 0 && info.TotalRecords != int64(len(res.Rows)) {
		return res, errors.New("FlightInfo.total_records differs from the rows streamed")
	}
	return res, nil
}

// query runs sql (CommandStatementQuery) and fetches every endpoint.
func (c *fsClient) query(ctx context.Context, sql string) (result, *flight.FlightInfo, error) {
	info, err := c.Execute(ctx, sql)
	if err != nil {
		return result{}, nil, err
	}
	res, err := c.fetch(ctx, info)
	return res, info, err
}

func (c *fsClient) mustQuery(t testing.TB, ctx context.Context, sql string) (result, *flight.FlightInfo) {
	t.Helper()
	res, info, err := c.query(ctx, sql)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return res, info
}

func equalStrings(a, b []string) bool { return join(a) == join(b) }

func join(s []string) string {
	out := ""
	for i, x := range s {
		if i > 0 {
			out += ", "
		}
		out += x
	}
	return out
}

func metadataWith(ctx context.Context, kv ...string) context.Context {
	return metadata.AppendToOutgoingContext(ctx, kv...)
}

func wantCode(t testing.TB, err error, code codes.Code, what string) {
	t.Helper()
	if status.Code(err) != code {
		t.Fatalf("%s: got %v (%v), want %v", what, status.Code(err), err, code)
	}
}

// TestArrowGoClient drives the demo server with arrow-go's flightsql.Client:
// Basic auth, a multi-endpoint scan, IPC compression, GetSchema, headers
// as session options, CancelFlightInfo and error codes.
func TestArrowGoClient(t *testing.T) {
	// One endpoint per partition whatever the size (the demo is small:
	// by default it would come back as one endpoint).
	srv := startServer(t, demoWarehouse, func(c *pfsql.Config) { c.EndpointBytes = -1 })
	c := newClient(t, srv)
	ctx := c.ctx
	const sql = "SELECT * FROM orders"
	want := inProcess(t, srv.Engine, sql, planner.Session{}).sorted()

	t.Run("MultiEndpointAndCompression", func(t *testing.T) {
		for _, comp := range []string{"none", "zstd", "lz4"} {
			cctx := ctx
			if comp != "none" {
				cctx = metadataWith(ctx, "x-paimon-compression", comp)
			}
			got, info := c.mustQuery(t, cctx, sql)
			if len(info.Endpoint) < 2 || info.Ordered {
				t.Fatalf("%s: %d endpoints (ordered=%v) for a scan of 56 buckets", comp, len(info.Endpoint), info.Ordered)
			}
			if d := got.sorted().diff(want); d != "" {
				t.Fatalf("%s: %s", comp, d)
			}
		}
		if _, _, err := c.query(metadataWith(ctx, "x-paimon-compression", "snappy"), sql); status.Code(err) != codes.InvalidArgument {
			t.Fatalf("unknown codec: %v", err)
		}
	})

	t.Run("GetSchema", func(t *testing.T) {
		res, err := c.GetExecuteSchema(ctx, "SELECT o_orderkey, dt FROM orders")
		if err != nil {
			t.Fatal(err)
		}
		sc, err := flight.DeserializeSchema(res.Schema, c.mem)
		if err != nil {
			t.Fatal(err)
		}
		if got := join(fieldStrings(sc)); got != "o_orderkey: int64, dt: utf8" {
			t.Fatalf("schema %s", got)
		}
	})

	t.Run("TimeTravelHeaders", func(t *testing.T) {
		// gRPC headers are session options for one call (JDBC URL properties).
		for _, h := range [][2]string{{"scan.snapshot-id", "2"}, {"scan.tag-name", "v1"}, {"branch", "dev"}} {
			got, _ := c.mustQuery(t, metadataWith(ctx, h[0], h[1]), "SELECT * FROM orders WHERE dt = '2024-01-05'")
			ref := inProcess(t, srv.Engine, "SELECT * FROM orders WHERE dt = '2024-01-05'", planner.Session{Options: map[string]string{h[0]: h[1]}})
			if d := got.sorted().diff(ref.sorted()); d != "" {
				t.Fatalf("%s=%s: %s", h[0], h[1], d)
			}
			if latest, _ := c.mustQuery(t, ctx, "SELECT * FROM orders WHERE dt = '2024-01-05'"); latest.sorted().diff(got.sorted()) == "" {
				t.Fatalf("%s=%s reads the same rows as the latest snapshot", h[0], h[1])
			}
		}
	})

	t.Run("CancelFlightInfo", func(t *testing.T) {
		info, err := c.Execute(ctx, sql)
		if err != nil {
			t.Fatal(err)
		}
		res, err := c.CancelFlightInfo(ctx, &flight.CancelFlightInfoRequest{Info: info})
		if err != nil || res.Status != flight.CancelStatusCancelled {
			t.Fatalf("cancel: %v %v", res, err)
		}
		_, err = c.fetch(ctx, info)
		wantCode(t, err, codes.Canceled, "DoGet of a cancelled query")
	})

	t.Run("ErrorCodes", func(t *testing.T) {
		for _, e := range []struct {
			sql  string
			code codes.Code
		}{
			{"SELECT * FROM ordrs", codes.NotFound},
			{"SELECT * FROM orders$nope", codes.NotFound},
			{"SELECT nope FROM orders", codes.InvalidArgument}, // unknown column: bad SQL
			{"SELEC 1", codes.InvalidArgument},
			{"SELECT * FROM orders /*+ OPTIONS('scan.snapshot-id'='99') */", codes.NotFound},
			{"SELECT * FROM orders$branch_nope", codes.NotFound},
		} {
			_, _, err := c.query(ctx, e.sql)
			wantCode(t, err, e.code, e.sql)
		}
	})
}

package integration

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
)

// TestArrowGoClient drives the server with arrow-go's flightsql.Client:
// Basic auth, a multi-endpoint query and compression negotiation.
func TestArrowGoClient(t *testing.T) {
	srv := startServer(t)
	cl, err := flightsql.NewClient(srv.Addr, nil, nil, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	cl.Alloc = mem
	ctx, err := cl.Client.AuthenticateBasicToken(context.Background(), testUser, testPassword)
	if err != nil {
		t.Fatal(err)
	}
	for _, comp := range []string{"none", "zstd", "lz4"} {
		cctx := ctx
		if comp != "none" {
			cctx = metadataWith(ctx, "x-paimon-compression", comp)
		}
		info, err := cl.Execute(cctx, "SELECT * FROM orders")
		if err != nil {
			t.Fatal(err)
		}
		if len(info.Endpoint) != 3 || info.TotalRecords != 12 || len(info.Schema) == 0 {
			t.Fatalf("%s: endpoints %d total %d", comp, len(info.Endpoint), info.TotalRecords)
		}
		var rows int64
		for _, ep := range info.Endpoint {
			rdr, err := cl.DoGet(cctx, ep.Ticket)
			if err != nil {
				t.Fatal(err)
			}
			for rdr.Next() {
				rows += rdr.RecordBatch().NumRows()
			}
			if err := rdr.Err(); err != nil {
				t.Fatal(err)
			}
			rdr.Release()
		}
		if rows != 12 {
			t.Fatalf("%s: %d rows", comp, rows)
		}
	}
	res, err := cl.CancelFlightInfo(ctx, &flight.CancelFlightInfoRequest{Info: mustExecute(t, cl, ctx, "SELECT * FROM generate_series")})
	if err != nil || res.Status != flight.CancelStatusCancelled {
		t.Fatalf("cancel: %v %v", res, err)
	}
}

func mustExecute(t *testing.T, cl *flightsql.Client, ctx context.Context, sql string) *flight.FlightInfo {
	t.Helper()
	info, err := cl.Execute(ctx, sql)
	if err != nil {
		t.Fatal(err)
	}
	return info
}

func metadataWith(ctx context.Context, kv ...string) context.Context {
	return metadata.AppendToOutgoingContext(ctx, kv...)
}

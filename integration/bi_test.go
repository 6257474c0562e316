package integration

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"

	pfsql "github.com/paimon-flightsql/paimon-flightsql/flightsql"
	"github.com/paimon-flightsql/paimon-flightsql/planner"
)

// Query results carry what JDBC's ResultSetMetaData reads: nullability
// from NOT NULL columns (through projections), the Paimon type name
// (CHAR(1), not STRING), precision (length for CHAR/VARCHAR) and scale.
func TestBIResultMetadata(t *testing.T) {
	srv := startDemo(t)
	c := newClient(t, srv)
	info, err := c.Execute(c.ctx, "SELECT o_orderkey, o_custkey, o_orderstatus, o_totalprice, o_comment, dt AS day FROM orders WHERE o_orderkey < 10")
	if err != nil {
		t.Fatal(err)
	}
	sc, err := flight.DeserializeSchema(info.Schema, c.mem)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		name            string
		nullable        bool
		typ, prec, scal string
	}{
		{"o_orderkey", false, "BIGINT", "19", "0"},
		{"o_custkey", true, "BIGINT", "19", "0"},
		{"o_orderstatus", true, "CHAR(1)", "1", ""},
		{"o_totalprice", true, "DECIMAL(15, 2)", "15", "2"},
		{"o_comment", true, "STRING", "2147483647", ""},
		{"day", false, "STRING", "2147483647", ""},
	}
	if sc.NumFields() != len(want) {
		t.Fatalf("schema %s", sc)
	}
	for i, w := range want {
		f := sc.Field(i)
		md := f.Metadata
		get := func(k string) string { v, _ := md.GetValue(k); return v }
		if f.Name != w.name || f.Nullable != w.nullable || get(flightsql.TypeNameKey) != w.typ ||
			get(flightsql.PrecisionKey) != w.prec || get(flightsql.ScaleKey) != w.scal {
			t.Errorf("column %d: %s nullable=%v type=%q precision=%q scale=%q; want %+v",
				i, f.Name, f.Nullable, get(flightsql.TypeNameKey), get(flightsql.PrecisionKey), get(flightsql.ScaleKey), w)
		}
	}
	// The DoGet stream has the same schema.
	if _, err := c.fetch(c.ctx, info); err != nil {
		t.Fatal(err)
	}
}

// A small result is one endpoint (clients that read only endpoints[0] —
// the @lancedb npm client, many pyarrow scripts — get the whole answer);
// a result over Config.EndpointBytes is spread over several, capped by
// --max-endpoints and the session option max-endpoints.
func TestBIEndpointsFollowResultSize(t *testing.T) {
	const sql = "SELECT * FROM orders"
	total := inProcessCount(t, startDemo(t).Engine, "SELECT count(*) FROM orders", planner.Session{})

	firstOnly := func(t *testing.T, c *fsClient, ctx context.Context) (int, int64) {
		t.Helper()
		info, err := c.Execute(ctx, sql)
		if err != nil {
			t.Fatal(err)
		}
		rdr, err := c.DoGet(ctx, info.Endpoint[0].Ticket)
		if err != nil {
			t.Fatal(err)
		}
		defer rdr.Release()
		var n int64
		for rdr.Next() {
			n += rdr.RecordBatch().NumRows()
		}
		if err := rdr.Err(); err != nil {
			t.Fatal(err)
		}
		return len(info.Endpoint), n
	}

	t.Run("small result: one endpoint", func(t *testing.T) {
		c := newClient(t, startDemo(t))
		eps, n := firstOnly(t, c, c.ctx)
		if eps != 1 || n != total {
			t.Fatalf("%d endpoints, endpoints[0] has %d rows; want 1 endpoint with all %d rows", eps, n, total)
		}
	})
	t.Run("large result: several endpoints, capped", func(t *testing.T) {
		srv := startServer(t, demoWarehouse, func(c *pfsql.Config) { c.EndpointBytes = 16 << 10 })
		c := newClient(t, srv)
		res, info := c.mustQuery(t, c.ctx, sql)
		if len(info.Endpoint) < 3 || int64(len(res.Rows)) != total {
			t.Fatalf("%d endpoints, %d rows; want several endpoints and %d rows", len(info.Endpoint), len(res.Rows), total)
		}
		// The session option caps the endpoints.
		if _, err := c.SetSessionOptions(c.ctx, &flight.SetSessionOptionsRequest{SessionOptions: mustOptions(t, map[string]any{"max-endpoints": "2"})}); err != nil {
			t.Fatal(err)
		}
		res, info = c.mustQuery(t, c.ctx, sql)
		if len(info.Endpoint) != 2 || int64(len(res.Rows)) != total {
			t.Fatalf("max-endpoints 2: %d endpoints, %d rows", len(info.Endpoint), len(res.Rows))
		}
		// So does the server's --max-endpoints.
		srv1 := startServer(t, demoWarehouse, func(c *pfsql.Config) { c.EndpointBytes = 16 << 10; c.MaxEndpoints = 1 })
		c1 := newClient(t, srv1)
		eps, n := firstOnly(t, c1, c1.ctx)
		if eps != 1 || n != total {
			t.Fatalf("--max-endpoints 1: %d endpoints, endpoints[0] has %d of %d rows", eps, n, total)
		}
	})
}

func mustOptions(t *testing.T, m map[string]any) map[string]*flight.SessionOptionValue {
	t.Helper()
	v, err := flight.NewSessionOptionValues(m)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

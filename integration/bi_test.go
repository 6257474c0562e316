package integration

import (
	"context"
	"strings"
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
	// GetTables(include_schema), what JDBC's getColumns reads: the same
	// type names, precision and scale, nullability, and REMARKS.
	db, tbl := "default", "orders"
	_, schemas := c.getTables(t, &flightsql.GetTablesOpts{DbSchemaFilterPattern: &db, TableNameFilterPattern: &tbl, IncludeSchema: true})
	ts := schemas["default.orders"]
	if ts == nil {
		t.Fatal("no schema for default.orders")
	}
	get := func(i int, k string) string { v, _ := ts.Field(i).Metadata.GetValue(k); return v }
	if ts.Field(0).Nullable || get(0, flightsql.TypeNameKey) != "BIGINT" || get(0, flightsql.RemarksKey) != "(primary key)" ||
		get(2, flightsql.TypeNameKey) != "CHAR(1)" || get(2, flightsql.PrecisionKey) != "1" ||
		get(3, flightsql.PrecisionKey) != "15" || get(3, flightsql.ScaleKey) != "2" {
		t.Errorf("GetTables schema of orders: %s", ts)
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

// The metadata SQL BI tools send, over Flight: information_schema
// (SQLAlchemy, Superset, Metabase, pandas), DESCRIBE/SHOW, SET, and the
// connection functions.
func TestBIMetadataSQL(t *testing.T) {
	srv := startDemo(t)
	c := newClient(t, srv)
	ctx := c.ctx
	cases := []struct{ sql, want string }{
		{"SELECT schema_name FROM information_schema.schemata ORDER BY schema_name", "default;information_schema;sys"},
		{"SELECT table_name, table_type FROM information_schema.tables WHERE table_schema = 'default' ORDER BY table_name",
			"lineitem|BASE TABLE;nested|BASE TABLE;orders|BASE TABLE"},
		// SQLAlchemy's PostgreSQL-style column reflection.
		{`SELECT column_name, data_type, is_nullable, column_default, character_maximum_length, numeric_precision, numeric_scale
		  FROM information_schema.columns WHERE table_schema = 'default' AND table_name = 'orders' AND ordinal_position <= 4 ORDER BY ordinal_position`,
			"o_orderkey|BIGINT|NO|NULL|NULL|64|0;o_custkey|BIGINT|YES|NULL|NULL|64|0;o_orderstatus|CHAR|YES|NULL|1|NULL|NULL;o_totalprice|DECIMAL|YES|NULL|NULL|15|2"},
		// Metabase/Tableau upper-case the names.
		{`SELECT COUNT(*) FROM INFORMATION_SCHEMA.COLUMNS WHERE TABLE_SCHEMA = 'default' AND TABLE_NAME = 'orders'`, "9"},
		{"DESCRIBE orders", ""},
		{"SHOW COLUMNS FROM default.orders", ""},
		{"SHOW CREATE TABLE paimon.default.orders", ""},
		{"SHOW TABLES", "lineitem|TABLE;nested|TABLE;orders|TABLE"},
		{"SHOW SCHEMAS", "default;information_schema;sys"},
		{"SELECT version(), current_catalog, current_schema, current_user, database()", "paimon-flightsql dev|paimon|default|alice|default"},
		{"SELECT {fn UCASE('a')}, {d '2024-01-01'}, {ts '2024-01-01 10:00:00'}, {t '10:00:00'}", "A|2024-01-01|2024-01-01T10:00:00|10:00:00.000000"},
		{"SELECT TO_DATE('2024-01-02'), FROM_UNIXTIME(0) IS NOT NULL, CURRENT_DATE IS NOT NULL, NOW() IS NOT NULL", "2024-01-02|true|true|true"},
	}
	for _, cs := range cases {
		res, _, err := c.query(ctx, cs.sql)
		if err != nil {
			t.Errorf("%s: %v", cs.sql, err)
			continue
		}
		if len(res.Rows) == 0 {
			t.Errorf("%s: no rows", cs.sql)
			continue
		}
		if cs.want != "" && strings.Join(res.Rows, ";") != cs.want {
			t.Errorf("%s:\n got %s\nwant %s", cs.sql, strings.Join(res.Rows, ";"), cs.want)
		}
	}

	// SET and USE set session options, the same store as Flight
	// SetSessionOptions: the current schema moves and time travel applies.
	for _, sql := range []string{"SET schema = 'sys'", "USE sys"} {
		if _, _, err := c.query(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		res, _ := c.mustQuery(t, ctx, "SELECT current_schema")
		if strings.Join(res.Rows, ";") != "sys" {
			t.Fatalf("after %s: current_schema %v", sql, res.Rows)
		}
		if _, err := c.ExecuteUpdate(ctx, "SET schema = 'default'"); err != nil {
			t.Fatalf("SET as an update: %v", err)
		}
	}
	res, _ := c.mustQuery(t, ctx, "SELECT snapshot_id FROM orders$snapshots ORDER BY snapshot_id LIMIT 1")
	first := res.Rows[0]
	if _, _, err := c.query(ctx, "SET 'scan.snapshot-id' = '"+first+"'"); err != nil {
		t.Fatal(err)
	}
	opts, err := c.GetSessionOptions(ctx, &flight.GetSessionOptionsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if v := opts.SessionOptions["scan.snapshot-id"].GetStringValue(); v != first {
		t.Fatalf("session scan.snapshot-id = %q after SET, want %s", v, first)
	}
	if _, _, err := c.query(ctx, "SET 'scan.snapshot-id' = DEFAULT"); err != nil {
		t.Fatal(err)
	}
	for sql, msg := range map[string]string{
		"SET nope = 1":                  `unknown session option "nope"`,
		"SET schema = 'missing'":        `unknown schema (database) "missing"`,
		"SELECT * FROM orders$snapshot": `did you mean "$snapshots"`,
		"SELECT * FROM orders WHERE":    "^",
	} {
		_, _, err := c.query(ctx, sql)
		if err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%s: %v, want %q", sql, err, msg)
		}
	}
}

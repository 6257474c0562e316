package integration

import (
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"

	"github.com/paimon-flightsql/paimon-flightsql/planner"
)

// jdbcSqlInfo lists the SqlInfo keys the JDBC driver's DatabaseMetaData
// reads, with the dense-union member it casts to (clients doc, 2.4):
// 0 string, 1 bool, 2 bigint, 3 int32 bitmask, 4 string list, 5 map.
var jdbcSqlInfo = map[uint32]arrow.UnionTypeCode{
	0: 0, 1: 0, 504: 0, 513: 0, 514: 0, 529: 0, 530: 0, 531: 0,
	3: 1, 506: 1, 515: 1, 516: 1, 518: 1, 519: 1, 520: 1, 521: 1, 523: 1, 524: 1, 527: 1, 532: 1,
	536: 1, 537: 1, 539: 1, 556: 1, 563: 1, 565: 1, 566: 1, 572: 1, 573: 1, 574: 1, 575: 1, 576: 1,
	541: 2, 542: 2, 543: 2, 544: 2, 545: 2, 546: 2, 547: 2, 548: 2, 549: 2, 550: 2, 551: 2, 552: 2,
	553: 2, 554: 2, 555: 2, 557: 2, 558: 2, 559: 2, 560: 2, 561: 2, 562: 2, 503: 2, 505: 2, 507: 2,
	522: 3, 525: 3, 526: 3, 528: 3, 533: 3, 534: 3, 535: 3, 538: 3, 540: 3, 564: 3, 567: 3, 8: 3,
	508: 4, 509: 4, 510: 4, 511: 4, 512: 4,
	517: 5,
}

// jdbcClient behaves as the Flight SQL JDBC driver does (arrow-java 18/19):
// plain gRPC (useEncryption=false), a Basic Handshake whose token is read
// from the response headers, unknown URL properties sent as headers, and
// every SQL text run through a prepared statement.
type jdbcClient struct {
	t   *testing.T
	cl  *flightsql.Client
	mem *memory.CheckedAllocator
	ctx context.Context // carries the bearer token and URL-property headers
}

func connectJDBC(t *testing.T, srv *testServer, urlProps ...string) *jdbcClient {
	t.Helper()
	cl, err := flightsql.NewClient(srv.Addr, nil, nil, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	cl.Alloc = mem
	t.Cleanup(func() { mem.AssertSize(t, 0) })
	t.Cleanup(func() { cl.Close() })

	// Handshake with Basic; JDBC reads the token from the headers.
	base := metadata.AppendToOutgoingContext(context.Background(), urlProps...)
	hctx := metadata.AppendToOutgoingContext(base, "authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte(testUser+":"+testPassword)))
	hs, err := cl.Client.Handshake(hctx)
	if err != nil {
		t.Fatal(err)
	}
	hs.CloseSend()
	hdr, err := hs.Header()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := hs.Recv(); err != io.EOF {
		t.Fatalf("handshake: %v", err)
	}
	tok := hdr.Get("authorization")
	if len(tok) != 1 {
		t.Fatalf("no bearer token in the handshake headers: %v", hdr)
	}
	j := &jdbcClient{t: t, cl: cl, mem: mem, ctx: metadata.AppendToOutgoingContext(base, "authorization", tok[0])}

	// token= mode: a second node gets a Handshake carrying the Bearer token.
	hs, err = cl.Client.Handshake(j.ctx)
	if err != nil {
		t.Fatal(err)
	}
	hs.CloseSend()
	if _, err := hs.Recv(); err != io.EOF {
		t.Fatalf("bearer handshake: %v", err)
	}
	// catalog= sends SetSessionOptions at connect.
	opts, _ := flight.NewSessionOptionValues(map[string]any{"catalog": "paimon"})
	res, err := cl.SetSessionOptions(j.ctx, &flight.SetSessionOptionsRequest{SessionOptions: opts})
	if err != nil || len(res.GetErrors()) != 0 {
		t.Fatalf("SetSessionOptions catalog: %v %v", res, err)
	}
	t.Cleanup(func() {
		if _, err := cl.CloseSession(j.ctx, &flight.CloseSessionRequest{}); err != nil {
			t.Errorf("CloseSession: %v", err)
		}
	})
	return j
}

func (j *jdbcClient) fetch(info *flight.FlightInfo) (int64, []arrow.RecordBatch) {
	j.t.Helper()
	var n int64
	var recs []arrow.RecordBatch
	for _, ep := range info.Endpoint {
		rdr, err := j.cl.DoGet(j.ctx, ep.Ticket)
		if err != nil {
			j.t.Fatal(err)
		}
		for rdr.Next() {
			r := rdr.RecordBatch()
			r.Retain()
			recs = append(recs, r)
			n += r.NumRows()
		}
		if err := rdr.Err(); err != nil {
			j.t.Fatal(err)
		}
		rdr.Release()
	}
	j.t.Cleanup(func() {
		for _, r := range recs {
			r.Release()
		}
	})
	return n, recs
}

// executeQuery is Statement.executeQuery: prepare, classify by is_update,
// GetFlightInfo(prepared), DoGet, close.
func (j *jdbcClient) executeQuery(sql string, bind func(*flightsql.PreparedStatement)) result {
	j.t.Helper()
	ps, err := j.cl.Prepare(j.ctx, sql)
	if err != nil {
		j.t.Fatalf("prepare %q: %v", sql, err)
	}
	original := flightsql.NewPreparedStatement(j.cl, ps.Handle())
	upd, ok := ps.IsUpdate()
	if !ok || upd || ps.DatasetSchema() == nil || ps.DatasetSchema().NumFields() == 0 {
		j.t.Fatalf("%q would be misrouted as an update (is_update=%v,%v dataset=%v)", sql, upd, ok, ps.DatasetSchema())
	}
	if bind != nil {
		bind(ps)
	}
	info, err := ps.Execute(j.ctx)
	if err != nil {
		j.t.Fatalf("execute %q: %v", sql, err)
	}
	res := result{Fields: fieldStrings(ps.DatasetSchema())}
	_, recs := j.fetch(info)
	for _, r := range recs {
		res.add(r)
	}
	// JDBC closes with the handle it got from CreatePreparedStatement.
	if err := original.Close(j.ctx); err != nil {
		j.t.Fatalf("close: %v", err)
	}
	if bind != nil {
		if err := ps.Close(j.ctx); err != nil {
			j.t.Fatalf("close bound: %v", err)
		}
	}
	return res
}

// executeUpdate is Statement.executeUpdate: prepare (is_update must be
// set), DoPut CommandPreparedStatementUpdate, close.
func (j *jdbcClient) executeUpdate(sql string) int64 {
	j.t.Helper()
	ps, err := j.cl.Prepare(j.ctx, sql)
	if err != nil {
		j.t.Fatalf("prepare %q: %v", sql, err)
	}
	if upd, ok := ps.IsUpdate(); !ok || !upd {
		j.t.Fatalf("%q: is_update=%v,%v", sql, upd, ok)
	}
	n, err := ps.ExecuteUpdate(j.ctx)
	if err != nil {
		j.t.Fatalf("%q: %v", sql, err)
	}
	if err := ps.Close(j.ctx); err != nil {
		j.t.Fatal(err)
	}
	return n
}

func TestJDBCBehaviour(t *testing.T) {
	srv := startDemo(t)
	j := connectJDBC(t, srv)

	t.Run("SqlInfoAllKeysTyped", func(t *testing.T) {
		info, err := j.cl.GetSqlInfo(j.ctx, nil) // DBeaver: one call, all keys
		if err != nil {
			t.Fatal(err)
		}
		_, recs := j.fetch(info)
		got := map[uint32]arrow.UnionTypeCode{}
		for _, r := range recs {
			names := r.Column(0).(*array.Uint32)
			vals := r.Column(1).(*array.DenseUnion)
			for i := 0; i < int(r.NumRows()); i++ {
				got[names.Value(i)] = vals.TypeCode(i)
			}
		}
		for k, want := range jdbcSqlInfo {
			code, ok := got[k]
			if !ok {
				t.Errorf("SqlInfo %d missing (JDBC < 19 throws NullPointerException)", k)
			} else if code != want {
				t.Errorf("SqlInfo %d has union member %d, JDBC casts to %d", k, code, want)
			}
		}
		for k := range got {
			if k > 576 || (k > 11 && k < 100) || (k > 101 && k < 500) {
				t.Errorf("SqlInfo %d is outside the Flight SQL enum (JDBC throws)", k)
			}
		}
	})

	t.Run("DatabaseMetaData", func(t *testing.T) {
		info, err := j.cl.GetCatalogs(j.ctx)
		if err != nil {
			t.Fatal(err)
		}
		if n, recs := j.fetch(info); n != 1 || recs[0].Schema().Field(0).Name != "catalog_name" {
			t.Fatalf("getCatalogs: %d", n)
		}
		info, err = j.cl.GetDBSchemas(j.ctx, &flightsql.GetDBSchemasOpts{})
		if err != nil {
			t.Fatal(err)
		}
		n, recs := j.fetch(info)
		if n != 3 || recs[0].Schema().Field(1).Name != "db_schema_name" || rowString(recs[0], 0) != "paimon|default" || rowString(recs[0], 1) != "paimon|information_schema" || rowString(recs[0], 2) != "paimon|sys" {
			t.Fatalf("getSchemas: %d", n)
		}
		cat, schema, table := "paimon", "default", "%"
		info, err = j.cl.GetTables(j.ctx, &flightsql.GetTablesOpts{Catalog: &cat, DbSchemaFilterPattern: &schema, TableNameFilterPattern: &table})
		if err != nil {
			t.Fatal(err)
		}
		n, recs = j.fetch(info)
		if n != 3 || recs[0].NumCols() != 4 || rowString(recs[0], 2) != "paimon|default|orders|TABLE" {
			t.Fatalf("getTables: %d rows %d cols", n, recs[0].NumCols())
		}
		// getColumns: include_schema, column names exactly as JDBC reads them.
		table = "orders"
		info, err = j.cl.GetTables(j.ctx, &flightsql.GetTablesOpts{Catalog: &cat, DbSchemaFilterPattern: &schema, TableNameFilterPattern: &table, IncludeSchema: true})
		if err != nil {
			t.Fatal(err)
		}
		_, recs = j.fetch(info)
		rec := recs[0]
		for i, name := range []string{"catalog_name", "db_schema_name", "table_name", "table_type", "table_schema"} {
			if rec.Schema().Field(i).Name != name {
				t.Fatalf("column %d is %q, JDBC reads %q", i, rec.Schema().Field(i).Name, name)
			}
		}
		if rec.NumRows() != 1 || rec.Column(4).IsNull(0) {
			t.Fatal("table_schema is null (DBeaver: schemaVector is null)")
		}
		sc, err := flight.DeserializeSchema(rec.Column(4).(*array.Binary).Value(0), j.mem)
		if err != nil {
			t.Fatal(err)
		}
		typeNames := map[string]string{}
		for _, f := range sc.Fields() {
			md := f.Metadata
			cm := flightsql.ColumnMetadata{Data: &md}
			tn, ok := cm.TypeName()
			if !ok || tn == "" {
				t.Fatalf("column %s lacks ARROW:FLIGHT:SQL:TYPE_NAME", f.Name)
			}
			typeNames[f.Name] = tn
			if f.Name == "o_totalprice" {
				if p, ok := cm.Precision(); !ok || p != 15 {
					t.Errorf("o_totalprice precision %d %v", p, ok)
				}
				if s, ok := cm.Scale(); !ok || s != 2 {
					t.Errorf("o_totalprice scale %d %v", s, ok)
				}
			}
		}
		if len(typeNames) != 9 {
			t.Fatalf("orders columns %v", typeNames)
		}
		info, err = j.cl.GetPrimaryKeys(j.ctx, flightsql.TableRef{Catalog: &cat, DBSchema: &schema, Table: "orders"})
		if err != nil {
			t.Fatal(err)
		}
		pk := result{}
		_, recs = j.fetch(info)
		for _, r := range recs {
			pk.add(r)
		}
		if join(pk.Rows) != "paimon|default|orders|dt|1|pk_orders, paimon|default|orders|o_orderkey|2|pk_orders" {
			t.Fatalf("getPrimaryKeys: %v", pk.Rows)
		}
		info, err = j.cl.GetImportedKeys(j.ctx, flightsql.TableRef{Catalog: &cat, DBSchema: &schema, Table: "orders"})
		if err != nil {
			t.Fatal(err)
		}
		if n, _ := j.fetch(info); n != 0 {
			t.Fatalf("getImportedKeys: %d", n)
		}
		info, err = j.cl.GetTableTypes(j.ctx)
		if err != nil {
			t.Fatal(err)
		}
		if n, _ := j.fetch(info); n != 2 {
			t.Fatalf("getTableTypes: %d", n)
		}
	})

	t.Run("StatementThroughPreparedStatement", func(t *testing.T) {
		for _, sql := range []string{
			"SELECT * FROM orders",
			"SELECT dt, COUNT(*) FROM orders GROUP BY dt ORDER BY dt",
			"SELECT * FROM sys.partitions",
			"SELECT * FROM nested WHERE id < 50",
		} {
			want := inProcess(t, srv.Engine, sql, planner.Session{})
			if d := j.executeQuery(sql, nil).sorted().diff(want.sorted()); d != "" || len(want.Rows) == 0 {
				t.Fatalf("%s: %s", sql, d)
			}
		}
	})

	t.Run("URLPropertiesAsHeaders", func(t *testing.T) {
		// jdbc:arrow-flight-sql://…/?scan.tag-name=v1&schema=default: unknown
		// URL properties arrive as headers on every call.
		jt := connectJDBC(t, srv, "scan.tag-name", "v1", "schema", "default")
		const sql = "SELECT * FROM orders WHERE dt = '2024-01-08'"
		want := inProcess(t, srv.Engine, sql, planner.Session{Options: map[string]string{"scan.tag-name": "v1"}}).sorted()
		if d := jt.executeQuery(sql, nil).sorted().diff(want); d != "" {
			t.Fatalf("tag v1 via URL property: %s", d)
		}
		if j.executeQuery(sql, nil).sorted().diff(want) == "" {
			t.Fatal("the connection without the URL property reads tag v1 too")
		}
	})

	t.Run("PreparedStatementWithParameters", func(t *testing.T) {
		const sql = "SELECT o_orderkey, o_custkey, dt FROM orders WHERE o_orderkey < ?"
		got := j.executeQuery(sql, func(ps *flightsql.PreparedStatement) {
			if ps.ParameterSchema() == nil || ps.ParameterSchema().NumFields() != 1 {
				t.Fatalf("parameter schema %v: setLong(1, …) would fail", ps.ParameterSchema())
			}
			b := array.NewRecordBuilder(j.mem, ps.ParameterSchema())
			defer b.Release()
			b.Field(0).(*array.Int64Builder).Append(40)
			rec := b.NewRecordBatch()
			defer rec.Release()
			ps.SetParameters(rec)
		})
		want := inProcess(t, srv.Engine, "SELECT o_orderkey, o_custkey, dt FROM orders WHERE o_orderkey < 40", planner.Session{})
		if d := got.sorted().diff(want.sorted()); d != "" || len(want.Rows) == 0 {
			t.Fatalf("o_orderkey < 40: %s", d)
		}
	})
}

// TestJDBCUpdates runs DELETE and CALL sys.compact through prepared
// statements on a copy of the demo warehouse.
func TestJDBCUpdates(t *testing.T) {
	srv := startServer(t, copyWarehouse(t, demoWarehouse))
	j := connectJDBC(t, srv)
	const where = " WHERE dt = '2024-01-03' AND o_orderpriority = '1-URGENT'"
	count := func(sql string) string { return join(j.executeQuery(sql, nil).Rows) }
	before := inProcessCount(t, srv.Engine, "SELECT COUNT(*) FROM orders"+where, planner.Session{})
	total := inProcessCount(t, srv.Engine, "SELECT COUNT(*) FROM orders", planner.Session{})
	if before == 0 {
		t.Fatal("nothing to delete")
	}
	if n := j.executeUpdate("DELETE FROM orders" + where); n != before {
		t.Fatalf("DELETE: %d rows, want %d", n, before)
	}
	if got := count("SELECT COUNT(*) FROM orders" + where); got != "0" {
		t.Fatalf("after DELETE: %s rows match", got)
	}
	if got := count("SELECT COUNT(*) FROM orders"); got != fmt.Sprint(total-before) {
		t.Fatalf("after DELETE: %s rows, want %d", got, total-before)
	}
	snaps := count("SELECT COUNT(*) FROM orders$snapshots")
	data := j.executeQuery("SELECT * FROM orders", nil).sorted()
	// The DELETE already compacted its -D records into deletion vectors:
	// a minor compaction finds nothing to do, a full one rewrites.
	if n := j.executeUpdate("CALL sys.compact('default.orders')"); n != 0 {
		t.Fatalf("CALL sys.compact: %d", n)
	}
	if n := j.executeUpdate("CALL sys.compact('default.orders', 'full')"); n != 0 {
		t.Fatalf("CALL sys.compact full: %d", n)
	}
	if got := count("SELECT COUNT(*) FROM orders$snapshots"); got == snaps {
		t.Fatalf("CALL sys.compact full committed no snapshot (%s)", got)
	}
	if got := count("SELECT COUNT(*) FROM orders$files WHERE level = 0"); got != "0" {
		t.Fatalf("%s level-0 files after a full compaction", got)
	}
	if d := j.executeQuery("SELECT * FROM orders", nil).sorted().diff(data); d != "" {
		t.Fatalf("compaction changed the data: %s", d)
	}
}

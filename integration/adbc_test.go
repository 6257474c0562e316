package integration

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-adbc/go/adbc"
	drv "github.com/apache/arrow-adbc/go/adbc/driver/flightsql"
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	pfsql "github.com/paimon-flightsql/paimon-flightsql/flightsql"
	"github.com/paimon-flightsql/paimon-flightsql/planner"
)

// openADBC connects with the ADBC Go Flight SQL driver (username/password:
// a Basic Handshake, then the bearer token).
func openADBC(t *testing.T, srv *testServer, mem memory.Allocator, extra map[string]string) adbc.Connection {
	t.Helper()
	opts := map[string]string{
		adbc.OptionKeyURI:      srv.URI,
		adbc.OptionKeyUsername: testUser,
		adbc.OptionKeyPassword: testPassword,
	}
	for k, v := range extra {
		opts[k] = v
	}
	db, err := drv.NewDriver(mem).NewDatabase(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	cnxn, err := db.Open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := cnxn.Close(); err != nil {
			t.Errorf("close connection: %v", err)
		}
	})
	return cnxn
}

// drain reads rdr into records (released at cleanup) and releases it.
func drain(t *testing.T, rdr array.RecordReader) []arrow.RecordBatch {
	t.Helper()
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
	t.Cleanup(func() {
		for _, r := range recs {
			r.Release()
		}
	})
	return recs
}

// adbcQuery runs sql with a fresh statement and returns its result.
func adbcQuery(t *testing.T, cnxn adbc.Connection, sql string) result {
	t.Helper()
	st, err := cnxn.NewStatement()
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.SetSqlQuery(sql); err != nil {
		t.Fatal(err)
	}
	rdr, _, err := st.ExecuteQuery(context.Background())
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	res, err := readAll(rdr)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return res
}

// objectColumns walks a GetObjects result: "db.table" → column names.
func objectColumns(recs []arrow.RecordBatch) ([]string, map[string][]string) {
	var catalogs []string
	columns := map[string][]string{}
	for _, r := range recs {
		names := r.Column(0).(*array.String)
		schemas := r.Column(1).(*array.List)
		for i := 0; i < int(r.NumRows()); i++ {
			catalogs = append(catalogs, names.Value(i))
			sch := schemas.ListValues().(*array.Struct)
			s0, s1 := schemas.ValueOffsets(i)
			for s := s0; s < s1; s++ {
				db := sch.Field(0).(*array.String).Value(int(s))
				tabs := sch.Field(1).(*array.List)
				tst := tabs.ListValues().(*array.Struct)
				t0, t1 := tabs.ValueOffsets(int(s))
				for tt := t0; tt < t1; tt++ {
					name := db + "." + tst.Field(0).(*array.String).Value(int(tt))
					columns[name] = []string{}
					cols := tst.Field(2).(*array.List)
					cst := cols.ListValues().(*array.Struct)
					c0, c1 := cols.ValueOffsets(int(tt))
					for c := c0; c < c1; c++ {
						columns[name] = append(columns[name], cst.Field(0).(*array.String).Value(int(c)))
					}
				}
			}
		}
	}
	return catalogs, columns
}

func TestADBC(t *testing.T) {
	// One endpoint per partition however small the result, so that
	// QueryAndPartitions reads several partitions (bi_test.go covers
	// endpoints sized by the result).
	srv := startServer(t, demoWarehouse, func(c *pfsql.Config) { c.EndpointBytes = -1 })
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	t.Cleanup(func() { mem.AssertSize(t, 0) }) // after the connections and results are released
	ctx := context.Background()
	cnxn := openADBC(t, srv, mem, nil)

	t.Run("GetInfo", func(t *testing.T) {
		rdr, err := cnxn.GetInfo(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		found := map[adbc.InfoCode]string{}
		for _, r := range drain(t, rdr) {
			codes := r.Column(0).(*array.Uint32)
			vals := r.Column(1).(*array.DenseUnion)
			for i := 0; i < int(r.NumRows()); i++ {
				if s, ok := vals.Field(vals.ChildID(i)).(*array.String); ok {
					found[adbc.InfoCode(codes.Value(i))] = s.Value(int(vals.ValueOffset(i)))
				}
			}
		}
		if found[adbc.InfoVendorName] != "Apache Paimon Flight SQL" || found[adbc.InfoVendorArrowVersion] == "" || found[adbc.InfoDriverName] == "" {
			t.Fatalf("GetInfo strings: %v", found)
		}
	})

	t.Run("GetObjects", func(t *testing.T) {
		rdr, err := cnxn.GetObjects(ctx, adbc.ObjectDepthAll, nil, nil, nil, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		catalogs, columns := objectColumns(drain(t, rdr))
		if len(catalogs) != 1 || catalogs[0] != "paimon" {
			t.Fatalf("catalogs %v", catalogs)
		}
		for name, want := range map[string]int{"default.orders": 9, "default.lineitem": 16, "default.nested": 8,
			"sys.tables": 14, "sys.partitions": 8, "sys.all_table_options": 4,
			"information_schema.columns": 17, "information_schema.tables": 13, "information_schema.schemata": 7, "information_schema.views": 7} {
			if len(columns[name]) != want {
				t.Errorf("%s: columns %v, want %d", name, columns[name], want)
			}
		}
		if len(columns) != 10 {
			t.Errorf("tables %v", columns)
		}
		if got := strings.Join(columns["default.orders"], ","); got != "o_orderkey,o_custkey,o_orderstatus,o_totalprice,o_orderdate,o_orderpriority,o_clerk,o_comment,dt" {
			t.Errorf("orders columns %s", got)
		}
		// LIKE patterns on schema and table names.
		pattern, tbl := "def%", "line_tem"
		rdr, err = cnxn.GetObjects(ctx, adbc.ObjectDepthTables, nil, &pattern, &tbl, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, columns = objectColumns(drain(t, rdr)); len(columns) != 1 || columns["default.lineitem"] == nil {
			t.Fatalf("GetObjects(def%%, line_tem) = %v", columns)
		}
	})

	t.Run("GetTableSchemaAndTypes", func(t *testing.T) {
		db := "default"
		sc, err := cnxn.GetTableSchema(ctx, nil, &db, "orders")
		if err != nil {
			t.Fatal(err)
		}
		if got := join(fieldStrings(sc)); got != "o_orderkey: int64, o_custkey: int64, o_orderstatus: utf8, o_totalprice: decimal(15, 2), o_orderdate: date32, o_orderpriority: utf8, o_clerk: utf8, o_comment: utf8, dt: utf8" {
			t.Fatalf("orders schema %s", got)
		}
		if sc.Field(0).Nullable {
			t.Errorf("o_orderkey (primary key, NOT NULL) is nullable")
		}
		db = "sys"
		if sc, err = cnxn.GetTableSchema(ctx, nil, &db, "partitions"); err != nil || sc.NumFields() != 8 {
			t.Fatalf("sys.partitions schema %v %v", sc, err)
		}
		rdr, err := cnxn.GetTableTypes(ctx)
		if err != nil {
			t.Fatal(err)
		}
		res, err := readAll(rdr)
		if err != nil || join(res.Rows) != "SYSTEM TABLE, TABLE" {
			t.Fatalf("table types %v %v", res.Rows, err)
		}
	})

	t.Run("QueryAndPartitions", func(t *testing.T) {
		const sql = "SELECT * FROM orders WHERE dt >= '2024-01-10'"
		want := inProcess(t, srv.Engine, sql, planner.Session{}).sorted()
		if d := adbcQuery(t, cnxn, sql).sorted().diff(want); d != "" {
			t.Fatal(d)
		}
		// A small result is one endpoint by default: read the partitions
		// of a server that gives one endpoint per partition.
		psrv := startServer(t, demoWarehouse, func(c *pfsql.Config) { c.EndpointBytes = -1 })
		pcnxn := openADBC(t, psrv, mem, nil)
		st, err := pcnxn.NewStatement()
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		st.SetSqlQuery(sql)
		sc, parts, _, err := st.ExecutePartitions(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if sc.NumFields() != 9 || parts.NumPartitions < 2 {
			t.Fatalf("%d partitions, schema %v", parts.NumPartitions, sc)
		}
		// Distributed readers: each partition read on its own.
		got := result{Fields: fieldStrings(sc)}
		for _, p := range parts.PartitionIDs {
			rdr, err := cnxn.ReadPartition(ctx, p)
			if err != nil {
				t.Fatal(err)
			}
			part, err := readAll(rdr)
			if err != nil {
				t.Fatal(err)
			}
			got.Rows = append(got.Rows, part.Rows...)
		}
		if d := got.sorted().diff(want); d != "" {
			t.Fatalf("partitions: %s", d)
		}
	})

	t.Run("PreparedWithParameters", func(t *testing.T) {
		st, err := cnxn.NewStatement()
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		if err := st.SetSqlQuery("SELECT o_orderkey, o_totalprice, dt FROM orders WHERE o_orderkey < ? AND dt = ?"); err != nil {
			t.Fatal(err)
		}
		if err := st.Prepare(ctx); err != nil {
			t.Fatal(err)
		}
		ps, err := st.GetParameterSchema()
		if err != nil || ps.NumFields() != 2 || ps.Field(0).Type.ID() != arrow.INT64 || ps.Field(1).Type.ID() != arrow.STRING {
			t.Fatalf("parameter schema %v %v", ps, err)
		}
		bind := func(rows ...[2]any) {
			b := array.NewRecordBuilder(mem, ps)
			defer b.Release()
			for _, r := range rows {
				b.Field(0).(*array.Int64Builder).Append(r[0].(int64))
				b.Field(1).(*array.StringBuilder).Append(r[1].(string))
			}
			rec := b.NewRecordBatch()
			defer rec.Release()
			if err := st.Bind(ctx, rec); err != nil {
				t.Fatal(err)
			}
		}
		exec := func() result {
			rdr, _, err := st.ExecuteQuery(ctx)
			if err != nil {
				t.Fatal(err)
			}
			res, err := readAll(rdr)
			if err != nil {
				t.Fatal(err)
			}
			return res.sorted()
		}
		lit := func(k int64, dt string) result {
			return inProcess(t, srv.Engine, fmt.Sprintf("SELECT o_orderkey, o_totalprice, dt FROM orders WHERE o_orderkey < %d AND dt = '%s'", k, dt), planner.Session{})
		}
		for _, c := range []struct {
			k  int64
			dt string
		}{{500, "2024-01-03"}, {2000, "2024-01-13"}, {1, "2024-01-03"}} {
			bind([2]any{c.k, c.dt})
			want := lit(c.k, c.dt).sorted()
			if d := exec().diff(want); d != "" {
				t.Fatalf("o_orderkey < %d AND dt = %s: %s", c.k, c.dt, d)
			}
			if c.k > 1 && len(want.Rows) == 0 {
				t.Fatalf("o_orderkey < %d AND dt = %s: no rows", c.k, c.dt)
			}
		}
		// Several parameter rows: the query runs once per row, results concatenated.
		bind([2]any{int64(300), "2024-01-02"}, [2]any{int64(300), "2024-01-05"})
		want := lit(300, "2024-01-02")
		want.Rows = append(want.Rows, lit(300, "2024-01-05").Rows...)
		if d := exec().diff(want.sorted()); d != "" {
			t.Fatalf("two bound rows: %s", d)
		}
	})

	t.Run("SessionOptions", func(t *testing.T) {
		c := openADBC(t, srv, mem, nil)
		opts := c.(adbc.GetSetOptions)
		if err := opts.SetOption(adbc.OptionKeyCurrentDbSchema, "sys"); err != nil {
			t.Fatal(err)
		}
		if got, err := opts.GetOption(adbc.OptionKeyCurrentDbSchema); err != nil || got != "sys" {
			t.Fatalf("current schema %q %v", got, err)
		}
		if got, err := opts.GetOption(adbc.OptionKeyCurrentCatalog); err != nil || got != "paimon" {
			t.Fatalf("current catalog %q %v", got, err)
		}
		// Unqualified names resolve in the session schema.
		if d := adbcQuery(t, c, "SELECT * FROM all_table_options").sorted().diff(inProcess(t, srv.Engine, "SELECT * FROM sys.all_table_options", planner.Session{}).sorted()); d != "" {
			t.Fatalf("tables in schema sys: %s", d)
		}
		if err := opts.SetOption(adbc.OptionKeyCurrentDbSchema, "nope"); err == nil {
			t.Fatal("unknown schema accepted")
		}
		if err := opts.SetOption(adbc.OptionKeyCurrentDbSchema, "default"); err != nil {
			t.Fatal(err)
		}
		// Time travel without SQL extensions: snapshot, tag, branch, timestamp.
		const sql = "SELECT * FROM orders WHERE dt = '2024-01-05'"
		latest := adbcQuery(t, c, sql).sorted()
		check := func(key, val string) {
			t.Helper()
			if err := opts.SetOption(drv.OptionSessionOptionPrefix+key, val); err != nil {
				t.Fatal(err)
			}
			if got, err := opts.GetOption(drv.OptionSessionOptionPrefix + key); err != nil || got != val {
				t.Fatalf("session option %s = %q %v", key, got, err)
			}
			got := adbcQuery(t, c, sql).sorted()
			want := inProcess(t, srv.Engine, sql, planner.Session{Options: map[string]string{key: val}}).sorted()
			if d := got.diff(want); d != "" {
				t.Fatalf("%s=%s: %s", key, val, d)
			}
			if got.diff(latest) == "" {
				t.Fatalf("%s=%s reads the latest snapshot", key, val)
			}
		}
		check("scan.snapshot-id", "2")
		check("scan.tag-name", "v1")
		// scan.timestamp-millis: the commit time of snapshot 4.
		ct := inProcess(t, srv.Engine, "SELECT commit_time FROM orders$snapshots WHERE snapshot_id = 4", planner.Session{})
		ts, err := time.Parse("2006-01-02T15:04:05.999999999", ct.Rows[0])
		if err != nil {
			t.Fatal(err)
		}
		check("scan.timestamp-millis", fmt.Sprint(ts.UnixMilli()))
		if got, err := opts.GetOption(drv.OptionSessionOptionPrefix + "scan.snapshot-id"); err == nil && got != "" {
			t.Fatalf("scan.snapshot-id = %q after setting scan.timestamp-millis", got)
		}
		if err := opts.SetOption(drv.OptionEraseSessionOptionPrefix+"scan.timestamp-millis", ""); err != nil {
			t.Fatal(err)
		}
		if d := adbcQuery(t, c, sql).sorted().diff(latest); d != "" {
			t.Fatalf("after erasing scan.timestamp-millis: %s", d)
		}
		check("branch", "dev")
	})

	t.Run("Errors", func(t *testing.T) {
		st, _ := cnxn.NewStatement()
		defer st.Close()
		for _, e := range []struct {
			sql  string
			code adbc.Status
		}{{"SELECT * FROM ordrs", adbc.StatusNotFound}, {"SELECT * FROM", adbc.StatusInvalidArgument}} {
			st.SetSqlQuery(e.sql)
			_, _, err := st.ExecuteQuery(ctx)
			var ae adbc.Error
			if !errors.As(err, &ae) || ae.Code != e.code {
				t.Fatalf("%s: %v", e.sql, err)
			}
		}
		bad, err := drv.NewDriver(mem).NewDatabase(map[string]string{
			adbc.OptionKeyURI: srv.URI, adbc.OptionKeyUsername: testUser, adbc.OptionKeyPassword: "wrong",
		})
		if err != nil {
			t.Fatal(err)
		}
		defer bad.Close()
		c, err := bad.Open(ctx)
		if err == nil {
			c.Close()
		}
		var ae adbc.Error
		if !errors.As(err, &ae) || ae.Code != adbc.StatusUnauthenticated {
			t.Fatalf("bad password: %v", err)
		}
	})
}

// TestADBCFixtures browses and queries the fixture warehouse with ADBC.
func TestADBCFixtures(t *testing.T) {
	srv := startFixtures(t)
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	t.Cleanup(func() { mem.AssertSize(t, 0) }) // after the connections and results are released
	ctx := context.Background()
	cnxn := openADBC(t, srv, mem, nil)
	opts := cnxn.(adbc.GetSetOptions)
	if err := opts.SetOption(drv.OptionSessionOptionPrefix+"schema", "pk_09"); err != nil {
		t.Fatal(err)
	}

	rdr, err := cnxn.GetObjects(ctx, adbc.ObjectDepthColumns, nil, nil, nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, columns := objectColumns(drain(t, rdr))
	// Every fixture table is listed with its latest schema.
	for name, want := range map[string]string{
		"pk_09.pk_09":         "f0,f1,f2,f3",
		"append_09.append_09": "f0,f1,f2,f3",
		"append_table_with_alter_table.append_table_with_alter_table": "key0,key1,k,c,d,a,e",
	} {
		if got := strings.Join(columns[name], ","); got != want {
			t.Errorf("%s columns %q, want %q", name, got, want)
		}
	}
	if len(columns) != 10+3+4 { // data tables, sys, information_schema
		t.Errorf("%d tables: %v", len(columns), columns)
	}
	// The session schema resolves pk_09.
	const sql = "SELECT * FROM pk_09"
	want := inProcess(t, srv.Engine, sql, planner.Session{Database: "pk_09"}).sorted()
	if d := adbcQuery(t, cnxn, sql).sorted().diff(want); d != "" || len(want.Rows) == 0 {
		t.Fatalf("%s: %s", sql, d)
	}
	// Time travel through a session option.
	if err := opts.SetOption(drv.OptionSessionOptionPrefix+"scan.snapshot-id", "3"); err != nil {
		t.Fatal(err)
	}
	old := inProcess(t, srv.Engine, sql, planner.Session{Database: "pk_09", Options: map[string]string{"scan.snapshot-id": "3"}}).sorted()
	if d := adbcQuery(t, cnxn, sql).sorted().diff(old); d != "" || old.diff(want) == "" {
		t.Fatalf("%s at snapshot 3: %s", sql, d)
	}
}

package integration

import (
	"context"
	"errors"
	"testing"

	"github.com/apache/arrow-adbc/go/adbc"
	drv "github.com/apache/arrow-adbc/go/adbc/driver/flightsql"
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
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

// drain counts the rows of rdr, releasing it.
func drain(t *testing.T, rdr array.RecordReader) (int64, []arrow.RecordBatch) {
	t.Helper()
	defer rdr.Release()
	var n int64
	var recs []arrow.RecordBatch
	for rdr.Next() {
		r := rdr.RecordBatch()
		r.Retain()
		recs = append(recs, r)
		n += r.NumRows()
	}
	if err := rdr.Err(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for _, r := range recs {
			r.Release()
		}
	})
	return n, recs
}

func query(t *testing.T, cnxn adbc.Connection, sql string) (int64, []arrow.RecordBatch) {
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
	return drain(t, rdr)
}

func TestADBC(t *testing.T) {
	srv := startServer(t)
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	ctx := context.Background()

	t.Run("GetInfo", func(t *testing.T) {
		cnxn := openADBC(t, srv, mem, nil)
		rdr, err := cnxn.GetInfo(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		_, recs := drain(t, rdr)
		found := map[adbc.InfoCode]string{}
		for _, r := range recs {
			codes := r.Column(0).(*array.Uint32)
			vals := r.Column(1).(*array.DenseUnion)
			for i := 0; i < int(r.NumRows()); i++ {
				if s, ok := vals.Field(vals.ChildID(i)).(*array.String); ok {
					found[adbc.InfoCode(codes.Value(i))] = s.Value(int(vals.ValueOffset(i)))
				}
			}
		}
		if found[adbc.InfoVendorName] != "Apache Paimon Flight SQL" || found[adbc.InfoVendorArrowVersion] == "" {
			t.Fatalf("GetInfo strings: %v", found)
		}
	})

	t.Run("GetObjects", func(t *testing.T) {
		cnxn := openADBC(t, srv, mem, nil)
		rdr, err := cnxn.GetObjects(ctx, adbc.ObjectDepthAll, nil, nil, nil, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		_, recs := drain(t, rdr)
		// catalog_name → db_schemas → tables → columns
		var catalogs []string
		columns := map[string]int{}
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
						name := tst.Field(0).(*array.String).Value(int(tt))
						cols := tst.Field(2).(*array.List)
						c0, c1 := cols.ValueOffsets(int(tt))
						columns[db+"."+name] = int(c1 - c0)
					}
				}
			}
		}
		if len(catalogs) != 1 || catalogs[0] != "paimon" {
			t.Fatalf("catalogs %v", catalogs)
		}
		if columns["default.orders"] != 3 || columns["sales.events"] != 2 {
			t.Fatalf("tables and column counts %v", columns)
		}
	})

	t.Run("GetTableSchemaAndTypes", func(t *testing.T) {
		cnxn := openADBC(t, srv, mem, nil)
		db := "default"
		sc, err := cnxn.GetTableSchema(ctx, nil, &db, "orders")
		if err != nil {
			t.Fatal(err)
		}
		if sc.NumFields() != 3 || !arrow.TypeEqual(sc.Field(1).Type, arrow.BinaryTypes.String) {
			t.Fatalf("orders schema %v", sc)
		}
		rdr, err := cnxn.GetTableTypes(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if n, _ := drain(t, rdr); n != 2 {
			t.Fatalf("%d table types", n)
		}
	})

	t.Run("Query", func(t *testing.T) {
		cnxn := openADBC(t, srv, mem, nil)
		n, recs := query(t, cnxn, "SELECT * FROM orders")
		if n != 12 || !arrow.TypeEqual(recs[0].Schema().Field(1).Type, arrow.BinaryTypes.String) {
			t.Fatalf("%d rows, schema %v", n, recs[0].Schema())
		}
		st, _ := cnxn.NewStatement()
		defer st.Close()
		st.SetSqlQuery("SELECT * FROM orders")
		sc, parts, _, err := st.ExecutePartitions(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if sc.NumFields() != 3 || parts.NumPartitions != 3 {
			t.Fatalf("partitions %d schema %v", parts.NumPartitions, sc)
		}
	})

	t.Run("PreparedWithParameters", func(t *testing.T) {
		cnxn := openADBC(t, srv, mem, nil)
		st, err := cnxn.NewStatement()
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		if err := st.SetSqlQuery("SELECT * FROM orders WHERE id > ?"); err != nil {
			t.Fatal(err)
		}
		if err := st.Prepare(ctx); err != nil {
			t.Fatal(err)
		}
		ps, err := st.GetParameterSchema()
		if err != nil || ps.NumFields() != 1 || ps.Field(0).Type.ID() != arrow.INT64 {
			t.Fatalf("parameter schema %v %v", ps, err)
		}
		for _, c := range []struct{ bound, want int64 }{{8, 4}, {11, 1}} {
			b := array.NewRecordBuilder(mem, ps)
			b.Field(0).(*array.Int64Builder).Append(c.bound)
			rec := b.NewRecordBatch()
			b.Release()
			err := st.Bind(ctx, rec)
			rec.Release()
			if err != nil {
				t.Fatal(err)
			}
			rdr, _, err := st.ExecuteQuery(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if n, _ := drain(t, rdr); n != c.want {
				t.Fatalf("id > %d: %d rows, want %d", c.bound, n, c.want)
			}
		}
	})

	t.Run("Update", func(t *testing.T) {
		cnxn := openADBC(t, srv, mem, nil)
		st, _ := cnxn.NewStatement()
		defer st.Close()
		st.SetSqlQuery("CALL sys.compact('default.orders')")
		if n, err := st.ExecuteUpdate(ctx); err != nil || n != 0 {
			t.Fatalf("CALL: %d %v", n, err)
		}
	})

	t.Run("SessionOptions", func(t *testing.T) {
		cnxn := openADBC(t, srv, mem, nil)
		opts := cnxn.(adbc.GetSetOptions)
		if err := opts.SetOption(adbc.OptionKeyCurrentDbSchema, "sales"); err != nil {
			t.Fatal(err)
		}
		if got, err := opts.GetOption(adbc.OptionKeyCurrentDbSchema); err != nil || got != "sales" {
			t.Fatalf("current schema %q %v", got, err)
		}
		if got, err := opts.GetOption(adbc.OptionKeyCurrentCatalog); err != nil || got != "paimon" {
			t.Fatalf("current catalog %q %v", got, err)
		}
		if err := opts.SetOption(drv.OptionSessionOptionPrefix+"scan.snapshot-id", "3"); err != nil {
			t.Fatal(err)
		}
		if n, _ := query(t, cnxn, "SELECT * FROM events"); n != 2 {
			t.Fatalf("events in session schema: %d rows", n)
		}
		_, recs := query(t, cnxn, "SELECT * FROM session_options")
		seen := map[string]string{}
		for _, r := range recs {
			for i := 0; i < int(r.NumRows()); i++ {
				seen[r.Column(0).(*array.String).Value(i)] = r.Column(1).(*array.String).Value(i)
			}
		}
		if seen["database"] != "sales" || seen["scan.snapshot-id"] != "3" {
			t.Fatalf("engine session %v", seen)
		}
		if err := opts.SetOption(adbc.OptionKeyCurrentDbSchema, "nope"); err == nil {
			t.Fatal("unknown schema accepted")
		}
	})

	t.Run("Errors", func(t *testing.T) {
		cnxn := openADBC(t, srv, mem, nil)
		st, _ := cnxn.NewStatement()
		defer st.Close()
		st.SetSqlQuery("SELECT * FROM ordrs")
		_, _, err := st.ExecuteQuery(ctx)
		var ae adbc.Error
		if !errors.As(err, &ae) || ae.Code != adbc.StatusNotFound {
			t.Fatalf("unknown table: %v", err)
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
		if !errors.As(err, &ae) || ae.Code != adbc.StatusUnauthenticated {
			t.Fatalf("bad password: %v", err)
		}
	})
}

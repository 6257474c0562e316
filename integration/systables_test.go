package integration

import (
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"google.golang.org/grpc/codes"

	"github.com/paimon-flightsql/paimon-flightsql/planner"
)

// getTables runs GetTables and returns "db.table:TYPE" per row, plus the
// included schemas by "db.table" when asked for.
func (c *fsClient) getTables(t *testing.T, opts *flightsql.GetTablesOpts) ([]string, map[string]*arrow.Schema) {
	t.Helper()
	info, err := c.GetTables(c.ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	schemas := map[string]*arrow.Schema{}
	for _, ep := range info.Endpoint {
		rdr, err := c.DoGet(c.ctx, ep.Ticket)
		if err != nil {
			t.Fatal(err)
		}
		for rdr.Next() {
			rec := rdr.RecordBatch()
			for i := 0; i < int(rec.NumRows()); i++ {
				name := rec.Column(1).(*array.String).Value(i) + "." + rec.Column(2).(*array.String).Value(i)
				rows = append(rows, name+":"+rec.Column(3).(*array.String).Value(i))
				if opts.IncludeSchema {
					sc, err := flight.DeserializeSchema(rec.Column(4).(*array.Binary).Value(i), c.mem)
					if err != nil {
						t.Fatal(err)
					}
					schemas[name] = sc
				}
			}
		}
		if err := rdr.Err(); err != nil {
			t.Fatal(err)
		}
		rdr.Release()
	}
	return rows, schemas
}

func ptr(s string) *string { return &s }

// TestSystemTablesOverFlight (issue 7): the sys database is listed by
// GetTables with table type SYSTEM TABLE, its tables and the $ tables are
// queryable, filters apply, and their numbers agree with each other.
func TestSystemTablesOverFlight(t *testing.T) {
	srv := startDemo(t)
	c := newClient(t, srv)
	ctx := c.ctx

	t.Run("GetTables", func(t *testing.T) {
		rows, schemas := c.getTables(t, &flightsql.GetTablesOpts{DbSchemaFilterPattern: ptr("sys"), IncludeSchema: true})
		want := "sys.all_table_options:SYSTEM TABLE, sys.partitions:SYSTEM TABLE, sys.tables:SYSTEM TABLE"
		if got := join(rows); got != want {
			t.Fatalf("GetTables(sys) = %s\nwant %s", got, want)
		}
		if sc := schemas["sys.tables"]; sc == nil || sc.NumFields() != 14 || sc.Field(10).Name != "record_count" || sc.Field(10).Type.ID() != arrow.INT64 {
			t.Fatalf("sys.tables schema %v", sc)
		}
		// The table type filter separates data tables from system tables.
		rows, _ = c.getTables(t, &flightsql.GetTablesOpts{TableTypes: []string{"SYSTEM TABLE"}})
		if got := join(rows); got != "information_schema.columns:SYSTEM TABLE, information_schema.schemata:SYSTEM TABLE, information_schema.tables:SYSTEM TABLE, information_schema.views:SYSTEM TABLE, "+want {
			t.Fatalf("GetTables(type SYSTEM TABLE) = %s", got)
		}
		rows, _ = c.getTables(t, &flightsql.GetTablesOpts{TableTypes: []string{"TABLE"}})
		if got := join(rows); got != "default.lineitem:TABLE, default.nested:TABLE, default.orders:TABLE" {
			t.Fatalf("GetTables(type TABLE) = %s", got)
		}
		rows, _ = c.getTables(t, &flightsql.GetTablesOpts{TableNameFilterPattern: ptr("%partition_")})
		if got := join(rows); got != "sys.partitions:SYSTEM TABLE" {
			t.Fatalf("GetTables(%%partition_) = %s", got)
		}
		info, err := c.GetTableTypes(ctx)
		if err != nil {
			t.Fatal(err)
		}
		types, err := c.fetch(ctx, info)
		if err != nil || join(types.Rows) != "SYSTEM TABLE, TABLE" {
			t.Fatalf("GetTableTypes %v %v", types.Rows, err)
		}
	})

	// one runs sql over Flight and checks it against the in-process result.
	one := func(t *testing.T, sql string) result {
		t.Helper()
		got, _ := c.mustQuery(t, ctx, sql)
		want := inProcess(t, srv.Engine, sql, planner.Session{})
		if d := got.sorted().diff(want.sorted()); d != "" {
			t.Fatalf("%s: %s", sql, d)
		}
		return got
	}

	t.Run("QueriesAndFilters", func(t *testing.T) {
		files := one(t, "SELECT COUNT(*), SUM(record_count), SUM(file_size_in_bytes) FROM orders$files")
		tables := one(t, "SELECT file_count, record_count, file_size_in_bytes FROM sys.tables WHERE database_name = 'default' AND table_name = 'orders'")
		if len(tables.Rows) != 1 || tables.Rows[0] != files.Rows[0] {
			t.Fatalf("sys.tables row for orders %v, orders$files aggregates %v", tables.Rows, files.Rows)
		}
		part := one(t, "SELECT record_count, file_count FROM sys.partitions WHERE table_name = 'orders' AND partition_name = 'dt=2024-01-03'")
		pf := one(t, "SELECT SUM(record_count), COUNT(*) FROM orders$files WHERE partition = '{2024-01-03}'")
		if len(part.Rows) != 1 || part.Rows[0] != pf.Rows[0] {
			t.Fatalf("sys.partitions %v, orders$files %v", part.Rows, pf.Rows)
		}
		if all := one(t, "SELECT * FROM sys.partitions WHERE table_name = 'orders'"); len(all.Rows) != 14 {
			t.Fatalf("sys.partitions of orders: %d rows, want 14 dt partitions", len(all.Rows))
		}
		if opt := one(t, "SELECT * FROM sys.all_table_options WHERE \"key\" = 'bucket'"); join(opt.Rows) != "default|orders|bucket|4" {
			t.Fatalf("sys.all_table_options bucket: %v", opt.Rows)
		}
		if snaps := one(t, "SELECT snapshot_id FROM orders$snapshots WHERE commit_kind = 'COMPACT'"); join(snaps.Rows) != "2, 4, 6" {
			t.Fatalf("COMPACT snapshots %v", snaps.Rows)
		}
		if b := one(t, "SELECT branch_name FROM orders$BRANCHES ORDER BY branch_name"); join(b.Rows) != "dev, main" {
			t.Fatalf("branches %v", b.Rows)
		}
		dev := one(t, "SELECT COUNT(*) FROM orders$branch_dev$files")
		tag := one(t, "SELECT COUNT(*) FROM orders$files /*+ OPTIONS('scan.snapshot-id'='2') */")
		if dev.Rows[0] != tag.Rows[0] {
			t.Fatalf("branch dev (from tag v1 = snapshot 2) has %v files, snapshot 2 has %v", dev.Rows, tag.Rows)
		}
	})

	t.Run("PreparedWithParameter", func(t *testing.T) {
		ps, err := c.Prepare(ctx, "SELECT partition_name, record_count FROM sys.partitions WHERE record_count > ? ORDER BY partition_name")
		if err != nil {
			t.Fatal(err)
		}
		defer ps.Close(ctx)
		if ps.ParameterSchema().NumFields() != 1 {
			t.Fatalf("parameter schema %v", ps.ParameterSchema())
		}
		b := array.NewRecordBuilder(c.mem, ps.ParameterSchema())
		defer b.Release()
		b.Field(0).(*array.Int64Builder).Append(190)
		rec := b.NewRecordBatch()
		defer rec.Release()
		ps.SetParameters(rec)
		info, err := ps.Execute(ctx)
		if err != nil {
			t.Fatal(err)
		}
		got, err := c.fetch(ctx, info)
		if err != nil {
			t.Fatal(err)
		}
		want := inProcess(t, srv.Engine, "SELECT partition_name, record_count FROM sys.partitions WHERE record_count > 190 ORDER BY partition_name", planner.Session{})
		if d := got.diff(want); d != "" || len(got.Rows) == 0 || len(got.Rows) == 14 {
			t.Fatalf("bound record_count > 190: %d rows\n%s", len(got.Rows), d)
		}
	})

	t.Run("Errors", func(t *testing.T) {
		for _, e := range []struct {
			sql, msg string
			code     codes.Code
		}{
			{"SELECT * FROM orders$nope", "unsupported system table", codes.NotFound},
			{"SELECT * FROM sys.catalog_options", "catalog_options", codes.NotFound},
			{"SELECT * FROM orders$files /*+ OPTIONS('scan.snapshot-id'='42') */", "snapshot 42 does not exist", codes.NotFound},
		} {
			_, _, err := c.query(ctx, e.sql)
			wantCode(t, err, e.code, e.sql)
			if !strings.Contains(err.Error(), e.msg) {
				t.Errorf("%s: %v does not say %q", e.sql, err, e.msg)
			}
		}
	})
}

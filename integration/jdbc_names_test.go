package integration

import (
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"

	"github.com/paimon-flightsql/paimon-flightsql/planner"
)

// TestJDBCNamesFromMetadata is DBeaver's browse-then-query pattern over the
// JDBC call sequence: catalogs, schemas and tables come from
// GetCatalogs/GetDbSchemas/GetTables, names are built from them
// (catalog-qualified, quoted and not), then queried through prepared
// statements, with setLong-style BIGINT parameters.
func TestJDBCNamesFromMetadata(t *testing.T) {
	srv := startDemo(t)
	j := connectJDBC(t, srv)
	strs := func(info *flight.FlightInfo, err error, col int) []string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		_, recs := j.fetch(info)
		var out []string
		for _, r := range recs {
			a := r.Column(col).(*array.String)
			for i := 0; i < a.Len(); i++ {
				out = append(out, a.Value(i))
			}
		}
		return out
	}
	info, err := j.cl.GetCatalogs(j.ctx)
	cats := strs(info, err, 0)
	if len(cats) != 1 {
		t.Fatalf("catalogs %v", cats)
	}
	cat := cats[0]
	info, err = j.cl.GetDBSchemas(j.ctx, &flightsql.GetDBSchemasOpts{Catalog: &cat})
	dbs := strs(info, err, 1)
	if !strings.Contains(strings.Join(dbs, ","), "default") {
		t.Fatalf("schemas %v", dbs)
	}
	db := "default"
	info, err = j.cl.GetTables(j.ctx, &flightsql.GetTablesOpts{Catalog: &cat, DbSchemaFilterPattern: &db, TableTypes: []string{"TABLE"}})
	tables := strs(info, err, 2)
	if strings.Join(tables, ",") != "lineitem,nested,orders" {
		t.Fatalf("tables %v", tables)
	}
	for _, tbl := range tables {
		want := inProcessCount(t, srv.Engine, "SELECT count(*) FROM "+db+"."+tbl, planner.Session{})
		for _, name := range []string{
			`"` + cat + `"."` + db + `"."` + tbl + `"`,
			cat + "." + db + "." + tbl,
			`"` + db + `"."` + tbl + `"`,
		} {
			res := j.executeQuery("SELECT count(*) FROM "+name, nil)
			if len(res.Rows) != 1 || res.Rows[0] != strconv.FormatInt(want, 10) {
				t.Errorf("%s: %v, want %d", name, res.Rows, want)
			}
		}
	}
	// setLong on a parameter typed by context and on untyped ones.
	bindInt64 := func(vals ...int64) func(*flightsql.PreparedStatement) {
		return func(ps *flightsql.PreparedStatement) {
			fields := make([]arrow.Field, len(vals))
			for i := range vals {
				fields[i] = arrow.Field{Name: "p", Type: arrow.PrimitiveTypes.Int64, Nullable: true}
			}
			b := array.NewRecordBuilder(j.mem, arrow.NewSchema(fields, nil))
			defer b.Release()
			for i, v := range vals {
				b.Field(i).(*array.Int64Builder).Append(v)
			}
			rec := b.NewRecordBatch()
			defer rec.Release()
			ps.SetParameters(rec)
		}
	}
	key := inProcessCount(t, srv.Engine, "SELECT min(o_orderkey) FROM orders", planner.Session{})
	res := j.executeQuery(`SELECT o_orderkey FROM "`+cat+`"."default"."orders" WHERE o_orderkey = ?`, bindInt64(key))
	if len(res.Rows) != 1 || res.Rows[0] != strconv.FormatInt(key, 10) {
		t.Errorf("o_orderkey = %d: %v", key, res.Rows)
	}
	res = j.executeQuery("SELECT ?, ? + 1", bindInt64(41, 41))
	if strings.Join(res.Rows, ";") != "41|42" {
		t.Errorf("SELECT ?, ? + 1: %v", res.Rows)
	}
	res = j.executeQuery("SELECT o_orderkey FROM orders ORDER BY o_orderkey LIMIT ?", bindInt64(3))
	if len(res.Rows) != 3 {
		t.Errorf("LIMIT ?: %v", res.Rows)
	}
}

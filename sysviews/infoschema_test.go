package sysviews

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
)

// information_schema lists every database and table (data tables as BASE
// TABLE, sys and information_schema as SYSTEM VIEW) and every column with
// its SQL-standard type description.
func TestInformationSchema(t *testing.T) {
	ctx := context.Background()
	w := newWarehouse(t)
	appendTable(t, w)
	pkTable(t, w, "kv", nil, false, [][]any{{int64(1), "a", "+I"}})

	dbs, err := w.cat.ListDatabases(ctx)
	if err != nil || !slices.Equal(dbs, []string{"db", "information_schema", "sys"}) {
		t.Fatalf("databases %v %v", dbs, err)
	}
	res, _ := read(t, getTable(t, w.cat, "INFORMATION_SCHEMA", "SCHEMATA"), catalog.ScanRequest{})
	if got := fmt.Sprint(column(res, "schema_name")); got != "[db information_schema sys]" {
		t.Errorf("schemata %s", got)
	}
	res, _ = read(t, getTable(t, w.cat, "information_schema", "tables"), catalog.ScanRequest{})
	var tables []string
	for i := range res.rows {
		tables = append(tables, fmt.Sprintf("%v.%v:%v", res.get(t, i, "table_schema"), res.get(t, i, "table_name"), res.get(t, i, "table_type")))
	}
	if !slices.Contains(tables, "db.events:BASE TABLE") || !slices.Contains(tables, "db.kv:BASE TABLE") ||
		!slices.Contains(tables, "sys.tables:SYSTEM VIEW") || !slices.Contains(tables, "information_schema.columns:SYSTEM VIEW") {
		t.Errorf("tables %v", tables)
	}
	res, _ = read(t, getTable(t, w.cat, "information_schema", "columns"), catalog.ScanRequest{})
	var kv []string
	for i := range res.rows {
		if res.get(t, i, "table_name") != "kv" {
			continue
		}
		kv = append(kv, fmt.Sprintf("%v %v %v %v %v %v %v %v", res.get(t, i, "column_name"), res.get(t, i, "ordinal_position"),
			res.get(t, i, "data_type"), res.get(t, i, "is_nullable"), res.get(t, i, "character_maximum_length"),
			res.get(t, i, "numeric_precision"), res.get(t, i, "column_type"), res.get(t, i, "column_key")))
	}
	if got := fmt.Sprint(kv); got != "[k 1 BIGINT NO <nil> 64 BIGINT PRI v 2 VARCHAR YES 2147483647 <nil> STRING <nil>]" {
		t.Errorf("columns of kv: %s", got)
	}
	_, err = w.cat.GetTable(ctx, "information_schema", "tabels")
	if err == nil || !errorsIs(err, catalog.ErrNotFound) || !strings.Contains(err.Error(), `did you mean "tables"`) {
		t.Errorf("information_schema.tabels: %v", err)
	}
}

package sysviews

import (
	"context"
	"fmt"
	"testing"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
)

func TestGlobalTables(t *testing.T) {
	ctx := context.Background()
	w := newWarehouse(t)
	appendTable(t, w)
	pkTable(t, w, "mor", nil, false, [][]any{{int64(1), "a", "+I"}, {int64(2), "b", "+I"}})
	pkTable(t, w, "empty", nil, false)

	// Listing and the disabled catalog_options.
	infos, err := w.cat.ListTables(ctx, catalog.SysDatabase)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(infos) != "[{all_table_options SYSTEM TABLE} {partitions SYSTEM TABLE} {tables SYSTEM TABLE}]" {
		t.Errorf("sys tables %v", infos)
	}
	_, err = w.cat.GetTable(ctx, catalog.SysDatabase, "catalog_options")
	if err == nil || !errorsIs(err, catalog.ErrNotFound) {
		t.Fatalf("disabled catalog_options: %v", err)
	}
	_, err = w.cat.GetTable(ctx, catalog.SysDatabase, "nope")
	if err == nil || !errorsIs(err, catalog.ErrNotFound) {
		t.Fatalf("sys.nope: %v", err)
	}

	// sys.tables: record counts and file statistics per table.
	res, _ := read(t, getTable(t, w.cat, catalog.SysDatabase, "TABLES"), catalog.ScanRequest{})
	if joinStrings(res.cols) != "database_name,table_name,table_type,partitioned,primary_key,owner,created_at,created_by,updated_at,updated_by,record_count,file_size_in_bytes,file_count,last_file_creation_time" {
		t.Fatalf("columns %v", res.cols)
	}
	if len(res.rows) != 3 {
		t.Fatalf("sys.tables %v", res.rows)
	}
	for i, name := range []string{"empty", "events", "mor"} {
		if res.get(t, i, "database_name") != "db" || res.get(t, i, "table_name") != name || res.get(t, i, "table_type") != "table" {
			t.Errorf("row %v", res.rows[i])
		}
	}
	if fmt.Sprint(res.rows[0][3:]) != "[false true <nil> <nil> <nil> <nil> <nil> <nil> <nil> <nil> <nil>]" {
		t.Errorf("empty table row %v", res.rows[0])
	}
	files, _ := read(t, getTable(t, w.cat, "db", "events$files"), catalog.ScanRequest{})
	var size, maxCreated int64
	for i := range files.rows {
		size += files.get(t, i, "file_size_in_bytes").(int64)
		if c := files.get(t, i, "creation_time"); c != nil {
			ms := timeMillis(c)
			if ms > maxCreated {
				maxCreated = ms
			}
		}
	}
	want := fmt.Sprint([]any{true, false, nil, nil, nil, nil, nil, int64(3), size, int64(len(files.rows)), maxCreated})
	if got := fmt.Sprint(res.rows[1][3:]); got != want {
		t.Errorf("events row %s, want %s", got, want)
	}
	if res.get(t, 2, "record_count") != int64(2) || res.get(t, 2, "primary_key") != true {
		t.Errorf("mor row %v", res.rows[2])
	}

	// sys.partitions: one row per partition of partitioned tables.
	res, _ = read(t, getTable(t, w.cat, catalog.SysDatabase, "partitions"), catalog.ScanRequest{})
	if joinStrings(res.cols) != "database_name,table_name,partition_name,record_count,file_size_in_bytes,file_count,last_file_creation_time,done" {
		t.Fatalf("columns %v", res.cols)
	}
	if len(res.rows) != 2 || res.get(t, 0, "partition_name") != "pt=a" || res.get(t, 1, "partition_name") != "pt=b" {
		t.Fatalf("sys.partitions %v", res.rows)
	}
	if fmt.Sprint(res.rows[0][3], res.rows[0][5], res.rows[1][3], res.rows[1][5], res.rows[0][7]) != "2 2 1 1 false" {
		t.Errorf("partition stats %v", res.rows)
	}
	if res.rows[0][4].(int64)+res.rows[1][4].(int64) != size {
		t.Errorf("partition sizes %v vs %d", res.rows, size)
	}

	// sys.all_table_options.
	res, _ = read(t, getTable(t, w.cat, catalog.SysDatabase, "all_table_options"), catalog.ScanRequest{})
	found := map[string]string{}
	for _, row := range res.rows {
		found[fmt.Sprint(row[0], ".", row[1], ".", row[2])] = row[3].(string)
	}
	if found["db.events.bucket-key"] != "id" || found["db.mor.bucket"] != "1" || found["db.empty.file.format"] != "parquet" {
		t.Errorf("all_table_options %v", found)
	}

	// catalog_options enabled by the catalog option.
	w2 := newWarehouse(t, catalog.WithCatalogOptions(map[string]string{CatalogOptionsEnabled: "true", "warehouse": "/x"}))
	infos, _ = w2.cat.ListTables(ctx, catalog.SysDatabase)
	if len(infos) != 4 || infos[1].Name != "catalog_options" {
		t.Errorf("enabled sys tables %v", infos)
	}
	res, _ = read(t, getTable(t, w2.cat, catalog.SysDatabase, "catalog_options"), catalog.ScanRequest{})
	if fmt.Sprint(res.rows) != "[[catalog-options-table.enabled true] [warehouse /x]]" {
		t.Errorf("catalog_options %v", res.rows)
	}
	_, err = New().Global(ctx, nil, "tables")
	wantErr(t, err, "global system table requires catalog context: tables", nil)
}

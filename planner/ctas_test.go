package planner

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
)

// TestCreateTableAsSelect: the columns come from the query (nullable,
// keys NOT NULL), the rows land in one snapshot, IF NOT EXISTS leaves an
// existing table alone, and a failed insert leaves no table.
func TestCreateTableAsSelect(t *testing.T) {
	testutil.CheckedAllocator(t)
	e, dir := emptyWarehouse(t)
	mustUpdate(t, e, "CREATE DATABASE s")
	mustUpdate(t, e, "CREATE TABLE s.src (id INT NOT NULL, name STRING, amount DECIMAL(10, 2), dt STRING)")
	mustUpdate(t, e, "INSERT INTO s.src VALUES (1, 'a', 1.5, 'x'), (2, 'b', 2.25, 'y'), (3, NULL, NULL, 'x')")

	if n := mustUpdate(t, e, "CREATE TABLE s.c AS SELECT id, name, amount * 2 AS twice, dt FROM s.src WHERE id < 3"); n != 2 {
		t.Fatalf("CTAS affected %d rows", n)
	}
	if got := sortedQuery(t, e, "SELECT * FROM s.c"); got != "1|a|3.00|x,2|b|4.50|y" {
		t.Fatalf("s.c: %s", got)
	}
	sc := schemaFile(t, dir, "c", "0")
	if got := fieldsOf(sc); got != "id:INT#0,name:STRING#1,twice:DECIMAL(11, 2)#2,dt:STRING#3" {
		t.Fatalf("CTAS schema fields: %s", got)
	}
	if id, kind := latestSnapshot(t, dir, "c"); id != 1 || kind != "APPEND" {
		t.Fatalf("CTAS snapshots: latest %d %s, want one APPEND", id, kind)
	}

	// Keys and partitions from WITH / PARTITIONED BY.
	if n := mustUpdate(t, e, "CREATE TABLE s.k PARTITIONED BY (dt) WITH ('primary-key' = 'id,dt', 'bucket' = '2') AS SELECT id, name, dt FROM s.src"); n != 3 {
		t.Fatalf("CTAS with keys affected %d rows", n)
	}
	k := schemaFile(t, dir, "k", "0")
	if got := fieldsOf(k); got != "id:INT NOT NULL#0,name:STRING#1,dt:STRING NOT NULL#2" {
		t.Fatalf("CTAS pk schema: %s", got)
	}
	if got := jsonNum(k["primaryKeys"]) + jsonNum(k["partitionKeys"]) + jsonNum(k["options"]); got != `["id","dt"]["dt"]{"bucket":"2"}` {
		t.Fatalf("CTAS keys/options: %s", got)
	}
	if got := sortedQuery(t, e, "SELECT id, name, dt FROM s.k"); got != "1|a|x,2|b|y,3|NULL|x" {
		t.Fatalf("s.k: %s", got)
	}

	// IF NOT EXISTS on an existing table: nothing happens.
	if n := mustUpdate(t, e, "CREATE TABLE IF NOT EXISTS s.c AS SELECT 1 AS z"); n != 0 {
		t.Fatalf("CTAS IF NOT EXISTS affected %d", n)
	}
	if got := sortedQuery(t, e, "SELECT count(*) FROM s.c"); got != "2" {
		t.Fatalf("s.c changed: %s", got)
	}
	if _, err := execUpdate(t, e, "CREATE TABLE s.c AS SELECT 1 AS z"); !errors.Is(err, catalog.ErrExists) {
		t.Fatalf("CTAS on an existing table: %v", err)
	}

	// A failing insert (NULL into a key column) leaves no table behind.
	if _, err := execUpdate(t, e, "CREATE TABLE s.bad WITH ('primary-key' = 'name') AS SELECT id, name FROM s.src"); err == nil {
		t.Fatal("CTAS with NULL keys succeeded")
	}
	if _, err := os.Stat(filepath.Join(dir, "s.db", "bad")); !os.IsNotExist(err) {
		t.Fatalf("failed CTAS left its table: %v", err)
	}

	for sql, want := range map[string]error{
		"CREATE TABLE s.d AS SELECT 1, 1":                      catalog.ErrInvalid,
		"CREATE TABLE s.d (id INT) AS SELECT 1 AS id":          catalog.ErrUnsupported,
		"CREATE TABLE s.d AS SELECT * FROM s.nope":             catalog.ErrNotFound,
		"CREATE TABLE s.d AS VALUES (1)":                       catalog.ErrUnsupported,
		"CREATE TABLE s.d PARTITIONED BY (q) AS SELECT 1 AS z": catalog.ErrInvalid,
	} {
		if _, err := execUpdate(t, e, sql); !errors.Is(err, want) {
			t.Errorf("%s: %v, want %v", sql, err, want)
		}
	}
}

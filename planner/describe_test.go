package planner

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
)

// DESCRIBE and its spellings list the columns (DuckDB's layout); SHOW
// CREATE TABLE renders DDL; SHOW SCHEMAS lists databases.
func TestDescribeStatements(t *testing.T) {
	e, _ := newTestEngine(t, testutil.CheckedAllocator(t))
	want := runQuery(t, e, "DESCRIBE orders")
	if len(want) != 7 || want[0] != "id|BIGINT|NO|PRI|NULL|NULL" || want[1] != "name|VARCHAR|YES|NULL|NULL|NULL" {
		t.Fatalf("DESCRIBE orders: %v", want)
	}
	for _, sql := range []string{"DESC orders", "describe table default.orders", `DESCRIBE "default"."orders";`,
		"SHOW COLUMNS FROM orders", "show full columns in orders"} {
		if got := runQuery(t, e, sql); !slices.Equal(got, want) {
			t.Errorf("%s: %v", sql, got)
		}
	}
	got := runQuery(t, e, "SHOW CREATE TABLE orders")
	if len(got) != 1 || !strings.HasPrefix(got[0], "default.orders|CREATE TABLE default.orders (\n  `id` BIGINT NOT NULL,") ||
		!strings.Contains(got[0], "PRIMARY KEY (`id`) NOT ENFORCED") {
		t.Fatalf("SHOW CREATE TABLE: %q", got)
	}
	if got := runQuery(t, e, "SHOW TABLES LIKE 'ord%'"); !slices.Equal(got, []string{"orders|TABLE"}) {
		t.Fatalf("SHOW TABLES LIKE: %v", got)
	}
	if got := runQuery(t, e, `SHOW TABLES FROM sales LIKE '_tem\_'`); len(got) != 0 {
		t.Fatalf("SHOW TABLES LIKE with an escaped _: %v", got)
	}
	if got := runQuery(t, e, "SHOW SCHEMAS"); !slices.Equal(got, []string{"default", "sales"}) {
		t.Fatalf("SHOW SCHEMAS: %v", got)
	}
	for sql, msg := range map[string]string{
		"DESCRIBE nope":                `table "nope" does not exist`,
		"DESCRIBE SELECT 1":            "DESCRIBE of a query",
		"SHOW CREATE TABLE other.db.t": `database "db" does not exist`,
	} {
		if _, err := tryQuery(t, e, sql); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%s: %v, want %q", sql, err, msg)
		}
	}
}

// The connection functions BI tools call.
func TestSessionFunctions(t *testing.T) {
	cat := newTestEngineCatalog(t)
	e := New(cat, Options{CatalogName: "paimon", Version: "1.2.3"})
	st, err := e.Prepare(context.Background(), "SELECT version(), database(), schema(), current_schema, current_schema(), current_catalog, current_user, user(), session_user, current_database()", Session{Database: "sales", User: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	mem := testutil.CheckedAllocator(t)
	rdr, err := st.Execute(context.Background(), mem, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer rdr.Release()
	var rows []string
	for rdr.Next() {
		rows = append(rows, renderRows(rdr.RecordBatch())...)
	}
	if !slices.Equal(rows, []string{"paimon-flightsql 1.2.3|sales|sales|sales|sales|paimon|alice|alice|alice|sales"}) {
		t.Fatalf("rows %v", rows)
	}
	// A column of that name wins.
	e2, _ := newTestEngine(t, testutil.CheckedAllocator(t))
	if _, err := tryQuery(t, e2, "SELECT current_user FROM orders"); err != nil {
		t.Fatal(err)
	}
}

func newTestEngineCatalog(t *testing.T) *catalog.MemCatalog {
	_, cat := newTestEngine(t, testutil.CheckedAllocator(t))
	return cat
}

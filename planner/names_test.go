package planner

import (
	"context"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
)

func TestSystemTableNames(t *testing.T) {
	mem := testutil.CheckedAllocator(t)
	e, cat := newTestEngine(t, mem)
	schema := arrow.NewSchema([]arrow.Field{{Name: "file_path", Type: arrow.BinaryTypes.String}}, nil)
	lazy := func(name string) catalog.RecordsFunc {
		return func(ctx context.Context, m memory.Allocator) ([]arrow.RecordBatch, error) {
			return []arrow.RecordBatch{buildRecord(t, m, schema, [][]any{{name}})}, nil
		}
	}
	for _, id := range []catalog.Identifier{
		{Database: "default", Table: "orders", SystemTable: "files"},
		{Database: "default", Table: "orders", Branch: "b", SystemTable: "files"},
		{Database: "sys", Table: "tables"},
	} {
		tab, err := catalog.NewLazyMemTable(id, catalog.KindSystemTable, schema, nil, lazy(catalog.SQLName(id)))
		if err != nil {
			t.Fatal(err)
		}
		cat.AddTable(id.Database, tab)
	}
	for sql, want := range map[string]string{
		"SELECT * FROM orders$files":                                  "orders$files",
		`SELECT file_path FROM "orders$files"`:                        "orders$files",
		"SELECT * FROM default.orders$branch_b$files":                 "orders$branch_b$files",
		"SELECT file_path FROM sys.tables WHERE file_path = 'tables'": "tables",
		"SELECT COUNT(*) FROM sys.tables":                             "1",
	} {
		rows, err := tryQuery(t, e, sql)
		if err != nil {
			t.Errorf("%s: %v", sql, err)
			continue
		}
		if got := strings.Join(rows, ";"); got != want {
			t.Errorf("%s: got %q want %q", sql, got, want)
		}
	}
	_, err := e.Prepare(context.Background(), "SELECT * FROM orders$fils", Session{})
	if err == nil || !strings.Contains(err.Error(), "orders$fils") {
		t.Fatalf("err = %v", err)
	}
	// session database
	st, err := e.Prepare(context.Background(), "SELECT COUNT(*) FROM items", Session{Database: "sales"})
	if err != nil {
		t.Fatal(err)
	}
	if n, ok := st.RowCount(); !ok || n != 1 {
		t.Fatal("RowCount")
	}
}

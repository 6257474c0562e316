package catalog

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
)

var memSchema = arrow.NewSchema([]arrow.Field{
	{Name: "id", Type: arrow.PrimitiveTypes.Int64},
	{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
}, nil)

func memRecord(mem memory.Allocator, ids []int64, names []string) arrow.RecordBatch {
	b := array.NewRecordBuilder(mem, memSchema)
	defer b.Release()
	b.Field(0).(*array.Int64Builder).AppendValues(ids, nil)
	b.Field(1).(*array.StringBuilder).AppendValues(names, nil)
	return b.NewRecordBatch()
}

// pick selects splits of s by index (nil = all).
func pick(s Scan, idx []int) []Split {
	all := s.Splits()
	if idx == nil {
		return all
	}
	out := make([]Split, len(idx))
	for i, x := range idx {
		if x >= 0 && x < len(all) {
			out[i] = all[x]
		} else {
			out[i] = Split{Index: x}
		}
	}
	return out
}

func readAll(t *testing.T, s Scan, mem memory.Allocator, splits []int) (rows int64, cols []string) {
	t.Helper()
	rdr, err := s.Read(context.Background(), pick(s, splits), ReadOptions{Mem: mem})
	if err != nil {
		t.Fatal(err)
	}
	defer rdr.Release()
	for rdr.Next() {
		rec := rdr.RecordBatch()
		rows += rec.NumRows()
		cols = nil
		for _, f := range rec.Schema().Fields() {
			cols = append(cols, f.Name)
		}
	}
	if rdr.Err() != nil {
		t.Fatal(rdr.Err())
	}
	return rows, cols
}

func newMem(t *testing.T, mem memory.Allocator) *MemTable {
	t.Helper()
	r1 := memRecord(mem, []int64{1, 2, 3}, []string{"a", "b", "c"})
	r2 := memRecord(mem, []int64{4, 5}, []string{"d", "e"})
	defer r1.Release()
	defer r2.Release()
	tab, err := NewMemTable(Identifier{Database: "db", Table: "t"}, "", memSchema, []string{"id"}, []arrow.RecordBatch{r1, r2})
	if err != nil {
		t.Fatal(err)
	}
	return tab
}

func TestMemTableScan(t *testing.T) {
	mem := testutil.CheckedAllocator(t)
	tab := newMem(t, mem)
	defer tab.Release()
	if tab.Kind() != KindTable || tab.PrimaryKeys()[0] != "id" || tab.Identifier().Table != "t" {
		t.Fatal("metadata")
	}
	ctx := context.Background()
	s, err := tab.NewScan(ctx, ScanRequest{Columns: []string{"name"}, Limit: -1})
	if err != nil {
		t.Fatal(err)
	}
	if n, exact := s.RowCount(); n != 5 || !exact || len(s.Splits()) != 2 || len(s.Pushdown()) != 0 {
		t.Fatalf("RowCount=%d,%v splits=%d", n, exact, len(s.Splits()))
	}
	if rows, cols := readAll(t, s, mem, nil); rows != 5 || strings.Join(cols, ",") != "name" {
		t.Fatalf("rows=%d cols=%v", rows, cols)
	}
	if rows, _ := readAll(t, s, mem, []int{1}); rows != 2 {
		t.Fatalf("split 1 rows=%d", rows)
	}
	// zero columns (COUNT(*))
	s0, err := tab.NewScan(ctx, ScanRequest{Columns: []string{}, Limit: -1})
	if err != nil {
		t.Fatal(err)
	}
	if rows, cols := readAll(t, s0, mem, nil); rows != 5 || len(cols) != 0 {
		t.Fatalf("zero-column scan rows=%d cols=%v", rows, cols)
	}
	// limit hint without filter stops early
	sl, _ := tab.NewScan(ctx, ScanRequest{Limit: 4})
	if rows, _ := readAll(t, sl, mem, nil); rows != 4 {
		t.Fatalf("limit rows=%d", rows)
	}
	// with a filter: not exact, limit ignored (rows are unfiltered)
	sf, _ := tab.NewScan(ctx, ScanRequest{Limit: 1, Filters: []predicate.Predicate{predicate.AlwaysFalse}})
	if got := sf.Pushdown(); len(got) != 1 || got[0] != PushdownUnsupported {
		t.Fatalf("pushdown %v", got)
	}
	if _, exact := sf.RowCount(); exact {
		t.Fatal("filtered RowCount exact")
	}
	if rows, _ := readAll(t, sf, mem, nil); rows != 5 {
		t.Fatalf("filtered rows=%d", rows)
	}
	if _, err := tab.NewScan(ctx, ScanRequest{Columns: []string{"nope"}}); !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), `"nope"`) {
		t.Fatalf("err=%v", err)
	}
	if _, err := s.Read(ctx, []Split{{Index: 7}}, ReadOptions{Mem: mem}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("err=%v", err)
	}
}

func TestMemTableLifetime(t *testing.T) {
	mem := testutil.CheckedAllocator(t)
	tab := newMem(t, mem)
	s, _ := tab.NewScan(context.Background(), ScanRequest{Limit: -1})
	rdr, err := s.Read(context.Background(), s.Splits(), ReadOptions{Mem: mem})
	if err != nil {
		t.Fatal(err)
	}
	tab.Release() // the reader keeps its batches alive
	tab.Release() // idempotent
	n := 0
	for rdr.Next() {
		n += int(rdr.RecordBatch().NumRows())
	}
	rdr.Release()
	if n != 5 {
		t.Fatalf("rows=%d", n)
	}
	if _, err := tab.NewScan(context.Background(), ScanRequest{}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("scan after release: %v", err)
	}
	// abandoned and cancelled readers
	tab = newMem(t, mem)
	defer tab.Release()
	s, _ = tab.NewScan(context.Background(), ScanRequest{Limit: -1})
	rdr, _ = s.Read(context.Background(), s.Splits(), ReadOptions{Mem: mem})
	rdr.Next()
	rdr.Release()
	ctx, cancel := context.WithCancel(context.Background())
	rdr, _ = s.Read(ctx, s.Splits(), ReadOptions{Mem: mem})
	cancel()
	if rdr.Next() || !errors.Is(rdr.Err(), context.Canceled) {
		t.Fatalf("cancelled reader: %v", rdr.Err())
	}
	rdr.Release()
}

func TestMemTableLazyAndErrors(t *testing.T) {
	mem := testutil.CheckedAllocator(t)
	calls := 0
	tab, err := NewLazyMemTable(Identifier{Database: "sys", Table: "tables"}, KindSystemTable, memSchema, nil,
		func(ctx context.Context, m memory.Allocator) ([]arrow.RecordBatch, error) {
			calls++
			return []arrow.RecordBatch{memRecord(m, []int64{1}, []string{"x"}), memRecord(m, []int64{2, 3}, []string{"y", "z"})}, nil
		})
	if err != nil {
		t.Fatal(err)
	}
	s, _ := tab.NewScan(context.Background(), ScanRequest{Columns: []string{"id"}, Limit: -1})
	if _, exact := s.RowCount(); exact || len(s.Splits()) != 1 {
		t.Fatal("lazy RowCount/Splits")
	}
	if rows, _ := readAll(t, s, mem, nil); rows != 3 || calls != 1 {
		t.Fatalf("rows=%d calls=%d", rows, calls)
	}
	rdr, _ := s.Read(context.Background(), s.Splits(), ReadOptions{Mem: mem}) // abandoned unread
	rdr.Release()

	bad := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int32}}, nil)
	r := memRecord(mem, []int64{1}, []string{"a"})
	defer r.Release()
	if _, err := NewMemTable(Identifier{Table: "t"}, "", bad, nil, []arrow.RecordBatch{r}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("schema mismatch: %v", err)
	}
	if _, err := NewMemTable(Identifier{Table: "t"}, "", memSchema, []string{"nope"}, nil); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), `"nope"`) {
		t.Fatalf("bad pk: %v", err)
	}
}

func TestMemCatalog(t *testing.T) {
	mem := testutil.CheckedAllocator(t)
	tab := newMem(t, mem)
	defer tab.Release()
	c := NewMemCatalog("")
	c.AddTable("db", tab)
	ctx := context.Background()
	dbs, _ := c.ListDatabases(ctx)
	if strings.Join(dbs, ",") != "db,default" || c.DefaultDatabase() != "default" {
		t.Fatalf("dbs=%v", dbs)
	}
	if got, err := c.GetTable(ctx, "db", "t"); err != nil || got != Table(tab) {
		t.Fatal(err)
	}
	if _, err := c.GetTable(ctx, "bd", "t"); !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), `database bd does not exist (did you mean "db"?)`) {
		t.Fatalf("err=%v", err)
	}
	if _, err := c.GetTable(ctx, "db", "tt"); !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), `table db.tt does not exist (did you mean "t"?)`) {
		t.Fatalf("err=%v", err)
	}
	if ts, _ := c.ListTables(ctx, "db"); len(ts) != 1 || ts[0].Name != "t" || ts[0].Kind != KindTable {
		t.Fatalf("tables=%v", ts)
	}
	if SQLName(Identifier{Table: "o", Branch: "b", SystemTable: "files"}) != "o$branch_b$files" {
		t.Fatal("SQLName")
	}
	if DidYouMean("ordres", []string{"orders", "customers", "order_items"}) != ` (did you mean "orders"?)` {
		t.Fatal(DidYouMean("ordres", []string{"orders", "customers"}))
	}
}

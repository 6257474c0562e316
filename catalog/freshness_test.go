package catalog

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/fileio"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/write"
)

// appendRow commits one row (day 1) to default.t through fio.
func appendRow(t *testing.T, mem memory.Allocator, fio fileio.FileIO, v int64) {
	t.Helper()
	ctx := context.Background()
	wt, err := write.OpenTable(ctx, fio, "default", "t", "")
	if err != nil {
		t.Fatal(err)
	}
	b := array.NewRecordBuilder(mem, arrow.NewSchema([]arrow.Field{{Name: "day", Type: arrow.PrimitiveTypes.Int32}, {Name: "v", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil))
	b.Field(0).(*array.Int32Builder).Append(1)
	b.Field(1).(*array.Int64Builder).Append(v)
	rec := b.NewRecordBatch()
	b.Release()
	w := wt.NewWriter(mem)
	if err := w.Write(ctx, rec); err != nil {
		t.Fatal(err)
	}
	rec.Release()
	if _, err := w.Commit(ctx); err != nil {
		t.Fatal(err)
	}
}

// With the freshness window (cache.expiration-interval) a warm plan sends
// no request at all; this process's own commits and ALTERs are seen by the
// next plan; another writer's commit is seen once the window has passed
// (and at once with the window at 0), never later.
func TestWarmPlanFreshnessWindow(t *testing.T) {
	mem := testutil.CheckedAllocator(t)
	ctx := context.Background()
	dir := t.TempDir()
	l, err := fileio.NewLocal(dir)
	if err != nil {
		t.Fatal(err)
	}
	rio := &requestIO{FileIO: l, id: "freshness|" + dir}
	writeDayTable(t, mem, rio)
	catOn := func(w string) *FS {
		return NewFS(rio, ".", WithCatalogOptions(map[string]string{CacheExpirationOption: w}))
	}
	long, off := catOn("1 min"), catOn("0")
	if long.Freshness() != time.Minute || off.Freshness() != 0 || NewFS(rio, ".").Freshness() != DefaultCacheExpiration {
		t.Fatalf("windows: %v %v default %v", long.Freshness(), off.Freshness(), NewFS(rio, ".").Freshness())
	}
	// rows plans day = 1 on cat and counts the rows read.
	rows := func(cat *FS) int {
		t.Helper()
		tab, err := cat.GetTable(ctx, "default", "t")
		if err != nil {
			t.Fatal(err)
		}
		dt := tab.(*DataTable)
		f := dt.TableSchema().Fields
		day := &predicate.Leaf{Column: "day", FieldID: f[0].ID, Type: f[0].Type, Op: predicate.Eq, Literals: []predicate.Literal{int64(1)}}
		sc, err := dt.NewScan(ctx, ScanRequest{Columns: []string{"v"}, Filters: []predicate.Predicate{day}, Limit: -1})
		if err != nil {
			t.Fatal(err)
		}
		v, _ := readValues(t, sc, sc.Splits(), ReadOptions{Mem: mem})
		return len(v)
	}
	// planRequests plans on cat and returns the metadata requests sent.
	planRequests := func(cat *FS) []string {
		t.Helper()
		rio.take()
		tab, err := cat.GetTable(ctx, "default", "t")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tab.(*DataTable).NewScan(ctx, ScanRequest{Limit: -1}); err != nil {
			t.Fatal(err)
		}
		return rio.take()
	}
	if n := rows(long); n != 5000 {
		t.Fatalf("cold: %d rows", n)
	}
	planRequests(long) // reads the manifests the filtered plan pruned
	if got := planRequests(long); len(got) != 0 {
		t.Fatalf("warm plan within the window: %d requests, want 0:\n%s", len(got), strings.Join(got, "\n"))
	}
	if got := planRequests(off); len(got) != 4 {
		t.Fatalf("warm plan with the window off: %d requests, want 4:\n%s", len(got), strings.Join(got, "\n"))
	}

	// This process's commit (through any FileIO of the store) and ALTER
	// are seen by the next plan, window or not.
	appendRow(t, mem, rio, -1)
	if n := rows(long); n != 5001 {
		t.Fatalf("after an own commit: %d rows, want 5001", n)
	}
	if got := planRequests(long); len(got) != 0 {
		t.Fatalf("warm plan after an own commit: %d requests, want 0:\n%s", len(got), strings.Join(got, "\n"))
	}
	if err := long.AlterColumns(ctx, "default", "t", []write.ColumnChange{{Kind: write.AddColumn, Column: "w", Type: types.NewBigInt()}}); err != nil {
		t.Fatal(err)
	}
	tab, err := long.GetTable(ctx, "default", "t")
	if err != nil {
		t.Fatal(err)
	}
	if f := tab.(*DataTable).TableSchema().Fields; len(f) != 3 {
		t.Fatalf("after an own ALTER: %d columns, want 3", len(f))
	}
	if n := rows(long); n != 5001 {
		t.Fatalf("after an own ALTER: %d rows, want 5001", n)
	}

	// Another writer (here: a FileIO of the same files that this process's
	// S3 FileIOs do not see writing) is not seen within the window...
	appendRow(t, mem, l, -2)
	if n := rows(long); n != 5001 {
		t.Fatalf("another writer's commit within a 1 min window: %d rows; the window should have served 5001", n)
	}
	// ... at once with the window off ...
	if n := rows(off); n != 5002 {
		t.Fatalf("window off: %d rows, want 5002", n)
	}
	// ... and as soon as the window has passed (the check recorded above
	// is older than 30 ms): that check is then reused by longer windows.
	time.Sleep(40 * time.Millisecond)
	if n := rows(catOn("30 ms")); n != 5002 {
		t.Fatalf("after the window: %d rows, want 5002", n)
	}
	if n := rows(long); n != 5002 {
		t.Fatalf("1 min window after a newer check: %d rows, want 5002", n)
	}

	// A table this process drops is gone for the next lookup.
	for _, p := range []string{"default.db/t/schema/schema-0", "default.db/t/schema/schema-1"} {
		if err := rio.Delete(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := long.GetTable(ctx, "default", "t"); !strings.Contains(fmt.Sprint(err), "table default.t does not exist") {
		t.Fatalf("dropped table within the window: %v", err)
	}

	// Bad values are errors naming the option.
	for opt, v := range map[string]string{CacheExpirationOption: "-1 s", CacheEnabledOption: "maybe"} {
		_, err := NewFS(rio, ".", WithCatalogOptions(map[string]string{opt: v})).GetTable(ctx, "default", "t")
		if err == nil || !strings.Contains(err.Error(), opt) {
			t.Fatalf("%s=%s: %v", opt, v, err)
		}
	}
	if f := NewFS(rio, ".", WithCatalogOptions(map[string]string{CacheEnabledOption: "false"})).Freshness(); f != 0 {
		t.Fatalf("cache-enabled=false: window %v", f)
	}
}

package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/fileio"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/write"
)

// TestQueryRunsHousekeepingProcedures: the CALL procedures work through
// `query` on a warehouse our writer built (no server needed).
func TestQueryRunsHousekeepingProcedures(t *testing.T) {
	ctx := context.Background()
	mem := testutil.CheckedAllocator(t)
	dir := t.TempDir()
	io, err := fileio.NewLocal(dir)
	if err != nil {
		t.Fatal(err)
	}
	wt, err := write.CreateTable(ctx, io, "default", "t", write.TableSpec{Fields: []types.DataField{{Name: "k", Type: types.NewBigInt()}}})
	if err != nil {
		t.Fatal(err)
	}
	sc := arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil)
	for i := int64(0); i < 4; i++ {
		b := array.NewRecordBuilder(mem, sc)
		b.Field(0).(*array.Int64Builder).Append(i)
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
	code, out, errs := runCmd(t, "query", "--warehouse", dir, "CALL sys.expire_snapshots(table => 'default.t', retain_max => 1)")
	if code != 0 || strings.TrimSpace(out) != "3 row(s) affected" {
		t.Fatalf("expire: exit %d, %q %q", code, out, errs)
	}
	orphan := filepath.Join(dir, "default.db", "t", "bucket-0", ".data-killed.parquet.1.tmp")
	if err := os.WriteFile(orphan, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-25 * time.Hour)
	os.Chtimes(orphan, old, old)
	code, out, errs = runCmd(t, "query", "--warehouse", dir, "CALL sys.remove_orphan_files(table => 'default.t')")
	if code != 0 || strings.TrimSpace(out) != "1 row(s) affected" {
		t.Fatalf("remove_orphan_files: exit %d, %q %q", code, out, errs)
	}
	code, out, _ = runCmd(t, "query", "--warehouse", dir, "--format", "csv", "SELECT count(*) FROM default.t")
	if code != 0 || !strings.Contains(out, "4") {
		t.Fatalf("count after housekeeping: %d %q", code, out)
	}
}

// An empty result still names its columns (no batch reached the writer).
func TestQueryEmptyResultHasColumnNames(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ format, sql, want string }{
		{"table", "SELECT * FROM range(3) AS t(n) WHERE n > 5", "n\n-\n(0 rows)"},
		{"csv", "SELECT 1 AS a, 'x' AS b WHERE FALSE", "a,b"},
	} {
		code, out, errs := runCmd(t, "query", "--warehouse", dir, "--format", c.format, c.sql)
		if code != 0 || strings.TrimSpace(out) != c.want {
			t.Errorf("%s: exit %d, %q (stderr %q), want %q", c.sql, code, out, errs, c.want)
		}
	}
}

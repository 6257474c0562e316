package planner

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
)

func execUpdate(t *testing.T, e *Engine, sql string) (int64, error) {
	t.Helper()
	st, err := e.Prepare(context.Background(), sql, Session{})
	if err != nil {
		return 0, err
	}
	if !st.IsUpdate() {
		t.Fatalf("%s is not an update", sql)
	}
	return st.ExecuteUpdate(context.Background(), nil)
}

// TestHousekeepingProcedures runs CALL sys.expire_snapshots and
// sys.remove_orphan_files on a table our writer built (8 snapshots).
func TestHousekeepingProcedures(t *testing.T) {
	mem := testutil.CheckedAllocator(t)
	dir := t.TempDir()
	e := New(goldenWarehouseAt(t, mem, dir), Options{})
	count := func() string {
		t.Helper()
		return strings.Join(runQuery(t, e, "SELECT count(*), sum(v) FROM clicks"), ";")
	}
	want := count()

	n, err := execUpdate(t, e, "CALL sys.expire_snapshots(table => 'default.clicks', retain_max => 3)")
	if err != nil || n != 5 {
		t.Fatalf("expire retain_max 3: %d %v", n, err)
	}
	if got := count(); got != want {
		t.Fatalf("after expiry %s, before %s", got, want)
	}
	if _, err := tryQuery(t, e, "SELECT count(*) FROM clicks /*+ OPTIONS('scan.snapshot-id'='2') */"); err == nil {
		t.Fatal("expired snapshot 2 still readable")
	}
	// Positional arguments follow Paimon's order (table, retain_max, ...).
	if n, err := execUpdate(t, e, "CALL sys.expire_snapshots('default.clicks', 2)"); err != nil || n != 1 {
		t.Fatalf("positional: %d %v", n, err)
	}
	// older_than alone with an old timestamp expires nothing.
	if n, err := execUpdate(t, e, "CALL sys.expire_snapshots(`table` => 'default.clicks', older_than => '2001-01-01 00:00:00')"); err != nil || n != 0 {
		t.Fatalf("older_than 2001: %d %v", n, err)
	}

	// An orphan older than the margin goes, a recent one stays.
	tableDir := filepath.Join(dir, "default.db", "clicks")
	oldOrphan := filepath.Join(tableDir, "day=0", "bucket-0", "data-orphan.parquet")
	newOrphan := filepath.Join(tableDir, "day=0", "bucket-0", "data-new.parquet")
	tmp := filepath.Join(tableDir, "manifest", ".manifest-x.123.tmp")
	for _, f := range []string{oldOrphan, newOrphan, tmp} {
		if err := os.WriteFile(f, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Now().Add(-49 * time.Hour)
	os.Chtimes(oldOrphan, old, old)
	os.Chtimes(tmp, old, old)
	if n, err := execUpdate(t, e, "CALL sys.remove_orphan_files(`table` => 'default.clicks', dry_run => true)"); err != nil || n != 2 {
		t.Fatalf("dry run: %d %v", n, err)
	}
	if _, err := os.Stat(oldOrphan); err != nil {
		t.Fatal("dry run deleted a file")
	}
	// The table's own files are older than the margin given here: they stay.
	if n, err := execUpdate(t, e, "CALL sys.remove_orphan_files(`table` => 'default.clicks', older_than => '"+time.Now().Add(-time.Hour).Format("2006-01-02 15:04:05")+"')"); err != nil || n != 2 {
		t.Fatalf("remove: %d %v", n, err)
	}
	if _, err := os.Stat(oldOrphan); !os.IsNotExist(err) {
		t.Fatal("old orphan kept")
	}
	if _, err := os.Stat(newOrphan); err != nil {
		t.Fatal("recent orphan removed")
	}
	if got := count(); got != want {
		t.Fatalf("after orphan removal %s, before %s", got, want)
	}

	for _, c := range []struct {
		sql  string
		kind error
		want string
	}{
		{"CALL sys.expire_snapshots(retain_max => 3)", catalog.ErrInvalid, "table"},
		{"CALL sys.expire_snapshots(`table` => 'default.clicks', retain_max => 'x')", catalog.ErrInvalid, "retain_max must be a positive integer"},
		{"CALL sys.expire_snapshots(`table` => 'default.clicks', retain_min => 5, retain_max => 2)", catalog.ErrInvalid, "greater than retain_max"},
		{"CALL sys.expire_snapshots(`table` => 'default.clicks', keep => 2)", catalog.ErrInvalid, "no argument keep"},
		{"CALL sys.expire_snapshots(`table` => 'default.clicks', older_than => 'yesterday')", catalog.ErrInvalid, "timestamp"},
		{"CALL sys.expire_snapshots(`table` => 'default.nope')", catalog.ErrNotFound, "nope"},
		{"CALL sys.remove_orphan_files(`table` => 'default.clicks', older_than => '2999-01-01 00:00:00')", catalog.ErrInvalid, "must be in the past"},
		{"CALL sys.remove_orphan_files(`table` => 'default.clicks', dry_run => 'maybe')", catalog.ErrInvalid, "dry_run"},
		{"CALL sys.remove_orphan_files(`table` => 'default.*')", catalog.ErrUnsupported, "name one table"},
		{"CALL sys.rollback_to_timestamp(`table` => 'default.clicks', timestamp => 1)", catalog.ErrUnsupported, "sys.expire_snapshots"},
	} {
		_, err := execUpdate(t, e, c.sql)
		if err == nil || !errors.Is(err, c.kind) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %v mentioning %q", c.sql, err, c.kind, c.want)
		}
	}
}

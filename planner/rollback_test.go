package planner

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
)

// TestRollbackTo: CALL sys.rollback_to with snapshot_id and tag, Paimon's
// argument names; later snapshots and tags go, the LATEST hint moves, a tag
// whose snapshot expired is written back as a snapshot.
func TestRollbackTo(t *testing.T) {
	testutil.CheckedAllocator(t)
	e, dir := emptyWarehouse(t)
	mustUpdate(t, e, "CREATE DATABASE s")
	mustUpdate(t, e, "CREATE TABLE s.rb (id INT, v STRING)")
	for _, v := range []string{"(1, 'a')", "(2, 'b')", "(3, 'c')", "(4, 'd')", "(5, 'e')"} {
		mustUpdate(t, e, "INSERT INTO s.rb VALUES "+v)
	}
	mustUpdate(t, e, "CALL sys.create_tag(`table` => 's.rb', tag => 't2', snapshot_id => 2)")
	mustUpdate(t, e, "CALL sys.create_tag(`table` => 's.rb', tag => 't4', snapshot_id => 4)")
	snapDir := filepath.Join(dir, "s.db", "rb", "snapshot")
	exists := func(p string) bool { _, err := os.Stat(p); return err == nil }

	if n := mustUpdate(t, e, "CALL sys.rollback_to(`table` => 's.rb', snapshot_id => 3)"); n != 2 {
		t.Fatalf("rollback to 3 removed %d snapshots, want 2", n)
	}
	if got := sortedQuery(t, e, "SELECT * FROM s.rb"); got != "1|a,2|b,3|c" {
		t.Fatalf("after rollback to 3: %s", got)
	}
	if exists(filepath.Join(snapDir, "snapshot-4")) || exists(filepath.Join(snapDir, "snapshot-5")) {
		t.Fatal("snapshots after 3 still present")
	}
	if hint, _ := os.ReadFile(filepath.Join(snapDir, "LATEST")); string(hint) != "3" {
		t.Fatalf("LATEST hint %q", hint)
	}
	tagDir := filepath.Join(dir, "s.db", "rb", "tag")
	if exists(filepath.Join(tagDir, "tag-t4")) || !exists(filepath.Join(tagDir, "tag-t2")) {
		t.Fatal("tag of a later snapshot kept, or an earlier one removed")
	}
	// Writes continue from the rolled-back state.
	mustUpdate(t, e, "INSERT INTO s.rb VALUES (6, 'f')")
	if id, kind := latestSnapshot(t, dir, "rb"); id != 4 || kind != "APPEND" {
		t.Fatalf("next commit is snapshot %d %s, want 4", id, kind)
	}

	// A tag whose snapshot has expired: the tag's snapshot comes back.
	mustUpdate(t, e, "CALL sys.expire_snapshots(`table` => 's.rb', retain_max => 1)")
	if exists(filepath.Join(snapDir, "snapshot-2")) {
		t.Fatal("snapshot 2 not expired")
	}
	if n := mustUpdate(t, e, "CALL sys.rollback_to('s.rb', 't2')"); n != 2 {
		t.Fatalf("rollback to tag t2 removed %d snapshots, want 2 (3 and 4)", n)
	}
	if got := sortedQuery(t, e, "SELECT * FROM s.rb"); got != "1|a,2|b" {
		t.Fatalf("after rollback to t2: %s", got)
	}
	if hint, _ := os.ReadFile(filepath.Join(snapDir, "EARLIEST")); string(hint) != "2" || !exists(filepath.Join(snapDir, "snapshot-2")) {
		t.Fatalf("snapshot 2 not restored (EARLIEST %q)", hint)
	}
	mustUpdate(t, e, "INSERT INTO s.rb VALUES (7, 'g')")
	if got := sortedQuery(t, e, "SELECT * FROM s.rb"); got != "1|a,2|b,7|g" {
		t.Fatalf("insert after rollback to t2: %s", got)
	}

	for sql, want := range map[string]error{
		"CALL sys.rollback_to(`table` => 's.rb')":                                catalog.ErrInvalid,
		"CALL sys.rollback_to(`table` => 's.rb', tag => 't2', snapshot_id => 1)": catalog.ErrInvalid,
		"CALL sys.rollback_to(`table` => 's.rb', snapshot_id => 99)":             catalog.ErrNotFound,
		"CALL sys.rollback_to(`table` => 's.rb', snapshot_id => 0)":              catalog.ErrInvalid,
		"CALL sys.rollback_to(`table` => 's.rb', tag => 'nope')":                 catalog.ErrNotFound,
		"CALL sys.rollback_to(`table` => 's.nope', snapshot_id => 1)":            catalog.ErrNotFound,
		"CALL sys.rollback_to(`table` => 's.rb', snap => 1)":                     catalog.ErrInvalid,
	} {
		if _, err := execUpdate(t, e, sql); !errors.Is(err, want) {
			t.Errorf("%s: %v, want %v", sql, err, want)
		}
	}
}

package planner

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
)

// latestSnapshot reads s.db/<table>'s LATEST snapshot file: id and kind.
func latestSnapshot(t *testing.T, dir, table string) (int64, string) {
	t.Helper()
	snapDir := filepath.Join(dir, "s.db", table, "snapshot")
	ents, err := os.ReadDir(snapDir)
	if err != nil {
		t.Fatal(err)
	}
	var best struct {
		ID         int64  `json:"id"`
		CommitKind string `json:"commitKind"`
	}
	for _, e := range ents {
		data, err := os.ReadFile(filepath.Join(snapDir, e.Name()))
		if err != nil || len(e.Name()) < 9 || e.Name()[:9] != "snapshot-" {
			continue
		}
		var s struct {
			ID         int64  `json:"id"`
			CommitKind string `json:"commitKind"`
		}
		if err := json.Unmarshal(data, &s); err != nil {
			t.Fatal(err)
		}
		if s.ID > best.ID {
			best = s
		}
	}
	return best.ID, best.CommitKind
}

// TestInsertOverwrite: Paimon's OVERWRITE commit — whole table when
// unpartitioned, the partitions of the new rows by default (dynamic
// partition overwrite), the static PARTITION spec when
// 'dynamic-partition-overwrite' = 'false'.
func TestInsertOverwrite(t *testing.T) {
	testutil.CheckedAllocator(t)
	e, dir := emptyWarehouse(t)
	mustUpdate(t, e, "CREATE DATABASE s")

	// Unpartitioned: everything is replaced.
	mustUpdate(t, e, "CREATE TABLE s.u (id INT, v STRING)")
	mustUpdate(t, e, "INSERT INTO s.u VALUES (1, 'a'), (2, 'b')")
	mustUpdate(t, e, "INSERT INTO s.u VALUES (3, 'c')")
	if n := mustUpdate(t, e, "INSERT OVERWRITE s.u VALUES (9, 'z'), (8, 'y')"); n != 2 {
		t.Fatalf("INSERT OVERWRITE affected %d rows", n)
	}
	if got := sortedQuery(t, e, "SELECT * FROM s.u"); got != "8|y,9|z" {
		t.Fatalf("s.u after overwrite: %s", got)
	}
	if id, kind := latestSnapshot(t, dir, "u"); id != 3 || kind != "OVERWRITE" {
		t.Fatalf("latest snapshot %d %s, want 3 OVERWRITE", id, kind)
	}
	// Overwriting with no rows empties an unpartitioned table.
	mustUpdate(t, e, "INSERT OVERWRITE TABLE s.u SELECT id, v FROM s.u WHERE id > 100")
	if got := sortedQuery(t, e, "SELECT count(*) FROM s.u"); got != "0" {
		t.Fatalf("s.u after empty overwrite: %s", got)
	}

	// Partitioned, dynamic (default): only the partitions written.
	mustUpdate(t, e, "CREATE TABLE s.p (id INT, v STRING, dt STRING) PARTITIONED BY (dt)")
	mustUpdate(t, e, "INSERT INTO s.p VALUES (1, 'a1', 'a'), (2, 'a2', 'a'), (3, 'b1', 'b'), (4, 'c1', 'c')")
	if n := mustUpdate(t, e, "INSERT OVERWRITE s.p SELECT id + 10, v, dt FROM s.p WHERE id = 1"); n != 1 {
		t.Fatalf("dynamic overwrite affected %d", n)
	}
	if got := sortedQuery(t, e, "SELECT * FROM s.p"); got != "11|a1|a,3|b1|b,4|c1|c" {
		t.Fatalf("s.p after dynamic overwrite: %s", got)
	}
	// Static partition: the rows give the other columns.
	if n := mustUpdate(t, e, "INSERT OVERWRITE s.p PARTITION (dt = 'b') VALUES (5, 'b5'), (6, 'b6')"); n != 2 {
		t.Fatalf("static overwrite affected %d", n)
	}
	if got := sortedQuery(t, e, "SELECT * FROM s.p"); got != "11|a1|a,4|c1|c,5|b5|b,6|b6|b" {
		t.Fatalf("s.p after PARTITION (dt='b') overwrite: %s", got)
	}
	// Dynamic mode with no rows changes nothing (Paimon skips the commit).
	before, _ := latestSnapshot(t, dir, "p")
	mustUpdate(t, e, "INSERT OVERWRITE s.p PARTITION (dt = 'c') SELECT id, v FROM s.p WHERE id < 0")
	if got := sortedQuery(t, e, "SELECT * FROM s.p"); got != "11|a1|a,4|c1|c,5|b5|b,6|b6|b" {
		t.Fatalf("s.p after empty dynamic overwrite: %s", got)
	}
	if after, _ := latestSnapshot(t, dir, "p"); after != before {
		t.Fatalf("empty dynamic overwrite made snapshot %d", after)
	}

	// Static mode: the spec decides, even with no rows; rows outside it fail.
	mustUpdate(t, e, "ALTER TABLE s.p SET ('dynamic-partition-overwrite' = 'false')")
	mustUpdate(t, e, "INSERT OVERWRITE s.p PARTITION (dt = 'c') SELECT id, v FROM s.p WHERE id < 0")
	if got := sortedQuery(t, e, "SELECT * FROM s.p"); got != "11|a1|a,5|b5|b,6|b6|b" {
		t.Fatalf("s.p after static empty overwrite of c: %s", got)
	}
	if _, err := execUpdate(t, e, "INSERT OVERWRITE s.p PARTITION (dt = 'zz') (id) VALUES (1)"); err == nil {
		// dt comes from PARTITION; allowed — check it landed.
		if got := sortedQuery(t, e, "SELECT id, dt FROM s.p WHERE dt = 'zz'"); got != "1|zz" {
			t.Fatalf("PARTITION with column list: %s", got)
		}
	} else {
		t.Fatalf("PARTITION with column list: %v", err)
	}
	// No spec in static mode: the whole table.
	mustUpdate(t, e, "INSERT OVERWRITE s.p VALUES (7, 'x', 'x')")
	if got := sortedQuery(t, e, "SELECT * FROM s.p"); got != "7|x|x" {
		t.Fatalf("s.p after whole-table overwrite: %s", got)
	}

	// Primary-key table with deletion vectors: overwritten rows are gone,
	// not merged.
	mustUpdate(t, e, "CREATE TABLE s.k (k INT, v STRING, dt STRING, PRIMARY KEY (k, dt) NOT ENFORCED) PARTITIONED BY (dt) WITH ('bucket' = '2', 'deletion-vectors.enabled' = 'true')")
	mustUpdate(t, e, "INSERT INTO s.k VALUES (1, 'a', 'x'), (2, 'b', 'x'), (3, 'c', 'y')")
	mustUpdate(t, e, "INSERT OVERWRITE s.k PARTITION (dt = 'x') VALUES (2, 'B')")
	if got := sortedQuery(t, e, "SELECT * FROM s.k"); got != "2|B|x,3|c|y" {
		t.Fatalf("s.k after overwrite: %s", got)
	}

	for sql, want := range map[string]error{
		"INSERT OVERWRITE s.p PARTITION (nope = 'a') VALUES (1, 'x')":    catalog.ErrInvalid,
		"INSERT OVERWRITE s.u PARTITION (id = 1) VALUES ('x')":           catalog.ErrInvalid,
		"INSERT OVERWRITE s.p PARTITION (dt = 'a') (dt) VALUES ('b')":    catalog.ErrInvalid,
		"INSERT INTO s.p PARTITION (dt = 'a') VALUES (1, 'x')":           catalog.ErrUnsupported,
		"INSERT OVERWRITE s.p PARTITION (dt = NULL) VALUES (1, 'x')":     catalog.ErrUnsupported,
		"INSERT OVERWRITE s.p PARTITION (dt = 'a') VALUES (1, 'x', 'a')": catalog.ErrInvalid,
	} {
		if _, err := execUpdate(t, e, sql); !errors.Is(err, want) {
			t.Errorf("%s: %v, want %v", sql, err, want)
		}
	}
}

package planner

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
)

// copyFixtureTable copies a fixture table directory to dst (a temporary
// warehouse), so the test can change it.
func copyFixtureTable(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		out := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(out, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(out, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestAlterMatchesJava replays, through SQL, the schema evolution Paimon
// Java applied to the fixture append_table_with_alter_table (drop a and c,
// rename b→c and d→a, add d in the middle with an empty comment, add e,
// move k after key1) on a copy rolled back to before it, then compares the
// schema file with Java's schema-1 and reads Java's data files back through
// the new schema.
func TestAlterMatchesJava(t *testing.T) {
	testutil.CheckedAllocator(t)
	const rel = "paimon-cpp/parquet/append_table_with_alter_table.db/append_table_with_alter_table"
	src := filepath.Join(testutil.FixturesDir(t), rel)
	if _, err := os.Stat(src); err != nil {
		t.Skipf("fixture %s absent: %v", rel, err)
	}
	e, dir := emptyWarehouse(t)
	mustUpdate(t, e, "CREATE DATABASE s")
	tdir := filepath.Join(dir, "s.db", "j")
	copyFixtureTable(t, src, tdir)
	if err := os.Remove(filepath.Join(tdir, "schema", "schema-1")); err != nil {
		t.Fatal(err)
	}
	mustUpdate(t, e, "CALL sys.rollback_to(`table` => 's.j', snapshot_id => 1)")
	if got := sortedQuery(t, e, "SELECT * FROM s.j"); got != "0|1|12|13|14|15|16,0|1|22|23|24|25|26,0|1|32|33|34|35|36,1|1|42|43|44|45|46,1|1|52|53|54|55|56" {
		t.Fatalf("fixture before ALTER: %s", got)
	}
	for _, sql := range []string{
		"ALTER TABLE s.j DROP COLUMN a",
		"ALTER TABLE s.j DROP COLUMN c",
		"ALTER TABLE s.j RENAME COLUMN b TO c",
		"ALTER TABLE s.j RENAME COLUMN d TO a",
		"ALTER TABLE s.j ADD COLUMN d INT COMMENT '' AFTER c",
		"ALTER TABLE s.j ADD COLUMN e INT",
		"ALTER TABLE s.j ALTER COLUMN k AFTER key1",
	} {
		mustUpdate(t, e, sql)
	}
	read := func(p string) map[string]any {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatal(err)
		}
		delete(m, "timeMillis")
		delete(m, "id")
		return m
	}
	got, _ := json.Marshal(read(filepath.Join(tdir, "schema", "schema-7")))
	want, _ := json.Marshal(read(filepath.Join(src, "schema", "schema-1")))
	if string(got) != string(want) {
		t.Fatalf("schema after ALTERs differs from Java's schema-1:\n got %s\nwant %s", got, want)
	}
	// Byte for byte, but for the schema id and time: Jackson's layout.
	raw := func(p string) string {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var keep []string
		for _, l := range strings.Split(string(data), "\n") {
			if !strings.HasPrefix(l, `  "id" :`) && !strings.HasPrefix(l, `  "timeMillis" :`) {
				keep = append(keep, l)
			}
		}
		return strings.Join(keep, "\n")
	}
	if g, w := raw(filepath.Join(tdir, "schema", "schema-7")), raw(filepath.Join(src, "schema", "schema-1")); g != w {
		t.Fatalf("schema text differs from Java's:\n got %s\nwant %s", g, w)
	}
	// Java's expected read of the old files with schema-1.
	if got := sortedQuery(t, e, "SELECT * FROM s.j"); got != "0|1|16|13|NULL|15|NULL,0|1|26|23|NULL|25|NULL,0|1|36|33|NULL|35|NULL,1|1|46|43|NULL|45|NULL,1|1|56|53|NULL|55|NULL" {
		t.Fatalf("fixture after ALTER: %s", got)
	}
}

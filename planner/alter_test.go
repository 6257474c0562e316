package planner

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/fileio"
)

// emptyWarehouse is an engine over a new, writable warehouse in a temp dir.
func emptyWarehouse(t *testing.T) (*Engine, string) {
	t.Helper()
	dir := t.TempDir()
	fio, err := fileio.NewLocal(dir)
	if err != nil {
		t.Fatal(err)
	}
	return New(catalog.NewFS(fio, "."), Options{}), dir
}

func mustUpdate(t *testing.T, e *Engine, sql string) int64 {
	t.Helper()
	n, err := execUpdate(t, e, sql)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return n
}

func sortedQuery(t *testing.T, e *Engine, sql string) string {
	t.Helper()
	rows := runQuery(t, e, sql)
	sort.Strings(rows)
	return strings.Join(rows, ",")
}

// schemaFile decodes schema-<id> of s.<table> without its timeMillis.
func schemaFile(t *testing.T, dir, table, id string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "s.db", table, "schema", "schema-"+id))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	delete(m, "timeMillis")
	return m
}

func fieldsOf(m map[string]any) string {
	var out []string
	for _, f := range m["fields"].([]any) {
		out = append(out, fieldString(f.(map[string]any)))
	}
	return strings.Join(out, ",")
}

// fieldString renders name:type#id['description'], ROW types as
// ROW<fields>.
func fieldString(f map[string]any) string {
	var typ string
	switch x := f["type"].(type) {
	case string:
		typ = x
	case map[string]any:
		var fs []string
		for _, g := range x["fields"].([]any) {
			fs = append(fs, fieldString(g.(map[string]any)))
		}
		typ = x["type"].(string) + "<" + strings.Join(fs, ",") + ">"
	}
	s := f["name"].(string) + ":" + typ + "#" + jsonNum(f["id"])
	if d, ok := f["description"]; ok {
		s += "'" + d.(string) + "'"
	}
	return s
}

func jsonNum(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestAlterColumns: each column change writes the next schema file as
// Paimon's SchemaManager does (ids kept, highestFieldId grown by ADD,
// options untouched) and old data files read back through field ids.
func TestAlterColumns(t *testing.T) {
	testutil.CheckedAllocator(t)
	e, dir := emptyWarehouse(t)
	mustUpdate(t, e, "CREATE DATABASE s")
	mustUpdate(t, e, "CREATE TABLE s.t (id INT NOT NULL, name STRING, v INT, f FLOAT, d DECIMAL(5, 2), r ROW<a INT>, dt STRING) PARTITIONED BY (dt) WITH ('bucket' = '1', 'bucket-key' = 'name')")
	if n := mustUpdate(t, e, "INSERT INTO s.t (id, name, v, f, d, dt) VALUES (1, 'a', 10, 1.5, 1.25, 'x'), (2, 'b', 20, 2.5, 2.5, 'y')"); n != 2 {
		t.Fatalf("INSERT: %d rows", n)
	}
	s0 := schemaFile(t, dir, "t", "0")
	if got := jsonNum(s0["highestFieldId"]); got != "7" { // r.a is id 5, r 6... see below
		t.Fatalf("schema-0 highestFieldId %s (%s)", got, fieldsOf(s0))
	}

	mustUpdate(t, e, "ALTER TABLE s.t ADD COLUMN c ROW<p INT, q STRING> COMMENT 'new' AFTER id")
	s1 := schemaFile(t, dir, "t", "1")
	if got, want := fieldsOf(s1), "id:INT NOT NULL#0,c:ROW<p:INT#9,q:STRING#10>#8'new',name:STRING#1,v:INT#2,f:FLOAT#3,d:DECIMAL(5, 2)#4,r:ROW<a:INT#6>#5,dt:STRING#7"; got != want {
		t.Fatalf("schema-1 fields\n got %s\nwant %s", got, want)
	}
	if got := jsonNum(s1["highestFieldId"]); got != "10" {
		t.Fatalf("schema-1 highestFieldId %s, want 10 (c=8, c.p=9, c.q=10)", got)
	}
	nested := s1["fields"].([]any)[1].(map[string]any)["type"]
	if b, _ := json.Marshal(nested); !strings.Contains(string(b), `"id":9`) || !strings.Contains(string(b), `"id":10`) {
		t.Fatalf("nested ids of c: %s", b)
	}
	if got := jsonNum(s1["options"]); got != `{"bucket":"1","bucket-key":"name"}` {
		t.Fatalf("options changed: %s", got)
	}

	mustUpdate(t, e, "ALTER TABLE s.t RENAME COLUMN name TO nm")
	if got := jsonNum(schemaFile(t, dir, "t", "2")["options"]); got != `{"bucket":"1","bucket-key":"nm"}` {
		t.Fatalf("bucket-key not renamed: %s", got)
	}
	mustUpdate(t, e, "ALTER TABLE s.t DROP COLUMN f")
	mustUpdate(t, e, "ALTER TABLE s.t ALTER COLUMN v TYPE BIGINT")
	mustUpdate(t, e, "ALTER TABLE s.t MODIFY d DECIMAL(10, 3) COMMENT 'amount'")
	mustUpdate(t, e, "ALTER TABLE s.t ALTER COLUMN id DROP NOT NULL")
	mustUpdate(t, e, "ALTER TABLE s.t ADD (e1 INT FIRST, e2 VARCHAR(3))")
	s7 := schemaFile(t, dir, "t", "7")
	if got, want := fieldsOf(s7), "e1:INT#11,id:INT#0,c:ROW<p:INT#9,q:STRING#10>#8'new',nm:STRING#1,v:BIGINT#2,d:DECIMAL(10, 3)#4'amount',r:ROW<a:INT#6>#5,dt:STRING#7,e2:VARCHAR(3)#12"; got != want {
		t.Fatalf("schema-7 fields\n got %s\nwant %s", got, want)
	}
	if got := jsonNum(s7["highestFieldId"]); got != "12" {
		t.Fatalf("schema-7 highestFieldId %s", got)
	}

	// Old files: renamed column keeps its data, dropped one is gone, added
	// ones are NULL, widened ones are cast.
	if got, want := sortedQuery(t, e, "SELECT * FROM s.t"), "NULL|1|NULL|a|10|1.250|NULL|x|NULL,NULL|2|NULL|b|20|2.500|NULL|y|NULL"; got != want {
		t.Fatalf("old rows after ALTER\n got %s\nwant %s", got, want)
	}
	if n := mustUpdate(t, e, "INSERT INTO s.t (e1, id, nm, v, d, dt, e2) VALUES (7, 3, 'c', 30000000000, 3.125, 'x', 'abc')"); n != 1 {
		t.Fatalf("INSERT after ALTER: %d", n)
	}
	if got, want := sortedQuery(t, e, "SELECT id, nm, v, d, e1, e2 FROM s.t WHERE dt = 'x'"), "1|a|10|1.250|NULL|NULL,3|c|30000000000|3.125|7|abc"; got != want {
		t.Fatalf("rows after INSERT\n got %s\nwant %s", got, want)
	}

	// Refused like Java (or, for narrowing, refused here with a clear error).
	for sql, want := range map[string]error{
		"ALTER TABLE s.t ADD COLUMN z INT NOT NULL":         catalog.ErrUnsupported,
		"ALTER TABLE s.t ADD COLUMN nm INT":                 catalog.ErrInvalid,
		"ALTER TABLE s.t DROP COLUMN dt":                    catalog.ErrUnsupported,
		"ALTER TABLE s.t RENAME COLUMN dt TO day":           catalog.ErrUnsupported,
		"ALTER TABLE s.t RENAME COLUMN nope TO x":           catalog.ErrInvalid,
		"ALTER TABLE s.t ALTER COLUMN v TYPE INT":           catalog.ErrUnsupported,
		"ALTER TABLE s.t ALTER COLUMN nm TYPE INT":          catalog.ErrUnsupported,
		"ALTER TABLE s.t ALTER COLUMN e2 TYPE VARCHAR(2)":   catalog.ErrUnsupported,
		"ALTER TABLE s.t ALTER COLUMN dt TYPE VARCHAR(2)":   catalog.ErrUnsupported,
		"ALTER TABLE s.t ALTER COLUMN v SET NOT NULL":       catalog.ErrUnsupported,
		"ALTER TABLE s.t ADD COLUMN y INT AFTER nope":       catalog.ErrInvalid,
		"ALTER TABLE s.t RENAME TO u":                       catalog.ErrUnsupported,
		"ALTER TABLE s.t ADD PRIMARY KEY (id) NOT ENFORCED": catalog.ErrUnsupported,
		"ALTER TABLE s.nope ADD COLUMN y INT":               catalog.ErrNotFound,
		"ALTER TABLE s.t ALTER COLUMN r TYPE ROW<a BIGINT>": catalog.ErrUnsupported,
	} {
		if _, err := execUpdate(t, e, sql); !errors.Is(err, want) {
			t.Errorf("%s: %v, want %v", sql, err, want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "s.db", "t", "schema", "schema-8")); err == nil {
		t.Fatal("a refused ALTER wrote schema-8")
	}

	// Primary-key tables: keys cannot be dropped or retyped; a renamed key
	// is renamed in primaryKeys.
	mustUpdate(t, e, "CREATE TABLE s.pk (k INT, v STRING, PRIMARY KEY (k) NOT ENFORCED) WITH ('bucket' = '1')")
	mustUpdate(t, e, "INSERT INTO s.pk VALUES (1, 'a'), (2, 'b')")
	for _, sql := range []string{"ALTER TABLE s.pk DROP COLUMN k", "ALTER TABLE s.pk ALTER COLUMN k TYPE BIGINT", "ALTER TABLE s.pk ALTER COLUMN k DROP NOT NULL"} {
		if _, err := execUpdate(t, e, sql); !errors.Is(err, catalog.ErrUnsupported) {
			t.Errorf("%s: %v", sql, err)
		}
	}
	mustUpdate(t, e, "ALTER TABLE s.pk RENAME k TO key2")
	if got := jsonNum(schemaFile(t, dir, "pk", "1")["primaryKeys"]); got != `["key2"]` {
		t.Fatalf("primaryKeys after rename: %s", got)
	}
	mustUpdate(t, e, "INSERT INTO s.pk VALUES (2, 'b2')")
	if got := sortedQuery(t, e, "SELECT key2, v FROM s.pk"); got != "1|a,2|b2" {
		t.Fatalf("pk table after rename: %s", got)
	}

	// Writes after ALTER that read older files: DV compaction of a
	// primary-key table, DELETE, compaction of an append table.
	mustUpdate(t, e, "CREATE TABLE s.dv (k INT, v INT, w STRING, PRIMARY KEY (k) NOT ENFORCED) WITH ('bucket' = '1', 'deletion-vectors.enabled' = 'true')")
	mustUpdate(t, e, "INSERT INTO s.dv VALUES (1, 10, 'a'), (2, 20, 'b'), (3, 30, 'c')")
	mustUpdate(t, e, "ALTER TABLE s.dv ADD COLUMN x STRING")
	mustUpdate(t, e, "ALTER TABLE s.dv ALTER COLUMN v TYPE BIGINT")
	mustUpdate(t, e, "ALTER TABLE s.dv DROP COLUMN w")
	mustUpdate(t, e, "INSERT INTO s.dv VALUES (2, 2000000000000, 'new')")
	if got := sortedQuery(t, e, "SELECT * FROM s.dv"); got != "1|10|NULL,2|2000000000000|new,3|30|NULL" {
		t.Fatalf("dv table after ALTER + upsert: %s", got)
	}
	if n := mustUpdate(t, e, "DELETE FROM s.dv WHERE v = 30"); n != 1 {
		t.Fatalf("DELETE after ALTER: %d", n)
	}
	mustUpdate(t, e, "CALL sys.compact('s.dv')")
	if got := sortedQuery(t, e, "SELECT * FROM s.dv"); got != "1|10|NULL,2|2000000000000|new" {
		t.Fatalf("dv table after DELETE + compact: %s", got)
	}
	if n := mustUpdate(t, e, "DELETE FROM s.t WHERE nm = 'a'"); n != 1 {
		t.Fatalf("append DELETE after ALTER: %d", n)
	}
	mustUpdate(t, e, "CALL sys.compact('s.t')")
	if got := sortedQuery(t, e, "SELECT id, nm, v FROM s.t"); got != "2|b|20,3|c|30000000000" {
		t.Fatalf("append table after DELETE + compact: %s", got)
	}
}

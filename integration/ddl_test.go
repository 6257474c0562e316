package integration

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"golang.org/x/crypto/bcrypt"
	"google.golang.org/grpc/codes"

	pfsql "github.com/paimon-flightsql/paimon-flightsql/flightsql"
)

// schemaJSON reads a schema file's fields, highestFieldId, keys and options.
func schemaJSON(t *testing.T, p string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(p)
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

// TestDDLThroughFlight runs CREATE/DROP DATABASE/TABLE with
// CommandStatementUpdate, compares the schema file with a Java-written
// fixture's, ingests into the created tables and reads them back.
func TestDDLThroughFlight(t *testing.T) {
	wh := ingestWarehouse(t)
	srv := startServer(t, wh)
	c := newClient(t, srv)
	ctx := c.ctx
	exec := func(sql string) error {
		_, err := c.ExecuteUpdate(ctx, sql)
		return err
	}
	must := func(sql string) {
		t.Helper()
		if err := exec(sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	must(`CREATE DATABASE shop`)
	wantCode(t, exec(`CREATE DATABASE shop`), codes.AlreadyExists, "CREATE DATABASE twice")
	must(`CREATE DATABASE IF NOT EXISTS shop`)

	// The same columns as a table Paimon Java wrote: identical schema file
	// (field ids, nested ids, highestFieldId, keys, options).
	must(`CREATE TABLE shop.complex (f1 MAP<TINYINT, SMALLINT>, f2 ARRAY<FLOAT>, f3 ROW<f0 BOOLEAN, f1 BIGINT>,
		f4 TIMESTAMP(9), f5 DATE, f6 DECIMAL(2, 2)) WITH ('manifest.format' = 'avro', 'file.format' = 'parquet')`)
	if fx := filepath.Join(fixtureRoot(), "paimon-cpp/parquet/append_complex_build_in_fieldid.db/append_complex_build_in_fieldid/schema/schema-0"); fileExists(fx) {
		got, _ := json.Marshal(schemaJSON(t, filepath.Join(wh, "shop.db/complex/schema/schema-0")))
		want, _ := json.Marshal(schemaJSON(t, fx))
		if string(got) != string(want) {
			t.Fatalf("schema file differs from Java's:\n got %s\nwant %s", got, want)
		}
	} else {
		t.Log("fixture schema absent (../shared/fixtures): Java comparison skipped")
	}

	must(`CREATE TABLE shop.orders (
		id BIGINT NOT NULL COMMENT 'order id',
		dt STRING,
		amount DECIMAL(10, 2),
		note VARCHAR(20),
		PRIMARY KEY (id, dt) NOT ENFORCED
	) COMMENT 'orders' PARTITIONED BY (dt) WITH ('bucket' = '4', 'deletion-vectors.enabled' = 'true')`)
	s := schemaJSON(t, filepath.Join(wh, "shop.db/orders/schema/schema-0"))
	js, _ := json.Marshal(s)
	for _, want := range []string{`"highestFieldId":3`, `"partitionKeys":["dt"]`, `"primaryKeys":["id","dt"]`,
		`"options":{"bucket":"4","deletion-vectors.enabled":"true"}`, `"comment":"orders"`,
		`{"description":"order id","id":0,"name":"id","type":"BIGINT NOT NULL"}`, `{"id":1,"name":"dt","type":"STRING NOT NULL"}`} {
		if !strings.Contains(string(js), want) {
			t.Fatalf("schema of shop.orders lacks %s:\n%s", want, js)
		}
	}
	wantCode(t, exec(`CREATE TABLE shop.orders (id INT)`), codes.AlreadyExists, "CREATE TABLE twice")
	must(`CREATE TABLE IF NOT EXISTS shop.orders (id INT)`)
	wantCode(t, exec(`CREATE TABLE shop.bad (id INT, PRIMARY KEY (nope) NOT ENFORCED)`), codes.InvalidArgument, "unknown key column")
	wantCode(t, exec(`CREATE TABLE shop.bad (id INT, PRIMARY KEY (id))`), codes.InvalidArgument, "PRIMARY KEY without NOT ENFORCED")
	wantCode(t, exec(`CREATE TABLE shop.bad (id WIDGET)`), codes.InvalidArgument, "unknown type")
	wantCode(t, exec(`CREATE TABLE nodb.t (id INT)`), codes.NotFound, "missing database")

	// Ingest into the primary-key table twice with one key updated: the
	// newer row wins (bucket 4, partitioned, deletion vectors).
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "dt", Type: arrow.BinaryTypes.String},
		{Name: "note", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	batch := func(ids []int64, dts, notes []string) arrow.RecordBatch {
		b := array.NewRecordBuilder(mem, sc)
		defer b.Release()
		b.Field(0).(*array.Int64Builder).AppendValues(ids, nil)
		b.Field(1).(*array.StringBuilder).AppendValues(dts, nil)
		b.Field(2).(*array.StringBuilder).AppendValues(notes, nil)
		return b.NewRecordBatch()
	}
	r1 := batch([]int64{1, 2, 3}, []string{"a", "a", "b"}, []string{"x", "y", "z"})
	defer r1.Release()
	r2 := batch([]int64{2, 4}, []string{"a", "b"}, []string{"y2", "w"})
	defer r2.Release()
	opts := ingestOpts("orders", failMissing, appendMode)
	shop := "shop"
	opts.Schema = &shop
	for _, r := range []arrow.RecordBatch{r1, r2} {
		if _, err := ingest(t, c, ctx, opts, r); err != nil {
			t.Fatal(err)
		}
	}
	if got := strings.Join(sortedRows(t, c, `SELECT id, dt, note, amount FROM shop.orders`), ","); got != "1|a|x|NULL,2|a|y2|NULL,3|b|z|NULL,4|b|w|NULL" {
		t.Fatalf("shop.orders after two ingests: %s", got)
	}

	// INSERT INTO ... VALUES / SELECT: one snapshot each, affected rows
	// returned, types cast to the columns'.
	count := func(sql string) int64 {
		t.Helper()
		n, err := c.ExecuteUpdate(ctx, sql)
		if err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		return n
	}
	if n := count(`INSERT INTO shop.orders VALUES (5, 'c', 12.5, 'v'), (1, 'a', 1, 'x2')`); n != 2 {
		t.Fatalf("INSERT VALUES affected %d rows, want 2", n)
	}
	if n := count(`INSERT INTO shop.orders (id, dt) SELECT id + 100, dt FROM shop.orders WHERE id < 3`); n != 2 {
		t.Fatalf("INSERT SELECT affected %d rows, want 2", n)
	}
	if got := strings.Join(sortedRows(t, c, `SELECT id, dt, note, amount FROM shop.orders`), ","); got != "101|a|NULL|NULL,102|a|NULL|NULL,1|a|x2|1,2|a|y2|NULL,3|b|z|NULL,4|b|w|NULL,5|c|v|12.5" {
		t.Fatalf("shop.orders after INSERTs: %s", got)
	}
	wantCode(t, exec(`INSERT INTO shop.orders (id, nope) VALUES (1, 2)`), codes.InvalidArgument, "INSERT into an unknown column")
	wantCode(t, exec(`INSERT INTO shop.orders VALUES (1)`), codes.InvalidArgument, "INSERT with too few values")
	wantCode(t, exec(`INSERT INTO shop.orders (dt) VALUES ('a')`), codes.InvalidArgument, "INSERT without the NOT NULL key")

	// Tags and branches with Paimon's procedure arguments.
	must("CALL sys.create_tag(`table` => 'shop.orders', tag => 'v1')")
	wantCode(t, exec("CALL sys.create_tag(`table` => 'shop.orders', tag => 'v1')"), codes.AlreadyExists, "create_tag twice")
	count(`INSERT INTO shop.orders VALUES (9, 'z', 0, 'late')`)
	must("CALL sys.create_branch(`table` => 'shop.orders', branch => 'b1', tag => 'v1')")
	for sql, want := range map[string]string{
		`SELECT count(*) FROM shop.orders`:                                      "8",
		`SELECT count(*) FROM shop.orders /*+ OPTIONS('scan.tag-name'='v1') */`: "7",
		"SELECT count(*) FROM `shop`.`orders$branch_b1`":                        "7",
	} {
		if got := strings.Join(sortedRows(t, c, sql), ","); got != want {
			t.Fatalf("%s: %s, want %s", sql, got, want)
		}
	}
	must("CALL sys.delete_branch(`table` => 'shop.orders', branch => 'b1')")
	wantCode(t, exec("CALL sys.delete_branch(`table` => 'shop.orders', branch => 'b1')"), codes.NotFound, "delete_branch twice")
	must("CALL sys.delete_tag(`table` => 'shop.orders', tag => 'v1')")
	wantCode(t, exec("CALL sys.delete_tag(`table` => 'shop.orders', tag => 'v1')"), codes.NotFound, "delete_tag twice")
	if _, _, err := c.query(ctx, "SELECT count(*) FROM `shop`.`orders$branch_b1`"); err == nil {
		t.Fatal("deleted branch still readable")
	}

	// UPDATE on a primary-key table rewrites the matching rows with their keys.
	if n := count(`UPDATE shop.orders SET note = 'upd', amount = 7 WHERE dt = 'b'`); n != 2 {
		t.Fatalf("UPDATE affected %d rows, want 2", n)
	}
	if got := strings.Join(sortedRows(t, c, `SELECT id, note, amount FROM shop.orders WHERE dt = 'b'`), ","); got != "3|upd|7,4|upd|7" {
		t.Fatalf("after UPDATE: %s", got)
	}
	if got := strings.Join(sortedRows(t, c, `SELECT count(*) FROM shop.orders`), ","); got != "8" {
		t.Fatalf("count after UPDATE: %s", got)
	}
	wantCode(t, exec(`UPDATE shop.orders SET id = 5 WHERE id = 1`), codes.InvalidArgument, "UPDATE of a key column")
	// UPDATE on append tables: copy-on-write without deletion vectors,
	// deletion vectors + appended rows with them.
	for _, opts := range []string{"", ` WITH ('deletion-vectors.enabled' = 'true')`} {
		must(`DROP TABLE IF EXISTS shop.plain`)
		must(`CREATE TABLE shop.plain (a INT, b STRING)` + opts)
		count(`INSERT INTO shop.plain VALUES (1, 'x'), (2, 'y'), (3, 'z')`)
		if n := count(`UPDATE shop.plain SET a = a * 10, b = b || '!' WHERE a >= 2`); n != 2 {
			t.Fatalf("UPDATE of append table%s affected %d rows, want 2", opts, n)
		}
		if got := strings.Join(sortedRows(t, c, `SELECT a, b FROM shop.plain`), ","); got != "1|x,20|y!,30|z!" {
			t.Fatalf("append table%s after UPDATE: %s", opts, got)
		}
	}
	wantCode(t, exec(`UPDATE shop.plain SET a = 1 WHERE upper(b) = 'X'`), codes.Unimplemented, "UPDATE of an append table with a condition that cannot be pushed down")

	// ALTER TABLE SET/RESET writes the next schema file.
	must(`ALTER TABLE shop.orders SET ('snapshot.num-retained.max' = '50', 'file.compression' = 'zstd')`)
	must(`ALTER TABLE shop.orders RESET ('file.compression')`)
	s1, _ := json.Marshal(schemaJSON(t, filepath.Join(wh, "shop.db/orders/schema/schema-1")))
	s2 := schemaJSON(t, filepath.Join(wh, "shop.db/orders/schema/schema-2"))
	js2, _ := json.Marshal(s2)
	if !strings.Contains(string(s1), `"file.compression":"zstd"`) || strings.Contains(string(js2), "file.compression") ||
		!strings.Contains(string(js2), `"options":{"bucket":"4","deletion-vectors.enabled":"true","snapshot.num-retained.max":"50"}`) ||
		s2["id"] != float64(2) || s2["highestFieldId"] != float64(3) {
		t.Fatalf("schemas after ALTER:\n%s\n%s", s1, js2)
	}
	wantCode(t, exec(`ALTER TABLE shop.orders SET ('bucket' = '8')`), codes.InvalidArgument, "ALTER bucket")
	count(`INSERT INTO shop.orders VALUES (10, 'z', 1, 'after alter')`)
	if got := strings.Join(sortedRows(t, c, `SELECT count(*) FROM shop.orders`), ","); got != "9" {
		t.Fatalf("count after ALTER + INSERT: %s", got)
	}

	wantCode(t, exec(`DROP DATABASE shop`), codes.InvalidArgument, "DROP DATABASE of a non-empty database")
	must(`DROP TABLE shop.complex`)
	wantCode(t, exec(`DROP TABLE shop.complex`), codes.NotFound, "DROP TABLE twice")
	must(`DROP TABLE IF EXISTS shop.complex`)
	if _, _, err := c.query(ctx, `SELECT * FROM shop.complex`); err == nil {
		t.Fatal("dropped table still readable")
	}
	must(`DROP DATABASE shop CASCADE`)
	if fileExists(filepath.Join(wh, "shop.db")) {
		t.Fatal("DROP DATABASE CASCADE left shop.db")
	}
	must(`DROP DATABASE IF EXISTS shop`)
	wantCode(t, exec(`DROP DATABASE shop`), codes.NotFound, "DROP DATABASE twice")
}

// TestSchemaEvolutionThroughFlight runs ALTER TABLE column changes, CREATE
// TABLE AS SELECT, INSERT OVERWRITE and CALL sys.rollback_to with
// CommandStatementUpdate: affected row counts come back as update results,
// the data read back through Flight matches a model after each step, and a
// read-only user is refused every one of them.
func TestSchemaEvolutionThroughFlight(t *testing.T) {
	wh := ingestWarehouse(t)
	srv := startServer(t, wh, func(cfg *pfsql.Config) {
		hash, _ := bcrypt.GenerateFromPassword([]byte("pw"), bcrypt.MinCost)
		cfg.Users = append(cfg.Users, pfsql.User{Name: "reader", PasswordHash: string(hash), ReadOnly: true})
	})
	c := newClient(t, srv)
	ctx := c.ctx
	count := func(sql string) int64 {
		t.Helper()
		n, err := c.ExecuteUpdate(ctx, sql)
		if err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		return n
	}
	execErr := func(sql string) error {
		_, err := c.ExecuteUpdate(ctx, sql)
		return err
	}
	rows := func(sql string) string {
		t.Helper()
		return strings.Join(sortedRows(t, c, sql), ",")
	}
	count(`CREATE DATABASE ev`)
	count(`CREATE TABLE ev.t (id INT, name STRING, v INT, dt STRING) PARTITIONED BY (dt)`)
	if n := count(`INSERT INTO ev.t VALUES (1, 'a', 10, 'x'), (2, 'b', 20, 'x'), (3, 'c', 30, 'y')`); n != 3 {
		t.Fatalf("INSERT: %d", n)
	}

	// Column changes: old files read through field ids.
	count(`ALTER TABLE ev.t ADD COLUMN note STRING COMMENT 'n' AFTER id`)
	count(`ALTER TABLE ev.t RENAME COLUMN name TO nm`)
	count(`ALTER TABLE ev.t ALTER COLUMN v TYPE BIGINT`)
	count(`ALTER TABLE ev.t DROP COLUMN nm`)
	if got := rows(`SELECT * FROM ev.t`); got != "1|NULL|10|x,2|NULL|20|x,3|NULL|30|y" {
		t.Fatalf("after ALTERs: %s", got)
	}
	s4 := schemaJSON(t, filepath.Join(wh, "ev.db/t/schema/schema-4"))
	if js, _ := json.Marshal(s4); s4["highestFieldId"] != float64(4) || !strings.Contains(string(js), `{"id":2,"name":"v","type":"BIGINT"}`) ||
		!strings.Contains(string(js), `{"description":"n","id":4,"name":"note","type":"STRING"}`) || strings.Contains(string(js), `"nm"`) {
		t.Fatalf("schema-4: %s", js)
	}
	wantCode(t, execErr(`ALTER TABLE ev.t DROP COLUMN dt`), codes.Unimplemented, "DROP of a partition column")
	wantCode(t, execErr(`ALTER TABLE ev.t ALTER COLUMN v TYPE INT`), codes.Unimplemented, "narrowing")
	wantCode(t, execErr(`ALTER TABLE ev.t ADD COLUMN z INT NOT NULL`), codes.Unimplemented, "ADD NOT NULL")
	if n := count(`INSERT INTO ev.t VALUES (4, 'new', 40000000000, 'y')`); n != 1 {
		t.Fatalf("INSERT after ALTER: %d", n)
	}

	// CTAS: one snapshot with the rows, columns from the query.
	if n := count(`CREATE TABLE ev.c PARTITIONED BY (dt) AS SELECT id, v * 2 AS v2, dt FROM ev.t WHERE id > 1`); n != 3 {
		t.Fatalf("CTAS affected %d rows", n)
	}
	if got := rows(`SELECT * FROM ev.c`); got != "2|40|x,3|60|y,4|80000000000|y" {
		t.Fatalf("CTAS rows: %s", got)
	}
	if snaps, _ := filepath.Glob(filepath.Join(wh, "ev.db/c/snapshot/snapshot-*")); len(snaps) != 1 {
		t.Fatalf("CTAS made %d snapshots, want 1", len(snaps))
	}
	if n := count(`CREATE TABLE IF NOT EXISTS ev.c AS SELECT 1 AS one`); n != 0 {
		t.Fatalf("CTAS IF NOT EXISTS on an existing table affected %d", n)
	}

	// INSERT OVERWRITE: dynamic partitions by default, static PARTITION spec.
	if n := count(`INSERT OVERWRITE ev.c SELECT id, v2 + 1, dt FROM ev.c WHERE dt = 'y'`); n != 2 {
		t.Fatalf("INSERT OVERWRITE affected %d", n)
	}
	if got := rows(`SELECT * FROM ev.c`); got != "2|40|x,3|61|y,4|80000000001|y" {
		t.Fatalf("after dynamic overwrite: %s", got)
	}
	if n := count(`INSERT OVERWRITE ev.c PARTITION (dt = 'x') VALUES (9, 90)`); n != 1 {
		t.Fatalf("INSERT OVERWRITE PARTITION affected %d", n)
	}
	if got := rows(`SELECT * FROM ev.c`); got != "3|61|y,4|80000000001|y,9|90|x" {
		t.Fatalf("after static overwrite: %s", got)
	}

	// Rollback to the snapshot before the overwrites (snapshot 1 = CTAS).
	if n := count("CALL sys.rollback_to(`table` => 'ev.c', snapshot_id => 1)"); n != 2 {
		t.Fatalf("rollback_to removed %d snapshots, want 2", n)
	}
	if got := rows(`SELECT * FROM ev.c`); got != "2|40|x,3|60|y,4|80000000000|y" {
		t.Fatalf("after rollback: %s", got)
	}

	// Read-only users are refused every write, before anything runs.
	rc := newClientAs(t, srv, "reader", "pw")
	for _, sql := range []string{
		`ALTER TABLE ev.t ADD COLUMN r INT`,
		`CREATE TABLE ev.r AS SELECT 1 AS one`,
		`INSERT OVERWRITE ev.c VALUES (1, 1, 'x')`,
		"CALL sys.rollback_to(`table` => 'ev.c', snapshot_id => 1)",
	} {
		_, err := rc.ExecuteUpdate(rc.ctx, sql)
		wantCode(t, err, codes.PermissionDenied, "read-only "+sql)
	}
	if fileExists(filepath.Join(wh, "ev.db/r")) || fileExists(filepath.Join(wh, "ev.db/t/schema/schema-5")) {
		t.Fatal("a refused write changed the warehouse")
	}
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

// fixtureRoot is shared/fixtures/paimon ($PAIMON_FIXTURES).
func fixtureRoot() string {
	if r := os.Getenv("PAIMON_FIXTURES"); r != "" {
		return r
	}
	return filepath.Join("..", "..", "shared", "fixtures", "paimon")
}

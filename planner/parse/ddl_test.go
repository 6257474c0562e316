package parse

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
)

func TestParseDDL(t *testing.T) {
	st, err := Parse("CREATE TABLE IF NOT EXISTS s.`t` (id BIGINT NOT NULL, m MAP<STRING, ARRAY<INT>> COMMENT 'm', r ROW<a INT NOT NULL, b DECIMAL(5, 1)>, dt STRING NULL, PRIMARY KEY (id, dt) NOT ENFORCED) COMMENT 'c' PARTITIONED BY (dt) WITH ('bucket' = '4', 'a.b' = 'x''y')")
	if err != nil {
		t.Fatal(err)
	}
	d := st.DDL
	var cols []string
	for _, c := range d.Columns {
		cols = append(cols, c.Name+" "+c.Type.String())
	}
	got := strings.Join([]string{d.Kind, d.Database, d.Table, strings.Join(cols, ", "), strings.Join(d.PrimaryKey, ","), strings.Join(d.PartitionedBy, ","), d.Options["bucket"], d.Options["a.b"], d.Comment}, "|")
	want := "CREATE TABLE|s|t|id BIGINT NOT NULL, m MAP<STRING, ARRAY<INT>>, r ROW<`a` INT NOT NULL, `b` DECIMAL(5, 1)>, dt STRING|id,dt|dt|4|x'y|c"
	if got != want || !d.IfNotExists || *d.Columns[1].Description != "m" {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	for sql, want := range map[string]string{
		"DROP DATABASE IF EXISTS d CASCADE": "DROP DATABASE|d||true|true",
		"CREATE DATABASE d":                 "CREATE DATABASE|d||false|false",
		"DROP TABLE t":                      "DROP TABLE||t|false|false",
	} {
		st, err := Parse(sql)
		if err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		d := st.DDL
		if got := strings.Join([]string{d.Kind, d.Database, d.Table, boolStr(d.IfExists), boolStr(d.Cascade)}, "|"); got != want {
			t.Fatalf("%s: got %s want %s", sql, got, want)
		}
	}
	for sql, kind := range map[string]error{
		"CREATE TABLE t (id INT, PRIMARY KEY (id))":      catalog.ErrInvalid,
		"CREATE TABLE t (id)":                            catalog.ErrInvalid,
		"CREATE TABLE t (id INT) WITH ('a')":             catalog.ErrInvalid,
		"CREATE TABLE t (id INT) WITH ('a'='1','a'='2')": catalog.ErrInvalid,
		"CREATE TABLE t (a INT) AS SELECT 1":             catalog.ErrUnsupported,
		"CREATE TABLE t AS VALUES (1)":                   catalog.ErrUnsupported,
		"CREATE TABLE t AS":                              catalog.ErrInvalid,
		"CREATE TABLE t WITH ('a' = 'b')":                catalog.ErrInvalid,
		"CREATE VIEW v AS SELECT 1":                      catalog.ErrUnsupported,
		"DROP TABLE t extra":                             catalog.ErrInvalid,
		"CREATE TABLE t (id ARRAY<INT, INT>)":            catalog.ErrInvalid,
	} {
		if _, err := Parse(sql); !errors.Is(err, kind) {
			t.Errorf("%s: got %v, want %v", sql, err, kind)
		}
	}
}

func boolStr(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

func TestParseCTAS(t *testing.T) {
	st, err := Parse("CREATE TABLE IF NOT EXISTS d.t COMMENT 'c' PARTITIONED BY (p) WITH ('bucket' = '2') AS SELECT a, p FROM u")
	if err != nil {
		t.Fatal(err)
	}
	d := st.DDL
	if got := fmt.Sprint(d.Kind, "|", d.Database, "|", d.Table, "|", d.IfNotExists, "|", d.Comment, "|", d.PartitionedBy, "|", d.Options, "|", d.AsSelect); got != "CREATE TABLE|d|t|true|c|[p]|map[bucket:2]|SELECT a, p FROM u" {
		t.Fatalf("CTAS: %s", got)
	}
}

func TestParseInsert(t *testing.T) {
	st, err := Parse("INSERT INTO db.t (a, `b`) VALUES (1, 'x, (y)'), (2 + 3, NULL)")
	if err != nil {
		t.Fatal(err)
	}
	in := st.Insert
	if got := in.Database + "|" + in.Table + "|" + strings.Join(in.Columns, ",") + "|" + in.Source; got != "db|t|a,b|SELECT 1, 'x, (y)' UNION ALL SELECT 2 + 3, NULL" || in.Rows != 2 {
		t.Fatalf("got %s", got)
	}
	st, err = Parse("INSERT INTO t (SELECT a FROM u)")
	if err != nil || st.Insert.Columns != nil || st.Insert.Source != "(SELECT a FROM u)" {
		t.Fatalf("INSERT INTO t (query): %+v %v", st, err)
	}
	st, err = Parse("INSERT OVERWRITE TABLE db.t PARTITION (dt = 'x''y', h = -3) (a) SELECT 1")
	if err != nil || !st.Insert.Overwrite || fmt.Sprint(st.Insert.Static) != "[{dt x'y 'x''y'} {h -3 -3}]" || st.Insert.Source != "SELECT 1" || strings.Join(st.Insert.Columns, ",") != "a" {
		t.Fatalf("INSERT OVERWRITE: %+v %v", st.Insert, err)
	}
	for sql, kind := range map[string]error{
		"INSERT t VALUES (1)":                             catalog.ErrInvalid,
		"INSERT INTO t VALUES (1":                         catalog.ErrInvalid,
		"INSERT INTO t VALUES ()":                         catalog.ErrInvalid,
		"INSERT INTO t":                                   catalog.ErrInvalid,
		"INSERT INTO t PARTITION (a = 1) VALUES (1)":      catalog.ErrUnsupported,
		"INSERT OVERWRITE t PARTITION (a) VALUES (1)":     catalog.ErrInvalid,
		"INSERT OVERWRITE t PARTITION (a = b) VALUES (1)": catalog.ErrInvalid,
		"INSERT INTO t VALUES (1) junk":                   catalog.ErrInvalid,
	} {
		if _, err := Parse(sql); !errors.Is(err, kind) {
			t.Errorf("%s: got %v, want %v", sql, err, kind)
		}
	}
}

func TestParseAlter(t *testing.T) {
	st, err := Parse("ALTER TABLE db.t SET ('a' = '1', 'b' = '2')")
	if err != nil || st.DDL.Kind != "ALTER TABLE" || st.DDL.Options["b"] != "2" || st.DDL.Table != "t" {
		t.Fatalf("SET: %+v %v", st, err)
	}
	st, err = Parse("ALTER TABLE t RESET ('a', 'b')")
	if err != nil || strings.Join(st.DDL.Reset, ",") != "a,b" {
		t.Fatalf("RESET: %+v %v", st, err)
	}
	for sql, want := range map[string]string{
		"ALTER TABLE t ADD COLUMN x INT":                                    "1:x:INT::/",
		"ALTER TABLE t ADD x DECIMAL(5, 2) NOT NULL FIRST":                  "1:x:DECIMAL(5, 2) NOT NULL::FIRST/",
		"ALTER TABLE t ADD (x INT COMMENT 'c' AFTER y, z MAP<INT, STRING>)": "1:x:INT:c:AFTER y/1:z:MAP<INT, STRING>::/",
		"ALTER TABLE t RENAME COLUMN a TO b":                                "2:a:BOOLEAN::/",
		"ALTER TABLE t DROP (a, b)":                                         "3:a:BOOLEAN::/3:b:BOOLEAN::/",
		"ALTER TABLE t MODIFY a BIGINT COMMENT 'k' AFTER b":                 "4:a:BIGINT::/6:a:BOOLEAN:k:/7:a:BOOLEAN::AFTER b/",
		"ALTER TABLE t ALTER COLUMN a TYPE BIGINT":                          "4:a:BIGINT::/",
		"ALTER TABLE t ALTER a SET NOT NULL":                                "5:a:BOOLEAN::/",
		"ALTER TABLE t ALTER COLUMN a FIRST":                                "7:a:BOOLEAN::FIRST/",
	} {
		st, err := Parse(sql)
		if err != nil {
			t.Errorf("%s: %v", sql, err)
			continue
		}
		var got strings.Builder
		for _, c := range st.DDL.Changes {
			typ := c.Type
			if typ.Root == 0 && !typ.Nullable {
				typ = typ.WithNullable(true) // zero value: no type
			}
			cm := ""
			if c.Comment != nil {
				cm = *c.Comment
			}
			fmt.Fprintf(&got, "%d:%s:%s:%s:%s/", c.Kind, c.Column, typ, cm, strings.TrimSpace(c.Position+" "+c.After))
		}
		if got.String() != want {
			t.Errorf("%s:\n got %s\nwant %s", sql, got.String(), want)
		}
	}
	for sql, kind := range map[string]error{
		"ALTER TABLE t RENAME TO u":     catalog.ErrUnsupported,
		"ALTER TABLE t ADD COLUMN x":    catalog.ErrInvalid,
		"ALTER VIEW v SET ('a' = '1')":  catalog.ErrUnsupported,
		"ALTER TABLE t SET ('a')":       catalog.ErrInvalid,
		"ALTER TABLE t RESET ('a' 'b')": catalog.ErrInvalid,
		"ALTER TABLE t FROB":            catalog.ErrInvalid,
	} {
		if _, err := Parse(sql); !errors.Is(err, kind) {
			t.Errorf("%s: got %v, want %v", sql, err, kind)
		}
	}
}

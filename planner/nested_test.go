package planner

import (
	"slices"
	"strings"
	"testing"

	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
)

// TestNestedValues checks STRUCT and MAP constructors and accessors against
// DuckDB 1.5's answers (row(...) and (a, b) name their fields v1, v2, ...
// where DuckDB 1.5 leaves them unnamed).
func TestNestedValues(t *testing.T) {
	e, _ := newTestEngine(t, testutil.CheckedAllocator(t))
	for _, c := range []struct{ sql, want string }{
		{`SELECT {'a': 1, 'b': 'x'}, struct_pack(a := 1, b := 'x'), row(1, 'x'), (1, NULL), {'a': {'b': 1}}['a']['b']`,
			`{"a":1,"b":"x"}|{"a":1,"b":"x"}|{"v1":1,"v2":"x"}|{"v1":1,"v2":null}|1`},
		{`SELECT typeof({'a': 1, 'b': 'x'}), typeof(map(['a'], [1])), typeof(row(1.5))`, "STRUCT(a BIGINT, b VARCHAR)|MAP(VARCHAR, BIGINT)|STRUCT(v1 DECIMAL(2,1))"},
		// field access, also of a NULL struct (the left join's missing rows)
		{`SELECT o.id, q.x.n, q.x['q'], struct_extract(x, 1), x.Q FROM orders o LEFT JOIN (SELECT id, {'n': name, 'q': qty} AS x FROM orders WHERE id > 5) q ON q.id = o.id`,
			"1|NULL|NULL|NULL|NULL\n2|NULL|NULL|NULL|NULL\n3|NULL|NULL|NULL|NULL\n4|NULL|NULL|NULL|NULL\n5|NULL|NULL|NULL|NULL\n6|Durian|1|Durian|1\n7|banana|30|banana|30\n8|apple|12|apple|12"},
		{`SELECT id FROM (SELECT id, struct_pack(qty, name) AS x FROM orders) s WHERE x.qty > 10 AND x.name <> 'x'`, "2\n7\n8"},
		// struct comparisons (DuckDB 1.5): NULL for a NULL struct, else
		// field by field with NULL fields as values, nested structs too
		{`SELECT {'a': 1, 'b': NULL} = {'a': 1, 'b': NULL}, {'a': 1, 'b': NULL} < {'a': 1, 'b': 2}, {'a': 1, 'b': 2} = (1, 2), (1, 3) > {'a': 1, 'b': 2}, {'a': 1} = {'A': 1}, {'a': {'x': NULL}} = {'a': {'x': NULL}}, {'a': {'x': 1}} < {'a': {'x': NULL}}, {'a': 1} IN ({'a': 2}, NULL), {'a': 1} NOT IN ({'a': 2}, {'a': 3})`,
			"true|false|true|true|true|true|true|NULL|true"},
		{`SELECT o.id, q.x = {'n': 'apple', 'q': 12}, q.x < {'n': 'banana', 'q': NULL}, q.x <> (NULL, 1) FROM orders o LEFT JOIN (SELECT id, {'n': name, 'q': qty} AS x FROM orders WHERE id > 5) q ON q.id = o.id WHERE o.id > 4`,
			"5|NULL|NULL|NULL\n6|false|true|true\n7|false|true|true\n8|true|true|true"},
		// maps
		{`SELECT map(['a', 'b'], [1, 2]), MAP {'a': 1, 'b': 2}['b'], MAP {1: 'x'}[2], map_keys(MAP {'a': 1, 'b': NULL}), map_values(MAP {'a': 1, 'b': NULL}), cardinality(MAP {'a': 1}), map_extract(MAP {'a': 1}, 'z'), element_at(MAP {'a': 1}, 'a'), map_extract_value(MAP {'a': 1}, 'a'), cardinality(map([], []))`,
			`[{"key":"a","value":1},{"key":"b","value":2}]|2|NULL|["a","b"]|[1,null]|1|[]|[1]|1|0`},
		{`SELECT id, m[name], cardinality(m), map_keys(m), element_at(m, 'apple') FROM (SELECT id, name, map([name, 'x'], [qty, id]) AS m FROM orders WHERE name IS NOT NULL) q`,
			"1|10|2|[\"apple\",\"x\"]|[10]\n2|20|2|[\"banana\",\"x\"]|[]\n4|5|2|[\"cherry\",\"x\"]|[]\n5|8|2|[\"apple\",\"x\"]|[8]\n6|1|2|[\"Durian\",\"x\"]|[]\n7|30|2|[\"banana\",\"x\"]|[]\n8|12|2|[\"apple\",\"x\"]|[12]"},
		// the map column is filtered for the second AND operand (vec subset)
		{`SELECT id FROM (SELECT id, name, map([coalesce(name, '')], [qty]) AS m FROM orders) q WHERE name <> 'x' AND m[name] > 9`, "1\n2\n7\n8"},
		{`SELECT id, map([id], [name])[id], map(NULL, [1]) IS NULL FROM orders WHERE id < 4`, "1|apple|true\n2|banana|true\n3|NULL|true"},
	} {
		got := runQuery(t, e, c.sql)
		slices.Sort(got)
		if g := strings.Join(got, "\n"); g != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.sql, g, c.want)
		}
	}
	for _, c := range []struct{ sql, want string }{
		{`SELECT {'a': 1, 'A': 2}`, "duplicate field name"},
		{`SELECT struct_extract({'a': 1}, 'z')`, `has no field "z"`},
		{`SELECT struct_extract({'a': 1}, 3)`, "outside 1..1"},
		{`SELECT struct_extract({'a': 1}, name) FROM orders`, "constant field name"},
		{`SELECT name.x FROM orders`, "not a STRUCT"},
		{`SELECT struct_pack(1 + 2)`, "needs a name"},
		{`SELECT {'a' 1}`, "'name': value"},
		{`SELECT map(['a', 'a'], [1, 2])`, "must be unique"},
		{`SELECT map([name], [1]) FROM orders`, "can not be NULL"},
		{`SELECT map(['a'], [1, 2])`, "does not align"},
		{`SELECT map(1, 2)`, "want a list"},
		{`SELECT cardinality([1])`, "want a MAP"},
		{`SELECT MAP {'a': 1}[[1]]`, "does not convert"},
		{`SELECT {'a': 1} = {'b': 1}`, "field names differ"},
		{`SELECT {'a': 1} = {'a': 1, 'b': 2}`, "1 and 2 fields"},
		{`SELECT (1, 2) = name FROM orders`, "comparing a row value with name"},
		{`SELECT {'a': 1} IN ({'a': 1}, 2)`, "IN over STRUCT"},
		{`SELECT :a`, "named parameters"},
	} {
		_, err := tryQuery(t, e, c.sql)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err %v, want %q", c.sql, err, c.want)
		}
	}
}

package parse

import (
	"errors"
	"testing"

	"github.com/xwb1989/sqlparser"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
)

func TestNestedSyntax(t *testing.T) {
	cases := []struct{ in, want string }{
		{`SELECT {'a': 1, 'b': 'x'}, {}`, "SELECT paimon_struct('a', 1, 'b', 'x'), paimon_struct()"},
		{`SELECT {a: x + 1, "B c": [1, 2]} FROM t`, "SELECT paimon_struct('a', x + 1, 'B c', list_value(1, 2)) FROM t"},
		{`SELECT {'a': 1}.a, {'a': {'b': 1}}.a.b + 1, {'a': [1]}.a[1]`, "SELECT list_extract(paimon_struct('a', 1), 'a'), list_extract(list_extract(paimon_struct('a', paimon_struct('b', 1)), 'a'), 'b') + 1, list_extract(list_extract(paimon_struct('a', list_value(1)), 'a'), 1)"},
		{`SELECT {'a': {'b': 1}}['a']['b']`, "SELECT list_extract(list_extract(paimon_struct('a', paimon_struct('b', 1)), 'a'), 'b')"},
		{`SELECT struct_pack(a := 1, b := f(x)), STRUCT_PACK(t.x, y) FROM t`, "SELECT paimon_struct('a', 1, 'b', f(x)), paimon_struct('x', t.x, 'y', y) FROM t"},
		{`SELECT MAP {'a': 1, 2 + 3: [x]}, map {}, MAP {1: 'x'}[1], map(['a'], [1]) FROM t`, "SELECT paimon_map('a', 1, 2 + 3, list_value(x)), paimon_map(), list_extract(paimon_map(1, 'x'), 1), map(list_value('a'), list_value(1)) FROM t"},
		{`SELECT {fn ucase(x)}, {d '2024-01-02'} FROM t`, "SELECT ucase(x), paimon_date('2024-01-02') FROM t"},
		{`SELECT (a, b), row(1, 'x') FROM t WHERE (a, b) IN (SELECT x, y FROM u)`, "SELECT (a, b), row(1, 'x') FROM t WHERE (a, b) IN (SELECT x, y FROM u)"},
	}
	for _, c := range cases {
		st, err := Parse(c.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", c.in, err)
			continue
		}
		want, err := sqlparser.Parse(c.want)
		if err != nil {
			t.Fatalf("bad expectation %q: %v", c.want, err)
		}
		if got := render(st); got != sqlparser.String(want) {
			t.Errorf("Parse(%q)\n got %s\nwant %s", c.in, got, sqlparser.String(want))
		}
	}
	for in, kind := range map[string]error{
		`SELECT {'a' 1}`:                  catalog.ErrInvalid,
		`SELECT {'a': }`:                  catalog.ErrInvalid,
		`SELECT {'a': 1, }`:               catalog.ErrInvalid,
		`SELECT {1 + 1: 2}`:               catalog.ErrInvalid,
		`SELECT MAP {'a'}`:                catalog.ErrInvalid,
		`SELECT {'a': 1}.`:                catalog.ErrInvalid,
		`SELECT struct_pack(1 + 2)`:       catalog.ErrInvalid,
		`SELECT struct_pack()`:            catalog.ErrInvalid,
		`SELECT struct_pack(a := )`:       catalog.ErrInvalid,
		`SELECT paimon_struct('a', 1)`:    catalog.ErrInvalid,
		`SELECT paimon_map FROM t`:        catalog.ErrInvalid,
		`SELECT a : b FROM t`:             catalog.ErrUnsupported,
		`SELECT {'a': 1} FROM t WHERE :x`: catalog.ErrUnsupported,
	} {
		if _, err := Parse(in); !errors.Is(err, kind) {
			t.Errorf("Parse(%q) = %v, want %v", in, err, kind)
		}
	}
}

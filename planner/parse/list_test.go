package parse

import (
	"errors"
	"strings"
	"testing"

	"github.com/xwb1989/sqlparser"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
)

func TestListSyntax(t *testing.T) {
	cases := []struct{ in, want string }{
		{`SELECT [1, 2, 3]`, "SELECT list_value(1, 2, 3)"},
		{`SELECT ARRAY[1, x + 1], []`, "SELECT list_value(1, x + 1), list_value()"},
		{`SELECT l[1], (l)[2], f(a)[i + 1] FROM t`, "SELECT list_extract(l, 1), list_extract((l), 2), list_extract(f(a), i + 1) FROM t"},
		{`SELECT [1, 2][2], [[1], [2, 3]][2][1]`, "SELECT list_extract(list_value(1, 2), 2), list_extract(list_extract(list_value(list_value(1), list_value(2, 3)), 2), 1)"},
		{`SELECT t.l[1] + 1 FROM t WHERE 2 IN (SELECT x[1] FROM u)`, "SELECT list_extract(t.l, 1) + 1 FROM t WHERE 2 IN (SELECT list_extract(x, 1) FROM u)"},
		{`SELECT CASE WHEN a THEN [1] ELSE [2] END, x::INT[] FROM t`, "SELECT CASE WHEN a THEN list_value(1) ELSE list_value(2) END, paimon_cast(x, 'INT[]') FROM t"},
		{`SELECT '[1]', array FROM t`, "SELECT '[1]', array FROM t"},
		{`SELECT l[2:3], l[:i], l[-2:], [1, 2][f(a):b[1]] FROM t`, "SELECT list_slice(l, 2, 3), list_slice(l, 1, i), list_slice(l, -2, 9223372036854775807), list_slice(list_value(1, 2), f(a), list_extract(b, 1)) FROM t"},
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
		`SELECT [1, 2`:           catalog.ErrInvalid,
		`SELECT (1, 2]`:          catalog.ErrInvalid,
		`SELECT l[] FROM t`:      catalog.ErrInvalid,
		`SELECT l[1:2:3] FROM t`: catalog.ErrUnsupported,
		`SELECT [1:2]`:           catalog.ErrInvalid,
		`SELECT a : b FROM t`:    catalog.ErrUnsupported,
	} {
		if _, err := Parse(in); !errors.Is(err, kind) {
			t.Errorf("Parse(%q) = %v, want %v", in, err, kind)
		}
	}
}

// TestListOrderKeys: a list literal's commas do not split the ORDER BY of a
// window or an aggregate.
func TestListOrderKeys(t *testing.T) {
	st, err := Parse(`SELECT rank() OVER (ORDER BY [a, b] DESC, c), list(a ORDER BY [b, 1], a) FROM t`)
	if err != nil {
		t.Fatal(err)
	}
	for _, ob := range []sqlparser.OrderBy{st.Windows[0].OrderBy, st.AggOrders[0].OrderBy} {
		if len(ob) != 2 || !strings.HasPrefix(sqlparser.String(ob[0].Expr), "list_value(") {
			t.Errorf("ORDER BY %s, want two keys, a list first", sqlparser.String(ob))
		}
	}
}

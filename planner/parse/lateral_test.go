package parse

import (
	"errors"
	"testing"

	"github.com/xwb1989/sqlparser"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
)

// LATERAL (q) alias is a derived table marked in Statement.Lateral.
func TestLateral(t *testing.T) {
	cases := []struct {
		in    string
		alias string
	}{
		{`SELECT * FROM t, LATERAL (SELECT a FROM o WHERE o.k = t.k) s`, "s"},
		{`SELECT * FROM t CROSS JOIN LATERAL (SELECT a FROM o WHERE o.k = t.k LIMIT 2) AS s`, "s"},
		{`SELECT * FROM t LEFT JOIN lateral (SELECT a FROM o WHERE o.k = t.k) s (x) ON true`, "s"},
		{`SELECT * FROM t, LATERAL (SELECT a FROM o UNION SELECT 1) u`, "u"},
	}
	for _, c := range cases {
		st, err := Parse(c.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", c.in, err)
			continue
		}
		n := 0
		for at, ok := range st.Lateral {
			if !ok || at.As.String() != c.alias {
				t.Errorf("Parse(%q): lateral %s", c.in, sqlparser.String(at))
			}
			if _, isSub := at.Expr.(*sqlparser.Subquery); !isSub {
				t.Errorf("Parse(%q): lateral item is %T", c.in, at.Expr)
			}
			n++
		}
		if n != 1 {
			t.Errorf("Parse(%q): %d lateral items", c.in, n)
		}
	}
	// a plain derived table is not lateral; lateral is a name elsewhere
	for _, in := range []string{`SELECT * FROM t, (SELECT 1) s`, `SELECT lateral FROM t`, `SELECT * FROM lateral`} {
		st, err := Parse(in)
		if err != nil {
			t.Errorf("Parse(%q): %v", in, err)
			continue
		}
		if len(st.Lateral) != 0 {
			t.Errorf("Parse(%q): unexpected lateral", in)
		}
	}
	for _, in := range []string{`SELECT * FROM t, LATERAL (SELECT 1)`} {
		if _, err := Parse(in); err == nil || !(errors.Is(err, catalog.ErrInvalid) || errors.Is(err, catalog.ErrUnsupported)) {
			t.Errorf("Parse(%q): want an error, got %v", in, err)
		}
	}
}

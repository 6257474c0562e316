package parse

import (
	"errors"
	"strings"
	"testing"

	"github.com/xwb1989/sqlparser"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
)

func TestTableFuncs(t *testing.T) {
	cases := []struct {
		in   string
		want []string // per table function: name alias [cols] args
	}{
		{`SELECT * FROM range(5)`, []string{"range range [] 5"}},
		{`SELECT * FROM RANGE(1, 10, 2) AS r`, []string{"range r [] 1,10,2"}},
		{`SELECT * FROM generate_series(1, 3) g(n)`, []string{"generate_series g [n] 1,3"}},
		{`SELECT * FROM t, unnest(t.l) AS u(x) WHERE x > 1`, []string{"unnest u [x] t.l"}},
		{`SELECT * FROM t JOIN range(t.k) r ON r.range > 1`, []string{"range r [] t.k"}},
		{`SELECT * FROM t, LATERAL unnest([t.a, t.b || 'x']) u`, []string{"unnest u [] list_value(t.a, t.b || 'x')"}},
		{`SELECT * FROM range(3) JOIN range(2) b ON true`, []string{"range range [] 3", "range b [] 2"}},
		{`SELECT range(3), unnest([1]) FROM t`, nil},
		{`SELECT * FROM (SELECT * FROM range(2)) s`, []string{"range range [] 2"}},
		// FROM inside expressions is not a FROM clause
		{`SELECT a IS NOT DISTINCT FROM abs(b), a IS DISTINCT FROM abs(b) FROM t WHERE a IS NOT DISTINCT FROM abs(c)`, nil},
		{`SELECT extract(year FROM date_trunc('month', d)), substring(s FROM abs(i)), trim(both 'x' FROM upper(s)) FROM t`, nil},
	}
	for _, c := range cases {
		st, err := Parse(c.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", c.in, err)
			continue
		}
		var got []string
		for at, name := range st.TableFuncs {
			args, err := TableFuncArgs(at)
			if err != nil {
				t.Errorf("Parse(%q): %v", c.in, err)
				continue
			}
			parts := make([]string, len(args))
			for i, a := range args {
				parts[i] = sqlparser.String(a)
			}
			got = append(got, name+" "+at.As.String()+" ["+strings.Join(st.DerivedColumns[at], ",")+"] "+strings.Join(parts, ","))
		}
		if len(got) != len(c.want) {
			t.Errorf("Parse(%q): table functions %q, want %q", c.in, got, c.want)
			continue
		}
		for _, w := range c.want {
			found := false
			for _, g := range got {
				found = found || g == w
			}
			if !found {
				t.Errorf("Parse(%q): table functions %q, want %q", c.in, got, c.want)
			}
		}
	}
	if _, err := Parse(`SELECT paimon_tablefn(1)`); err == nil || !errors.Is(err, catalog.ErrInvalid) {
		t.Errorf("the marker name is not reserved: %v", err)
	}
}

package logical_test

import (
	"context"
	"strings"
	"testing"

	"github.com/paimon-flightsql/paimon-flightsql/planner/logical"
	"github.com/paimon-flightsql/paimon-flightsql/planner/parse"
)

// TestShareCTEsBySize: a WITH query read twice stays shared when its
// result is small by estimate and is inlined at both uses (each with its
// own pushed filter) when it is large or when there is no model.
func TestShareCTEsBySize(t *testing.T) {
	const sql = "WITH t AS (SELECT o_custkey, o_total FROM orders) SELECT a.o_custkey FROM t a WHERE a.o_custkey = 3 UNION ALL SELECT b.o_custkey FROM t b WHERE b.o_total > 1"
	st, err := parse.Parse(sql)
	if err != nil {
		t.Fatal(err)
	}
	b, err := logical.Bind(context.Background(), logical.Session{Catalog: ruleCatalog(t), Database: "default"}, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		model  *logical.Model
		shared bool
	}{
		{"small", logical.NewModel(logical.RowsOnly(func(*logical.Scan) float64 { return 1000 })), true},
		{"large", logical.NewModel(logical.RowsOnly(func(*logical.Scan) float64 { return 1e9 })), false},
		{"no model", nil, false},
	} {
		n, err := logical.Optimize(b.Plan, c.model)
		if err != nil {
			t.Fatal(err)
		}
		plan := logical.Format(n)
		if got := strings.Contains(plan, "CTE t (shared"); got != c.shared {
			t.Errorf("%s: shared %v, want %v:\n%s", c.name, got, c.shared, plan)
		}
		if !c.shared && !strings.Contains(plan, "filter=orders.o_custkey = 3") {
			t.Errorf("%s: the inlined use did not get its filter pushed into its scan:\n%s", c.name, plan)
		}
	}
}

package planner

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
	"github.com/paimon-flightsql/paimon-flightsql/planner/exec"
)

// spillEngine is an engine over default.big (rows rows: id, a string key
// g, a decimal d, a nullable int v) and default.other (the same shape,
// other values), spilling under dir.
func spillEngine(t *testing.T, mem memory.Allocator, rows int, dir string) *Engine {
	t.Helper()
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "g", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "d", Type: &arrow.Decimal128Type{Precision: 12, Scale: 2}, Nullable: true},
		{Name: "v", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	}, nil)
	cat := catalog.NewMemCatalog("default")
	for ti, name := range []string{"big", "other"} {
		rng := rand.New(rand.NewPCG(uint64(ti+1), 3))
		var recs []arrow.RecordBatch
		for start := 0; start < rows; start += 4096 {
			b := array.NewRecordBuilder(mem, schema)
			for i := start; i < min(rows, start+4096); i++ {
				b.Field(0).(*array.Int64Builder).Append(int64(i))
				if rng.IntN(20) == 0 {
					b.Field(1).AppendNull()
				} else {
					b.Field(1).(*array.StringBuilder).Append(fmt.Sprintf("group-%d", rng.IntN(rows/4)))
				}
				if rng.IntN(20) == 0 {
					b.Field(2).AppendNull()
				} else {
					b.Field(2).(*array.Decimal128Builder).Append(decimal128.FromI64(int64(rng.IntN(100000))))
				}
				if rng.IntN(10) == 0 {
					b.Field(3).AppendNull()
				} else {
					b.Field(3).(*array.Int64Builder).Append(int64(rng.IntN(rows)))
				}
			}
			recs = append(recs, b.NewRecordBatch())
			b.Release()
		}
		tab, err := catalog.NewMemTable(catalog.Identifier{Database: "default", Table: name}, catalog.KindTable, schema, []string{"id"}, recs)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(tab.Release)
		cat.AddTable("default", tab)
		for _, r := range recs {
			r.Release()
		}
	}
	return New(cat, Options{BatchSize: 1024, Spill: SpillOptions{Dir: dir}})
}

func spillQuery(t *testing.T, e *Engine, sql string, opts map[string]string) ([]string, error) {
	t.Helper()
	mem := testutil.CheckedAllocator(t)
	st, err := e.Prepare(context.Background(), sql, Session{Options: opts})
	if err != nil {
		return nil, err
	}
	var out []string
	for p := range st.NumPartitions() {
		rdr, err := st.Execute(context.Background(), mem, []any{}, p)
		if err != nil {
			return nil, err
		}
		for rdr.Next() {
			out = append(out, renderRows(rdr.RecordBatch())...)
		}
		err = rdr.Err()
		rdr.Release()
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// TestSpillSQL runs ORDER BY, GROUP BY, DISTINCT and joins over tables
// far larger than query.memory-limit: they finish by spilling and match
// the unlimited run; with query.spill off they fail with ResourceExhausted
// naming the budget; the spill root is empty afterwards.
func TestSpillSQL(t *testing.T) {
	dir := t.TempDir()
	e := spillEngine(t, testutil.CheckedAllocator(t), 120000, dir)
	small := map[string]string{MemoryLimitOption: "256KiB"}
	off := map[string]string{MemoryLimitOption: "256KiB", SpillOption: "off"}
	for _, c := range []struct {
		sql     string
		ordered bool
	}{
		{"SELECT id, g, d, v FROM big ORDER BY g, d DESC, id", true},
		{"SELECT g, v FROM big ORDER BY v NULLS FIRST, g DESC", false}, // ties in unspecified order
		{"SELECT g, count(*), sum(v), min(d), max(id), count(DISTINCT v % 7) FROM big GROUP BY g", false},
		{"SELECT DISTINCT g, v % 100 FROM big", false},
		{"SELECT b.id, b.g, o.id, o.v FROM big b JOIN other o ON b.g = o.g AND b.v = o.v", false},
		{"SELECT b.id, o.id FROM big b LEFT JOIN other o ON b.id = o.v", false},
		{"SELECT b.id, o.id FROM big b FULL JOIN other o ON b.id = o.v", false},
		{"SELECT id FROM big WHERE v IN (SELECT v FROM other)", false},
	} {
		want, err := spillQuery(t, e, c.sql, nil)
		if err != nil {
			t.Fatalf("%s: %v", c.sql, err)
		}
		got, err := spillQuery(t, e, c.sql, small)
		if err != nil {
			t.Fatalf("%s under 256KiB: %v", c.sql, err)
		}
		if !c.ordered {
			slices.Sort(want)
			slices.Sort(got)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: %d rows under 256KiB differ from the %d of the unlimited run", c.sql, len(got), len(want))
		}
		if len(want) == 0 {
			t.Errorf("%s: no rows (a useless case)", c.sql)
		}
		if _, err := spillQuery(t, e, c.sql, off); !errors.Is(err, exec.ErrResourceExhausted) {
			t.Errorf("%s with spilling off: %v, want ResourceExhausted", c.sql, err)
		}
		if ents, _ := os.ReadDir(dir); len(ents) != 0 {
			t.Errorf("%s: spill root holds %d entries afterwards", c.sql, len(ents))
		}
	}
	// NOT IN is a mark join (its NULL answer depends on the whole right
	// side): it does not spill and fails naming the budget.
	notIn := "SELECT id FROM big WHERE g NOT IN (SELECT g FROM other)"
	if _, err := spillQuery(t, e, notIn, small); !errors.Is(err, exec.ErrResourceExhausted) || !strings.Contains(err.Error(), MemoryLimitOption) {
		t.Errorf("%s: %v, want ResourceExhausted naming %s", notIn, err, MemoryLimitOption)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("spill root holds %d entries after the failed NOT IN", len(ents))
	}
	if _, err := spillQuery(t, e, "SELECT id FROM big ORDER BY id", map[string]string{SpillOption: "maybe"}); err == nil {
		t.Error("a bad query.spill value was accepted")
	}
}

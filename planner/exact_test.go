package planner

import (
	"context"
	"math/rand"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
)

// exactTable is a table whose scans apply some pushed conjuncts themselves
// (with predicate.Apply) and answer PushdownExact for them, as a pruning
// Paimon scan does; the others (every odd one when mixed) are answered
// inexact or unsupported. The planner must then keep exactly the conjuncts
// not answered exact in its residual, so any conversion error in pushdown,
// or a conjunct dropped that the scan did not apply, shows up as a wrong
// result.
type exactTable struct {
	*catalog.MemTable
	mixed bool
}

func (t exactTable) NewScan(ctx context.Context, req catalog.ScanRequest) (catalog.Scan, error) {
	s, err := t.MemTable.NewScan(ctx, catalog.ScanRequest{Columns: req.Columns, Limit: -1, Options: req.Options})
	if err != nil {
		return nil, err
	}
	es := exactScan{Scan: s, answers: make([]catalog.FilterPushdown, len(req.Filters))}
	for i, f := range req.Filters {
		switch {
		case !t.mixed || i%2 == 0:
			es.answers[i] = catalog.PushdownExact
			es.applied = append(es.applied, f)
		case i%4 == 1:
			es.answers[i] = catalog.PushdownInexact
		default:
			es.answers[i] = catalog.PushdownUnsupported
		}
	}
	return es, nil
}

type exactScan struct {
	catalog.Scan
	answers []catalog.FilterPushdown
	applied []predicate.Predicate
}

func (s exactScan) Pushdown() []catalog.FilterPushdown { return s.answers }

func (s exactScan) Read(ctx context.Context, splits []catalog.Split, o catalog.ReadOptions) (catalog.Reader, error) {
	rdr, err := s.Scan.Read(ctx, splits, o)
	if err != nil || len(s.applied) == 0 {
		return rdr, err
	}
	mem := o.Mem
	filter := predicate.NewAnd(s.applied...)
	return catalog.NoReport(array.ReaderFromIter(s.Schema(), func(yield func(arrow.RecordBatch, error) bool) {
		defer rdr.Release()
		for rdr.Next() {
			out, err := predicate.Apply(ctx, mem, filter, rdr.RecordBatch())
			if !yield(out, err) || err != nil {
				return
			}
		}
		if rdr.Err() != nil {
			yield(nil, rdr.Err())
		}
	})), nil
}

// TestPushdownPerConjunct: with a scan that applies only some conjuncts
// exactly, the planner keeps a residual Filter of exactly the others, and
// results equal the reference evaluation.
func TestPushdownPerConjunct(t *testing.T) {
	r := rand.New(rand.NewSource(78))
	mem := testutil.CheckedAllocator(t)
	rows := genRows(r, 300)
	base := diffEngine(t, mem, r, rows)
	tab, err := base.cat.GetTable(context.Background(), "default", "t")
	if err != nil {
		t.Fatal(err)
	}
	cat := catalog.NewMemCatalog("")
	cat.AddTable("default", exactTable{MemTable: tab.(*catalog.MemTable), mixed: true})
	e := New(cat, Options{BatchSize: 16})
	for qi := range 150 {
		ps := []genPred{genPredicate(r, 2), genPredicate(r, 2), genPredicate(r, 2)}
		var sqls []string
		var want []string
		for _, x := range rows {
			ok := true
			for _, p := range ps {
				ok = ok && p.eval(x) == 1
			}
			if ok {
				want = append(want, strconv.FormatInt(x.id, 10))
			}
		}
		for _, p := range ps {
			sqls = append(sqls, "("+p.sql+")")
		}
		checkSame(t, e, "SELECT id FROM t WHERE "+strings.Join(sqls, " AND "), want, true, 0, qi)
	}
	// The plan: conjunct 0 and 2 exact (no residual), 1 inexact (residual).
	st, err := e.Prepare(context.Background(), "EXPLAIN SELECT id FROM t WHERE id > 10 AND id < 100 AND id <> 50", Session{})
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(st.explain, "\n")
	for _, w := range []string{"Filter t.id < 100 (est rows=", "pushed filter: id > 10 (exact), id < 100 (inexact), id <> 50 (exact)"} {
		if !strings.Contains(got, w) {
			t.Errorf("plan lacks %q:\n%s", w, got)
		}
	}
}

// TestDifferentialExactScan: results with the scan filtering (pruning on)
// equal the reference evaluation, for random predicates.
func TestDifferentialExactScan(t *testing.T) {
	r := rand.New(rand.NewSource(77))
	mem := testutil.CheckedAllocator(t)
	rows := genRows(r, 300)
	base := diffEngine(t, mem, r, rows)
	tab, err := base.cat.GetTable(context.Background(), "default", "t")
	if err != nil {
		t.Fatal(err)
	}
	cat := catalog.NewMemCatalog("")
	cat.AddTable("default", exactTable{MemTable: tab.(*catalog.MemTable)})
	e := New(cat, Options{BatchSize: 16})
	for qi := range 150 {
		p := genPredicate(r, 3)
		var want []string
		for _, x := range rows {
			if p.eval(x) == 1 {
				want = append(want, strconv.FormatInt(x.id, 10))
			}
		}
		checkSame(t, e, "SELECT id FROM t WHERE "+p.sql, want, true, 0, qi)
	}
}

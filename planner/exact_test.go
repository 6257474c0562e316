package planner

import (
	"context"
	"math/rand"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
)

// exactTable is a table whose scans apply the pushed filter themselves
// (with predicate.Apply) and report FilterExact, as a pruning Paimon scan
// does: the planner then drops the pushed conjuncts from its residual, so
// any conversion error in pushdown shows up as a wrong result.
type exactTable struct{ *catalog.MemTable }

func (t exactTable) NewScan(ctx context.Context, req catalog.ScanRequest) (catalog.Scan, error) {
	s, err := t.MemTable.NewScan(ctx, catalog.ScanRequest{Columns: req.Columns, Limit: -1, Options: req.Options})
	if err != nil {
		return nil, err
	}
	return exactScan{Scan: s, filter: req.Filter}, nil
}

type exactScan struct {
	catalog.Scan
	filter predicate.Predicate
}

func (s exactScan) FilterExact() bool { return true }

func (s exactScan) Read(ctx context.Context, mem memory.Allocator, splits []int) (array.RecordReader, error) {
	rdr, err := s.Scan.Read(ctx, mem, splits)
	if err != nil || s.filter == nil {
		return rdr, err
	}
	return array.ReaderFromIter(s.Schema(), func(yield func(arrow.RecordBatch, error) bool) {
		defer rdr.Release()
		for rdr.Next() {
			out, err := predicate.Apply(ctx, mem, s.filter, rdr.RecordBatch())
			if !yield(out, err) || err != nil {
				return
			}
		}
		if rdr.Err() != nil {
			yield(nil, rdr.Err())
		}
	}), nil
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
	cat.AddTable("default", exactTable{tab.(*catalog.MemTable)})
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

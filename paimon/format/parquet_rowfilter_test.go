package format

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// predRowFilter is a RowFilter evaluating a predicate (the test's stand-in
// for a SQL residual filter), counting the rows it is asked about.
type predRowFilter struct {
	p    predicate.Predicate
	cols []int
	mem  memory.Allocator
	rows atomic.Int64
	err  error
}

func (f *predRowFilter) Columns() []int { return f.cols }
func (f *predRowFilter) Keep(rec arrow.RecordBatch) (*array.Boolean, error) {
	f.rows.Add(rec.NumRows())
	if f.err != nil {
		return nil, f.err
	}
	return predicate.EvalArrow(f.p, rec, f.mem)
}

// TestRowFilter: a RowFilter on top of random Filters and deletions (the
// dictionary path included) returns exactly the rows of Filter AND the
// row condition, with their positions; it sees only rows that survived
// Deleted and Filter; its errors pass through unchanged.
func TestRowFilter(t *testing.T) {
	mem := testutil.CheckedAllocator(t)
	rec := flatRecord(mem, 3000, 2)
	defer rec.Release()
	flat := append(append([]types.DataField(nil), flatFields[:nestedCol]...), flatFields[nestedCol+1:]...)
	always := map[string]bool{"i32": true, "i64": true, "s": true, "f64": true, "lowcard": true}
	r := rand.New(rand.NewPCG(21, 22))
	lowcard := flatFields[fieldIndex(flatFields, idOf("lowcard"))]
	for _, v := range writeVariants()[:3] {
		data := writeFlat(t, rec, v.props)
		df, err := Open(bytes.NewReader(data), int64(len(data)), v.name+".parquet", flatFields)
		if err != nil {
			t.Fatal(err)
		}
		for trial := 0; trial < 24; trial++ {
			var fields []types.DataField
			for _, f := range flat {
				if always[f.Name] || r.IntN(3) == 0 {
					fields = append(fields, f)
				}
			}
			opts := ReadOptions{Fields: fields, Allocator: mem, BatchSize: []int{7, 500, 4096}[r.IntN(3)],
				RowGroups: randomRowGroups(r, df.NumRowGroups()), Parallel: r.IntN(2) == 0}
			switch trial % 4 {
			case 1:
				opts.Filter = randomPredicate(r, rec, 2)
			case 2: // a string filter the dictionary path answers
				opts.Filter = &predicate.Leaf{Column: lowcard.Name, FieldID: lowcard.ID, Type: lowcard.Type, Op: predicate.NotEq, Literals: []any{"RAIL"}}
			}
			if trial%3 != 0 {
				del := deletedSet{}
				for i := int64(0); i < rec.NumRows(); i++ {
					if r.IntN(5) == 0 {
						del[i] = true
					}
				}
				opts.Deleted = del
			}
			rowPred := randomPredicate(r, rec, 1)
			cols, err := filterColumns(rowPred, fields)
			if err != nil {
				t.Fatal(err)
			}
			rf := &predRowFilter{p: rowPred, cols: cols, mem: mem}
			opts.RowFilter = rf
			ref := opts
			ref.RowFilter = nil
			ref.Filter = rowPred
			if opts.Filter != nil {
				ref.Filter = &predicate.And{Children: []predicate.Predicate{opts.Filter, rowPred}}
			}
			want, wantPos := expectFiltered(t, df, ref, mem)
			surv, survivors := expectFiltered(t, df, withoutRows(opts), mem)
			releaseAll(surv)
			res := readRecs(t, df, opts)
			if !res.fast {
				t.Fatalf("%s trial %d: fast path not taken", v.name, trial)
			}
			if fmt.Sprint(res.pos) != fmt.Sprint(wantPos) {
				t.Fatalf("%s trial %d: row positions differ (%d vs %d rows; filter %v, row filter %v)",
					v.name, trial, len(res.pos), len(wantPos), opts.Filter, rowPred)
			}
			if got := rf.rows.Load(); got != int64(len(survivors)) {
				t.Fatalf("%s trial %d: row filter saw %d rows, %d survive Deleted and Filter", v.name, trial, got, len(survivors))
			}
			got := gotConcat(t, res, fields, mem)
			res.release()
			for c, f := range fields {
				if !sameArray(got[c], want[c]) {
					t.Fatalf("%s trial %d: column %s differs", v.name, trial, f.Name)
				}
			}
			releaseAll(got)
			releaseAll(want)
		}
	}
	// An error of the condition is returned as is (not as a damaged file).
	data := writeFlat(t, rec, nil)
	df, _ := Open(bytes.NewReader(data), int64(len(data)), "x.parquet", flatFields)
	boom := errors.New("division by zero")
	rr, err := df.Read(context.Background(), ReadOptions{Fields: flat, Allocator: mem,
		RowFilter: &predRowFilter{cols: []int{0}, err: boom}})
	if err != nil {
		t.Fatal(err)
	}
	for rr.Next() {
	}
	if err := rr.Err(); !errors.Is(err, boom) || err.Error() != boom.Error() {
		t.Fatalf("got %v, want the row filter's error unchanged", err)
	}
	rr.Release()
}

// withoutRows is opts without its RowFilter (what survives Deleted and Filter).
func withoutRows(opts ReadOptions) ReadOptions {
	opts.RowFilter = nil
	return opts
}

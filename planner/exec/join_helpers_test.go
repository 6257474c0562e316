package exec

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

// jtTable is test data: Go values per row (a key column holds an int64
// "domain value" mapped injectively to the column's type, nil = NULL; the
// last column is an int64 payload) and the same rows as Arrow batches.
type jtTable struct {
	kinds []string // per column: int64, int32, string, decimal
	vals  [][]any
	cells [][]string // ValueStr rendering ("NULL" for NULLs)
	op    *jtValues
}

// jtValues is Values executing on a copy of a partition's batch list
// (Values.Execute hands its own slice to the stream, which clears it, so a
// partition could not be executed twice).
type jtValues struct{ *Values }

func (v *jtValues) Execute(tc *TaskCtx, p int) (Stream, error) {
	if p < 0 || p >= v.Partitions() {
		return nil, fmt.Errorf("jtValues: no partition %d", p)
	}
	if len(v.Parts) == 0 {
		return NewSliceStream(tc, nil), nil
	}
	bs := append([]arrow.RecordBatch(nil), v.Parts[p]...)
	for _, b := range bs {
		b.Retain()
	}
	return NewSliceStream(tc, bs), nil
}

func jtType(kind string) arrow.DataType {
	switch kind {
	case "int32":
		return arrow.PrimitiveTypes.Int32
	case "string":
		return arrow.BinaryTypes.String
	case "decimal":
		return &arrow.Decimal128Type{Precision: 12, Scale: 2}
	}
	return arrow.PrimitiveTypes.Int64
}

func jtString(d int64) string {
	if d%2 == 1 {
		return fmt.Sprintf("a-long-key-value-%d", d)
	}
	return fmt.Sprintf("k%d", d)
}

func jtArray(mem memory.Allocator, kind string, vals []any) arrow.Array {
	switch kind {
	case "int32":
		b := array.NewInt32Builder(mem)
		defer b.Release()
		for _, v := range vals {
			if v == nil {
				b.AppendNull()
			} else {
				b.Append(int32(v.(int64)))
			}
		}
		return b.NewArray()
	case "string":
		b := array.NewStringBuilder(mem)
		defer b.Release()
		for _, v := range vals {
			if v == nil {
				b.AppendNull()
			} else {
				b.Append(jtString(v.(int64)))
			}
		}
		return b.NewArray()
	case "decimal":
		b := array.NewDecimal128Builder(mem, jtType(kind).(*arrow.Decimal128Type))
		defer b.Release()
		for _, v := range vals {
			if v == nil {
				b.AppendNull()
			} else {
				b.Append(decimal128.FromI64(v.(int64)*100 + 25))
			}
		}
		return b.NewArray()
	}
	b := array.NewInt64Builder(mem)
	defer b.Release()
	for _, v := range vals {
		if v == nil {
			b.AppendNull()
		} else {
			b.Append(v.(int64))
		}
	}
	return b.NewArray()
}

// jtNewTable builds the table's source: parts partitions, batches of at
// most bsz rows. prefix names the columns.
func jtNewTable(mem memory.Allocator, prefix string, kinds []string, vals [][]any, parts, bsz int) *jtTable {
	fs := make([]arrow.Field, len(kinds))
	for i, k := range kinds {
		fs[i] = arrow.Field{Name: fmt.Sprintf("%s%d", prefix, i), Type: jtType(k), Nullable: true}
	}
	s := arrow.NewSchema(fs, nil)
	t := &jtTable{kinds: kinds, vals: vals, op: &jtValues{&Values{S: s, Parts: make([][]arrow.RecordBatch, parts)}}}
	// Rows go round-robin in runs of bsz to the partitions.
	for start, k := 0, 0; start < len(vals); start, k = start+bsz, k+1 {
		end := min(start+bsz, len(vals))
		cols := make([]arrow.Array, len(kinds))
		for c, kind := range kinds {
			cv := make([]any, 0, end-start)
			for _, r := range vals[start:end] {
				cv = append(cv, r[c])
			}
			cols[c] = jtArray(mem, kind, cv)
		}
		rb := array.NewRecordBatch(s, cols, int64(end-start))
		for r := 0; r < end-start; r++ {
			row := make([]string, len(cols))
			for c, a := range cols {
				row[c] = jtCell(a, r)
			}
			t.cells = append(t.cells, row)
		}
		for _, a := range cols {
			a.Release()
		}
		p := k % parts
		t.op.Parts[p] = append(t.op.Parts[p], rb)
	}
	return t
}

func (t *jtTable) release() {
	for _, p := range t.op.Parts {
		releaseAll(p)
	}
}

func jtCell(a arrow.Array, i int) string {
	if a.IsNull(i) {
		return "NULL"
	}
	return a.ValueStr(i)
}

// jtRandVals makes n rows of nkeys key columns (domain values in [0,
// domain)) plus a payload in [0, 10); nullPct percent of the values are
// NULL.
func jtRandVals(rng *rand.Rand, n, nkeys, domain, nullPct int) [][]any {
	out := make([][]any, n)
	for i := range out {
		row := make([]any, nkeys+1)
		for c := range row {
			if rng.IntN(100) < nullPct {
				continue
			}
			if c < nkeys {
				row[c] = int64(rng.IntN(max(1, domain)))
			} else {
				row[c] = int64(rng.IntN(10))
			}
		}
		out[i] = row
	}
	return out
}

// jtRows renders every row of the batches, sorted.
func jtRows(bs []arrow.RecordBatch) []string {
	var out []string
	for _, b := range bs {
		for r := 0; r < int(b.NumRows()); r++ {
			parts := make([]string, b.NumCols())
			for c := range parts {
				parts[c] = jtCell(b.Column(c), r)
			}
			out = append(out, strings.Join(parts, "|"))
		}
	}
	sort.Strings(out)
	return out
}

// jtPred is a test filter: fn over the values of its argument columns
// (int64 or NULL as nil).
type jtPred struct {
	name string
	args []vec.Expr
	fn   func(v []any) (val, valid bool)
}

func (p *jtPred) Type() arrow.DataType { return arrow.FixedWidthTypes.Boolean }
func (p *jtPred) Nullable() bool       { return true }
func (p *jtPred) Children() []vec.Expr { return p.args }
func (p *jtPred) WithChildren(ch []vec.Expr) vec.Expr {
	cp := *p
	cp.args = ch
	return &cp
}
func (p *jtPred) String() string { return p.name }
func (p *jtPred) Eval(c *vec.Ctx, b arrow.RecordBatch) (arrow.Array, error) {
	arrs := make([]arrow.Array, len(p.args))
	for i, a := range p.args {
		x, err := a.Eval(c, b)
		if err != nil {
			return nil, err
		}
		defer x.Release()
		arrs[i] = x
	}
	bld := array.NewBooleanBuilder(c.Mem)
	defer bld.Release()
	v := make([]any, len(arrs))
	for r := 0; r < int(b.NumRows()); r++ {
		for i, a := range arrs {
			v[i] = nil
			if a.IsValid(r) {
				v[i] = a.(*array.Int64).Value(r)
			}
		}
		val, ok := p.fn(v)
		if ok {
			bld.Append(val)
		} else {
			bld.AppendNull()
		}
	}
	return bld.NewArray(), nil
}

// jtSumFilter is "(a + b) % 3 <> 0" over two int64 columns, NULL when
// either is NULL.
func jtSumFilter(a, b int) *jtPred {
	return &jtPred{
		name: fmt.Sprintf("(#%d + #%d) %% 3 <> 0", a, b),
		args: []vec.Expr{
			&vec.Column{Index: a, Name: fmt.Sprint("#", a), T: arrow.PrimitiveTypes.Int64, Null: true},
			&vec.Column{Index: b, Name: fmt.Sprint("#", b), T: arrow.PrimitiveTypes.Int64, Null: true},
		},
		fn: jtSumFn,
	}
}

func jtSumFn(v []any) (bool, bool) {
	if v[0] == nil || v[1] == nil {
		return false, false
	}
	return (v[0].(int64)+v[1].(int64))%3 != 0, true
}

// jtRef is the nested-loop reference of every join type. keys are the
// key column indexes (the same on both sides; nil: a nested-loop join);
// filter gets (left payload, right payload); markNLJ makes the mark the
// three-valued OR of the filter.
func jtRef(typ JoinType, L, R *jtTable, keys []int, nullSafe []bool, filter bool, nlj bool) []string {
	pl, pr := len(L.kinds)-1, len(R.kinds)-1
	// eq is the three-valued key comparison: 1 TRUE, 0 FALSE, -1 NULL.
	eq := func(l, r []any) int {
		res := 1
		for c, k := range keys {
			lv, rv := l[k], r[k]
			if nullSafe != nil && nullSafe[c] {
				if (lv == nil) != (rv == nil) || lv != nil && lv.(int64) != rv.(int64) {
					return 0
				}
				continue
			}
			if lv == nil || rv == nil {
				res = -1
				continue
			}
			if lv.(int64) != rv.(int64) {
				return 0
			}
		}
		return res
	}
	// f is the filter: 1 TRUE, 0 FALSE, -1 NULL.
	f := func(l, r []any) int {
		if !filter {
			return 1
		}
		v, ok := jtSumFn([]any{l[pl], r[pr]})
		switch {
		case !ok:
			return -1
		case v:
			return 1
		}
		return 0
	}
	nulls := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = "NULL"
		}
		return out
	}
	join := func(a, b []string) string { return strings.Join(append(append([]string{}, a...), b...), "|") }
	var out []string
	rMatched := make([]bool, len(R.vals))
	for i, l := range L.vals {
		matched, markNull := false, false
		for j, r := range R.vals {
			e, fv := eq(l, r), f(l, r)
			if e == 1 && fv == 1 {
				matched = true
				rMatched[j] = true
				if typ == InnerJoin || typ == LeftJoin || typ == RightJoin || typ == FullJoin {
					out = append(out, join(L.cells[i], R.cells[j]))
				}
			}
			if nlj && fv == -1 || !nlj && e == -1 && fv == 1 {
				markNull = true
			}
		}
		switch typ {
		case LeftJoin, FullJoin:
			if !matched {
				out = append(out, join(L.cells[i], nulls(len(R.kinds))))
			}
		case SemiJoin:
			if matched {
				out = append(out, join(L.cells[i], nil))
			}
		case AntiJoin:
			if !matched {
				out = append(out, join(L.cells[i], nil))
			}
		case MarkJoin:
			m := "false"
			if matched {
				m = "true"
			} else if markNull {
				m = "NULL"
			}
			out = append(out, join(L.cells[i], []string{m}))
		}
	}
	if typ == RightJoin || typ == FullJoin {
		for j := range R.vals {
			if !rMatched[j] {
				out = append(out, join(nulls(len(L.kinds)), R.cells[j]))
			}
		}
	}
	if typ == RightSemiJoin || typ == RightAntiJoin {
		for j := range R.vals {
			if rMatched[j] == (typ == RightSemiJoin) {
				out = append(out, join(nil, R.cells[j]))
			}
		}
	}
	sort.Strings(out)
	return out
}

func jtKeyExprs(kinds []string, keys []int) []vec.Expr {
	out := make([]vec.Expr, len(keys))
	for i, k := range keys {
		out[i] = &vec.Column{Index: k, Name: fmt.Sprint("c", k), T: jtType(kinds[k]), Null: true}
	}
	return out
}

func jtDiff(got, want []string) string {
	if len(got) == len(want) {
		same := true
		for i := range got {
			if got[i] != want[i] {
				same = false
				break
			}
		}
		if same {
			return ""
		}
	}
	return fmt.Sprintf("got %d rows:\n  %s\nwant %d rows:\n  %s", len(got), strings.Join(got, "\n  "), len(want), strings.Join(want, "\n  "))
}

// jtCounting wraps an operator, counting Execute calls.
type jtCounting struct {
	Operator
	n atomic.Int64
}

func (c *jtCounting) Execute(tc *TaskCtx, p int) (Stream, error) {
	c.n.Add(1)
	return c.Operator.Execute(tc, p)
}

// jtEndless is a source that makes batches until its context ends.
type jtEndless struct{ s *arrow.Schema }

func (e *jtEndless) Schema() *arrow.Schema { return e.s }
func (e *jtEndless) Children() []Operator  { return nil }
func (e *jtEndless) Partitions() int       { return 2 }
func (e *jtEndless) Explain() string       { return "Endless" }
func (e *jtEndless) Execute(tc *TaskCtx, p int) (Stream, error) {
	return &jtEndlessStream{tc: tc, s: e.s}, nil
}

type jtEndlessStream struct {
	tc *TaskCtx
	s  *arrow.Schema
	i  int64
}

func (s *jtEndlessStream) Next() (arrow.RecordBatch, error) {
	if err := s.tc.Err(); err != nil {
		return nil, err
	}
	b := array.NewInt64Builder(s.tc.Mem)
	defer b.Release()
	for k := 0; k < 64; k++ {
		b.Append(s.i)
		s.i++
	}
	a := b.NewArray()
	defer a.Release()
	return array.NewRecordBatch(s.s, []arrow.Array{a}, 64), nil
}
func (s *jtEndlessStream) Close() {}

func jtTC(mem memory.Allocator, bs int, budget *Budget) *TaskCtx {
	tc := NewTaskCtx(context.Background(), mem, nil, budget)
	tc.BatchSize = bs
	return tc
}

func jtCollect(t testing.TB, tc *TaskCtx, op Operator) []arrow.RecordBatch {
	t.Helper()
	bs, err := Collect(tc, op)
	if err != nil {
		t.Fatalf("%s: %v", op.Explain(), err)
	}
	return bs
}

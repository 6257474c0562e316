package exec

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"

	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

// Values is an in-memory source: partition p returns Parts[p]'s batches
// (retained per stream, so it may execute any number of times).
type Values struct {
	S     *arrow.Schema
	Parts [][]arrow.RecordBatch
}

// NewValues returns a one-partition source of batches.
func NewValues(s *arrow.Schema, batches ...arrow.RecordBatch) *Values {
	return &Values{S: s, Parts: [][]arrow.RecordBatch{batches}}
}

func (v *Values) Schema() *arrow.Schema { return v.S }
func (v *Values) Children() []Operator  { return nil }
func (v *Values) Partitions() int       { return max(1, len(v.Parts)) }
func (v *Values) Explain() string {
	n := 0
	for _, p := range v.Parts {
		for _, b := range p {
			n += int(b.NumRows())
		}
	}
	return fmt.Sprintf("Values rows=%d", n)
}
func (v *Values) Execute(tc *TaskCtx, p int) (Stream, error) {
	if len(v.Parts) == 0 {
		return &sliceStream{tc: tc}, nil
	}
	bs := append([]arrow.RecordBatch(nil), v.Parts[p]...)
	for _, b := range bs {
		b.Retain()
	}
	return &sliceStream{tc: tc, bs: bs}, nil
}

// sliceStream returns owned batches one by one.
type sliceStream struct {
	tc *TaskCtx
	bs []arrow.RecordBatch
	i  int
}

// NewSliceStream returns a stream over batches the stream now owns.
func NewSliceStream(tc *TaskCtx, bs []arrow.RecordBatch) Stream { return &sliceStream{tc: tc, bs: bs} }

func (s *sliceStream) Next() (arrow.RecordBatch, error) {
	if err := s.tc.Err(); err != nil {
		return nil, err
	}
	if s.i >= len(s.bs) {
		return nil, nil
	}
	b := s.bs[s.i]
	s.bs[s.i] = nil
	s.i++
	return b, nil
}

func (s *sliceStream) Close() {
	for i := s.i; i < len(s.bs); i++ {
		if s.bs[i] != nil {
			s.bs[i].Release()
		}
	}
	s.bs, s.i = nil, 0
}

// Filter keeps the rows where Pred is TRUE (NULL and FALSE are dropped).
type Filter struct {
	Input Operator
	Pred  vec.Expr
}

func (f *Filter) Schema() *arrow.Schema { return f.Input.Schema() }
func (f *Filter) Children() []Operator  { return []Operator{f.Input} }
func (f *Filter) Partitions() int       { return f.Input.Partitions() }
func (f *Filter) Explain() string       { return "Filter " + f.Pred.String() }
func (f *Filter) Execute(tc *TaskCtx, p int) (Stream, error) {
	in, err := f.Input.Execute(tc, p)
	if err != nil {
		return nil, err
	}
	return &filterStream{tc: tc, ec: tc.EvalCtx(), in: in, pred: f.Pred}, nil
}

type filterStream struct {
	tc   *TaskCtx
	ec   *vec.Ctx
	in   Stream
	pred vec.Expr
}

func (s *filterStream) Next() (arrow.RecordBatch, error) {
	for {
		if err := s.tc.Err(); err != nil {
			return nil, err
		}
		b, err := s.in.Next()
		if err != nil || b == nil {
			return nil, err
		}
		out, err := FilterBatch(s.ec, b, s.pred)
		b.Release()
		if err != nil {
			return nil, err
		}
		if out.NumRows() == 0 {
			out.Release()
			continue
		}
		return out, nil
	}
}

func (s *filterStream) Close() { s.in.Close() }

// FilterBatch returns the rows of b where pred is TRUE (b is not released).
func FilterBatch(ec *vec.Ctx, b arrow.RecordBatch, pred vec.Expr) (arrow.RecordBatch, error) {
	m, err := pred.Eval(ec, b)
	if err != nil {
		return nil, err
	}
	defer m.Release()
	mask, ok := m.(*array.Boolean)
	if !ok {
		return nil, fmt.Errorf("exec: filter %s is %s, not BOOLEAN", pred, m.DataType())
	}
	n := mask.Len()
	trues := 0
	if mask.NullN() == 0 {
		trues = countTrue(mask)
	} else {
		for i := 0; i < n; i++ {
			if mask.IsValid(i) && mask.Value(i) {
				trues++
			}
		}
	}
	if trues == n {
		b.Retain()
		return b, nil
	}
	if trues == 0 {
		cols := emptyColumns(ec, b.Schema())
		out := array.NewRecordBatch(b.Schema(), cols, 0)
		for _, c := range cols {
			c.Release()
		}
		return out, nil
	}
	idx := make([]int32, 0, trues)
	for i := 0; i < n; i++ {
		if mask.IsValid(i) && mask.Value(i) {
			idx = append(idx, int32(i))
		}
	}
	return TakeBatch(ec, b, idx)
}

func countTrue(m *array.Boolean) int {
	n := 0
	for i := 0; i < m.Len(); i++ {
		if m.Value(i) {
			n++
		}
	}
	return n
}

func emptyColumns(ec *vec.Ctx, s *arrow.Schema) []arrow.Array {
	cols := make([]arrow.Array, s.NumFields())
	for i, f := range s.Fields() {
		cols[i] = array.MakeArrayOfNull(ec.Mem, f.Type, 0)
	}
	return cols
}

// TakeBatch gathers rows idx of b into a new batch (b is not released).
func TakeBatch(ec *vec.Ctx, b arrow.RecordBatch, idx []int32) (arrow.RecordBatch, error) {
	ib := array.NewInt32Builder(ec.Mem)
	ib.AppendValues(idx, nil)
	ia := ib.NewArray()
	ib.Release()
	defer ia.Release()
	cols := make([]arrow.Array, b.NumCols())
	cctx := compute.WithAllocator(ec.Context, ec.Mem)
	for i := range cols {
		c, err := compute.TakeArray(cctx, b.Column(i), ia)
		if err != nil {
			for _, x := range cols[:i] {
				x.Release()
			}
			return nil, err
		}
		cols[i] = c
	}
	out := array.NewRecordBatch(b.Schema(), cols, int64(len(idx)))
	for _, c := range cols {
		c.Release()
	}
	return out, nil
}

// Project evaluates Exprs into the columns of S.
type Project struct {
	Input Operator
	Exprs []vec.Expr
	S     *arrow.Schema
}

// NewProject builds the output schema from the expressions and names.
func NewProject(in Operator, exprs []vec.Expr, names []string) *Project {
	fs := make([]arrow.Field, len(exprs))
	for i, e := range exprs {
		fs[i] = arrow.Field{Name: names[i], Type: e.Type(), Nullable: e.Nullable()}
	}
	return &Project{Input: in, Exprs: exprs, S: arrow.NewSchema(fs, nil)}
}

func (p *Project) Schema() *arrow.Schema { return p.S }
func (p *Project) Children() []Operator  { return []Operator{p.Input} }
func (p *Project) Partitions() int       { return p.Input.Partitions() }
func (p *Project) Explain() string {
	parts := make([]string, len(p.Exprs))
	for i, e := range p.Exprs {
		parts[i] = e.String()
		if n := p.S.Field(i).Name; n != e.String() {
			parts[i] += " AS " + n
		}
	}
	return "Project " + strings.Join(parts, ", ")
}
func (p *Project) Execute(tc *TaskCtx, part int) (Stream, error) {
	in, err := p.Input.Execute(tc, part)
	if err != nil {
		return nil, err
	}
	return &projectStream{tc: tc, ec: tc.EvalCtx(), in: in, p: p}, nil
}

type projectStream struct {
	tc *TaskCtx
	ec *vec.Ctx
	in Stream
	p  *Project
}

func (s *projectStream) Next() (arrow.RecordBatch, error) {
	if err := s.tc.Err(); err != nil {
		return nil, err
	}
	b, err := s.in.Next()
	if err != nil || b == nil {
		return nil, err
	}
	defer b.Release()
	return ProjectBatch(s.ec, b, s.p.Exprs, s.p.S)
}

func (s *projectStream) Close() { s.in.Close() }

// ProjectBatch evaluates exprs over b into a batch of schema s.
func ProjectBatch(ec *vec.Ctx, b arrow.RecordBatch, exprs []vec.Expr, s *arrow.Schema) (arrow.RecordBatch, error) {
	cols := make([]arrow.Array, len(exprs))
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	for i, e := range exprs {
		a, err := e.Eval(ec, b)
		if err != nil {
			return nil, err
		}
		cols[i] = a
	}
	return array.NewRecordBatch(s, cols, b.NumRows()), nil
}

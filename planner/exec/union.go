package exec

import (
	"fmt"
	"strconv"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// Union is UNION ALL: partition p of the union is a partition of one
// input (the inputs' partitions in order), so Partitions() is the sum of
// the inputs'. The schema is the first input's with each field nullable
// when it is in any input; the inputs must have the same column types
// (the planner casts them to the common types first). Batches keep their
// input's order within a partition.
type Union struct {
	Inputs []Operator

	once   sync.Once
	schema *arrow.Schema
	err    error
}

// NewUnion validates the inputs and computes the schema.
func NewUnion(inputs ...Operator) (*Union, error) {
	u := &Union{Inputs: inputs}
	if _, err := u.prepare(); err != nil {
		return nil, err
	}
	return u, nil
}

func (u *Union) prepare() (*arrow.Schema, error) {
	u.once.Do(func() { u.schema, u.err = unionSchema(u.Inputs) })
	return u.schema, u.err
}

func unionSchema(inputs []Operator) (*arrow.Schema, error) {
	if len(inputs) == 0 {
		return nil, fmt.Errorf("exec: Union needs at least one input")
	}
	for i, in := range inputs {
		if in == nil || in.Schema() == nil {
			return nil, fmt.Errorf("exec: Union input %d is nil or has no schema", i+1)
		}
	}
	fs := append([]arrow.Field{}, inputs[0].Schema().Fields()...)
	for i, in := range inputs[1:] {
		s := in.Schema()
		if s.NumFields() != len(fs) {
			return nil, fmt.Errorf("exec: Union input %d has %d columns, the first has %d", i+2, s.NumFields(), len(fs))
		}
		for j, f := range s.Fields() {
			if !arrow.TypeEqual(f.Type, fs[j].Type) {
				return nil, fmt.Errorf("exec: Union input %d column %d (%s) is %s, the first input's (%s) is %s", i+2, j+1, f.Name, f.Type, fs[j].Name, fs[j].Type)
			}
			fs[j].Nullable = fs[j].Nullable || f.Nullable
		}
	}
	return arrow.NewSchema(fs, nil), nil
}

func (u *Union) Schema() *arrow.Schema {
	s, err := u.prepare()
	if err != nil {
		return arrow.NewSchema(nil, nil)
	}
	return s
}

func (u *Union) Children() []Operator { return u.Inputs }

func (u *Union) Partitions() int {
	n := 0
	for _, in := range u.Inputs {
		if in != nil {
			n += max(1, in.Partitions())
		}
	}
	return max(1, n)
}

func (u *Union) Explain() string { return "Union all inputs=" + strconv.Itoa(len(u.Inputs)) }

func (u *Union) Execute(tc *TaskCtx, p int) (Stream, error) {
	s, err := u.prepare()
	if err != nil {
		return nil, err
	}
	orig := p
	if p < 0 {
		return nil, fmt.Errorf("exec: Union has no partition %d", p)
	}
	for _, in := range u.Inputs {
		n := max(1, in.Partitions())
		if p < n {
			st, err := in.Execute(tc, p)
			if err != nil {
				return nil, err
			}
			return &unionStream{tc: tc, in: st, s: s}, nil
		}
		p -= n
	}
	return nil, fmt.Errorf("exec: Union has %d partitions, not partition %d", u.Partitions(), orig)
}

// unionStream relabels an input's batches with the union's schema.
type unionStream struct {
	tc *TaskCtx
	in Stream
	s  *arrow.Schema
}

func (s *unionStream) Next() (arrow.RecordBatch, error) {
	if s.in == nil {
		return nil, nil
	}
	if err := s.tc.Err(); err != nil {
		return nil, err
	}
	b, err := s.in.Next()
	if err != nil || b == nil {
		return nil, err
	}
	defer b.Release()
	if err := joinCheckBatch(s.s, b); err != nil {
		return nil, fmt.Errorf("exec: Union: %w", err)
	}
	return array.NewRecordBatch(s.s, b.Columns(), b.NumRows()), nil
}

func (s *unionStream) Close() {
	if s.in != nil {
		s.in.Close()
		s.in = nil
	}
}

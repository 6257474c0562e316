package physical

import (
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-flightsql/paimon-flightsql/planner/exec"
)

// Counted wraps an operator and counts the rows its streams return (EXPLAIN
// ANALYZE). Its children are the wrapped operator's (themselves Counted).
type Counted struct {
	Op   exec.Operator
	rows atomic.Int64
}

// Rows is the number of rows returned so far.
func (c *Counted) Rows() int64 { return c.rows.Load() }

func (c *Counted) Schema() *arrow.Schema     { return c.Op.Schema() }
func (c *Counted) Children() []exec.Operator { return c.Op.Children() }
func (c *Counted) Partitions() int           { return c.Op.Partitions() }
func (c *Counted) Explain() string           { return c.Op.Explain() }
func (c *Counted) Execute(tc *exec.TaskCtx, p int) (exec.Stream, error) {
	s, err := c.Op.Execute(tc, p)
	if err != nil {
		return nil, err
	}
	return &countedStream{s: s, c: c}, nil
}

type countedStream struct {
	s exec.Stream
	c *Counted
}

func (s *countedStream) Next() (arrow.RecordBatch, error) {
	b, err := s.s.Next()
	if b != nil {
		s.c.rows.Add(b.NumRows())
	}
	return b, err
}

func (s *countedStream) Close() { s.s.Close() }

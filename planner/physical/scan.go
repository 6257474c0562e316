package physical

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/planner/exec"
)

// ScanExec reads a planned catalog scan; partition p reads splits p, p+N, ...
type ScanExec struct {
	Name  string
	Scan  catalog.Scan
	S     *arrow.Schema
	Parts int
	// Filter is the pushed predicate's text for EXPLAIN.
	Filter string
	Limit  int64
	// Fallback: the table reads a fallback branch (scan.fallback-branch),
	// which an explicit snapshot id would turn off.
	Fallback bool
}

func (s *ScanExec) Schema() *arrow.Schema     { return s.S }
func (s *ScanExec) Children() []exec.Operator { return nil }
func (s *ScanExec) Partitions() int           { return max(1, s.Parts) }
func (s *ScanExec) Explain() string {
	out := "Scan " + s.Name
	names := make([]string, s.S.NumFields())
	for i, f := range s.S.Fields() {
		names[i] = f.Name
	}
	out += fmt.Sprintf(" %v", names)
	if s.Filter != "" {
		out += " filter=" + s.Filter
	}
	if s.Limit >= 0 {
		out += fmt.Sprintf(" limit=%d", s.Limit)
	}
	return out + fmt.Sprintf(" splits=%d partitions=%d", s.Scan.NumSplits(), s.Partitions())
}

func (s *ScanExec) Execute(tc *exec.TaskCtx, p int) (exec.Stream, error) {
	n := s.Scan.NumSplits()
	var splits []int
	for i := p; i < n; i += s.Partitions() {
		splits = append(splits, i)
	}
	if len(splits) == 0 {
		return exec.NewSliceStream(tc, nil), nil
	}
	rdr, err := s.Scan.Read(tc.Ctx, tc.Mem, splits)
	if err != nil {
		return nil, err
	}
	return &scanStream{tc: tc, rdr: rdr, s: s.S}, nil
}

type scanStream struct {
	tc  *exec.TaskCtx
	rdr array.RecordReader
	s   *arrow.Schema
}

func (s *scanStream) Next() (arrow.RecordBatch, error) {
	if s.rdr == nil {
		return nil, nil
	}
	if err := s.tc.Err(); err != nil {
		return nil, err
	}
	for s.rdr.Next() {
		rec := s.rdr.RecordBatch()
		if rec.NumRows() == 0 {
			continue
		}
		// Our schema (names, nullability) with the reader's arrays.
		cols := rec.Columns()
		return array.NewRecordBatch(s.s, cols, rec.NumRows()), nil
	}
	if err := s.rdr.Err(); err != nil {
		return nil, err
	}
	return nil, nil
}

func (s *scanStream) Close() {
	if s.rdr != nil {
		s.rdr.Release()
		s.rdr = nil
	}
}

// MaxOneRow fails when its input has more than one row.
type MaxOneRow struct{ Input exec.Operator }

func (m *MaxOneRow) Schema() *arrow.Schema     { return m.Input.Schema() }
func (m *MaxOneRow) Children() []exec.Operator { return []exec.Operator{m.Input} }
func (m *MaxOneRow) Partitions() int           { return 1 }
func (m *MaxOneRow) Explain() string           { return "MaxOneRow" }
func (m *MaxOneRow) Execute(tc *exec.TaskCtx, _ int) (exec.Stream, error) {
	var in exec.Operator = m.Input
	if in.Partitions() > 1 {
		in = &exec.Coalesce{Input: in}
	}
	s, err := in.Execute(tc, 0)
	if err != nil {
		return nil, err
	}
	return &maxOneStream{in: s}, nil
}

type maxOneStream struct {
	in   exec.Stream
	seen int64
}

func (m *maxOneStream) Next() (arrow.RecordBatch, error) {
	b, err := m.in.Next()
	if err != nil || b == nil {
		return nil, err
	}
	m.seen += b.NumRows()
	if m.seen > 1 {
		b.Release()
		return nil, paimon.Errorf(catalog.ErrInvalid, "more than one row returned by a subquery used as an expression")
	}
	return b, nil
}

func (m *maxOneStream) Close() { m.in.Close() }

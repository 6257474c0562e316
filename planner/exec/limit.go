package exec

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
)

// Limit skips Offset rows then returns at most Fetch rows (Fetch < 0: all)
// of its input's partitions, read in partition order. It stops pulling
// (closes its input) as soon as it has Fetch rows.
type Limit struct {
	Input         Operator
	Offset, Fetch int64
}

func (l *Limit) Schema() *arrow.Schema { return l.Input.Schema() }
func (l *Limit) Children() []Operator  { return []Operator{l.Input} }
func (l *Limit) Partitions() int       { return 1 }
func (l *Limit) Explain() string {
	if l.Fetch < 0 {
		return fmt.Sprintf("Limit offset=%d", l.Offset)
	}
	return fmt.Sprintf("Limit offset=%d fetch=%d", l.Offset, l.Fetch)
}

func (l *Limit) Execute(tc *TaskCtx, p int) (Stream, error) {
	if p != 0 {
		return nil, fmt.Errorf("exec: Limit has one partition, not %d", p)
	}
	return &limitStream{tc: tc, in: l.Input, parts: l.Input.Partitions(), skip: max(l.Offset, 0), left: l.Fetch}, nil
}

// LocalLimit returns at most Fetch rows of each partition (a limit pushed
// below a Coalesce or a partitioned Sort; the final Limit still applies).
type LocalLimit struct {
	Input Operator
	Fetch int64
}

func (l *LocalLimit) Schema() *arrow.Schema { return l.Input.Schema() }
func (l *LocalLimit) Children() []Operator  { return []Operator{l.Input} }
func (l *LocalLimit) Partitions() int       { return l.Input.Partitions() }
func (l *LocalLimit) Explain() string       { return fmt.Sprintf("LocalLimit fetch=%d", l.Fetch) }

func (l *LocalLimit) Execute(tc *TaskCtx, p int) (Stream, error) {
	return &limitStream{tc: tc, in: l.Input, part: p, parts: p + 1, left: l.Fetch}, nil
}

type limitStream struct {
	tc          *TaskCtx
	in          Operator
	part, parts int // next partition to open, end
	cur         Stream
	skip, left  int64
	done        bool
}

func (s *limitStream) Next() (arrow.RecordBatch, error) {
	for {
		if s.done || s.left == 0 {
			s.Close()
			return nil, nil
		}
		if err := s.tc.Err(); err != nil {
			return nil, err
		}
		if s.cur == nil {
			if s.part >= s.parts {
				s.Close()
				return nil, nil
			}
			st, err := s.in.Execute(s.tc, s.part)
			if err != nil {
				return nil, err
			}
			s.cur = st
			s.part++
		}
		b, err := s.cur.Next()
		if err != nil {
			return nil, err
		}
		if b == nil {
			s.cur.Close()
			s.cur = nil
			continue
		}
		rows := b.NumRows()
		if s.skip >= rows {
			s.skip -= rows
			b.Release()
			continue
		}
		start, end := s.skip, rows
		s.skip = 0
		if s.left >= 0 && end-start > s.left {
			end = start + s.left
		}
		out := b
		if start != 0 || end != rows {
			out = b.NewSlice(start, end)
			b.Release()
		}
		if s.left > 0 {
			s.left -= end - start
			if s.left == 0 {
				s.Close() // stop pulling now
			}
		}
		return out, nil
	}
}

func (s *limitStream) Close() {
	s.done = true
	if s.cur != nil {
		s.cur.Close()
		s.cur = nil
	}
}

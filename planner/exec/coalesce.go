package exec

import (
	"context"
	"fmt"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/paimon-flightsql/paimon-flightsql/internal/panics"
)

// Coalesce merges every partition of its input into one stream, running
// the partitions concurrently (a goroutine each, at most two batches queued
// per partition). Order across partitions is unspecified.
type Coalesce struct {
	Input Operator
}

func (c *Coalesce) Schema() *arrow.Schema { return c.Input.Schema() }
func (c *Coalesce) Children() []Operator  { return []Operator{c.Input} }
func (c *Coalesce) Partitions() int       { return 1 }
func (c *Coalesce) Explain() string {
	return fmt.Sprintf("Coalesce partitions=%d", c.Input.Partitions())
}

func (c *Coalesce) Execute(tc *TaskCtx, p int) (Stream, error) {
	if p != 0 {
		return nil, fmt.Errorf("exec: Coalesce has one partition, not %d", p)
	}
	if c.Input.Partitions() == 1 {
		return c.Input.Execute(tc, 0)
	}
	return &coalesceStream{tc: tc, in: c.Input}, nil
}

type coalItem struct {
	b   arrow.RecordBatch
	err error
}

type coalesceStream struct {
	tc      *TaskCtx
	in      Operator
	started bool
	closed  bool
	cancel  context.CancelFunc
	ch      chan coalItem
}

func (s *coalesceStream) start() {
	s.started = true
	np := s.in.Partitions()
	ctx, cancel := context.WithCancel(s.tc.Ctx)
	s.cancel = cancel
	ctc := *s.tc
	ctc.Ctx = ctx
	s.ch = make(chan coalItem, 2*np)
	send := func(it coalItem) bool {
		select {
		case s.ch <- it:
			return true
		case <-ctx.Done():
			return false
		}
	}
	var wg sync.WaitGroup
	for p := 0; p < np; p++ {
		wg.Go(func() {
			defer func() {
				if r := recover(); r != nil {
					send(coalItem{err: panics.Recovered(fmt.Sprintf("partition %d of %s", p, s.in.Explain()), r)})
				}
			}()
			st, err := s.in.Execute(&ctc, p)
			if err != nil {
				send(coalItem{err: err})
				return
			}
			defer st.Close()
			for {
				b, err := st.Next()
				if err != nil {
					if ctx.Err() == nil {
						send(coalItem{err: err})
					}
					return
				}
				if b == nil {
					return
				}
				if !send(coalItem{b: b}) {
					b.Release()
					return
				}
			}
		})
	}
	go func() {
		wg.Wait()
		close(s.ch)
	}()
}

func (s *coalesceStream) Next() (arrow.RecordBatch, error) {
	if s.closed {
		return nil, nil
	}
	if err := s.tc.Err(); err != nil {
		return nil, err
	}
	if !s.started {
		s.start()
	}
	select {
	case it, ok := <-s.ch:
		if !ok {
			return nil, nil
		}
		if it.err != nil {
			s.cancel()
			return nil, it.err
		}
		return it.b, nil
	case <-s.tc.Ctx.Done():
		return nil, s.tc.Ctx.Err()
	}
}

// Close cancels the partitions, waits for them and releases queued batches.
func (s *coalesceStream) Close() {
	if s.closed {
		return
	}
	s.closed = true
	if !s.started {
		return
	}
	s.cancel()
	for it := range s.ch {
		if it.b != nil {
			it.b.Release()
		}
	}
}

// CoalesceBatches concatenates small batches of each partition into
// batches of at least Target rows (batches already that large pass as they
// are). Target <= 0 uses tc.BatchSize.
type CoalesceBatches struct {
	Input  Operator
	Target int
}

func (c *CoalesceBatches) Schema() *arrow.Schema { return c.Input.Schema() }
func (c *CoalesceBatches) Children() []Operator  { return []Operator{c.Input} }
func (c *CoalesceBatches) Partitions() int       { return c.Input.Partitions() }
func (c *CoalesceBatches) Explain() string       { return fmt.Sprintf("CoalesceBatches target=%d", c.Target) }

func (c *CoalesceBatches) Execute(tc *TaskCtx, p int) (Stream, error) {
	in, err := c.Input.Execute(tc, p)
	if err != nil {
		return nil, err
	}
	t := c.Target
	if t <= 0 {
		t = tc.BatchSize
	}
	return &coalesceBatchesStream{tc: tc, in: in, target: int64(max(t, 1)), schema: c.Input.Schema()}, nil
}

type coalesceBatchesStream struct {
	tc     *TaskCtx
	in     Stream
	schema *arrow.Schema
	target int64
	buf    []arrow.RecordBatch
	rows   int64
	eof    bool
}

func (s *coalesceBatchesStream) Next() (arrow.RecordBatch, error) {
	for !s.eof && s.rows < s.target {
		if err := s.tc.Err(); err != nil {
			return nil, err
		}
		b, err := s.in.Next()
		if err != nil {
			return nil, err
		}
		if b == nil {
			s.eof = true
			break
		}
		if b.NumRows() == 0 {
			b.Release()
			continue
		}
		if len(s.buf) == 0 && b.NumRows() >= s.target {
			return b, nil
		}
		s.buf = append(s.buf, b)
		s.rows += b.NumRows()
	}
	if len(s.buf) == 0 {
		return nil, nil
	}
	bs := s.buf
	s.buf, s.rows = nil, 0
	defer releaseAll(bs)
	if len(bs) == 1 {
		bs[0].Retain()
		return bs[0], nil
	}
	return concatBatches(s.tc, s.schema, bs)
}

func (s *coalesceBatchesStream) Close() {
	releaseAll(s.buf)
	s.buf = nil
	s.in.Close()
}

// concatBatches concatenates batches of schema into one.
func concatBatches(tc *TaskCtx, schema *arrow.Schema, bs []arrow.RecordBatch) (arrow.RecordBatch, error) {
	cols := make([]arrow.Array, schema.NumFields())
	parts := make([]arrow.Array, len(bs))
	rows := int64(0)
	for _, b := range bs {
		rows += b.NumRows()
	}
	for i := range cols {
		for k, b := range bs {
			parts[k] = b.Column(i)
		}
		c, err := array.Concatenate(parts, tc.Mem)
		if err != nil {
			releaseArrays(cols)
			return nil, err
		}
		cols[i] = c
	}
	out := array.NewRecordBatch(schema, cols, rows)
	releaseArrays(cols)
	return out, nil
}

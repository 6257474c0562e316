package exec

import (
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

// Distinct is SELECT DISTINCT over all columns of its input. It streams:
// each batch's rows whose key is new (a first occurrence) are emitted as
// soon as the batch is read, in input order within a partition. The input
// partitions run concurrently (through Coalesce), so the order across
// partitions is unspecified. One partition. NULLs are equal to each other,
// floats compare with -0 = +0 and NaN = NaN (KeyTable semantics). The key
// table's bytes are reserved with tc.Budget (the error names "Distinct").
type Distinct struct {
	Input Operator
}

func (d *Distinct) Schema() *arrow.Schema { return d.Input.Schema() }
func (d *Distinct) Children() []Operator  { return []Operator{d.Input} }
func (d *Distinct) Partitions() int       { return 1 }
func (d *Distinct) Explain() string       { return "Distinct" }

func (d *Distinct) Execute(tc *TaskCtx, p int) (Stream, error) {
	if p != 0 {
		return nil, fmt.Errorf("exec: Distinct has one partition, not %d", p)
	}
	s := d.Input.Schema()
	types := make([]arrow.DataType, s.NumFields())
	for i, f := range s.Fields() {
		types[i] = f.Type
	}
	in, err := (&Coalesce{Input: d.Input}).Execute(tc, 0)
	if err != nil {
		return nil, err
	}
	return &distinctStream{tc: tc, ec: tc.EvalCtx(), in: in, kt: NewKeyTable(types), schema: s}, nil
}

type distinctStream struct {
	tc   *TaskCtx
	ec   *vec.Ctx
	in   Stream
	kt   KeyTable
	gids []int32
	idx  []int32
	held int64
	done bool

	// Spilling (distinct_spill.go).
	schema *arrow.Schema
	depth  int
	part   *spillPartitioner // set once the table is frozen
	sub    Stream            // the runs' DISTINCTs, after the input
}

func (s *distinctStream) Next() (arrow.RecordBatch, error) {
	for !s.done {
		if err := s.tc.Err(); err != nil {
			return nil, err
		}
		b, err := s.in.Next()
		if err != nil {
			return nil, err
		}
		if b == nil {
			s.done = true
			if s.part != nil {
				if err := s.finishSpill(); err != nil {
					return nil, err
				}
			}
			break
		}
		if s.part != nil {
			if err := s.spillBatch(b); err != nil {
				return nil, err
			}
			continue
		}
		out, err := s.batch(b)
		if err != nil || out != nil {
			return out, err
		}
	}
	if s.sub != nil {
		return s.sub.Next()
	}
	return nil, nil
}

// batch returns the first occurrences of b (nil when none); it takes b.
func (s *distinctStream) batch(b arrow.RecordBatch) (arrow.RecordBatch, error) {
	n := int(b.NumRows())
	if n == 0 {
		b.Release()
		return nil, nil
	}
	before := int32(s.kt.Len())
	s.gids = ktResize(s.gids, n)
	if err := s.kt.Insert(b.Columns(), s.gids); err != nil {
		b.Release()
		return nil, err
	}
	if now := s.kt.Bytes() + 4*int64(cap(s.gids)+cap(s.idx)); now > s.held {
		if err := s.tc.Budget.Reserve("Distinct", now-s.held); err != nil {
			if !s.startSpill(err) {
				b.Release()
				return nil, err
			}
			// Frozen: this batch's new keys are in the table (unreserved).
		} else {
			s.held = now
		}
	}
	var out arrow.RecordBatch
	var err error
	out, s.idx, err = firstSeen(s.ec, b, s.gids[:n], before, s.idx)
	return out, err
}

// firstSeen returns the rows of b whose key was new (nil when none), with
// -0.0 made 0.0: a key table gives new ids in row order, so row r is a
// first occurrence when its id (gids[r]) is the next new one after
// before. It takes b; idx is scratch space, returned for reuse.
func firstSeen(ec *vec.Ctx, b arrow.RecordBatch, gids []int32, before int32, idx []int32) (arrow.RecordBatch, []int32, error) {
	idx = idx[:0]
	next := before
	for r, g := range gids {
		if g == next {
			idx = append(idx, int32(r))
			next++
		}
	}
	switch len(idx) {
	case int(b.NumRows()):
		out, err := canonZeros(ec, b)
		return out, idx, err
	case 0:
		b.Release()
		return nil, idx, nil
	}
	out, err := TakeBatch(ec, b, idx)
	b.Release()
	if err != nil {
		return nil, idx, err
	}
	out, err = canonZeros(ec, out)
	return out, idx, err
}

// canonZeros turns -0.0 into 0.0 in float columns (they are one DISTINCT
// value; which one a partition met first must not show in the result).
// It takes ownership of b.
func canonZeros(ec *vec.Ctx, b arrow.RecordBatch) (arrow.RecordBatch, error) {
	var cols []arrow.Array
	for i, c := range b.Columns() {
		f, ok := c.(*array.Float64)
		if !ok {
			continue
		}
		neg := false
		for _, v := range f.Float64Values() {
			if v == 0 && math.Signbit(v) {
				neg = true
				break
			}
		}
		if !neg {
			continue
		}
		if cols == nil {
			cols = append([]arrow.Array(nil), b.Columns()...)
		}
		fb := array.NewFloat64Builder(ec.Mem)
		fb.Reserve(f.Len())
		for r := 0; r < f.Len(); r++ {
			if f.IsNull(r) {
				fb.AppendNull()
				continue
			}
			v := f.Value(r)
			if v == 0 {
				v = 0
			}
			fb.UnsafeAppend(v)
		}
		cols[i] = fb.NewArray()
		fb.Release()
		defer cols[i].Release()
	}
	if cols == nil {
		return b, nil
	}
	out := array.NewRecordBatch(b.Schema(), cols, b.NumRows())
	b.Release()
	return out, nil
}

func (s *distinctStream) Close() {
	if s.in != nil {
		s.in.Close()
		s.in = nil
	}
	s.done = true
	if s.part != nil {
		s.part.abort()
		s.part = nil
	}
	if s.sub != nil {
		s.sub.Close()
		s.sub = nil
	}
	s.kt = NewKeyTable(nil)
	s.tc.Budget.Free(s.held)
	s.held = 0
}

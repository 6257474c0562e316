package exec

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
)

// SetOp is INTERSECT [ALL] / EXCEPT [ALL] with SQL's bag semantics, rows
// comparing whole (NULL equals NULL here). A row occurring l times in
// Left and r times in Right occurs: INTERSECT 1 time if l > 0 and r > 0;
// INTERSECT ALL min(l, r) times; EXCEPT 1 time if l > 0 and r = 0; EXCEPT
// ALL max(l-r, 0) times.
//
// Execution: one partition; every Left partition is inserted into a
// KeyTable counting each distinct row, every Right partition looked up in
// it; the table and counts are reserved with tc.Budget as "SetOp". Output
// order: distinct rows in their first-seen order in Left (a row's copies
// together), batches of at most tc.BatchSize rows. The schema is Left's
// (for INTERSECT a field is nullable only when it is on both sides); Right
// must have the same column types.
type SetOp struct {
	Left, Right Operator
	Op          string // "INTERSECT" or "EXCEPT"
	All         bool

	once   sync.Once
	schema *arrow.Schema
	except bool
	err    error
}

// NewSetOp validates the operation and computes its schema.
func NewSetOp(left, right Operator, op string, all bool) (*SetOp, error) {
	s := &SetOp{Left: left, Right: right, Op: op, All: all}
	if _, err := s.prepare(); err != nil {
		return nil, err
	}
	return s, nil
}

func (o *SetOp) prepare() (*arrow.Schema, error) {
	o.once.Do(func() { o.schema, o.err = o.validate() })
	return o.schema, o.err
}

func (o *SetOp) validate() (*arrow.Schema, error) {
	switch strings.ToUpper(o.Op) {
	case "INTERSECT":
	case "EXCEPT":
		o.except = true
	default:
		return nil, fmt.Errorf("exec: SetOp %q is not INTERSECT or EXCEPT", o.Op)
	}
	if o.Left == nil || o.Right == nil || o.Left.Schema() == nil || o.Right.Schema() == nil {
		return nil, fmt.Errorf("exec: %s needs two inputs with schemas", o.Op)
	}
	ls, rs := o.Left.Schema(), o.Right.Schema()
	if ls.NumFields() != rs.NumFields() {
		return nil, fmt.Errorf("exec: %s inputs have %d and %d columns", o.Op, ls.NumFields(), rs.NumFields())
	}
	fs := append([]arrow.Field{}, ls.Fields()...)
	for i, f := range rs.Fields() {
		if !arrow.TypeEqual(f.Type, fs[i].Type) {
			return nil, fmt.Errorf("exec: %s column %d: %s is %s on the left, %s on the right", o.Op, i+1, fs[i].Name, fs[i].Type, f.Type)
		}
		if !o.except {
			fs[i].Nullable = fs[i].Nullable && f.Nullable
		}
	}
	return arrow.NewSchema(fs, nil), nil
}

func (o *SetOp) Schema() *arrow.Schema {
	s, err := o.prepare()
	if err != nil {
		return arrow.NewSchema(nil, nil)
	}
	return s
}

func (o *SetOp) Children() []Operator { return []Operator{o.Left, o.Right} }
func (o *SetOp) Partitions() int      { return 1 }

func (o *SetOp) Explain() string {
	s := "SetOp " + strings.ToUpper(o.Op)
	if o.All {
		s += " ALL"
	}
	return s
}

func (o *SetOp) Execute(tc *TaskCtx, p int) (Stream, error) {
	s, err := o.prepare()
	if err != nil {
		return nil, err
	}
	if p != 0 {
		return nil, fmt.Errorf("exec: SetOp has 1 partition, not partition %d", p)
	}
	return &setOpStream{o: o, tc: tc, s: s, cctx: compute.WithAllocator(tc.Ctx, tc.Mem)}, nil
}

type setOpStream struct {
	o    *SetOp
	tc   *TaskCtx
	s    *arrow.Schema
	cctx context.Context
	err  error

	started  bool
	done     bool
	held     int64
	table    KeyTable
	countL   []int64
	countR   []int64
	keys     []arrow.Array
	g        int   // next distinct row
	left     int64 // copies of row g still to emit
	idx      []int32
	gidsBuf  []int32
	openPart Stream
}

func (s *setOpStream) Next() (arrow.RecordBatch, error) {
	if s.err != nil {
		return nil, s.err
	}
	out, err := s.next()
	if err != nil {
		s.err = err
		s.release()
	}
	return out, err
}

func (s *setOpStream) next() (arrow.RecordBatch, error) {
	if s.done {
		return nil, nil
	}
	if err := s.tc.Err(); err != nil {
		return nil, err
	}
	if !s.started {
		s.started = true
		if err := s.run(); err != nil {
			return nil, err
		}
	}
	bs := s.tc.BatchSize
	if bs <= 0 {
		bs = 4096
	}
	idx := s.idx[:0]
	for len(idx) < bs && s.g < len(s.countL) {
		if s.left == 0 {
			s.left = s.copies(s.g)
		}
		k := min(s.left, int64(bs-len(idx)))
		for j := int64(0); j < k; j++ {
			idx = append(idx, int32(s.g))
		}
		s.left -= k
		if s.left == 0 {
			s.g++
		}
	}
	s.idx = idx
	if len(idx) == 0 {
		s.done = true
		s.release()
		return nil, nil
	}
	cols := make([]arrow.Array, len(s.keys))
	for j, k := range s.keys {
		a, err := joinTake(s.cctx, s.tc, k, idx)
		if err != nil {
			for _, x := range cols[:j] {
				x.Release()
			}
			return nil, err
		}
		cols[j] = a
	}
	out := array.NewRecordBatch(s.s, cols, int64(len(idx)))
	for _, a := range cols {
		a.Release()
	}
	return out, nil
}

// copies is how many times distinct row g is in the result.
func (s *setOpStream) copies(g int) int64 {
	l, r := s.countL[g], s.countR[g]
	switch {
	case !s.o.except && s.o.All:
		return min(l, r)
	case !s.o.except:
		if l > 0 && r > 0 {
			return 1
		}
	case s.o.All:
		return max(l-r, 0)
	default:
		if l > 0 && r == 0 {
			return 1
		}
	}
	return 0
}

// run counts the rows of both sides and extracts the distinct rows.
func (s *setOpStream) run() error {
	ls := s.o.Left.Schema()
	types := make([]arrow.DataType, ls.NumFields())
	for i, f := range ls.Fields() {
		types[i] = f.Type
	}
	s.table = NewKeyTable(types)
	err := s.scan(s.o.Left, ls, func(gids []int32) {
		if n := s.table.Len(); n > len(s.countL) {
			s.countL = append(s.countL, make([]int64, n-len(s.countL))...)
		}
		for _, g := range gids {
			s.countL[g]++
		}
	}, true)
	if err != nil {
		return err
	}
	s.countR = make([]int64, len(s.countL))
	if err := s.account(); err != nil {
		return err
	}
	err = s.scan(s.o.Right, s.o.Right.Schema(), func(gids []int32) {
		for _, g := range gids {
			if g >= 0 {
				s.countR[g]++
			}
		}
	}, false)
	if err != nil {
		return err
	}
	keys, err := s.table.Keys(s.tc.Mem)
	if err != nil {
		return err
	}
	s.keys = keys
	if len(keys) != len(types) {
		return fmt.Errorf("exec: SetOp: key table returned %d columns for %d", len(keys), len(types))
	}
	for _, k := range keys {
		if k.Len() != len(s.countL) {
			return fmt.Errorf("exec: SetOp: key table returned %d keys for %d", k.Len(), len(s.countL))
		}
		if err := s.reserve(joinArrayBytes(k.Data())); err != nil {
			return err
		}
	}
	return nil
}

// scan feeds every batch of every partition of op to the table (insert or
// lookup), then fn with the ids.
func (s *setOpStream) scan(op Operator, want *arrow.Schema, fn func([]int32), insert bool) error {
	for p := 0; p < max(1, op.Partitions()); p++ {
		st, err := op.Execute(s.tc, p)
		if err != nil {
			return err
		}
		s.openPart = st
		for {
			if err := s.tc.Err(); err != nil {
				return err
			}
			b, err := st.Next()
			if err != nil {
				return err
			}
			if b == nil {
				break
			}
			if err := joinCheckBatch(want, b); err != nil {
				b.Release()
				return fmt.Errorf("exec: SetOp: %w", err)
			}
			gids := joinResize(s.gidsBuf, int(b.NumRows()))
			s.gidsBuf = gids
			if insert {
				err = s.table.Insert(b.Columns(), gids)
			} else {
				err = s.table.Lookup(b.Columns(), gids)
			}
			b.Release()
			if err != nil {
				return err
			}
			fn(gids)
			if insert {
				if err := s.account(); err != nil {
					return err
				}
			}
		}
		st.Close()
		s.openPart = nil
	}
	return nil
}

// account reserves the table's and counts' growth.
func (s *setOpStream) account() error {
	n := s.table.Bytes() + 8*int64(cap(s.countL)+cap(s.countR))
	if n > s.held {
		if err := s.reserve(n - s.held); err != nil {
			return err
		}
	}
	return nil
}

func (s *setOpStream) reserve(n int64) error {
	if err := s.tc.Budget.Reserve("SetOp", n); err != nil {
		return err
	}
	s.held += n
	return nil
}

func (s *setOpStream) release() {
	if s.openPart != nil {
		s.openPart.Close()
		s.openPart = nil
	}
	for _, k := range s.keys {
		k.Release()
	}
	s.keys = nil
	s.table, s.countL, s.countR = nil, nil, nil
	s.g = 0
	s.tc.Budget.Free(s.held)
	s.held = 0
}

func (s *setOpStream) Close() {
	s.done = true
	s.release()
}

package exec

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

// GenKind is what a Generator produces for one input row.
type GenKind uint8

const (
	// GenUnnest: the elements of a LIST (none for a NULL or empty list).
	GenUnnest GenKind = iota
	// GenRange: start, start+step, ... while < stop (> stop for a negative
	// step); BIGINT, or TIMESTAMP with an INTERVAL step.
	GenRange
	// GenSeries: as GenRange with stop included (generate_series).
	GenSeries
)

// Generator is one set-returning expression of an Unnest: the values it
// produces for each input row become rows.
type Generator struct {
	Kind GenKind
	// Args: GenUnnest one LIST expression; GenRange/GenSeries start, stop
	// and step (the binder fills the defaults), all BIGINT, or TIMESTAMP,
	// TIMESTAMP and INTERVAL.
	Args []vec.Expr
	Name string         // output column name
	T    arrow.DataType // output type
}

func (g Generator) String() string {
	fn := "unnest"
	switch g.Kind {
	case GenRange:
		fn = "range"
	case GenSeries:
		fn = "generate_series"
	}
	parts := make([]string, len(g.Args))
	for i, a := range g.Args {
		parts[i] = a.String()
	}
	return fmt.Sprintf("%s(%s) AS %s", fn, strings.Join(parts, ", "), g.Name)
}

// Unnest expands each input row into the rows its generators produce
// (PostgreSQL's ProjectSet, DuckDB's UNNEST / table-function operators):
// the output is the input's columns, repeated, followed by one column per
// generator. Generators are zipped: a row yields as many rows as its
// longest generator, the shorter ones padded with NULLs; a row where every
// generator is empty (NULL list, empty list, empty range) yields none.
// Output streams in batches of TaskCtx.BatchSize rows, so a huge range
// never materializes.
type Unnest struct {
	Input Operator
	Gens  []Generator
	S     *arrow.Schema
	// Outer makes it a LEFT JOIN of each input row with its generated
	// rows on On (over the output schema; nil = TRUE): generated rows
	// where On is not TRUE are dropped, and an input row left with none
	// yields one row with NULL generator columns (FROM t LEFT JOIN
	// unnest(t.l) ON ...).
	Outer bool
	On    vec.Expr
}

// NewUnnest builds the output schema: the input's fields, then one
// nullable field per generator.
func NewUnnest(in Operator, gens []Generator) *Unnest {
	fs := append([]arrow.Field{}, in.Schema().Fields()...)
	for _, g := range gens {
		fs = append(fs, arrow.Field{Name: g.Name, Type: g.T, Nullable: true})
	}
	return &Unnest{Input: in, Gens: gens, S: arrow.NewSchema(fs, nil)}
}

func (u *Unnest) Schema() *arrow.Schema { return u.S }
func (u *Unnest) Children() []Operator  { return []Operator{u.Input} }
func (u *Unnest) Partitions() int       { return u.Input.Partitions() }
func (u *Unnest) Explain() string {
	parts := make([]string, len(u.Gens))
	for i, g := range u.Gens {
		parts[i] = g.String()
	}
	out := "Unnest " + strings.Join(parts, ", ")
	if u.Outer {
		out += " left"
		if u.On != nil {
			out += " on " + u.On.String()
		}
	}
	return out
}

func (u *Unnest) Execute(tc *TaskCtx, p int) (Stream, error) {
	for _, g := range u.Gens {
		want := 1
		if g.Kind != GenUnnest {
			want = 3
		}
		if len(g.Args) != want {
			return nil, fmt.Errorf("exec: %s has %d arguments, want %d", g, len(g.Args), want)
		}
	}
	in, err := u.Input.Execute(tc, p)
	if err != nil {
		return nil, err
	}
	return &unnestStream{tc: tc, ec: tc.EvalCtx(), in: in, op: u, st: make([]genState, len(u.Gens))}, nil
}

// genState is one generator's position within the current input row.
type genState struct {
	done bool
	// GenUnnest: the next and the end index into the list's values.
	pos, end int64
	// ranges: the next value, the bound, the step; ts: TIMESTAMP values
	// stepped by ival.
	cur, stop, step int64
	incl, ts        bool
	neg             bool // the step goes down
	ival            arrow.MonthDayNanoInterval
	unit            arrow.TimeUnit
}

type unnestStream struct {
	tc   *TaskCtx
	ec   *vec.Ctx
	in   Stream
	op   *Unnest
	cur  arrow.RecordBatch // input batch being expanded (nil: fetch one)
	args [][]arrow.Array   // each generator's arguments over cur
	row  int               // the input row being expanded
	live bool              // row's generators are initialised
	// matched (Outer): a candidate of the live row passed On in an
	// earlier output batch
	matched bool
	st      []genState
	eof     bool
}

func (s *unnestStream) releaseCur() {
	for _, as := range s.args {
		for _, a := range as {
			a.Release()
		}
	}
	s.args = nil
	if s.cur != nil {
		s.cur.Release()
		s.cur = nil
	}
}

// load fetches the next non-empty input batch and evaluates the
// generators' arguments over it; false at the end of the input.
func (s *unnestStream) load() (bool, error) {
	s.releaseCur()
	for {
		b, err := s.in.Next()
		if err != nil || b == nil {
			return false, err
		}
		if b.NumRows() == 0 {
			b.Release()
			continue
		}
		s.cur, s.row, s.live = b, 0, false
		s.args = make([][]arrow.Array, len(s.op.Gens))
		for i, g := range s.op.Gens {
			for _, e := range g.Args {
				a, err := e.Eval(s.ec, b)
				if err != nil {
					return false, err
				}
				s.args[i] = append(s.args[i], a)
			}
		}
		return true, nil
	}
}

// start initialises every generator for input row r.
func (s *unnestStream) start(r int) error {
	for i, g := range s.op.Gens {
		st := &s.st[i]
		*st = genState{}
		as := s.args[i]
		if g.Kind == GenUnnest {
			l, ok := as[0].(*array.List)
			if !ok {
				if as[0].DataType().ID() == arrow.NULL {
					st.done = true
					continue
				}
				return fmt.Errorf("exec: UNNEST of %s, not a LIST", vec.TypeName(as[0].DataType()))
			}
			if l.IsNull(r) {
				st.done = true
				continue
			}
			st.pos, st.end = l.ValueOffsets(r)
			st.done = st.pos >= st.end
			continue
		}
		st.incl = g.Kind == GenSeries
		if as[0].IsNull(r) || as[1].IsNull(r) || as[2].IsNull(r) {
			st.done = true
			continue
		}
		switch a := as[0].(type) {
		case *array.Int64:
			st.cur, st.stop = a.Value(r), as[1].(*array.Int64).Value(r)
			st.step = as[2].(*array.Int64).Value(r)
			if st.step == 0 {
				return paimon.Errorf(catalog.ErrInvalid, "%s: the step cannot be 0", g.fnName())
			}
			st.neg = st.step < 0
		case *array.Timestamp:
			st.ts = true
			st.unit = a.DataType().(*arrow.TimestampType).Unit
			st.cur, st.stop = int64(a.Value(r)), int64(as[1].(*array.Timestamp).Value(r))
			st.ival = as[2].(*array.MonthDayNanoInterval).Value(r)
			iv := st.ival
			switch {
			case iv.Months == 0 && iv.Days == 0 && iv.Nanoseconds == 0:
				return paimon.Errorf(catalog.ErrInvalid, "%s: the step interval cannot be 0", g.fnName())
			case iv.Months >= 0 && iv.Days >= 0 && iv.Nanoseconds >= 0:
			case iv.Months <= 0 && iv.Days <= 0 && iv.Nanoseconds <= 0:
				st.neg = true
			default:
				return paimon.Errorf(catalog.ErrUnsupported, "%s: a step interval mixing positive and negative parts", g.fnName())
			}
		default:
			return fmt.Errorf("exec: %s over %s", g.fnName(), vec.TypeName(as[0].DataType()))
		}
		st.done = !st.inRange()
	}
	return nil
}

func (g Generator) fnName() string {
	if g.Kind == GenSeries {
		return "generate_series"
	}
	return "range"
}

// inRange reports whether cur has not passed stop.
func (st *genState) inRange() bool {
	switch {
	case st.neg && st.incl:
		return st.cur >= st.stop
	case st.neg:
		return st.cur > st.stop
	case st.incl:
		return st.cur <= st.stop
	}
	return st.cur < st.stop
}

// advance moves a range past its current value (done on overflow).
func (st *genState) advance() {
	var next int64
	ok := true
	if st.ts {
		next, ok = vec.TimestampPlus(st.cur, st.ival, st.unit)
	} else {
		next = st.cur + st.step
		ok = (next > st.cur) == (st.step > 0)
	}
	if !ok {
		st.done = true
		return
	}
	st.cur = next
	st.done = !st.inRange()
}

func (s *unnestStream) Next() (arrow.RecordBatch, error) {
	for {
		if err := s.tc.Err(); err != nil {
			return nil, err
		}
		if s.eof {
			return nil, nil
		}
		if s.cur == nil {
			ok, err := s.load()
			if err != nil {
				return nil, err
			}
			if !ok {
				s.eof = true
				return nil, nil
			}
		}
		out, err := s.fill()
		if err != nil || out != nil {
			return out, err
		}
		// the batch produced no rows: next input batch
		s.releaseCur()
	}
}

// fill builds the next output batch from the current input batch; nil
// when the batch is exhausted without producing a row.
func (s *unnestStream) fill() (arrow.RecordBatch, error) {
	n := int(s.cur.NumRows())
	for {
		out, err := s.fillOnce(n)
		if err != nil || out != nil || s.row >= n {
			return out, err
		}
		// Outer: every candidate of this round failed ON; go on
	}
}

// fillOnce expands rows of the current input batch into at most
// BatchSize candidate rows and returns them (Outer: those passing On, and
// a NULL-padded row for each input row that ended with none); nil when
// there are none.
func (s *unnestStream) fillOnce(n int) (arrow.RecordBatch, error) {
	size := s.tc.BatchSize
	if size <= 0 {
		size = 4096
	}
	gens := s.op.Gens
	carryRow, carry := -1, false // the row live from an earlier round, matched there
	if s.live {
		carryRow, carry = s.row, s.matched
	}
	var rows, ended []int32
	vals := make([][]int64, len(gens)) // unnest: value index; ranges: the value
	valid := make([][]bool, len(gens)) // false: padding NULL
	for len(rows) < size && s.row < n {
		if !s.live {
			if err := s.start(s.row); err != nil {
				return nil, err
			}
			s.live = true
		}
		any := false
		for i := range s.st {
			any = any || !s.st[i].done
		}
		if !any {
			ended = append(ended, int32(s.row))
			s.row++
			s.live = false
			continue
		}
		rows = append(rows, int32(s.row))
		for i := range s.st {
			st := &s.st[i]
			if st.done {
				vals[i] = append(vals[i], 0)
				valid[i] = append(valid[i], false)
				continue
			}
			valid[i] = append(valid[i], true)
			if gens[i].Kind == GenUnnest {
				vals[i] = append(vals[i], st.pos)
				st.pos++
				st.done = st.pos >= st.end
				continue
			}
			vals[i] = append(vals[i], st.cur)
			st.advance()
		}
	}
	if s.row >= n {
		// the input batch is used up: the next call loads another
		defer s.releaseCur()
	}
	if !s.op.Outer {
		if len(rows) == 0 {
			return nil, nil
		}
		return s.build(rows, vals, valid)
	}
	if len(rows) == 0 && len(ended) == 0 {
		return nil, nil
	}
	return s.outer(rows, vals, valid, ended, carryRow, carry)
}

// outer keeps the candidates passing On and adds a NULL-padded row for
// each ended input row none of whose candidates passed.
func (s *unnestStream) outer(rows []int32, vals [][]int64, valid [][]bool, ended []int32, carryRow int, carry bool) (arrow.RecordBatch, error) {
	cand, err := s.build(rows, vals, valid)
	if err != nil {
		return nil, err
	}
	defer cand.Release()
	var keep []int32 // candidate indexes, -1 for a NULL-padded row
	var keepRows []int32
	matched := map[int32]bool{}
	if len(rows) > 0 && s.op.On != nil {
		m, err := s.op.On.Eval(s.ec, cand)
		if err != nil {
			return nil, err
		}
		mask, ok := m.(*array.Boolean)
		if !ok {
			m.Release()
			return nil, fmt.Errorf("exec: ON %s is %s, not BOOLEAN", s.op.On, m.DataType())
		}
		for i := range rows {
			if mask.IsValid(i) && mask.Value(i) {
				keep, keepRows = append(keep, int32(i)), append(keepRows, rows[i])
				matched[rows[i]] = true
			}
		}
		m.Release()
	} else {
		for i := range rows {
			keep, keepRows = append(keep, int32(i)), append(keepRows, rows[i])
			matched[rows[i]] = true
		}
	}
	for _, r := range ended {
		if !matched[r] && !(int(r) == carryRow && carry) {
			keep, keepRows = append(keep, -1), append(keepRows, r)
		}
	}
	if s.live {
		s.matched = matched[int32(s.row)] || s.row == carryRow && carry
	} else {
		s.matched = false
	}
	if len(keep) == 0 {
		return nil, nil
	}
	cctx := compute.WithAllocator(s.tc.Ctx, s.tc.Mem)
	nin := int(s.cur.NumCols())
	cols := make([]arrow.Array, 0, len(s.op.S.Fields()))
	for c := 0; c < len(s.op.S.Fields()); c++ {
		var a arrow.Array
		if c < nin {
			a, err = joinTake(cctx, s.tc, s.cur.Column(c), keepRows)
		} else {
			a, err = joinTake(cctx, s.tc, cand.Column(c), keep)
		}
		if err != nil {
			for _, x := range cols {
				x.Release()
			}
			return nil, err
		}
		cols = append(cols, a)
	}
	out := array.NewRecordBatch(s.op.S, cols, int64(len(keep)))
	for _, c := range cols {
		c.Release()
	}
	return out, nil
}

func (s *unnestStream) build(rows []int32, vals [][]int64, valid [][]bool) (arrow.RecordBatch, error) {
	cctx := compute.WithAllocator(s.tc.Ctx, s.tc.Mem)
	cols := make([]arrow.Array, 0, len(s.op.S.Fields()))
	fail := func(err error) (arrow.RecordBatch, error) {
		for _, c := range cols {
			c.Release()
		}
		return nil, err
	}
	for c := 0; c < int(s.cur.NumCols()); c++ {
		a, err := joinTake(cctx, s.tc, s.cur.Column(c), rows)
		if err != nil {
			return fail(err)
		}
		cols = append(cols, a)
	}
	for i, g := range s.op.Gens {
		switch {
		case g.Kind == GenUnnest:
			idx := make([]int32, len(rows))
			var child arrow.Array
			if l, ok := s.args[i][0].(*array.List); ok {
				child = l.ListValues()
			}
			for k, v := range vals[i] {
				idx[k] = -1
				if valid[i][k] {
					idx[k] = int32(v)
				}
			}
			if child == nil {
				cols = append(cols, array.MakeArrayOfNull(s.tc.Mem, g.T, len(rows)))
				continue
			}
			a, err := joinTake(cctx, s.tc, child, idx)
			if err != nil {
				return fail(err)
			}
			cols = append(cols, a)
		case g.T.ID() == arrow.TIMESTAMP:
			bld := array.NewTimestampBuilder(s.tc.Mem, g.T.(*arrow.TimestampType))
			bld.Reserve(len(rows))
			for k, v := range vals[i] {
				if valid[i][k] {
					bld.UnsafeAppend(arrow.Timestamp(v))
				} else {
					bld.UnsafeAppendBoolToBitmap(false)
				}
			}
			cols = append(cols, bld.NewArray())
			bld.Release()
		default:
			bld := array.NewInt64Builder(s.tc.Mem)
			bld.AppendValues(vals[i], valid[i])
			cols = append(cols, bld.NewArray())
			bld.Release()
		}
	}
	out := array.NewRecordBatch(s.op.S, cols, int64(len(rows)))
	for _, c := range cols {
		c.Release()
	}
	return out, nil
}

func (s *unnestStream) Close() {
	s.releaseCur()
	if s.in != nil {
		s.in.Close()
		s.in = nil
	}
}

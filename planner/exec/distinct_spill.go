package exec

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

// Spilling DISTINCT (tc.Spill set): when the key table goes over the
// budget it is frozen — the batch that overflowed is still deduplicated
// against it — and from then on a row whose key is in the table is
// dropped (its first occurrence was emitted) while a row whose key is not
// is written to a spill run chosen by a hash of the row. No key of a run
// was emitted before (the table no longer grows), and equal rows share a
// run, so once the input ends the table is freed and each run goes through
// a DISTINCT of its own (spilling again, with other hash bits, if needed).

// startSpill freezes the table on err; false when it cannot spill.
func (s *distinctStream) startSpill(err error) bool {
	if !s.tc.canSpill(err) {
		return false
	}
	p, perr := newSpillPartitioner(s.tc, "distinct", s.schema, s.keyExprs(), s.depth)
	if perr != nil {
		return false
	}
	s.part = p
	return true
}

// spillBatch drops b's rows already seen and spills the others; it takes b.
func (s *distinctStream) spillBatch(b arrow.RecordBatch) error {
	defer b.Release()
	n := int(b.NumRows())
	s.gids = ktResize(s.gids, n)
	if err := s.kt.Lookup(b.Columns(), s.gids); err != nil {
		return err
	}
	s.idx = s.idx[:0]
	for r, g := range s.gids {
		if g < 0 {
			s.idx = append(s.idx, int32(r))
		}
	}
	if len(s.idx) == 0 {
		return nil
	}
	if len(s.idx) == n {
		return s.part.add(s.ec, b, nil)
	}
	return s.part.add(s.ec, b, s.idx)
}

// finishSpill frees the table and starts the runs' DISTINCTs.
func (s *distinctStream) finishSpill() error {
	p := s.part
	s.part = nil
	s.kt = NewKeyTable(nil)
	s.tc.Budget.Free(s.held)
	s.held = 0
	runs, err := p.finish()
	if err != nil {
		return err
	}
	tc, schema, depth := s.tc, s.schema, s.depth
	s.sub = &spillConcat{tc: tc, parts: singleRuns(runs), mk: func(rs []*SpillRun) (Stream, error) {
		in := &runScanStream{tc: tc, runs: rs}
		return &distinctStream{tc: tc, ec: tc.EvalCtx(), in: in, kt: NewKeyTable(fieldTypes(schema)), schema: schema, depth: depth + 1}, nil
	}}
	return nil
}

func fieldTypes(s *arrow.Schema) []arrow.DataType {
	types := make([]arrow.DataType, s.NumFields())
	for i, f := range s.Fields() {
		types[i] = f.Type
	}
	return types
}

// keyExprs are the columns of the input (DISTINCT keys on all of them).
func (s *distinctStream) keyExprs() []vec.Expr {
	out := make([]vec.Expr, s.schema.NumFields())
	for i, f := range s.schema.Fields() {
		out[i] = &vec.Column{Index: i, Name: f.Name, T: f.Type, Null: f.Nullable}
	}
	return out
}

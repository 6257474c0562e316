package exec

import (
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
)

// Spilling aggregation (tc.Spill set): when the in-memory aggregation goes
// over the budget, its state is dropped and the input is executed again,
// its rows written to spillFanout runs by a hash of the group key; each run
// is then aggregated on its own by a HashAggregate over it (which spills
// again, with other hash bits, when a run is still too large). A group's
// rows all land in one run, so the runs' results are the result. Grouping
// sets and aggregates without GROUP BY (one group) do not spill.
//
// Reading the input twice costs a second scan (only when the budget is
// exceeded); inputs are deterministic reads of a snapshot, so both passes
// see the same rows.

// spillAfter answers err from the in-memory run: nil when the aggregation
// now streams from spill runs (s.sub), else the error to report.
func (s *aggStream) spillAfter(err error) error {
	h, tc := s.h, s.tc
	if !tc.canSpill(err) || h.GroupingSets != nil || len(h.Groups) == 0 {
		return err
	}
	if e := tc.Err(); e != nil {
		return e
	}
	p, perr := newSpillPartitioner(tc, "aggregate", h.Input.Schema(), h.Groups, s.depth)
	if perr != nil {
		if errors.Is(perr, ErrResourceExhausted) {
			return fmt.Errorf("%w (%v)", perr, err)
		}
		return err
	}
	err = runPartitions(tc, h.Input, func(tc *TaskCtx, _ int, st Stream) error {
		ec := tc.EvalCtx()
		return drain(st, func(b arrow.RecordBatch) error {
			if err := tc.Err(); err != nil {
				return err
			}
			return p.add(ec, b, nil)
		})
	})
	if err != nil {
		p.abort()
		return err
	}
	runs, err := p.finish()
	if err != nil {
		return err
	}
	schema := h.Input.Schema()
	s.sub = &spillConcat{tc: tc, parts: singleRuns(runs), mk: func(rs []*SpillRun) (Stream, error) {
		sh, err := NewHashAggregate(&runScan{schema: schema, runs: rs}, h.Groups, h.GroupNames, h.Aggs, nil)
		if err != nil {
			return nil, err
		}
		return &aggStream{tc: tc, h: sh, depth: s.depth + 1}, nil
	}}
	return nil
}

package physical

import (
	"context"
	"fmt"

	"github.com/paimon-flightsql/paimon-flightsql/planner/exec"
	"github.com/paimon-flightsql/paimon-flightsql/planner/logical"
)

// recursive lowers a WITH RECURSIVE query: its Step's WorkTable nodes
// become WorkScans of the RecursiveUnion's working table (a node lowered
// twice gets two independent working tables).
func (p *Planner) recursive(ctx context.Context, x *logical.RecursiveCTE) (exec.Operator, error) {
	wt := &exec.WorkTable{Name: x.Name, S: x.S.Arrow()}
	anchor, err := p.plan(ctx, x.Anchor)
	if err != nil {
		return nil, err
	}
	if p.work == nil {
		p.work = map[int]*exec.WorkTable{}
	}
	prev, had := p.work[x.Work.ID]
	p.work[x.Work.ID] = wt
	step, err := p.plan(ctx, x.Step)
	if had {
		p.work[x.Work.ID] = prev
	} else {
		delete(p.work, x.Work.ID)
	}
	if err != nil {
		return nil, err
	}
	return &exec.RecursiveUnion{Name: x.Name, Anchor: anchor, Step: step, Work: wt, Distinct: x.Distinct, MaxIterations: p.MaxRecursion}, nil
}

func (p *Planner) workTable(x *logical.WorkTable) (exec.Operator, error) {
	wt := p.work[x.ID]
	if wt == nil {
		return nil, fmt.Errorf("physical: the working table of WITH RECURSIVE %s outside its recursive query", x.Name)
	}
	return &exec.WorkScan{Work: wt}, nil
}

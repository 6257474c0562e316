package physical

import (
	"context"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/scalar"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
	"github.com/paimon-flightsql/paimon-flightsql/planner/exec"
	"github.com/paimon-flightsql/paimon-flightsql/planner/logical"
	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

// Planner lowers logical plans.
type Planner struct {
	// Concurrency caps the partitions of a scan.
	Concurrency int
	// Scans are the planned catalog scans, in plan order (EXPLAIN, metrics).
	Scans []*ScanExec
	// Analyze wraps every operator in a Counted (EXPLAIN ANALYZE).
	Analyze bool
	// Splits, when set, gives the splits planned earlier for a scan (nil:
	// plan it): scans are then opened, not planned (a ticket's splits).
	Splits func(x *logical.Scan, req catalog.ScanRequest) ([]catalog.Split, error)
	// ScanBatchBytes, when > 0, bounds the estimated bytes of one scan
	// batch (the scan's batch rows are cut to fit, down to
	// minScanBatchRows): scan batches in flight are not accounted by any
	// budget, so under a small server budget they must stay small.
	ScanBatchBytes int64
	// Nodes maps each operator to the logical node it was lowered from
	// (EXPLAIN estimates its rows); a scan under a residual Filter maps to
	// a copy of its node holding only the conjuncts the scan applies.
	Nodes map[exec.Operator]logical.Node
	// Estimate, when set, estimates a node's rows; it lets a LEFT join
	// of a decorrelated subquery build its outer side (outerBuild,
	// join.go). Nil: never.
	Estimate logical.Estimator
	// shared are the WITH queries computed once (logical.CTE), by their
	// Input node, in lowering order in sharedList.
	shared     map[logical.Node]*exec.SharedResult
	sharedList []*exec.SharedResult
	// MaxRecursion caps the rounds of a WITH RECURSIVE query's recursive
	// term (0: exec.DefaultMaxRecursion).
	MaxRecursion int
	// work maps the working tables (logical.WorkTable.ID) of the WITH
	// RECURSIVE queries being lowered to their exec.WorkTable.
	work map[int]*exec.WorkTable
}

// Plan lowers n. Scans are planned now (metadata only).
func (p *Planner) Plan(ctx context.Context, n logical.Node) (exec.Operator, error) {
	if p.Concurrency <= 0 {
		p.Concurrency = 16
	}
	p.shared, p.sharedList = nil, nil
	op, err := p.plan(ctx, n)
	if err != nil || len(p.sharedList) == 0 {
		return op, err
	}
	root := &exec.SharedScope{Input: op, Shared: p.sharedList}
	p.note(root, n)
	return root, nil
}

// cte lowers one reference to a WITH query computed once: the first
// reference of an Input lowers it, every reference reads its result.
func (p *Planner) cte(ctx context.Context, x *logical.CTE) (exec.Operator, error) {
	sr, ok := p.shared[x.Input]
	if !ok {
		in, err := p.plan(ctx, x.Input)
		if err != nil {
			return nil, err
		}
		sr = &exec.SharedResult{Name: x.Name, Input: in}
		if p.shared == nil {
			p.shared = map[logical.Node]*exec.SharedResult{}
		}
		p.shared[x.Input] = sr
		p.sharedList = append(p.sharedList, sr)
	}
	return sr.NewReader(), nil
}

func (p *Planner) plan(ctx context.Context, n logical.Node) (exec.Operator, error) {
	op, err := p.lower(ctx, n)
	if err != nil {
		return nil, err
	}
	p.note(op, n)
	if !p.Analyze {
		return op, nil
	}
	return &Counted{Op: op}, nil
}

// note records that op was lowered from n (first record wins).
func (p *Planner) note(op exec.Operator, n logical.Node) {
	if p.Nodes == nil {
		p.Nodes = map[exec.Operator]logical.Node{}
	}
	if _, ok := p.Nodes[op]; !ok {
		p.Nodes[op] = n
	}
}

// noteScan records, for a scan whose conjuncts not answered exact are
// applied by a Filter above it, a node with only the exact ones.
func (p *Planner) noteScan(se *ScanExec, x *logical.Scan, exact []bool) {
	cp := *x
	cp.Filters = nil
	for i, f := range x.Filters {
		if exact[i] {
			cp.Filters = append(cp.Filters, f)
		}
	}
	p.note(se, &cp)
}

func (p *Planner) lower(ctx context.Context, n logical.Node) (exec.Operator, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	switch x := n.(type) {
	case *logical.Scan:
		return p.scan(ctx, x)
	case *logical.Values:
		return values(x)
	case *logical.CTE:
		return p.cte(ctx, x)
	case *logical.RecursiveCTE:
		return p.recursive(ctx, x)
	case *logical.WorkTable:
		return p.workTable(x)
	case *logical.Filter:
		in, err := p.plan(ctx, x.Input)
		if err != nil {
			return nil, err
		}
		return &exec.Filter{Input: in, Pred: x.Pred}, nil
	case *logical.Project:
		in, err := p.plan(ctx, x.Input)
		if err != nil {
			return nil, err
		}
		return &exec.Project{Input: in, Exprs: x.Exprs, S: x.S.Arrow()}, nil
	case *logical.Join:
		return p.join(ctx, x)
	case *logical.Aggregate:
		if op, ok, err := p.countFromMetadata(ctx, x); ok || err != nil {
			return op, err
		}
		in, err := p.plan(ctx, x.Input)
		if err != nil {
			return nil, err
		}
		return p.aggregate(in, x)
	case *logical.Window:
		in, err := p.plan(ctx, x.Input)
		if err != nil {
			return nil, err
		}
		return &exec.Window{Input: in, PartitionBy: x.PartitionBy, OrderBy: x.OrderBy, Funcs: x.Funcs}, nil
	case *logical.Unnest:
		in, err := p.plan(ctx, x.Input)
		if err != nil {
			return nil, err
		}
		u := exec.NewUnnest(in, x.Gens)
		u.Outer, u.On = x.Outer, x.On
		return u, nil
	case *logical.Sort:
		in, err := p.plan(ctx, x.Input)
		if err != nil {
			return nil, err
		}
		return &exec.Sort{Input: in, Keys: x.Keys, Fetch: x.Fetch, Bound: topNBound(in, x.Keys, x.Fetch)}, nil
	case *logical.Limit:
		in, err := p.plan(ctx, x.Input)
		if err != nil {
			return nil, err
		}
		return &exec.Limit{Input: in, Offset: x.Offset, Fetch: x.Fetch}, nil
	case *logical.Distinct:
		in, err := p.plan(ctx, x.Input)
		if err != nil {
			return nil, err
		}
		return &exec.Distinct{Input: in}, nil
	case *logical.MaxOneRow:
		in, err := p.plan(ctx, x.Input)
		if err != nil {
			return nil, err
		}
		return &MaxOneRow{Input: in}, nil
	case *logical.SetOp:
		ins := make([]exec.Operator, len(x.Inputs))
		for i, c := range x.Inputs {
			var err error
			if ins[i], err = p.plan(ctx, c); err != nil {
				return nil, err
			}
		}
		switch x.Op {
		case "UNION":
			u, err := exec.NewUnion(ins...)
			if err != nil {
				return nil, err
			}
			if x.All {
				return u, nil
			}
			return &exec.Distinct{Input: u}, nil
		default:
			return exec.NewSetOp(ins[0], ins[1], x.Op, x.All)
		}
	}
	return nil, fmt.Errorf("physical: no operator for %T", n)
}

func values(v *logical.Values) (exec.Operator, error) {
	s := v.S.Arrow()
	mem := memory.NewGoAllocator()
	ec := vec.NewCtx(context.Background(), mem, nil)
	one := array.NewRecordBatch(arrow.NewSchema(nil, nil), nil, 1)
	defer one.Release()
	cols := make([][]arrow.Array, len(v.S))
	defer func() {
		for _, cs := range cols {
			for _, c := range cs {
				c.Release()
			}
		}
	}()
	for _, row := range v.Rows {
		for j, e := range row {
			a, err := e.Eval(ec, one)
			if err != nil {
				return nil, err
			}
			cols[j] = append(cols[j], a)
		}
	}
	out := make([]arrow.Array, len(v.S))
	for j := range out {
		if len(v.Rows) == 0 { // an empty relation (logical.PruneEmpty)
			out[j] = array.MakeArrayOfNull(mem, s.Field(j).Type, 0)
			continue
		}
		c, err := array.Concatenate(cols[j], mem)
		if err != nil {
			return nil, err
		}
		out[j] = c
	}
	rec := array.NewRecordBatch(s, out, int64(len(v.Rows)))
	for _, c := range out {
		c.Release()
	}
	return exec.NewValues(s, rec), nil
}

// scan plans a catalog scan with the conjuncts that convert to predicates;
// every conjunct the scan does not answer PushdownExact (or that does not
// convert) stays in a Filter above it.
func (p *Planner) scan(ctx context.Context, x *logical.Scan) (exec.Operator, error) {
	ts := x.Table.Schema()
	names := make([]string, len(x.Columns))
	for i, c := range x.Columns {
		names[i] = ts.Field(c).Name
	}
	out := x.Schema().Arrow()
	var pushed []predicate.Predicate
	pushedAt := make([]int, 0, len(x.Filters)) // index in x.Filters of each pushed conjunct
	unconverted := false
	for i, f := range x.Filters {
		if pr, ok := toPredicate(f, out); ok {
			pushed = append(pushed, pr)
			pushedAt = append(pushedAt, i)
		} else {
			unconverted = true
		}
	}
	req := catalog.ScanRequest{Columns: names, Filters: pushed, Limit: -1, Options: x.Options,
		BatchRows: scanBatchRows(p.ScanBatchBytes, out)}
	if !unconverted {
		// every conjunct is offered: a scan applying them all counts rows
		// after them (a scan that does not must ignore the hint)
		req.Limit = x.Limit
	}
	if p.Splits != nil {
		sp, err := p.Splits(x, req)
		if err != nil {
			return nil, err
		}
		req.Splits = sp
	}
	sc, err := x.Table.NewScan(ctx, req)
	if err != nil {
		return nil, err
	}
	answers := sc.Pushdown()
	if len(answers) != len(pushed) {
		return nil, fmt.Errorf("physical: scan of %s answered %d pushdown(s) for %d filter(s)", x.Name, len(answers), len(pushed))
	}
	exact := make([]bool, len(x.Filters))
	for i, a := range answers {
		exact[pushedAt[i]] = a == catalog.PushdownExact
	}
	var residual []vec.Expr
	for i, f := range x.Filters {
		if !exact[i] {
			residual = append(residual, f)
		}
	}
	se := newScanExec(x.Name, sc, out, p.Concurrency, req.Limit)
	se.Req = req
	se.Req.Splits = nil
	if dt, ok := x.Table.(*catalog.DataTable); ok && dt.TableSchema().Option("scan.fallback-branch", "") != "" {
		se.Fallback = true
	}
	if f := req.Filter(); f != nil {
		se.Filter = f.String()
		if len(residual) > 0 {
			parts := make([]string, len(pushed))
			for i, pr := range pushed {
				parts[i] = pr.String() + " (" + answers[i].String() + ")"
			}
			se.Answers = strings.Join(parts, ", ")
		}
	}
	p.Scans = append(p.Scans, se)
	var op exec.Operator = se
	if len(residual) > 0 {
		pred, err := vec.NewAnd(residual...)
		if len(residual) == 1 {
			pred, err = residual[0], nil
		}
		if err != nil {
			return nil, err
		}
		p.noteScan(se, x, exact)
		se.Residual = pred
		if p.Analyze {
			op = &Counted{Op: se}
		}
		op = &exec.Filter{Input: op, Pred: pred}
	}
	return op, nil
}

// countFromMetadata answers SELECT COUNT(*) FROM t (no filter) from the
// scan's exact row count.
func (p *Planner) countFromMetadata(ctx context.Context, a *logical.Aggregate) (exec.Operator, bool, error) {
	if len(a.Groups) != 0 || len(a.Aggs) != 1 || a.Aggs[0].Func != "COUNT_STAR" || a.Aggs[0].Filter != nil {
		return nil, false, nil
	}
	s, ok := a.Input.(*logical.Scan)
	if !ok || len(s.Filters) > 0 {
		return nil, false, nil
	}
	op, err := p.scan(ctx, s)
	if err != nil {
		return nil, false, err
	}
	se, ok := op.(*ScanExec)
	if !ok {
		return nil, false, nil
	}
	n, exact := se.Scan.RowCount()
	if !exact {
		p.Scans = p.Scans[:len(p.Scans)-1]
		return nil, false, nil
	}
	se.Parts = 0
	lit := vec.NewLiteral(scalar.NewInt64Scalar(n))
	v := &logical.Values{S: a.S, Rows: [][]vec.Expr{{lit}}}
	op2, err := values(v)
	if err != nil {
		return nil, false, err
	}
	return &CountExec{Values: op2, scan: se, n: n}, true, nil
}

// CountExec is a metadata answer that EXPLAIN shows with its scan.
type CountExec struct {
	exec.Operator
	Values exec.Operator
	scan   *ScanExec
	n      int64
}

func (c *CountExec) Schema() *arrow.Schema     { return c.Values.Schema() }
func (c *CountExec) Children() []exec.Operator { return []exec.Operator{c.scan} } // for EXPLAIN; never executed
func (c *CountExec) Partitions() int           { return 1 }
func (c *CountExec) Explain() string {
	return fmt.Sprintf("Count: %d rows from metadata", c.n)
}
func (c *CountExec) Execute(tc *exec.TaskCtx, p int) (exec.Stream, error) {
	return c.Values.Execute(tc, p)
}

// minScanBatchRows and maxScanBatchRows bound the rows of a scan batch
// sized by Planner.ScanBatchBytes (the most is the scan's default).
const minScanBatchRows, maxScanBatchRows = 4096, 64 * 1024

// scanBatchRows is the rows per scan batch that keep an estimated batch of
// sc under bytes (0 = the scan's default). Variable-width values count as
// 32 bytes.
func scanBatchRows(bytes int64, sc *arrow.Schema) int {
	if bytes <= 0 {
		return 0
	}
	var row int64 = 1
	for _, f := range sc.Fields() {
		if fw, ok := f.Type.(arrow.FixedWidthDataType); ok && fw.BitWidth() >= 8 {
			row += int64(fw.BitWidth() / 8)
		} else {
			row += 32
		}
	}
	return int(min(max(bytes/row, minScanBatchRows), maxScanBatchRows))
}

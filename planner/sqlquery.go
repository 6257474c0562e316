package planner

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
	"github.com/paimon-flightsql/paimon-flightsql/internal/bufpool"
	"github.com/paimon-flightsql/paimon-flightsql/planner/exec"
	_ "github.com/paimon-flightsql/paimon-flightsql/planner/funcs" // function registry
	"github.com/paimon-flightsql/paimon-flightsql/planner/logical"
	"github.com/paimon-flightsql/paimon-flightsql/planner/parse"
	"github.com/paimon-flightsql/paimon-flightsql/planner/physical"
	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

// MemoryLimitOption is the session option that sets a query's memory budget
// (bytes, or with a unit: 512MiB, 2GiB). Default: DefaultQueryMemory.
const MemoryLimitOption = "query.memory-limit"

// DefaultQueryMemory is the per-query budget of joins, aggregations, sorts
// and windows when the session does not set one.
const DefaultQueryMemory = 4 << 30

// sqlQuery is a statement of the vectorized engine: parsed, bound,
// optimized and (without parameters) planned at Prepare.
type sqlQuery struct {
	e       *Engine
	stmt    *parse.Statement
	sess    logical.Session
	params  []arrow.DataType
	untyped []bool // params the context leaves untyped (SELECT ?): the bound value's type decides
	schema  *arrow.Schema
	plan    logical.Node // optimized; nil when the query has parameters
	ordered bool
	budget  int64
	noSpill bool // SpillOption off

	mu    sync.Mutex
	op    exec.Operator // planned at Prepare; taken by the first execution
	used  atomic.Bool
	scans []*physical.ScanExec
	nodes map[exec.Operator]logical.Node // op's operators' logical nodes (estimates)

	// leafEst memoizes the tables' metadata row counts (estimates);
	// planned holds splits carried from another node (Session.Splits).
	leafEst leafEstimates
	planned *PlannedScans
}

func parseSize(s string) (int64, error) {
	s = strings.TrimSpace(strings.ToLower(s))
	mult := int64(1)
	for _, u := range []struct {
		suf string
		m   int64
	}{{"kib", 1 << 10}, {"mib", 1 << 20}, {"gib", 1 << 30}, {"tib", 1 << 40}, {"kb", 1 << 10}, {"mb", 1 << 20}, {"gb", 1 << 30}, {"k", 1 << 10}, {"m", 1 << 20}, {"g", 1 << 30}, {"b", 1}} {
		if strings.HasSuffix(s, u.suf) {
			s, mult = strings.TrimSpace(strings.TrimSuffix(s, u.suf)), u.m
			break
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return 0, invalidf("bad size %q for %s", s, MemoryLimitOption)
	}
	return n * mult, nil
}

// prepareSQL binds and plans a query of the new engine.
func (e *Engine) prepareSQL(ctx context.Context, st *parse.Statement, sess Session) (*sqlQuery, error) {
	opts := map[string]string{}
	budget := int64(DefaultQueryMemory)
	q0noSpill := false
	for k, v := range sess.Options {
		if k == MemoryLimitOption {
			n, err := parseSize(v)
			if err != nil {
				return nil, err
			}
			budget = n
			continue
		}
		if k == SpillOption {
			on, err := parseSpill(v)
			if err != nil {
				return nil, err
			}
			q0noSpill = !on
			continue
		}
		opts[k] = v
	}
	ls := logical.Session{Catalog: e.cat, CatalogName: e.opts.CatalogName, Database: sess.Database, Options: opts, User: sess.User, Version: e.opts.Version}
	q := &sqlQuery{e: e, stmt: st, sess: ls, budget: budget, noSpill: q0noSpill}
	planned, err := decodePlanned(sess.Splits)
	if err != nil {
		return nil, err
	}
	if planned != nil {
		q.planned = planned
		q.leafEst.rows = map[string]float64{}
		for k, v := range planned.Est {
			q.leafEst.rows[k] = v
		}
		q.leafEst.ranges = planned.Ranges
	}
	b, err := logical.Bind(ctx, ls, st, nil)
	if err != nil {
		return nil, err
	}
	q.schema = b.Plan.Schema().Arrow()
	q.ordered = isOrdered(b.Plan)
	q.params, q.untyped = paramTypes(b, st.NumParams)
	if st.NumParams > 0 {
		return q, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if q.plan, err = q.optimize(ctx, b.Plan); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	pp := q.physical(ctx, false)
	if q.op, err = pp.Plan(ctx, q.plan); err != nil {
		return nil, err
	}
	q.scans, q.nodes = pp.Scans, pp.Nodes
	return q, nil
}

// newBudget returns a query budget of limit bytes drawing from the
// server-wide budget, if any.
func (e *Engine) newBudget(limit int64) *exec.Budget {
	return e.opts.Memory.NewChild(MemoryLimitOption, limit)
}

// scanBatchBytes bounds a scan batch under a server memory budget: scan
// batches in flight (a few per partition and stream) are bounded by
// back-pressure, not by the budget, so they are kept to 1/64 of this
// query's share of it (0 = no bound: the scan's default batches).
func (e *Engine) scanBatchBytes() int64 {
	if e.opts.Memory == nil || e.opts.Memory.Limit() <= 0 {
		return 0
	}
	return e.opts.Memory.Limit() / (e.opts.Memory.Children() + 1) / 64
}

// estimator is the cardinality model over the tables' metadata row counts
// and column ranges (memoized per table and options).
func (q *sqlQuery) estimator(ctx context.Context) *logical.Model {
	return logical.NewModel(tableStats{ctx: ctx, l: &q.leafEst})
}

func (q *sqlQuery) optimize(ctx context.Context, n logical.Node) (logical.Node, error) {
	return logical.Optimize(n, q.estimator(ctx))
}

// physical returns a physical planner for the query (carried splits when
// the statement came with them).
func (q *sqlQuery) physical(ctx context.Context, analyze bool) *physical.Planner {
	return &physical.Planner{Concurrency: q.e.opts.Concurrency, MaxRecursion: q.e.opts.MaxRecursion, Analyze: analyze, Splits: q.planned.splitsFunc(),
		ScanBatchBytes: q.e.scanBatchBytes(), Estimate: q.estimator(ctx).Rows}
}

// estimates returns the estimated rows of the operators lowered from nodes
// (EXPLAIN): the cardinality model join ordering uses.
func (q *sqlQuery) estimates(ctx context.Context, nodes map[exec.Operator]logical.Node) func(exec.Operator) (float64, bool) {
	est := q.estimator(ctx).Rows
	return func(o exec.Operator) (float64, bool) {
		n, ok := nodes[o]
		if !ok {
			return 0, false
		}
		return est(n), true
	}
}

func isOrdered(n logical.Node) bool {
	for {
		switch x := n.(type) {
		case *logical.Sort:
			return true
		case *logical.Project:
			n = x.Input
		case *logical.Limit:
			n = x.Input
		default:
			return false
		}
	}
}

// paramTypes collects the types of the ? placeholders from the bound plan;
// untyped marks those the plan leaves untyped (reported as VARCHAR).
func paramTypes(b *logical.Bound, count int) (types []arrow.DataType, untyped []bool) {
	n := b.Plan
	out := make([]arrow.DataType, count)
	var walk func(logical.Node)
	visit := func(e vec.Expr) {
		vec.Walk(e, func(x vec.Expr) bool {
			if p, ok := x.(*vec.Param); ok && p.N < count {
				if out[p.N] == nil || out[p.N].ID() == arrow.NULL {
					out[p.N] = p.T
				}
			}
			return true
		})
	}
	walk = func(n logical.Node) {
		for _, e := range logical.Exprs(n) {
			visit(e)
		}
		for _, c := range n.Children() {
			walk(c)
		}
	}
	walk(n)
	// Placeholders outside expressions (LIMIT ?) are typed in the list.
	for i, p := range b.Params {
		if i < count && p != nil && (out[i] == nil || out[i].ID() == arrow.NULL) {
			out[i] = p.T
		}
	}
	untyped = make([]bool, count)
	for i, t := range out {
		if t == nil || t.ID() == arrow.NULL {
			out[i] = arrow.BinaryTypes.String
			untyped[i] = true
		}
		if b.Untyped[i] {
			untyped[i] = true
		}
	}
	return out, untyped
}

// withParamTypes re-plans a query whose parameters the context left
// untyped with the types of the values bound to them (SELECT ?, ? bound to
// a BIGINT and a VARCHAR returns a BIGINT and a VARCHAR column). It returns
// q itself when nothing changes.
func (q *sqlQuery) withParamTypes(ctx context.Context, bound []arrow.DataType) (*sqlQuery, error) {
	types := append([]arrow.DataType(nil), q.params...)
	changed := false
	for i := range types {
		if i >= len(bound) || !q.untyped[i] || bound[i] == nil {
			continue
		}
		t := boundParamType(bound[i])
		if t == nil || arrow.TypeEqual(t, types[i]) {
			continue
		}
		types[i], changed = t, true
	}
	if !changed {
		return q, nil
	}
	b, err := logical.Bind(ctx, q.sess, q.stmt, nil, types...)
	if err != nil {
		return nil, err
	}
	nq := &sqlQuery{e: q.e, stmt: q.stmt, sess: q.sess, budget: q.budget, noSpill: q.noSpill, untyped: q.untyped}
	nq.schema = b.Plan.Schema().Arrow()
	nq.ordered = isOrdered(b.Plan)
	nq.params, _ = paramTypes(b, len(types))
	for i, t := range types {
		if !q.untyped[i] || nq.params[i] == nil {
			continue
		}
		nq.params[i] = t
	}
	return nq, nil
}

// boundParamType is the engine type of a bound parameter column: string and
// binary flavours collapse to VARCHAR/VARBINARY, unsigned to BIGINT; NULL
// columns (and types the engine has no literal for) keep the default.
func boundParamType(t arrow.DataType) arrow.DataType {
	switch t.ID() {
	case arrow.NULL:
		return nil
	case arrow.STRING, arrow.LARGE_STRING, arrow.STRING_VIEW:
		return arrow.BinaryTypes.String
	case arrow.BINARY, arrow.LARGE_BINARY, arrow.BINARY_VIEW, arrow.FIXED_SIZE_BINARY:
		return arrow.BinaryTypes.Binary
	case arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64:
		return arrow.PrimitiveTypes.Int64
	case arrow.FLOAT16, arrow.FLOAT32:
		return arrow.PrimitiveTypes.Float64
	case arrow.BOOL, arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.FLOAT64,
		arrow.DECIMAL128, arrow.DECIMAL256, arrow.DATE32, arrow.TIMESTAMP:
		return t
	}
	return nil
}

// stateless: plans whose partitions can run independently (no operator
// that holds shared state).
func stateless(op exec.Operator) bool {
	switch op.(type) {
	case *physical.ScanExec, *exec.Filter, *exec.Project, *exec.Values, *exec.Union:
	default:
		return false
	}
	for _, c := range op.Children() {
		if !stateless(c) {
			return false
		}
	}
	return true
}

func (q *sqlQuery) numPartitions() int {
	if q.op == nil || !stateless(q.op) {
		return 1
	}
	return max(1, q.op.Partitions())
}

// operator returns the physical plan for one execution.
func (q *sqlQuery) operator(ctx context.Context, params []any) (exec.Operator, []*physical.ScanExec, error) {
	if q.op != nil {
		if stateless(q.op) || q.used.CompareAndSwap(false, true) {
			return q.op, q.scans, nil
		}
		pp := q.physical(ctx, false)
		op, err := pp.Plan(ctx, q.plan)
		return op, pp.Scans, err
	}
	b, err := logical.Bind(ctx, q.sess, q.stmt, params, q.params...)
	if err != nil {
		return nil, nil, err
	}
	plan, err := q.optimize(ctx, b.Plan)
	if err != nil {
		return nil, nil, err
	}
	pp := q.physical(ctx, false)
	op, err := pp.Plan(ctx, plan)
	return op, pp.Scans, err
}

func (q *sqlQuery) execute(ctx context.Context, mem memory.Allocator, pool *bufpool.Pool, params []any, part int) (array.RecordReader, error) {
	op, _, err := q.operator(ctx, params)
	if err != nil {
		return nil, err
	}
	if q.numPartitions() == 1 && op.Partitions() > 1 {
		op = &exec.Coalesce{Input: op}
		part = 0
	}
	budget := q.e.newBudget(q.budget)
	tc := exec.NewTaskCtx(ctx, mem, params, budget)
	tc.BatchSize = q.e.opts.BatchSize
	tc.Pool = pool
	tc.Spill = q.newSpiller()
	s, err := op.Execute(tc, part)
	if err != nil {
		budget.Close()
		tc.Spill.Close()
		return nil, err
	}
	r := newStreamReader(q.schema, s)
	r.budget = budget
	r.spill = tc.Spill
	return r, nil
}

// explain renders the physical plan, root first, two spaces per level,
// each scan followed by its pruning counters.
func (q *sqlQuery) explain(ctx context.Context) ([]string, error) {
	op, _, err := q.operator(ctx, nil)
	if err != nil {
		return nil, err
	}
	return planLines(op, q.estimates(ctx, q.nodes)), nil
}

// planLines renders an operator tree, root first, two spaces per level,
// each operator with its estimated rows (est, when known) and each scan
// followed by its pushed filter and pruning counters.
func planLines(op exec.Operator, est func(exec.Operator) (float64, bool)) []string {
	lines, _ := planLinesAt(op, est)
	return lines
}

// planLinesAt is planLines and, for each operator in the walk order
// (depth first, children in order), the index of its line.
func planLinesAt(op exec.Operator, est func(exec.Operator) (float64, bool)) ([]string, []int) {
	var lines []string
	var starts []int
	var walk func(exec.Operator, int)
	walk = func(o exec.Operator, d int) {
		ind := strings.Repeat("  ", d)
		starts = append(starts, len(lines))
		line := ind + o.Explain()
		if c, ok := o.(*physical.Counted); ok {
			o = c.Op
		}
		if v, ok := est(o); ok {
			line += fmt.Sprintf(" (est rows=%s)", fmtEst(v))
		}
		lines = append(lines, line)
		if se, ok := o.(*physical.ScanExec); ok {
			if se.Answers != "" {
				lines = append(lines, ind+"  pushed filter: "+se.Answers)
			} else if se.Filter != "" {
				lines = append(lines, ind+"  pushed filter: "+se.Filter)
			}
			lines = append(lines, scanStatLines(ind+"  ", se.Scan.Stats(), len(se.Splits()), se.Report())...)
			lines = append(lines, se.RuntimeLines(ind+"  ")...)
			if in, kept := se.RowFilterCounts(); in > 0 {
				lines = append(lines, fmt.Sprintf("%s  row filter in reader: %d rows in, %d kept (other columns decoded for those)", ind, in, kept))
			}
		}
		for _, c := range o.Children() {
			walk(c, d+1)
		}
	}
	walk(op, 0)
	return lines, starts
}

// fmtEst renders an estimate: whole rows, at least 1.
func fmtEst(v float64) string {
	if v < 1 {
		v = 1
	}
	if v >= 1e15 {
		return fmt.Sprintf("%.3g", v)
	}
	return strconv.FormatInt(int64(v+0.5), 10)
}

func scanStatLines(ind string, st catalog.ScanStats, splits int, rd catalog.ReadReport) []string {
	out := []string{}
	if st.SnapshotID >= 0 {
		out = append(out, fmt.Sprintf("%ssnapshot: %d", ind, st.SnapshotID))
	}
	out = append(out,
		fmt.Sprintf("%ssplits: %d", ind, splits),
		fmt.Sprintf("%smanifests: %d total, %d pruned", ind, st.ManifestsTotal, st.ManifestsPruned),
		fmt.Sprintf("%sdata files: %d total, %d pruned by partition, %d by bucket, %d by stats", ind, st.FilesTotal, st.FilesPrunedPartition, st.FilesPrunedBucket, st.FilesPrunedStats))
	if rd.RowGroupsTotal > 0 {
		out = append(out, fmt.Sprintf("%srow groups: %d total, %d skipped", ind, rd.RowGroupsTotal, rd.RowGroupsSkipped))
	}
	if rd.RowsSkippedPageIndex > 0 {
		out = append(out, fmt.Sprintf("%spage index: %d rows skipped", ind, rd.RowsSkippedPageIndex))
	}
	if st.FilesPrunedGlobalIndex > 0 {
		out = append(out, fmt.Sprintf("%sglobal index: %d files skipped at plan", ind, st.FilesPrunedGlobalIndex))
	}
	if st.GlobalIndexesUnsupported > 0 {
		out = append(out, fmt.Sprintf("%sglobal index: %d index files in an unsupported format (BGIX) not used", ind, st.GlobalIndexesUnsupported))
	}
	if st.FilesPrunedIndex > 0 || rd.FilesSkippedIndex > 0 || rd.RowsSkippedIndex > 0 {
		line := fmt.Sprintf("%sfile index: %d files (%d rows) skipped at plan", ind, st.FilesPrunedIndex, st.RowsPrunedIndex)
		if st.IndexSkips != "" {
			line += " by " + st.IndexSkips
		}
		out = append(out, line+fmt.Sprintf(", %d files and %d rows skipped while reading", rd.FilesSkippedIndex, rd.RowsSkippedIndex))
	}
	if rd.FilesSkippedTopN > 0 {
		out = append(out, fmt.Sprintf("%stop-N bound or join key range: %d files skipped while reading", ind, rd.FilesSkippedTopN))
	}
	if st.DeletionVectors > 0 || st.MergedBuckets > 0 {
		out = append(out, fmt.Sprintf("%sdeletion vectors: %d, merged buckets: %d", ind, st.DeletionVectors, st.MergedBuckets))
	}
	if st.Residual != "" {
		out = append(out, ind+"residual: "+st.Residual)
	}
	return out
}

func (q *sqlQuery) explainAnalyze(ctx context.Context, mem memory.Allocator) ([]string, error) {
	if q.plan == nil {
		return nil, unsupportedf("EXPLAIN ANALYZE of a statement with parameters")
	}
	pp := q.physical(ctx, true)
	op, err := pp.Plan(ctx, q.plan)
	if err != nil {
		return nil, err
	}
	scans := pp.Scans
	start := time.Now()
	var root exec.Operator = op
	if root.Partitions() > 1 {
		root = &exec.Coalesce{Input: root}
	}
	tc := exec.NewTaskCtx(ctx, mem, nil, q.e.newBudget(q.budget))
	defer tc.Budget.Close()
	tc.Spill = q.newSpiller()
	defer tc.Spill.Close()
	tc.BatchSize = q.e.opts.BatchSize
	s, err := root.Execute(tc, 0)
	if err != nil {
		return nil, err
	}
	var rows int64
	for {
		b, err := s.Next()
		if err != nil {
			s.Close()
			return nil, err
		}
		if b == nil {
			break
		}
		rows += b.NumRows()
		b.Release()
	}
	s.Close()
	elapsed := time.Since(start)
	_ = scans
	lines, starts := planLinesAt(op, q.estimates(ctx, pp.Nodes))
	// actual rows on each operator's line (the same walk order as planLinesAt)
	k := 0
	var walk func(exec.Operator)
	walk = func(o exec.Operator) {
		if k >= len(starts) {
			return
		}
		i := starts[k]
		k++
		if c, ok := o.(*physical.Counted); ok {
			if strings.HasSuffix(lines[i], ")") && strings.Contains(lines[i], " (est rows=") {
				lines[i] = strings.TrimSuffix(lines[i], ")") + fmt.Sprintf(", actual rows=%d)", c.Rows())
			} else {
				lines[i] += fmt.Sprintf(" (actual rows=%d)", c.Rows())
			}
		}
		for _, ch := range o.Children() {
			walk(ch)
		}
	}
	walk(op)
	lines = append(lines, fmt.Sprintf("executed: %d rows in %s, peak memory %d bytes", rows, elapsed.Round(time.Microsecond), tc.Budget.Peak()))
	return lines, nil
}

// streamReader adapts an exec.Stream to array.RecordReader.
type streamReader struct {
	refs   atomic.Int64
	schema *arrow.Schema
	s      exec.Stream
	cur    arrow.RecordBatch
	err    error
	mu     sync.Mutex
	budget *exec.Budget  // closed with the stream
	spill  *exec.Spiller // closed (its directory removed) with the stream
}

func newStreamReader(schema *arrow.Schema, s exec.Stream) *streamReader {
	r := &streamReader{schema: schema, s: s}
	r.refs.Store(1)
	return r
}

func (r *streamReader) Retain() { r.refs.Add(1) }
func (r *streamReader) Release() {
	if r.refs.Add(-1) != 0 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	if r.s != nil {
		r.s.Close()
		r.s = nil
	}
	r.budget.Close()
	r.spill.Close()
}
func (r *streamReader) Schema() *arrow.Schema { return r.schema }
func (r *streamReader) Next() bool {
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	if r.s == nil || r.err != nil {
		return false
	}
	b, err := r.s.Next()
	if err != nil {
		r.err = err
		return false
	}
	if b == nil {
		return false
	}
	if !b.Schema().Equal(r.schema) {
		nb := array.NewRecordBatch(r.schema, b.Columns(), b.NumRows())
		b.Release()
		b = nb
	}
	r.cur = b
	return true
}
func (r *streamReader) RecordBatch() arrow.RecordBatch { return r.cur }
func (r *streamReader) Record() arrow.RecordBatch      { return r.cur }
func (r *streamReader) Err() error                     { return r.err }

// pinnedOptions pins the snapshot of a single-table query so every
// partition reads the same one.
func (q *sqlQuery) pinnedOptions() map[string]string {
	if len(q.scans) != 1 {
		return nil
	}
	for _, k := range []string{"scan.snapshot-id", "scan.tag-name", "scan.timestamp-millis"} {
		if _, ok := q.sess.Options[k]; ok {
			return nil
		}
	}
	if hasHints(q.stmt) {
		return nil
	}
	if _, ok := q.e.cat.(interface{ DefaultDatabase() string }); !ok {
		return nil
	}
	if id := q.scans[0].Scan.Stats().SnapshotID; id >= 0 && !q.scans[0].Fallback {
		return map[string]string{"scan.snapshot-id": strconv.FormatInt(id, 10)}
	}
	return nil
}

func hasHints(st *parse.Statement) bool {
	for _, h := range st.Hints {
		if len(h) > 0 {
			return true
		}
	}
	return false
}

func (q *sqlQuery) pruningStats() map[string]int64 {
	if len(q.scans) == 0 {
		return nil
	}
	out := map[string]int64{}
	for _, s := range q.scans {
		st := s.Scan.Stats()
		out["manifests_total"] += int64(st.ManifestsTotal)
		out["manifests_pruned"] += int64(st.ManifestsPruned)
		out["files_total"] += int64(st.FilesTotal)
		out["files_pruned_partition"] += int64(st.FilesPrunedPartition)
		out["files_pruned_bucket"] += int64(st.FilesPrunedBucket)
		out["files_pruned_stats"] += int64(st.FilesPrunedStats)
		rd := s.Report()
		out["row_groups_total"] += rd.RowGroupsTotal
		out["row_groups_skipped"] += rd.RowGroupsSkipped
		out["rows_skipped_page_index"] += rd.RowsSkippedPageIndex
		out["files_pruned_index"] += int64(st.FilesPrunedIndex)
		out["files_skipped_index"] += rd.FilesSkippedIndex
		out["rows_skipped_index"] += st.RowsPrunedIndex + rd.RowsSkippedIndex
		out["files_pruned_global_index"] += int64(st.FilesPrunedGlobalIndex)
	}
	return out
}

// concatReader reads several readers one after the other.
type concatReader struct {
	refs   atomic.Int64
	schema *arrow.Schema
	parts  []array.RecordReader
	err    error
}

func newConcatReader(schema *arrow.Schema, parts []array.RecordReader) *concatReader {
	r := &concatReader{schema: schema, parts: parts}
	r.refs.Store(1)
	return r
}

func (r *concatReader) Retain() { r.refs.Add(1) }
func (r *concatReader) Release() {
	if r.refs.Add(-1) != 0 {
		return
	}
	for _, p := range r.parts {
		p.Release()
	}
	r.parts = nil
}
func (r *concatReader) Schema() *arrow.Schema { return r.schema }
func (r *concatReader) Next() bool {
	for len(r.parts) > 0 {
		if r.parts[0].Next() {
			return true
		}
		if err := r.parts[0].Err(); err != nil {
			r.err = err
			return false
		}
		r.parts[0].Release()
		r.parts = r.parts[1:]
	}
	return false
}
func (r *concatReader) RecordBatch() arrow.RecordBatch {
	if len(r.parts) == 0 {
		return nil
	}
	return r.parts[0].RecordBatch()
}
func (r *concatReader) Record() arrow.RecordBatch { return r.RecordBatch() }
func (r *concatReader) Err() error                { return r.err }

// rowCount is the exact number of rows op returns when metadata knows it.
func rowCount(op exec.Operator) (int64, bool) {
	switch x := op.(type) {
	case *physical.ScanExec:
		return x.Scan.RowCount()
	case *physical.CountExec:
		return 1, true
	case *exec.Values:
		var n int64
		for _, p := range x.Parts {
			for _, b := range p {
				n += b.NumRows()
			}
		}
		return n, true
	case *exec.Project:
		return rowCount(x.Input)
	case *exec.Coalesce:
		return rowCount(x.Input)
	case *exec.HashAggregate:
		if len(x.Groups) == 0 && len(x.GroupingSets) == 0 {
			return 1, true
		}
	case *exec.Limit:
		n, ok := rowCount(x.Input)
		if !ok {
			return 0, false
		}
		n = max(0, n-x.Offset)
		if x.Fetch >= 0 {
			n = min(n, x.Fetch)
		}
		return n, true
	}
	return 0, false
}

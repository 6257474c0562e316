package physical

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
	"github.com/paimon-flightsql/paimon-flightsql/planner/exec"
	"github.com/paimon-flightsql/paimon-flightsql/planner/logical"
	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

// ScanExec reads a planned catalog scan; partition p reads splits p, p+N, ...
type ScanExec struct {
	Name  string
	Scan  catalog.Scan
	S     *arrow.Schema
	Parts int
	// Filter is the pushed predicate's text for EXPLAIN.
	Filter string
	// Answers lists the pushed conjuncts with the scan's answer for each
	// ("a > 1 (exact), b < 2 (inexact)"); "" when every one is exact.
	Answers string
	Limit   int64
	// Fallback: the table reads a fallback branch (scan.fallback-branch),
	// which an explicit snapshot id would turn off.
	Fallback bool
	// Req is the request the scan was planned with (ScanKey).
	Req catalog.ScanRequest
	// Dynamic, when set, is the bound of the top-N this scan feeds
	// (topn.go), handed to every Read.
	Dynamic *predicate.Dynamic
	// DynamicCol is the scan column Dynamic bounds (set with it).
	DynamicCol int
	// DynamicRowsOnly: the bound filters rows in the reader only; files
	// are not skipped by it (string bounds: statistics are truncated).
	DynamicRowsOnly bool
	// Residual is the filter the exec.Filter above the scan applies (the
	// conjuncts not answered exactly), nil when none; with Dynamic it
	// forms the row filter handed to the reader (rowfilter.go).
	Residual vec.Expr
	// Runtime are the runtime join filters the scan applies to its
	// batches (runtimefilter.go).
	Runtime []exec.RuntimeFilterTarget

	splits []catalog.Split // Scan.Splits(), taken once

	rowStats rowFilterStats

	mu     sync.Mutex
	report catalog.ReadReport // summed over the streams that ended
}

func newScanExec(name string, sc catalog.Scan, s *arrow.Schema, concurrency int, limit int64) *ScanExec {
	splits := sc.Splits()
	return &ScanExec{Name: name, Scan: sc, S: s, Parts: min(max(1, len(splits)), concurrency), Limit: limit, splits: splits}
}

// ScanKey identifies a scan request by table, columns, filters and options
// (splits carried in a ticket are matched to the scans by it).
func ScanKey(x *logical.Scan, req catalog.ScanRequest) string {
	return scanKey(x.Name, req, nil)
}

// KeyWith is the scan's ScanKey with extra options set (a snapshot pinned
// after planning).
func (s *ScanExec) KeyWith(extra map[string]string) string {
	return scanKey(s.Name, s.Req, extra)
}

func scanKey(name string, req catalog.ScanRequest, extra map[string]string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s|%q|", name, req.Columns)
	for _, f := range req.Filters {
		b.WriteString(f.String())
		b.WriteString(";")
	}
	opts := make(map[string]string, len(req.Options)+len(extra))
	for k, v := range req.Options {
		opts[k] = v
	}
	for k, v := range extra {
		opts[k] = v
	}
	keys := make([]string, 0, len(opts))
	for k := range opts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, "|%s=%s", k, opts[k])
	}
	return b.String()
}

// RowFilterCounts are the rows the reader's row filter was asked about and
// kept, summed over the streams (EXPLAIN ANALYZE).
func (s *ScanExec) RowFilterCounts() (in, kept int64) {
	return s.rowStats.in.Load(), s.rowStats.kept.Load()
}

// Splits are the scan's planned splits.
func (s *ScanExec) Splits() []catalog.Split { return s.splits }

// Report is the sum of the read reports of the streams that ended.
func (s *ScanExec) Report() catalog.ReadReport {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.report
}

func (s *ScanExec) Schema() *arrow.Schema     { return s.S }
func (s *ScanExec) Children() []exec.Operator { return nil }
func (s *ScanExec) Partitions() int           { return max(1, s.Parts) }
func (s *ScanExec) Explain() string {
	out := "Scan " + s.Name
	names := make([]string, s.S.NumFields())
	for i, f := range s.S.Fields() {
		names[i] = f.Name
	}
	out += fmt.Sprintf(" %v", names)
	if s.Filter != "" {
		out += " filter=" + s.Filter
	}
	if s.Limit >= 0 {
		out += fmt.Sprintf(" limit=%d", s.Limit)
	}
	if len(s.Runtime) > 0 {
		fs := make([]string, len(s.Runtime))
		for i, t := range s.Runtime {
			fs[i] = names[t.Col] + " by " + t.Slot.Desc
		}
		out += " runtime filter=[" + strings.Join(fs, ", ") + "]"
	}
	return out + fmt.Sprintf(" splits=%d partitions=%d", len(s.splits), s.Partitions())
}

// RuntimeLines describe what the runtime filters did (EXPLAIN ANALYZE);
// none before they checked a row.
func (s *ScanExec) RuntimeLines(ind string) []string {
	var out []string
	for _, t := range s.Runtime {
		in, kept := t.Slot.RowsIn.Load(), t.Slot.RowsOut.Load()
		if in == 0 {
			continue
		}
		out = append(out, fmt.Sprintf("%sruntime filter: %s: %d rows in, %d out", ind, s.S.Field(t.Col).Name, in, kept))
	}
	return out
}

func (s *ScanExec) Execute(tc *exec.TaskCtx, p int) (exec.Stream, error) {
	var splits []catalog.Split
	for i := p; i < len(s.splits); i += s.Partitions() {
		splits = append(splits, s.splits[i])
	}
	if len(splits) == 0 {
		return exec.NewSliceStream(tc, nil), nil
	}
	o := catalog.ReadOptions{Mem: tc.Mem, Pool: tc.Pool, Dynamic: s.Dynamic}
	if s.DynamicRowsOnly {
		o.Dynamic = nil
	}
	if o.Dynamic == nil {
		// A hash join runs its probe side after its build: the runtime
		// filters are published by now, and their key ranges let the
		// reader skip files and row groups by statistics.
		o.Dynamic = s.runtimeRanges()
	}
	rf, err := newScanRowFilter(s, tc)
	if err != nil {
		return nil, err
	}
	if rf != nil {
		o.RowFilter = rf
	}
	rdr, err := s.Scan.Read(tc.Ctx, splits, o)
	if err != nil {
		return nil, err
	}
	return &scanStream{tc: tc, rdr: rdr, s: s.S, exec: s, rf: exec.NewRuntimeFilterer(s.Runtime), ec: tc.EvalCtx()}, nil
}

type scanStream struct {
	tc   *exec.TaskCtx
	rdr  catalog.Reader
	s    *arrow.Schema
	exec *ScanExec
	rf   *exec.RuntimeFilterer
	ec   *vec.Ctx
}

func (s *scanStream) Next() (arrow.RecordBatch, error) {
	if s.rdr == nil {
		return nil, nil
	}
	if err := s.tc.Err(); err != nil {
		return nil, err
	}
	for s.rdr.Next() {
		rec := s.rdr.RecordBatch()
		if rec.NumRows() == 0 {
			continue
		}
		// Our schema (names, nullability) with the reader's arrays.
		cols := rec.Columns()
		out := array.NewRecordBatch(s.s, cols, rec.NumRows())
		if s.rf == nil {
			return out, nil
		}
		out, err := s.rf.Apply(s.ec, out)
		if err != nil {
			return nil, err
		}
		if out.NumRows() == 0 {
			out.Release()
			continue
		}
		return out, nil
	}
	if err := s.rdr.Err(); err != nil {
		return nil, err
	}
	return nil, nil
}

func (s *scanStream) Close() {
	if s.rdr != nil {
		s.rdr.Release()
		r := s.rdr.Report()
		s.exec.mu.Lock()
		s.exec.report.Add(r)
		s.exec.mu.Unlock()
		s.rdr = nil
	}
}

// MaxOneRow fails when its input has more than one row.
type MaxOneRow struct{ Input exec.Operator }

func (m *MaxOneRow) Schema() *arrow.Schema     { return m.Input.Schema() }
func (m *MaxOneRow) Children() []exec.Operator { return []exec.Operator{m.Input} }
func (m *MaxOneRow) Partitions() int           { return 1 }
func (m *MaxOneRow) Explain() string           { return "MaxOneRow" }
func (m *MaxOneRow) Execute(tc *exec.TaskCtx, _ int) (exec.Stream, error) {
	var in exec.Operator = m.Input
	if in.Partitions() > 1 {
		in = &exec.Coalesce{Input: in}
	}
	s, err := in.Execute(tc, 0)
	if err != nil {
		return nil, err
	}
	return &maxOneStream{in: s}, nil
}

type maxOneStream struct {
	in   exec.Stream
	seen int64
}

func (m *maxOneStream) Next() (arrow.RecordBatch, error) {
	b, err := m.in.Next()
	if err != nil || b == nil {
		return nil, err
	}
	m.seen += b.NumRows()
	if m.seen > 1 {
		b.Release()
		return nil, paimon.Errorf(catalog.ErrInvalid, "more than one row returned by a subquery used as an expression")
	}
	return b, nil
}

func (m *maxOneStream) Close() { m.in.Close() }

package planner

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
	"github.com/paimon-flightsql/paimon-flightsql/planner/logical"
	"github.com/paimon-flightsql/paimon-flightsql/planner/physical"
)

// PlannedScans is what a statement's planning produced that another node
// needs to execute it without planning again: the splits of every scan,
// matched to the scans by their request (physical.ScanKey), and the row
// estimates join ordering used (so that the same plan is chosen). It is
// encoded as JSON (Statement.PlannedSplits) and given back through
// Session.Splits.
type PlannedScans struct {
	Est map[string]float64 `json:"est,omitempty"`
	// Ranges are the integer and date column ranges join ordering used,
	// per table (leafKey) and column name.
	Ranges map[string]map[string][2]int64 `json:"ranges,omitempty"`
	Scans  []PlannedScan                  `json:"scans"`
}

// PlannedScan is one scan's splits.
type PlannedScan struct {
	Key    string          `json:"key"`
	Splits []catalog.Split `json:"splits"`
}

// PlannedSplits encodes the splits of the statement's scans: nil when the
// statement has no planned scan (updates, statements with parameters);
// nil and fits false when the encoding would pass max bytes (max <= 0: no
// limit). Encoding stops as soon as max is passed, so a scan of 100k files
// costs little.
// A Session whose Splits is this value makes Prepare open these splits
// instead of planning the scans.
func (s *Statement) PlannedSplits(max int) (splits []byte, fits bool, err error) {
	if s.kind != kindSQL || s.sq == nil || len(s.sq.scans) == 0 {
		return nil, true, nil
	}
	var b bytes.Buffer
	over := func() bool { return max > 0 && b.Len() > max }
	rows, ranges := s.sq.leafEst.snapshot()
	est, err := json.Marshal(rows)
	if err != nil {
		return nil, false, fmt.Errorf("encode planned splits: %w", err)
	}
	b.WriteString(`{"est":`)
	b.Write(est)
	if len(ranges) > 0 {
		rb, err := json.Marshal(ranges)
		if err != nil {
			return nil, false, fmt.Errorf("encode planned splits: %w", err)
		}
		b.WriteString(`,"ranges":`)
		b.Write(rb)
	}
	b.WriteString(`,"scans":[`)
	// The server adds the pinned snapshot to the session of every ticket:
	// key the scans as the statement prepared with it will see them.
	pinned := s.PinnedOptions()
	for i, se := range s.sq.scans {
		if i > 0 {
			b.WriteByte(',')
		}
		key, err := json.Marshal(se.KeyWith(pinned))
		if err != nil {
			return nil, false, fmt.Errorf("encode planned splits: %w", err)
		}
		b.WriteString(`{"key":`)
		b.Write(key)
		b.WriteString(`,"splits":[`)
		for j, sp := range se.Splits() {
			if j > 0 {
				b.WriteByte(',')
			}
			e, err := json.Marshal(sp)
			if err != nil {
				return nil, false, fmt.Errorf("encode planned splits: %w", err)
			}
			b.Write(e)
			if over() {
				return nil, false, nil
			}
		}
		b.WriteString(`]}`)
	}
	b.WriteString(`]}`)
	if over() {
		return nil, false, nil
	}
	return b.Bytes(), true, nil
}

// decodePlanned decodes Session.Splits.
func decodePlanned(b []byte) (*PlannedScans, error) {
	if len(b) == 0 {
		return nil, nil
	}
	var ps PlannedScans
	if err := json.Unmarshal(b, &ps); err != nil {
		return nil, invalidf("planned splits: %v", err)
	}
	return &ps, nil
}

// splitsFunc returns the physical planner's lookup of carried splits: a
// scan whose request is not among them is planned.
func (ps *PlannedScans) splitsFunc() func(*logical.Scan, catalog.ScanRequest) ([]catalog.Split, error) {
	if ps == nil {
		return nil
	}
	byKey := make(map[string][]catalog.Split, len(ps.Scans))
	for _, s := range ps.Scans {
		sp := s.Splits
		if sp == nil {
			sp = []catalog.Split{}
		}
		byKey[s.Key] = sp
	}
	return func(x *logical.Scan, req catalog.ScanRequest) ([]catalog.Split, error) {
		return byKey[physical.ScanKey(x, req)], nil
	}
}

// leafEstimates memoizes the metadata row count and the integer and date
// column ranges of each table (with its options) that join ordering and
// EXPLAIN estimate from: one plan per table instead of one per estimate,
// and, given carried estimates, none.
type leafEstimates struct {
	mu     sync.Mutex
	rows   map[string]float64
	ranges map[string]map[string][2]int64
}

// leafKey names a table with its options, time travel left out: the
// snapshot pinned after planning must not change the estimates (and so
// the join order) a statement prepared again with it gets.
func leafKey(s *logical.Scan) string {
	keys := make([]string, 0, len(s.Options))
	for k := range s.Options {
		switch k {
		case "scan.snapshot-id", "scan.tag-name", "scan.timestamp-millis", "scan.version":
			continue
		}
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString(s.Name)
	for _, k := range keys {
		fmt.Fprintf(&b, "|%s=%s", k, s.Options[k])
	}
	return b.String()
}

func (l *leafEstimates) get(ctx context.Context, s *logical.Scan) (float64, map[string][2]int64) {
	k := leafKey(s)
	l.mu.Lock()
	v, ok := l.rows[k]
	r := l.ranges[k]
	l.mu.Unlock()
	if ok {
		return v, r
	}
	v = 1e6
	if sc, err := s.Table.NewScan(ctx, catalog.ScanRequest{Columns: []string{}, Limit: -1, Options: s.Options}); err == nil {
		n, _ := sc.RowCount()
		v = float64(n)
		if cr, ok := sc.(catalog.ColumnRanger); ok {
			// no ranges (an estimate) when the statistics do not decode
			r, _ = cr.ColumnRanges(ctx)
		}
	}
	l.mu.Lock()
	if l.rows == nil {
		l.rows = map[string]float64{}
	}
	l.rows[k] = v
	if len(r) > 0 {
		if l.ranges == nil {
			l.ranges = map[string]map[string][2]int64{}
		}
		l.ranges[k] = r
	}
	l.mu.Unlock()
	return v, r
}

func (l *leafEstimates) snapshot() (map[string]float64, map[string]map[string][2]int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make(map[string]float64, len(l.rows))
	for k, v := range l.rows {
		out[k] = v
	}
	rs := make(map[string]map[string][2]int64, len(l.ranges))
	for k, v := range l.ranges {
		rs[k] = v
	}
	return out, rs
}

// tableStats adapts leafEstimates to logical.TableStats.
type tableStats struct {
	ctx context.Context
	l   *leafEstimates
}

func (t tableStats) Rows(s *logical.Scan) float64 {
	v, _ := t.l.get(t.ctx, s)
	return v
}

func (t tableStats) Range(s *logical.Scan, col int) (lo, hi int64, ok bool) {
	_, r := t.l.get(t.ctx, s)
	if r == nil || col < 0 || col >= s.Table.Schema().NumFields() {
		return 0, 0, false
	}
	x, ok := r[s.Table.Schema().Field(col).Name]
	return x[0], x[1], ok
}

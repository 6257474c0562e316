package scan

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/paimon-flightsql/paimon-flightsql/paimon/arrowrow"
)

// buildSelected builds the output batch from the recorded row ranges.
func (m *MergeReader) buildSelected(n int) arrow.RecordBatch {
	cols := make([]arrow.Array, len(m.spec.OutCols))
	for o, in := range m.spec.OutCols {
		m.colSrcs = m.colSrcs[:0]
		for _, b := range m.selFrom {
			m.colSrcs = append(m.colSrcs, b.Column(in))
		}
		cols[o] = arrowrow.Gather(m.mem, m.spec.OutSchema.Field(o).Type, m.colSrcs, m.spans)
	}
	m.clearSelection()
	out := array.NewRecordBatch(m.spec.OutSchema, cols, int64(n))
	for _, c := range cols {
		c.Release()
	}
	return out
}

// mergeOneKey pops every record of the smallest key, merges them and appends
// the result (if any) to the output.
func (m *MergeReader) mergeOneKey() (bool, error) {
	m.group = m.group[:0]
	first := m.h[0]
	firstRow := first.row
	firstKey := first.keys
	for len(m.h) > 0 {
		c := m.h[0]
		if len(m.group) > 0 && m.compareKeys(c.keys, c.row, firstKey, firstRow) != 0 {
			break
		}
		m.group = append(m.group, rec{batch: c.batch, row: c.row, src: c.id, kind: c.kind[c.row]})
		ok, err := m.advance(c)
		if err != nil {
			return false, err
		}
		if ok {
			m.down(0)
		} else {
			m.popTop()
		}
	}
	// The heap pops in (key, sequence) order, so m.group is ordered by sequence.
	switch m.spec.Engine {
	case Deduplicate:
		return m.mergeDeduplicate()
	case FirstRow:
		return m.mergeFirstRow()
	case PartialUpdate:
		return m.mergePartialUpdate()
	default:
		return m.mergeAggregation()
	}
}

func (m *MergeReader) kind(r rec) int8 { return r.kind }

// appendRow selects a whole input row (deduplicate, first-row).
func (m *MergeReader) appendRow(r rec) { m.selectRows(m.cursors[r.src], r.batch, r.row, 1) }

// selectRows adds rows [row, row+n) of batch b of run c to the selection.
func (m *MergeReader) selectRows(c *cursor, b arrow.RecordBatch, row, n int) {
	if n == 0 {
		return
	}
	if k := len(m.spans) - 1; k >= 0 {
		last := &m.spans[k]
		if last.Start+last.Len == row && m.selFrom[last.Src] == b {
			last.Len += n
			return
		}
	}
	if c.selBatch != b { // a run's batches are selected in order
		c.selBatch, c.selIdx = b, len(m.selFrom)
		m.selFrom = append(m.selFrom, b)
	}
	m.spans = append(m.spans, arrowrow.Span{Src: c.selIdx, Start: row, Len: n})
}

// takeSingles is the deduplicate/first-row fast path: while the smallest
// run's current key is below every other run's key and differs from the
// run's next row, the key has a single record, which wins unless it
// retracts. It consumes such rows (never a batch's last row: mergeOneKey
// loads the next batch) and returns how many it selected, at most limit.
func (m *MergeReader) takeSingles(limit int) int {
	c := m.h[0]
	if len(c.keys) == 0 {
		return 0 // no key columns: every record has the same key
	}
	var bound *cursor
	if len(m.h) > 1 {
		bound = m.h[1]
		if len(m.h) > 2 && m.less(m.h[2], bound) {
			bound = m.h[2]
		}
	}
	last := int(c.batch.NumRows()) - 1
	row, start, taken := c.row, c.row, 0
	// The first key column usually decides; compare it inline when typed.
	a0 := &c.keys[0]
	var bv int64
	typed := a0.kind == viewI64 || a0.kind == viewI32
	if bound != nil {
		b0 := &bound.keys[0]
		typed = typed && b0.kind == a0.kind
		if typed {
			bv = b0.int(bound.row)
		}
	}
	for row < last && taken < limit {
		if typed {
			v := a0.int(row)
			if bound != nil && v > bv {
				break
			}
			if (bound != nil && v == bv && m.compareKeys(c.keys, row, bound.keys, bound.row) >= 0) ||
				(v == a0.int(row+1) && m.compareKeys(c.keys, row, c.keys, row+1) == 0) {
				break
			}
		} else if (bound != nil && m.compareKeys(c.keys, row, bound.keys, bound.row) >= 0) ||
			m.compareKeys(c.keys, row, c.keys, row+1) == 0 {
			break
		}
		if isRetract(c.kind[row]) {
			if m.spec.Engine == FirstRow && !m.spec.IgnoreDelete {
				break // mergeOneKey reports the error
			}
			m.selectRows(c, c.batch, start, row-start) // a lone retraction leaves no row
			start = row + 1
		} else {
			taken++
		}
		row++
	}
	if row == c.row {
		return 0
	}
	m.selectRows(c, c.batch, start, row-start)
	c.row = row
	m.down(0)
	return taken
}

// clearSelection forgets the selected rows (the batches stay owned by the
// cursors or m.spent).
func (m *MergeReader) clearSelection() {
	m.spans = m.spans[:0]
	clear(m.selFrom)
	m.selFrom = m.selFrom[:0]
	clear(m.colSrcs)
	m.colSrcs = m.colSrcs[:0]
	for _, c := range m.cursors {
		c.selBatch = nil
	}
}

func (m *MergeReader) mergeDeduplicate() (bool, error) {
	for i := len(m.group) - 1; i >= 0; i-- {
		r := m.group[i]
		if isRetract(m.kind(r)) {
			if m.spec.IgnoreDelete {
				continue
			}
			return false, nil // the latest record deletes the key
		}
		m.appendRow(r)
		return true, nil
	}
	return false, nil
}

func (m *MergeReader) mergeFirstRow() (bool, error) {
	for _, r := range m.group {
		if isRetract(m.kind(r)) {
			if m.spec.IgnoreDelete {
				continue
			}
			return false, fmt.Errorf("first-row merge engine cannot accept DELETE/UPDATE_BEFORE records (set 'ignore-delete' = 'true' to skip them)")
		}
		m.appendRow(r)
		return true, nil
	}
	return false, nil
}

// groupRecords exposes m.group to aggfunc.Merger (columns are output columns).
type groupRecords struct{ m *MergeReader }

func (g groupRecords) Len() int        { return len(g.m.group) }
func (g groupRecords) Kind(i int) int8 { return g.m.group[i].kind }
func (g groupRecords) col(i, c int) arrow.Array {
	return g.m.group[i].batch.Column(g.m.spec.OutCols[c])
}
func (g groupRecords) Null(i, c int) bool { return g.col(i, c).IsNull(g.m.group[i].row) }
func (g groupRecords) Value(i, c int) any { return arrowrow.Value(g.col(i, c), g.m.group[i].row) }
func (g groupRecords) Compare(i, j, c int) int {
	return arrowrow.Compare(g.col(i, c), g.m.group[i].row, g.col(j, c), g.m.group[j].row)
}

// mergePartialUpdate and mergeAggregation fold the group with the merge
// function shared with the writer (aggfunc.Merger, Java's
// PartialUpdateMergeFunction / AggregateMergeFunction behind
// ReducerMergeFunctionWrapper); a -U/-D result is dropped, as Java's
// DropDeleteReader does.
func (m *MergeReader) mergePartialUpdate() (bool, error) { return m.mergeFolded() }

func (m *MergeReader) mergeAggregation() (bool, error) { return m.mergeFolded() }

func (m *MergeReader) mergeFolded() (bool, error) {
	g := groupRecords{m}
	kind, _, err := m.merger.Merge(g, len(m.spec.OutCols))
	if err != nil {
		return false, err
	}
	if isRetract(kind) {
		return false, nil
	}
	for o, cell := range m.merger.Result() {
		switch {
		case cell.Rec >= 0:
			arrowrow.AppendFrom(m.bld.Field(o), g.col(cell.Rec, o), m.group[cell.Rec].row)
		case cell.Val == nil:
			m.bld.Field(o).AppendNull()
		default:
			if err := arrowrow.AppendValue(m.bld.Field(o), cell.Val); err != nil {
				return false, fmt.Errorf("column %s: %w", m.spec.OutSchema.Field(o).Name, err)
			}
		}
	}
	return true, nil
}

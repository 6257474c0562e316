package physical

import (
	"fmt"
	"slices"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
	"github.com/paimon-flightsql/paimon-flightsql/planner/exec"
	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

// Late materialisation (docs/design/scan.md, "Row filter in the reader").
// A scan hands the reader a format.RowFilter made of
//
//   - the residual filter: the conjuncts the scan does not answer exactly,
//     which the exec.Filter above the scan applies (ScanExec.Residual);
//   - the top-N bound (ScanExec.Dynamic, topn.go) on its column;
//   - the runtime join filters wired to the scan (ScanExec.Runtime,
//     runtimefilter.go): rows whose key cannot be among a join's build
//     keys are dropped before their other columns are decoded (the stream
//     still applies them too, for readers that ignore the row filter).
//
// The reader evaluates it on the rows that survive deletion vectors and
// the pushed predicate, after decoding only the columns it reads, and
// decodes the other columns for the rows it keeps (SELECT * ... WHERE
// url LIKE '%x%' decodes the wide columns for the matching rows only).
// Both parts drop only rows the plan drops anyway: the Filter above
// re-applies the residual (a pure expression: same rows, same errors, as
// it sees exactly the rows the reader asked about), and a row past the
// bound cannot enter the top-N. The residual is evaluated first, on every
// row the Filter would see, so a query fails exactly when it would
// without the row filter.

// scanRowFilter is a ScanExec's row filter for one Execute (it carries
// that task's evaluation context). Keep runs concurrently for the files a
// scan reads at once.
type scanRowFilter struct {
	cols []int    // scan output columns read, ascending
	pred vec.Expr // the residual over the positions in cols; nil: none
	dyn  *predicate.Dynamic
	rt   []exec.RuntimeFilterTarget // Col: the position in cols
	tc   *exec.TaskCtx
	mem  memory.Allocator
	st   *rowFilterStats
}

// rowFilterStats count the rows the reader asked about and kept.
type rowFilterStats struct{ in, kept atomic.Int64 }

// newScanRowFilter returns the row filter of se for tc, or nil when se
// has neither a residual nor a top-N bound.
func newScanRowFilter(se *ScanExec, tc *exec.TaskCtx) (*scanRowFilter, error) {
	var cols []int
	if se.Residual != nil {
		cols = append(cols, vec.Columns(se.Residual)...)
	}
	dyn := se.Dynamic
	if dyn != nil && se.DynamicCol >= 0 {
		cols = append(cols, se.DynamicCol)
	} else {
		dyn = nil
	}
	for _, t := range se.Runtime {
		cols = append(cols, t.Col)
	}
	if se.Residual == nil && dyn == nil && len(se.Runtime) == 0 {
		return nil, nil
	}
	slices.Sort(cols)
	cols = slices.Compact(cols)
	rf := &scanRowFilter{cols: cols, dyn: dyn, tc: tc, mem: tc.Mem, st: &se.rowStats}
	for _, t := range se.Runtime {
		j, ok := slices.BinarySearch(cols, t.Col)
		if !ok {
			return nil, fmt.Errorf("physical: runtime filter column #%d not read", t.Col)
		}
		rf.rt = append(rf.rt, exec.RuntimeFilterTarget{Slot: t.Slot, Col: j})
	}
	if se.Residual != nil {
		m := make(map[int]int, len(cols))
		for j, c := range cols {
			m[c] = j
		}
		p, err := vec.Remap(se.Residual, m)
		if err != nil {
			return nil, err
		}
		rf.pred = p
	}
	return rf, nil
}

func (f *scanRowFilter) Columns() []int { return f.cols }

func (f *scanRowFilter) Keep(rec arrow.RecordBatch) (*array.Boolean, error) {
	n := int(rec.NumRows())
	f.st.in.Add(int64(n))
	keep := make([]byte, bitutil.BytesForBits(int64(n)))
	bitutil.SetBitsTo(keep, 0, int64(n), true)
	if f.pred != nil {
		a, err := f.pred.Eval(f.tc.EvalCtx(), rec)
		if err != nil {
			return nil, err
		}
		m, ok := a.(*array.Boolean)
		if !ok {
			a.Release()
			return nil, fmt.Errorf("exec: filter %s is %s, not BOOLEAN", f.pred, a.DataType())
		}
		andMask(keep, m)
		m.Release()
	}
	if f.dyn != nil {
		if p := f.dyn.Load(); p != nil {
			// the bound only saves work: one it cannot evaluate here (a
			// column it does not find) drops nothing
			if m, err := predicate.EvalArrow(p, rec, f.mem); err == nil {
				andMask(keep, m)
				m.Release()
			}
		}
	}
	if len(f.rt) > 0 {
		if err := f.keepRuntime(rec, keep, n); err != nil {
			return nil, err
		}
	}
	f.st.kept.Add(int64(bitutil.CountSetBits(keep, 0, n)))
	buf := memory.NewResizableBuffer(f.mem)
	buf.Resize(len(keep))
	copy(buf.Bytes(), keep)
	data := array.NewData(arrow.FixedWidthTypes.Boolean, n, []*memory.Buffer{nil, buf}, nil, 0, 0)
	buf.Release()
	defer data.Release()
	return array.NewBooleanData(data), nil
}

// andMask clears the bits of keep where m is not TRUE (FALSE or NULL).
func andMask(keep []byte, m *array.Boolean) {
	n := m.Len()
	vals := m.Data().Buffers()[1].Bytes()
	off := m.Data().Offset()
	var valid []byte
	if m.NullN() > 0 && m.Data().Buffers()[0] != nil {
		valid = m.Data().Buffers()[0].Bytes()
	}
	if off == 0 {
		full := n / 8
		for i := 0; i < full; i++ {
			b := vals[i]
			if valid != nil {
				b &= valid[i]
			}
			keep[i] &= b
		}
		for i := full * 8; i < n; i++ {
			if !bitutil.BitIsSet(vals, i) || valid != nil && !bitutil.BitIsSet(valid, i) {
				bitutil.ClearBit(keep, i)
			}
		}
		return
	}
	for i := 0; i < n; i++ {
		if !bitutil.BitIsSet(vals, off+i) || valid != nil && !bitutil.BitIsSet(valid, off+i) {
			bitutil.ClearBit(keep, i)
		}
	}
}

// keepRuntime clears the bits of keep for the rows a published runtime
// join filter rejects (after the residual and the bound, so the residual
// saw every row the Filter above would).
func (f *scanRowFilter) keepRuntime(rec arrow.RecordBatch, keep []byte, n int) error {
	var rows []bool
	for _, t := range f.rt {
		if t.Slot.Load() == nil {
			continue
		}
		if rows == nil {
			rows = make([]bool, n)
			for i := range rows {
				rows[i] = bitutil.BitIsSet(keep, i)
			}
		}
		kept, _, err := t.Slot.KeepRows(rec.Column(t.Col), rows)
		if err != nil {
			return err
		}
		if kept == 0 {
			break
		}
	}
	if rows == nil {
		return nil
	}
	for i, k := range rows {
		if !k {
			bitutil.ClearBit(keep, i)
		}
	}
	return nil
}

package planner

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-flightsql/paimon-flightsql/planner/exec"
	"github.com/paimon-flightsql/paimon-flightsql/planner/physical"
)

// EstimatedBytes estimates the size of the result from what planning
// knows: the rows of the planned scans (metadata counts, an upper bound
// when filters apply) times the width of the output row. known is false
// when a scan cannot count its rows, or the statement was not planned
// (parameters, statements other than queries). Servers use it to choose
// how many endpoints a result gets; it is not a limit.
func (s *Statement) EstimatedBytes() (n int64, known bool) {
	if s.kind != kindSQL || s.sq == nil || s.sq.op == nil {
		return 0, false
	}
	rows, ok := estimatedRows(s.sq.op)
	if !ok {
		return 0, false
	}
	return rows * rowWidth(s.schema), true
}

// estimatedRows is an upper bound of the rows op returns, from the scans'
// metadata row counts.
func estimatedRows(op exec.Operator) (int64, bool) {
	if n, ok := rowCount(op); ok {
		return n, true
	}
	switch x := op.(type) {
	case *physical.ScanExec:
		n, _ := x.Scan.RowCount()
		return n, n >= 0
	case *exec.Limit:
		n, ok := estimatedRows(x.Input)
		if ok && x.Fetch >= 0 {
			n = min(n, x.Fetch)
		}
		return n, ok
	}
	var total int64
	ch := op.Children()
	if len(ch) == 0 {
		return 0, false
	}
	for _, c := range ch {
		n, ok := estimatedRows(c)
		if !ok {
			return 0, false
		}
		total += n
	}
	return total, true
}

// rowWidth is the estimated Arrow size of one row of sc: fixed widths, 32
// bytes per variable-length value.
func rowWidth(sc *arrow.Schema) int64 {
	var w int64
	for _, f := range sc.Fields() {
		w += typeWidth(f.Type)
	}
	return max(w, 1)
}

func typeWidth(dt arrow.DataType) int64 {
	switch t := dt.(type) {
	case arrow.FixedWidthDataType:
		return max(int64(t.BitWidth()/8), 1)
	case *arrow.StructType:
		var w int64
		for _, f := range t.Fields() {
			w += typeWidth(f.Type)
		}
		return w
	case arrow.ListLikeType:
		return 4 + 4*typeWidth(t.Elem())
	}
	return 32
}

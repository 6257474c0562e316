package planner

import (
	stdcmp "cmp"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
)

// fastCompare evaluates `column op constant` over a whole batch with typed
// loops (no per-row dispatch) for the common column types. ok is false when
// the expression does not have that shape; the generic path is used then.
func fastCompare(e expr, rec arrow.RecordBatch) (keep []bool, n int, ok bool) {
	c, isCmp := e.(*cmp)
	if !isCmp || c.op == "<=>" {
		return nil, 0, false
	}
	col, isCol := c.l.(*colRef)
	lit, isLit := c.r.(*literal)
	op := c.op
	if !isCol || !isLit {
		col, isCol = c.r.(*colRef)
		lit, isLit = c.l.(*literal)
		op = flipOp[op]
	}
	if !isCol || !isLit || lit.v == nil || op == "" {
		return nil, 0, false
	}
	arr := rec.Column(col.idx)
	switch a := arr.(type) {
	case *array.Int64:
		v, ok := lit.v.(int64)
		if !ok {
			return nil, 0, false
		}
		keep, n = cmpLoop(a, a.Int64Values(), v, op)
	case *array.Int32:
		v, ok := lit.v.(int64)
		if !ok || v != int64(int32(v)) {
			return nil, 0, false
		}
		keep, n = cmpLoop(a, a.Int32Values(), int32(v), op)
	case *array.Date32:
		v, ok := lit.v.(int64)
		if !ok || v != int64(int32(v)) {
			return nil, 0, false
		}
		vals := make([]int32, a.Len())
		for i := range vals {
			vals[i] = int32(a.Value(i))
		}
		keep, n = cmpLoop(a, vals, int32(v), op)
	case *array.Float64:
		v, ok := lit.v.(float64)
		if !ok {
			return nil, 0, false
		}
		keep = make([]bool, a.Len())
		for i, x := range a.Float64Values() {
			if a.IsValid(i) && cmpResult(op, predicate.CompareFloat(x, v)) {
				keep[i] = true
				n++
			}
		}
	case *array.String:
		v, ok := lit.v.(string)
		if !ok {
			return nil, 0, false
		}
		keep = make([]bool, a.Len())
		for i := range keep {
			if a.IsValid(i) && cmpResult(op, stdcmp.Compare(a.Value(i), v)) {
				keep[i] = true
				n++
			}
		}
	default:
		return nil, 0, false
	}
	return keep, n, true
}

func cmpLoop[T int32 | int64](a arrow.Array, vals []T, v T, op string) ([]bool, int) {
	keep := make([]bool, len(vals))
	n := 0
	nulls := a.NullN() > 0
	for i, x := range vals {
		if nulls && a.IsNull(i) {
			continue
		}
		if cmpResult(op, stdcmp.Compare(x, v)) {
			keep[i] = true
			n++
		}
	}
	return keep, n
}

package physical

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/scalar"

	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
	"github.com/paimon-flightsql/paimon-flightsql/planner/exec"
	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

// Runtime join filters (exec/join_filter.go): for each equi-join key of a
// HashJoin that drops unmatched probe rows, whose probe side is a plain
// column, the column is traced down the probe side to the scan that reads
// it, and the scan applies the join's filter over its build keys to every
// batch it returns once the build is done. The trace passes only through
// operators where dropping an input row whose column value is not among
// the build keys can only drop output rows whose key is not among them
// (and so would find no match):
//
//   - Filter, and Project where the column is a plain column reference;
//   - HashJoin: the left (probe) input of inner, left, semi, anti and mark
//     joins; the right (build) input of inner and right joins and the
//     right input of right semi / right anti joins (their output is the
//     right rows) — each side's rows reach the output only with their own
//     value of the column (a NULL-extended row has NULL, which matches
//     nothing);
//   - HashAggregate without grouping sets, where the column is a group key
//     that is a plain input column (a group's rows share its key).
//
// Anything else (sorts with a limit, windows, set operations, nested-loop
// joins, expressions) stops the trace: no filter.

// runtimeFilters connects h's keys to the scans producing its probe keys.
func runtimeFilters(h *exec.HashJoin) {
	for k, e := range h.LeftKeys {
		c, ok := e.(*vec.Column)
		if !ok || k < len(h.NullSafe) && h.NullSafe[k] || !exec.RuntimeFilterType(e.Type()) {
			continue
		}
		se, col := rfTrace(h.Left, c.Index)
		if se == nil || col < 0 || col >= se.S.NumFields() {
			continue
		}
		if ft := se.S.Field(col).Type; !arrow.TypeEqual(ft, e.Type()) {
			continue
		}
		slot := &exec.RuntimeFilterSlot{Key: k, Desc: e.String() + " = " + h.RightKeys[k].String()}
		if h.AddRuntimeFilter(slot) {
			se.Runtime = append(se.Runtime, exec.RuntimeFilterTarget{Slot: slot, Col: col})
		}
	}
}

// rfTrace follows column col of op down to the scan that reads it (nil
// when the trace stops; see above).
func rfTrace(op exec.Operator, col int) (*ScanExec, int) {
	for {
		switch x := op.(type) {
		case *Counted:
			op = x.Op
		case *exec.Filter:
			op = x.Input
		case *exec.Project:
			if col < 0 || col >= len(x.Exprs) {
				return nil, -1
			}
			c, ok := x.Exprs[col].(*vec.Column)
			if !ok {
				return nil, -1
			}
			col, op = c.Index, x.Input
		case *exec.HashJoin:
			nl := x.Left.Schema().NumFields()
			switch x.Type {
			case exec.InnerJoin:
				if col >= nl {
					col, op = col-nl, x.Right
				} else {
					op = x.Left
				}
			case exec.LeftJoin, exec.SemiJoin, exec.AntiJoin, exec.MarkJoin:
				if col >= nl {
					return nil, -1
				}
				op = x.Left
			case exec.RightJoin:
				if col < nl {
					return nil, -1
				}
				col, op = col-nl, x.Right
			case exec.RightSemiJoin, exec.RightAntiJoin:
				op = x.Right
			default:
				return nil, -1
			}
		case *exec.HashAggregate:
			if x.GroupingSets != nil || col < 0 || col >= len(x.Groups) {
				return nil, -1
			}
			c, ok := x.Groups[col].(*vec.Column)
			if !ok {
				return nil, -1
			}
			col, op = c.Index, x.Input
		case *ScanExec:
			return x, col
		default:
			return nil, -1
		}
	}
}

// runtimeRanges is the conjunction of `key BETWEEN min AND max` over the
// runtime filters published to the scan on integer-like keys, as a
// Dynamic predicate for skipping by statistics (nil when none): a row
// outside a join's build key range cannot meet a build row, and the join
// drops it (only such joins publish, exec.rfJoinTypes).
func (s *ScanExec) runtimeRanges() *predicate.Dynamic {
	var ps []predicate.Predicate
	for _, t := range s.Runtime {
		f := t.Slot.Load()
		lo, hi, ok := f.IntRange()
		if !ok || t.Col < 0 || t.Col >= s.S.NumFields() {
			continue
		}
		fld := s.S.Field(t.Col)
		pt, id, ok := paimonField(fld, t.Col)
		if !ok {
			continue
		}
		los, his, ok := intScalars(fld.Type, lo, hi)
		if !ok {
			continue
		}
		lv, ok1 := literalValue(los, pt)
		hv, ok2 := literalValue(his, pt)
		if !ok1 || !ok2 {
			continue
		}
		ps = append(ps,
			&predicate.Leaf{Column: fld.Name, FieldID: id, Type: pt, Op: predicate.GtEq, Literals: []any{lv}},
			&predicate.Leaf{Column: fld.Name, FieldID: id, Type: pt, Op: predicate.LtEq, Literals: []any{hv}})
	}
	if len(ps) == 0 {
		return nil
	}
	d := &predicate.Dynamic{}
	d.Store(predicate.NewAnd(ps...))
	return d
}

// intScalars makes lo and hi scalars of the integer-like type t (the
// runtime filter's int64 view of the key), false for other types.
func intScalars(t arrow.DataType, lo, hi int64) (scalar.Scalar, scalar.Scalar, bool) {
	switch t.ID() {
	case arrow.INT8:
		return scalar.NewInt8Scalar(int8(lo)), scalar.NewInt8Scalar(int8(hi)), true
	case arrow.INT16:
		return scalar.NewInt16Scalar(int16(lo)), scalar.NewInt16Scalar(int16(hi)), true
	case arrow.INT32:
		return scalar.NewInt32Scalar(int32(lo)), scalar.NewInt32Scalar(int32(hi)), true
	case arrow.INT64:
		return scalar.NewInt64Scalar(lo), scalar.NewInt64Scalar(hi), true
	case arrow.DATE32:
		return scalar.NewDate32Scalar(arrow.Date32(lo)), scalar.NewDate32Scalar(arrow.Date32(hi)), true
	}
	return nil, nil, false
}

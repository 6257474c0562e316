package physical

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/scalar"

	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
	"github.com/paimon-flightsql/paimon-flightsql/planner/exec"
	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

// Top-N bound pushed into the scan (docs/design/scan.md, "Dynamic top-N
// bound"). For ORDER BY c ... LIMIT n over a chain of projections and
// filters down to a scan, where c (the first key) is a scan column of an
// integer, date, time, timestamp, decimal or string type, the Sort tells a
// predicate.Dynamic the first key of its current n-th row; the scan skips
// data files whose statistics cannot hold a row ordering at or before it
// (not for strings: their statistics are truncated) and its reader drops
// rows past it:
//
//	ASC  NULLS LAST   c <= v
//	ASC  NULLS FIRST  c <= v OR c IS NULL
//	DESC NULLS FIRST  c >= v OR c IS NULL
//	DESC NULLS LAST   c >= v
//
// A row past the bound cannot enter the result (the final n-th row is at
// least as good as any partition's n-th); ties on c are kept (later keys
// may still order them first). When the n-th row's c is NULL no bound is
// set. The scan skips whole files by it, and its reader drops the rows
// past it before decoding their other columns (rowfilter.go).

// topNBound wires the bound for a Sort of keys with fetch over in, or
// returns nil when the plan shape or key type does not allow it.
func topNBound(in exec.Operator, keys []exec.SortKey, fetch int64) *exec.TopNBound {
	if fetch <= 0 || len(keys) == 0 {
		return nil
	}
	c, ok := keys[0].Expr.(*vec.Column)
	if !ok {
		return nil
	}
	top := c.Index
	col := c.Index
	op := in
	for {
		switch x := op.(type) {
		case *exec.Project:
			if col < 0 || col >= len(x.Exprs) {
				return nil
			}
			cc, ok := x.Exprs[col].(*vec.Column)
			if !ok {
				return nil
			}
			col, op = cc.Index, x.Input
			continue
		case *exec.Filter:
			op = x.Input
			continue
		case *Counted:
			op = x.Op
			continue
		case *ScanExec:
			return scanBound(x, col, top, keys[0])
		}
		return nil
	}
}

func scanBound(se *ScanExec, col, top int, key exec.SortKey) *exec.TopNBound {
	if col < 0 || col >= se.S.NumFields() {
		return nil
	}
	f := se.S.Field(col)
	t, id, ok := paimonField(f, col)
	if !ok {
		return nil
	}
	rowsOnly := false
	switch t.Root {
	case types.TinyInt, types.SmallInt, types.Int, types.BigInt, types.Date, types.Time,
		types.Timestamp, types.TimestampLTZ, types.Decimal:
	case types.Char, types.VarChar:
		// rows compare exactly (bytewise, as the sort), but truncated
		// string statistics must not skip files
		rowsOnly = true
	default:
		return nil
	}
	if se.Dynamic == nil {
		se.Dynamic, se.DynamicCol, se.DynamicRowsOnly = &predicate.Dynamic{}, col, rowsOnly
	} else if se.DynamicCol != col {
		return nil // one bound per scan (its reader filters rows by it)
	}
	dyn := se.Dynamic
	op := predicate.LtEq
	if key.Desc {
		op = predicate.GtEq
	}
	return &exec.TopNBound{Col: top, Set: func(a arrow.Array, row int) {
		if a.IsNull(row) || !arrow.TypeEqual(a.DataType(), f.Type) {
			return
		}
		s, err := scalar.GetScalar(a, row)
		if err != nil {
			return
		}
		lv, ok := literalValue(s, t)
		if !ok {
			return
		}
		var p predicate.Predicate = &predicate.Leaf{Column: f.Name, FieldID: id, Type: t, Op: op, Literals: []any{lv}}
		if key.NullsFirst {
			p = predicate.NewOr(p, &predicate.Leaf{Column: f.Name, FieldID: id, Type: t, Op: predicate.IsNull})
		}
		dyn.Store(p)
	}}
}

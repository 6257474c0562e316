package physical

import (
	"math/big"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/scalar"

	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

// Paimon types of scan columns: the Arrow field's metadata "paimon.type"
// when present, else the inverse of paimon/format.ArrowType; the field id
// from "paimon.field_id", else the position.
func paimonField(f arrow.Field, pos int) (types.DataType, int, bool) {
	id := pos
	if v, ok := f.Metadata.GetValue("paimon.field_id"); ok {
		if n, err := strconv.Atoi(v); err == nil {
			id = n
		}
	}
	if v, ok := f.Metadata.GetValue("paimon.type"); ok {
		if t, err := types.ParseAtomic(v); err == nil {
			return t, id, true
		}
	}
	var t types.DataType
	switch at := f.Type.(type) {
	case *arrow.BooleanType:
		t = types.NewBoolean()
	case *arrow.Int8Type:
		t = types.NewTinyInt()
	case *arrow.Int16Type:
		t = types.NewSmallInt()
	case *arrow.Int32Type:
		t = types.NewInt()
	case *arrow.Int64Type:
		t = types.NewBigInt()
	case *arrow.Float32Type:
		t = types.NewFloat()
	case *arrow.Float64Type:
		t = types.NewDouble()
	case *arrow.Decimal128Type:
		t = types.NewDecimal(int(at.Precision), int(at.Scale))
	case *arrow.StringType, *arrow.LargeStringType:
		t = types.NewString()
	case *arrow.BinaryType, *arrow.LargeBinaryType:
		t = types.NewBytes()
	case *arrow.Date32Type:
		t = types.NewDate()
	case *arrow.TimestampType:
		p := map[arrow.TimeUnit]int{arrow.Second: 0, arrow.Millisecond: 3, arrow.Microsecond: 6, arrow.Nanosecond: 9}[at.Unit]
		if at.TimeZone != "" {
			t = types.NewTimestampLTZ(p)
		} else {
			t = types.NewTimestamp(p)
		}
	default:
		return types.DataType{}, 0, false
	}
	t.Nullable = f.Nullable
	return t, id, true
}

// literalValue converts a scalar of the column's own Arrow type to the
// predicate literal convention of Paimon type t.
func literalValue(s scalar.Scalar, t types.DataType) (any, bool) {
	if !s.IsValid() {
		return nil, false
	}
	switch v := s.(type) {
	case *scalar.Boolean:
		return v.Value, t.Root == types.Boolean
	case *scalar.Int8:
		return int64(v.Value), true
	case *scalar.Int16:
		return int64(v.Value), true
	case *scalar.Int32:
		return int64(v.Value), true
	case *scalar.Int64:
		return v.Value, true
	case *scalar.Float32:
		return float64(v.Value), true
	case *scalar.Float64:
		return v.Value, true
	case *scalar.Decimal128:
		dt := v.Type.(*arrow.Decimal128Type)
		return predicate.Decimal{Unscaled: v.Value.BigInt(), Scale: int(dt.Scale)}, t.Root == types.Decimal && int(dt.Scale) == t.Scale
	case *scalar.String:
		return string(v.Value.Bytes()), t.Root == types.Char || t.Root == types.VarChar
	case *scalar.Binary:
		return append([]byte{}, v.Value.Bytes()...), t.Root == types.Binary || t.Root == types.VarBinary
	case *scalar.Date32:
		return int64(v.Value), t.Root == types.Date
	case *scalar.Timestamp:
		unit := v.Type.(*arrow.TimestampType).Unit
		n := int64(v.Value)
		var nanos *big.Int
		switch unit {
		case arrow.Second:
			nanos = new(big.Int).Mul(big.NewInt(n), big.NewInt(1e9))
		case arrow.Millisecond:
			nanos = new(big.Int).Mul(big.NewInt(n), big.NewInt(1e6))
		case arrow.Microsecond:
			nanos = new(big.Int).Mul(big.NewInt(n), big.NewInt(1e3))
		default:
			nanos = big.NewInt(n)
		}
		ms, rem := new(big.Int).DivMod(nanos, big.NewInt(1e6), new(big.Int))
		if t.Root != types.Timestamp && t.Root != types.TimestampLTZ {
			return nil, false
		}
		return predicate.Timestamp{Millis: ms.Int64(), NanoOfMilli: int32(rem.Int64())}, true
	}
	return nil, false
}

var flipOp = map[string]string{"=": "=", "<>": "<>", "<": ">", "<=": ">=", ">": "<", ">=": "<="}
var leafOp = map[string]predicate.Op{"=": predicate.Eq, "<>": predicate.NotEq,
	"<": predicate.Lt, "<=": predicate.LtEq, ">": predicate.Gt, ">=": predicate.GtEq}

// plainColumn unwraps exact widening casts of a column (an INT column
// compared with a BIGINT literal) so the literal can be narrowed instead.
func plainColumn(e vec.Expr) (*vec.Column, bool) {
	for {
		switch x := e.(type) {
		case *vec.Column:
			return x, true
		case *vec.Cast:
			if !x.Implicit || !vec.IsInteger(x.E.Type()) || !vec.IsInteger(x.To) {
				return nil, false
			}
			e = x.E
		default:
			return nil, false
		}
	}
}

// toPredicate converts a bound boolean expression over the scan's output
// schema into an exactly equivalent predicate, or ok=false.
func toPredicate(e vec.Expr, schema *arrow.Schema) (predicate.Predicate, bool) {
	leaf := func(c *vec.Column, op predicate.Op, vals ...vec.Expr) (predicate.Predicate, bool) {
		f := schema.Field(c.Index)
		t, id, ok := paimonField(f, c.Index)
		if !ok {
			return nil, false
		}
		lits := make([]any, len(vals))
		for i, v := range vals {
			l, isLit := v.(*vec.Literal)
			if !isLit {
				return nil, false
			}
			s := l.Value
			if !arrow.TypeEqual(s.DataType(), f.Type) {
				cs, err := vec.CastScalar(s, f.Type)
				if err != nil {
					return nil, false
				}
				// exact only: casting back must give the same value
				back, err := vec.CastScalar(cs, s.DataType())
				if err != nil || !scalar.Equals(back, s) {
					return nil, false
				}
				s = cs
			}
			lv, ok := literalValue(s, t)
			if !ok {
				return nil, false
			}
			lits[i] = lv
		}
		return &predicate.Leaf{Column: f.Name, FieldID: id, Type: t, Op: op, Literals: lits}, true
	}
	switch x := e.(type) {
	case *vec.Logic:
		ps := make([]predicate.Predicate, len(x.Args))
		for i, a := range x.Args {
			p, ok := toPredicate(a, schema)
			if !ok {
				return nil, false
			}
			ps[i] = p
		}
		if x.IsOr {
			return predicate.NewOr(ps...), true
		}
		return predicate.NewAnd(ps...), true
	case *vec.Not:
		p, ok := toPredicate(x.E, schema)
		if !ok {
			return nil, false
		}
		if n, ok := p.(*predicate.Not); ok {
			return n.Child, true // NOT NOT p = p
		}
		return &predicate.Not{Child: p}, true
	case *vec.Compare:
		op := x.Operator()
		c, isCol := plainColumn(x.L)
		other := x.R
		if !isCol {
			c, isCol = plainColumn(x.R)
			other = x.L
			op = flipOp[op]
		}
		lop, known := leafOp[op]
		if !isCol || !known {
			return nil, false
		}
		if l, ok := other.(*vec.Literal); !ok || !l.Value.IsValid() {
			return nil, false
		}
		return leaf(c, lop, other)
	case *vec.IsNull:
		c, ok := x.E.(*vec.Column)
		if !ok {
			return nil, false
		}
		if x.Negate {
			return leaf(c, predicate.IsNotNull)
		}
		return leaf(c, predicate.IsNull)
	case *vec.Literal:
		if b, ok := x.Value.(*scalar.Boolean); ok && b.IsValid() {
			return predicate.Const(b.Value), true
		}
	}
	return likeOrIn(e, leaf)
}

type leafFn func(c *vec.Column, op predicate.Op, vals ...vec.Expr) (predicate.Predicate, bool)

var _ = strings.HasPrefix

// ToPredicate converts a condition over schema into an exactly equivalent
// predicate (ok=false when it cannot).
func ToPredicate(e vec.Expr, schema *arrow.Schema) (predicate.Predicate, bool) {
	return toPredicate(e, schema)
}

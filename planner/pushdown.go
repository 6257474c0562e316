package planner

import (
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// Paimon types of Arrow columns. Assumption (documented in
// docs/design/planner.md): a field may carry its Paimon type as SQL text in
// metadata key "paimon.type" and its field id under "paimon.field_id" (the
// key paimon/format writes); otherwise the type is derived from the Arrow
// type by inverting paimon/format.ArrowType and the field id is the
// column's position.
const (
	paimonTypeKey    = "paimon.type"
	paimonFieldIDKey = "paimon.field_id"
)

// paimonField returns the Paimon type and field id of column f at position
// pos, or ok=false when the column cannot be filtered by the scan.
func paimonField(f arrow.Field, pos int) (types.DataType, int, bool) {
	id := pos
	if v, ok := f.Metadata.GetValue(paimonFieldIDKey); ok {
		if n, err := strconv.Atoi(v); err == nil {
			id = n
		}
	}
	if v, ok := f.Metadata.GetValue(paimonTypeKey); ok {
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
	case *arrow.Time32Type:
		t = types.DataType{Root: types.Time, Nullable: true}
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

// paimonLiteral converts a runtime value to the predicate literal of Paimon
// type t, only when the conversion is exact.
func paimonLiteral(v any, t types.DataType) (any, bool) {
	if v == nil {
		return nil, false
	}
	switch t.Root {
	case types.Boolean:
		b, ok := v.(bool)
		return b, ok
	case types.TinyInt, types.SmallInt, types.Int, types.BigInt:
		n, err := coerceConst(v, cInt)
		return n, err == nil
	case types.Float, types.Double:
		f, err := coerceConst(v, cFloat)
		return f, err == nil
	case types.Decimal:
		d, err := coerceConst(v, cDecimal)
		if err != nil {
			return nil, false
		}
		dd := d.(predicate.Decimal)
		u := dd.Rescale(t.Scale)
		if (predicate.Decimal{Unscaled: u, Scale: t.Scale}).Rescale(dd.Scale).Cmp(dd.Rescale(dd.Scale)) != 0 {
			return nil, false
		}
		return predicate.Decimal{Unscaled: u, Scale: t.Scale}, true
	case types.Char, types.VarChar:
		s, ok := v.(string)
		return s, ok
	case types.Binary, types.VarBinary:
		b, ok := v.([]byte)
		return b, ok
	case types.Date:
		n, ok := v.(int64)
		return n, ok
	case types.Time:
		n, ok := v.(int64)
		if !ok || n%1000 != 0 {
			return nil, false
		}
		return n / 1000, true
	case types.Timestamp, types.TimestampLTZ:
		us, ok := v.(int64)
		if !ok {
			return nil, false
		}
		ms := floorDiv(us, 1000)
		return predicate.Timestamp{Millis: ms, NanoOfMilli: int32((us - ms*1000) * 1000)}, true
	}
	return nil, false
}

// constValue returns the value of a constant expression (literal, or bound
// parameter when params is non-nil).
func constValue(e expr, params []any) (any, bool) {
	switch x := e.(type) {
	case *literal:
		return x.v, true
	case *param:
		if params == nil || x.n >= len(params) {
			return nil, false
		}
		v, err := convertParam(params[x.n], x.t)
		return v, err == nil
	}
	return nil, false
}

var flipOp = map[string]string{"=": "=", "<>": "<>", "!=": "<>", "<": ">", "<=": ">=", ">": "<", ">=": "<="}
var leafOp = map[string]predicate.Op{"=": predicate.Eq, "<>": predicate.NotEq, "!=": predicate.NotEq,
	"<": predicate.Lt, "<=": predicate.LtEq, ">": predicate.Gt, ">=": predicate.GtEq}

// toPredicate converts a bound boolean expression over schema (the scan's
// input) to an exactly equivalent predicate, or ok=false.
func toPredicate(e expr, schema *arrow.Schema, params []any) (predicate.Predicate, bool) {
	leaf := func(c *colRef, op predicate.Op, vals ...any) (predicate.Predicate, bool) {
		t, id, ok := paimonField(schema.Field(c.idx), c.idx)
		if !ok {
			return nil, false
		}
		lits := make([]any, len(vals))
		for i, v := range vals {
			l, ok := paimonLiteral(v, t)
			if !ok {
				return nil, false
			}
			lits[i] = l
		}
		return &predicate.Leaf{Column: c.name, FieldID: id, Type: t, Op: op, Literals: lits}, true
	}
	switch x := e.(type) {
	case *logic:
		ps := make([]predicate.Predicate, len(x.args))
		for i, a := range x.args {
			p, ok := toPredicate(a, schema, params)
			if !ok {
				return nil, false
			}
			ps[i] = p
		}
		if x.and {
			return predicate.NewAnd(ps...), true
		}
		return predicate.NewOr(ps...), true
	case *not:
		p, ok := toPredicate(x.e, schema, params)
		if !ok {
			return nil, false
		}
		return &predicate.Not{Child: p}, true
	case *cmp:
		op := x.op
		c, isCol := x.l.(*colRef)
		other := x.r
		if !isCol {
			c, isCol = x.r.(*colRef)
			other = x.l
			op = flipOp[op]
		}
		lop, known := leafOp[op]
		if !isCol || !known {
			return nil, false
		}
		v, ok := constValue(other, params)
		if !ok || v == nil {
			return nil, false
		}
		return leaf(c, lop, v)
	case *isNull:
		c, ok := x.e.(*colRef)
		if !ok {
			return nil, false
		}
		if x.neg {
			return leaf(c, predicate.IsNotNull)
		}
		return leaf(c, predicate.IsNull)
	case *inList:
		c, ok := x.e.(*colRef)
		if !ok || len(x.list) == 0 {
			return nil, false
		}
		vals := make([]any, len(x.list))
		for i, it := range x.list {
			v, ok := constValue(it, params)
			if !ok || v == nil {
				return nil, false
			}
			vals[i] = v
		}
		if x.neg {
			return leaf(c, predicate.NotIn, vals...)
		}
		return leaf(c, predicate.In, vals...)
	case *like:
		c, ok := x.e.(*colRef)
		if !ok || x.neg || x.ci || classOf(c.t) != cString {
			return nil, false
		}
		v, ok := constValue(x.pat, params)
		if !ok || v == nil {
			return nil, false
		}
		pat := v.(string)
		if !strings.ContainsAny(pat, `%_\`) {
			return leaf(c, predicate.Eq, pat)
		}
		prefix := strings.TrimSuffix(pat, "%")
		if prefix == pat || strings.ContainsAny(prefix, `%_\`) {
			return nil, false
		}
		return leaf(c, predicate.StartsWith, prefix)
	case *literal:
		if b, ok := x.v.(bool); ok {
			return predicate.Const(b), true
		}
	}
	return nil, false
}

package vec

import (
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/scalar"
)

// Cast converts its operand to To. Implicit casts are inserted by the typing
// rules (ImplicitCast) and render as their operand; explicit ones come
// from SQL CAST and render as CAST(e AS T).
type Cast struct {
	E        Expr
	To       arrow.DataType
	Implicit bool
	// Try is TRY_CAST: a value that does not convert is NULL, not an error.
	Try bool
}

// NewCast is SQL CAST(e AS to) with DuckDB semantics: strings parse
// (spaces trimmed; a bad value is an error naming it), numbers format,
// DOUBLE to integer rounds half away from zero, DECIMAL rescales HALF_UP,
// out-of-range values are errors.
func NewCast(e Expr, to arrow.DataType) (Expr, error) {
	if to == nil {
		return nil, invalidf("CAST of %s to no type", e)
	}
	from := e.Type()
	if p, ok := e.(*Param); ok && isNull(p.T) {
		return &Param{N: p.N, T: to}, nil
	}
	if !castSupported(from, to) {
		return nil, invalidf("cannot CAST %s of type %s to %s", e, TypeName(from), TypeName(to))
	}
	return &Cast{E: e, To: to}, nil
}

func (c *Cast) Type() arrow.DataType { return c.To }
func (c *Cast) Nullable() bool       { return c.Try || c.E.Nullable() }
func (c *Cast) Children() []Expr     { return []Expr{c.E} }
func (c *Cast) WithChildren(ch []Expr) Expr {
	cp := *c
	cp.E = ch[0]
	return &cp
}
func (c *Cast) String() string {
	if c.Implicit {
		return c.E.String()
	}
	if c.Try {
		return "TRY_CAST(" + c.E.String() + " AS " + TypeName(c.To) + ")"
	}
	return "CAST(" + c.E.String() + " AS " + TypeName(c.To) + ")"
}

func (c *Cast) Eval(ctx *Ctx, b arrow.RecordBatch) (arrow.Array, error) {
	a, err := c.E.Eval(ctx, b)
	if err != nil {
		return nil, err
	}
	defer a.Release()
	out, err := CastArray(ctx.Mem, a, c.To)
	if err != nil && c.Try {
		return tryCastRows(ctx.Mem, a, c.To)
	}
	return out, err
}

// tryCastRows casts row by row, with NULL where a row does not convert
// (TRY_CAST after the whole array failed).
func tryCastRows(mem memory.Allocator, a arrow.Array, to arrow.DataType) (arrow.Array, error) {
	parts := make([]arrow.Array, 0, a.Len())
	defer func() {
		for _, p := range parts {
			p.Release()
		}
	}()
	for i := 0; i < a.Len(); i++ {
		row := array.NewSlice(a, int64(i), int64(i+1))
		r, err := CastArray(mem, row, to)
		row.Release()
		if err != nil || r == nil || r.Len() != 1 {
			if r != nil {
				r.Release()
			}
			r = array.MakeArrayOfNull(mem, to, 1)
		}
		parts = append(parts, r)
	}
	if len(parts) == 0 {
		return array.MakeArrayOfNull(mem, to, 0), nil
	}
	return array.Concatenate(parts, mem)
}

// castSupported reports whether CastArray handles from → to.
func castSupported(from, to arrow.DataType) bool {
	switch {
	case arrow.TypeEqual(from, to), isNull(from):
		return true
	case to.ID() == arrow.STRING:
		return isPrimitiveSQL(from)
	case isStringLike(from):
		return isPrimitiveSQL(to)
	case IsNumeric(from) && IsNumeric(to):
		return true
	case from.ID() == arrow.BOOL && (IsNumeric(to) || to.ID() == arrow.BOOL):
		return true
	case IsNumeric(from) && to.ID() == arrow.BOOL:
		return true
	case (from.ID() == arrow.DATE32 || isTimestamp(from)) && (to.ID() == arrow.DATE32 || isTimestamp(to)):
		return true
	case isTimestamp(from) && isTime(to), isTime(from) && isTime(to):
		return true
	case isBinaryLike(from) && to.ID() == arrow.BINARY:
		return true
	case isStringLike(from) && to.ID() == arrow.BINARY:
		return true
	}
	return false
}

func isPrimitiveSQL(t arrow.DataType) bool {
	switch {
	case IsNumeric(t), isStringLike(t), isBinaryLike(t), isTimestamp(t), isTime(t):
		return true
	}
	switch t.ID() {
	case arrow.BOOL, arrow.DATE32, arrow.INTERVAL_MONTH_DAY_NANO, arrow.NULL:
		return true
	}
	return false
}

// CastArray converts a to type to (an owned result; a is not released).
func CastArray(mem memory.Allocator, a arrow.Array, to arrow.DataType) (arrow.Array, error) {
	from := a.DataType()
	switch {
	case arrow.TypeEqual(from, to):
		a.Retain()
		return a, nil
	case isNull(from):
		return allNull(mem, to, a.Len())
	case to.ID() == arrow.STRING:
		return castToString(mem, a)
	case isStringLike(from) || isBinaryLike(from):
		if to.ID() == arrow.BINARY || isStringLike(to) {
			return castBytes(mem, a, to)
		}
		if isStringLike(from) {
			return castFromString(mem, a, to)
		}
	case IsNumeric(from) || from.ID() == arrow.BOOL:
		if IsNumeric(to) || to.ID() == arrow.BOOL {
			return castNumeric(mem, a, to)
		}
	case from.ID() == arrow.DATE32 || isTimestamp(from) || isTime(from):
		return castTemporal(mem, a, to)
	}
	return nil, invalidf("cannot CAST %s to %s", TypeName(from), TypeName(to))
}

// CastScalar converts one value (used for literals and parameters).
func CastScalar(s scalar.Scalar, to arrow.DataType) (scalar.Scalar, error) {
	if arrow.TypeEqual(s.DataType(), to) {
		return s, nil
	}
	if !s.IsValid() {
		return scalar.MakeNullScalar(to), nil
	}
	if !castSupported(s.DataType(), to) {
		return nil, invalidf("cannot convert %s of type %s to %s", FormatScalar(s), TypeName(s.DataType()), TypeName(to))
	}
	mem := memory.NewGoAllocator()
	a, err := scalar.MakeArrayFromScalar(s, 1, mem)
	if err != nil {
		return nil, invalidf("cannot convert %s: %v", FormatScalar(s), err)
	}
	defer a.Release()
	out, err := CastArray(mem, a, to)
	if err != nil {
		return nil, err
	}
	defer out.Release()
	return scalar.GetScalar(out, 0)
}

// CastTarget parses a SQL type name (INT, DECIMAL(12,2), VARCHAR(10),
// TIMESTAMP(3), ...) into the Arrow type a CAST produces.
func CastTarget(sqlType string) (arrow.DataType, error) {
	s := strings.ToUpper(strings.Join(strings.Fields(sqlType), " "))
	base, args, hasArgs := strings.Cut(s, "(")
	base = strings.TrimSpace(base)
	if hasArgs {
		var rest string
		args, rest, _ = strings.Cut(args, ")")
		args = strings.TrimSpace(args)
		rest = strings.TrimSpace(rest)
		if rest != "" {
			base = base + " " + rest
		}
	}
	noArgs := func(t arrow.DataType) (arrow.DataType, error) {
		if hasArgs {
			return nil, invalidf("type %s takes no arguments", sqlType)
		}
		return t, nil
	}
	switch base {
	case "DOUBLE", "DOUBLE PRECISION", "FLOAT8", "FLOAT64":
		return noArgs(tFloat64)
	case "FLOAT", "REAL", "FLOAT4", "FLOAT32":
		if hasArgs { // FLOAT(p): p > 24 is DOUBLE
			p, err := strconv.Atoi(args)
			if err != nil || p < 1 || p > 53 {
				return nil, invalidf("bad FLOAT precision in %s", sqlType)
			}
			if p > 24 {
				return tFloat64, nil
			}
			return arrow.PrimitiveTypes.Float32, nil
		}
		return arrow.PrimitiveTypes.Float32, nil
	case "BIGINT", "INT8", "LONG", "INT64", "SIGNED":
		return noArgs(tInt64)
	case "INT", "INTEGER", "INT4", "INT32":
		return noArgs(arrow.PrimitiveTypes.Int32)
	case "SMALLINT", "INT2", "INT16", "SHORT":
		return noArgs(arrow.PrimitiveTypes.Int16)
	case "TINYINT", "INT1":
		return noArgs(arrow.PrimitiveTypes.Int8)
	case "VARCHAR", "CHAR", "STRING", "TEXT", "CHARACTER VARYING", "CHARACTER", "NCHAR", "NVARCHAR", "BPCHAR":
		if hasArgs {
			if n, err := strconv.Atoi(args); err != nil || n < 0 {
				return nil, invalidf("bad length in %s", sqlType)
			}
		}
		return tString, nil
	case "BINARY", "VARBINARY", "BYTES", "BLOB", "BYTEA":
		return tBinary, nil
	case "BOOLEAN", "BOOL":
		return noArgs(tBool)
	case "DATE":
		return noArgs(tDate)
	case "TIME", "TIME WITHOUT TIME ZONE":
		return arrow.FixedWidthTypes.Time64us, nil
	case "INTERVAL":
		return noArgs(tIval)
	case "TIMESTAMP", "DATETIME", "TIMESTAMP WITHOUT TIME ZONE", "TIMESTAMP_NTZ", "TIMESTAMP_LTZ",
		"TIMESTAMP WITH LOCAL TIME ZONE", "TIMESTAMPTZ", "TIMESTAMP WITH TIME ZONE":
		tz := ""
		if strings.Contains(base, "ZONE") && !strings.Contains(base, "WITHOUT") || base == "TIMESTAMPTZ" || base == "TIMESTAMP_LTZ" {
			tz = "UTC"
		}
		unit := arrow.Microsecond
		if hasArgs {
			p, err := strconv.Atoi(args)
			if err != nil || p < 0 || p > 9 {
				return nil, invalidf("bad TIMESTAMP precision in %s (0..9)", sqlType)
			}
			switch {
			case p == 0:
				unit = arrow.Second
			case p <= 3:
				unit = arrow.Millisecond
			case p <= 6:
				unit = arrow.Microsecond
			default:
				unit = arrow.Nanosecond
			}
		}
		return &arrow.TimestampType{Unit: unit, TimeZone: tz}, nil
	case "TIMESTAMP_S":
		return noArgs(&arrow.TimestampType{Unit: arrow.Second})
	case "TIMESTAMP_MS":
		return noArgs(&arrow.TimestampType{Unit: arrow.Millisecond})
	case "TIMESTAMP_NS":
		return noArgs(&arrow.TimestampType{Unit: arrow.Nanosecond})
	case "DECIMAL", "NUMERIC", "DEC":
		p, sc := 18, 3 // DuckDB's default DECIMAL
		if hasArgs {
			ps, ss, hasScale := strings.Cut(args, ",")
			var err error
			if p, err = strconv.Atoi(strings.TrimSpace(ps)); err != nil || p < 1 || p > 38 {
				return nil, invalidf("bad DECIMAL precision in %s (1..38)", sqlType)
			}
			sc = 0
			if hasScale {
				if sc, err = strconv.Atoi(strings.TrimSpace(ss)); err != nil || sc < 0 || sc > p {
					return nil, invalidf("bad DECIMAL scale in %s (0..precision)", sqlType)
				}
			}
		}
		return DecimalType(int32(p), int32(sc)), nil
	}
	return nil, unsupportedf("type %s", sqlType)
}

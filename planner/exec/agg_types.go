package exec

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

// AggExpr is one aggregate of a HashAggregate.
type AggExpr struct {
	// Func is one of COUNT, COUNT_STAR, SUM, AVG, MIN, MAX, BOOL_AND,
	// BOOL_OR, ANY_VALUE, STDDEV_SAMP (STDDEV), STDDEV_POP, VAR_SAMP
	// (VARIANCE), VAR_POP, STRING_AGG, QUANTILE_CONT, QUANTILE_DISC, CORR,
	// COVAR_POP, COVAR_SAMP, REGR_SLOPE, REGR_INTERCEPT, REGR_COUNT,
	// REGR_R2, REGR_AVGX, REGR_AVGY, REGR_SXX, REGR_SYY, REGR_SXY, ARG_MAX
	// (MAX_BY), ARG_MIN (MIN_BY), MODE, BIT_AND, BIT_OR, BIT_XOR, PRODUCT,
	// GEOMEAN (GEOMETRIC_MEAN), APPROX_COUNT_DISTINCT (computed exactly)
	// (case-insensitive). COUNT without arguments is COUNT_STAR. COUNT_ROW
	// counts the row value (a, b, ...), which is never NULL
	// (COUNT(DISTINCT (a, b)) counts tuples with NULL fields too, as DuckDB).
	Func string
	// Args are over the input schema; none for COUNT_STAR; STRING_AGG takes
	// the value and optionally a constant separator (default ",").
	Args []vec.Expr
	// Distinct aggregates each group's distinct argument values (tuples for
	// COUNT(DISTINCT a, b)). It changes nothing for MIN, MAX, ANY_VALUE,
	// BOOL_AND, BOOL_OR.
	Distinct bool
	// Filter is the optional FILTER (WHERE ...) predicate (BOOLEAN; rows
	// where it is FALSE or NULL are not aggregated); nil = none.
	Filter vec.Expr
	// OrderBy, when set, orders the rows the aggregate sees
	// (agg(x ORDER BY k)): STRING_AGG concatenates in that order, FIRST and
	// LAST take the first/last row's value (NULL included). Other
	// aggregates refuse it (the binder drops it where it changes nothing).
	OrderBy []SortKey
	// Name is the output column's name.
	Name string
}

// aggCanon returns the canonical function name (aliases resolved).
func aggCanon(fn string, nargs int) string {
	f := strings.ToUpper(strings.TrimSpace(fn))
	switch f {
	case "STDDEV":
		return "STDDEV_SAMP"
	case "VARIANCE":
		return "VAR_SAMP"
	case "COUNT":
		if nargs == 0 {
			return "COUNT_STAR"
		}
	case "COUNT(*)":
		return "COUNT_STAR"
	case "EVERY":
		return "BOOL_AND"
	case "GROUP_CONCAT", "LISTAGG":
		return "STRING_AGG"
	case "ARRAY_AGG":
		return "LIST"
	case "ARBITRARY", "FIRST":
		return "ANY_VALUE"
	case "MAX_BY", "ARGMAX":
		return "ARG_MAX"
	case "MIN_BY", "ARGMIN":
		return "ARG_MIN"
	case "GEOMETRIC_MEAN":
		return "GEOMEAN"
	case "COVAR":
		return "COVAR_SAMP"
	}
	return f
}

// AggResultType is the result type of aggregate fn over arguments of these
// types, and whether it may be NULL. The types follow DuckDB: COUNT is a
// non-null BIGINT; SUM of integers is DECIMAL(38,0) (exact, never wraps),
// SUM of DECIMAL(p,s) is DECIMAL(38,s), SUM of floats DOUBLE; AVG and the
// variance family are DOUBLE; MIN, MAX and ANY_VALUE keep the argument's
// type; BOOL_AND/BOOL_OR are BOOLEAN; STRING_AGG is the argument's string
// type.
func AggResultType(fn string, args []arrow.DataType) (arrow.DataType, bool, error) {
	f := aggCanon(fn, len(args))
	want := func(n int) error {
		if len(args) != n {
			return paimon.Errorf(catalog.ErrInvalid, "%s takes %d argument(s), not %d", f, n, len(args))
		}
		if n > 0 && args[0] == nil {
			return paimon.Errorf(catalog.ErrInvalid, "%s of an untyped argument (a NULL or ? needs a CAST)", f)
		}
		return nil
	}
	bad := func() (arrow.DataType, bool, error) {
		return nil, false, paimon.Errorf(catalog.ErrInvalid, "%s is not defined for %s", f, aggTypeList(args))
	}
	switch f {
	case "COUNT_STAR":
		if err := want(0); err != nil {
			return nil, false, err
		}
		return arrow.PrimitiveTypes.Int64, false, nil
	case "COUNT", "COUNT_ROW":
		for i, a := range args {
			if a == nil {
				return nil, false, fmt.Errorf("exec: COUNT argument %d has no type", i)
			}
		}
		return arrow.PrimitiveTypes.Int64, false, nil
	case "SUM":
		if err := want(1); err != nil {
			return nil, false, err
		}
		switch t := args[0]; {
		case aggIsInt(t) || t.ID() == arrow.NULL:
			return &arrow.Decimal128Type{Precision: 38, Scale: 0}, true, nil
		case t.ID() == arrow.DECIMAL128:
			return &arrow.Decimal128Type{Precision: 38, Scale: t.(*arrow.Decimal128Type).Scale}, true, nil
		case aggIsFloat(t):
			return arrow.PrimitiveTypes.Float64, true, nil
		}
		return bad()
	case "AVG", "STDDEV_SAMP", "STDDEV_POP", "VAR_SAMP", "VAR_POP":
		if err := want(1); err != nil {
			return nil, false, err
		}
		if t := args[0]; aggIsInt(t) || aggIsFloat(t) || t.ID() == arrow.DECIMAL128 || t.ID() == arrow.NULL {
			return arrow.PrimitiveTypes.Float64, true, nil
		}
		return bad()
	case "LIST":
		if err := want(1); err != nil {
			return nil, false, err
		}
		if t := args[0]; t.ID() == arrow.LIST || t.ID() == arrow.LARGE_LIST || !Orderable(t) {
			return nil, false, paimon.Errorf(catalog.ErrUnsupported, "LIST/ARRAY_AGG of %s", aggTypeList(args))
		}
		return arrow.ListOfField(arrow.Field{Name: "item", Type: args[0], Nullable: true}), true, nil
	case "MIN", "MAX", "ANY_VALUE", "LAST":
		if err := want(1); err != nil {
			return nil, false, err
		}
		t := args[0]
		if f != "LAST" && IsNestedKey(t) { // lists, maps, structs (agg_minmax_nested.go)
			return t, true, nil
		}
		if aggMinMaxKind(t) < 0 || (f != "ANY_VALUE" && t.ID() == arrow.FLOAT16) {
			return bad()
		}
		return t, true, nil
	case "BOOL_AND", "BOOL_OR":
		if err := want(1); err != nil {
			return nil, false, err
		}
		if t := args[0]; t.ID() == arrow.BOOL || t.ID() == arrow.NULL {
			return arrow.FixedWidthTypes.Boolean, true, nil
		}
		return bad()
	case "CORR", "COVAR_POP", "COVAR_SAMP", "REGR_SLOPE", "REGR_INTERCEPT", "REGR_COUNT", "REGR_R2",
		"REGR_AVGX", "REGR_AVGY", "REGR_SXX", "REGR_SYY", "REGR_SXY":
		if err := want(2); err != nil {
			return nil, false, err
		}
		for _, t := range args {
			if t == nil || !(aggIsInt(t) || aggIsFloat(t) || t.ID() == arrow.DECIMAL128 || t.ID() == arrow.NULL) {
				return bad()
			}
		}
		if f == "REGR_COUNT" {
			return arrow.PrimitiveTypes.Int64, false, nil
		}
		return arrow.PrimitiveTypes.Float64, true, nil
	case "PRODUCT", "GEOMEAN":
		if err := want(1); err != nil {
			return nil, false, err
		}
		if t := args[0]; aggIsInt(t) || aggIsFloat(t) || t.ID() == arrow.DECIMAL128 || t.ID() == arrow.NULL {
			return arrow.PrimitiveTypes.Float64, true, nil
		}
		return bad()
	case "BIT_AND", "BIT_OR", "BIT_XOR":
		if err := want(1); err != nil {
			return nil, false, err
		}
		if t := args[0]; aggIsInt(t) {
			return t, true, nil
		} else if t.ID() == arrow.NULL {
			return arrow.PrimitiveTypes.Int64, true, nil
		}
		return bad()
	case "ARG_MAX", "ARG_MIN":
		if err := want(2); err != nil {
			return nil, false, err
		}
		if args[1] == nil || !Orderable(args[1]) || args[1].ID() == arrow.NULL || args[0].ID() == arrow.NULL || aggMinMaxKind(args[0]) < 0 {
			return bad()
		}
		return args[0], true, nil
	case "MODE":
		if err := want(1); err != nil {
			return nil, false, err
		}
		if t := args[0]; aggMinMaxKind(t) < 0 || t.ID() == arrow.FLOAT16 {
			return bad()
		}
		return args[0], true, nil
	case "APPROX_COUNT_DISTINCT":
		if err := want(1); err != nil {
			return nil, false, err
		}
		return arrow.PrimitiveTypes.Int64, false, nil
	case "QUANTILE_CONT", "QUANTILE_DISC":
		if len(args) != 2 {
			return nil, false, fmt.Errorf("exec: %s takes 2 arguments, not %d", f, len(args))
		}
		if t := args[0]; t.ID() == arrow.DECIMAL128 {
			return t, true, nil // DuckDB: a DECIMAL quantile keeps its type
		}
		if t := args[0]; f == "QUANTILE_DISC" && quantDiscOrdered(t) {
			return t, true, nil // picked from the sorted values, any orderable type
		}
		if t := args[0]; aggIsInt(t) || aggIsFloat(t) || t.ID() == arrow.NULL {
			return arrow.PrimitiveTypes.Float64, true, nil
		}
		return bad()
	case "STRING_AGG":
		if len(args) != 1 && len(args) != 2 {
			return nil, false, fmt.Errorf("exec: STRING_AGG takes 1 or 2 arguments, not %d", len(args))
		}
		for _, a := range args {
			if a == nil || !(aggIsString(a) || a.ID() == arrow.NULL) {
				return bad()
			}
		}
		if args[0].ID() == arrow.LARGE_STRING || args[0].ID() == arrow.LARGE_BINARY || args[0].ID() == arrow.BINARY {
			return args[0], true, nil
		}
		return arrow.BinaryTypes.String, true, nil
	}
	return nil, false, fmt.Errorf("exec: unknown aggregate %s", fn)
}

func aggTypeList(ts []arrow.DataType) string {
	parts := make([]string, len(ts))
	for i, t := range ts {
		if t == nil {
			parts[i] = "?"
		} else {
			parts[i] = t.String()
		}
	}
	return strings.Join(parts, ", ")
}

func aggIsInt(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64:
		return true
	}
	return false
}

func aggIsFloat(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.FLOAT16, arrow.FLOAT32, arrow.FLOAT64:
		return true
	}
	return false
}

func aggIsString(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.STRING, arrow.LARGE_STRING, arrow.BINARY, arrow.LARGE_BINARY:
		return true
	}
	return false
}

// Value layouts the MIN/MAX/ANY_VALUE accumulators know.
const (
	aggMMInt8 = iota
	aggMMInt16
	aggMMInt32
	aggMMInt64
	aggMMUint8
	aggMMUint16
	aggMMUint32
	aggMMUint64
	aggMMFloat32
	aggMMFloat64
	aggMMDecimal
	aggMMBool
	aggMMString
	aggMMNull
	aggMMFloat16 // ANY_VALUE only (as raw bits)
)

// aggMinMaxKind is the layout of t for MIN/MAX, or -1.
func aggMinMaxKind(t arrow.DataType) int {
	switch t.ID() {
	case arrow.INT8:
		return aggMMInt8
	case arrow.INT16:
		return aggMMInt16
	case arrow.INT32, arrow.DATE32, arrow.TIME32:
		return aggMMInt32
	case arrow.INT64, arrow.DATE64, arrow.TIME64, arrow.TIMESTAMP, arrow.DURATION:
		return aggMMInt64
	case arrow.UINT8:
		return aggMMUint8
	case arrow.UINT16:
		return aggMMUint16
	case arrow.UINT32:
		return aggMMUint32
	case arrow.UINT64:
		return aggMMUint64
	case arrow.FLOAT32:
		return aggMMFloat32
	case arrow.FLOAT64:
		return aggMMFloat64
	case arrow.FLOAT16:
		return aggMMFloat16
	case arrow.DECIMAL128:
		return aggMMDecimal
	case arrow.BOOL:
		return aggMMBool
	case arrow.STRING, arrow.LARGE_STRING, arrow.BINARY, arrow.LARGE_BINARY:
		return aggMMString
	case arrow.NULL:
		return aggMMNull
	}
	return -1
}

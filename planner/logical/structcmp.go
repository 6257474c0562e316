package logical

import (
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/scalar"

	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

// STRUCT values compare as DuckDB's: NULL when either struct is NULL, else
// field by field in order with NULL fields as values (NULL equals NULL and
// sorts after every value), nested structs the same way. Fields pair by
// position; two structs with field names that differ are refused (DuckDB
// answers FALSE for them), a row constructor's v1, v2, ... pair with any.

func isStruct(e vec.Expr) bool { return e.Type() != nil && e.Type().ID() == arrow.STRUCT }

// rowFields returns the fields of struct expression e as expressions.
func rowFields(e vec.Expr) ([]vec.Expr, error) {
	st := e.Type().(*arrow.StructType)
	out := make([]vec.Expr, st.NumFields())
	for i := range out {
		f, err := vec.NewCall("STRUCT_EXTRACT", []vec.Expr{e, vec.NewLiteral(scalar.NewInt64Scalar(int64(i + 1)))})
		if err != nil {
			return nil, err
		}
		out[i] = f
	}
	return out, nil
}

// isRowNames reports whether st's fields are a row constructor's v1, v2, ...
func isRowNames(st *arrow.StructType) bool {
	for i, f := range st.Fields() {
		if f.Name != "v"+itoa(i+1) {
			return false
		}
	}
	return true
}

// structPair checks that structs a and b compare and returns their fields.
func structPair(a, b vec.Expr) ([]vec.Expr, []vec.Expr, error) {
	sa, sb := a.Type().(*arrow.StructType), b.Type().(*arrow.StructType)
	if sa.NumFields() != sb.NumFields() {
		return nil, nil, invalidf("cannot compare %s with %s: they have %d and %d fields", vec.TypeName(sa), vec.TypeName(sb), sa.NumFields(), sb.NumFields())
	}
	if !isRowNames(sa) && !isRowNames(sb) {
		for i := range sa.NumFields() {
			if !strings.EqualFold(sa.Field(i).Name, sb.Field(i).Name) {
				return nil, nil, unsupportedf("comparing %s with %s: the field names differ", vec.TypeName(sa), vec.TypeName(sb))
			}
		}
	}
	fa, err := rowFields(a)
	if err != nil {
		return nil, nil, err
	}
	fb, err := rowFields(b)
	if err != nil {
		return nil, nil, err
	}
	return fa, fb, nil
}

// bothValid is x IS NOT NULL AND y IS NOT NULL.
func bothValid(x, y vec.Expr) (vec.Expr, error) { return nullTests(x, true, y, true) }

// structCompare is l op r over two STRUCT values: NULL when either is
// NULL, else the row comparison of their fields.
func structCompare(op string, l, r vec.Expr) (vec.Expr, error) {
	fl, fr, err := structPair(l, r)
	if err != nil {
		return nil, err
	}
	c, err := rowCompare(op, fl, fr)
	if err != nil {
		return nil, err
	}
	ok, err := bothValid(l, r)
	if err != nil {
		return nil, err
	}
	e, err := vec.NewCase([]vec.Expr{ok}, []vec.Expr{c}, vec.NullLiteral(arrow.FixedWidthTypes.Boolean))
	if err != nil {
		return nil, err
	}
	return checkCompareSize(e)
}

// valueEqual is x = y with NULL as a value (never NULL); nested structs
// compare field by field.
func valueEqual(x, y vec.Expr) (vec.Expr, error) {
	if !isStruct(x) || !isStruct(y) {
		typeParam(x, y)
		typeParam(y, x)
		return vec.NewCompare("<=>", x, y)
	}
	fx, fy, err := structPair(x, y)
	if err != nil {
		return nil, err
	}
	eq, err := rowEqual(fx, fy)
	if err != nil {
		return nil, err
	}
	ok, err := bothValid(x, y)
	if err != nil {
		return nil, err
	}
	if eq, err = vec.NewAnd(ok, eq); err != nil {
		return nil, err
	}
	both, err := nullTests(x, false, y, false)
	if err != nil {
		return nil, err
	}
	return vec.NewOr(both, eq)
}

// valueLess is x < y with NULL as a value after every other (never NULL);
// nested structs compare field by field.
func valueLess(x, y vec.Expr) (vec.Expr, error) {
	if !isStruct(x) || !isStruct(y) {
		typeParam(x, y)
		typeParam(y, x)
		return nullsLastLess(x, y)
	}
	fx, fy, err := structPair(x, y)
	if err != nil {
		return nil, err
	}
	lt, err := rowLess(fx, fy, false)
	if err != nil {
		return nil, err
	}
	ok, err := bothValid(x, y)
	if err != nil {
		return nil, err
	}
	if lt, err = vec.NewAnd(ok, lt); err != nil {
		return nil, err
	}
	last, err := nullTests(x, true, y, false)
	if err != nil {
		return nil, err
	}
	return vec.NewOr(lt, last)
}

// structInList is s [NOT] IN (e1, e2, ...) over STRUCT values: the OR of
// the struct equalities (a NULL element is NULL).
func structInList(l vec.Expr, list []vec.Expr, negate bool) (vec.Expr, error) {
	if len(list) == 0 {
		return nil, invalidf("IN needs at least one value")
	}
	terms := make([]vec.Expr, len(list))
	for i, e := range list {
		if e.Type() == nil || e.Type().ID() == arrow.NULL {
			terms[i] = vec.NullLiteral(arrow.FixedWidthTypes.Boolean)
			continue
		}
		if !isStruct(e) {
			return nil, invalidf("IN over %s got %s of type %s", vec.TypeName(l.Type()), e, vec.TypeName(e.Type()))
		}
		eq, err := structCompare("=", l, e)
		if err != nil {
			return nil, err
		}
		terms[i] = eq
	}
	var out vec.Expr = terms[0]
	if len(terms) > 1 {
		var err error
		if out, err = vec.NewOr(terms...); err != nil {
			return nil, err
		}
	}
	if negate {
		var err error
		if out, err = vec.NewNot(out); err != nil {
			return nil, err
		}
	}
	return checkCompareSize(out)
}

// maxCompareNodes bounds the expanded size of a row/STRUCT comparison:
// a nested struct's value is read by several parts of its comparison, so
// the tree (as evaluation and rewrites walk it) grows with the product of
// the nesting levels' widths.
const maxCompareNodes = 100_000

// checkCompareSize refuses a comparison whose expanded tree is larger than
// maxCompareNodes (counted over the shared nodes, so in their number).
func checkCompareSize(e vec.Expr) (vec.Expr, error) {
	memo := map[vec.Expr]int{}
	var size func(x vec.Expr) int
	size = func(x vec.Expr) int {
		if n, ok := memo[x]; ok {
			return n
		}
		n := 1
		for _, c := range x.Children() {
			n += size(c)
			if n > maxCompareNodes {
				n = maxCompareNodes + 1
				break
			}
		}
		memo[x] = n
		return n
	}
	if size(e) > maxCompareNodes {
		return nil, unsupportedf("comparing these row or STRUCT values needs more than %d expression nodes (nested too deeply or too wide)", maxCompareNodes)
	}
	return e, nil
}

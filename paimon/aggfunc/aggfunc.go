package aggfunc

import (
	"fmt"
	"math"
	"math/big"
	"strings"
	"unicode"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/arrowrow"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
)

// Function names (fields.<f>.aggregate-function values).
const (
	PrimaryKey        = "primary-key"
	LastValue         = "last_value"
	LastNonNullValue  = "last_non_null_value"
	FirstValue        = "first_value"
	FirstNonNullValue = "first_non_null_value"
	Min               = "min"
	Max               = "max"
	Sum               = "sum"
	Product           = "product"
	Listagg           = "listagg"
	BoolAnd           = "bool_and"
	BoolOr            = "bool_or"
	Collect           = "collect"
	MergeMap          = "merge_map"
)

// Func is one column's aggregate function with its options.
type Func struct {
	Name          string
	Field         string
	IgnoreRetract bool // fields.<f>.ignore-retract
	typ           arrow.DataType
	delim         string // listagg: fields.<f>.list-agg-delimiter (default ",")
	distinct      bool   // listagg, collect: fields.<f>.distinct
}

// Option returns a table option or def.
type Option func(key, def string) string

// Parse returns the aggregate function of column field (Arrow type dt) named
// name (case-insensitive; the legacy first_not_null_value is
// first_non_null_value), with its per-field options. It refuses functions
// it does not implement and types the function does not accept, naming the
// column, wrapped in paimon.ErrUnsupported / paimon.ErrInvalid.
func Parse(name, field string, dt arrow.DataType, opt Option) (*Func, error) {
	n := strings.ToLower(strings.TrimSpace(name))
	if n == "first_not_null_value" {
		n = FirstNonNullValue
	}
	f := &Func{Name: n, Field: field, typ: dt,
		IgnoreRetract: strings.EqualFold(strings.TrimSpace(opt("fields."+field+".ignore-retract", "false")), "true"),
		delim:         opt("fields."+field+".list-agg-delimiter", ","),
		distinct:      strings.EqualFold(strings.TrimSpace(opt("fields."+field+".distinct", "false")), "true")}
	if dt == nil { // name check only
		dt = arrow.Null
		switch n {
		case PrimaryKey, LastValue, LastNonNullValue, FirstValue, FirstNonNullValue, Min, Max, Sum, Product, BoolAnd, BoolOr, Listagg, Collect, MergeMap:
			return f, nil
		}
	}
	bad := func(want string) error {
		return paimon.Errorf(paimon.ErrInvalid, "column %s: aggregate function %s needs %s, the column is %s", field, n, want, dt)
	}
	switch n {
	case PrimaryKey, LastValue, LastNonNullValue, FirstValue, FirstNonNullValue:
	case Min, Max:
		if nested(dt) {
			return nil, paimon.Errorf(paimon.ErrUnsupported, "column %s: aggregate function %s on nested type %s", field, n, dt)
		}
	case Sum, Product:
		switch dt.ID() {
		case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.FLOAT32, arrow.FLOAT64, arrow.DECIMAL128:
		default:
			return nil, bad("a numeric type")
		}
	case BoolAnd, BoolOr:
		if dt.ID() != arrow.BOOL {
			return nil, bad("BOOLEAN")
		}
	case Listagg:
		if dt.ID() != arrow.STRING && dt.ID() != arrow.LARGE_STRING {
			return nil, bad("STRING")
		}
	case Collect:
		if dt.ID() != arrow.LIST {
			return nil, bad("an ARRAY")
		}
	case MergeMap:
		if dt.ID() != arrow.MAP {
			return nil, bad("a MAP")
		}
	case "count":
		return nil, paimon.Errorf(paimon.ErrUnsupported, "column %s: aggregate function count (Paimon removed it in 0.9: it cannot be computed correctly when merged records are merged again)", field)
	case "hll_sketch", "theta_sketch", "rbm32", "rbm64", "nested_update", "nested_partial_update", "merge_map_with_keytime":
		return nil, paimon.Errorf(paimon.ErrUnsupported, "column %s: aggregate function %s is not implemented", field, n)
	default:
		return nil, paimon.Errorf(paimon.ErrUnsupported, "column %s: unknown aggregate function %q", field, name)
	}
	return f, nil
}

func nested(dt arrow.DataType) bool {
	switch dt.ID() {
	case arrow.LIST, arrow.LARGE_LIST, arrow.MAP, arrow.STRUCT, arrow.FIXED_SIZE_LIST:
		return true
	}
	return false
}

// Picks reports whether the function's result is one of its input cells
// (callers track the chosen cell; Agg and Retract are not used).
func (f *Func) Picks() bool {
	switch f.Name {
	case PrimaryKey, LastValue, LastNonNullValue, FirstValue, FirstNonNullValue, Min, Max:
		return true
	}
	return false
}

// RetractErr is the error of a retraction the function does not support.
func (f *Func) RetractErr() error {
	return paimon.Errorf(paimon.ErrInvalid, "aggregate function %s of column %s does not support retraction (-U/-D records); set 'fields.%s.ignore-retract' = 'true' to ignore them", f.Name, f.Field, f.Field)
}

// Agg folds input into the accumulator of a computed function.
func (f *Func) Agg(acc, in any) (any, error) {
	switch f.Name {
	case Sum, Product, BoolAnd, BoolOr:
		if acc == nil || in == nil {
			if acc == nil {
				return in, nil
			}
			return acc, nil
		}
		switch f.Name {
		case BoolAnd:
			return acc.(bool) && in.(bool), nil
		case BoolOr:
			return acc.(bool) || in.(bool), nil
		}
		return f.arith(f.Name, acc, in)
	case Listagg:
		return f.listagg(acc, in), nil
	case Collect:
		return f.collect(acc, in), nil
	case MergeMap:
		if acc == nil || in == nil {
			if acc == nil {
				return in, nil
			}
			return acc, nil
		}
		return mergeMaps(acc.(arrowrow.MapValue), in.(arrowrow.MapValue)), nil
	}
	return nil, fmt.Errorf("aggregate function %s is not a computed function", f.Name)
}

// Retract removes input from the accumulator (a -U/-D record). Functions
// without retraction fail unless ignore-retract is set.
func (f *Func) Retract(acc, in any) (any, error) {
	if f.IgnoreRetract {
		return acc, nil
	}
	switch f.Name {
	case Sum:
		if in == nil {
			return acc, nil
		}
		if acc == nil {
			return f.arith("neg", in, in)
		}
		return f.arith("sub", acc, in)
	case Product:
		if acc == nil || in == nil {
			return acc, nil
		}
		return f.arith("div", acc, in)
	case Collect:
		if acc == nil {
			return nil, nil
		}
		if in == nil {
			return acc, nil
		}
		return retractList(acc.([]any), in.([]any)), nil
	case MergeMap:
		if acc == nil {
			return nil, nil
		}
		if in == nil {
			return acc, nil
		}
		return retractMap(acc.(arrowrow.MapValue), in.(arrowrow.MapValue)), nil
	}
	return nil, f.RetractErr()
}

// arith computes acc op in for the column's numeric type ("neg" negates in).
func (f *Func) arith(op string, acc, in any) (any, error) {
	switch f.typ.ID() {
	case arrow.FLOAT32:
		a, b := float32(acc.(float64)), float32(in.(float64))
		var r float32
		switch op {
		case Sum:
			r = a + b
		case "sub":
			r = a - b
		case "neg":
			r = -b
		case Product:
			r = a * b
		case "div":
			r = a / b
		}
		return float64(r), nil
	case arrow.FLOAT64:
		a, b := acc.(float64), in.(float64)
		switch op {
		case Sum:
			return a + b, nil
		case "sub":
			return a - b, nil
		case "neg":
			return -b, nil
		case Product:
			return a * b, nil
		}
		return a / b, nil
	case arrow.DECIMAL128:
		return f.decimal(op, acc, in)
	}
	// Integers: sums in int64 when they cannot overflow it, else (and for
	// products) exact in big.Int; then range-checked for the column width.
	if x, y := acc.(int64), in.(int64); op != Product && op != "div" && x > math.MinInt64/4 && x < math.MaxInt64/4 && y > math.MinInt64/4 && y < math.MaxInt64/4 {
		var r int64
		switch op {
		case Sum:
			r = x + y
		case "sub":
			r = x - y
		default:
			r = -y
		}
		if bits := intBits(f.typ.ID()); bits == 64 || (r >= -(1<<(bits-1)) && r < 1<<(bits-1)) {
			return r, nil
		}
	}
	a, b := big.NewInt(acc.(int64)), big.NewInt(in.(int64))
	r := new(big.Int)
	switch op {
	case Sum:
		r.Add(a, b)
	case "sub":
		r.Sub(a, b)
	case "neg":
		r.Neg(b)
	case Product:
		r.Mul(a, b)
	case "div":
		if b.Sign() == 0 {
			return nil, paimon.Errorf(paimon.ErrInvalid, "column %s: product retraction divides by zero", f.Field)
		}
		r.Quo(a, b) // Java integer division truncates toward zero, as Quo
	}
	bits := intBits(f.typ.ID())
	lo := new(big.Int).Neg(new(big.Int).Lsh(big.NewInt(1), bits-1))
	hi := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), bits-1), big.NewInt(1))
	if r.Cmp(lo) < 0 || r.Cmp(hi) > 0 {
		return nil, paimon.Errorf(paimon.ErrInvalid, "column %s: %s overflows %s (%s %s %s)", f.Field, f.Name, f.typ, a, op, b)
	}
	return r.Int64(), nil
}

func intBits(t arrow.Type) uint {
	switch t {
	case arrow.INT8:
		return 8
	case arrow.INT16:
		return 16
	case arrow.INT32:
		return 32
	}
	return 64
}

func (f *Func) decimal(op string, acc, in any) (any, error) {
	dt := f.typ.(*arrow.Decimal128Type)
	scale := int(dt.Scale)
	a, b := acc.(predicate.Decimal).Rescale(scale), in.(predicate.Decimal).Rescale(scale)
	r := new(big.Rat)
	ra, rb := new(big.Rat).SetFrac(a, pow10(scale)), new(big.Rat).SetFrac(b, pow10(scale))
	switch op {
	case Sum:
		r.Add(ra, rb)
	case "sub":
		r.Sub(ra, rb)
	case "neg":
		r.Neg(rb)
	case Product:
		r.Mul(ra, rb)
	case "div":
		if rb.Sign() == 0 {
			return nil, paimon.Errorf(paimon.ErrInvalid, "column %s: product retraction divides by zero", f.Field)
		}
		r.Quo(ra, rb)
	}
	// Back to the column's scale, rounding half up (Java's
	// Decimal.fromBigDecimal: setScale(scale, HALF_UP)).
	num := new(big.Int).Mul(r.Num(), pow10(scale))
	q, m := new(big.Int).QuoRem(num, r.Denom(), new(big.Int))
	if m.Sign() != 0 {
		twice := new(big.Int).Mul(new(big.Int).Abs(m), big.NewInt(2))
		if twice.Cmp(r.Denom()) >= 0 {
			if num.Sign() < 0 {
				q.Sub(q, big.NewInt(1))
			} else {
				q.Add(q, big.NewInt(1))
			}
		}
	}
	if len(new(big.Int).Abs(q).String()) > int(dt.Precision) {
		return nil, paimon.Errorf(paimon.ErrInvalid, "column %s: %s overflows %s", f.Field, f.Name, dt)
	}
	return predicate.Decimal{Unscaled: q, Scale: scale}, nil
}

func pow10(n int) *big.Int { return new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n)), nil) }

// isBlank is Java's StringUtils.isBlank: empty or only whitespace.
func isBlank(s string) bool {
	for _, r := range s {
		if !unicode.IsSpace(r) {
			return false
		}
	}
	return true
}

func (f *Func) listagg(acc, in any) any {
	if in == nil || isBlank(in.(string)) {
		return acc
	}
	if acc == nil || isBlank(acc.(string)) {
		return in
	}
	a, b := acc.(string), in.(string)
	if !f.distinct {
		return a + f.delim + b
	}
	seen := map[string]bool{}
	for _, tok := range splitWhole(a, f.delim) {
		seen[tok] = true
	}
	var sb strings.Builder
	sb.WriteString(a)
	for _, tok := range splitWhole(b, f.delim) {
		if isBlank(tok) || seen[tok] {
			continue
		}
		seen[tok] = true
		sb.WriteString(f.delim)
		sb.WriteString(tok)
	}
	return sb.String()
}

// splitWhole is Java's splitByWholeSeparatorPreserveAllTokens (an empty
// separator splits on whitespace).
func splitWhole(s, sep string) []string {
	if s == "" {
		return nil
	}
	if sep == "" {
		return strings.FieldsFunc(s, unicode.IsSpace)
	}
	return strings.Split(s, sep)
}

// key renders a value for equality: Java's equals on Paimon's internal
// values (NaN equals NaN, -0.0 differs from 0.0, decimals by value and scale).
func key(v any) string {
	switch x := v.(type) {
	case nil:
		return "n"
	case float64:
		return fmt.Sprintf("f%x", math.Float64bits(x))
	case predicate.Decimal:
		return "d" + x.Unscaled.String() + "e" + fmt.Sprint(x.Scale)
	case []any:
		var sb strings.Builder
		sb.WriteString("[")
		for _, e := range x {
			sb.WriteString(key(e))
			sb.WriteString(",")
		}
		return sb.String() + "]"
	case arrowrow.MapValue:
		var sb strings.Builder
		sb.WriteString("{")
		for i := range x.Keys {
			sb.WriteString(key(x.Keys[i]) + ":" + key(x.Values[i]) + ",")
		}
		return sb.String() + "}"
	}
	return fmt.Sprintf("%T:%v", v, v)
}

// collect concatenates arrays; with distinct it keeps the first occurrence
// of each element (Java keeps a set; its order for primitive elements is
// its HashSet's, which this does not reproduce).
func (f *Func) collect(acc, in any) any {
	if acc == nil && in == nil {
		return nil
	}
	if !f.distinct {
		if acc == nil {
			return in
		}
		if in == nil {
			return acc
		}
		out := append(append([]any{}, acc.([]any)...), in.([]any)...)
		return out
	}
	out := []any{}
	seen := map[string]bool{}
	for _, src := range []any{acc, in} {
		if src == nil {
			continue
		}
		for _, e := range src.([]any) {
			k := key(e)
			if !seen[k] {
				seen[k] = true
				out = append(out, e)
			}
		}
	}
	return out
}

// retractList removes one occurrence of each retracted element.
func retractList(acc, in []any) any {
	if len(in) == 0 {
		return acc
	}
	left := map[string]int{}
	for _, e := range in {
		left[key(e)]++
	}
	out := []any{}
	for _, e := range acc {
		k := key(e)
		if left[k] > 0 {
			left[k]--
			continue
		}
		out = append(out, e)
	}
	return out
}

// mergeMaps puts in's entries over acc's (key order: first insertion; Java
// builds a HashMap, whose order this does not reproduce).
func mergeMaps(acc, in arrowrow.MapValue) any {
	out := arrowrow.MapValue{}
	pos := map[string]int{}
	for _, m := range []arrowrow.MapValue{acc, in} {
		for i := range m.Keys {
			k := key(m.Keys[i])
			if p, ok := pos[k]; ok {
				out.Values[p] = m.Values[i]
				continue
			}
			pos[k] = len(out.Keys)
			out.Keys = append(out.Keys, m.Keys[i])
			out.Values = append(out.Values, m.Values[i])
		}
	}
	return out
}

func retractMap(acc, in arrowrow.MapValue) any {
	if len(in.Keys) == 0 {
		return acc
	}
	drop := map[string]bool{}
	for _, k := range in.Keys {
		drop[key(k)] = true
	}
	out := arrowrow.MapValue{}
	for i := range acc.Keys {
		if !drop[key(acc.Keys[i])] {
			out.Keys = append(out.Keys, acc.Keys[i])
			out.Values = append(out.Values, acc.Values[i])
		}
	}
	return out
}

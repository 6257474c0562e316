package sqlgen

import (
	"fmt"
	"math"
	"math/big"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/decimal256"
)

// Kind classifies a Value. Int, Dec and Float are the numeric kinds and
// compare with each other numerically.
type Kind uint8

const (
	Null  Kind = iota
	Int        // I
	Dec        // R (exact; also integers beyond int64), Scale digits
	Float      // F
	Str        // S
	Bool       // I = 0 or 1
	Time       // T (UTC); DATE is midnight, so DATE = TIMESTAMP at midnight
)

// Value is one result cell reduced to what two engines must agree on:
// numbers by value (whatever their SQL type), DATE and TIMESTAMP as
// instants, strings by bytes.
type Value struct {
	Kind  Kind
	I     int64
	R     *big.Rat
	Scale int
	F     float64
	S     string
	T     time.Time
}

// Row is one result row; Result a whole result.
type Row []Value

type Result struct {
	Columns []string
	Rows    []Row
}

func IntV(i int64) Value     { return Value{Kind: Int, I: i} }
func FloatV(f float64) Value { return Value{Kind: Float, F: f} }
func StrV(s string) Value    { return Value{Kind: Str, S: s} }
func TimeV(t time.Time) Value {
	return Value{Kind: Time, T: t.UTC()}
}
func BoolV(b bool) Value {
	if b {
		return Value{Kind: Bool, I: 1}
	}
	return Value{Kind: Bool}
}

// ListV is a LIST value: compared by its rendering "[e1, e2, ...]" (each
// element as Value.String renders it), so both engines' lists agree when
// their elements do, in order.
func ListV(elems []Value) Value {
	s := make([]string, len(elems))
	for i, e := range elems {
		s[i] = e.String()
	}
	return StrV("[" + strings.Join(s, ", ") + "]")
}

// StructV is a STRUCT value: compared by its rendering "{a: v, b: w}" with
// the fields in name order (DuckDB's driver scans a struct into a Go map).
func StructV(names []string, vals []Value) Value {
	idx := make([]int, len(names))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return names[idx[a]] < names[idx[b]] })
	s := make([]string, len(idx))
	for k, i := range idx {
		s[k] = names[i] + ": " + vals[i].String()
	}
	return StrV("{" + strings.Join(s, ", ") + "}")
}

// MapV is a MAP value: compared by its rendering "MAP{k=v, ...}", entries
// in order.
func MapV(keys, vals []Value) Value {
	s := make([]string, len(keys))
	for i := range keys {
		s[i] = keys[i].String() + "=" + vals[i].String()
	}
	return StrV("MAP{" + strings.Join(s, ", ") + "}")
}

// IntervalV is an INTERVAL, compared by its fields (months, days,
// microseconds) as both engines keep them (no normalisation).
func IntervalV(months, days int32, micros int64) Value {
	return StrV(fmt.Sprintf("%d months %d days %d us", months, days, micros))
}

// BigV is an exact number unscaled·10^-scale (an Int when it fits).
func BigV(unscaled *big.Int, scale int) Value {
	if scale == 0 && unscaled.IsInt64() {
		return IntV(unscaled.Int64())
	}
	r := new(big.Rat).SetInt(unscaled)
	if scale > 0 {
		r.Quo(r, new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scale)), nil)))
	} else if scale < 0 {
		r.Mul(r, new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(-scale)), nil)))
	}
	return Value{Kind: Dec, R: r, Scale: max(scale, 0)}
}

func (v Value) String() string {
	switch v.Kind {
	case Null:
		return "NULL"
	case Int:
		return strconv.FormatInt(v.I, 10)
	case Dec:
		return v.R.FloatString(v.Scale)
	case Float:
		return strconv.FormatFloat(v.F, 'g', -1, 64)
	case Str:
		return strconv.Quote(v.S)
	case Bool:
		return strconv.FormatBool(v.I != 0)
	case Time:
		if v.T.Hour() == 0 && v.T.Minute() == 0 && v.T.Second() == 0 && v.T.Nanosecond() == 0 {
			return v.T.Format("2006-01-02")
		}
		return v.T.Format("2006-01-02 15:04:05.999999")
	}
	return "?"
}

func (r Row) String() string {
	s := make([]string, len(r))
	for i, v := range r {
		s[i] = v.String()
	}
	return strings.Join(s, " | ")
}

// Format renders the columns and the first n rows of r.
func (r Result) Format(n int) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "  columns: %s (%d rows)\n", strings.Join(r.Columns, ", "), len(r.Rows))
	for i, row := range r.Rows {
		if i == n {
			fmt.Fprintf(&sb, "  ... %d more\n", len(r.Rows)-n)
			break
		}
		fmt.Fprintf(&sb, "  %3d: %s\n", i, row)
	}
	return sb.String()
}

func (v Value) numeric() bool { return v.Kind == Int || v.Kind == Dec || v.Kind == Float }

func (v Value) rat() *big.Rat {
	if v.Kind == Int {
		return new(big.Rat).SetInt64(v.I)
	}
	return v.R
}

// FloatValue is a numeric value as a float64.
func (v Value) FloatValue() float64 { return v.float() }

func (v Value) float() float64 {
	switch v.Kind {
	case Int:
		return float64(v.I)
	case Dec:
		f, _ := v.R.Float64()
		return f
	}
	return v.F
}

// DefaultRelTol is the relative tolerance of floating-point comparisons.
const DefaultRelTol = 1e-9

// Equal reports whether a and b are the same value: numbers numerically
// (exactly when both are exact; within relTol when one is a float, and
// within half a unit of the last digit of a decimal compared with a
// float), instants by time, NULL only equal to NULL.
func Equal(a, b Value, relTol float64) bool {
	if a.numeric() && b.numeric() {
		if a.Kind != Float && b.Kind != Float {
			if a.Kind == Int && b.Kind == Int {
				return a.I == b.I
			}
			return a.rat().Cmp(b.rat()) == 0
		}
		x, y := a.float(), b.float()
		if x == y || math.IsNaN(x) && math.IsNaN(y) {
			return true
		}
		tol := relTol * math.Max(math.Abs(x), math.Abs(y))
		for _, v := range []Value{a, b} {
			if v.Kind == Dec {
				tol = math.Max(tol, 0.5*math.Pow10(-v.Scale)*(1+1e-9))
			}
		}
		return math.Abs(x-y) <= tol
	}
	if a.Kind != b.Kind {
		return false
	}
	switch a.Kind {
	case Null:
		return true
	case Str:
		return a.S == b.S
	case Bool:
		return a.I == b.I
	case Time:
		return a.T.Equal(b.T)
	}
	return false
}

// RowsEqual compares two rows value by value.
func RowsEqual(a, b Row, relTol float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !Equal(a[i], b[i], relTol) {
			return false
		}
	}
	return true
}

// kindRank orders kinds for canonical sorting: NULL, numbers, strings,
// booleans, instants.
func kindRank(k Kind) int {
	switch k {
	case Null:
		return 0
	case Int, Dec, Float:
		return 1
	case Str:
		return 2
	case Bool:
		return 3
	}
	return 4
}

// roundSig rounds f to 6 significant digits: the canonical sort key of
// floats, so that values equal within the tolerance sort alike.
func roundSig(f float64) float64 {
	if f == 0 || math.IsNaN(f) || math.IsInf(f, 0) {
		return f
	}
	r, _ := strconv.ParseFloat(strconv.FormatFloat(f, 'g', 6, 64), 64)
	return r
}

// cmpCanon is the canonical order of values (for sorting multisets).
func cmpCanon(a, b Value) int {
	ra, rb := kindRank(a.Kind), kindRank(b.Kind)
	if ra != rb {
		return ra - rb
	}
	switch {
	case a.Kind == Null:
		return 0
	case a.numeric():
		if a.Kind != Float && b.Kind != Float {
			if a.Kind == Int && b.Kind == Int {
				return cmpInt(a.I, b.I)
			}
			return a.rat().Cmp(b.rat())
		}
		x, y := roundSig(a.float()), roundSig(b.float())
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	case a.Kind == Str:
		return strings.Compare(a.S, b.S)
	case a.Kind == Bool:
		return cmpInt(a.I, b.I)
	}
	return a.T.Compare(b.T)
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func cmpRowCanon(a, b Row) int {
	for i := range min(len(a), len(b)) {
		if c := cmpCanon(a[i], b[i]); c != 0 {
			return c
		}
	}
	return len(a) - len(b)
}

// FromArrow drains rdr (the caller still releases it) into a Result; the
// values do not refer to Arrow memory.
func FromArrow(rdr array.RecordReader) (Result, error) {
	sc := rdr.Schema()
	res := Result{}
	for _, f := range sc.Fields() {
		res.Columns = append(res.Columns, f.Name)
	}
	for rdr.Next() {
		rec := rdr.RecordBatch()
		for i := 0; i < int(rec.NumRows()); i++ {
			row := make(Row, rec.NumCols())
			for c := range row {
				v, err := ArrowValue(rec.Column(c), i)
				if err != nil {
					return res, fmt.Errorf("column %s: %w", sc.Field(c).Name, err)
				}
				row[c] = v
			}
			res.Rows = append(res.Rows, row)
		}
	}
	return res, rdr.Err()
}

// ArrowValue is element i of arr.
func ArrowValue(arr arrow.Array, i int) (Value, error) {
	if arr.IsNull(i) {
		return Value{}, nil
	}
	switch a := arr.(type) {
	case *array.Int8:
		return IntV(int64(a.Value(i))), nil
	case *array.Int16:
		return IntV(int64(a.Value(i))), nil
	case *array.Int32:
		return IntV(int64(a.Value(i))), nil
	case *array.Int64:
		return IntV(a.Value(i)), nil
	case *array.Uint8:
		return IntV(int64(a.Value(i))), nil
	case *array.Uint16:
		return IntV(int64(a.Value(i))), nil
	case *array.Uint32:
		return IntV(int64(a.Value(i))), nil
	case *array.Uint64:
		return BigV(new(big.Int).SetUint64(a.Value(i)), 0), nil
	case *array.Float32:
		return FloatV(float64(a.Value(i))), nil
	case *array.Float64:
		return FloatV(a.Value(i)), nil
	case *array.Decimal128:
		return BigV(decimal128.Num.BigInt(a.Value(i)), int(a.DataType().(*arrow.Decimal128Type).Scale)), nil
	case *array.Decimal256:
		return BigV(decimal256.Num.BigInt(a.Value(i)), int(a.DataType().(*arrow.Decimal256Type).Scale)), nil
	// Strings are copied: Value(i) aliases the array's buffer.
	case *array.String:
		return StrV(strings.Clone(a.Value(i))), nil
	case *array.LargeString:
		return StrV(strings.Clone(a.Value(i))), nil
	case *array.StringView:
		return StrV(strings.Clone(a.Value(i))), nil
	case *array.Binary:
		return StrV(string(a.Value(i))), nil
	case *array.Boolean:
		return BoolV(a.Value(i)), nil
	case *array.Date32:
		return TimeV(a.Value(i).ToTime()), nil
	case *array.Date64:
		return TimeV(a.Value(i).ToTime()), nil
	case *array.Timestamp:
		u := a.DataType().(*arrow.TimestampType).Unit
		return TimeV(a.Value(i).ToTime(u)), nil
	case *array.Dictionary:
		return ArrowValue(a.Dictionary(), a.GetValueIndex(i))
	case *array.Null:
		return Value{}, nil
	case *array.MonthDayNanoInterval:
		v := a.Value(i)
		if v.Nanoseconds%1000 != 0 {
			return StrV(fmt.Sprintf("%d months %d days %d ns", v.Months, v.Days, v.Nanoseconds)), nil
		}
		return IntervalV(v.Months, v.Days, v.Nanoseconds/1000), nil
	case *array.Struct:
		st := a.DataType().(*arrow.StructType)
		names := make([]string, a.NumField())
		vals := make([]Value, a.NumField())
		for f := range names {
			names[f] = st.Field(f).Name
			v, err := ArrowValue(a.Field(f), i)
			if err != nil {
				return Value{}, err
			}
			vals[f] = v
		}
		return StructV(names, vals), nil
	case *array.Map:
		s, e := a.ValueOffsets(i)
		keys := make([]Value, 0, e-s)
		vals := make([]Value, 0, e-s)
		for j := s; j < e; j++ {
			k, err := ArrowValue(a.Keys(), int(j))
			if err != nil {
				return Value{}, err
			}
			v, err := ArrowValue(a.Items(), int(j))
			if err != nil {
				return Value{}, err
			}
			keys, vals = append(keys, k), append(vals, v)
		}
		return MapV(keys, vals), nil
	case *array.List:
		s, e := a.ValueOffsets(i)
		elems := make([]Value, 0, e-s)
		for j := s; j < e; j++ {
			v, err := ArrowValue(a.ListValues(), int(j))
			if err != nil {
				return Value{}, err
			}
			elems = append(elems, v)
		}
		return ListV(elems), nil
	}
	return StrV(arr.ValueStr(i)), nil
}

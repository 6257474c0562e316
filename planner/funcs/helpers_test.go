package funcs

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/scalar"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

// v is a typed test value: T and a Go value (nil: NULL). Strings are
// parsed for DATE ("2024-01-02"), TIMESTAMP ("2024-01-02 03:04:05.123456")
// and DECIMAL ("1.25").
type v struct {
	T arrow.DataType
	X any
	C bool // always a literal (arguments that must be constants)
}

// K marks an argument that must be a constant.
func K(a v) v { a.C = true; return a }

func S(s string) v         { return v{T: tString, X: s} }
func I(i int64) v          { return v{T: tInt64, X: i} }
func I32(i int32) v        { return v{T: tInt32, X: i} }
func F(f float64) v        { return v{T: tFloat64, X: f} }
func B(b bool) v           { return v{T: tBool, X: b} }
func D(s string) v         { return v{T: tDate, X: s} }
func TS(s string) v        { return v{T: tTSus, X: s} }
func N(t arrow.DataType) v { return v{T: t, X: nil} }
func Dec(s string, p, sc int32) v {
	return v{T: vec.DecimalType(p, sc), X: s}
}

func parseTS(s string) time.Time {
	for _, l := range []string{"2006-01-02 15:04:05.999999999", "2006-01-02"} {
		if t, err := time.Parse(l, s); err == nil {
			return t
		}
	}
	panic("bad test timestamp " + s)
}

// build makes an array of t from Go values.
func build(mem memory.Allocator, t arrow.DataType, xs ...any) arrow.Array {
	b := array.NewBuilder(mem, t)
	defer b.Release()
	for _, x := range xs {
		if x == nil {
			b.AppendNull()
			continue
		}
		switch bb := b.(type) {
		case *array.StringBuilder:
			bb.Append(x.(string))
		case *array.BinaryBuilder:
			bb.Append([]byte(x.(string)))
		case *array.Int64Builder:
			bb.Append(x.(int64))
		case *array.Int32Builder:
			bb.Append(x.(int32))
		case *array.Int16Builder:
			bb.Append(x.(int16))
		case *array.Int8Builder:
			bb.Append(x.(int8))
		case *array.Float64Builder:
			bb.Append(x.(float64))
		case *array.Float32Builder:
			bb.Append(x.(float32))
		case *array.BooleanBuilder:
			bb.Append(x.(bool))
		case *array.Date32Builder:
			bb.Append(arrow.Date32(parseTS(x.(string)).Unix() / 86400))
			if d := parseTS(x.(string)).Unix(); d < 0 && d%86400 != 0 {
				panic("date with time")
			}
		case *array.TimestampBuilder:
			tt := t.(*arrow.TimestampType)
			tm := parseTS(x.(string))
			var iv int64
			switch tt.Unit {
			case arrow.Second:
				iv = tm.Unix()
			case arrow.Millisecond:
				iv = tm.UnixMilli()
			case arrow.Microsecond:
				iv = tm.UnixMicro()
			default:
				iv = tm.UnixNano()
			}
			bb.Append(arrow.Timestamp(iv))
		case *array.Decimal128Builder:
			dt := t.(*arrow.Decimal128Type)
			n, err := decimal128.FromString(x.(string), dt.Precision, dt.Scale)
			if err != nil {
				panic(err)
			}
			bb.Append(n)
		case *array.MonthDayNanoIntervalBuilder:
			bb.Append(x.(arrow.MonthDayNanoInterval))
		default:
			panic(fmt.Sprintf("build: %T", b))
		}
	}
	return b.NewArray()
}

// render formats row i of a for comparisons.
func render(a arrow.Array, i int) string {
	if a.IsNull(i) {
		return "NULL"
	}
	switch x := a.(type) {
	case *array.String:
		return x.Value(i)
	case *array.Int64:
		return strconv.FormatInt(x.Value(i), 10)
	case *array.Int32:
		return strconv.FormatInt(int64(x.Value(i)), 10)
	case *array.Int16:
		return strconv.FormatInt(int64(x.Value(i)), 10)
	case *array.Int8:
		return strconv.FormatInt(int64(x.Value(i)), 10)
	case *array.Float64:
		return strconv.FormatFloat(x.Value(i), 'g', -1, 64)
	case *array.Float32:
		return strconv.FormatFloat(float64(x.Value(i)), 'g', -1, 32)
	case *array.Boolean:
		return strconv.FormatBool(x.Value(i))
	case *array.Decimal128:
		return x.Value(i).ToString(x.DataType().(*arrow.Decimal128Type).Scale)
	case *array.Date32:
		return time.Unix(int64(x.Value(i))*86400, 0).UTC().Format("2006-01-02")
	case *array.Timestamp:
		return x.Value(i).ToTime(x.DataType().(*arrow.TimestampType).Unit).UTC().Format("2006-01-02 15:04:05.999999999")
	}
	return a.ValueStr(i)
}

func newMem(t *testing.T) *memory.CheckedAllocator {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	t.Cleanup(func() { mem.AssertSize(t, 0) })
	return mem
}

// call evaluates name(args) twice, with the arguments as one-row columns
// and as literals, checks both agree, and returns the rendered value and
// result type.
func call(t *testing.T, mem memory.Allocator, name string, args ...v) (string, string, error) {
	t.Helper()
	res := [2]string{}
	var typ string
	for mode := range 2 {
		cols := make([]arrow.Array, 0, len(args))
		fields := make([]arrow.Field, 0, len(args))
		exprs := make([]vec.Expr, len(args))
		for i, a := range args {
			if mode == 1 || a.T.ID() == arrow.NULL || a.C {
				var s scalar.Scalar
				if a.X == nil {
					s = scalar.MakeNullScalar(a.T)
				} else {
					arr := build(mem, a.T, a.X)
					var err error
					s, err = scalar.GetScalar(arr, 0)
					arr.Release()
					if err != nil {
						t.Fatal(err)
					}
				}
				exprs[i] = vec.NewLiteral(s)
				if r, ok := s.(scalar.Releasable); ok {
					defer r.Release()
				}
				continue
			}
			exprs[i] = &vec.Column{Index: len(cols), Name: fmt.Sprintf("c%d", i), T: a.T, Null: true}
			cols = append(cols, build(mem, a.T, a.X))
			fields = append(fields, arrow.Field{Name: fmt.Sprintf("c%d", i), Type: a.T, Nullable: true})
		}
		rec := array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, 1)
		for _, c := range cols {
			c.Release()
		}
		e, err := vec.NewCall(name, exprs)
		if err != nil {
			rec.Release()
			return "", "", err
		}
		ctx := vec.NewCtx(context.Background(), mem, nil)
		ctx.Now = time.Date(2024, 5, 6, 7, 8, 9, 123456000, time.UTC)
		out, err := e.Eval(ctx, rec)
		rec.Release()
		if err != nil {
			return "", "", err
		}
		if out.Len() != 1 {
			t.Fatalf("%s: %d rows", name, out.Len())
		}
		if !arrow.TypeEqual(out.DataType(), e.Type()) {
			t.Fatalf("%s: array type %s, expression type %s", name, out.DataType(), e.Type())
		}
		if out.IsNull(0) && !e.Nullable() {
			t.Fatalf("%s: NULL from a non-nullable expression", name)
		}
		res[mode] = render(out, 0)
		typ = vec.TypeName(out.DataType())
		out.Release()
	}
	if res[0] != res[1] {
		t.Fatalf("%s%v: column gives %q, literal gives %q", name, args, res[0], res[1])
	}
	return res[0], typ, nil
}

// tc is one table case: want is the rendered result, or "ERR:substring"
// for an error wrapping catalog.ErrInvalid; typ (optional) is the result
// type name.
type tc struct {
	fn   string
	args []v
	want string
	typ  string
}

func runCases(t *testing.T, cases []tc) {
	t.Helper()
	mem := newMem(t)
	for _, c := range cases {
		got, typ, err := call(t, mem, c.fn, c.args...)
		label := fmt.Sprintf("%s(%s)", c.fn, argsString(c.args))
		if strings.HasPrefix(c.want, "ERR:") {
			if err == nil {
				t.Errorf("%s = %q, want an error containing %q", label, got, c.want[4:])
				continue
			}
			if !errors.Is(err, catalog.ErrInvalid) && !errors.Is(err, catalog.ErrUnsupported) {
				t.Errorf("%s: error %v does not wrap ErrInvalid", label, err)
			}
			if !strings.Contains(strings.ToLower(err.Error()), strings.ToLower(c.want[4:])) {
				t.Errorf("%s: error %q, want it to contain %q", label, err, c.want[4:])
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", label, err)
			continue
		}
		if got != c.want {
			t.Errorf("%s = %q, want %q", label, got, c.want)
		}
		if c.typ != "" && typ != c.typ {
			t.Errorf("%s: type %s, want %s", label, typ, c.typ)
		}
	}
}

func argsString(args []v) string {
	parts := make([]string, len(args))
	for i, a := range args {
		if a.X == nil {
			parts[i] = "NULL::" + vec.TypeName(a.T)
		} else {
			parts[i] = fmt.Sprintf("%v::%s", a.X, vec.TypeName(a.T))
		}
	}
	return strings.Join(parts, ", ")
}

func str(xs ...any) []any { return xs }

var (
	arrowBinary = arrow.BinaryTypes.Binary
	nullT       = arrow.Null
)

func nan() float64 { return math.NaN() }

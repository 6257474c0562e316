package vec

import (
	"context"
	"fmt"
	"math/rand"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/scalar"
)

// CASE is checked against a row-at-a-time reference: every test expression
// is built twice, as a vec.Expr (through the public constructors) and as a
// Go closure computing the value of one row from the input arrays. Values
// are Go values (bool, int64, string, decimal128.Num, arrow.Date32; nil is
// NULL), compared with ==.

type rval = any

type rnode struct {
	e   Expr
	ref func(i int) rval
}

var tDec = DecimalType(10, 2)

// caseEnv is one random input batch (columns possibly sliced) and the
// generators of expressions over it.
type caseEnv struct {
	t      *testing.T
	rnd    *rand.Rand
	n      int
	arrs   []arrow.Array
	fields []arrow.Field
	byName map[string]rnode
	params []any
}

var caseCols = []struct {
	name  string
	t     arrow.DataType
	nulls bool
}{
	{"b1", tBool, true}, {"b2", tBool, true}, {"bnn", tBool, false},
	{"i1", tInt64, true}, {"i2", tInt64, true}, {"inn", tInt64, false},
	{"s1", arrow.BinaryTypes.String, true}, {"s2", arrow.BinaryTypes.String, true},
	{"d1", tDec, true}, {"d2", tDec, true},
	{"dt", arrow.FixedWidthTypes.Date32, true}, {"dt2", arrow.FixedWidthTypes.Date32, true},
}

// newCaseEnv builds n random rows; sliced: every column is a slice at a
// random offset of a longer array.
func newCaseEnv(t *testing.T, mem memory.Allocator, seed int64, n int, sliced bool) *caseEnv {
	x := &caseEnv{t: t, rnd: rand.New(rand.NewSource(seed)), n: n, byName: map[string]rnode{}}
	for ci, c := range caseCols {
		off, tail := 0, 0
		if sliced {
			off, tail = 1+x.rnd.Intn(13), x.rnd.Intn(9)
		}
		total := off + n + tail
		bld := array.NewBuilder(mem, c.t)
		nullRate := 0.0
		if c.nulls {
			nullRate = []float64{0.05, 0.3, 0.6}[x.rnd.Intn(3)]
		}
		for r := 0; r < total; r++ {
			if x.rnd.Float64() < nullRate {
				bld.AppendNull()
				continue
			}
			switch b := bld.(type) {
			case *array.BooleanBuilder:
				b.Append(x.rnd.Intn(2) == 0)
			case *array.Int64Builder:
				b.Append(x.randVal(c.t).(int64))
			case *array.StringBuilder:
				b.Append(x.randVal(c.t).(string))
			case *array.Decimal128Builder:
				b.Append(x.randVal(c.t).(decimal128.Num))
			case *array.Date32Builder:
				b.Append(x.randVal(c.t).(arrow.Date32))
			}
		}
		full := bld.NewArray()
		bld.Release()
		a := full
		if sliced {
			a = array.NewSlice(full, int64(off), int64(off+n))
			full.Release()
		}
		x.arrs = append(x.arrs, a)
		x.fields = append(x.fields, arrow.Field{Name: c.name, Type: c.t, Nullable: c.nulls})
		arr := a
		x.byName[c.name] = rnode{
			e:   &Column{Index: ci, Name: c.name, T: c.t, Null: c.nulls},
			ref: func(i int) rval { return getVal(arr, i) },
		}
	}
	return x
}

func (x *caseEnv) release() {
	for _, a := range x.arrs {
		a.Release()
	}
}

func (x *caseEnv) randVal(t arrow.DataType) rval {
	switch t.ID() {
	case arrow.BOOL:
		return x.rnd.Intn(2) == 0
	case arrow.INT64:
		return int64(x.rnd.Intn(41) - 20)
	case arrow.STRING:
		return []string{"", "a", "b", "c", "héllo", "a longer string value"}[x.rnd.Intn(6)]
	case arrow.DECIMAL128:
		return decimal128.FromI64(int64(x.rnd.Intn(2001) - 1000))
	case arrow.DATE32:
		return arrow.Date32(19750 + x.rnd.Intn(10))
	}
	panic(t)
}

// getVal reads row i of a as a Go value (nil: NULL).
func getVal(a arrow.Array, i int) rval {
	if a.IsNull(i) {
		return nil
	}
	switch a := a.(type) {
	case *array.Boolean:
		return a.Value(i)
	case *array.Int64:
		return a.Value(i)
	case *array.String:
		return a.Value(i)
	case *array.Decimal128:
		return a.Value(i)
	case *array.Date32:
		return a.Value(i)
	}
	panic(fmt.Sprintf("getVal: %s", a.DataType()))
}

func scalarOf(t arrow.DataType, v rval) scalar.Scalar {
	if v == nil {
		return scalar.MakeNullScalar(t)
	}
	switch v := v.(type) {
	case bool:
		return scalar.NewBooleanScalar(v)
	case int64:
		return scalar.NewInt64Scalar(v)
	case string:
		return scalar.NewStringScalar(v)
	case decimal128.Num:
		return scalar.NewDecimal128Scalar(v, t)
	case arrow.Date32:
		return scalar.NewDate32Scalar(v)
	}
	panic(v)
}

// builders

func (x *caseEnv) col(name string) rnode { return x.byName[name] }

func (x *caseEnv) lit(t arrow.DataType, v rval) rnode {
	return rnode{e: NewLiteral(scalarOf(t, v)), ref: func(int) rval { return v }}
}

func (x *caseEnv) null(t arrow.DataType) rnode { return x.lit(t, nil) }

func (x *caseEnv) boolLit(v rval) rnode { return x.lit(tBool, v) }

// param is a bound ? placeholder of type t with value v.
func (x *caseEnv) param(t arrow.DataType, v rval) rnode {
	p := &Param{N: len(x.params), T: t}
	g := v // the Go value a client binds
	switch vv := v.(type) {
	case arrow.Date32:
		g = vv.ToTime()
	case decimal128.Num:
		g = vv.ToString(2)
	}
	x.params = append(x.params, g)
	return rnode{e: p, ref: func(int) rval { return v }}
}

func cmpVals(a, b rval) int {
	switch a := a.(type) {
	case bool:
		return b2i(a) - b2i(b.(bool))
	case int64:
		bb := b.(int64)
		return map[bool]int{true: -1, false: 0}[a < bb] + map[bool]int{true: 1, false: 0}[a > bb]
	case string:
		bb := b.(string)
		return map[bool]int{true: -1, false: 0}[a < bb] + map[bool]int{true: 1, false: 0}[a > bb]
	case decimal128.Num:
		return a.Cmp(b.(decimal128.Num))
	case arrow.Date32:
		bb := b.(arrow.Date32)
		return map[bool]int{true: -1, false: 0}[a < bb] + map[bool]int{true: 1, false: 0}[a > bb]
	}
	panic(a)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func (x *caseEnv) cmp(op string, l, r rnode) rnode {
	e, err := NewCompare(op, l.e, r.e)
	if err != nil {
		x.t.Fatal(err)
	}
	return rnode{e: e, ref: func(i int) rval {
		a, b := l.ref(i), r.ref(i)
		if a == nil || b == nil {
			return nil
		}
		c := cmpVals(a, b)
		switch op {
		case "=":
			return c == 0
		case "<>":
			return c != 0
		case "<":
			return c < 0
		case ">":
			return c > 0
		case "<=":
			return c <= 0
		case ">=":
			return c >= 0
		}
		panic(op)
	}}
}

// plus1 is l + 1 for a BIGINT l (an Arith: may fail, so CASE evaluates it
// on its rows only).
func (x *caseEnv) plus1(l rnode) rnode {
	e, err := NewArith("+", l.e, NewLiteral(scalar.NewInt64Scalar(1)))
	if err != nil {
		x.t.Fatal(err)
	}
	return rnode{e: e, ref: func(i int) rval {
		v := l.ref(i)
		if v == nil {
			return nil
		}
		return v.(int64) + 1
	}}
}

func (x *caseEnv) logic(or bool, args ...rnode) rnode {
	es := make([]Expr, len(args))
	for i, a := range args {
		es[i] = a.e
	}
	var e Expr
	var err error
	if or {
		e, err = NewOr(es...)
	} else {
		e, err = NewAnd(es...)
	}
	if err != nil {
		x.t.Fatal(err)
	}
	return rnode{e: e, ref: func(i int) rval {
		sawNull := false
		for _, a := range args {
			v := a.ref(i)
			if v == nil {
				sawNull = true
				continue
			}
			if v.(bool) == or {
				return or
			}
		}
		if sawNull {
			return nil
		}
		return !or
	}}
}

func (x *caseEnv) not(a rnode) rnode {
	e, err := NewNot(a.e)
	if err != nil {
		x.t.Fatal(err)
	}
	return rnode{e: e, ref: func(i int) rval {
		v := a.ref(i)
		if v == nil {
			return nil
		}
		return !v.(bool)
	}}
}

func (x *caseEnv) isNull(a rnode, negate bool) rnode {
	e, err := NewIsNull(a.e, negate)
	if err != nil {
		x.t.Fatal(err)
	}
	return rnode{e: e, ref: func(i int) rval { return (a.ref(i) == nil) != negate }}
}

// cas is CASE WHEN w[0] THEN th[0] ... ELSE els END; els nil: no ELSE.
func (x *caseEnv) cas(w, th []rnode, els *rnode) rnode {
	we, te := make([]Expr, len(w)), make([]Expr, len(th))
	for i := range w {
		we[i], te[i] = w[i].e, th[i].e
	}
	var ee Expr
	if els != nil {
		ee = els.e
	}
	e, err := NewCase(we, te, ee)
	if err != nil {
		x.t.Fatal(err)
	}
	return rnode{e: e, ref: func(i int) rval {
		for k := range w {
			if v := w[k].ref(i); v != nil && v.(bool) {
				return th[k].ref(i)
			}
		}
		if els != nil {
			return els.ref(i)
		}
		return nil
	}}
}

func (x *caseEnv) cas1(w, th rnode, els *rnode) rnode { return x.cas([]rnode{w}, []rnode{th}, els) }

func ptr(r rnode) *rnode { return &r }

// random expressions

var caseResultTypes = []arrow.DataType{tBool, tInt64, arrow.BinaryTypes.String, tDec, arrow.FixedWidthTypes.Date32}

func colsOf(t arrow.DataType) []string {
	switch t.ID() {
	case arrow.BOOL:
		return []string{"b1", "b2", "bnn"}
	case arrow.INT64:
		return []string{"i1", "i2", "inn"}
	case arrow.STRING:
		return []string{"s1", "s2"}
	case arrow.DECIMAL128:
		return []string{"d1", "d2"}
	case arrow.DATE32:
		return []string{"dt", "dt2"}
	}
	panic(t)
}

func (x *caseEnv) genValue(t arrow.DataType, depth int) rnode {
	r := x.rnd.Intn(20)
	switch {
	case depth > 0 && r < 7:
		return x.genCase(t, depth-1)
	case depth > 0 && t.ID() == arrow.BOOL && r < 10:
		return x.genWhen(depth - 1)
	case r < 15:
		cs := colsOf(t)
		return x.col(cs[x.rnd.Intn(len(cs))])
	case r < 17:
		return x.lit(t, x.randVal(t))
	case r < 18:
		return x.param(t, x.randVal(t))
	default:
		return x.null(t)
	}
}

func (x *caseEnv) genCase(t arrow.DataType, depth int) rnode {
	k := 1 + x.rnd.Intn(3)
	w, th := make([]rnode, k), make([]rnode, k)
	for i := range w {
		w[i] = x.genWhen(depth)
		th[i] = x.genValue(t, depth)
	}
	var els *rnode
	if x.rnd.Intn(4) != 0 {
		els = ptr(x.genValue(t, depth))
	}
	return x.cas(w, th, els)
}

func (x *caseEnv) genWhen(depth int) rnode {
	switch r := x.rnd.Intn(16); {
	case r < 3:
		cs := colsOf(tBool)
		return x.col(cs[x.rnd.Intn(len(cs))])
	case r == 3:
		return x.boolLit([]rval{true, false, nil}[x.rnd.Intn(3)])
	case r == 4: // 1 > 2, 2 > 1: folds to a constant
		a, b := int64(x.rnd.Intn(3)), int64(x.rnd.Intn(3))
		return x.cmp(">", x.lit(tInt64, a), x.lit(tInt64, b))
	case r == 5:
		return x.cmp([]string{">", "<=", "="}[x.rnd.Intn(3)], x.col("i1"), x.lit(tInt64, x.randVal(tInt64)))
	case r == 6:
		return x.cmp("=", x.col("dt"), x.lit(arrow.FixedWidthTypes.Date32, x.randVal(arrow.FixedWidthTypes.Date32)))
	case r == 7:
		return x.cmp("=", x.col("s1"), x.lit(arrow.BinaryTypes.String, x.randVal(arrow.BinaryTypes.String)))
	case r == 8:
		return x.cmp(">", x.col("d1"), x.lit(tDec, x.randVal(tDec)))
	case r == 9:
		return x.cmp(">", x.plus1(x.col("i2")), x.lit(tInt64, x.randVal(tInt64)))
	case r == 10:
		return x.isNull(x.col([]string{"i1", "s2", "b1"}[x.rnd.Intn(3)]), x.rnd.Intn(2) == 0)
	case r == 11 && depth > 0:
		return x.logic(true, x.genWhen(depth-1), x.genWhen(depth-1))
	case r == 12 && depth > 0:
		return x.logic(false, x.genWhen(depth-1), x.genWhen(depth-1))
	case r == 13 && depth > 0:
		return x.not(x.genWhen(depth - 1))
	case r == 14 && depth > 0:
		return x.genCase(tBool, depth-1)
	default:
		return x.cmp("<", x.col("inn"), x.lit(tInt64, x.randVal(tInt64)))
	}
}

// check evaluates e over the env's batch (folded first when fold) and
// compares every row with the reference.
func (x *caseEnv) check(t *testing.T, mem memory.Allocator, r rnode, fold bool) {
	t.Helper()
	e := r.e
	if fold {
		f, err := Fold(e)
		if err != nil {
			t.Fatalf("fold %s: %v", e, err)
		}
		e = f
	}
	b := array.NewRecordBatch(arrow.NewSchema(x.fields, nil), x.arrs, int64(x.n))
	defer b.Release()
	c := NewCtx(context.Background(), mem, x.params)
	a, err := e.Eval(c, b)
	if err != nil {
		t.Fatalf("%s: %v", e, err)
	}
	defer a.Release()
	if a.Len() != x.n {
		t.Fatalf("%s: %d values for %d rows", e, a.Len(), x.n)
	}
	if !arrow.TypeEqual(a.DataType(), r.e.Type()) {
		t.Fatalf("%s: type %s, want %s", e, a.DataType(), r.e.Type())
	}
	nulls, bad := 0, 0
	for i := 0; i < x.n; i++ {
		got, want := getVal(a, i), r.ref(i)
		if got == nil {
			nulls++
		}
		if got != want {
			if bad++; bad <= 5 {
				t.Errorf("%s (fold %v, %d rows), row %d: got %v, want %v", e, fold, x.n, i, got, want)
			}
		}
	}
	if bad > 5 {
		t.Errorf("... %d wrong rows in all", bad)
	}
	if a.NullN() != nulls {
		t.Errorf("%s: NullN %d, %d NULL rows", e, a.NullN(), nulls)
	}
}

var caseSizes = []int{1, 2, 10, 77, 10000}

// forEachBatch runs fn over random batches of every size, plain and sliced,
// each with a checked allocator that must end empty.
func forEachBatch(t *testing.T, seed int64, fn func(t *testing.T, mem memory.Allocator, x *caseEnv)) {
	for _, n := range caseSizes {
		for _, sliced := range []bool{false, true} {
			t.Run(fmt.Sprintf("n=%d/sliced=%v", n, sliced), func(t *testing.T) {
				mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
				defer mem.AssertSize(t, 0)
				x := newCaseEnv(t, mem, seed+int64(n)*7+int64(b2i(sliced)), n, sliced)
				defer x.release()
				fn(t, mem, x)
			})
		}
	}
}

func TestCaseTable(t *testing.T) {
	dateT := arrow.FixedWidthTypes.Date32
	strT := arrow.BinaryTypes.String
	tests := []struct {
		name  string
		build func(x *caseEnv) rnode
	}{
		{"issue: nested CASE over a boolean column, inner WHEN 1 > 2", func(x *caseEnv) rnode {
			inner := x.cas1(x.cmp(">", x.lit(tInt64, int64(1)), x.lit(tInt64, int64(2))), x.col("b1"), ptr(x.col("b1")))
			return x.cas1(x.cmp("=", x.col("dt"), x.lit(dateT, arrow.Date32(19753))), inner, ptr(x.col("b1")))
		}},
		{"boolean THEN and ELSE columns", func(x *caseEnv) rnode {
			return x.cas1(x.col("b2"), x.col("b1"), ptr(x.col("bnn")))
		}},
		{"WHEN a OR b THEN CASE ELSE column", func(x *caseEnv) rnode {
			w := x.logic(true, x.cmp(">", x.col("i1"), x.lit(tInt64, int64(5))), x.col("b2"))
			inner := x.cas1(x.col("b1"), x.col("bnn"), ptr(x.col("b2")))
			return x.cas1(w, inner, ptr(x.col("b1")))
		}},
		{"nested CASE in WHEN, THEN and ELSE", func(x *caseEnv) rnode {
			w := x.cas1(x.col("b1"), x.col("b2"), ptr(x.cmp("<", x.col("i1"), x.lit(tInt64, int64(0)))))
			th := x.cas1(x.isNull(x.col("s1"), false), x.lit(strT, "was null"), ptr(x.col("s1")))
			el := x.cas1(x.col("bnn"), x.col("s2"), nil)
			return x.cas1(w, th, ptr(el))
		}},
		{"constant WHEN TRUE", func(x *caseEnv) rnode {
			return x.cas([]rnode{x.boolLit(true), x.col("b1")}, []rnode{x.col("i1"), x.col("i2")}, ptr(x.col("inn")))
		}},
		{"constant WHEN FALSE", func(x *caseEnv) rnode {
			return x.cas([]rnode{x.boolLit(false), x.col("b1")}, []rnode{x.col("i1"), x.col("i2")}, ptr(x.col("inn")))
		}},
		{"constant WHEN NULL", func(x *caseEnv) rnode {
			return x.cas([]rnode{x.boolLit(nil), x.col("b2")}, []rnode{x.col("d1"), x.col("d2")}, ptr(x.lit(tDec, decimal128.FromI64(-7))))
		}},
		{"constant WHENs only, no ELSE", func(x *caseEnv) rnode {
			return x.cas([]rnode{x.boolLit(false), x.boolLit(nil)}, []rnode{x.col("b1"), x.col("b2")}, nil)
		}},
		{"boolean result, literal branches", func(x *caseEnv) rnode {
			return x.cas([]rnode{x.col("b1"), x.col("b2")}, []rnode{x.boolLit(false), x.boolLit(true)}, ptr(x.boolLit(nil)))
		}},
		{"int result", func(x *caseEnv) rnode {
			return x.cas([]rnode{x.cmp(">", x.col("i1"), x.lit(tInt64, int64(0))), x.col("b1")},
				[]rnode{x.col("i2"), x.lit(tInt64, int64(42))}, ptr(x.col("i1")))
		}},
		{"string result", func(x *caseEnv) rnode {
			return x.cas([]rnode{x.cmp("=", x.col("s1"), x.lit(strT, "a")), x.col("b2")},
				[]rnode{x.col("s2"), x.lit(strT, "lit")}, ptr(x.col("s1")))
		}},
		{"decimal result", func(x *caseEnv) rnode {
			return x.cas([]rnode{x.cmp(">", x.col("d1"), x.lit(tDec, decimal128.FromI64(0)))},
				[]rnode{x.col("d2")}, ptr(x.col("d1")))
		}},
		{"date result", func(x *caseEnv) rnode {
			return x.cas([]rnode{x.cmp("=", x.col("dt"), x.lit(dateT, arrow.Date32(19755))), x.col("bnn")},
				[]rnode{x.col("dt2"), x.lit(dateT, arrow.Date32(20000))}, ptr(x.col("dt")))
		}},
		{"NULL THEN, column ELSE", func(x *caseEnv) rnode {
			return x.cas1(x.col("b1"), x.null(tBool), ptr(x.col("b2")))
		}},
		{"column THEN, NULL ELSE", func(x *caseEnv) rnode {
			return x.cas1(x.col("b1"), x.col("s1"), ptr(x.null(strT)))
		}},
		{"no ELSE", func(x *caseEnv) rnode {
			return x.cas([]rnode{x.col("b1"), x.col("b2")}, []rnode{x.col("d1"), x.col("d2")}, nil)
		}},
		{"every WHEN false or NULL", func(x *caseEnv) rnode {
			never := x.logic(false, x.col("b1"), x.boolLit(nil), x.isNull(x.col("b1"), false))
			return x.cas([]rnode{never, x.boolLit(nil), x.cmp(">", x.col("inn"), x.lit(tInt64, int64(1000)))},
				[]rnode{x.col("b1"), x.col("b2"), x.col("bnn")}, ptr(x.col("b2")))
		}},
		{"every WHEN false or NULL, no ELSE", func(x *caseEnv) rnode {
			return x.cas([]rnode{x.cmp(">", x.col("i1"), x.lit(tInt64, int64(1000))), x.boolLit(nil)},
				[]rnode{x.col("i1"), x.col("i2")}, nil)
		}},
		{"all rows in the first branch (non-constant WHEN)", func(x *caseEnv) rnode {
			all := x.logic(true, x.isNull(x.col("b1"), false), x.isNull(x.col("b1"), true))
			return x.cas1(all, x.col("b2"), ptr(x.col("b1")))
		}},
		{"all rows in the ELSE", func(x *caseEnv) rnode {
			return x.cas1(x.cmp("<", x.col("inn"), x.lit(tInt64, int64(-1000))), x.col("s1"), ptr(x.col("s2")))
		}},
		{"all rows in the second branch", func(x *caseEnv) rnode {
			return x.cas([]rnode{x.boolLit(false), x.cmp(">=", x.col("inn"), x.lit(tInt64, int64(-1000)))},
				[]rnode{x.col("dt"), x.col("dt2")}, ptr(x.null(dateT)))
		}},
		{"WHEN that may fail (arith) evaluated on the remaining rows", func(x *caseEnv) rnode {
			return x.cas([]rnode{x.col("b1"), x.cmp(">", x.plus1(x.col("i1")), x.lit(tInt64, int64(0)))},
				[]rnode{x.col("b2"), x.col("bnn")}, ptr(x.col("b1")))
		}},
		{"parameter branches", func(x *caseEnv) rnode {
			return x.cas([]rnode{x.col("b1"), x.col("b2")},
				[]rnode{x.param(tBool, false), x.col("bnn")}, ptr(x.param(tBool, true)))
		}},
		{"three levels of boolean CASE", func(x *caseEnv) rnode {
			l3 := x.cas1(x.col("b2"), x.col("b1"), ptr(x.col("bnn")))
			l2 := x.cas1(x.cmp("=", x.col("dt"), x.lit(dateT, arrow.Date32(19752))), l3, ptr(x.col("b2")))
			return x.cas1(x.logic(true, x.col("b1"), x.cmp("<", x.col("i1"), x.lit(tInt64, int64(-5)))), l2, ptr(x.not(x.col("b1"))))
		}},
	}
	for ti, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			forEachBatch(t, int64(1000*ti), func(t *testing.T, mem memory.Allocator, x *caseEnv) {
				r := tc.build(x)
				x.check(t, mem, r, false)
				x.check(t, mem, r, true)
			})
		})
	}
}

func TestCaseRandom(t *testing.T) {
	const perBatch = 40
	forEachBatch(t, 77, func(t *testing.T, mem memory.Allocator, x *caseEnv) {
		for k := 0; k < perBatch; k++ {
			rt := caseResultTypes[x.rnd.Intn(len(caseResultTypes))]
			r := x.genCase(rt, 1+x.rnd.Intn(3))
			x.check(t, mem, r, x.rnd.Intn(2) == 0)
		}
	})
}

// TestCaseEmptyBatch: zero rows give zero values (not an error from
// concatenating no pieces).
func TestCaseEmptyBatch(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	x := newCaseEnv(t, mem, 1, 0, false)
	defer x.release()
	x.check(t, mem, x.cas1(x.col("b1"), x.col("b2"), ptr(x.col("bnn"))), false)
	x.check(t, mem, x.cas1(x.col("b1"), x.col("i1"), nil), false)
}

// TestEvalSelectedBoolean: the row subsets CASE (and AND/OR) evaluate on
// keep BOOLEAN values when the column has NULLs (compute.FilterArray of
// arrow-go v18.8.0 returns all NULLs there).
func TestEvalSelectedBoolean(t *testing.T) {
	forEachBatch(t, 5, func(t *testing.T, mem memory.Allocator, x *caseEnv) {
		b := array.NewRecordBatch(arrow.NewSchema(x.fields, nil), x.arrs, int64(x.n))
		defer b.Release()
		c := NewCtx(context.Background(), mem, nil)
		for _, density := range []float64{0, 0.1, 0.5, 0.9, 1} {
			sel := make([]byte, (x.n+7)/8)
			var rows []int
			for i := 0; i < x.n; i++ {
				if x.rnd.Float64() < density {
					sel[i/8] |= 1 << (i % 8)
					rows = append(rows, i)
				}
			}
			for _, name := range []string{"b1", "b2", "bnn"} {
				col := x.col(name)
				a, err := evalSelected(c, col.e, b, sel, len(rows))
				if err != nil {
					t.Fatal(err)
				}
				if a.Len() != len(rows) {
					t.Fatalf("%s: %d values for %d rows", name, a.Len(), len(rows))
				}
				nulls := 0
				for j, i := range rows {
					got, want := getVal(a, j), col.ref(i)
					if got == nil {
						nulls++
					}
					if got != want {
						t.Errorf("%s density %v: selected row %d (row %d) = %v, want %v", name, density, j, i, got, want)
						break
					}
				}
				if a.NullN() != nulls {
					t.Errorf("%s: NullN %d, %d NULL rows", name, a.NullN(), nulls)
				}
				a.Release()
			}
		}
	})
}

package funcs

import (
	"bytes"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

// Conditional functions and the variadic comparisons. The arguments are
// converted to their common type (vec.CommonType); NULL handling is per
// function (doc.go).

func init() {
	register("COALESCE", nil, bindCoalesce(1, math.MaxInt))
	register("IFNULL", []string{"NVL"}, bindCoalesce(2, 2))
	register("NULLIF", nil, bindNullif)
	register("IF", []string{"IIF"}, bindIf)
	register("GREATEST", nil, bindExtreme(true))
	register("LEAST", nil, bindExtreme(false))
}

// commonArgs returns the common type of args and the ArgTypes casting them
// to it.
func commonArgs(name string, args []vec.Expr) (arrow.DataType, []arrow.DataType, error) {
	ts := make([]arrow.DataType, len(args))
	for i, a := range args {
		ts[i] = a.Type()
	}
	t, err := vec.CommonType(ts...)
	if err != nil {
		return nil, nil, invalidf("%s: %v", name, err)
	}
	if isNullT(t) {
		t = tInt32 // DuckDB types an all-NULL call as INTEGER
	}
	if !pickable(t) {
		return nil, nil, unsupportedf("%s over %s", name, vec.TypeName(t))
	}
	return t, types(t, len(args)), nil
}

func pickable(t arrow.DataType) bool {
	if t.ID() == arrow.BOOL || t.ID() == arrow.STRING {
		return true
	}
	fw, ok := t.(arrow.FixedWidthDataType)
	if !ok {
		return false
	}
	switch fw.BitWidth() {
	case 8, 16, 32, 64, 128:
		return true
	}
	return false
}

// pick builds an array of t taking row i from arrs[choose(i)] (-1: NULL).
func pick(mem memory.Allocator, t arrow.DataType, arrs []arrow.Array, n int, choose func(i int) int) (arrow.Array, error) {
	valid := newBitmap(mem, n, false)
	vb := valid.Bytes()
	src := make([]int, n)
	for i := range n {
		j := choose(i)
		src[i] = j
		if j >= 0 {
			bitutil.SetBit(vb, i)
		}
	}
	switch {
	case t.ID() == arrow.STRING:
		ins := make([]strIn, len(arrs))
		for j, a := range arrs {
			s, err := strsOf(a)
			if err != nil {
				valid.Release()
				return nil, err
			}
			ins[j] = s
		}
		out := newStrOut(mem, n, len(ins[0].data))
		for i, j := range src {
			if j < 0 {
				out.add(nil)
			} else {
				out.add(ins[j].at(i))
			}
		}
		return out.finish(valid)
	case t.ID() == arrow.BOOL:
		out := newBoolOut(mem, n)
		for i, j := range src {
			if j >= 0 && arrs[j].(*array.Boolean).Value(i) {
				out.set(i)
			}
		}
		return out.finish(n, valid), nil
	}
	switch t.(arrow.FixedWidthDataType).BitWidth() {
	case 8:
		return pickFixed[uint8](mem, t, arrs, src, valid), nil
	case 16:
		return pickFixed[uint16](mem, t, arrs, src, valid), nil
	case 32:
		return pickFixed[uint32](mem, t, arrs, src, valid), nil
	case 64:
		return pickFixed[uint64](mem, t, arrs, src, valid), nil
	}
	return pickFixed[[2]uint64](mem, t, arrs, src, valid), nil
}

func pickFixed[T any](mem memory.Allocator, t arrow.DataType, arrs []arrow.Array, src []int, valid *memory.Buffer) arrow.Array {
	n := len(src)
	ins := make([][]T, len(arrs))
	for j, a := range arrs {
		ins[j] = fixedN[T](a, n)
	}
	out := newFixed[T](mem, n)
	for i, j := range src {
		if j >= 0 {
			out.vals[i] = ins[j][i]
		}
	}
	return out.finish(t, n, valid)
}

// COALESCE(a, ...) / IFNULL(a, b) / NVL: the first non-NULL argument.
func bindCoalesce(lo, hi int) func(string, []vec.Expr) (*vec.BoundFunc, error) {
	return func(name string, args []vec.Expr) (*vec.BoundFunc, error) {
		if err := arity(name, args, lo, hi); err != nil {
			return nil, err
		}
		t, at, err := commonArgs(name, args)
		if err != nil {
			return nil, err
		}
		return &vec.BoundFunc{Ret: t, ArgTypes: at,
			Kernel: func(c *vec.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
				vs := make([]validBits, len(a))
				for j := range a {
					vs[j] = validOf(a[j])
				}
				return pick(c.Mem, t, a, n, func(i int) int {
					for j := range vs {
						if vs[j].ok(i) {
							return j
						}
					}
					return -1
				})
			}}, nil
	}
}

// comparer returns a three-way comparison of row i of x and row i of y
// (arrays of t); floats order NaN above every number, like DuckDB.
func comparer(t arrow.DataType, x, y arrow.Array, n int) (func(i int) int, error) {
	switch t.ID() {
	case arrow.INT8:
		return cmpOrdered(fixedN[int8](x, n), fixedN[int8](y, n)), nil
	case arrow.INT16:
		return cmpOrdered(fixedN[int16](x, n), fixedN[int16](y, n)), nil
	case arrow.INT32, arrow.DATE32, arrow.TIME32:
		return cmpOrdered(fixedN[int32](x, n), fixedN[int32](y, n)), nil
	case arrow.INT64, arrow.TIMESTAMP, arrow.DATE64, arrow.TIME64:
		return cmpOrdered(fixedN[int64](x, n), fixedN[int64](y, n)), nil
	case arrow.UINT8:
		return cmpOrdered(fixedN[uint8](x, n), fixedN[uint8](y, n)), nil
	case arrow.UINT16:
		return cmpOrdered(fixedN[uint16](x, n), fixedN[uint16](y, n)), nil
	case arrow.UINT32:
		return cmpOrdered(fixedN[uint32](x, n), fixedN[uint32](y, n)), nil
	case arrow.UINT64:
		return cmpOrdered(fixedN[uint64](x, n), fixedN[uint64](y, n)), nil
	case arrow.FLOAT32:
		a, b := fixedN[float32](x, n), fixedN[float32](y, n)
		return func(i int) int { return predicate.CompareFloat(float64(a[i]), float64(b[i])) }, nil
	case arrow.FLOAT64:
		a, b := fixedN[float64](x, n), fixedN[float64](y, n)
		return func(i int) int { return predicate.CompareFloat(a[i], b[i]) }, nil
	case arrow.DECIMAL128:
		a, b := fixedN[decimal128.Num](x, n), fixedN[decimal128.Num](y, n)
		return func(i int) int { return a[i].Cmp(b[i]) }, nil
	case arrow.STRING:
		a, err := strsOf(x)
		if err != nil {
			return nil, err
		}
		b, err := strsOf(y)
		if err != nil {
			return nil, err
		}
		return func(i int) int { return bytes.Compare(a.at(i), b.at(i)) }, nil
	case arrow.BOOL:
		a, err := boolsOf(x)
		if err != nil {
			return nil, err
		}
		b, err := boolsOf(y)
		if err != nil {
			return nil, err
		}
		return func(i int) int {
			p, q := a(i), b(i)
			switch {
			case p == q:
				return 0
			case q:
				return -1
			}
			return 1
		}, nil
	}
	return nil, unsupportedf("comparing %s values", vec.TypeName(t))
}

func cmpOrdered[T int8 | int16 | int32 | int64 | uint8 | uint16 | uint32 | uint64](a, b []T) func(i int) int {
	return func(i int) int {
		switch {
		case a[i] < b[i]:
			return -1
		case a[i] > b[i]:
			return 1
		}
		return 0
	}
}

// NULLIF(a, b): NULL when a = b, else a (a NULL b keeps a).
func bindNullif(name string, args []vec.Expr) (*vec.BoundFunc, error) {
	if err := arity(name, args, 2, 2); err != nil {
		return nil, err
	}
	t, at, err := commonArgs(name, args)
	if err != nil {
		return nil, err
	}
	return &vec.BoundFunc{Ret: t, ArgTypes: at, AlwaysNullable: true,
		Kernel: func(c *vec.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
			cmp, err := comparer(t, a[0], a[1], n)
			if err != nil {
				return nil, err
			}
			v0, v1 := validOf(a[0]), validOf(a[1])
			return pick(c.Mem, t, a, n, func(i int) int {
				if !v0.ok(i) || v1.ok(i) && cmp(i) == 0 {
					return -1
				}
				return 0
			})
		}}, nil
}

// IF(cond, a, b) / IIF: a where cond is TRUE, else b (NULL cond: b).
func bindIf(name string, args []vec.Expr) (*vec.BoundFunc, error) {
	if err := arity(name, args, 3, 3); err != nil {
		return nil, err
	}
	if ct := args[0].Type(); ct.ID() != arrow.BOOL && !isNullT(ct) {
		return nil, argTypeErr(name, 0, args[0], "BOOLEAN")
	}
	t, at, err := commonArgs(name, args[1:])
	if err != nil {
		return nil, err
	}
	at = append([]arrow.DataType{tBool}, at...)
	return &vec.BoundFunc{Ret: t, ArgTypes: at,
		Kernel: func(c *vec.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
			cond, err := boolsOf(a[0])
			if err != nil {
				return nil, err
			}
			cv, v1, v2 := validOf(a[0]), validOf(a[1]), validOf(a[2])
			return pick(c.Mem, t, a[1:], n, func(i int) int {
				if cv.ok(i) && cond(i) {
					if v1.ok(i) {
						return 0
					}
					return -1
				}
				if v2.ok(i) {
					return 1
				}
				return -1
			})
		}}, nil
}

// GREATEST / LEAST(a, ...): NULLs are ignored; NULL only when all are.
func bindExtreme(greatest bool) func(string, []vec.Expr) (*vec.BoundFunc, error) {
	return func(name string, args []vec.Expr) (*vec.BoundFunc, error) {
		if err := arity(name, args, 1, math.MaxInt); err != nil {
			return nil, err
		}
		t, at, err := commonArgs(name, args)
		if err != nil {
			return nil, err
		}
		return &vec.BoundFunc{Ret: t, ArgTypes: at,
			Kernel: func(c *vec.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
				vs := make([]validBits, len(a))
				for j := range a {
					vs[j] = validOf(a[j])
				}
				// cmps[j][k] compares a[j] with a[k]; built lazily per pair.
				cmps := make(map[[2]int]func(int) int)
				var cerr error
				cmpAt := func(j, k, i int) int {
					f, ok := cmps[[2]int{j, k}]
					if !ok {
						var err error
						if f, err = comparer(t, a[j], a[k], n); err != nil {
							cerr = err
							return 0
						}
						cmps[[2]int{j, k}] = f
					}
					return f(i)
				}
				out, err := pick(c.Mem, t, a, n, func(i int) int {
					best := -1
					for j := range vs {
						if !vs[j].ok(i) {
							continue
						}
						if best < 0 {
							best = j
							continue
						}
						r := cmpAt(j, best, i)
						if greatest && r > 0 || !greatest && r < 0 {
							best = j
						}
					}
					return best
				})
				if cerr != nil {
					if out != nil {
						out.Release()
					}
					return nil, cerr
				}
				return out, err
			}}, nil
	}
}

// MOD(a, b) (PAIMON_MOD): the remainder with the dividend's sign, in the
// common type; NULL for a zero integer or DECIMAL divisor (DOUBLE: NaN);
// MIN % -1 overflows like DuckDB's.
func bindMod(name string, args []vec.Expr) (*vec.BoundFunc, error) {
	if err := arity(name, args, 2, 2); err != nil {
		return nil, err
	}
	for i := range args {
		if _, err := numArgType(name, args, i, tInt32); err != nil {
			return nil, err
		}
	}
	t, at, err := commonArgs(name, args)
	if err != nil {
		return nil, err
	}
	if !isNumT(t) {
		return nil, invalidf("%s needs numbers, got %s", name, vec.TypeName(t))
	}
	if t.ID() == arrow.FLOAT32 {
		t, at = tFloat64, types(tFloat64, 2)
	}
	if vec.IsInteger(t) && t.ID() != arrow.INT8 && t.ID() != arrow.INT16 && t.ID() != arrow.INT32 && t.ID() != arrow.INT64 {
		t, at = tInt64, types(tInt64, 2)
	}
	return &vec.BoundFunc{Ret: t, ArgTypes: at, AlwaysNullable: true,
		Kernel: func(c *vec.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
			valid := andValidity(c.Mem, n, a...)
			if valid == nil {
				valid = newBitmap(c.Mem, n, true)
			}
			vb := valid.Bytes()
			fail := func(err error) (arrow.Array, error) {
				valid.Release()
				return nil, err
			}
			switch t.ID() {
			case arrow.FLOAT64:
				x, y := fixedN[float64](a[0], n), fixedN[float64](a[1], n)
				out := newFixed[float64](c.Mem, n)
				for i := range n {
					out.vals[i] = math.Mod(x[i], y[i])
				}
				return out.finish(t, n, valid), nil
			case arrow.DECIMAL128:
				x, y := fixedN[decimal128.Num](a[0], n), fixedN[decimal128.Num](a[1], n)
				out := newFixed[decimal128.Num](c.Mem, n)
				for i := range n {
					if !bitutil.BitIsSet(vb, i) {
						continue
					}
					if y[i].Sign() == 0 {
						bitutil.ClearBit(vb, i)
						continue
					}
					out.vals[i] = decRem(x[i], y[i])
				}
				return out.finish(t, n, valid), nil
			}
			var x, y []int64
			switch t.ID() {
			case arrow.INT8:
				x, y = widen(fixedN[int8](a[0], n)), widen(fixedN[int8](a[1], n))
			case arrow.INT16:
				x, y = widen(fixedN[int16](a[0], n)), widen(fixedN[int16](a[1], n))
			case arrow.INT32:
				x, y = widen(fixedN[int32](a[0], n)), widen(fixedN[int32](a[1], n))
			default:
				x, y = fixedN[int64](a[0], n), fixedN[int64](a[1], n)
			}
			lo, _ := intRange(t)
			res := make([]int64, n)
			for i := range n {
				if !bitutil.BitIsSet(vb, i) {
					continue
				}
				switch {
				case y[i] == 0:
					bitutil.ClearBit(vb, i)
				case y[i] == -1 && x[i] == lo:
					return fail(invalidf("%s: overflow in %d %% -1", name, x[i]))
				default:
					res[i] = x[i] % y[i]
				}
			}
			return narrow(c.Mem, t, res, n, valid), nil
		}}, nil
}

// decRem is the truncated remainder of two DECIMALs of the same scale.
func decRem(x, y decimal128.Num) decimal128.Num {
	small := func(v decimal128.Num) bool {
		return v.HighBits() == 0 && v.LowBits() <= math.MaxInt64 || v.HighBits() == -1 && v.LowBits() > math.MaxInt64
	}
	if small(x) && small(y) {
		a, b := int64(x.LowBits()), int64(y.LowBits())
		if !(b == -1 && a == math.MinInt64) {
			return decimal128.FromI64(a % b)
		}
		return decimal128.Num{}
	}
	_, r := x.Div(y)
	return r
}

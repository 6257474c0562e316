package funcs

import (
	"math/bits"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

// Bitwise operators and functions on signed integers, as DuckDB 1.5:
// a & b, a | b, a << b, a >> b (registered under those operator names,
// which SQL cannot call directly; the binder maps the operators to them),
// ~a, XOR(a, b) and BIT_COUNT(a) (TINYINT).
//
// They work in DuckDB's operand type, because << overflows, >> and
// BIT_COUNT of a negative value depend on the width: the operands take
// their common type, an integer literal takes the other operand's type
// when its value fits (DuckDB's INTEGER_LITERAL; two literals are INTEGER,
// or BIGINT past its range), and arithmetic over narrower integers, which
// this engine computes as BIGINT, counts as its operands' type (DuckDB's
// INTEGER + INTEGER is INTEGER; the value is cast back, an error where
// DuckDB's own arithmetic would have overflowed).
//
// a << b: a negative a or b is an error; b at or past the width is 0 for
// a = 0 and an error otherwise; a result past the type is an error.
// a >> b: arithmetic shift; b negative or at or past the width gives 0.
// Unsigned integers, decimals, floats and booleans are refused, as DuckDB
// refuses all but the unsigned ones.

func init() {
	register("&", nil, bindBitwise2(func(a, b int64, _ int) (int64, error) { return a & b, nil }))
	register("|", nil, bindBitwise2(func(a, b int64, _ int) (int64, error) { return a | b, nil }))
	register("XOR", nil, bindBitwise2(func(a, b int64, _ int) (int64, error) { return a ^ b, nil }))
	register("<<", nil, bindBitwise2(shiftLeft))
	register(">>", nil, bindBitwise2(func(a, s int64, w int) (int64, error) {
		if s < 0 || s >= int64(w) {
			return 0, nil
		}
		return a >> s, nil
	}))
	register("~", nil, bindBitNot)
	register("BIT_COUNT", nil, bindBitCount)
}

func shiftLeft(a, s int64, w int) (int64, error) {
	switch {
	case a < 0:
		return 0, invalidf("cannot left-shift negative number %d", a)
	case s < 0:
		return 0, invalidf("cannot left-shift by negative number %d", s)
	case s >= int64(w):
		if a == 0 {
			return 0, nil
		}
		return 0, invalidf("left-shift value %d is out of range", s)
	case s == 0:
		return a, nil
	}
	if a >= int64(1)<<(int64(w)-s-1) {
		return 0, invalidf("overflow in left shift (%d << %d)", a, s)
	}
	return a << s, nil
}

// bitwiseType types the operands of a bitwise operator: the DuckDB type
// they share (NULL and string literals take the other's type).
func bitwiseType(name string, args []vec.Expr) (arrow.DataType, error) {
	var ops []vec.IntOperand
	for i, a := range args {
		t := a.Type()
		if isNullT(t) {
			continue
		}
		if _, lit := vec.IsConst(a); lit && isStrT(t) {
			continue
		}
		in, ok := vec.DuckInt(a)
		if !ok {
			if vec.IsInteger(t) {
				return nil, unsupportedf("%s on unsigned integers (%s) is not supported", name, vec.TypeName(t))
			}
			return nil, argTypeErr(name, i, a, "an integer")
		}
		ops = append(ops, in)
	}
	if len(ops) == 0 {
		return tInt32, nil
	}
	c := ops[0]
	for _, o := range ops[1:] {
		c = vec.CombineInt(c, o)
	}
	return c.T, nil
}

func bindBitwise2(f func(a, b int64, width int) (int64, error)) func(string, []vec.Expr) (*vec.BoundFunc, error) {
	return func(name string, args []vec.Expr) (*vec.BoundFunc, error) {
		if err := arity(name, args, 2, 2); err != nil {
			return nil, err
		}
		t, err := bitwiseType(name, args)
		if err != nil {
			return nil, err
		}
		if err := narrowArgs(args, t); err != nil {
			return nil, err
		}
		w := 8 * intWidth(t)
		return &vec.BoundFunc{Ret: t, ArgTypes: types(t, 2), NullOnNullInput: true,
			Kernel: func(c *vec.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
				x, y := intsOf(a[0], n), intsOf(a[1], n)
				return intResult(c, t, n, a, func(i int) (int64, error) { return f(x(i), y(i), w) })
			}}, nil
	}
}

func bindBitNot(name string, args []vec.Expr) (*vec.BoundFunc, error) {
	if err := arity(name, args, 1, 1); err != nil {
		return nil, err
	}
	t, err := bitwiseType(name, args)
	if err != nil {
		return nil, err
	}
	if err := narrowArgs(args, t); err != nil {
		return nil, err
	}
	return &vec.BoundFunc{Ret: t, ArgTypes: []arrow.DataType{t}, NullOnNullInput: true,
		Kernel: func(c *vec.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
			x := intsOf(a[0], n)
			return intResult(c, t, n, a, func(i int) (int64, error) { return ^x(i), nil })
		}}, nil
}

func bindBitCount(name string, args []vec.Expr) (*vec.BoundFunc, error) {
	if err := arity(name, args, 1, 1); err != nil {
		return nil, err
	}
	if _, lit := vec.IsConst(args[0]); lit && isStrT(args[0].Type()) {
		return nil, invalidf("%s of a string is ambiguous: cast it to an integer type", name)
	}
	t, err := bitwiseType(name, args)
	if err != nil {
		return nil, err
	}
	if err := narrowArgs(args, t); err != nil {
		return nil, err
	}
	mask := ^uint64(0) >> (64 - 8*intWidth(t))
	return &vec.BoundFunc{Ret: tInt8, ArgTypes: []arrow.DataType{t}, NullOnNullInput: true,
		Kernel: func(c *vec.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
			x := intsOf(a[0], n)
			return intResult(c, tInt8, n, a, func(i int) (int64, error) {
				return int64(bits.OnesCount64(uint64(x(i)) & mask)), nil
			})
		}}, nil
}

// narrowArgs casts, in place, operands that this engine widened to BIGINT
// (arithmetic over narrower integers) down to t, DuckDB's type; the cast
// fails where DuckDB's arithmetic would have overflowed.
func narrowArgs(args []vec.Expr, t arrow.DataType) error {
	for i, a := range args {
		at := a.Type()
		if vec.IntRank(at) > vec.IntRank(t) {
			if _, lit := vec.IsConst(a); lit {
				continue // a literal converts through ArgTypes
			}
			c, err := vec.NewCast(a, t)
			if err != nil {
				return err
			}
			args[i] = c
		}
	}
	return nil
}

// intsOf reads a signed integer array of n rows as int64 values.
func intsOf(a arrow.Array, n int) func(i int) int64 {
	switch a.DataType().ID() {
	case arrow.INT8:
		v := fixedN[int8](a, n)
		return func(i int) int64 { return int64(v[i]) }
	case arrow.INT16:
		v := fixedN[int16](a, n)
		return func(i int) int64 { return int64(v[i]) }
	case arrow.INT32:
		v := fixedN[int32](a, n)
		return func(i int) int64 { return int64(v[i]) }
	}
	v := fixedN[int64](a, n)
	return func(i int) int64 { return v[i] }
}

// intResult builds an array of t (a signed integer type) from f over the
// rows where every argument is valid; f's values fit t.
func intResult(c *vec.Ctx, t arrow.DataType, n int, args []arrow.Array, f func(i int) (int64, error)) (arrow.Array, error) {
	valid := andValidity(c.Mem, n, args...)
	switch t.ID() {
	case arrow.INT8:
		return fillInts[int8](c, t, n, valid, f)
	case arrow.INT16:
		return fillInts[int16](c, t, n, valid, f)
	case arrow.INT32:
		return fillInts[int32](c, t, n, valid, f)
	}
	return fillInts[int64](c, t, n, valid, f)
}

func fillInts[T int8 | int16 | int32 | int64](c *vec.Ctx, t arrow.DataType, n int, valid *memory.Buffer, f func(i int) (int64, error)) (arrow.Array, error) {
	m := maskOf(valid)
	out := newFixed[T](c.Mem, n)
	for i := range n {
		if !m.ok(i) {
			continue
		}
		v, err := f(i)
		if err != nil {
			out.buf.Release()
			if valid != nil {
				valid.Release()
			}
			return nil, err
		}
		out.vals[i] = T(v)
	}
	return out.finish(t, n, valid), nil
}

// intWidth is the byte width of a signed integer type.
func intWidth(t arrow.DataType) int { return 1 << (vec.IntRank(t) - 1) }

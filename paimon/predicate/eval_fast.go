package predicate

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

// fastLeaf evaluates a single-literal comparison (= <> < <= > >=) on an
// integer, DATE or DECIMAL column with a typed loop (no per-row closures).
// ok=false leaves the leaf to the general path.
func fastLeaf(l *Leaf, col arrow.Array, out []uint8) bool {
	if len(l.Literals) != 1 {
		return false
	}
	switch l.Op {
	case Eq, NotEq, Lt, LtEq, Gt, GtEq:
	default:
		return false
	}
	switch a := col.(type) {
	case *array.Int32:
		v, ok := l.Literals[0].(int64)
		if !ok {
			return false
		}
		cmpLoop(a.Int32Values(), v, l.Op, out)
	case *array.Int64:
		v, ok := l.Literals[0].(int64)
		if !ok {
			return false
		}
		cmpLoop(a.Int64Values(), v, l.Op, out)
	case *array.Date32:
		v, ok := l.Literals[0].(int64)
		if !ok {
			return false
		}
		vals := a.Date32Values()
		cmpLoopFn(len(vals), func(i int) int { return cmp3(int64(vals[i]), v) }, l.Op, out)
	case *array.Int16:
		v, ok := l.Literals[0].(int64)
		if !ok {
			return false
		}
		cmpLoop(a.Int16Values(), v, l.Op, out)
	case *array.Decimal128:
		d, ok := l.Literals[0].(Decimal)
		if !ok || d.Unscaled == nil || d.Scale != int(a.DataType().(*arrow.Decimal128Type).Scale) || d.Unscaled.BitLen() > 126 {
			return false
		}
		lit := decimal128.FromBigInt(d.Unscaled)
		vals := a.Values()
		cmpLoopFn(len(vals), func(i int) int { return vals[i].Cmp(lit) }, l.Op, out)
	default:
		return false
	}
	if col.NullN() > 0 {
		for i := range out {
			if col.IsNull(i) {
				out[i] = tUnknown
			}
		}
	}
	return true
}

func cmp3(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func cmpLoop[T int16 | int32 | int64](vals []T, lit int64, op Op, out []uint8) {
	b := func(c bool) uint8 {
		if c {
			return tTrue
		}
		return tFalse
	}
	switch op {
	case Eq:
		for i, v := range vals {
			out[i] = b(int64(v) == lit)
		}
	case NotEq:
		for i, v := range vals {
			out[i] = b(int64(v) != lit)
		}
	case Lt:
		for i, v := range vals {
			out[i] = b(int64(v) < lit)
		}
	case LtEq:
		for i, v := range vals {
			out[i] = b(int64(v) <= lit)
		}
	case Gt:
		for i, v := range vals {
			out[i] = b(int64(v) > lit)
		}
	case GtEq:
		for i, v := range vals {
			out[i] = b(int64(v) >= lit)
		}
	}
}

func cmpLoopFn(n int, c func(int) int, op Op, out []uint8) {
	for i := 0; i < n; i++ {
		r := c(i)
		var t bool
		switch op {
		case Eq:
			t = r == 0
		case NotEq:
			t = r != 0
		case Lt:
			t = r < 0
		case LtEq:
			t = r <= 0
		case Gt:
			t = r > 0
		case GtEq:
			t = r >= 0
		}
		if t {
			out[i] = tTrue
		} else {
			out[i] = tFalse
		}
	}
}

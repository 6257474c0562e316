package predicate

import (
	"bytes"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

// fastLeaf evaluates a comparison (= <> < <= > >= with one literal; IN /
// NOT IN) on an integer, DATE, DECIMAL or string column with a typed loop
// (no per-row closures or allocations). ok=false leaves the leaf to the
// general path.
func fastLeaf(l *Leaf, col arrow.Array, out []uint8) bool {
	switch l.Op {
	case Eq, NotEq, Lt, LtEq, Gt, GtEq:
		if len(l.Literals) != 1 {
			return false
		}
	case In, NotIn:
		if len(l.Literals) == 0 {
			return false
		}
	default:
		return false
	}
	if !fastValues(l, col, out) {
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

func fastValues(l *Leaf, col arrow.Array, out []uint8) bool {
	switch a := col.(type) {
	case *array.Int32:
		return intLeaf(l, a.Int32Values(), out)
	case *array.Int64:
		return intLeaf(l, a.Int64Values(), out)
	case *array.Date32:
		return intLeaf(l, a.Date32Values(), out)
	case *array.Int16:
		return intLeaf(l, a.Int16Values(), out)
	case *array.Int8:
		return intLeaf(l, a.Int8Values(), out)
	case *array.Decimal128:
		return decimalLeaf(l, a, out)
	case *array.String:
		return stringLeaf(l, a, out)
	}
	return false
}

// intLeaf: every literal must be an int64.
func intLeaf[T ~int8 | ~int16 | ~int32 | ~int64](l *Leaf, vals []T, out []uint8) bool {
	lits := make([]int64, len(l.Literals))
	for i, x := range l.Literals {
		v, ok := x.(int64)
		if !ok {
			return false
		}
		lits[i] = v
	}
	if l.Op == In || l.Op == NotIn {
		hit, miss := tTrue, tFalse
		if l.Op == NotIn {
			hit, miss = tFalse, tTrue
		}
		for i, v := range vals {
			r := miss
			for _, x := range lits {
				if int64(v) == x {
					r = hit
					break
				}
			}
			out[i] = r
		}
		return true
	}
	switch vs := any(vals).(type) {
	case []int64:
		cmpLoop(vs, lits[0], l.Op, out)
	case []int32:
		narrowLoop(vs, lits[0], l.Op, out)
	case []arrow.Date32:
		narrowLoop(vs, lits[0], l.Op, out)
	case []int16:
		narrowLoop(vs, lits[0], l.Op, out)
	case []int8:
		narrowLoop(vs, lits[0], l.Op, out)
	default:
		cmpLoop(vals, lits[0], l.Op, out)
	}
	return true
}

// decimalLeaf: literals of the column's scale that fit 126 bits.
func decimalLeaf(l *Leaf, a *array.Decimal128, out []uint8) bool {
	scale := int(a.DataType().(*arrow.Decimal128Type).Scale)
	lits := make([]decimal128.Num, len(l.Literals))
	for i, x := range l.Literals {
		d, ok := x.(Decimal)
		if !ok || d.Unscaled == nil || d.Scale != scale || d.Unscaled.BitLen() > 126 {
			return false
		}
		lits[i] = decimal128.FromBigInt(d.Unscaled)
	}
	vals := a.Values()
	if l.Op == In || l.Op == NotIn {
		hit, miss := tTrue, tFalse
		if l.Op == NotIn {
			hit, miss = tFalse, tTrue
		}
		for i, v := range vals {
			r := miss
			for _, x := range lits {
				if v == x {
					r = hit
					break
				}
			}
			out[i] = r
		}
		return true
	}
	lit := lits[0]
	if a.DataType().(*arrow.Decimal128Type).Precision <= 18 {
		// every value fits an int64 (|v| < 10^18): compare the low words
		if decCmpLoop(vals, lit, l.Op, out) {
			return true
		}
		// a value beyond the precision (a damaged file): exact 128-bit path
	}
	lh, ll := lit.HighBits(), lit.LowBits()
	// cmp: -1, 0, 1 of v against lit, as signed 128-bit integers
	for i, v := range vals {
		h := v.HighBits()
		c := 0
		switch {
		case h < lh:
			c = -1
		case h > lh:
			c = 1
		default:
			lo := v.LowBits()
			if lo < ll {
				c = -1
			} else if lo > ll {
				c = 1
			}
		}
		out[i] = opResult(l.Op, c)
	}
	return true
}

// stringLeaf: string literals only; bytewise order (as bytes.Compare).
func stringLeaf(l *Leaf, a *array.String, out []uint8) bool {
	lits := make([][]byte, len(l.Literals))
	for i, x := range l.Literals {
		s, ok := x.(string)
		if !ok {
			return false
		}
		lits[i] = unsafe.Slice(unsafe.StringData(s), len(s))
	}
	offs := a.ValueOffsets()
	data := a.ValueBytes()
	base := int(offs[0])
	val := func(i int) []byte { return data[int(offs[i])-base : int(offs[i+1])-base] }
	n := a.Len()
	switch l.Op {
	case Eq, NotEq, In, NotIn:
		hit, miss := tTrue, tFalse
		if l.Op == NotEq || l.Op == NotIn {
			hit, miss = tFalse, tTrue
		}
		for i := 0; i < n; i++ {
			v := val(i)
			r := miss
			for _, x := range lits {
				if len(v) == len(x) && bytes.Equal(v, x) {
					r = hit
					break
				}
			}
			out[i] = r
		}
		return true
	}
	lit := lits[0]
	for i := 0; i < n; i++ {
		out[i] = opResult(l.Op, bytes.Compare(val(i), lit))
	}
	return true
}

func opResult(op Op, c int) uint8 {
	var t bool
	switch op {
	case Eq:
		t = c == 0
	case NotEq:
		t = c != 0
	case Lt:
		t = c < 0
	case LtEq:
		t = c <= 0
	case Gt:
		t = c > 0
	case GtEq:
		t = c >= 0
	}
	if t {
		return tTrue
	}
	return tFalse
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

func cmpLoop[T ~int8 | ~int16 | ~int32 | ~int64](vals []T, lit int64, op Op, out []uint8) {
	out = out[:len(vals)]
	b := func(c bool) uint8 {
		var x uint8
		if c {
			x = tTrue
		}
		return x
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

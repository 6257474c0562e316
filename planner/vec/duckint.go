package vec

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/scalar"
)

// DuckDB's types of integer expressions, where this engine computes wider
// (integer arithmetic is BIGINT here): the bitwise functions work in
// DuckDB's type, TYPEOF names it.

// IntOperand is the type DuckDB gives an integer expression: T, and for
// an integer literal (which adapts to the other operand of an operator
// when its value fits) Lit and its value V.
type IntOperand struct {
	T   arrow.DataType
	Lit bool
	V   int64
}

// IntRank orders the signed integer types (1 TINYINT … 4 BIGINT; 0 for
// any other type).
func IntRank(t arrow.DataType) int {
	switch t.ID() {
	case arrow.INT8:
		return 1
	case arrow.INT16:
		return 2
	case arrow.INT32:
		return 3
	case arrow.INT64:
		return 4
	}
	return 0
}

func fitsInt(v int64, t arrow.DataType) bool {
	w := uint(8 * intWidth(t))
	return w == 64 || v >= -(int64(1)<<(w-1)) && v < int64(1)<<(w-1)
}

func intWidth(t arrow.DataType) int {
	switch t.ID() {
	case arrow.INT8:
		return 1
	case arrow.INT16:
		return 2
	case arrow.INT32:
		return 4
	}
	return 8
}

// DuckInt returns the type DuckDB gives the integer expression e (ok
// false: not a signed integer): an integer literal is INTEGER, or BIGINT
// past its range; arithmetic over integers keeps its operands' common
// type, where this engine computes BIGINT (the sum of two INTEGERs is
// INTEGER in DuckDB).
func DuckInt(e Expr) (IntOperand, bool) {
	switch x := e.(type) {
	case *Literal:
		if s, ok := x.Value.(*scalar.Int64); ok && s.IsValid() {
			t := arrow.DataType(arrow.PrimitiveTypes.Int64)
			if fitsInt(s.Value, arrow.PrimitiveTypes.Int32) {
				t = arrow.PrimitiveTypes.Int32
			}
			return IntOperand{T: t, Lit: true, V: s.Value}, true
		}
	case *Cast:
		if x.Implicit && IntRank(x.To) == 4 {
			if in, ok := DuckInt(x.E); ok {
				return in, true
			}
		}
	case *Neg:
		if in, ok := DuckInt(x.E); ok {
			if in.Lit {
				in.V = -in.V
			}
			return in, true
		}
	case *Arith:
		switch x.Op {
		case "+", "-", "*", "%", "div":
			l, lok := DuckInt(x.L)
			r, rok := DuckInt(x.R)
			if lok && rok && IntRank(x.T) == 4 {
				c := CombineInt(l, r)
				c.Lit = false
				return c, true
			}
		}
	}
	t := e.Type()
	if IntRank(t) == 0 {
		return IntOperand{}, false
	}
	return IntOperand{T: t}, true
}

// CombineInt is the common DuckDB type of two integer operands.
func CombineInt(l, r IntOperand) IntOperand {
	switch {
	case l.Lit && !r.Lit && fitsInt(l.V, r.T):
		return IntOperand{T: r.T}
	case r.Lit && !l.Lit && fitsInt(r.V, l.T):
		return IntOperand{T: l.T}
	}
	t := l.T
	if IntRank(r.T) > IntRank(t) {
		t = r.T
	}
	return IntOperand{T: t}
}

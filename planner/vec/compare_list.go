package vec

import (
	"bytes"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/scalar"
)

// List, map and struct comparison (=, <>, <, <=, >, >=, IS [NOT] DISTINCT
// FROM) as DuckDB:
// lexicographic over the elements, a list that is a prefix of another
// sorts first, a NULL element equals a NULL element and sorts after every
// value, NaN equals NaN and sorts after every number. A NULL list makes
// the comparison NULL. Both sides have one list type (coercePair); nested
// lists compare the same way.

// elemClass groups the element types that compare with each other: the
// signed integers, the floats, and otherwise one type (a DECIMAL scale, a
// TIMESTAMP unit); NULL elements compare with any class. "" is a type
// lists cannot compare on.
func elemClass(e arrow.DataType) string {
	switch {
	case isNull(e):
		return "null"
	case IsInteger(e) && e.ID() != arrow.UINT64 && e.ID() != arrow.UINT32 && e.ID() != arrow.UINT16 && e.ID() != arrow.UINT8:
		return "int"
	case isFloat(e):
		return "float"
	case e.ID() == arrow.BOOL, e.ID() == arrow.DECIMAL128, e.ID() == arrow.STRING, e.ID() == arrow.BINARY,
		e.ID() == arrow.DATE32, isTimestamp(e):
		return e.String()
	case e.ID() == arrow.LIST:
		return "list"
	}
	return ""
}

// listsComparable reports whether lists of types a and b compare (both
// LISTs whose elements are of one class, nested lists alike).
func listsComparable(a, b arrow.DataType) bool {
	la, ok1 := a.(*arrow.ListType)
	lb, ok2 := b.(*arrow.ListType)
	if !ok1 || !ok2 {
		return false
	}
	ca, cb := elemClass(la.Elem()), elemClass(lb.Elem())
	switch {
	case ca == "" || cb == "":
		return false
	case ca == "list" && cb == "list":
		return listsComparable(la.Elem(), lb.Elem())
	case ca == "list" || cb == "list":
		return ca == "null" || cb == "null"
	}
	return ca == cb || ca == "null" || cb == "null"
}

// listCmp sets bit i of out when row i of x op y holds (x a LIST array, y
// a LIST array or a valid list constant). The lists compare by their
// nested keys (nestedkey.go), the one definition of the order of nested
// values that sorting and grouping use too.
func listCmp(op cmpOp, x, y operand, out []byte) error {
	xl, ok := x.arr.(*array.List)
	if !ok {
		return unsupportedf("comparison of %s values", TypeName(x.arr.DataType()))
	}
	var yl *array.List
	var yk []byte // the constant's key
	if y.arr != nil {
		if yl, ok = y.arr.(*array.List); !ok {
			return unsupportedf("comparison of %s values", TypeName(y.arr.DataType()))
		}
	} else {
		ls, ok := y.s.(*scalar.List)
		if !ok {
			return unsupportedf("comparison of %s values", TypeName(y.s.DataType()))
		}
		yk = appendListKey(nil, ls.Value, 0, int64(ls.Value.Len()))
	}
	var xk, yb []byte
	for i := 0; i < xl.Len(); i++ {
		if xl.IsNull(i) {
			continue
		}
		xk = AppendNestedKey(xk[:0], xl, i)
		if yl != nil {
			if yl.IsNull(i) {
				continue
			}
			yb = AppendNestedKey(yb[:0], yl, i)
			yk = yb
		}
		if cmpHolds(op, bytes.Compare(xk, yk)) {
			bitutil.SetBit(out, i)
		}
	}
	return nil
}

// nestedCmp sets bit i of out when row i of x op y holds (x a STRUCT or
// MAP array, y one of the same type or a valid constant), comparing their
// nested keys as listCmp does.
func nestedCmp(op cmpOp, x, y operand, out []byte) error {
	ya := y.arr
	if ya == nil {
		a, err := scalar.MakeArrayFromScalar(y.s, 1, memory.DefaultAllocator)
		if err != nil {
			return err
		}
		defer a.Release()
		ya = a
	}
	var xk, yk []byte
	for i := 0; i < x.arr.Len(); i++ {
		j := i
		if y.arr == nil {
			j = 0
		}
		if x.arr.IsNull(i) || ya.IsNull(j) {
			continue
		}
		xk = AppendNestedKey(xk[:0], x.arr, i)
		yk = AppendNestedKey(yk[:0], ya, j)
		if cmpHolds(op, bytes.Compare(xk, yk)) {
			bitutil.SetBit(out, i)
		}
	}
	return nil
}

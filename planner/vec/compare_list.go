package vec

import (
	"bytes"
	"cmp"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/scalar"

	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
)

// List comparison (=, <>, <, <=, >, >=, IS [NOT] DISTINCT FROM) as DuckDB:
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
// a LIST array or a valid list constant).
func listCmp(op cmpOp, x, y operand, out []byte) error {
	xl, ok := x.arr.(*array.List)
	if !ok {
		return unsupportedf("comparison of %s values", TypeName(x.arr.DataType()))
	}
	var yl *array.List
	var yv arrow.Array // the constant's elements
	if y.arr != nil {
		if yl, ok = y.arr.(*array.List); !ok {
			return unsupportedf("comparison of %s values", TypeName(y.arr.DataType()))
		}
	} else {
		ls, ok := y.s.(*scalar.List)
		if !ok {
			return unsupportedf("comparison of %s values", TypeName(y.s.DataType()))
		}
		yv = ls.Value
	}
	xv := xl.ListValues()
	for i := 0; i < xl.Len(); i++ {
		if xl.IsNull(i) {
			continue
		}
		xs, xe := xl.ValueOffsets(i)
		var c int
		if yl != nil {
			if yl.IsNull(i) {
				continue
			}
			ys, ye := yl.ValueOffsets(i)
			c = cmpRange(xv, int(xs), int(xe), yl.ListValues(), int(ys), int(ye))
		} else {
			c = cmpRange(xv, int(xs), int(xe), yv, 0, yv.Len())
		}
		if cmpHolds(op, c) {
			bitutil.SetBit(out, i)
		}
	}
	return nil
}

// cmpRange compares the elements a[as:ae] with b[bs:be] lexicographically.
func cmpRange(a arrow.Array, as, ae int, b arrow.Array, bs, be int) int {
	for as < ae && bs < be {
		if c := cmpElem(a, as, b, bs); c != 0 {
			return c
		}
		as++
		bs++
	}
	switch {
	case as < ae:
		return 1
	case bs < be:
		return -1
	}
	return 0
}

// cmpElem compares element i of a with element j of b (NULLs last and
// equal to each other).
func cmpElem(a arrow.Array, i int, b arrow.Array, j int) int {
	// an array of type NULL has no validity bitmap: every element is NULL
	an := a.DataType().ID() == arrow.NULL || a.IsNull(i)
	bn := b.DataType().ID() == arrow.NULL || b.IsNull(j)
	switch {
	case an && bn:
		return 0
	case an:
		return 1
	case bn:
		return -1
	}
	if ai, ok := intElem(a); ok {
		bi, _ := intElem(b)
		return cmp.Compare(ai(i), bi(j))
	}
	switch x := a.(type) {
	case *array.Float32:
		return predicate.CompareFloat(float64(x.Value(i)), floatElem(b, j))
	case *array.Float64:
		return predicate.CompareFloat(x.Value(i), floatElem(b, j))
	case *array.Decimal128:
		return cmpNum(x.Value(i), b.(*array.Decimal128).Value(j))
	case *array.Boolean:
		return int(b2b(x.Value(i))) - int(b2b(b.(*array.Boolean).Value(j)))
	case *array.String:
		return bytes.Compare([]byte(x.Value(i)), []byte(b.(*array.String).Value(j)))
	case *array.Binary:
		return bytes.Compare(x.Value(i), b.(*array.Binary).Value(j))
	case *array.Date32:
		return cmp.Compare(int64(x.Value(i)), int64(b.(*array.Date32).Value(j)))
	case *array.Timestamp:
		return cmp.Compare(int64(x.Value(i)), int64(b.(*array.Timestamp).Value(j)))
	case *array.List:
		y := b.(*array.List)
		xs, xe := x.ValueOffsets(i)
		ys, ye := y.ValueOffsets(j)
		return cmpRange(x.ListValues(), int(xs), int(xe), y.ListValues(), int(ys), int(ye))
	}
	return 0 // not reached: listsComparable admits only the types above
}

// intElem reads a signed integer array as int64 values.
func intElem(a arrow.Array) (func(int) int64, bool) {
	switch x := a.(type) {
	case *array.Int8:
		return func(i int) int64 { return int64(x.Value(i)) }, true
	case *array.Int16:
		return func(i int) int64 { return int64(x.Value(i)) }, true
	case *array.Int32:
		return func(i int) int64 { return int64(x.Value(i)) }, true
	case *array.Int64:
		return x.Value, true
	}
	return nil, false
}

func floatElem(b arrow.Array, j int) float64 {
	if y, ok := b.(*array.Float32); ok {
		return float64(y.Value(j))
	}
	return b.(*array.Float64).Value(j)
}

package funcs

import (
	"bytes"
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

// List functions (DuckDB's): list_value(a, ...) builds a list (the front
// end writes [a, b] and ARRAY[a, b] so), list_extract(l, i) is l[i]
// (1-based, negative from the end, NULL outside), len/length/array_length
// count the elements, list_contains(l, x) tests membership. Lists are
// Arrow LIST arrays of a scalar element type.
func init() {
	register("LIST_VALUE", []string{"LIST_PACK"}, bindListValue)
	register("LIST_EXTRACT", []string{"LIST_ELEMENT", "ARRAY_EXTRACT"}, bindListExtract)
	register("ARRAY_LENGTH", nil, bindListLen)
	register("LIST_CONTAINS", []string{"ARRAY_CONTAINS", "LIST_HAS", "ARRAY_HAS"}, bindListContains)
}

func typeNames(ts []arrow.DataType) string {
	s := ""
	for i, t := range ts {
		if i > 0 {
			s += ", "
		}
		s += vec.TypeName(t)
	}
	return s
}

func isListT(t arrow.DataType) bool { return t != nil && t.ID() == arrow.LIST }

func listElem(t arrow.DataType) arrow.DataType { return t.(*arrow.ListType).Elem() }

// ListType is the list type of elements of t (nullable elements).
func listOf(t arrow.DataType) *arrow.ListType {
	return arrow.ListOfField(arrow.Field{Name: "item", Type: t, Nullable: true})
}

func bindListValue(name string, args []vec.Expr) (*vec.BoundFunc, error) {
	types := make([]arrow.DataType, len(args))
	for i, a := range args {
		types[i] = a.Type()
	}
	elem, err := vec.CommonType(types...)
	if err != nil && isListT(types[0]) {
		return nil, unsupportedf("%s: lists of different element types (%s) do not unify; CAST the elements", name, typeNames(types))
	}
	if err != nil {
		return nil, invalidf("%s: the elements have no common type: %v", name, err)
	}
	ats := make([]arrow.DataType, len(args))
	for i := range ats {
		ats[i] = elem
	}
	ret := listOf(elem)
	return &vec.BoundFunc{Ret: ret, ArgTypes: ats, Kernel: func(c *vec.Ctx, args []arrow.Array, n int) (arrow.Array, error) {
		k := len(args)
		offs := make([]int32, n+1)
		for r := range n {
			offs[r+1] = int32((r + 1) * k)
		}
		if k == 0 {
			vals := array.MakeArrayOfNull(c.Mem, elem, 0)
			defer vals.Release()
			return listArray(c.Mem, ret, offs, vals, nil), nil
		}
		all, err := array.Concatenate(args, c.Mem)
		if err != nil {
			return nil, err
		}
		defer all.Release()
		idx := make([]int32, n*k)
		for r := range n {
			for j := range k {
				idx[r*k+j] = int32(j*n + r)
			}
		}
		vals, err := takeIdx(c.Mem, all, idx, nil)
		if err != nil {
			return nil, err
		}
		defer vals.Release()
		return listArray(c.Mem, ret, offs, vals, nil), nil
	}}, nil
}

// takeIdx gathers vals at idx (NULL where valid[i] is false).
func takeIdx(mem memory.Allocator, vals arrow.Array, idx []int32, valid []bool) (arrow.Array, error) {
	ib := array.NewInt32Builder(mem)
	ib.AppendValues(idx, valid)
	ia := ib.NewArray()
	ib.Release()
	defer ia.Release()
	ctx := compute.WithAllocator(context.Background(), mem)
	return compute.TakeArray(ctx, vals, ia)
}

// listArray builds a LIST array of offsets over vals (has nil: all valid).
func listArray(mem memory.Allocator, t arrow.DataType, offs []int32, vals arrow.Array, has []bool) arrow.Array {
	n := len(offs) - 1
	ob := memory.NewResizableBuffer(mem)
	ob.Resize(4 * len(offs))
	copy(arrow.Int32Traits.CastFromBytes(ob.Bytes()), offs)
	var vb *memory.Buffer
	nulls := 0
	if has != nil {
		vb = memory.NewResizableBuffer(mem)
		vb.Resize((n + 7) / 8)
		bs := vb.Bytes()
		clear(bs)
		for i, h := range has {
			if h {
				bs[i/8] |= 1 << (i % 8)
			} else {
				nulls++
			}
		}
		if nulls == 0 {
			vb.Release()
			vb = nil
		}
	}
	data := array.NewData(t, n, []*memory.Buffer{vb, ob}, []arrow.ArrayData{vals.Data()}, nulls, 0)
	ob.Release()
	if vb != nil {
		vb.Release()
	}
	defer data.Release()
	return array.MakeFromData(data)
}

// nullOfNull binds f(NULL, ...) over an untyped NULL list: NULL.
func nullOfNull(t arrow.DataType) *vec.BoundFunc {
	return &vec.BoundFunc{Ret: t, NullOnNullInput: true, Kernel: func(c *vec.Ctx, _ []arrow.Array, n int) (arrow.Array, error) {
		return array.MakeArrayOfNull(c.Mem, arrow.Null, n), nil
	}}
}

func listArg(name string, args []vec.Expr) error {
	if t := args[0].Type(); !isListT(t) {
		return argTypeErr(name, 0, args[0], "a list")
	}
	return nil
}

func bindListExtract(name string, args []vec.Expr) (*vec.BoundFunc, error) {
	if err := arity(name, args, 2, 2); err != nil {
		return nil, err
	}
	if isNullT(args[0].Type()) {
		return nullOfNull(args[0].Type()), nil
	}
	if isStrT(args[0].Type()) {
		return nil, unsupportedf("%s over VARCHAR (a string subscript) is not supported; use SUBSTRING", name)
	}
	switch {
	case isStructT(args[0].Type()): // s['k']
		return bindStructExtract(name, args)
	case isMapT(args[0].Type()): // m[k]: the value, as DuckDB 1.5
		return mapExtract(name, args, false)
	}
	if err := listArg(name, args); err != nil {
		return nil, err
	}
	if it := args[1].Type(); !vec.IsInteger(it) && !isNullT(it) {
		return nil, argTypeErr(name, 1, args[1], "an integer index")
	}
	lt := args[0].Type()
	elem := listElem(lt)
	return &vec.BoundFunc{Ret: elem, ArgTypes: []arrow.DataType{lt, tInt64}, AlwaysNullable: true,
		Kernel: func(c *vec.Ctx, args []arrow.Array, n int) (arrow.Array, error) {
			l := args[0].(*array.List)
			ix := args[1].(*array.Int64)
			idx := make([]int32, n)
			valid := make([]bool, n)
			offs := l.Offsets()
			for r := range n {
				if l.IsNull(r) || ix.IsNull(r) {
					continue
				}
				s, e := int64(offs[r]), int64(offs[r+1])
				i := ix.Value(r)
				switch {
				case i > 0 && i <= e-s:
					idx[r], valid[r] = int32(s+i-1), true
				case i < 0 && -i <= e-s:
					idx[r], valid[r] = int32(e+i), true
				}
			}
			return takeIdx(c.Mem, l.ListValues(), idx, valid)
		}}, nil
}

func bindListLen(name string, args []vec.Expr) (*vec.BoundFunc, error) {
	return bindEntryCount(name, args, listArg)
}

// bindEntryCount binds len / cardinality: the number of elements
// (entries) of each row of its one list (map) argument, which argOK
// checks; NULL for a NULL row or a NULL-typed argument.
func bindEntryCount(name string, args []vec.Expr, argOK func(string, []vec.Expr) error) (*vec.BoundFunc, error) {
	if err := arity(name, args, 1, 1); err != nil {
		return nil, err
	}
	if isNullT(args[0].Type()) {
		return &vec.BoundFunc{Ret: tInt64, NullOnNullInput: true, Kernel: func(c *vec.Ctx, _ []arrow.Array, n int) (arrow.Array, error) {
			return array.MakeArrayOfNull(c.Mem, tInt64, n), nil
		}}, nil
	}
	if err := argOK(name, args); err != nil {
		return nil, err
	}
	return &vec.BoundFunc{Ret: tInt64, NullOnNullInput: true, Kernel: func(c *vec.Ctx, args []arrow.Array, n int) (arrow.Array, error) {
		return entryCounts(c, args[0].(interface {
			Offsets() []int32
			IsNull(int) bool
		}), n), nil
	}}, nil
}

func entryCounts(c *vec.Ctx, a interface {
	Offsets() []int32
	IsNull(int) bool
}, n int) arrow.Array {
	offs := a.Offsets()
	b := array.NewInt64Builder(c.Mem)
	defer b.Release()
	b.Reserve(n)
	for r := range n {
		if a.IsNull(r) {
			b.AppendNull()
			continue
		}
		b.Append(int64(offs[r+1] - offs[r]))
	}
	return b.NewArray()
}

func bindListContains(name string, args []vec.Expr) (*vec.BoundFunc, error) {
	if err := arity(name, args, 2, 2); err != nil {
		return nil, err
	}
	if isNullT(args[0].Type()) {
		return &vec.BoundFunc{Ret: tBool, NullOnNullInput: true, Kernel: func(c *vec.Ctx, _ []arrow.Array, n int) (arrow.Array, error) {
			return array.MakeArrayOfNull(c.Mem, tBool, n), nil
		}}, nil
	}
	if err := listArg(name, args); err != nil {
		return nil, err
	}
	lt := args[0].Type()
	elem := listElem(lt)
	if isNullT(elem) {
		elem = args[1].Type()
		if isNullT(elem) {
			elem = tInt64
		}
		lt = listOf(elem)
	}
	if _, err := elemEq(elem); err != nil {
		return nil, invalidf("%s: %v", name, err)
	}
	return &vec.BoundFunc{Ret: tBool, ArgTypes: []arrow.DataType{lt, elem}, NullOnNullInput: true,
		Kernel: func(c *vec.Ctx, args []arrow.Array, n int) (arrow.Array, error) {
			l := args[0].(*array.List)
			vals := l.ListValues()
			eq, err := elemEq(elem)
			if err != nil {
				return nil, err
			}
			x := args[1]
			offs := l.Offsets()
			b := array.NewBooleanBuilder(c.Mem)
			defer b.Release()
			b.Reserve(n)
			for r := range n {
				if l.IsNull(r) || x.IsNull(r) {
					b.AppendNull()
					continue
				}
				found := false
				for j := int(offs[r]); j < int(offs[r+1]) && !found; j++ {
					found = vals.IsValid(j) && eq(vals, j, x, r)
				}
				b.Append(found)
			}
			return b.NewArray(), nil
		}}, nil
}

// elemEq returns the equality of two non-NULL values of type t (a of one
// array at i, b of another at j).
func elemEq(t arrow.DataType) (func(a arrow.Array, i int, b arrow.Array, j int) bool, error) {
	switch t.ID() {
	case arrow.INT8:
		return eqOf[int8, *array.Int8](), nil
	case arrow.INT16:
		return eqOf[int16, *array.Int16](), nil
	case arrow.INT32:
		return eqOf[int32, *array.Int32](), nil
	case arrow.INT64:
		return eqOf[int64, *array.Int64](), nil
	case arrow.FLOAT32:
		return eqOf[float32, *array.Float32](), nil
	case arrow.FLOAT64:
		return func(a arrow.Array, i int, b arrow.Array, j int) bool {
			x, y := a.(*array.Float64).Value(i), b.(*array.Float64).Value(j)
			return x == y || x != x && y != y // NaN equals NaN
		}, nil
	case arrow.DECIMAL128:
		return eqOf[decimal128.Num, *array.Decimal128](), nil
	case arrow.STRING:
		return eqOf[string, *array.String](), nil
	case arrow.BINARY:
		return func(a arrow.Array, i int, b arrow.Array, j int) bool {
			return bytes.Equal(a.(*array.Binary).Value(i), b.(*array.Binary).Value(j))
		}, nil
	case arrow.BOOL:
		return eqOf[bool, *array.Boolean](), nil
	case arrow.DATE32:
		return eqOf[arrow.Date32, *array.Date32](), nil
	case arrow.TIMESTAMP:
		return eqOf[arrow.Timestamp, *array.Timestamp](), nil
	}
	return nil, fmt.Errorf("lists of %s are not supported here", vec.TypeName(t))
}

func eqOf[V comparable, A interface{ Value(int) V }]() func(a arrow.Array, i int, b arrow.Array, j int) bool {
	return func(a arrow.Array, i int, b arrow.Array, j int) bool {
		return a.(A).Value(i) == b.(A).Value(j)
	}
}

package funcs

import (
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

// Struct functions (DuckDB's): struct_pack('k', v, ...) builds a STRUCT
// (the front end writes {'k': v} and struct_pack(k := v) so; the names
// are constant strings), row(a, b) a STRUCT with fields v1, v2, ...;
// struct_extract(s, 'k' | i) reads a field by name (exact, else the one
// that matches ignoring case) or by 1-based position. A field of a NULL
// struct is NULL. STRUCTs are Arrow STRUCT arrays.
func init() {
	register("STRUCT_PACK", []string{"PAIMON_STRUCT"}, bindStructPack)
	register("ROW", nil, bindRow)
	register("STRUCT_EXTRACT", nil, bindStructExtract)
}

func isStructT(t arrow.DataType) bool { return t != nil && t.ID() == arrow.STRUCT }

// constName returns the value of a constant, non-NULL string argument.
func constName(e vec.Expr) (string, bool) {
	s, null, ok := constString(e)
	return s, ok && !null
}

func bindStructPack(name string, args []vec.Expr) (*vec.BoundFunc, error) {
	if len(args) == 0 || len(args)%2 != 0 {
		return nil, invalidf("%s needs name, value pairs", name)
	}
	names := make([]string, 0, len(args)/2)
	vals := make([]vec.Expr, 0, len(args)/2)
	seen := map[string]bool{}
	for i := 0; i < len(args); i += 2 {
		n, ok := constName(args[i])
		if !ok {
			return nil, invalidf("%s: field name %s is not a constant string", name, args[i])
		}
		if seen[strings.ToLower(n)] {
			return nil, invalidf("%s: duplicate field name %q", name, n)
		}
		seen[strings.ToLower(n)] = true
		names = append(names, n)
		vals = append(vals, args[i+1])
	}
	return structOf(names, vals, func(k int) int { return 2*k + 1 }), nil
}

func bindRow(name string, args []vec.Expr) (*vec.BoundFunc, error) {
	if len(args) == 0 {
		return nil, invalidf("%s needs at least one value", name)
	}
	names := make([]string, len(args))
	for i := range names {
		names[i] = "v" + strconv.Itoa(i+1)
	}
	return structOf(names, args, func(k int) int { return k }), nil
}

// structOf binds a STRUCT of the values (argument at(k) is field k's).
func structOf(names []string, vals []vec.Expr, at func(int) int) *vec.BoundFunc {
	fields := make([]arrow.Field, len(names))
	for i, n := range names {
		fields[i] = arrow.Field{Name: n, Type: vals[i].Type(), Nullable: true}
	}
	ret := arrow.StructOf(fields...)
	return &vec.BoundFunc{Ret: ret, Kernel: func(c *vec.Ctx, args []arrow.Array, n int) (arrow.Array, error) {
		cols := make([]arrow.ArrayData, len(fields))
		for k := range fields {
			cols[k] = args[at(k)].Data()
		}
		data := array.NewData(ret, n, []*memory.Buffer{nil}, cols, 0, 0)
		defer data.Release()
		return array.MakeFromData(data), nil
	}}
}

// structField resolves a field key (a constant name or 1-based position).
func structField(name string, st *arrow.StructType, key vec.Expr) (int, error) {
	if s, ok := constName(key); ok {
		if i, ok := st.FieldIdx(s); ok {
			return i, nil
		}
		found := -1
		for i, f := range st.Fields() {
			if strings.EqualFold(f.Name, s) {
				if found >= 0 {
					return 0, invalidf("%s: field name %q is ambiguous in %s", name, s, vec.TypeName(st))
				}
				found = i
			}
		}
		if found < 0 {
			return 0, invalidf("%s: %s has no field %q", name, vec.TypeName(st), s)
		}
		return found, nil
	}
	if l, ok := vec.IsConst(key); ok && l.Value.IsValid() && vec.IsInteger(l.Type()) {
		i, err := strconv.ParseInt(l.Value.String(), 10, 64)
		if err != nil || i < 1 || i > int64(st.NumFields()) {
			return 0, invalidf("%s: index %s is outside 1..%d", name, l.Value, st.NumFields())
		}
		return int(i - 1), nil
	}
	return 0, invalidf("%s needs a constant field name or position, got %s", name, key)
}

func bindStructExtract(name string, args []vec.Expr) (*vec.BoundFunc, error) {
	if err := arity(name, args, 2, 2); err != nil {
		return nil, err
	}
	if isNullT(args[0].Type()) {
		return nullOfNull(args[0].Type()), nil
	}
	if !isStructT(args[0].Type()) {
		return nil, argTypeErr(name, 0, args[0], "a STRUCT")
	}
	st := args[0].Type().(*arrow.StructType)
	f, err := structField(name, st, args[1])
	if err != nil {
		return nil, err
	}
	return &vec.BoundFunc{Ret: st.Field(f).Type, AlwaysNullable: true, Kernel: func(c *vec.Ctx, args []arrow.Array, n int) (arrow.Array, error) {
		return fieldOf(c.Mem, args[0].(*array.Struct), f), nil
	}}, nil
}

// fieldOf returns field f of s with s's NULLs applied (a field of a NULL
// struct is NULL whatever its child holds).
func fieldOf(mem memory.Allocator, s *array.Struct, f int) arrow.Array {
	child := s.Field(f)
	if s.NullN() == 0 || child.DataType().ID() == arrow.NULL {
		child.Retain()
		return child
	}
	cd := child.Data()
	off, n := cd.Offset(), cd.Len()
	bm := memory.NewResizableBuffer(mem)
	bm.Resize(int(bitutil.BytesForBits(int64(off + n))))
	bits := bm.Bytes()
	clear(bits)
	nulls := 0
	for i := range n {
		if s.IsValid(i) && child.IsValid(i) {
			bitutil.SetBit(bits, off+i)
		} else {
			nulls++
		}
	}
	bufs := append([]*memory.Buffer{bm}, cd.Buffers()[1:]...)
	data := array.NewData(cd.DataType(), n, bufs, cd.Children(), nulls, off)
	bm.Release()
	defer data.Release()
	return array.MakeFromData(data)
}

package funcs

import (
	"bytes"
	"cmp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

// More list functions (DuckDB's): string_split(s, sep) → VARCHAR[]
// (aliases str_split, string_to_array): the empty string gives a list of
// one empty string, an empty separator
// splits into characters, a NULL separator gives [s];
// array_to_string(l, sep): the non-NULL elements cast to VARCHAR, joined
// (a NULL separator joins with a comma; the empty list gives the empty
// string, a list of only NULLs
// NULL); list_sort/array_sort(l [, 'ASC' |
// 'DESC' [, 'NULLS FIRST' | 'NULLS LAST']]) and list_reverse_sort /
// array_reverse_sort(l [, nulls]): NULLs last unless asked, NaN above
// every number.
func init() {
	register("STRING_SPLIT", []string{"STR_SPLIT", "STRING_TO_ARRAY"}, bindStringSplit)
	register("ARRAY_TO_STRING", nil, bindArrayToString)
	register("LIST_SORT", []string{"ARRAY_SORT"}, bindListSort(false))
	register("LIST_REVERSE_SORT", []string{"ARRAY_REVERSE_SORT"}, bindListSort(true))
	register("LIST_SLICE", []string{"ARRAY_SLICE"}, bindListSlice)
}

// bindListSlice is list_slice(l, b, e) = l[b:e]: 1-based, both ends
// included; a negative bound counts from the end (-1 is the last), then b
// is at least 1 and e at most the length; b > e is the empty list; a NULL
// argument gives NULL (DuckDB's rules).
func bindListSlice(name string, args []vec.Expr) (*vec.BoundFunc, error) {
	if err := arity(name, args, 3, 3); err != nil {
		return nil, err
	}
	if isNullT(args[0].Type()) {
		return nullOfNull(args[0].Type()), nil
	}
	if isStrT(args[0].Type()) {
		return nil, unsupportedf("%s over VARCHAR (a string slice) is not supported; use SUBSTRING", name)
	}
	if err := listArg(name, args); err != nil {
		return nil, err
	}
	for i := 1; i < 3; i++ {
		if t := args[i].Type(); !vec.IsInteger(t) && !isNullT(t) {
			return nil, argTypeErr(name, i, args[i], "an integer index")
		}
	}
	lt := args[0].Type()
	return &vec.BoundFunc{Ret: lt, ArgTypes: []arrow.DataType{lt, tInt64, tInt64}, NullOnNullInput: true,
		Kernel: func(c *vec.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
			l := a[0].(*array.List)
			bs, es := a[1].(*array.Int64), a[2].(*array.Int64)
			offs := l.Offsets()
			var idx []int32
			out := make([]int32, n+1)
			has := make([]bool, n)
			for r := range n {
				out[r+1] = out[r]
				if l.IsNull(r) || bs.IsNull(r) || es.IsNull(r) {
					continue
				}
				has[r] = true
				s, ln := int64(offs[r]), int64(offs[r+1]-offs[r])
				b, e := bs.Value(r), es.Value(r)
				if b < 0 {
					b += ln + 1
				}
				if e < 0 {
					e += ln + 1
				}
				b, e = max(b, 1), min(e, ln)
				for k := b; k <= e; k++ {
					idx = append(idx, int32(s+k-1))
				}
				out[r+1] = int32(len(idx))
			}
			v, err := takeIdx(c.Mem, l.ListValues(), idx, nil)
			if err != nil {
				return nil, err
			}
			defer v.Release()
			return listArray(c.Mem, lt, out, v, has), nil
		}}, nil
}

func bindStringSplit(name string, args []vec.Expr) (*vec.BoundFunc, error) {
	if err := arity(name, args, 2, 2); err != nil {
		return nil, err
	}
	for i := range args {
		if t := args[i].Type(); !isStrT(t) && !isNullT(t) {
			return nil, argTypeErr(name, i, args[i], "VARCHAR")
		}
	}
	ret := listOf(tString)
	return &vec.BoundFunc{Ret: ret, ArgTypes: []arrow.DataType{tString, tString},
		Kernel: func(c *vec.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
			s, sep := a[0].(*array.String), a[1].(*array.String)
			lb := array.NewListBuilderWithField(c.Mem, ret.ElemField())
			defer lb.Release()
			vb := lb.ValueBuilder().(*array.StringBuilder)
			for r := range n {
				if s.IsNull(r) {
					lb.AppendNull()
					continue
				}
				lb.Append(true)
				str := s.Value(r)
				switch {
				case str == "" || sep.IsNull(r):
					vb.Append(str)
				case sep.Value(r) == "":
					for len(str) > 0 {
						_, k := utf8.DecodeRuneInString(str)
						vb.Append(str[:k])
						str = str[k:]
					}
				default:
					for _, part := range strings.Split(str, sep.Value(r)) {
						vb.Append(part)
					}
				}
			}
			return lb.NewArray(), nil
		}}, nil
}

func bindArrayToString(name string, args []vec.Expr) (*vec.BoundFunc, error) {
	if err := arity(name, args, 2, 2); err != nil {
		return nil, err
	}
	if isNullT(args[0].Type()) {
		return &vec.BoundFunc{Ret: tString, NullOnNullInput: true, Kernel: func(c *vec.Ctx, _ []arrow.Array, n int) (arrow.Array, error) {
			return nullArray(c.Mem, tString, n), nil
		}}, nil
	}
	if err := listArg(name, args); err != nil {
		return nil, err
	}
	if t := args[1].Type(); !isStrT(t) && !isNullT(t) {
		return nil, argTypeErr(name, 1, args[1], "VARCHAR")
	}
	lt := args[0].Type()
	elem := listElem(lt)
	var cast vec.Expr = &vec.Column{Index: 0, Name: "element", T: elem, Null: true}
	if !isStrT(elem) {
		var err error
		if cast, err = vec.NewCast(cast, tString); err != nil {
			return nil, invalidf("%s: elements of type %s do not convert to VARCHAR: %v", name, vec.TypeName(elem), err)
		}
	}
	return &vec.BoundFunc{Ret: tString, ArgTypes: []arrow.DataType{lt, tString}, AlwaysNullable: true,
		Kernel: func(c *vec.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
			l, sep := a[0].(*array.List), a[1].(*array.String)
			vals := l.ListValues()
			rec := array.NewRecordBatch(arrow.NewSchema([]arrow.Field{{Name: "element", Type: elem, Nullable: true}}, nil), []arrow.Array{vals}, int64(vals.Len()))
			defer rec.Release()
			sv, err := cast.Eval(c, rec)
			if err != nil {
				return nil, err
			}
			defer sv.Release()
			strs, ok := sv.(*array.String)
			if !ok && sv.Len() > 0 {
				return nil, invalidf("%s: elements did not convert to VARCHAR", name)
			}
			b := array.NewStringBuilder(c.Mem)
			defer b.Release()
			var buf bytes.Buffer
			offs := l.Offsets()
			for r := range n {
				if l.IsNull(r) {
					b.AppendNull()
					continue
				}
				sp := ","
				if !sep.IsNull(r) {
					sp = sep.Value(r)
				}
				buf.Reset()
				first, seen := true, offs[r] == offs[r+1]
				for j := int(offs[r]); j < int(offs[r+1]); j++ {
					if strs.IsNull(j) {
						continue
					}
					if !first {
						buf.WriteString(sp)
					}
					first, seen = false, true
					buf.WriteString(strs.Value(j))
				}
				if !seen {
					b.AppendNull() // only NULL elements
					continue
				}
				b.Append(buf.String())
			}
			return b.NewArray(), nil
		}}, nil
}

func bindListSort(reverse bool) func(string, []vec.Expr) (*vec.BoundFunc, error) {
	return func(name string, args []vec.Expr) (*vec.BoundFunc, error) {
		maxArgs := 3
		if reverse {
			maxArgs = 2
		}
		if err := arity(name, args, 1, maxArgs); err != nil {
			return nil, err
		}
		if isNullT(args[0].Type()) {
			return nullOfNull(args[0].Type()), nil
		}
		if err := listArg(name, args); err != nil {
			return nil, err
		}
		desc, nullsFirst := reverse, false
		opts := args[1:]
		for k, o := range opts {
			lit, ok := vec.IsConst(o)
			if !ok || !isStrT(o.Type()) || !lit.Value.IsValid() {
				return nil, invalidf("%s: the sort order must be a constant string", name)
			}
			v := strings.ToUpper(strings.TrimSpace(lit.Value.String()))
			switch {
			case k == 0 && !reverse && (v == "ASC" || v == "DESC"):
				desc = v == "DESC"
			case (k == 1 || reverse) && (v == "NULLS FIRST" || v == "NULLS LAST"):
				nullsFirst = v == "NULLS FIRST"
			default:
				return nil, invalidf("%s: unknown sort order %q", name, v)
			}
		}
		lt := args[0].Type()
		less, err := elemCmp(listElem(lt))
		if err != nil {
			return nil, invalidf("%s: %v", name, err)
		}
		ats := []arrow.DataType{lt}
		for range opts {
			ats = append(ats, tString)
		}
		return &vec.BoundFunc{Ret: lt, ArgTypes: ats, NullOnNullInput: true,
			Kernel: func(c *vec.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
				l := a[0].(*array.List)
				vals := l.ListValues()
				offs := l.Offsets()
				base := offs[0]
				idx := make([]int32, 0, int(offs[n]-base))
				has := make([]bool, n)
				out := make([]int32, n+1)
				for r := range n {
					s, e := int(offs[r]), int(offs[r+1])
					row := make([]int32, 0, e-s)
					for j := s; j < e; j++ {
						row = append(row, int32(j))
					}
					slices.SortStableFunc(row, func(x, y int32) int {
						xn, yn := vals.IsNull(int(x)), vals.IsNull(int(y))
						switch {
						case xn && yn:
							return 0
						case xn != yn:
							if xn == nullsFirst {
								return -1
							}
							return 1
						}
						d := less(vals, int(x), int(y))
						if desc {
							d = -d
						}
						return d
					})
					idx = append(idx, row...)
					has[r] = l.IsValid(r)
					out[r+1] = int32(len(idx))
				}
				v, err := takeIdx(c.Mem, vals, idx, nil)
				if err != nil {
					return nil, err
				}
				defer v.Release()
				return listArray(c.Mem, lt, out, v, has), nil
			}}, nil
	}
}

// elemCmp orders two non-NULL values of one array of type t (NaN above
// every number).
func elemCmp(t arrow.DataType) (func(a arrow.Array, i, j int) int, error) {
	switch t.ID() {
	case arrow.INT8:
		return cmpOf[int8, *array.Int8](), nil
	case arrow.INT16:
		return cmpOf[int16, *array.Int16](), nil
	case arrow.INT32:
		return cmpOf[int32, *array.Int32](), nil
	case arrow.INT64:
		return cmpOf[int64, *array.Int64](), nil
	case arrow.FLOAT32:
		return cmpOf[float32, *array.Float32](), nil
	case arrow.FLOAT64:
		return cmpOf[float64, *array.Float64](), nil
	case arrow.STRING:
		return cmpOf[string, *array.String](), nil
	case arrow.DATE32:
		return cmpOf[arrow.Date32, *array.Date32](), nil
	case arrow.TIMESTAMP:
		return cmpOf[arrow.Timestamp, *array.Timestamp](), nil
	case arrow.DECIMAL128:
		return func(a arrow.Array, i, j int) int {
			d := a.(*array.Decimal128)
			return d.Value(i).Cmp(d.Value(j))
		}, nil
	case arrow.BOOL:
		return func(a arrow.Array, i, j int) int {
			b := a.(*array.Boolean)
			x, y := b.Value(i), b.Value(j)
			switch {
			case x == y:
				return 0
			case y:
				return -1
			}
			return 1
		}, nil
	}
	return nil, unsupportedf("sorting lists of %s", vec.TypeName(t))
}

// cmpOf is cmp.Compare (NaN below every number there) with NaN moved
// above every number, the engine's sort order.
func cmpOf[V cmp.Ordered, A interface{ Value(int) V }]() func(a arrow.Array, i, j int) int {
	return func(a arrow.Array, i, j int) int {
		x, y := a.(A).Value(i), a.(A).Value(j)
		xn, yn := x != x, y != y
		switch {
		case xn && yn:
			return 0
		case xn:
			return 1
		case yn:
			return -1
		}
		return cmp.Compare(x, y)
	}
}

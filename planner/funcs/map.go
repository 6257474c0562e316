package funcs

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

// Map functions (DuckDB 1.5's): map(keys, values) pairs two lists (the
// front end writes MAP {k: v, ...} as map([k, ...], [v, ...])); keys must
// be unique and not NULL, and the lists of one length (errors, as in
// DuckDB); a NULL list gives a NULL map. m[k] and map_extract_value(m, k)
// are the value under k (NULL when absent); map_extract/element_at(m, k)
// the list of it ([] when absent); map_keys/map_values the lists of keys
// and values; cardinality the number of entries. MAPs are Arrow MAP
// arrays.
func init() {
	register("MAP", nil, bindMap)
	register("MAP_EXTRACT_VALUE", nil, bindMapExtract(false))
	register("MAP_EXTRACT", []string{"ELEMENT_AT"}, bindMapExtract(true))
	register("MAP_KEYS", nil, bindMapPart(true))
	register("MAP_VALUES", nil, bindMapPart(false))
	register("CARDINALITY", nil, bindCardinality)
}

func isMapT(t arrow.DataType) bool { return t != nil && t.ID() == arrow.MAP }

func bindMap(name string, args []vec.Expr) (*vec.BoundFunc, error) {
	if len(args) == 0 {
		mt := arrow.MapOf(arrow.Null, arrow.Null)
		return &vec.BoundFunc{Ret: mt, Kernel: func(c *vec.Ctx, _ []arrow.Array, n int) (arrow.Array, error) {
			keys := array.MakeArrayOfNull(c.Mem, arrow.Null, 0)
			defer keys.Release()
			return mapArray(c.Mem, mt, make([]int32, n+1), keys, keys, nil)
		}}, nil
	}
	if err := arity(name, args, 2, 2); err != nil {
		return nil, err
	}
	lts := [2]arrow.DataType{}
	for i, a := range args {
		switch t := a.Type(); {
		case isNullT(t):
			lts[i] = listOf(arrow.Null)
		case isListT(t):
			lts[i] = t
		default:
			return nil, argTypeErr(name, i, a, "a list")
		}
	}
	kt, vt := listElem(lts[0]), listElem(lts[1])
	if _, err := elemEq(kt); err != nil && !isNullT(kt) {
		return nil, unsupportedf("%s: keys of type %s are not supported", name, vec.TypeName(kt))
	}
	mt := arrow.MapOf(kt, vt)
	return &vec.BoundFunc{Ret: mt, ArgTypes: lts[:], AlwaysNullable: true, Kernel: func(c *vec.Ctx, args []arrow.Array, n int) (arrow.Array, error) {
		kl, vl := args[0].(*array.List), args[1].(*array.List)
		ko, vo := kl.Offsets(), vl.Offsets()
		offs := make([]int32, n+1)
		has := make([]bool, n)
		var kidx, vidx []int32
		eq, _ := elemEq(kt)
		kv := kl.ListValues()
		for r := range n {
			offs[r+1] = offs[r]
			if kl.IsNull(r) || vl.IsNull(r) {
				continue
			}
			has[r] = true
			ks, ke, vs, ve := ko[r], ko[r+1], vo[r], vo[r+1]
			if ke-ks != ve-vs {
				return nil, invalidf("%s: the key list does not align with the value list (%d keys, %d values)", name, ke-ks, ve-vs)
			}
			for j := ks; j < ke; j++ {
				if kv.IsNull(int(j)) || kv.DataType().ID() == arrow.NULL {
					return nil, invalidf("%s: map keys can not be NULL", name)
				}
				for p := ks; p < j && eq != nil; p++ {
					if eq(kv, int(p), kv, int(j)) {
						return nil, invalidf("%s: map keys must be unique (%s is repeated)", name, kv.ValueStr(int(j)))
					}
				}
				kidx = append(kidx, j)
				vidx = append(vidx, vs+(j-ks))
			}
			offs[r+1] = offs[r] + (ke - ks)
		}
		keys, err := takeIdx(c.Mem, kv, kidx, nil)
		if err != nil {
			return nil, err
		}
		defer keys.Release()
		vals, err := takeIdx(c.Mem, vl.ListValues(), vidx, nil)
		if err != nil {
			return nil, err
		}
		defer vals.Release()
		return mapArray(c.Mem, mt, offs, keys, vals, has)
	}}, nil
}

// mapArray builds a MAP array of offsets over keys and values (has nil:
// all valid).
func mapArray(mem memory.Allocator, mt *arrow.MapType, offs []int32, keys, vals arrow.Array, has []bool) (arrow.Array, error) {
	st := mt.Elem().(*arrow.StructType)
	entries := array.NewData(st, keys.Len(), []*memory.Buffer{nil}, []arrow.ArrayData{keys.Data(), vals.Data()}, 0, 0)
	defer entries.Release()
	ea := array.MakeFromData(entries)
	defer ea.Release()
	l := listArray(mem, arrow.ListOf(st), offs, ea, has)
	defer l.Release()
	d := l.Data()
	md := array.NewData(mt, d.Len(), d.Buffers(), d.Children(), d.NullN(), d.Offset())
	defer md.Release()
	return array.MakeFromData(md), nil
}

func mapArg(name string, args []vec.Expr) error {
	if !isMapT(args[0].Type()) {
		return argTypeErr(name, 0, args[0], "a MAP")
	}
	return nil
}

// bindMapExtract binds m[k] / map_extract_value (asList false) and
// map_extract / element_at (asList true).
func bindMapExtract(asList bool) func(string, []vec.Expr) (*vec.BoundFunc, error) {
	return func(name string, args []vec.Expr) (*vec.BoundFunc, error) {
		if err := arity(name, args, 2, 2); err != nil {
			return nil, err
		}
		if isNullT(args[0].Type()) {
			return nullOfNull(args[0].Type()), nil
		}
		if err := mapArg(name, args); err != nil {
			return nil, err
		}
		return mapExtract(name, args, asList)
	}
}

func mapExtract(name string, args []vec.Expr, asList bool) (*vec.BoundFunc, error) {
	mt := args[0].Type().(*arrow.MapType)
	kt, vt := mt.KeyType(), mt.ItemType()
	if isNullT(kt) { // the empty map: nothing is found
		kt = args[1].Type()
		if isNullT(kt) {
			kt = tInt64
		}
	}
	eq, err := elemEq(kt)
	if err != nil {
		return nil, unsupportedf("%s: keys of type %s are not supported", name, vec.TypeName(kt))
	}
	if _, err := vec.ImplicitCast(args[1], kt); err != nil {
		return nil, invalidf("%s: the key %s (%s) does not convert to the map's key type %s", name, args[1], vec.TypeName(args[1].Type()), vec.TypeName(kt))
	}
	ret := vt
	if asList {
		ret = listOf(vt)
	}
	keyT := mt.KeyType()
	return &vec.BoundFunc{Ret: ret, ArgTypes: []arrow.DataType{mt, kt}, AlwaysNullable: !asList, NullOnNullInput: asList,
		Kernel: func(c *vec.Ctx, args []arrow.Array, n int) (arrow.Array, error) {
			m := args[0].(*array.Map)
			k := args[1]
			keys := m.Keys()
			offs := m.Offsets()
			idx := make([]int32, n)
			valid := make([]bool, n)
			for r := range n {
				if m.IsNull(r) || k.IsNull(r) || isNullT(keyT) {
					continue
				}
				for j := int(offs[r]); j < int(offs[r+1]); j++ {
					if eq(keys, j, k, r) {
						idx[r], valid[r] = int32(j), true
						break
					}
				}
			}
			vals, err := takeIdx(c.Mem, m.Items(), idx, valid)
			if err != nil || !asList {
				return vals, err
			}
			defer vals.Release()
			// map_extract: [v] when found, [] when not, NULL for a NULL
			// map or key
			lo := make([]int32, n+1)
			has := make([]bool, n)
			var take []int32
			for r := range n {
				lo[r+1] = lo[r]
				has[r] = !m.IsNull(r) && !k.IsNull(r)
				if valid[r] {
					take = append(take, int32(r))
					lo[r+1]++
				}
			}
			inner, err := takeIdx(c.Mem, vals, take, nil)
			if err != nil {
				return nil, err
			}
			defer inner.Release()
			return listArray(c.Mem, ret, lo, inner, has), nil
		}}, nil
}

// bindMapPart binds map_keys (keys true) and map_values: lists sharing
// the map's offsets.
func bindMapPart(keys bool) func(string, []vec.Expr) (*vec.BoundFunc, error) {
	return func(name string, args []vec.Expr) (*vec.BoundFunc, error) {
		if err := arity(name, args, 1, 1); err != nil {
			return nil, err
		}
		if isNullT(args[0].Type()) {
			return nullOfNull(args[0].Type()), nil
		}
		if err := mapArg(name, args); err != nil {
			return nil, err
		}
		mt := args[0].Type().(*arrow.MapType)
		et := mt.ItemType()
		if keys {
			et = mt.KeyType()
		}
		ret := listOf(et)
		return &vec.BoundFunc{Ret: ret, NullOnNullInput: true, Kernel: func(c *vec.Ctx, args []arrow.Array, n int) (arrow.Array, error) {
			m := args[0].(*array.Map)
			part := m.Items()
			if keys {
				part = m.Keys()
			}
			d := m.Data()
			ld := array.NewData(ret, d.Len(), d.Buffers()[:2], []arrow.ArrayData{part.Data()}, d.NullN(), d.Offset())
			defer ld.Release()
			return array.MakeFromData(ld), nil
		}}, nil
	}
}

func bindCardinality(name string, args []vec.Expr) (*vec.BoundFunc, error) {
	return bindEntryCount(name, args, mapArg)
}

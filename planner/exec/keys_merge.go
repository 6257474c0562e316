package exec

import (
	"fmt"
	"hash/maphash"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Merging key tables (the partial states of an aggregation).

// mergeGen inserts every key of src, a ktGen of the same columns, and
// sets gmap[id] to each one's id here: the encoded keys move from arena to
// arena without decoding them into columns and encoding them again.
func (t *ktGen) mergeGen(src *ktGen, gmap []int32) error {
	n := src.ar.len()
	if len(gmap) != n {
		return fmt.Errorf("exec: merging %d keys with a map of %d", n, len(gmap))
	}
	if t.ar.len()+n > ktMaxKeys {
		return fmt.Errorf("exec: key table over %d keys", ktMaxKeys)
	}
	t.m.reserve(t.m.n + n)
	if t.ar.offs == nil {
		t.ar.offs = make([]int64, 1, n+1)
	}
	t.ar.data = ktGrow(t.ar.data, len(src.ar.data))
	t.ar.offs = ktGrow(t.ar.offs, n)
	for id := range n {
		key := src.ar.get(int32(id))
		h := maphash.Bytes(t.seed, key)
		g := t.m.find(h, key, &t.ar)
		if g < 0 {
			g = int32(t.ar.len())
			t.ar.add(key)
			t.m.add(h, g)
		}
		gmap[id] = g
	}
	return nil
}

// sameLayout reports whether o encodes keys exactly as t does.
func (t *ktGen) sameLayout(o *ktGen) bool {
	if t.err != nil || o.err != nil || len(t.cols) != len(o.cols) {
		return false
	}
	for i, c := range t.cols {
		if o.cols[i] != c || !ktSameType(t.types[i], o.types[i]) {
			return false
		}
	}
	return true
}

// ktGenOf is the general table behind t, or nil.
func ktGenOf(t KeyTable) *ktGen {
	switch x := t.(type) {
	case *ktGen:
		return x
	case *ktPacked:
		g, _ := x.gen.(*ktGen)
		return g
	}
	return nil
}

// ktMergeInto inserts the keys of src into dst (tables of the same key
// types) and sets gmap[i] to the id in dst of src's key i.
func ktMergeInto(mem memory.Allocator, dst, src KeyTable, gmap []int32) error {
	if dg, sg := ktGenOf(dst), ktGenOf(src); dg != nil && sg != nil && dg.sameLayout(sg) {
		return dg.mergeGen(sg, gmap)
	}
	if di, si := ktInternedOf(dst), ktInternedOf(src); di != nil && si != nil && di.sameTypes(si) {
		return di.mergeInterned(mem, si, gmap)
	}
	if r, ok := dst.(ktReserver); ok {
		r.reserve(dst.Len() + src.Len())
	}
	keys, err := src.Keys(mem)
	if err != nil {
		return err
	}
	defer ktRelease(keys)
	return dst.Insert(keys, gmap)
}

// ktReserver is a table that can size its hash table for n keys up front
// (a merge knows how many keys may come; growing on the way rehashes).
type ktReserver interface{ reserve(n int) }

func (t *ktGen) reserve(n int) { t.m.reserve(n) }

func (t *ktInterned) reserve(n int) {
	if r, ok := t.inner.(ktReserver); ok {
		r.reserve(n)
	}
}

func (t *ktPacked) reserve(n int) {
	switch {
	case t.gen != nil:
		if r, ok := t.gen.(ktReserver); ok {
			r.reserve(n)
		}
	case !t.ready: // no layout yet: the first Insert chooses it
	case t.wide:
		t.m2.reserve(n)
	default:
		t.m.reserve(n)
	}
}

// ktInternedOf is the interned table behind t, or nil.
func ktInternedOf(t KeyTable) *ktInterned {
	switch x := t.(type) {
	case *ktInterned:
		return x
	case *ktPacked:
		i, _ := x.gen.(*ktInterned)
		return i
	}
	return nil
}

func (t *ktInterned) sameTypes(o *ktInterned) bool {
	if len(t.types) != len(o.types) {
		return false
	}
	for i, dt := range t.types {
		if !ktSameType(dt, o.types[i]) || (t.dicts[i] == nil) != (o.dicts[i] == nil) {
			return false
		}
	}
	return true
}

// mergeInterned merges src's string tables into ours first (each distinct
// string once), then src's rows with their string ids mapped to ours.
func (t *ktInterned) mergeInterned(mem memory.Allocator, src *ktInterned, gmap []int32) error {
	cols, err := src.inner.Keys(mem)
	if err != nil {
		return err
	}
	defer func() { ktRelease(cols) }()
	for i, d := range t.dicts {
		if d == nil {
			continue
		}
		vals, err := src.dicts[i].Keys(mem)
		if err != nil {
			return err
		}
		idmap := make([]int32, src.dicts[i].Len())
		err = d.Insert(vals, idmap)
		ktRelease(vals)
		if err != nil {
			return err
		}
		old, err := aggValues[int32](cols[i])
		if err != nil {
			return err
		}
		ids := make([]int32, len(old))
		for r, id := range old {
			if id < 0 || int(id) >= len(idmap) {
				return fmt.Errorf("exec: interned key id %d outside its %d strings", id, len(idmap))
			}
			ids[r] = idmap[id]
		}
		cols[i].Release()
		cols[i] = aggFixedArray(mem, arrow.PrimitiveTypes.Int32, ids, nil)
	}
	t.reserve(t.Len() + src.Len())
	return t.inner.Insert(cols, gmap)
}

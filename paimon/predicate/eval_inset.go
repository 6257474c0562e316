package predicate

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// inSetMin is the list length from which IN / NOT IN use a hash set: below
// it, comparing with each literal is as fast.
const inSetMin = 8

// inSetLeaf evaluates IN / NOT IN with many literals on a string, binary or
// integer column with a hash set: O(rows + literals) instead of
// O(rows × literals) (a 10k-string IN list took 87 s on 3M rows). ok=false
// leaves the leaf to the general path (other types, literals of another
// kind).
func inSetLeaf(l *Leaf, col arrow.Array, out []uint8) bool {
	if (l.Op != In && l.Op != NotIn) || len(l.Literals) < inSetMin {
		return false
	}
	want := l.Op == In
	mark := func(i int, found bool) {
		switch {
		case col.IsNull(i):
			out[i] = tUnknown
		case found == want:
			out[i] = tTrue
		}
	}
	switch c := col.(type) {
	case *array.String, *array.LargeString, *array.Binary, *array.LargeBinary:
		set := make(map[string]struct{}, len(l.Literals))
		for _, lit := range l.Literals {
			switch v := lit.(type) {
			case string:
				set[v] = struct{}{}
			case []byte:
				set[string(v)] = struct{}{}
			default:
				return false
			}
		}
		get := func(i int) string { return "" }
		switch c := c.(type) {
		case *array.String:
			get = c.Value
		case *array.LargeString:
			get = c.Value
		case *array.Binary:
			get = func(i int) string { return string(c.Value(i)) }
		case *array.LargeBinary:
			get = func(i int) string { return string(c.Value(i)) }
		}
		for i := range out {
			_, found := set[get(i)]
			mark(i, found)
		}
		return true
	case *array.Int8, *array.Int16, *array.Int32, *array.Int64:
		set := make(map[int64]struct{}, len(l.Literals))
		for _, lit := range l.Literals {
			v, ok := lit.(int64)
			if !ok {
				return false
			}
			set[v] = struct{}{}
		}
		var get func(i int) int64
		switch c := c.(type) {
		case *array.Int8:
			get = func(i int) int64 { return int64(c.Value(i)) }
		case *array.Int16:
			get = func(i int) int64 { return int64(c.Value(i)) }
		case *array.Int32:
			get = func(i int) int64 { return int64(c.Value(i)) }
		case *array.Int64:
			get = c.Value
		}
		for i := range out {
			_, found := set[get(i)]
			mark(i, found)
		}
		return true
	}
	return false
}

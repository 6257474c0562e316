package exec

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

// aggMinMaxNested is MIN, MAX and ANY_VALUE of lists, maps and structs:
// each group keeps the nested key (vec.AppendNestedKey) of its value,
// compared bytewise — the order ORDER BY uses, DuckDB's — and decoded
// back into the result (floats inside come back as +0 and the canonical
// NaN).
type aggMinMaxNested struct {
	mode int
	dt   arrow.DataType
	v    []string
	has  []bool
	size int64
	buf  []byte
}

func (a *aggMinMaxNested) resize(n int) { a.v = aggGrow(a.v, n); a.has = aggGrow(a.has, n) }
func (a *aggMinMaxNested) bytes() int64 { return int64(cap(a.v))*17 + a.size + int64(cap(a.buf)) }

// better reports whether key k replaces group g's value.
func (a *aggMinMaxNested) better(g int32, k string) bool {
	switch {
	case !a.has[g]:
		return true
	case a.mode == aggModeMin:
		return k < a.v[g]
	case a.mode == aggModeMax:
		return k > a.v[g]
	}
	return false
}

func (a *aggMinMaxNested) set(g int32, k string) {
	a.size += int64(len(k) - len(a.v[g]))
	a.v[g], a.has[g] = k, true
}

func (a *aggMinMaxNested) update(args []arrow.Array, mask []byte, gids []int32) error {
	x := args[0]
	if !arrow.TypeEqual(x.DataType(), a.dt) {
		return fmt.Errorf("exec: MIN/MAX of %s given %s", a.dt, x.DataType())
	}
	for r, g := range gids {
		if (mask != nil && !bitutil.BitIsSet(mask, r)) || x.IsNull(r) || (a.mode == aggModeAny && a.has[g]) {
			continue
		}
		a.buf = vec.AppendNestedKey(a.buf[:0], x, r)
		if k := string(a.buf); a.better(g, k) {
			a.set(g, k)
		}
	}
	return nil
}

func (a *aggMinMaxNested) merge(src aggAcc, gmap []int32) error {
	o := src.(*aggMinMaxNested)
	for i, g := range gmap {
		if o.has[i] && a.better(g, o.v[i]) {
			a.set(g, o.v[i])
		}
	}
	return nil
}

func (a *aggMinMaxNested) finish(mem memory.Allocator) (arrow.Array, error) {
	bld := array.NewBuilder(mem, a.dt)
	defer bld.Release()
	bld.Reserve(len(a.v))
	for g, k := range a.v {
		if !a.has[g] {
			bld.AppendNull()
			continue
		}
		rest, err := vec.DecodeNestedKey([]byte(k), bld)
		if err == nil && len(rest) != 0 {
			err = fmt.Errorf("exec: %d bytes left after a %s key", len(rest), a.dt)
		}
		if err != nil {
			return nil, err
		}
	}
	return bld.NewArray(), nil
}

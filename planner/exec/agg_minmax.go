package exec

import (
	"fmt"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// MIN, MAX and ANY_VALUE keep the argument's type. Floats order NaN above
// every other value (as PostgreSQL and DuckDB): MIN skips NaN unless a
// group has nothing else, MAX returns NaN when a group has one. ANY_VALUE
// returns a group's first non-NULL value of a partial aggregation (which
// one is unspecified across partitions).

const (
	aggModeMin = iota
	aggModeMax
	aggModeAny
)

type aggNum interface {
	int8 | int16 | int32 | int64 | uint8 | uint16 | uint32 | uint64 | float32 | float64
}

// aggLess orders NaN last (x != x only for NaN).
func aggLess[T aggNum](a, b T) bool {
	return a < b || (a == a && b != b)
}

type aggMinMax[T aggNum] struct {
	mode int
	dt   arrow.DataType
	v    []T
	has  []bool
}

func (a *aggMinMax[T]) resize(n int) { a.v = aggGrow(a.v, n); a.has = aggGrow(a.has, n) }
func (a *aggMinMax[T]) bytes() int64 { return int64(cap(a.v))*8 + int64(cap(a.has)) }

func (a *aggMinMax[T]) update(args []arrow.Array, mask []byte, gids []int32) error {
	vals, err := aggValues[T](args[0])
	if err != nil {
		return err
	}
	vals = vals[:len(gids)]
	v, has := a.v, a.has
	switch a.mode {
	case aggModeMin:
		for r, g := range gids {
			if mask != nil && !bitutil.BitIsSet(mask, r) {
				continue
			}
			if x := vals[r]; !has[g] || aggLess(x, v[g]) {
				v[g], has[g] = x, true
			}
		}
	case aggModeMax:
		for r, g := range gids {
			if mask != nil && !bitutil.BitIsSet(mask, r) {
				continue
			}
			if x := vals[r]; !has[g] || aggLess(v[g], x) {
				v[g], has[g] = x, true
			}
		}
	default:
		for r, g := range gids {
			if (mask == nil || bitutil.BitIsSet(mask, r)) && !has[g] {
				v[g], has[g] = vals[r], true
			}
		}
	}
	return nil
}

func (a *aggMinMax[T]) merge(src aggAcc, gmap []int32) error {
	o := src.(*aggMinMax[T])
	for i, g := range gmap {
		if !o.has[i] {
			continue
		}
		x := o.v[i]
		switch {
		case !a.has[g],
			a.mode == aggModeMin && aggLess(x, a.v[g]),
			a.mode == aggModeMax && aggLess(a.v[g], x):
			a.v[g], a.has[g] = x, true
		}
	}
	return nil
}

func (a *aggMinMax[T]) finish(mem memory.Allocator) (arrow.Array, error) {
	return aggFixedArray(mem, a.dt, a.v, a.has), nil
}

// ---- decimals ----------------------------------------------------------------

type aggMinMaxDec struct {
	mode int
	dt   arrow.DataType
	v    []decimal128.Num
	has  []bool
}

func (a *aggMinMaxDec) resize(n int) { a.v = aggGrow(a.v, n); a.has = aggGrow(a.has, n) }
func (a *aggMinMaxDec) bytes() int64 { return int64(cap(a.v))*17 + 8 }

func (a *aggMinMaxDec) take(g int32, x decimal128.Num) {
	switch {
	case !a.has[g],
		a.mode == aggModeMin && x.Less(a.v[g]),
		a.mode == aggModeMax && a.v[g].Less(x):
		a.v[g], a.has[g] = x, true
	}
}

func (a *aggMinMaxDec) update(args []arrow.Array, mask []byte, gids []int32) error {
	vals, err := aggValues[decimal128.Num](args[0])
	if err != nil {
		return err
	}
	for r, g := range gids {
		if mask == nil || bitutil.BitIsSet(mask, r) {
			a.take(g, vals[r])
		}
	}
	return nil
}

func (a *aggMinMaxDec) merge(src aggAcc, gmap []int32) error {
	o := src.(*aggMinMaxDec)
	for i, g := range gmap {
		if o.has[i] {
			a.take(g, o.v[i])
		}
	}
	return nil
}

func (a *aggMinMaxDec) finish(mem memory.Allocator) (arrow.Array, error) {
	return aggFixedArray(mem, a.dt, a.v, a.has), nil
}

// ---- booleans: BOOL_AND = MIN, BOOL_OR = MAX, ANY_VALUE ------------------------

type aggBool struct {
	mode int
	v    []int8 // -1: no value yet
}

func (a *aggBool) resize(n int) {
	for len(a.v) < n {
		a.v = append(a.v, -1)
	}
}
func (a *aggBool) bytes() int64 { return int64(cap(a.v)) }

func (a *aggBool) take(g int32, x int8) {
	cur := a.v[g]
	switch {
	case cur < 0:
		a.v[g] = x
	case a.mode == aggModeMin:
		a.v[g] = cur & x
	case a.mode == aggModeMax:
		a.v[g] = cur | x
	}
}

func (a *aggBool) update(args []arrow.Array, mask []byte, gids []int32) error {
	col := args[0]
	if col.DataType().ID() == arrow.NULL {
		return nil
	}
	b, ok := col.(*array.Boolean)
	if !ok {
		return fmt.Errorf("exec: boolean aggregate of %s", col.DataType())
	}
	for r, g := range gids {
		if mask != nil && !bitutil.BitIsSet(mask, r) {
			continue
		}
		var x int8
		if b.Value(r) {
			x = 1
		}
		a.take(g, x)
	}
	return nil
}

func (a *aggBool) merge(src aggAcc, gmap []int32) error {
	o := src.(*aggBool)
	for i, g := range gmap {
		if o.v[i] >= 0 {
			a.take(g, o.v[i])
		}
	}
	return nil
}

func (a *aggBool) finish(mem memory.Allocator) (arrow.Array, error) {
	b := array.NewBooleanBuilder(mem)
	defer b.Release()
	b.Reserve(len(a.v))
	for _, x := range a.v {
		if x < 0 {
			b.AppendNull()
		} else {
			b.Append(x == 1)
		}
	}
	return b.NewArray(), nil
}

// ---- strings and binaries ----------------------------------------------------

type aggMinMaxStr struct {
	mode int
	dt   arrow.DataType
	v    []string
	has  []bool
	size int64
}

func (a *aggMinMaxStr) resize(n int) { a.v = aggGrow(a.v, n); a.has = aggGrow(a.has, n) }
func (a *aggMinMaxStr) bytes() int64 { return int64(cap(a.v))*17 + a.size }

func (a *aggMinMaxStr) set(g int32, b []byte) {
	a.size += int64(len(b) - len(a.v[g]))
	a.v[g], a.has[g] = string(b), true
}

func (a *aggMinMaxStr) update(args []arrow.Array, mask []byte, gids []int32) error {
	o32, o64, data, err := ktVarParts(args[0], args[0].DataType().ID() == arrow.LARGE_STRING || args[0].DataType().ID() == arrow.LARGE_BINARY)
	if err != nil {
		return err
	}
	if o64 != nil {
		return aggStrLoop(a, o64, data, mask, gids)
	}
	return aggStrLoop(a, o32, data, mask, gids)
}

func aggStrLoop[O int32 | int64](a *aggMinMaxStr, offs []O, data []byte, mask []byte, gids []int32) error {
	if offs[0] < 0 || int64(offs[len(offs)-1]) > int64(len(data)) {
		return fmt.Errorf("exec: string offsets outside the data")
	}
	for r, g := range gids {
		if mask != nil && !bitutil.BitIsSet(mask, r) {
			continue
		}
		s, e := offs[r], offs[r+1]
		if e < s {
			return fmt.Errorf("exec: string offsets decrease at row %d", r)
		}
		b := data[s:e]
		switch {
		case !a.has[g],
			a.mode == aggModeMin && string(b) < a.v[g],
			a.mode == aggModeMax && string(b) > a.v[g]:
			a.set(g, b)
		}
	}
	return nil
}

func (a *aggMinMaxStr) merge(src aggAcc, gmap []int32) error {
	o := src.(*aggMinMaxStr)
	for i, g := range gmap {
		if !o.has[i] {
			continue
		}
		x := o.v[i]
		switch {
		case !a.has[g],
			a.mode == aggModeMin && x < a.v[g],
			a.mode == aggModeMax && x > a.v[g]:
			a.size += int64(len(x) - len(a.v[g]))
			a.v[g], a.has[g] = x, true
		}
	}
	return nil
}

func (a *aggMinMaxStr) finish(mem memory.Allocator) (arrow.Array, error) {
	return aggStringArray(mem, a.dt, a.v, a.has)
}

// aggStringArray builds a string/binary array of dt from v (has nil = all
// valid).
func aggStringArray(mem memory.Allocator, dt arrow.DataType, v []string, has []bool) (arrow.Array, error) {
	return aggBytesArray(mem, dt, len(v), func(i int) ([]byte, bool) {
		return unsafe.Slice(unsafe.StringData(v[i]), len(v[i])), has == nil || has[i]
	})
}

// aggBytesArray builds a string/binary array of n values of dt.
func aggBytesArray(mem memory.Allocator, dt arrow.DataType, n int, get func(int) ([]byte, bool)) (arrow.Array, error) {
	bld := array.NewBuilder(mem, dt)
	defer bld.Release()
	var b *array.BinaryBuilder
	switch x := bld.(type) {
	case *array.StringBuilder:
		b = x.BinaryBuilder
	case *array.LargeStringBuilder:
		b = x.BinaryBuilder
	case *array.BinaryBuilder:
		b = x
	default:
		return nil, fmt.Errorf("exec: string result of type %s", dt)
	}
	b.Reserve(n)
	for i := 0; i < n; i++ {
		v, ok := get(i)
		if !ok {
			b.AppendNull()
			continue
		}
		if len(v) == 0 {
			b.AppendEmptyValue()
		} else {
			b.Append(v)
		}
	}
	return bld.NewArray(), nil
}

// ---- a NULL-typed argument -----------------------------------------------------

type aggNull struct {
	dt arrow.DataType
	n  int
}

func (a *aggNull) resize(n int)                                { a.n = max(a.n, n) }
func (a *aggNull) bytes() int64                                { return 0 }
func (a *aggNull) update([]arrow.Array, []byte, []int32) error { return nil }
func (a *aggNull) merge(aggAcc, []int32) error                 { return nil }
func (a *aggNull) finish(mem memory.Allocator) (arrow.Array, error) {
	return array.MakeArrayOfNull(mem, a.dt, a.n), nil
}

// newMinMax returns the MIN/MAX/ANY_VALUE accumulator of type t.
func newMinMax(mode int, t arrow.DataType) (aggAcc, error) {
	switch aggMinMaxKind(t) {
	case aggMMInt8:
		return &aggMinMax[int8]{mode: mode, dt: t}, nil
	case aggMMInt16:
		return &aggMinMax[int16]{mode: mode, dt: t}, nil
	case aggMMInt32:
		return &aggMinMax[int32]{mode: mode, dt: t}, nil
	case aggMMInt64:
		return &aggMinMax[int64]{mode: mode, dt: t}, nil
	case aggMMUint8:
		return &aggMinMax[uint8]{mode: mode, dt: t}, nil
	case aggMMUint16:
		return &aggMinMax[uint16]{mode: mode, dt: t}, nil
	case aggMMUint32:
		return &aggMinMax[uint32]{mode: mode, dt: t}, nil
	case aggMMUint64:
		return &aggMinMax[uint64]{mode: mode, dt: t}, nil
	case aggMMFloat32:
		return &aggMinMax[float32]{mode: mode, dt: t}, nil
	case aggMMFloat64:
		return &aggMinMax[float64]{mode: mode, dt: t}, nil
	case aggMMFloat16:
		if mode != aggModeAny {
			break
		}
		return &aggMinMax[uint16]{mode: mode, dt: t}, nil
	case aggMMDecimal:
		return &aggMinMaxDec{mode: mode, dt: t}, nil
	case aggMMBool:
		return &aggBool{mode: mode}, nil
	case aggMMString:
		return &aggMinMaxStr{mode: mode, dt: t}, nil
	case aggMMNull:
		return &aggNull{dt: t}, nil
	}
	if IsNestedKey(t) {
		return &aggMinMaxNested{mode: mode, dt: t}, nil
	}
	return nil, fmt.Errorf("exec: MIN/MAX of %s is not supported", t)
}

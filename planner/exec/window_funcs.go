package exec

import (
	"math"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/decimal256"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

func isIntType(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64:
		return true
	}
	return false
}

func isDecimalType(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.DECIMAL32, arrow.DECIMAL64, arrow.DECIMAL128:
		return true
	}
	return false
}

func isFloatType(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.FLOAT16, arrow.FLOAT32, arrow.FLOAT64:
		return true
	}
	return false
}

// WindowResultType is the type of window function fn over arguments of
// these types (errors wrap catalog.ErrInvalid).
func WindowResultType(fn string, args []arrow.DataType) (arrow.DataType, error) {
	name := strings.ToUpper(fn)
	nargs := func(lo, hi int) error {
		if len(args) < lo || len(args) > hi {
			if lo == hi {
				return winInvalidf("window function %s takes %d arguments, got %d", name, lo, len(args))
			}
			return winInvalidf("window function %s takes %d to %d arguments, got %d", name, lo, hi, len(args))
		}
		return nil
	}
	intArg := func(i int, what string) error {
		if i < len(args) && !isIntType(args[i]) && args[i].ID() != arrow.NULL {
			return winInvalidf("%s of window function %s must be an integer, got %s", what, name, args[i])
		}
		return nil
	}
	switch name {
	case "ROW_NUMBER", "RANK", "DENSE_RANK", "COUNT_STAR":
		return arrow.PrimitiveTypes.Int64, nargs(0, 0)
	case "PERCENT_RANK", "CUME_DIST":
		return arrow.PrimitiveTypes.Float64, nargs(0, 0)
	case "NTILE":
		if err := nargs(1, 1); err != nil {
			return nil, err
		}
		return arrow.PrimitiveTypes.Int64, intArg(0, "the bucket count")
	case "COUNT":
		return arrow.PrimitiveTypes.Int64, nargs(1, 1)
	case "LAG", "LEAD":
		if err := nargs(1, 3); err != nil {
			return nil, err
		}
		if err := intArg(1, "the offset"); err != nil {
			return nil, err
		}
		if len(args) == 3 && args[2].ID() != arrow.NULL && !arrow.TypeEqual(args[2], args[0]) {
			return nil, winInvalidf("the default of %s must have the argument's type %s, got %s", name, args[0], args[2])
		}
		return args[0], nil
	case "FIRST_VALUE", "LAST_VALUE":
		if err := nargs(1, 1); err != nil {
			return nil, err
		}
		return args[0], nil
	case "NTH_VALUE":
		if err := nargs(2, 2); err != nil {
			return nil, err
		}
		return args[0], intArg(1, "the position")
	case "MIN", "MAX":
		if err := nargs(1, 1); err != nil {
			return nil, err
		}
		if !Orderable(args[0]) {
			return nil, winInvalidf("%s over values of type %s", name, args[0])
		}
		return args[0], nil
	case "SUM", "AVG":
		if err := nargs(1, 1); err != nil {
			return nil, err
		}
		t := args[0]
		switch {
		case name == "AVG" && (isIntType(t) || isDecimalType(t) || isFloatType(t)):
			return arrow.PrimitiveTypes.Float64, nil
		case isIntType(t):
			return &arrow.Decimal128Type{Precision: 38, Scale: 0}, nil
		case isDecimalType(t):
			return &arrow.Decimal128Type{Precision: 38, Scale: t.(arrow.DecimalType).GetScale()}, nil
		case isFloatType(t):
			return arrow.PrimitiveTypes.Float64, nil
		}
		return nil, winInvalidf("%s over values of type %s", name, t)
	}
	if t, _, err := AggResultType(name, args); err == nil {
		return t, nil
	} else if !strings.Contains(err.Error(), "unknown aggregate") {
		return nil, err
	}
	return nil, winInvalidf("unknown window function %s", fn)
}

var windowOnlyFuncs = map[string]bool{"ROW_NUMBER": true, "RANK": true, "DENSE_RANK": true, "PERCENT_RANK": true,
	"CUME_DIST": true, "NTILE": true, "LAG": true, "LEAD": true, "FIRST_VALUE": true, "LAST_VALUE": true, "NTH_VALUE": true}

func checkWindowArgs(f WindowFunc) error {
	for i, a := range f.Args {
		if a == nil {
			return winInvalidf("argument %d of window function %s is missing", i+1, f.Func)
		}
	}
	return nil
}

// intGetter reads integer arguments (offsets, counts): value, valid.
func intGetter(a arrow.Array) func(int) (int64, bool) {
	get := func(i int) int64 { return 0 }
	switch c := a.(type) {
	case *array.Int8:
		get = func(i int) int64 { return int64(c.Value(i)) }
	case *array.Int16:
		get = func(i int) int64 { return int64(c.Value(i)) }
	case *array.Int32:
		get = func(i int) int64 { return int64(c.Value(i)) }
	case *array.Int64:
		get = c.Value
	case *array.Uint8:
		get = func(i int) int64 { return int64(c.Value(i)) }
	case *array.Uint16:
		get = func(i int) int64 { return int64(c.Value(i)) }
	case *array.Uint32:
		get = func(i int) int64 { return int64(c.Value(i)) }
	case *array.Uint64:
		get = func(i int) int64 { return int64(min(c.Value(i), math.MaxInt64)) }
	case *array.Null:
		return func(int) (int64, bool) { return 0, false }
	}
	return func(i int) (int64, bool) {
		if a.IsNull(i) {
			return 0, false
		}
		return get(i), true
	}
}

// exactGetter reads integers and decimals as 256-bit integers (unscaled).
func exactGetter(a arrow.Array) func(int) decimal256.Num {
	switch c := a.(type) {
	case *array.Int8:
		return func(i int) decimal256.Num { return decimal256.FromI64(int64(c.Value(i))) }
	case *array.Int16:
		return func(i int) decimal256.Num { return decimal256.FromI64(int64(c.Value(i))) }
	case *array.Int32:
		return func(i int) decimal256.Num { return decimal256.FromI64(int64(c.Value(i))) }
	case *array.Int64:
		return func(i int) decimal256.Num { return decimal256.FromI64(c.Value(i)) }
	case *array.Uint8:
		return func(i int) decimal256.Num { return decimal256.FromU64(uint64(c.Value(i))) }
	case *array.Uint16:
		return func(i int) decimal256.Num { return decimal256.FromU64(uint64(c.Value(i))) }
	case *array.Uint32:
		return func(i int) decimal256.Num { return decimal256.FromU64(uint64(c.Value(i))) }
	case *array.Uint64:
		return func(i int) decimal256.Num { return decimal256.FromU64(c.Value(i)) }
	case *array.Decimal32:
		return func(i int) decimal256.Num { return decimal256.FromI64(int64(c.Value(i))) }
	case *array.Decimal64:
		return func(i int) decimal256.Num { return decimal256.FromI64(int64(c.Value(i))) }
	case *array.Decimal128:
		return func(i int) decimal256.Num { return decimal256.FromDecimal128(c.Value(i)) }
	}
	return func(int) decimal256.Num { return decimal256.Num{} }
}

func floatGetter(a arrow.Array) func(int) float64 {
	switch c := a.(type) {
	case *array.Float16:
		return func(i int) float64 { return float64(c.Value(i).Float32()) }
	case *array.Float32:
		return func(i int) float64 { return float64(c.Value(i)) }
	case *array.Float64:
		return c.Value
	}
	return func(int) float64 { return 0 }
}

func buildInt64(mem memory.Allocator, vals []int64, valid []bool) arrow.Array {
	b := array.NewInt64Builder(mem)
	defer b.Release()
	b.AppendValues(vals, valid)
	return b.NewArray()
}

func buildFloat64(mem memory.Allocator, vals []float64, valid []bool) arrow.Array {
	b := array.NewFloat64Builder(mem)
	defer b.Release()
	b.AppendValues(vals, valid)
	return b.NewArray()
}

var defaultFrame = &Frame{Start: FrameBound{Kind: UnboundedPreceding}, End: FrameBound{Kind: CurrentRow}}

// evalWindowFunc computes f for every sorted row; args are in sorted order.
// rk answers the RANGE offsets of f's frame (nil without).
func evalWindowFunc(tc *TaskCtx, wd *winData, f WindowFunc, args []arrow.Array, rk rangeKey) (arrow.Array, error) {
	mem, n := tc.Mem, wd.n
	name := strings.ToUpper(f.Func)
	fr := f.Frame
	if fr == nil {
		fr = defaultFrame
	}
	var fm *frameSet
	switch name {
	case "ROW_NUMBER", "RANK", "DENSE_RANK", "NTILE", "PERCENT_RANK", "CUME_DIST", "LAG", "LEAD":
	default:
		fm = wd.frames(fr, rk)
	}
	parts := func(fn func(ps, pe int) error) error {
		for k := 0; k+1 < len(wd.parts); k++ {
			if k%64 == 0 {
				if err := tc.Err(); err != nil {
					return err
				}
			}
			if err := fn(int(wd.parts[k]), int(wd.parts[k+1])); err != nil {
				return err
			}
		}
		return nil
	}
	if f.Distinct && name != "MIN" && name != "MAX" {
		if _, isWin := windowOnlyFuncs[name]; isWin {
			return nil, winInvalidf("DISTINCT is only allowed in aggregate window functions, not %s", name)
		}
		return evalGenericAgg(tc, wd, f, fm, args, parts)
	}
	switch name {
	case "ROW_NUMBER", "RANK", "DENSE_RANK", "NTILE":
		vals := make([]int64, n)
		var valid []bool
		var ntile func(int) (int64, bool)
		if name == "NTILE" {
			valid = make([]bool, n)
			ntile = intGetter(args[0])
		}
		err := parts(func(ps, pe int) error {
			dense := int64(0)
			var buckets int64
			if ntile != nil {
				b, ok := ntile(ps)
				if !ok {
					return nil
				}
				if b <= 0 {
					return winInvalidf("argument of NTILE must be greater than zero, got %d", b)
				}
				buckets = b
			}
			cnt := int64(pe - ps)
			for i := ps; i < pe; i++ {
				switch name {
				case "ROW_NUMBER":
					vals[i] = int64(i - ps + 1)
				case "RANK":
					vals[i] = int64(int(wd.peerStart[i]) - ps + 1)
				case "DENSE_RANK":
					if int(wd.peerStart[i]) == i {
						dense++
					}
					vals[i] = dense
				case "NTILE":
					valid[i] = true
					j := int64(i - ps)
					q, r := cnt/buckets, cnt%buckets
					if j < r*(q+1) {
						vals[i] = j/(q+1) + 1
					} else {
						vals[i] = r + (j-r*(q+1))/q + 1
					}
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		return buildInt64(mem, vals, valid), nil
	case "PERCENT_RANK", "CUME_DIST":
		vals := make([]float64, n)
		err := parts(func(ps, pe int) error {
			cnt := pe - ps
			for i := ps; i < pe; i++ {
				if name == "CUME_DIST" {
					vals[i] = float64(int(wd.peerEnd[i])-ps) / float64(cnt)
				} else if cnt > 1 {
					vals[i] = float64(int(wd.peerStart[i])-ps) / float64(cnt-1)
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		return buildFloat64(mem, vals, nil), nil
	case "LAG", "LEAD":
		return evalLagLead(tc, wd, name, args, parts)
	case "FIRST_VALUE", "LAST_VALUE", "NTH_VALUE":
		locs := make([]rowLoc, n)
		var nth func(int) (int64, bool)
		if name == "NTH_VALUE" {
			nth = intGetter(args[1])
		}
		var rs [][2]int
		err := parts(func(ps, pe int) error {
			for i := ps; i < pe; i++ {
				rs = fm.ranges(i, rs)
				j := -1
				switch name {
				case "FIRST_VALUE":
					if len(rs) > 0 {
						j = rs[0][0]
					}
				case "LAST_VALUE":
					if len(rs) > 0 {
						j = rs[len(rs)-1][1] - 1
					}
				case "NTH_VALUE":
					k, ok := nth(i)
					if ok && k <= 0 {
						return winInvalidf("argument of NTH_VALUE must be greater than zero, got %d", k)
					}
					for _, r := range rs {
						if !ok {
							break
						}
						if k <= int64(r[1]-r[0]) {
							j = r[0] + int(k) - 1
							break
						}
						k -= int64(r[1] - r[0])
					}
				}
				locs[i] = rowLoc{-1, 0}
				if j >= 0 {
					locs[i] = rowLoc{0, int32(j)}
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		return gatherColumn(tc.Ctx, mem, args[0].DataType(), args[:1], locs)
	case "COUNT", "COUNT_STAR", "SUM", "AVG":
		return evalAggregate(tc, wd, name, fm, args, parts)
	case "MIN", "MAX":
		return evalMinMax(tc, wd, name == "MIN", fm, args[0], parts)
	}
	if _, _, err := AggResultType(name, argTypesOf(args)); err == nil {
		return evalGenericAgg(tc, wd, f, fm, args, parts)
	}
	return nil, winInvalidf("unknown window function %s", f.Func)
}

func evalLagLead(tc *TaskCtx, wd *winData, name string, args []arrow.Array, parts func(func(ps, pe int) error) error) (arrow.Array, error) {
	n := wd.n
	offset := func(int) (int64, bool) { return 1, true }
	if len(args) > 1 {
		offset = intGetter(args[1])
	}
	chunks := args[:1]
	if len(args) > 2 && args[2].DataType().ID() != arrow.NULL {
		chunks = []arrow.Array{args[0], args[2]}
	}
	locs := make([]rowLoc, n)
	_ = parts(func(ps, pe int) error {
		for i := ps; i < pe; i++ {
			locs[i] = rowLoc{-1, 0}
			off, ok := offset(i)
			if !ok {
				continue
			}
			if name == "LEAD" {
				off = -off
			}
			// target row i - off, without overflow
			if off <= int64(i-ps) && off > int64(i-pe) {
				locs[i] = rowLoc{0, int32(i - int(off))}
			} else if len(chunks) == 2 {
				locs[i] = rowLoc{1, int32(i)}
			}
		}
		return nil
	})
	if err := tc.Err(); err != nil {
		return nil, err
	}
	return gatherColumn(tc.Ctx, tc.Mem, args[0].DataType(), chunks, locs)
}

// frameKind: growing frames (fixed start) accumulate forward, frames with a
// fixed end accumulate backward, others (and frames with an exclusion)
// slide.
func frameKind(fr *Frame) int {
	switch {
	case fr.Exclude != ExcludeNoOthers:
		return 0
	case fr.Start.Kind == UnboundedPreceding:
		return 1
	case fr.End.Kind == UnboundedFollowing:
		return -1
	}
	return 0
}

func argTypesOf(args []arrow.Array) []arrow.DataType {
	ts := make([]arrow.DataType, len(args))
	for i, a := range args {
		ts[i] = a.DataType()
	}
	return ts
}

func evalAggregate(tc *TaskCtx, wd *winData, name string, fm *frameSet, args []arrow.Array, parts func(func(ps, pe int) error) error) (arrow.Array, error) {
	mem, n := tc.Mem, wd.n
	if name == "COUNT_STAR" || name == "COUNT" {
		vals := make([]int64, n)
		var x arrow.Array
		if name == "COUNT" {
			x = args[0]
		}
		cnt := make([]int64, 0, 1024)
		var rs [][2]int
		err := parts(func(ps, pe int) error {
			cnt = append(cnt[:0], 0)
			for j := ps; j < pe; j++ {
				c := cnt[len(cnt)-1]
				if x == nil || x.IsValid(j) {
					c++
				}
				cnt = append(cnt, c)
			}
			for i := ps; i < pe; i++ {
				rs = fm.ranges(i, rs)
				vals[i] = 0
				for _, r := range rs {
					vals[i] += cnt[r[1]-ps] - cnt[r[0]-ps]
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		return buildInt64(mem, vals, nil), nil
	}
	x := args[0]
	t := x.DataType()
	if isFloatType(t) {
		return evalFloatSum(tc, wd, name == "AVG", fm, x, parts)
	}
	// Exact sums: prefix sums of 256-bit integers (no overflow possible for
	// 38-digit inputs), then a range check of each frame's sum.
	get := exactGetter(x)
	var scale int32
	if dt, ok := t.(arrow.DecimalType); ok {
		scale = dt.GetScale()
	}
	valid := make([]bool, n)
	var sums []decimal128.Num
	var avgs []float64
	if name == "AVG" {
		avgs = make([]float64, n)
	} else {
		sums = make([]decimal128.Num, n)
	}
	pre := make([]decimal256.Num, 0, 1024)
	cnt := make([]int64, 0, 1024)
	var rs [][2]int
	err := parts(func(ps, pe int) error {
		pre = append(pre[:0], decimal256.Num{})
		cnt = append(cnt[:0], 0)
		for j := ps; j < pe; j++ {
			s, c := pre[len(pre)-1], cnt[len(cnt)-1]
			if x.IsValid(j) {
				s, c = s.Add(get(j)), c+1
			}
			pre, cnt = append(pre, s), append(cnt, c)
		}
		for i := ps; i < pe; i++ {
			rs = fm.ranges(i, rs)
			c := int64(0)
			var s decimal256.Num
			for _, r := range rs {
				c += cnt[r[1]-ps] - cnt[r[0]-ps]
				s = s.Add(pre[r[1]-ps].Sub(pre[r[0]-ps]))
			}
			if c == 0 {
				continue
			}
			valid[i] = true
			if avgs != nil {
				avgs[i] = s.ToFloat64(scale) / float64(c)
				continue
			}
			if !s.FitsInPrecision(38) {
				return winInvalidf("SUM overflow: the sum does not fit DECIMAL(38, %d)", scale)
			}
			w := s.Array()
			sums[i] = decimal128.New(int64(w[1]), w[0])
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if avgs != nil {
		return buildFloat64(mem, avgs, valid), nil
	}
	b := array.NewDecimal128Builder(mem, &arrow.Decimal128Type{Precision: 38, Scale: scale})
	defer b.Release()
	b.AppendValues(sums, valid)
	return b.NewArray(), nil
}

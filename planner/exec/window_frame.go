package exec

import (
	"fmt"
	"math"
	"sort"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal256"
	"github.com/apache/arrow-go/v18/arrow/scalar"

	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

// Frame exclusions (EXCLUDE ...).
const (
	ExcludeNoOthers = iota
	ExcludeCurrentRow
	ExcludeGroup
	ExcludeTies
)

var excludeNames = []string{"", " EXCLUDE CURRENT ROW", " EXCLUDE GROUP", " EXCLUDE TIES"}

// frameSet holds the frame [fs[i], fe[i]) of every sorted row for one
// window function, before its exclusion.
type frameSet struct {
	fs, fe []int32
	excl   int
	kind   int // frameKind of the definition
	wd     *winData
}

func (f *frameSet) at(i int) (int, int) { return int(f.fs[i]), int(f.fe[i]) }

// ranges returns row i's frame minus its exclusion as ascending disjoint
// non-empty [lo, hi) ranges (at most three), reusing buf.
func (f *frameSet) ranges(i int, buf [][2]int) [][2]int {
	buf = buf[:0]
	fs, fe := f.at(i)
	if fs >= fe {
		return buf
	}
	if f.excl == ExcludeNoOthers {
		return append(buf, [2]int{fs, fe})
	}
	xs, xe, keep := i, i+1, -1
	if f.excl != ExcludeCurrentRow {
		xs, xe = int(f.wd.peerStart[i]), int(f.wd.peerEnd[i])
		if f.excl == ExcludeTies {
			keep = i
		}
	}
	add := func(lo, hi int) {
		lo, hi = max(lo, fs), min(hi, fe)
		if lo < hi {
			buf = append(buf, [2]int{lo, hi})
		}
	}
	add(fs, xs)
	if keep >= 0 {
		add(keep, keep+1)
	}
	add(xe, fe)
	return buf
}

// hasOffset reports whether a bound has an offset.
func (b FrameBound) hasOffset() bool { return b.Kind == Preceding || b.Kind == Following }

// rangeOffsets reports whether fr is a RANGE frame with an offset bound.
func rangeOffsets(fr *Frame) bool {
	return fr != nil && !fr.Rows && !fr.Groups && (fr.Start.hasOffset() || fr.End.hasOffset())
}

// rangeKey answers the offset bounds of RANGE frames over the sorted
// ORDER BY key.
type rangeKey interface {
	// null: the key is NULL (rows outside every offset range of others).
	null(i int) bool
	// peerOnly: the row's offset bounds are its peer group (NULL, NaN).
	peerOnly(i int) bool
	// search returns the first row j of [a, b) whose key is at (or, with
	// strict, past), in the sort direction, row i's key moved by offset
	// `which` (0 start, 1 end) FOLLOWING (following) or PRECEDING.
	search(i, a, b int, following, strict bool, which int) int
}

type rkImpl[T any] struct {
	vals  []T
	nulls arrow.Array
	nan   func(i int) bool
	desc  bool
	cmp   func(a, b T) int
	// move returns v moved by offset which; sat is +1 (-1) when the result
	// is above (below) every value.
	move func(v T, which int, up bool) (T, int)
}

func (k *rkImpl[T]) null(i int) bool     { return k.nulls.IsNull(i) }
func (k *rkImpl[T]) peerOnly(i int) bool { return k.nulls.IsNull(i) || (k.nan != nil && k.nan(i)) }

func (k *rkImpl[T]) search(i, a, b int, following, strict bool, which int) int {
	t, sat := k.move(k.vals[i], which, following != k.desc)
	s := 1
	if k.desc {
		s = -1
	}
	if sat != 0 {
		if s*sat > 0 {
			return b
		}
		return a
	}
	return a + sort.Search(b-a, func(j int) bool {
		c := s * k.cmp(k.vals[a+j], t)
		if strict {
			return c > 0
		}
		return c >= 0
	})
}

func cmpInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// cmpFloat orders NaN above every number (as the sort does).
func cmpFloat(a, b float64) int {
	an, bn := a != a, b != b
	switch {
	case an || bn:
		switch {
		case an && bn:
			return 0
		case an:
			return 1
		}
		return -1
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// checkRangeOffsets validates the offsets of a RANGE frame against the
// ORDER BY key (exactly one, of a numeric or date/timestamp type).
func checkRangeOffsets(fr *Frame, order []SortKey) error {
	if !rangeOffsets(fr) {
		return nil
	}
	if len(order) != 1 {
		return winInvalidf("RANGE with an offset PRECEDING/FOLLOWING needs exactly one ORDER BY column, got %d", len(order))
	}
	t := order[0].Expr.Type()
	for _, b := range []FrameBound{fr.Start, fr.End} {
		if !b.hasOffset() {
			continue
		}
		if _, err := rangeOffsetOf(t, b.Value); err != nil {
			return err
		}
	}
	return nil
}

// rangeOffset is a converted RANGE offset: one of the fields is set.
type rangeOffset struct {
	i  int64
	f  float64
	d  decimal256.Num
	iv arrow.MonthDayNanoInterval
}

// rangeOffsetOf converts offset v to the representation of key type t;
// errors for offsets that do not fit (negative, NULL, fractional offsets of
// integer keys, intervals of numeric keys...).
func rangeOffsetOf(t arrow.DataType, v scalar.Scalar) (rangeOffset, error) {
	var ro rangeOffset
	if v == nil || !v.IsValid() {
		return ro, winInvalidf("RANGE frame offset must not be NULL")
	}
	vt := v.DataType()
	numeric := isIntType(vt) || isDecimalType(vt) || isFloatType(vt)
	switch {
	case isIntType(t) && t.ID() != arrow.UINT64, isDecimalType(t), isFloatType(t):
		if !numeric {
			return ro, winInvalidf("RANGE offset %s does not fit the %s ORDER BY key (a number is needed)", v, t)
		}
	case t.ID() == arrow.DATE32 || t.ID() == arrow.TIMESTAMP:
		iv, ok := v.(*scalar.MonthDayNanoInterval)
		if !ok {
			return ro, winUnsupportedf("RANGE offset %s over a %s ORDER BY key (an INTERVAL is needed)", v, t)
		}
		ro.iv = iv.Value
		if iv.Value.Months < 0 || iv.Value.Days < 0 || iv.Value.Nanoseconds < 0 {
			return ro, winInvalidf("RANGE frame offset must not be negative, got %s", v)
		}
		return ro, nil
	default:
		return ro, winUnsupportedf("RANGE frames with an offset over ORDER BY values of type %s", t)
	}
	// numeric offset as an exact decimal (value, scale) or float
	var d decimal256.Num
	var scale int32
	isF := false
	var f float64
	switch s := v.(type) {
	case *scalar.Float64:
		f, isF = s.Value, true
	case *scalar.Float32:
		f, isF = float64(s.Value), true
	case *scalar.Decimal128:
		d, scale = decimal256.FromDecimal128(s.Value), s.Type.(arrow.DecimalType).GetScale()
	case *scalar.Int8:
		d = decimal256.FromI64(int64(s.Value))
	case *scalar.Int16:
		d = decimal256.FromI64(int64(s.Value))
	case *scalar.Int32:
		d = decimal256.FromI64(int64(s.Value))
	case *scalar.Int64:
		d = decimal256.FromI64(s.Value)
	case *scalar.Uint8:
		d = decimal256.FromU64(uint64(s.Value))
	case *scalar.Uint16:
		d = decimal256.FromU64(uint64(s.Value))
	case *scalar.Uint32:
		d = decimal256.FromU64(uint64(s.Value))
	case *scalar.Uint64:
		d = decimal256.FromU64(s.Value)
	default:
		return ro, winUnsupportedf("RANGE offset %s of type %s", v, vt)
	}
	if isF {
		if !(f >= 0) || math.IsInf(f, 0) {
			return ro, winInvalidf("RANGE frame offset must be a finite non-negative number, got %v", f)
		}
	} else if d.Sign() < 0 {
		return ro, winInvalidf("RANGE frame offset must not be negative, got %s", v)
	}
	switch {
	case isFloatType(t):
		ro.f = f
		if !isF {
			ro.f = d.ToFloat64(scale)
		}
	case isIntType(t):
		if isF {
			if f != math.Trunc(f) || f > 1<<62 {
				return ro, winInvalidf("RANGE offset %v is not an integer for the %s ORDER BY key", f, t)
			}
			ro.i = int64(f)
			break
		}
		q, r := d.Div(decimal256.GetScaleMultiplier(int(scale)))
		if r.Sign() != 0 || !q.FitsInPrecision(18) {
			return ro, winInvalidf("RANGE offset %s is not an integer for the %s ORDER BY key", v, t)
		}
		ro.i = int64(q.LowBits())
	default: // decimal key of scale ks
		ks := t.(arrow.DecimalType).GetScale()
		if isF {
			x, err := decimal256.FromFloat64(f, 76, ks)
			if err != nil || x.ToFloat64(ks) != f {
				return ro, winInvalidf("RANGE offset %v does not fit the scale of the %s ORDER BY key", f, t)
			}
			ro.d = x
			break
		}
		if scale > ks {
			q, r := d.Div(decimal256.GetScaleMultiplier(int(scale - ks)))
			if r.Sign() != 0 {
				return ro, winInvalidf("RANGE offset %s has more decimals than the %s ORDER BY key", v, t)
			}
			d = q
		} else {
			d = d.IncreaseScaleBy(ks - scale)
		}
		if !d.FitsInPrecision(40) {
			return ro, winInvalidf("RANGE offset %s is too large", v)
		}
		ro.d = d
	}
	return ro, nil
}

// newRangeKey builds the rangeKey of the sorted key column x.
func newRangeKey(fr *Frame, x arrow.Array, desc bool) (rangeKey, error) {
	t := x.DataType()
	var offs [2]rangeOffset
	for k, b := range []FrameBound{fr.Start, fr.End} {
		if b.hasOffset() {
			o, err := rangeOffsetOf(t, b.Value)
			if err != nil {
				return nil, err
			}
			offs[k] = o
		}
	}
	n := x.Len()
	switch {
	case isFloatType(t):
		get := floatGetter(x)
		vals := make([]float64, n)
		for i := range vals {
			vals[i] = get(i)
		}
		return &rkImpl[float64]{vals: vals, nulls: x, desc: desc, cmp: cmpFloat,
			nan: func(i int) bool { return vals[i] != vals[i] },
			move: func(v float64, w int, up bool) (float64, int) {
				if up {
					return v + offs[w].f, 0
				}
				return v - offs[w].f, 0
			}}, nil
	case isIntType(t):
		get := intGetter(x)
		vals := make([]int64, n)
		for i := range vals {
			vals[i], _ = get(i)
		}
		return &rkImpl[int64]{vals: vals, nulls: x, desc: desc, cmp: cmpInt64,
			move: func(v int64, w int, up bool) (int64, int) {
				o := offs[w].i
				if up {
					if v > math.MaxInt64-o {
						return 0, 1
					}
					return v + o, 0
				}
				if v < math.MinInt64+o {
					return 0, -1
				}
				return v - o, 0
			}}, nil
	case isDecimalType(t):
		get := exactGetter(x)
		vals := make([]decimal256.Num, n)
		for i := range vals {
			vals[i] = get(i)
		}
		return &rkImpl[decimal256.Num]{vals: vals, nulls: x, desc: desc,
			cmp: func(a, b decimal256.Num) int { return a.Cmp(b) },
			move: func(v decimal256.Num, w int, up bool) (decimal256.Num, int) {
				if up {
					return v.Add(offs[w].d), 0
				}
				return v.Sub(offs[w].d), 0
			}}, nil
	case t.ID() == arrow.DATE32 || t.ID() == arrow.TIMESTAMP:
		vals := make([]int64, n)
		unit := arrow.Microsecond
		if c, ok := x.(*array.Date32); ok {
			for i := range vals {
				vals[i] = int64(c.Value(i)) * 86400_000_000
			}
		} else if c, ok := x.(*array.Timestamp); ok {
			unit = t.(*arrow.TimestampType).Unit
			for i := range vals {
				vals[i] = int64(c.Value(i))
			}
		} else {
			return nil, fmt.Errorf("exec: RANGE key of type %s is a %T", t, x)
		}
		return &rkImpl[int64]{vals: vals, nulls: x, desc: desc, cmp: cmpInt64,
			move: func(v int64, w int, up bool) (int64, int) {
				iv := offs[w].iv
				sat := 1
				if !up {
					iv, _ = vec.NegInterval(iv) // fields are non-negative: no overflow
					sat = -1
				}
				r, ok := vec.TimestampPlus(v, iv, unit)
				if !ok {
					return 0, sat
				}
				return r, 0
			}}, nil
	}
	return nil, winUnsupportedf("RANGE frames with an offset over ORDER BY values of type %s", t)
}

// frames computes the frame of every sorted row for fr (nil: the default
// frame); rk answers RANGE offsets (nil when fr has none).
func (wd *winData) frames(fr *Frame, rk rangeKey) *frameSet {
	n := wd.n
	fsArr, feArr := make([]int32, n), make([]int32, n)
	var gnum, gstart []int32 // GROUPS: peer group number of each row, group starts
	if fr.Groups {
		gnum = make([]int32, n)
		for i := 0; i < n; i++ {
			if int(wd.peerStart[i]) == i {
				gstart = append(gstart, int32(i))
			}
			gnum[i] = int32(len(gstart) - 1)
		}
		gstart = append(gstart, int32(n))
	}
	for k := 0; k+1 < len(wd.parts); k++ {
		ps, pe := int(wd.parts[k]), int(wd.parts[k+1])
		a, b := ps, pe // the non-NULL keys of the partition (RANGE offsets)
		if rk != nil {
			for a < pe && rk.null(a) {
				a++
			}
			for b > a && rk.null(b-1) {
				b--
			}
		}
		var g0, g1 int // the partition's groups [g0, g1)
		if gnum != nil && pe > ps {
			g0, g1 = int(gnum[ps]), int(gnum[pe-1])+1
		}
		for i := ps; i < pe; i++ {
			var fs, fe int
			for end, bd := range []FrameBound{fr.Start, fr.End} {
				var pos int
				switch {
				case bd.Kind == UnboundedPreceding:
					pos = ps
				case bd.Kind == UnboundedFollowing:
					pos = pe
				case fr.Rows:
					pos = rowsBound(bd, end == 1, i, ps, pe)
				case bd.Kind == CurrentRow || (rk != nil && rk.peerOnly(i)):
					pos = int(wd.peerStart[i])
					if end == 1 {
						pos = int(wd.peerEnd[i])
					}
				case fr.Groups:
					g := int(gnum[i])
					off := int(min(bd.Offset, int64(n)))
					if bd.Kind == Preceding {
						g -= off
					} else {
						g += off
					}
					if end == 1 {
						g++
					}
					pos = int(gstart[max(g0, min(g, g1))])
				default: // RANGE with an offset, non-NULL key
					pos = rk.search(i, a, b, bd.Kind == Following, end == 1, end)
				}
				if end == 0 {
					fs = pos
				} else {
					fe = pos
				}
			}
			if fe < fs {
				fe = fs
			}
			fsArr[i], feArr[i] = int32(fs), int32(fe)
		}
	}
	return &frameSet{fs: fsArr, fe: feArr, excl: fr.Exclude, kind: frameKind(fr), wd: wd}
}

// rowsBound is a ROWS bound with an offset (or CURRENT ROW) of row i.
func rowsBound(bd FrameBound, end bool, i, ps, pe int) int {
	var pos int64
	off := min(bd.Offset, 1<<40) // no overflow; beyond any partition
	switch bd.Kind {
	case Preceding:
		pos = int64(i) - off
	case Following:
		pos = int64(i) + off
	default:
		pos = int64(i)
	}
	if end {
		pos++
	}
	return int(max(int64(ps), min(pos, int64(pe))))
}

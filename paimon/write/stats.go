package write

import (
	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/paimon-flightsql/paimon-flightsql/paimon/arrowrow"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// colCollector accumulates min/max/null count of one column, as Paimon
// derives them from Parquet footer statistics (paimon-format.md §8).
type colCollector struct {
	typ      types.DataType
	nulls    int64
	has      bool
	noMinMax bool // BYTES, INT96 timestamps: null count only
	nested   bool // nested types: no statistics at all
	// typed running min/max
	imin, imax int64
	fmin, fmax float64
	smin, smax string
	dmin, dmax decimal128.Num
	bmin, bmax bool
	unit       arrow.TimeUnit
}

func newCollector(t types.DataType) *colCollector {
	c := &colCollector{typ: t}
	switch {
	case t.IsNested() || t.Root == types.Variant:
		c.nested = true
	case t.IsBinary():
		c.noMinMax = true
	case (t.Root == types.Timestamp || t.Root == types.TimestampLTZ) && t.Precision > 6:
		c.noMinMax = true
	}
	return c
}

func (c *colCollector) add(arr arrow.Array) {
	c.nulls += int64(arr.NullN())
	if c.nested || c.noMinMax || arr.NullN() == arr.Len() {
		return
	}
	n := arr.Len()
	valid := func(i int) bool { return arr.IsValid(i) }
	switch a := arr.(type) {
	case *array.Int8:
		for i := 0; i < n; i++ {
			if valid(i) {
				c.addInt(int64(a.Value(i)))
			}
		}
	case *array.Int16:
		for i := 0; i < n; i++ {
			if valid(i) {
				c.addInt(int64(a.Value(i)))
			}
		}
	case *array.Int32:
		for i := 0; i < n; i++ {
			if valid(i) {
				c.addInt(int64(a.Value(i)))
			}
		}
	case *array.Int64:
		for i := 0; i < n; i++ {
			if valid(i) {
				c.addInt(a.Value(i))
			}
		}
	case *array.Date32:
		for i := 0; i < n; i++ {
			if valid(i) {
				c.addInt(int64(a.Value(i)))
			}
		}
	case *array.Time32:
		for i := 0; i < n; i++ {
			if valid(i) {
				c.addInt(int64(a.Value(i)))
			}
		}
	case *array.Timestamp:
		c.unit = a.DataType().(*arrow.TimestampType).Unit
		for i := 0; i < n; i++ {
			if valid(i) {
				c.addInt(int64(a.Value(i)))
			}
		}
	case *array.Float32:
		for i := 0; i < n; i++ {
			if valid(i) {
				c.addFloat(float64(a.Value(i)))
			}
		}
	case *array.Float64:
		for i := 0; i < n; i++ {
			if valid(i) {
				c.addFloat(a.Value(i))
			}
		}
	case *array.String:
		for i := 0; i < n; i++ {
			if valid(i) {
				v := a.Value(i)
				if !c.has {
					c.smin, c.smax, c.has = string([]byte(v)), string([]byte(v)), true
				} else if v < c.smin {
					c.smin = string([]byte(v))
				} else if v > c.smax {
					c.smax = string([]byte(v))
				}
			}
		}
	case *array.Decimal128:
		for i := 0; i < n; i++ {
			if valid(i) {
				v := a.Value(i)
				if !c.has {
					c.dmin, c.dmax, c.has = v, v, true
				} else if v.Less(c.dmin) {
					c.dmin = v
				} else if c.dmax.Less(v) {
					c.dmax = v
				}
			}
		}
	case *array.Boolean:
		for i := 0; i < n; i++ {
			if valid(i) {
				v := a.Value(i)
				if !c.has {
					c.bmin, c.bmax, c.has = v, v, true
				} else {
					c.bmin = c.bmin && v
					c.bmax = c.bmax || v
				}
			}
		}
	default:
		c.noMinMax = true
	}
}

func (c *colCollector) addInt(v int64) {
	if !c.has {
		c.imin, c.imax, c.has = v, v, true
		return
	}
	if v < c.imin {
		c.imin = v
	}
	if v > c.imax {
		c.imax = v
	}
}

func (c *colCollector) addFloat(v float64) {
	if v != v { // NaN is ignored by Parquet statistics
		return
	}
	if !c.has {
		c.fmin, c.fmax, c.has = v, v, true
		return
	}
	if v < c.fmin {
		c.fmin = v
	}
	if v > c.fmax {
		c.fmax = v
	}
}

// colStats is one column's final statistics; none means "no statistics"
// (min, max and null count all unknown).
type colStats struct {
	min, max any
	nulls    *int64
	none     bool
}

func (c *colCollector) result(mode statsMode) colStats {
	if c.nested || mode.kind == statsNone {
		return colStats{none: true}
	}
	n := c.nulls
	st := colStats{nulls: &n}
	if mode.kind == statsCounts || c.noMinMax || !c.has {
		return st
	}
	switch c.typ.Root {
	case types.Boolean:
		st.min, st.max = c.bmin, c.bmax
	case types.TinyInt, types.SmallInt, types.Int, types.BigInt, types.Date, types.Time:
		st.min, st.max = c.imin, c.imax
	case types.Float, types.Double:
		st.min, st.max = c.fmin, c.fmax
	case types.Decimal:
		st.min = predicate.Decimal{Unscaled: c.dmin.BigInt(), Scale: c.typ.Scale}
		st.max = predicate.Decimal{Unscaled: c.dmax.BigInt(), Scale: c.typ.Scale}
	case types.Timestamp, types.TimestampLTZ:
		st.min, st.max = arrowrow.TimestampFromUnit(c.imin, c.unit), arrowrow.TimestampFromUnit(c.imax, c.unit)
	case types.Char, types.VarChar:
		st.min, st.max = c.smin, c.smax
		if mode.kind == statsTruncate {
			st.min = truncateCodePoints(c.smin, mode.truncate)
			mx, ok := truncateMax(c.smax, mode.truncate)
			if !ok {
				st.min, st.max = nil, nil
			} else {
				st.max = mx
			}
		}
	}
	return st
}

func truncateCodePoints(s string, n int) string {
	i := 0
	for pos := range s {
		if i == n {
			return s[:pos]
		}
		i++
	}
	return s
}

// truncateMax returns an upper bound of s with at most n code points: s
// itself when short enough, else the prefix with its last incrementable code
// point incremented (TruncateSimpleColStatsCollector).
func truncateMax(s string, n int) (string, bool) {
	t := truncateCodePoints(s, n)
	if len(t) == len(s) {
		return s, true
	}
	rs := []rune(t)
	for i := len(rs) - 1; i >= 0; i-- {
		next := rs[i] + 1
		if next >= 0xD800 && next <= 0xDFFF {
			next = 0xE000
		}
		if next <= utf8.MaxRune {
			rs[i] = next
			return string(rs[:i+1]), true
		}
	}
	return "", false
}

// encodeStats builds SimpleStats over the given columns. dense omits
// columns without statistics and reports the covered names (nil = all).
func encodeStats(names []string, typs []types.DataType, st []colStats, dense bool) (paimon.SimpleStats, []string, error) {
	var keepNames []string
	var keepTypes []types.DataType
	var mins, maxs []any
	counts := []*int64{}
	omitted := false
	for i := range st {
		if dense && st[i].none {
			omitted = true
			continue
		}
		keepNames = append(keepNames, names[i])
		keepTypes = append(keepTypes, typs[i].WithNullable(true))
		mins = append(mins, st[i].min)
		maxs = append(maxs, st[i].max)
		counts = append(counts, st[i].nulls)
	}
	minB, err := encodeSerialized(keepTypes, mins)
	if err != nil {
		return paimon.SimpleStats{}, nil, err
	}
	maxB, err := encodeSerialized(keepTypes, maxs)
	if err != nil {
		return paimon.SimpleStats{}, nil, err
	}
	var cols []string // nil = all columns
	if omitted {
		cols = keepNames
		if cols == nil {
			cols = []string{}
		}
	}
	return paimon.SimpleStats{MinValues: minB, MaxValues: maxB, NullCounts: counts}, cols, nil
}

// emptyStats is the SimpleStats of no columns.
func emptyStats() paimon.SimpleStats {
	return paimon.SimpleStats{MinValues: emptyRow, MaxValues: emptyRow, NullCounts: []*int64{}}
}

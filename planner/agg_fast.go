package planner

import (
	"encoding/binary"
	"math"
	"strings"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
)

// fastAgg is the vectorized form of the hash aggregation for the shape BI
// tools send most: GROUP BY plain columns (strings, integers, dates,
// booleans) computing COUNT(*), COUNT/SUM/AVG/MIN/MAX over plain integer,
// float or decimal columns, without DISTINCT. Group ids are found once per
// row from the raw column bytes (no boxing); each aggregate then runs a
// typed loop over its column. It produces exactly the accumulators of the
// row-at-a-time path (same summation order), so results are identical.
type fastAgg struct {
	keyCols []int
	aggs    []fastAcc
	index   map[string]int32
	keys    [][]any
	buf     []byte
	gids    []int32
}

type accKind uint8

const (
	accCountStar accKind = iota
	accInt
	accFloat
	accDecimal
)

// fastAcc holds one aggregate's state for every group, indexed by group id.
type fastAcc struct {
	fn   string
	col  int
	kind accKind
	n    []int64
	i    []int64 // int sum, or int min/max
	f    []float64
	d    []decimal128.Num
	has  []bool // min/max: a value was seen
}

// disableFastAgg forces the row-at-a-time path (tests compare the two);
// fastAggUsed counts aggregations that took the vectorized path.
var (
	disableFastAgg bool
	fastAggUsed    atomic.Int64
)

// newFastAgg returns the fast path for a, or nil when the shape does not fit.
func newFastAgg(a *aggOp) *fastAgg {
	if disableFastAgg {
		return nil
	}
	fa := &fastAgg{index: map[string]int32{}}
	for _, g := range a.groups {
		c, ok := g.(*colRef)
		if !ok {
			return nil
		}
		switch classOf(c.t) {
		case cString, cInt, cDate, cBool:
		default:
			return nil
		}
		switch c.t.ID() {
		case arrow.STRING, arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.DATE32, arrow.BOOL:
		default:
			return nil
		}
		fa.keyCols = append(fa.keyCols, c.idx)
	}
	for _, ag := range a.aggs {
		if ag.distinct {
			return nil
		}
		acc := fastAcc{fn: ag.fn, col: -1}
		if ag.arg == nil {
			if ag.fn != "count" {
				return nil
			}
			acc.kind = accCountStar
		} else {
			c, ok := ag.arg.(*colRef)
			if !ok {
				return nil
			}
			acc.col = c.idx
			switch c.t.ID() {
			case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64:
				acc.kind = accInt
			case arrow.FLOAT32, arrow.FLOAT64:
				acc.kind = accFloat
			case arrow.DECIMAL128:
				acc.kind = accDecimal
			case arrow.DATE32:
				if ag.fn != "min" && ag.fn != "max" && ag.fn != "count" {
					return nil
				}
				acc.kind = accInt // days, as the row path's getter reads them
			default:
				return nil
			}
		}
		switch ag.fn {
		case "count", "sum", "avg", "min", "max":
		default:
			return nil
		}
		fa.aggs = append(fa.aggs, acc)
	}
	fastAggUsed.Add(1)
	return fa
}

// consume folds one batch into the groups.
func (fa *fastAgg) consume(rec arrow.RecordBatch) error {
	n := int(rec.NumRows())
	if cap(fa.gids) < n {
		fa.gids = make([]int32, n)
	}
	gids := fa.gids[:n]
	if err := fa.groupIDs(rec, gids); err != nil {
		return err
	}
	ng := len(fa.keys)
	for k := range fa.aggs {
		acc := &fa.aggs[k]
		acc.grow(ng)
		if acc.kind == accCountStar {
			for _, g := range gids {
				acc.n[g]++
			}
			continue
		}
		acc.fold(rec.Column(acc.col), gids)
	}
	return nil
}

// groupIDs assigns each row its group, creating groups as they appear.
func (fa *fastAgg) groupIDs(rec arrow.RecordBatch, gids []int32) error {
	if len(fa.keyCols) == 0 {
		if len(fa.keys) == 0 {
			fa.keys = append(fa.keys, nil)
		}
		for i := range gids {
			gids[i] = 0
		}
		return nil
	}
	cols := make([]arrow.Array, len(fa.keyCols))
	for i, c := range fa.keyCols {
		cols[i] = rec.Column(c)
	}
	var getters []func(int) any
	newGroup := func(r int, b []byte) (int32, error) {
		if getters == nil {
			getters = make([]func(int) any, len(cols))
			for i, col := range cols {
				f, err := getter(col)
				if err != nil {
					return 0, err
				}
				getters[i] = f
			}
		}
		key := make([]any, len(cols))
		for i, f := range getters {
			key[i] = f(r)
		}
		g := int32(len(fa.keys))
		fa.keys = append(fa.keys, key)
		fa.index[string(b)] = g
		return g, nil
	}
	if str, ok := cols[0].(*array.String); ok && len(cols) == 1 {
		return fa.stringGroupIDs(str, gids, newGroup)
	}
	for r := range gids {
		b := fa.buf[:0]
		for _, col := range cols {
			if col.IsNull(r) {
				b = append(b, 0)
				continue
			}
			b = append(b, 1)
			switch x := col.(type) {
			case *array.String:
				s := x.Value(r)
				b = binary.AppendUvarint(b, uint64(len(s)))
				b = append(b, s...)
			case *array.Int64:
				b = binary.LittleEndian.AppendUint64(b, uint64(x.Value(r)))
			case *array.Int32:
				b = binary.LittleEndian.AppendUint32(b, uint32(x.Value(r)))
			case *array.Int16:
				b = binary.LittleEndian.AppendUint16(b, uint16(x.Value(r)))
			case *array.Int8:
				b = append(b, byte(x.Value(r)))
			case *array.Date32:
				b = binary.LittleEndian.AppendUint32(b, uint32(x.Value(r)))
			case *array.Boolean:
				if x.Value(r) {
					b = append(b, 1)
				} else {
					b = append(b, 0)
				}
			}
		}
		fa.buf = b
		g, ok := fa.index[string(b)]
		if !ok {
			var err error
			if g, err = newGroup(r, b); err != nil {
				return err
			}
		}
		gids[r] = g
	}
	return nil
}

// stringGroupIDs is groupIDs for one string key column: the few most
// recently added keys are compared directly before the hash map, which
// is what low-cardinality GROUP BY columns hit.
func (fa *fastAgg) stringGroupIDs(col *array.String, gids []int32, newGroup func(int, []byte) (int32, error)) error {
	type recent struct {
		s string
		g int32
	}
	var small [8]recent
	ns := 0
	nullG := int32(-1)
	for r := range gids {
		if col.IsNull(r) {
			if nullG < 0 {
				g, ok := fa.index["\x00"]
				if !ok {
					var err error
					if g, err = newGroup(r, []byte{0}); err != nil {
						return err
					}
				}
				nullG = g
			}
			gids[r] = nullG
			continue
		}
		v := col.Value(r)
		found := false
		for j := 0; j < ns; j++ {
			if small[j].s == v {
				gids[r], found = small[j].g, true
				break
			}
		}
		if found {
			continue
		}
		b := append(fa.buf[:0], 1)
		b = binary.AppendUvarint(b, uint64(len(v)))
		b = append(b, v...)
		fa.buf = b
		g, ok := fa.index[string(b)]
		if !ok {
			var err error
			if g, err = newGroup(r, b); err != nil {
				return err
			}
		}
		gids[r] = g
		if ns < len(small) {
			small[ns] = recent{strings.Clone(v), g}
			ns++
		}
	}
	return nil
}

func (acc *fastAcc) grow(ng int) {
	for len(acc.n) < ng {
		acc.n = append(acc.n, 0)
		acc.i = append(acc.i, 0)
		acc.f = append(acc.f, 0)
		acc.d = append(acc.d, decimal128.Num{})
		acc.has = append(acc.has, false)
	}
}

// fold runs the aggregate over one column.
func (acc *fastAcc) fold(col arrow.Array, gids []int32) {
	valid := func(r int) bool { return col.IsValid(r) }
	if col.NullN() == 0 {
		valid = func(int) bool { return true }
	}
	minMax := acc.fn == "min" || acc.fn == "max"
	isMin := acc.fn == "min"
	switch acc.kind {
	case accInt:
		get := intValues(col)
		for r, g := range gids {
			if !valid(r) {
				continue
			}
			v := get(r)
			acc.n[g]++
			switch {
			case !minMax:
				acc.i[g] += v
				acc.f[g] += float64(v)
			case !acc.has[g] || (isMin && v < acc.i[g]) || (!isMin && v > acc.i[g]):
				acc.i[g], acc.has[g] = v, true
			}
		}
	case accFloat:
		var get func(int) float64
		if f, ok := col.(*array.Float64); ok {
			vals := f.Float64Values()
			get = func(r int) float64 { return vals[r] }
		} else {
			vals := col.(*array.Float32).Float32Values()
			get = func(r int) float64 { return float64(vals[r]) }
		}
		for r, g := range gids {
			if !valid(r) {
				continue
			}
			v := get(r)
			acc.n[g]++
			switch {
			case !minMax:
				acc.f[g] += v
			case !acc.has[g] || (isMin && floatLess(v, acc.f[g])) || (!isMin && floatLess(acc.f[g], v)):
				acc.f[g], acc.has[g] = v, true
			}
		}
	case accDecimal:
		vals := col.(*array.Decimal128).Values()
		for r, g := range gids {
			if !valid(r) {
				continue
			}
			v := vals[r]
			acc.n[g]++
			switch {
			case !minMax:
				acc.d[g] = acc.d[g].Add(v) // SUM and AVG of decimals use the exact sum only
			case !acc.has[g] || (isMin && v.Less(acc.d[g])) || (!isMin && acc.d[g].Less(v)):
				acc.d[g], acc.has[g] = v, true
			}
		}
	}
}

// floatLess orders floats with NaN greater than everything, as the
// row-at-a-time comparison does.
func floatLess(a, b float64) bool {
	switch {
	case math.IsNaN(a):
		return false
	case math.IsNaN(b):
		return true
	}
	return a < b
}

func intValues(col arrow.Array) func(int) int64 {
	switch x := col.(type) {
	case *array.Int64:
		v := x.Int64Values()
		return func(r int) int64 { return v[r] }
	case *array.Int32:
		v := x.Int32Values()
		return func(r int) int64 { return int64(v[r]) }
	case *array.Int16:
		v := x.Int16Values()
		return func(r int) int64 { return int64(v[r]) }
	case *array.Date32:
		v := x.Date32Values()
		return func(r int) int64 { return int64(v[r]) }
	default:
		v := col.(*array.Int8).Int8Values()
		return func(r int) int64 { return int64(v[r]) }
	}
}

// groups converts the state into the row-at-a-time path's groups, so build
// and result formatting are shared.
func (fa *fastAgg) groups(a *aggOp) []*group {
	out := make([]*group, len(fa.keys))
	for g := range fa.keys {
		grp := &group{keys: fa.keys[g], accs: make([]accumulator, len(fa.aggs))}
		for k := range fa.aggs {
			acc := &fa.aggs[k]
			acc.grow(len(fa.keys))
			st := accumulator{n: acc.n[g]}
			scale := 0
			if t, ok := a.aggs[k].argType().(*arrow.Decimal128Type); ok {
				scale = int(t.Scale)
			}
			switch acc.fn {
			case "min", "max":
				if acc.has[g] {
					st.valid = true
					switch acc.kind {
					case accInt:
						st.best = acc.i[g]
					case accFloat:
						st.best = acc.f[g]
					case accDecimal:
						st.best = decimalValue(acc.d[g], scale)
					}
				}
			default:
				st.isum, st.fsum = acc.i[g], acc.f[g]
				if acc.kind == accDecimal {
					st.dsum = acc.d[g].BigInt()
				}
			}
			grp.accs[k] = st
		}
		out[g] = grp
	}
	return out
}

func decimalValue(n decimal128.Num, scale int) any {
	return predicate.Decimal{Unscaled: n.BigInt(), Scale: scale}
}

// argType is the type of the aggregate's argument (nil for COUNT(*)).
func (ag *aggCall) argType() arrow.DataType {
	if ag.arg == nil {
		return nil
	}
	return ag.arg.dataType()
}

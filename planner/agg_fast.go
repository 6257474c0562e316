package planner

import (
	"fmt"
	"math"
	"math/big"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
)

// fastAgg is the vectorized form of the hash aggregation for the shape BI
// tools send most: GROUP BY plain columns (strings, integers, dates,
// booleans) computing COUNT(*), COUNT/SUM/AVG/MIN/MAX over plain integer,
// float or decimal columns, without DISTINCT. Group ids are found once per
// batch by a keyer specialised for the key shape (agg_keys.go); each
// aggregate then runs a typed loop over its column (agg_loops.go). It
// produces exactly the accumulators of the row-at-a-time path (same float
// summation order, exact integer and decimal sums), so results are
// identical. Several fastAggs can aggregate disjoint batches in parallel and
// be merged (agg_parallel.go). Group keys are copied out of the batches, so
// the scan feeding it may recycle its buffers (agg_alloc.go).
type fastAgg struct {
	keyCols []int
	keyText string // the GROUP BY columns, for errors
	keyer   keyer
	aggs    []fastAcc
	// keys holds each group's key values; firstSeq/firstRow where it was
	// first seen (batch sequence number, row), which orders merged groups.
	keys     [][]any
	firstSeq []int64
	firstRow []int32
	gids     []int32
	seq      int64 // sequence number of the batch being consumed
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
	text  string // the aggregate as written, for errors
	fn    string
	col   int
	kind  accKind
	isMin bool
	n     []int64
	// i: int sum, int min/max, or the int64 part of a decimal sum (the
	// decimal sum is d+i; i is flushed into d before it would overflow).
	i []int64
	// MIN/MAX start from a sentinel that every value replaces or equals
	// (see grow); a group has a result when n > 0.
	f   []float64
	d   []decimal128.Num
	big map[int]*big.Int // decimal sums beyond 128 bits (see addDecimal128)
}

// disableFastAgg forces the row-at-a-time path (tests compare the two);
// fastAggUsed counts aggregations that took the vectorized path.
var (
	disableFastAgg bool
	fastAggUsed    atomic.Int64
)

// newFastAgg returns the fast path for a, or nil when the shape does not fit.
func newFastAgg(a *aggOp) *fastAgg {
	fa := planFastAgg(a.groups, a.aggs)
	if fa != nil {
		fastAggUsed.Add(1)
	}
	return fa
}

// fastAggFits reports whether an aggregation of this shape takes the
// vectorized path (so its scan may use a recycler, see agg_alloc.go).
func fastAggFits(groups []expr, aggs []*aggCall) bool {
	return planFastAgg(groups, aggs) != nil
}

func planFastAgg(groups []expr, aggs []*aggCall) *fastAgg {
	if disableFastAgg {
		return nil
	}
	fa := &fastAgg{}
	var keyTypes []arrow.DataType
	for _, g := range groups {
		c, ok := g.(*colRef)
		if !ok {
			return nil
		}
		switch c.t.ID() {
		case arrow.STRING, arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.DATE32, arrow.BOOL:
		default:
			return nil
		}
		fa.keyCols = append(fa.keyCols, c.idx)
		keyTypes = append(keyTypes, c.t)
		if fa.keyText != "" {
			fa.keyText += ", "
		}
		fa.keyText += c.name
	}
	for _, ag := range aggs {
		if ag.distinct {
			return nil
		}
		acc := fastAcc{text: ag.text, fn: ag.fn, col: -1, isMin: ag.fn == "min"}
		switch ag.fn {
		case "count", "sum", "avg", "min", "max":
		default:
			return nil
		}
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
		fa.aggs = append(fa.aggs, acc)
	}
	fa.keyer = newKeyer(keyTypes)
	return fa
}

// fresh returns an empty aggregation of the same shape (a parallel worker's
// private state).
func (fa *fastAgg) fresh() *fastAgg {
	out := &fastAgg{keyCols: fa.keyCols, keyText: fa.keyText, keyer: fa.keyer.fresh(), aggs: make([]fastAcc, len(fa.aggs))}
	for k, acc := range fa.aggs {
		out.aggs[k] = fastAcc{text: acc.text, fn: acc.fn, col: acc.col, kind: acc.kind, isMin: acc.isMin}
	}
	return out
}

// consume folds one batch into the groups.
func (fa *fastAgg) consume(rec arrow.RecordBatch) error {
	n := int(rec.NumRows())
	if cap(fa.gids) < n {
		fa.gids = make([]int32, n)
	}
	gids := fa.gids[:n]
	if n == 0 {
		return nil
	}
	cols := make([]arrow.Array, len(fa.keyCols))
	for i, c := range fa.keyCols {
		cols[i] = rec.Column(c)
	}
	if err := fa.keyer.assign(cols, gids, fa.newGroup); err != nil {
		return fmt.Errorf("GROUP BY %s: %w", fa.keyText, err)
	}
	ng := len(fa.keys)
	for k := range fa.aggs {
		acc := &fa.aggs[k]
		acc.grow(ng)
		if acc.kind == accCountStar {
			cnt := acc.n[:ng]
			for _, g := range gids {
				cnt[g]++
			}
			continue
		}
		if err := acc.fold(rec.Column(acc.col), gids); err != nil {
			return fmt.Errorf("%s: %w", acc.text, err)
		}
	}
	return nil
}

// newGroup creates the group of row r of the key columns.
func (fa *fastAgg) newGroup(cols []arrow.Array, r int) (int32, error) {
	key := make([]any, len(cols))
	for i, col := range cols {
		f, err := getter(col)
		if err != nil {
			return 0, err
		}
		key[i] = f(r) // getter copies strings out of the batch
	}
	g := int32(len(fa.keys))
	fa.keys = append(fa.keys, key)
	fa.firstSeq = append(fa.firstSeq, fa.seq)
	fa.firstRow = append(fa.firstRow, int32(r))
	return g, nil
}

func (acc *fastAcc) grow(ng int) {
	if len(acc.n) >= ng {
		return
	}
	from := len(acc.n)
	add := ng - from
	acc.n = append(acc.n, make([]int64, add)...)
	switch acc.kind {
	case accInt:
		acc.i = append(acc.i, make([]int64, add)...)
	case accFloat:
		acc.f = append(acc.f, make([]float64, add)...)
	case accDecimal:
		acc.i = append(acc.i, make([]int64, add)...)
		acc.d = append(acc.d, make([]decimal128.Num, add)...)
	}
	// Sentinels: the greatest value for MIN (NaN for floats, which the
	// float order puts last), the least for MAX. A sentinel equal to a real
	// value is that value, so results do not depend on it.
	lo, hi := acc.fn == "max", acc.fn == "min"
	if !lo && !hi {
		return
	}
	switch acc.kind {
	case accInt:
		fill(acc.i[from:], pick(hi, int64(math.MaxInt64), math.MinInt64))
	case accFloat:
		fill(acc.f[from:], pick(hi, math.NaN(), math.Inf(-1)))
	case accDecimal:
		fill(acc.d[from:], pick(hi, decimal128.New(math.MaxInt64, math.MaxUint64), decimal128.New(math.MinInt64, 0)))
	}
}

func pick[T any](c bool, a, b T) T {
	if c {
		return a
	}
	return b
}

func fill[T any](s []T, v T) {
	for i := range s {
		s[i] = v
	}
}

// decimalSum is group g's exact decimal sum.
func (acc *fastAcc) decimalSum(g int) *big.Int {
	sum := acc.d[g].BigInt()
	sum.Add(sum, big.NewInt(acc.i[g]))
	if b := acc.big[g]; b != nil {
		sum.Add(sum, b)
	}
	return sum
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
				if acc.n[g] > 0 {
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
				switch acc.kind {
				case accInt:
					st.isum = acc.i[g]
				case accFloat:
					st.fsum = acc.f[g]
				case accDecimal:
					st.dsum = acc.decimalSum(g)
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

package planner

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
)

// keyBuf encodes tuples of runtime values into map keys (type-tagged, so
// distinct values never collide).
type keyBuf struct{ b []byte }

func (k *keyBuf) reset() { k.b = k.b[:0] }

func (k *keyBuf) add(v any) {
	switch x := v.(type) {
	case nil:
		k.b = append(k.b, 0)
	case bool:
		if x {
			k.b = append(k.b, 1)
		} else {
			k.b = append(k.b, 2)
		}
	case int64:
		k.b = append(k.b, 3)
		k.b = binary.LittleEndian.AppendUint64(k.b, uint64(x))
	case float64:
		if x == 0 {
			x = 0 // -0 == 0
		}
		if math.IsNaN(x) {
			x = math.NaN()
		}
		k.b = append(k.b, 4)
		k.b = binary.LittleEndian.AppendUint64(k.b, math.Float64bits(x))
	case string:
		k.b = append(k.b, 5)
		k.b = binary.AppendUvarint(k.b, uint64(len(x)))
		k.b = append(k.b, x...)
	case []byte:
		k.b = append(k.b, 6)
		k.b = binary.AppendUvarint(k.b, uint64(len(x)))
		k.b = append(k.b, x...)
	case predicate.Decimal:
		s := x.String()
		if strings.Contains(s, ".") {
			s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
		}
		k.b = append(k.b, 7)
		k.b = binary.AppendUvarint(k.b, uint64(len(s)))
		k.b = append(k.b, s...)
	default:
		s := fmt.Sprint(x)
		k.b = append(k.b, 8)
		k.b = binary.AppendUvarint(k.b, uint64(len(s)))
		k.b = append(k.b, s...)
	}
}

func (k *keyBuf) String() string { return string(k.b) }

// accumulator is the running state of one aggregate in one group.
type accumulator struct {
	n     int64
	isum  int64
	fsum  float64
	dsum  *big.Int
	best  any
	seen  map[string]struct{}
	valid bool
}

// group is one GROUP BY group: its key values and accumulators.
type group struct {
	keys []any
	accs []accumulator
}

// aggOp is a hash aggregation: it consumes its whole input, then emits one
// row per group (one row in total when there is no GROUP BY).
type aggOp struct {
	in     op
	groups []expr
	aggs   []*aggCall
	schema *arrow.Schema
	env    *execEnv
	done   bool
}

func (a *aggOp) next(ctx context.Context) (arrow.RecordBatch, error) {
	if a.done {
		return nil, nil
	}
	a.done = true
	index := map[string]int{}
	var groups []*group
	var kb, vb keyBuf
	if fast := newFastAgg(a); fast != nil {
		var err error
		if groups, err = a.runFast(ctx, fast); err != nil {
			return nil, err
		}
	} else {
		for {
			rec, err := a.in.next(ctx)
			if err != nil {
				return nil, err
			}
			if rec == nil {
				break
			}
			err = a.consume(rec, index, &groups, &kb, &vb)
			rec.Release()
			if err != nil {
				return nil, err
			}
		}
	}
	if len(a.groups) == 0 && len(groups) == 0 {
		groups = append(groups, &group{accs: make([]accumulator, len(a.aggs))})
	}
	return a.build(groups)
}

func (a *aggOp) consume(rec arrow.RecordBatch, index map[string]int, groups *[]*group, kb, vb *keyBuf) error {
	ev := &evalEnv{rec: rec, params: a.env.params}
	gf := make([]rowFn, len(a.groups))
	for i, g := range a.groups {
		f, err := g.compile(ev)
		if err != nil {
			return err
		}
		gf[i] = f
	}
	af := make([]rowFn, len(a.aggs))
	for i, ag := range a.aggs {
		if ag.arg == nil {
			continue
		}
		f, err := ag.arg.compile(ev)
		if err != nil {
			return err
		}
		af[i] = f
	}
	keys := make([]any, len(gf))
	for r := range int(rec.NumRows()) {
		kb.reset()
		for i, f := range gf {
			keys[i] = f(r)
			kb.add(keys[i])
		}
		gi, ok := index[kb.String()]
		if !ok {
			gi = len(*groups)
			index[kb.String()] = gi
			*groups = append(*groups, &group{keys: append([]any(nil), keys...), accs: make([]accumulator, len(a.aggs))})
		}
		g := (*groups)[gi]
		for i, ag := range a.aggs {
			acc := &g.accs[i]
			if ag.arg == nil {
				acc.n++
				continue
			}
			v := af[i](r)
			if v == nil {
				continue
			}
			if ag.distinct {
				vb.reset()
				vb.add(v)
				if acc.seen == nil {
					acc.seen = map[string]struct{}{}
				}
				if _, dup := acc.seen[vb.String()]; dup {
					continue
				}
				acc.seen[vb.String()] = struct{}{}
			}
			acc.add(ag, v)
		}
	}
	return ev.err
}

func (acc *accumulator) add(ag *aggCall, v any) {
	acc.n++
	switch ag.fn {
	case "count":
	case "sum", "avg":
		switch x := v.(type) {
		case int64:
			acc.isum += x
			acc.fsum += float64(x)
		case float64:
			acc.fsum += x
		case predicate.Decimal:
			if acc.dsum == nil {
				acc.dsum = new(big.Int)
			}
			acc.dsum.Add(acc.dsum, x.Unscaled)
			acc.fsum += decToFloat(x)
		}
	case "min", "max":
		if !acc.valid {
			acc.best, acc.valid = v, true
			return
		}
		c, _ := compareValues(v, acc.best)
		if ag.fn == "min" && c < 0 || ag.fn == "max" && c > 0 {
			acc.best = v
		}
	}
}

func (acc *accumulator) result(ag *aggCall) any {
	switch ag.fn {
	case "count":
		return acc.n
	case "sum":
		if acc.n == 0 {
			return nil
		}
		switch classOf(ag.t) {
		case cInt:
			return acc.isum
		case cDecimal:
			return predicate.Decimal{Unscaled: acc.dsum, Scale: int(ag.t.(*arrow.Decimal128Type).Scale)}
		}
		return acc.fsum
	case "avg":
		if acc.n == 0 {
			return nil
		}
		if classOf(ag.arg.dataType()) == cDecimal {
			s := ag.arg.dataType().(*arrow.Decimal128Type).Scale
			r := new(big.Rat).SetFrac(acc.dsum, new(big.Int).Mul(pow10(int(s)), big.NewInt(acc.n)))
			f, _ := r.Float64()
			return f
		}
		if classOf(ag.arg.dataType()) == cInt {
			return float64(acc.isum) / float64(acc.n)
		}
		return acc.fsum / float64(acc.n)
	}
	if !acc.valid {
		return nil
	}
	return acc.best
}

func (a *aggOp) build(groups []*group) (arrow.RecordBatch, error) {
	bs := make([]array.Builder, a.schema.NumFields())
	for i, f := range a.schema.Fields() {
		bs[i] = array.NewBuilder(a.env.mem, f.Type)
	}
	defer func() {
		for _, b := range bs {
			b.Release()
		}
	}()
	ng := len(a.groups)
	for _, g := range groups {
		for i := range ng {
			if err := appendValue(bs[i], g.keys[i]); err != nil {
				return nil, err
			}
		}
		for i, ag := range a.aggs {
			if err := appendValue(bs[ng+i], g.accs[i].result(ag)); err != nil {
				return nil, fmt.Errorf("%s: %w", ag.text, err)
			}
		}
	}
	cols := make([]arrow.Array, len(bs))
	for i, b := range bs {
		cols[i] = b.NewArray()
	}
	rec := array.NewRecordBatch(a.schema, cols, int64(len(groups)))
	for _, c := range cols {
		c.Release()
	}
	return rec, nil
}

func (a *aggOp) close() {
	a.in.close()
}

// aggSchema is the schema of an aggregation's output: groups then aggregates.
func aggSchema(groups []expr, aggs []*aggCall) *arrow.Schema {
	fs := make([]arrow.Field, 0, len(groups)+len(aggs))
	for i, g := range groups {
		fs = append(fs, arrow.Field{Name: fmt.Sprintf("group%d", i), Type: g.dataType(), Nullable: true})
	}
	for i, a := range aggs {
		fs = append(fs, arrow.Field{Name: fmt.Sprintf("agg%d", i), Type: a.t, Nullable: true})
	}
	return arrow.NewSchema(fs, nil)
}

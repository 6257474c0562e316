package exec

import (
	"context"
	"fmt"
	"sort"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

// Ordered aggregates: agg(args ORDER BY keys). STRING_AGG concatenates in
// the key order; FIRST/LAST return the value of the first/last row in it
// (NULL values included, as DuckDB's first/last). Other aggregates do not
// depend on the order, so the binder drops their ORDER BY before it gets
// here (resolveOrdered refuses them).
//
// aggOrdered keeps every row it is given (group, sequence number, values,
// keys) in a KeyTable: the sequence number makes each row its own key, so
// nothing is merged, and the rows live in Go memory counted by bytes(). With
// DISTINCT there is no sequence number, so the table dedupes (group,
// values, keys); the binder only allows keys that are values, so that is
// deduping (group, values). finish sorts the rows by (group, keys, sequence
// or values) and feeds them to the result in that order. Ties among equal
// keys keep their arrival order within one partial state.

// resolveOrdered completes sp for a.OrderBy (sp.args/types hold the values).
func resolveOrdered(sp *aggSpec, a *AggExpr) error {
	switch sp.fn {
	case "STRING_AGG", "FIRST", "LAST", "LIST":
	default:
		return fmt.Errorf("exec: %s: ORDER BY inside %s is not supported", sp.name, sp.fn)
	}
	if sp.distinct {
		for _, k := range a.OrderBy {
			found := false
			for _, v := range sp.args {
				if k.Expr != nil && v.String() == k.Expr.String() {
					found = true
				}
			}
			if !found {
				return fmt.Errorf("exec: %s: with DISTINCT, every ORDER BY expression must be an argument", sp.name)
			}
		}
	}
	sp.nval = len(sp.args)
	sp.args = append([]vec.Expr(nil), sp.args...)
	sp.types = append([]arrow.DataType(nil), sp.types...)
	for i, k := range a.OrderBy {
		if k.Expr == nil || k.Expr.Type() == nil {
			return fmt.Errorf("exec: %s: ORDER BY key %d has no type", sp.name, i)
		}
		if !Orderable(k.Expr.Type()) {
			return fmt.Errorf("exec: %s: cannot order by %s", sp.name, k.Expr.Type())
		}
		sp.args = append(sp.args, k.Expr)
		sp.types = append(sp.types, k.Expr.Type())
		sp.orders = append(sp.orders, SortOrder{Desc: k.Desc, NullsFirst: k.NullsFirst})
	}
	sp.ordered = true
	return nil
}

type aggOrdered struct {
	sp  *aggSpec
	mem memory.Allocator
	kt  KeyTable
	n   int
	seq int64
	ids []int32
}

func newAggOrdered(mem memory.Allocator, sp *aggSpec) *aggOrdered {
	types := []arrow.DataType{arrow.PrimitiveTypes.Int32}
	if !sp.distinct {
		types = append(types, arrow.PrimitiveTypes.Int64)
	}
	types = append(types, sp.types...)
	return &aggOrdered{sp: sp, mem: mem, kt: NewKeyTable(types)}
}

func (a *aggOrdered) resize(n int) { a.n = max(a.n, n) }
func (a *aggOrdered) bytes() int64 { return a.kt.Bytes() + 4*int64(cap(a.ids)) }

// seqColumn numbers n rows from a.seq on.
func (a *aggOrdered) seqColumn(n int, from func(int) int64) arrow.Array {
	buf := ktBuffer(a.mem, 8*n)
	if n > 0 {
		out := arrow.Int64Traits.CastFromBytes(buf.Bytes())
		for i := range n {
			out[i] = from(i)
		}
	}
	return ktMakeArray(arrow.PrimitiveTypes.Int64, n, 0, nil, buf)
}

func (a *aggOrdered) insert(keys []arrow.Array) error {
	a.ids = ktResize(a.ids, keys[0].Len())
	return a.kt.Insert(keys, a.ids)
}

func (a *aggOrdered) update(args []arrow.Array, mask []byte, gids []int32) error {
	g := aggGidColumn(a.mem, len(gids), func(r int) int32 {
		if mask != nil && !bitutil.BitIsSet(mask, r) {
			return -1
		}
		return gids[r]
	})
	defer g.Release()
	keys := []arrow.Array{g}
	if !a.sp.distinct {
		base := a.seq
		s := a.seqColumn(len(gids), func(r int) int64 { return base + int64(r) })
		defer s.Release()
		a.seq += int64(len(gids))
		keys = append(keys, s)
	}
	return a.insert(append(keys, args...))
}

func (a *aggOrdered) merge(src aggAcc, gmap []int32) error {
	o := src.(*aggOrdered)
	keys, err := o.kt.Keys(a.mem)
	if err != nil {
		return err
	}
	defer func() { ktRelease(keys) }()
	if err := regroupKeys(a.mem, keys, gmap); err != nil {
		return err
	}
	if !a.sp.distinct {
		// src's rows come after ours, in their own order.
		seqs, err := aggValues[int64](keys[1])
		if err != nil {
			return err
		}
		base := a.seq
		s := a.seqColumn(len(seqs), func(i int) int64 { return base + seqs[i] })
		keys[1].Release()
		keys[1] = s
		a.seq += o.seq
	}
	return a.insert(keys)
}

func (a *aggOrdered) finish(mem memory.Allocator) (arrow.Array, error) {
	sp := a.sp
	keys, err := a.kt.Keys(mem)
	if err != nil {
		return nil, err
	}
	defer ktRelease(keys)
	gs, err := aggValues[int32](keys[0])
	if err != nil {
		return nil, err
	}
	vals := keys[1:]
	if !sp.distinct {
		vals = keys[2:]
	}
	// Sort by group, the keys, then the sequence number (or the values).
	cols := []arrow.Array{keys[0]}
	orders := []SortOrder{{}}
	for i, o := range sp.orders {
		cols = append(cols, vals[sp.nval+i])
		orders = append(orders, o)
	}
	if sp.distinct {
		for _, v := range vals[:sp.nval] {
			cols = append(cols, v)
			orders = append(orders, SortOrder{})
		}
	} else {
		cols = append(cols, keys[1])
		orders = append(orders, SortOrder{})
	}
	perm := make([]int32, 0, len(gs))
	for i, g := range gs {
		if g >= 0 && int(g) < a.n {
			perm = append(perm, int32(i))
		}
	}
	if len(perm) > 1 {
		cmp, err := NewRowComparator(cols, orders)
		if err != nil {
			return nil, err
		}
		sort.Slice(perm, func(i, j int) bool { return cmp(int(perm[i]), int(perm[j])) < 0 })
	}
	switch sp.fn {
	case "LIST":
		return aggListFinish(mem, sp.out, a.n, vals[0], gs, perm)
	case "QUANTILE_DISC":
		return quantDiscFinish(mem, sp.qf, a.n, vals[0], gs, perm)
	case "FIRST", "LAST":
		idx := make([]int32, a.n)
		valid := make([]bool, a.n)
		for _, r := range perm {
			g := gs[r]
			if !valid[g] || sp.fn == "LAST" {
				idx[g], valid[g] = r, true
			}
		}
		return takeInt32(context.Background(), mem, vals[0], idx, valid)
	case "STRING_AGG":
		inner := &aggStrAgg{dt: sp.out, sep: sp.sep}
		inner.resize(a.n)
		if len(perm) > 0 {
			v, err := takeInt32(context.Background(), mem, vals[0], perm, nil)
			if err != nil {
				return nil, err
			}
			defer v.Release()
			gids := make([]int32, len(perm))
			for i, r := range perm {
				gids[i] = gs[r]
			}
			if err := inner.update([]arrow.Array{v}, nil, gids); err != nil {
				return nil, err
			}
		}
		return inner.finish(mem)
	}
	return nil, fmt.Errorf("exec: ORDER BY inside %s", sp.fn)
}

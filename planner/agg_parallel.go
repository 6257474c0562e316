package planner

import (
	"context"
	"math/big"
	"runtime"
	"slices"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

// aggWorkers overrides the number of parallel aggregation workers when > 0
// (tests); otherwise GOMAXPROCS, at most maxAggWorkers.
var aggWorkers int

const maxAggWorkers = 8

// parallelSafe reports whether merging partial states gives exactly the
// sequential result: integer and decimal sums are exact (and associative,
// even with int64 wraparound), integer/decimal MIN/MAX and counts are
// order-free. Float SUM/AVG depend on the summation order and float
// MIN/MAX on which of -0 and 0 comes first, so aggregations with float
// arguments (other than COUNT) stay on one goroutine.
func (fa *fastAgg) parallelSafe() bool {
	for _, acc := range fa.aggs {
		if acc.kind == accFloat && acc.fn != "count" {
			return false
		}
	}
	return true
}

// runFast aggregates the whole input with the vectorized path, using
// several workers with private states when that is exact.
func (a *aggOp) runFast(ctx context.Context, fa *fastAgg) ([]*group, error) {
	workers := aggWorkers
	if workers <= 0 {
		workers = min(runtime.GOMAXPROCS(0), maxAggWorkers)
	}
	if workers <= 1 || !fa.parallelSafe() {
		for {
			rec, err := a.in.next(ctx)
			if err != nil {
				return nil, err
			}
			if rec == nil {
				return fa.groups(a), nil
			}
			err = fa.consume(rec)
			fa.seq++
			rec.Release()
			if err != nil {
				return nil, err
			}
		}
	}
	type item struct {
		rec arrow.RecordBatch
		seq int64
	}
	ch := make(chan item, workers)
	states := make([]*fastAgg, workers)
	errs := make([]error, workers)
	var failed sync.Once
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := range states {
		st := fa.fresh()
		states[w] = st
		wg.Add(1)
		go func() {
			defer wg.Done()
			for it := range ch {
				if errs[w] == nil {
					st.seq = it.seq
					if errs[w] = st.consume(it.rec); errs[w] != nil {
						failed.Do(func() { close(stop) })
					}
				}
				it.rec.Release()
			}
		}()
	}
	var inErr error
	for seq := int64(0); ; seq++ {
		rec, err := a.in.next(ctx)
		if err != nil || rec == nil {
			inErr = err
			break
		}
		select {
		case ch <- item{rec, seq}:
			continue
		case <-stop:
			rec.Release()
		}
		break
	}
	close(ch)
	wg.Wait()
	if inErr != nil {
		return nil, inErr
	}
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return mergeFast(fa, states).groups(a), nil
}

// mergeFast merges the workers' states into out (empty, same shape). Groups
// are numbered in order of first appearance in the input (batch sequence,
// row), as the sequential path numbers them.
func mergeFast(out *fastAgg, states []*fastAgg) *fastAgg {
	type ref struct {
		w   int
		g   int32
		seq int64
		row int32
	}
	var refs []ref
	for w, st := range states {
		for g := range st.keys {
			refs = append(refs, ref{w, int32(g), st.firstSeq[g], st.firstRow[g]})
		}
	}
	slices.SortFunc(refs, func(x, y ref) int {
		if x.seq != y.seq {
			if x.seq < y.seq {
				return -1
			}
			return 1
		}
		return int(x.row) - int(y.row)
	})
	index := map[string]int{}
	var kb keyBuf
	for _, r := range refs {
		st := states[r.w]
		kb.reset()
		for _, v := range st.keys[r.g] {
			kb.add(v)
		}
		g, ok := index[kb.String()]
		if !ok {
			g = len(out.keys)
			index[kb.String()] = g
			out.keys = append(out.keys, st.keys[r.g])
			out.firstSeq = append(out.firstSeq, r.seq)
			out.firstRow = append(out.firstRow, r.row)
			for k := range out.aggs {
				out.aggs[k].grow(len(out.keys))
			}
		}
		for k := range out.aggs {
			st.aggs[k].grow(len(st.keys))
			out.aggs[k].merge(g, &st.aggs[k], int(r.g))
		}
	}
	return out
}

// merge adds group h of src into group g.
func (acc *fastAcc) merge(g int, src *fastAcc, h int) {
	acc.n[g] += src.n[h]
	switch acc.fn {
	case "min", "max":
		if src.n[h] == 0 {
			return
		}
		switch acc.kind {
		case accInt:
			if v := src.i[h]; (acc.isMin && v < acc.i[g]) || (!acc.isMin && v > acc.i[g]) {
				acc.i[g] = v
			}
		case accFloat:
			if v := src.f[h]; (acc.isMin && floatLess(v, acc.f[g])) || (!acc.isMin && floatLess(acc.f[g], v)) {
				acc.f[g] = v
			}
		case accDecimal:
			if v := src.d[h]; (acc.isMin && decLess(v, acc.d[g])) || (!acc.isMin && decLess(acc.d[g], v)) {
				acc.d[g] = v
			}
		}
	default:
		switch acc.kind {
		case accInt:
			acc.i[g] += src.i[h]
		case accFloat:
			acc.f[g] += src.f[h]
		case accDecimal:
			acc.addDecimal128(g, src.d[h])
			acc.addDecimal128(g, decimal128.FromI64(src.i[h]))
			if b := src.big[h]; b != nil {
				if acc.big == nil {
					acc.big = map[int]*big.Int{}
				}
				if acc.big[g] == nil {
					acc.big[g] = new(big.Int)
				}
				acc.big[g].Add(acc.big[g], b)
			}
		}
	}
}

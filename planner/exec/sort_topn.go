package exec

import (
	"bytes"
	"context"
	"slices"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

// Top-N keeps, per input partition, a max-heap of the best n rows seen so
// far ordered by (encoded key, input sequence). A row enters only when it is
// better than the heap's worst (one byte comparison per row otherwise). The
// heap's rows stay in the batches they came from; when those batches hold
// many more rows than the heap, the heap's rows are gathered into one new
// batch, so memory stays O(n) rows.

type topEnt struct {
	key []byte
	b   int32 // index in held
	r   int32 // row in that batch
	seq int64 // partition<<40 | row number within the partition
}

type heldBatch struct {
	b    arrow.RecordBatch
	refs int
	size int64
}

type topHeap struct {
	ctx      context.Context
	mem      memory.Allocator
	schema   *arrow.Schema
	res      *reservation
	n        int
	ents     []topEnt
	held     []heldBatch
	cur      int32 // held index of the batch being added
	heldRows int64
	keyBytes int64 // reserved for keys
}

func entLess(a, b *topEnt) bool {
	if c := bytes.Compare(a.key, b.key); c != 0 {
		return c < 0
	}
	return a.seq < b.seq
}

func (t *topHeap) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !entLess(&t.ents[p], &t.ents[i]) {
			return
		}
		t.ents[p], t.ents[i] = t.ents[i], t.ents[p]
		i = p
	}
}

func (t *topHeap) down(i int) {
	n := len(t.ents)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		c := l
		if r := l + 1; r < n && entLess(&t.ents[l], &t.ents[r]) {
			c = r
		}
		if !entLess(&t.ents[i], &t.ents[c]) {
			return
		}
		t.ents[i], t.ents[c] = t.ents[c], t.ents[i]
		i = c
	}
}

func (t *topHeap) unref(h int32) {
	hb := &t.held[h]
	hb.refs--
	if hb.refs == 0 && h != t.cur && hb.b != nil {
		t.heldRows -= hb.b.NumRows()
		hb.b.Release()
		hb.b = nil
		t.res.shrink(hb.size)
	}
}

// add offers every row of b (keys encoded in rows) to the heap.
func (t *topHeap) add(b arrow.RecordBatch, rows *KeyRows, seqBase int64) error {
	h := int32(len(t.held))
	t.held = append(t.held, heldBatch{})
	t.cur = h
	for i := 0; i < rows.N; i++ {
		key := rows.Row(i)
		if len(t.ents) < t.n {
			t.ents = append(t.ents, topEnt{key: append([]byte(nil), key...), b: h, r: int32(i), seq: seqBase + int64(i)})
			t.held[h].refs++
			t.up(len(t.ents) - 1)
			continue
		}
		top := &t.ents[0]
		if bytes.Compare(key, top.key) >= 0 {
			continue
		}
		t.unref(top.b)
		top.key = append(top.key[:0], key...)
		top.b, top.r, top.seq = h, int32(i), seqBase+int64(i)
		t.held[h].refs++
		t.down(0)
	}
	t.cur = -1
	if t.held[h].refs == 0 {
		t.held = t.held[:h]
	} else {
		size := batchBytes(b)
		if err := t.res.grow(size); err != nil {
			t.held = t.held[:h]
			return err
		}
		b.Retain()
		t.held[h].b, t.held[h].size = b, size
		t.heldRows += b.NumRows()
	}
	kb := int64(0)
	for i := range t.ents {
		kb += int64(cap(t.ents[i].key)) + 40
	}
	if kb > t.keyBytes {
		if err := t.res.grow(kb - t.keyBytes); err != nil {
			return err
		}
	} else {
		t.res.shrink(t.keyBytes - kb)
	}
	t.keyBytes = kb
	if t.heldRows > 2*int64(t.n)+16384 && len(t.held) > 1 {
		return t.compact()
	}
	return nil
}

// live returns the held batches still referenced and each held index's
// position among them.
func (t *topHeap) live() ([]arrow.RecordBatch, []int32) {
	var bs []arrow.RecordBatch
	remap := make([]int32, len(t.held))
	for i, hb := range t.held {
		remap[i] = -1
		if hb.b != nil {
			remap[i] = int32(len(bs))
			bs = append(bs, hb.b)
		}
	}
	return bs, remap
}

// compact gathers the heap's rows into one batch.
func (t *topHeap) compact() error {
	bs, remap := t.live()
	locs := make([]rowLoc, len(t.ents))
	for i, e := range t.ents {
		locs[i] = rowLoc{remap[e.b], e.r}
	}
	nb, err := gatherBatches(t.ctx, t.mem, t.schema, bs, locs, nil)
	if err != nil {
		return err
	}
	size := batchBytes(nb)
	if err := t.res.grow(size); err != nil {
		nb.Release()
		return err
	}
	t.release()
	t.held = []heldBatch{{b: nb, refs: len(t.ents), size: size}}
	t.heldRows = nb.NumRows()
	for i := range t.ents {
		t.ents[i].b, t.ents[i].r = 0, int32(i)
	}
	return nil
}

// release drops every held batch.
func (t *topHeap) release() {
	for i := range t.held {
		if hb := &t.held[i]; hb.b != nil {
			hb.b.Release()
			hb.b = nil
			t.res.shrink(hb.size)
		}
	}
	t.held = nil
	t.heldRows = 0
}

// TopNBound receives a top-N's bound while it runs: once a partition holds
// n rows, no row whose first sort key orders after its n-th row's first key
// can enter the result (every partition's n-th row is at least as good as
// the final n-th). Set is called with the input column Col and the row of
// that n-th row each time the best such bound over the partitions
// tightens (full keys compared, so its first key never loosens); it must
// not keep the array. The planner uses it to push the bound into the scan
// (predicate.Dynamic) so files that cannot hold a better row are skipped.
type TopNBound struct {
	Col int
	Set func(col arrow.Array, row int)

	mu   sync.Mutex
	best []byte // encoded key of the tightest n-th row so far
}

// offer passes a full heap's worst row to Set when it is tighter.
func (b *TopNBound) offer(t *topHeap) {
	if b == nil || len(t.ents) < t.n || t.n == 0 {
		return
	}
	w := &t.ents[0]
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.best != nil && bytes.Compare(w.key, b.best) >= 0 {
		return
	}
	hb := t.held[w.b].b
	if hb == nil || b.Col < 0 || b.Col >= int(hb.NumCols()) {
		return
	}
	b.best = append(b.best[:0], w.key...)
	b.Set(hb.Column(b.Col), int(w.r))
}

func (s *Sort) runTopN(tc *TaskCtx, enc *KeyEncoder, exprs []vec.Expr) (Stream, error) {
	res := &reservation{b: tc.Budget, op: "Sort"}
	np := s.Input.Partitions()
	heaps := make([]*topHeap, np)
	n := int(min(s.Fetch, 1<<30))
	for p := range heaps {
		heaps[p] = &topHeap{ctx: tc.Ctx, mem: tc.Mem, schema: s.Input.Schema(), res: res, n: n, cur: -1}
	}
	releaseHeaps := func() {
		for _, h := range heaps {
			h.release()
		}
		res.freeAll()
	}
	err := runPartitions(tc, s.Input, func(tc *TaskCtx, p int, st Stream) error {
		ec := tc.EvalCtx()
		t := heaps[p]
		t.ctx = tc.Ctx
		var rows KeyRows
		seq := int64(p) << 40
		return drain(st, func(b arrow.RecordBatch) error {
			if err := tc.Err(); err != nil {
				return err
			}
			if b.NumRows() == 0 {
				return nil
			}
			cols, err := evalKeys(ec, b, exprs)
			if err != nil {
				return err
			}
			rows.Data, rows.Offs, rows.N = rows.Data[:0], rows.Offs[:0], 0
			err = enc.Encode(&rows, cols)
			releaseArrays(cols)
			if err != nil {
				return err
			}
			if err := t.add(b, &rows, seq); err != nil {
				return err
			}
			s.Bound.offer(t)
			seq += b.NumRows()
			return nil
		})
	})
	if err != nil {
		releaseHeaps()
		return nil, err
	}
	// Merge the partitions' heaps: order every candidate, keep the first n.
	var all []arrow.RecordBatch
	type cand struct {
		e    *topEnt
		base int32
		rm   []int32
	}
	var cands []cand
	for _, h := range heaps {
		bs, remap := h.live()
		base := int32(len(all))
		all = append(all, bs...)
		for i := range h.ents {
			cands = append(cands, cand{&h.ents[i], base, remap})
		}
	}
	slices.SortFunc(cands, func(a, b cand) int {
		if entLess(a.e, b.e) {
			return -1
		}
		if entLess(b.e, a.e) {
			return 1
		}
		return 0
	})
	if len(cands) > n {
		cands = cands[:n]
	}
	locs := make([]rowLoc, len(cands))
	for i, c := range cands {
		locs[i] = rowLoc{c.base + c.rm[c.e.b], c.e.r}
	}
	// The stream now owns the batches; heap keys are no longer needed.
	for _, h := range heaps {
		for i := range h.held {
			h.held[i].b = nil
		}
		res.shrink(h.keyBytes)
		h.ents = nil
	}
	return &gatherStream{tc: tc, schema: s.Input.Schema(), bs: all, locs: locs, res: res}, nil
}

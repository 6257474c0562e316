package exec

import (
	"bytes"
	"container/heap"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

// External sort (tc.Spill set, no Fetch): every input partition buffers its
// batches and their encoded keys; when a reservation fails, or the sort
// holds over half the budget, the partition sorts its buffer (stable),
// writes it as a sorted run and frees it. If no
// run was written the sort finishes in memory exactly as runFull does.
// Otherwise the partitions' remainders are written too and the runs are
// merged k-way (intermediate passes of at most fanIn runs when there are
// more), ties broken by run ordinal — runs are ordered by (partition,
// sequence) — so ties keep input order within a partition and partitions
// in index order, as in memory.

// sortBuf is what one input partition holds between spills.
type sortBuf struct {
	bs       []arrow.RecordBatch
	keys     KeyRows
	reserved int64
}

type extSort struct {
	s     *Sort
	tc    *TaskCtx
	enc   *KeyEncoder
	exprs []vec.Expr
	res   *reservation
	chunk int64 // target bytes of one spilled batch
	runs  [][]*SpillRun
}

func (s *Sort) runExternal(tc *TaskCtx, enc *KeyEncoder, exprs []vec.Expr) (Stream, error) {
	x := &extSort{s: s, tc: tc, enc: enc, exprs: exprs, res: &reservation{b: tc.Budget, op: "Sort"}}
	x.chunk = spillChunk(spillLimit(tc.Budget))
	np := s.Input.Partitions()
	x.runs = make([][]*SpillRun, np)
	bufs := make([]*sortBuf, np)
	fail := func(err error) (Stream, error) {
		for _, b := range bufs {
			if b != nil {
				x.dropBuf(b)
			}
		}
		x.removeRuns()
		x.res.freeAll()
		return nil, err
	}
	err := runPartitions(tc, s.Input, func(tc *TaskCtx, p int, st Stream) error {
		buf := &sortBuf{}
		bufs[p] = buf
		ec := tc.EvalCtx()
		return drain(st, func(b arrow.RecordBatch) error {
			if err := tc.Err(); err != nil {
				return err
			}
			if b.NumRows() == 0 {
				return nil
			}
			return x.add(tc, ec, p, buf, b)
		})
	})
	if err != nil {
		return fail(err)
	}
	spilled := false
	for _, r := range x.runs {
		spilled = spilled || len(r) > 0
	}
	if !spilled {
		st, err := x.inMemory(bufs)
		if err == nil || !tc.canSpill(err) {
			if err != nil {
				return fail(err)
			}
			return st, nil
		}
	}
	ec := tc.EvalCtx()
	for p, b := range bufs {
		if err := x.spillBuf(tc, ec, p, b); err != nil {
			return fail(err)
		}
	}
	var all []*SpillRun
	for _, r := range x.runs {
		all = append(all, r...)
	}
	x.runs = [][]*SpillRun{all}
	st, err := x.merge(all)
	if err != nil {
		return fail(err)
	}
	x.runs = nil
	return st, nil
}

// spillChunk is the target size of one batch of a run: small enough that a
// merge of several runs holds one batch of each within the budget.
func spillChunk(limit int64) int64 {
	if limit <= 0 {
		return 4 << 20
	}
	return min(max(limit/256, 1<<10), 4<<20)
}

// fanIn is how many runs one merge pass reads at once.
func (x *extSort) fanIn() int {
	l := spillLimit(x.tc.Budget)
	if l <= 0 {
		return 64
	}
	// A cursor holds about 3 chunks (batch, keys, growth) and up to two
	// batches pend per cursor; half the budget is left to the rest.
	return min(max(int(l/(12*x.chunk)), 2), 64)
}

// add buffers b in partition p, spilling the buffer when the budget says no.
func (x *extSort) add(tc *TaskCtx, ec *vec.Ctx, p int, buf *sortBuf, b arrow.RecordBatch) error {
	need := batchBytes(b)
	alone := false
	if err := x.res.grow(need); err != nil {
		if !tc.canSpill(err) {
			return err
		}
		if err := x.spillBuf(tc, ec, p, buf); err != nil {
			return err
		}
		if err := x.res.grow(need); err != nil {
			if !tc.canSpill(err) {
				return err
			}
			// Not even this batch fits: sort it alone and write it out
			// (it is already in memory, upstream's).
			need, alone = 0, true
		}
	}
	b.Retain()
	buf.bs = append(buf.bs, b)
	buf.reserved += need
	cols, err := evalKeys(ec, b, x.exprs)
	if err != nil {
		return err
	}
	before := buf.keys.Bytes()
	err = x.enc.Encode(&buf.keys, cols)
	releaseArrays(cols)
	if err != nil {
		return err
	}
	if d := buf.keys.Bytes() - before; !alone && d > 0 {
		if err := x.res.grow(d); err != nil {
			if !tc.canSpill(err) {
				return err
			}
			alone = true
		} else {
			buf.reserved += d
		}
	}
	if alone {
		return x.spillBuf(tc, ec, p, buf)
	}
	// Once spilling, the sort keeps at most half the budget, leaving room
	// to the operators feeding it (a grace join's bucket builds), which
	// cannot take memory back from it.
	if lim := spillLimit(tc.Budget); lim > 0 && x.res.held() > lim/2 {
		return x.spillBuf(tc, ec, p, buf)
	}
	return nil
}

// held is the number of bytes reserved now.
func (r *reservation) held() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.res
}

// dropBuf releases a buffer and its reservation.
func (x *extSort) dropBuf(buf *sortBuf) {
	releaseAll(buf.bs)
	x.res.shrink(buf.reserved)
	*buf = sortBuf{}
}

// spillBuf sorts buf and writes it as the next run of partition p.
func (x *extSort) spillBuf(tc *TaskCtx, ec *vec.Ctx, p int, buf *sortBuf) error {
	defer x.dropBuf(buf)
	n := buf.keys.N
	if n == 0 {
		return nil
	}
	perm, err := sortPerm(tc.Ctx, []*KeyRows{&buf.keys}, n)
	if err != nil {
		return err
	}
	schema := x.s.Input.Schema()
	w, err := tc.Spill.NewRun("sort", schema, tc.Mem)
	if err != nil {
		return err
	}
	var total int64
	for _, b := range buf.bs {
		total += batchBytes(b)
	}
	rows := chunkRows(x.chunk, total, int64(n))
	starts := chunkStarts(buf.bs)
	for i := 0; i < n; i += rows {
		if err := tc.Err(); err != nil {
			w.Abort()
			return err
		}
		j := min(n, i+rows)
		out, err := gatherBatches(tc.Ctx, tc.Mem, schema, buf.bs, locate(starts, perm[i:j]), nil)
		if err != nil {
			w.Abort()
			return err
		}
		err = w.Write(out)
		out.Release()
		if err != nil {
			w.Abort()
			return err
		}
	}
	run, err := w.Finish()
	if err != nil {
		return err
	}
	x.runs[p] = append(x.runs[p], run)
	return nil
}

// chunkRows is the rows per spilled batch for rows of total/n bytes.
func chunkRows(chunk, total, n int64) int {
	if n <= 0 || total <= 0 {
		return 4096
	}
	r := chunk * n / total
	return int(min(max(r, 16), 65536))
}

// inMemory finishes without spilling (the buffers are consumed).
func (x *extSort) inMemory(bufs []*sortBuf) (Stream, error) {
	var bs []arrow.RecordBatch
	var keys KeyRows
	if len(bufs) == 1 {
		keys = bufs[0].keys
	} else {
		var total int64
		for _, b := range bufs {
			total += b.keys.Bytes()
		}
		if err := x.res.grow(total); err != nil {
			return nil, err
		}
		for _, b := range bufs {
			keys.AppendRows(&b.keys)
		}
		// The partitions' rows are dropped; the merged copy stays.
		x.res.shrink(total)
	}
	for _, b := range bufs {
		bs = append(bs, b.bs...)
	}
	n := keys.N
	if err := x.res.grow(int64(n) * 4); err != nil {
		return nil, err
	}
	// From here the batches belong to the result.
	for _, b := range bufs {
		b.bs, b.reserved = nil, 0
	}
	perm, err := sortPerm(x.tc.Ctx, []*KeyRows{&keys}, n)
	if err != nil {
		releaseAll(bs)
		x.res.freeAll()
		return nil, err
	}
	// The key bytes go (whatever was reserved for them: the per-partition
	// rows, or the merged rows).
	x.res.shrink(keys.Bytes())
	return &gatherStream{tc: x.tc, schema: x.s.Input.Schema(), bs: bs, starts: chunkStarts(bs), order: perm, res: x.res}, nil
}

func (x *extSort) removeRuns() {
	for _, rs := range x.runs {
		for _, r := range rs {
			r.Remove()
		}
	}
	x.runs = nil
}

// merge returns the stream of the runs merged, after intermediate passes
// when there are more than fanIn. It owns the runs (removed on Close, also
// on error).
func (x *extSort) merge(runs []*SpillRun) (Stream, error) {
	fan := x.fanIn()
	for len(runs) > fan {
		var next []*SpillRun
		for i := 0; i < len(runs); i += fan {
			group := runs[i:min(len(runs), i+fan)]
			if len(group) == 1 {
				next = append(next, group[0])
				continue
			}
			r, err := x.mergeToRun(group)
			if err != nil {
				for _, r := range runs[i:] {
					r.Remove()
				}
				for _, r := range next {
					r.Remove()
				}
				return nil, err
			}
			next = append(next, r)
		}
		runs = next
	}
	m := &mergeStream{tc: x.tc, ec: x.tc.EvalCtx(), schema: x.s.Input.Schema(), enc: x.enc, exprs: x.exprs, res: x.res, runs: runs, batch: x.tc.BatchSize}
	if err := m.open(); err != nil {
		m.Close()
		return nil, err
	}
	return m, nil
}

// mergeToRun merges runs into one new run (the inputs are removed).
func (x *extSort) mergeToRun(runs []*SpillRun) (*SpillRun, error) {
	var rows, size int64
	for _, r := range runs {
		rows += r.rows
		size += r.size
	}
	m := &mergeStream{tc: x.tc, ec: x.tc.EvalCtx(), schema: x.s.Input.Schema(), enc: x.enc, exprs: x.exprs, res: x.res, runs: runs,
		batch: chunkRows(x.chunk, 4*size, rows)}
	defer m.Close()
	if err := m.open(); err != nil {
		return nil, err
	}
	w, err := x.tc.Spill.NewRun("sort", m.schema, x.tc.Mem)
	if err != nil {
		return nil, err
	}
	for {
		b, err := m.Next()
		if err != nil {
			w.Abort()
			return nil, err
		}
		if b == nil {
			break
		}
		err = w.Write(b)
		b.Release()
		if err != nil {
			w.Abort()
			return nil, err
		}
	}
	return w.Finish()
}

// mergeCursor is one run being merged.
type mergeCursor struct {
	rd    *SpillReader
	b     arrow.RecordBatch
	keys  KeyRows
	row   int
	ord   int // run ordinal: ties go to the lower
	slot  int // index of b in mergeStream.pending
	bytes int64
}

// mergeStream merges sorted runs into one sorted stream of batches of at
// most batch rows.
type mergeStream struct {
	tc      *TaskCtx
	ec      *vec.Ctx
	schema  *arrow.Schema
	enc     *KeyEncoder
	exprs   []vec.Expr
	res     *reservation
	runs    []*SpillRun
	batch   int
	curs    []*mergeCursor
	h       cursorHeap
	pending []arrow.RecordBatch // batches the next output may reference
	held    []int64             // reserved bytes of pending[i]
	closed  bool
}

type cursorHeap []*mergeCursor

func (h cursorHeap) Len() int { return len(h) }
func (h cursorHeap) Less(i, j int) bool {
	a, b := h[i], h[j]
	if c := bytes.Compare(a.keys.Row(a.row), b.keys.Row(b.row)); c != 0 {
		return c < 0
	}
	return a.ord < b.ord
}
func (h cursorHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *cursorHeap) Push(v any)   { *h = append(*h, v.(*mergeCursor)) }
func (h *cursorHeap) Pop() any {
	old := *h
	v := old[len(old)-1]
	*h = old[:len(old)-1]
	return v
}

func (m *mergeStream) open() error {
	if m.batch <= 0 {
		m.batch = 4096
	}
	for i, r := range m.runs {
		rd, err := r.Open(m.tc.Mem)
		if err != nil {
			return err
		}
		c := &mergeCursor{rd: rd, ord: i}
		m.curs = append(m.curs, c)
		ok, err := m.load(c)
		if err != nil {
			return err
		}
		if ok {
			m.h = append(m.h, c)
		}
	}
	heap.Init(&m.h)
	return nil
}

// load reads c's next non-empty batch; false at the run's end.
func (m *mergeStream) load(c *mergeCursor) (bool, error) {
	for {
		if err := m.tc.Err(); err != nil {
			return false, err
		}
		b, err := c.rd.Next()
		if err != nil {
			return false, err
		}
		if b == nil {
			c.rd.Close()
			c.b = nil
			return false, nil
		}
		if b.NumRows() == 0 {
			b.Release()
			continue
		}
		cols, err := evalKeys(m.ec, b, m.exprs)
		if err != nil {
			b.Release()
			return false, err
		}
		c.keys = KeyRows{}
		err = m.enc.Encode(&c.keys, cols)
		releaseArrays(cols)
		if err != nil {
			b.Release()
			return false, err
		}
		n := batchBytes(b) + c.keys.Bytes()
		if err := m.res.growWait(m.tc, n); err != nil {
			b.Release()
			return false, err
		}
		c.b, c.row, c.slot = b, 0, len(m.pending)
		m.pending = append(m.pending, b)
		m.held = append(m.held, n)
		return true, nil
	}
}

func (m *mergeStream) Next() (arrow.RecordBatch, error) {
	if m.closed {
		return nil, nil
	}
	if err := m.tc.Err(); err != nil {
		return nil, err
	}
	if len(m.h) == 0 {
		m.Close()
		return nil, nil
	}
	locs := make([]rowLoc, 0, m.batch)
	// A batch ends early when the runs' batches it references pile up
	// (runs of small batches under a small budget).
	for len(locs) < m.batch && len(m.h) > 0 && len(m.pending) <= 2*len(m.curs) {
		c := m.h[0]
		locs = append(locs, rowLoc{int32(c.slot), int32(c.row)})
		c.row++
		if c.row < int(c.b.NumRows()) {
			heap.Fix(&m.h, 0)
			continue
		}
		ok, err := m.load(c)
		if err != nil {
			return nil, err
		}
		if ok {
			heap.Fix(&m.h, 0)
		} else {
			heap.Pop(&m.h)
		}
	}
	out, err := gatherBatches(m.tc.Ctx, m.tc.Mem, m.schema, m.pending, locs, nil)
	if err != nil {
		return nil, err
	}
	m.compact()
	return out, nil
}

// compact drops the pending batches no cursor is on any more.
func (m *mergeStream) compact() {
	keep := make([]bool, len(m.pending))
	for _, c := range m.h {
		keep[c.slot] = true
	}
	var pend []arrow.RecordBatch
	var held []int64
	remap := make([]int, len(m.pending))
	for i, b := range m.pending {
		if keep[i] {
			remap[i] = len(pend)
			pend = append(pend, b)
			held = append(held, m.held[i])
			continue
		}
		b.Release()
		m.res.shrink(m.held[i])
	}
	for _, c := range m.h {
		c.slot = remap[c.slot]
	}
	m.pending, m.held = pend, held
}

// Close releases the batches, closes the readers and removes the runs.
func (m *mergeStream) Close() {
	if m.closed {
		return
	}
	m.closed = true
	for i, b := range m.pending {
		b.Release()
		m.res.shrink(m.held[i])
	}
	m.pending, m.held, m.h = nil, nil, nil
	for _, c := range m.curs {
		c.rd.Close()
	}
	m.curs = nil
	for _, r := range m.runs {
		r.Remove()
	}
	m.runs = nil
}

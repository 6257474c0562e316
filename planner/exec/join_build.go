package exec

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/paimon-flightsql/paimon-flightsql/internal/panics"
)

// joinBuild is the materialised right side of a join.
type joinBuild struct {
	budget   *Budget
	reserved atomic.Int64

	batch arrow.RecordBatch // every right row (Right's schema), one batch
	n     int

	// Hash join: table maps the right keys to ids; the rows of id g are
	// rows[offsets[g]:offsets[g+1]] (CSR, build order). Rows with a NULL in
	// a key that is not null-safe are in no list (nullRows has them).
	// Nested-loop join: one list holding every row.
	table    KeyTable
	offsets  []int32
	rows     []int32
	nullRows []int32
	keys     []arrow.Array // the evaluated right keys (mark join's NULL checks)
	// filters are the runtime filters over the keys with a slot, by key
	// index (join_filter.go).
	filters map[int]*KeyFilter

	releaseOnce sync.Once
}

func (b *joinBuild) reserve(op string, n int64) error {
	if err := b.budget.Reserve(op, n); err != nil {
		return err
	}
	b.reserved.Add(n)
	return nil
}

func (b *joinBuild) free(n int64) {
	b.budget.Free(n)
	b.reserved.Add(-n)
}

// release drops everything the build holds and returns its bytes.
func (b *joinBuild) release() {
	b.releaseOnce.Do(func() {
		if b.batch != nil {
			b.batch.Release()
			b.batch = nil
		}
		for _, k := range b.keys {
			k.Release()
		}
		b.keys = nil
		b.table, b.offsets, b.rows, b.nullRows = nil, nil, nil, nil
		b.filters = nil
		b.budget.Free(b.reserved.Swap(0))
	})
}

// build materialises the right side: every partition drained concurrently,
// the batches concatenated, the keys inserted into a KeyTable.
func (c *joinCore) build(tc *TaskCtx) (*joinBuild, error) {
	b := &joinBuild{budget: tc.Budget}
	ok := false
	defer func() {
		if !ok {
			b.release()
		}
	}()
	parts, inBytes, err := c.collectRight(tc, b)
	if err != nil {
		return nil, err
	}
	if err := c.concatRight(tc, b, parts, inBytes); err != nil {
		return nil, err
	}
	if err := tc.Err(); err != nil {
		return nil, err
	}
	if c.nested {
		b.rows = make([]int32, b.n)
		for i := range b.rows {
			b.rows[i] = int32(i)
		}
		b.offsets = []int32{0, int32(b.n)}
		if err := b.reserve(c.name, 4*int64(b.n)); err != nil {
			return nil, err
		}
		ok = true
		return b, nil
	}
	if err := c.indexRight(tc, b); err != nil {
		return nil, err
	}
	ok = true
	return b, nil
}

// collectRight drains every right partition concurrently, reserving each
// batch's bytes. It returns the batches and the bytes reserved for them.
func (c *joinCore) collectRight(tc *TaskCtx, b *joinBuild) ([]arrow.RecordBatch, int64, error) {
	n := max(1, c.right.Partitions())
	ctx, cancel := context.WithCancel(tc.Ctx)
	defer cancel()
	ptc := *tc
	ptc.Ctx = ctx
	parts := make([][]arrow.RecordBatch, n)
	errs := make([]error, n)
	var bytes atomic.Int64
	var wg sync.WaitGroup
	for p := 0; p < n; p++ {
		wg.Add(1)
		go func(p int) {
			defer wg.Done()
			defer func() {
				if r := recover(); r != nil {
					errs[p] = panics.Recovered(fmt.Sprintf("HashJoin build partition %d", p), r)
					cancel()
				}
			}()
			if err := c.drainRight(&ptc, p, b, &parts[p], &bytes); err != nil {
				errs[p] = err
				cancel()
			}
		}(p)
	}
	wg.Wait()
	var all []arrow.RecordBatch
	for _, ps := range parts {
		all = append(all, ps...)
	}
	var first error
	for _, err := range errs {
		if err != nil && (first == nil || errors.Is(first, context.Canceled) && !errors.Is(err, context.Canceled)) {
			first = err
		}
	}
	if first != nil {
		if err := tc.Err(); err != nil {
			first = err
		}
		releaseAll(all)
		return nil, 0, first
	}
	return all, bytes.Load(), nil
}

func (c *joinCore) drainRight(tc *TaskCtx, p int, b *joinBuild, out *[]arrow.RecordBatch, bytes *atomic.Int64) error {
	return drainPartition(tc, c.right, p, c.name+" build side", func(nb int64) error { return b.reserve(c.name, nb) },
		func(rb arrow.RecordBatch, nb int64) {
			bytes.Add(nb)
			*out = append(*out, rb)
		})
}

// drainPartition reads partition p of op to its end, checking each batch
// against op's schema (what names the input in errors), skipping empty
// batches, and hands each batch with its bytes to keep once reserve accepted
// them; a batch that fails either is released.
func drainPartition(tc *TaskCtx, op Operator, p int, what string, reserve func(nb int64) error, keep func(b arrow.RecordBatch, nb int64)) error {
	st, err := op.Execute(tc, p)
	if err != nil {
		return err
	}
	defer st.Close()
	want := op.Schema()
	for {
		if err := tc.Err(); err != nil {
			return err
		}
		b, err := st.Next()
		if err != nil {
			return err
		}
		if b == nil {
			return nil
		}
		if b.NumRows() == 0 {
			b.Release()
			continue
		}
		if err := joinCheckBatch(want, b); err != nil {
			b.Release()
			return fmt.Errorf("exec: %s: %w", what, err)
		}
		nb := joinBatchBytes(b)
		if err := reserve(nb); err != nil {
			b.Release()
			return err
		}
		keep(b, nb)
	}
}

// concatRight turns the collected batches into b.batch (one batch).
func (c *joinCore) concatRight(tc *TaskCtx, b *joinBuild, parts []arrow.RecordBatch, inBytes int64) error {
	s := c.right.Schema()
	switch len(parts) {
	case 0:
		cols := make([]arrow.Array, s.NumFields())
		for i, f := range s.Fields() {
			cols[i] = array.MakeArrayOfNull(tc.Mem, f.Type, 0)
		}
		b.batch = array.NewRecordBatch(s, cols, 0)
		for _, a := range cols {
			a.Release()
		}
		return nil
	case 1:
		b.batch = array.NewRecordBatch(s, parts[0].Columns(), parts[0].NumRows())
		b.n = int(parts[0].NumRows())
		parts[0].Release()
		return nil
	}
	defer releaseAll(parts)
	total := int64(0)
	for _, p := range parts {
		total += p.NumRows()
	}
	if total > 1<<31-2 {
		return fmt.Errorf("%w: %s build side of %d rows (at most %d)", ErrResourceExhausted, c.name, total, 1<<31-2)
	}
	cols := make([]arrow.Array, s.NumFields())
	defer func() {
		for _, a := range cols {
			if a != nil {
				a.Release()
			}
		}
	}()
	in := make([]arrow.Array, len(parts))
	for i := range cols {
		if err := tc.Err(); err != nil {
			return err
		}
		for j, p := range parts {
			in[j] = p.Column(i)
		}
		a, err := array.Concatenate(in, tc.Mem)
		if err != nil {
			return fmt.Errorf("exec: %s build side: %w", c.name, err)
		}
		cols[i] = a
		if err := b.reserve(c.name, joinArrayBytes(a.Data())); err != nil {
			return err
		}
	}
	b.batch = array.NewRecordBatch(s, cols, total)
	b.n = int(total)
	b.free(inBytes)
	return nil
}

// indexRight evaluates the right keys, inserts them and builds the CSR
// lists.
func (c *joinCore) indexRight(tc *TaskCtx, b *joinBuild) error {
	ec := tc.EvalCtx()
	keys := make([]arrow.Array, len(c.rightKeys))
	defer func() {
		for _, k := range keys {
			if k != nil {
				k.Release()
			}
		}
	}()
	for i, e := range c.rightKeys {
		a, err := e.Eval(ec, b.batch)
		if err != nil {
			return err
		}
		keys[i] = a
		if a.Len() != b.n || !arrow.TypeEqual(a.DataType(), c.keyTypes[i]) {
			return fmt.Errorf("exec: %s: right key %s evaluated to %d values of %s, want %d of %s", c.name, e, a.Len(), a.DataType(), b.n, c.keyTypes[i])
		}
	}
	b.table = NewKeyTable(c.keyTypes)
	gids := make([]int32, b.n)
	if err := b.table.Insert(keys, gids); err != nil {
		return err
	}
	if err := tc.Err(); err != nil {
		return err
	}
	nulls := joinNullRows(keys, c.nullSafe, b.n, nil)
	ng := b.table.Len()
	offs := make([]int32, ng+1)
	for i, g := range gids {
		if nulls != nil && nulls[i] {
			b.nullRows = append(b.nullRows, int32(i))
			gids[i] = -1
			continue
		}
		offs[g+1]++
	}
	for g := 0; g < ng; g++ {
		offs[g+1] += offs[g]
	}
	rows := make([]int32, offs[ng])
	fill := make([]int32, ng)
	copy(fill, offs[:ng])
	for i, g := range gids {
		if g >= 0 {
			rows[fill[g]] = int32(i)
			fill[g]++
		}
	}
	b.offsets, b.rows = offs, rows
	held := b.table.Bytes() + 4*int64(len(offs)+len(rows)+len(b.nullRows))
	b.filters = c.buildFilters(keys, ng)
	for _, f := range b.filters {
		held += f.Bytes()
	}
	if c.typ == MarkJoin {
		for _, k := range keys {
			held += joinArrayBytes(k.Data())
		}
		b.keys, keys = keys, nil
	}
	return b.reserve(c.name, held)
}

// joinNullRows marks the rows with a NULL in a key that is not null-safe;
// nil when there are none. dst is reused when large enough.
func joinNullRows(keys []arrow.Array, nullSafe []bool, n int, dst []bool) []bool {
	var out []bool
	for c, k := range keys {
		if nullSafe[c] || k.NullN() == 0 {
			continue
		}
		if out == nil {
			if cap(dst) >= n {
				out = dst[:n]
				clear(out)
			} else {
				out = make([]bool, n)
			}
		}
		for i := 0; i < n; i++ {
			if k.IsNull(i) {
				out[i] = true
			}
		}
	}
	return out
}

func joinCheckBatch(want *arrow.Schema, rb arrow.RecordBatch) error {
	if int(rb.NumCols()) != want.NumFields() {
		return fmt.Errorf("batch of %d columns, schema has %d", rb.NumCols(), want.NumFields())
	}
	for i, f := range want.Fields() {
		if !arrow.TypeEqual(rb.Column(i).DataType(), f.Type) {
			return fmt.Errorf("column %s is %s, schema says %s", f.Name, rb.Column(i).DataType(), f.Type)
		}
	}
	return nil
}

// joinBatchBytes estimates the bytes a batch holds (its buffers).
func joinBatchBytes(rb arrow.RecordBatch) int64 {
	n := int64(0)
	for _, c := range rb.Columns() {
		n += joinArrayBytes(c.Data())
	}
	return n
}

func joinArrayBytes(d arrow.ArrayData) int64 {
	if d == nil {
		return 0
	}
	n := int64(0)
	for _, b := range d.Buffers() {
		if b != nil {
			n += int64(b.Len())
		}
	}
	for _, ch := range d.Children() {
		n += joinArrayBytes(ch)
	}
	if d.DataType() != nil && d.DataType().ID() == arrow.DICTIONARY {
		n += joinArrayBytes(d.Dictionary())
	}
	return n
}

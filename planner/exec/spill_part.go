package exec

import (
	"fmt"
	"hash/maphash"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

// Hash partitioning for the spilling aggregation, DISTINCT and join: rows
// are split by a hash of their key (the sort-key encoding, in which equal
// keys — NULLs, -0/+0, NaNs included — have equal bytes, as KeyTable
// compares them) into spillFanout runs. Each level of recursion uses other
// bits of the hash, so a partition still too large splits again; after
// maxSpillDepth levels (skew: one key's rows alone exceed the budget) the
// operator fails with ResourceExhausted.

const (
	spillFanout   = 16
	spillBits     = 4 // log2(spillFanout)
	maxSpillDepth = 4
)

var spillSeed = maphash.MakeSeed()

// spillPartitioner writes rows to spillFanout runs by key hash.
type spillPartitioner struct {
	tc     *TaskCtx
	op     string
	schema *arrow.Schema
	enc    *KeyEncoder
	exprs  []vec.Expr
	depth  int
	// spread, when set, marks the keys where NULL matches nothing (join
	// keys that are not null-safe): a row with a NULL there goes to a
	// bucket round-robin instead of by hash, so NULL keys do not pile up
	// in one bucket (such a row matches nothing in any bucket).
	spread []bool
	rr     atomic.Uint64

	mu sync.Mutex
	ws [spillFanout]*SpillWriter
}

// newSpillPartitioner returns a partitioner of batches of schema by the
// keys exprs at recursion depth (0 = first); an error when the keys cannot
// be encoded (the operator then cannot spill).
func newSpillPartitioner(tc *TaskCtx, op string, schema *arrow.Schema, exprs []vec.Expr, depth int) (*spillPartitioner, error) {
	if depth >= maxSpillDepth {
		return nil, fmt.Errorf("%w: %s still over the budget after %d levels of spill partitioning (one key's rows do not fit)", ErrResourceExhausted, op, depth)
	}
	types := make([]arrow.DataType, len(exprs))
	orders := make([]SortOrder, len(exprs))
	for i, e := range exprs {
		types[i] = e.Type()
	}
	enc, err := NewKeyEncoder(types, orders)
	if err != nil {
		return nil, err
	}
	return &spillPartitioner{tc: tc, op: op, schema: schema, enc: enc, exprs: exprs, depth: depth}, nil
}

// add writes the rows of b (all when rows is nil) to their partitions.
func (p *spillPartitioner) add(ec *vec.Ctx, b arrow.RecordBatch, rows []int32) error {
	n := int(b.NumRows())
	if n == 0 {
		return nil
	}
	cols, err := evalKeys(ec, b, p.exprs)
	if err != nil {
		return err
	}
	var nullRow []bool
	for i, c := range cols {
		if i < len(p.spread) && p.spread[i] && c.NullN() > 0 {
			if nullRow == nil {
				nullRow = make([]bool, n)
			}
			for r := 0; r < n; r++ {
				nullRow[r] = nullRow[r] || c.IsNull(r)
			}
		}
	}
	var kr KeyRows
	err = p.enc.Encode(&kr, cols)
	releaseArrays(cols)
	if err != nil {
		return err
	}
	base := p.rr.Add(1)
	var idx [spillFanout][]int32
	shift := uint(spillBits * p.depth)
	put := func(r int32) {
		var k uint64
		if nullRow != nil && nullRow[r] {
			k = (base + uint64(r)) % spillFanout
		} else {
			k = (maphash.Bytes(spillSeed, kr.Row(int(r))) >> shift) & (spillFanout - 1)
		}
		idx[k] = append(idx[k], r)
	}
	if rows == nil {
		for r := 0; r < n; r++ {
			put(int32(r))
		}
	} else {
		for _, r := range rows {
			put(r)
		}
	}
	for k := range idx {
		if len(idx[k]) == 0 {
			continue
		}
		var part arrow.RecordBatch
		if len(idx[k]) == n {
			b.Retain()
			part = b
		} else if part, err = TakeBatch(ec, b, idx[k]); err != nil {
			return err
		}
		err = p.write(k, part)
		part.Release()
		if err != nil {
			return err
		}
	}
	return nil
}

func (p *spillPartitioner) write(k int, b arrow.RecordBatch) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ws[k] == nil {
		w, err := p.tc.Spill.NewRun(p.op, p.schema, p.tc.Mem)
		if err != nil {
			return err
		}
		p.ws[k] = w
	}
	return p.ws[k].Write(b)
}

// finish closes the runs: runs[k] is partition k (nil when empty). On
// error every run is gone.
func (p *spillPartitioner) finish() ([]*SpillRun, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	runs := make([]*SpillRun, spillFanout)
	var first error
	for k, w := range p.ws {
		if w == nil {
			continue
		}
		p.ws[k] = nil
		if first != nil {
			w.Abort()
			continue
		}
		r, err := w.Finish()
		if err != nil {
			first = err
			continue
		}
		runs[k] = r
	}
	if first != nil {
		removeRuns(runs)
		return nil, first
	}
	return runs, nil
}

// abort drops every run.
func (p *spillPartitioner) abort() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for k, w := range p.ws {
		if w != nil {
			w.Abort()
			p.ws[k] = nil
		}
	}
}

func removeRuns(rs []*SpillRun) {
	for _, r := range rs {
		r.Remove()
	}
}

// spillConcat streams, partition after partition, the output of mk over
// each non-nil run (or group of runs) and removes each run once done; it
// owns the runs.
type spillConcat struct {
	tc    *TaskCtx
	parts [][]*SpillRun
	mk    func(runs []*SpillRun) (Stream, error)
	cur   Stream
	done  []*SpillRun
}

func (c *spillConcat) Next() (arrow.RecordBatch, error) {
	for {
		if err := c.tc.Err(); err != nil {
			return nil, err
		}
		if c.cur == nil {
			for len(c.parts) > 0 && c.parts[0] == nil {
				c.parts = c.parts[1:]
			}
			if len(c.parts) == 0 {
				return nil, nil
			}
			runs := c.parts[0]
			c.parts = c.parts[1:]
			c.done = runs
			s, err := c.mk(runs)
			if err != nil {
				return nil, err
			}
			c.cur = s
		}
		b, err := c.cur.Next()
		if err != nil {
			return nil, err
		}
		if b != nil {
			return b, nil
		}
		c.cur.Close()
		c.cur = nil
		removeRuns(c.done)
		c.done = nil
	}
}

func (c *spillConcat) Close() {
	if c.cur != nil {
		c.cur.Close()
		c.cur = nil
	}
	removeRuns(c.done)
	c.done = nil
	for _, rs := range c.parts {
		removeRuns(rs)
	}
	c.parts = nil
}

// singleRuns turns partition runs into one group per non-empty partition.
func singleRuns(runs []*SpillRun) [][]*SpillRun {
	var out [][]*SpillRun
	for _, r := range runs {
		if r != nil {
			out = append(out, []*SpillRun{r})
		}
	}
	return out
}

package fileio

import (
	"context"
	"io"
	"sort"
	"sync"

	"github.com/paimon-flightsql/paimon-flightsql/internal/readahead"
)

// This file is the network-level read path: a reader that knows which byte
// ranges it will need (the column chunks of the next row group) announces
// them with Prefetch; the File merges near ranges into few large requests
// (coalescing), fetches them in the background with bounded parallelism and
// a bounded memory budget, and serves the later ReadAt calls from the
// fetched blocks. Reads outside every announced range go to storage as
// before, so an announcement can only make reads cheaper, never change what
// they return.

// Range is the byte range [Off, Off+Len) of a file (internal/readahead
// holds the contract, shared with readers below this package's layer).
type Range = readahead.Range

// Prefetcher is implemented by Files whose reads are expensive per request
// (object stores); see readahead.Prefetcher.
type Prefetcher = readahead.Prefetcher

// Prefetch announces ranges to r when r is a Prefetcher; otherwise (local
// files) it does nothing.
func Prefetch(r io.ReaderAt, ranges []Range) { readahead.Prefetch(r, ranges) }

// ReadPolicy tunes the network read path of a FileIO over an object store.
// Zero fields take the defaults.
type ReadPolicy struct {
	// GapBytes: announced ranges at most this far apart are fetched by one
	// request, the gap's bytes read and thrown away (default 1 MiB: on a
	// network a request costs far more than a MiB of transfer).
	GapBytes int64
	// MaxRequestBytes: a merged range longer than this is split into
	// requests of about this size, fetched in parallel (default 8 MiB).
	MaxRequestBytes int64
	// Parallel bounds the concurrent background requests of one FileIO
	// (default 16).
	Parallel int
	// BudgetBytes bounds the bytes held in fetched-ahead blocks of one
	// FileIO; ranges announced beyond it are read on demand (default 256 MiB).
	BudgetBytes int64
	// TailBytes is how much of a file's end Open reads in its first request
	// (the Parquet/ORC footer lives there), instead of a HEAD (default 64 KiB;
	// negative disables: Open does a HEAD).
	TailBytes int64
}

func (p ReadPolicy) withDefaults() ReadPolicy {
	if p.GapBytes <= 0 {
		p.GapBytes = 1 << 20
	}
	if p.MaxRequestBytes <= 0 {
		p.MaxRequestBytes = 8 << 20
	}
	if p.Parallel <= 0 {
		p.Parallel = 16
	}
	if p.BudgetBytes <= 0 {
		p.BudgetBytes = 256 << 20
	}
	if p.TailBytes == 0 {
		p.TailBytes = 64 << 10
	}
	return p
}

// span is one request of a coalesced announcement: the range fetched and
// how many of its bytes were announced (the rest are gaps).
type span struct {
	Range
	need int64
}

// coalesce sorts ranges, merges overlapping ones and those at most gap
// apart, and splits merged ranges longer than maxReq into near-equal parts.
func coalesce(ranges []Range, gap, maxReq int64) []span {
	rs := make([]Range, 0, len(ranges))
	for _, r := range ranges {
		if r.Len > 0 && r.Off >= 0 {
			rs = append(rs, r)
		}
	}
	sort.Slice(rs, func(i, j int) bool { return rs[i].Off < rs[j].Off })
	var groups [][]Range // members, disjoint and sorted (overlaps merged)
	var ends []int64
	for _, r := range rs {
		if k := len(groups) - 1; k >= 0 && r.Off-ends[k] <= gap {
			last := &groups[k][len(groups[k])-1]
			if r.Off <= last.Off+last.Len { // overlap: extend the member
				last.Len = max(last.Len, r.Off+r.Len-last.Off)
			} else {
				groups[k] = append(groups[k], r)
			}
			ends[k] = max(ends[k], r.Off+r.Len)
			continue
		}
		groups = append(groups, []Range{r})
		ends = append(ends, r.Off+r.Len)
	}
	var out []span
	for k, g := range groups {
		lo, hi := g[0].Off, ends[k]
		parts := (hi - lo + maxReq - 1) / maxReq
		size := (hi - lo + parts - 1) / parts
		for off := lo; off < hi; off += size {
			p := Range{Off: off, Len: min(size, hi-off)}
			var need int64
			for _, m := range g {
				a, b := max(m.Off, p.Off), min(m.Off+m.Len, p.Off+p.Len)
				if b > a {
					need += b - a
				}
			}
			out = append(out, span{p, need})
		}
	}
	return out
}

// blockBufs recycles the buffers of released blocks: a new multi-MiB
// make() is zeroed first, which cost as much CPU as a tenth of the decode
// (docs/benchmarks.md, Session 5).
var blockBufs sync.Pool // of *[]byte

// getBuf returns a buffer of n bytes (contents undefined).
func getBuf(n int64) []byte {
	if p, ok := blockBufs.Get().(*[]byte); ok {
		if c := int64(cap(*p)); c >= n && c <= 2*n {
			return (*p)[:n]
		}
	}
	return make([]byte, n)
}

func putBuf(b []byte) {
	if cap(b) > 0 {
		blockBufs.Put(&b)
	}
}

// readPool is the per-FileIO bound on background requests and held bytes.
type readPool struct {
	policy ReadPolicy
	sem    chan struct{}
	mu     sync.Mutex
	held   int64
}

func newReadPool(p ReadPolicy) *readPool {
	p = p.withDefaults()
	return &readPool{policy: p, sem: make(chan struct{}, p.Parallel)}
}

func (p *readPool) charge(n int64) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.held+n > p.policy.BudgetBytes {
		return false
	}
	p.held += n
	return true
}

func (p *readPool) uncharge(n int64) {
	p.mu.Lock()
	p.held -= n
	p.mu.Unlock()
}

// Held reports the bytes currently charged to fetched-ahead blocks.
func (p *readPool) Held() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.held
}

// block is one background request and the bytes it has received so far.
// Readers are served as soon as their bytes have arrived (filled), not
// when the whole request is done: a multi-MiB request no longer delays the
// decode of its first column chunk until its last byte is in.
type block struct {
	span
	done chan struct{} // closed when the fetch has returned
	// The fields below are guarded by the rangeCache's mu.
	data     []byte        // the buffer being filled (nil before the fetch starts and once recycled)
	filled   int64         // data[:filled] has arrived
	tick     chan struct{} // closed (and replaced) when filled grows while readers wait
	waiting  int           // readers waiting on tick
	finished bool          // the fetch has returned: nothing writes data any more
	err      error         // the fetch failed (bytes below filled are still good)
	served   int64         // bytes handed to readers; at need the block is released
	released bool
}

// fetchFunc fills dst with the bytes at off (a ranged GET with retries),
// calling progress with the count of leading bytes of dst received so far
// (growing) as they arrive.
type fetchFunc func(ctx context.Context, off int64, dst []byte, progress func(filled int64)) error

// rangeCache holds one open file's fetched-ahead blocks.
type rangeCache struct {
	pool   *readPool
	fetch  fetchFunc
	ctx    context.Context // cancelled by close: stops background requests
	cancel context.CancelFunc

	mu     sync.Mutex
	blocks []*block // sorted by offset, disjoint
	closed bool
}

func newRangeCache(ctx context.Context, pool *readPool, fetch fetchFunc) *rangeCache {
	c := &rangeCache{pool: pool, fetch: fetch}
	c.ctx, c.cancel = context.WithCancel(ctx)
	return c
}

// prefetch starts background requests for the announced ranges not yet
// covered by a block, within the pool's budget.
func (c *rangeCache) prefetch(ranges []Range, size int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return
	}
	// Clip to the file and cut out what existing blocks already cover.
	var todo []Range
	for _, r := range ranges {
		if r.Off >= size || r.Len <= 0 || r.Off < 0 {
			continue
		}
		r.Len = min(r.Len, size-r.Off)
		todo = append(todo, c.uncoveredLocked(r)...)
	}
	// Disjoint, so that the announced bytes of a block are counted once.
	var disjoint []Range
	for _, sp := range coalesce(todo, 0, 1<<62) {
		disjoint = append(disjoint, sp.Range)
	}
	todo = disjoint
	pol := c.pool.policy
	for _, merged := range coalesce(todo, pol.GapBytes, pol.MaxRequestBytes) {
		// A merged span may reach across an existing block (uncovered
		// pieces on both sides of it, within the gap): fetch only what no
		// block covers, counting in each part the announced bytes it holds.
		for _, r := range c.uncoveredLocked(merged.Range) {
			sp := span{Range: r, need: overlap(todo, r)}
			if sp.need == 0 {
				continue
			}
			if !c.pool.charge(sp.Len) {
				return // over budget: the rest is read on demand
			}
			b := &block{span: sp, done: make(chan struct{}), tick: make(chan struct{})}
			c.insertLocked(b)
			go c.run(b)
		}
	}
}

// overlap is the number of bytes of r that lie in the (disjoint) ranges rs.
func overlap(rs []Range, r Range) int64 {
	var n int64
	for _, x := range rs {
		a, b := max(x.Off, r.Off), min(x.Off+x.Len, r.Off+r.Len)
		if b > a {
			n += b - a
		}
	}
	return n
}

func (c *rangeCache) run(b *block) {
	defer close(b.done)
	select {
	case c.pool.sem <- struct{}{}:
	case <-c.ctx.Done():
		c.mu.Lock()
		b.err, b.finished = c.ctx.Err(), true
		c.mu.Unlock()
		return
	}
	defer func() { <-c.pool.sem }()
	buf := getBuf(b.Len)
	c.mu.Lock()
	if b.released {
		b.finished = true
		c.mu.Unlock()
		putBuf(buf)
		return
	}
	b.data = buf
	c.mu.Unlock()
	err := c.fetch(c.ctx, b.Off, buf, func(filled int64) {
		c.mu.Lock()
		if filled > b.filled {
			b.filled = filled
			if b.waiting > 0 {
				close(b.tick)
				b.tick = make(chan struct{})
			}
		}
		c.mu.Unlock()
	})
	c.mu.Lock()
	b.err, b.finished = err, true
	if b.released && b.data != nil {
		// Released while it streamed (read through, or the file closed):
		// nobody reads it now and nothing writes it any more.
		putBuf(b.data)
		b.data = nil
	}
	c.mu.Unlock()
}

// uncoveredLocked returns the parts of r no block covers.
func (c *rangeCache) uncoveredLocked(r Range) []Range {
	var out []Range
	pos, end := r.Off, r.Off+r.Len
	for _, b := range c.blocks {
		if b.Off+b.Len <= pos {
			continue
		}
		if b.Off >= end {
			break
		}
		if b.Off > pos {
			out = append(out, Range{Off: pos, Len: b.Off - pos})
		}
		pos = b.Off + b.Len
	}
	if pos < end {
		out = append(out, Range{Off: pos, Len: end - pos})
	}
	return out
}

func (c *rangeCache) insertLocked(b *block) {
	i := sort.Search(len(c.blocks), func(i int) bool { return c.blocks[i].Off > b.Off })
	c.blocks = append(c.blocks, nil)
	copy(c.blocks[i+1:], c.blocks[i:])
	c.blocks[i] = b
}

// findLocked returns the block covering off, or nil and the offset of the
// next block (-1 when none).
func (c *rangeCache) findLocked(off int64) (*block, int64) {
	i := sort.Search(len(c.blocks), func(i int) bool { return c.blocks[i].Off+c.blocks[i].Len > off })
	if i == len(c.blocks) {
		return nil, -1
	}
	if b := c.blocks[i]; b.Off <= off {
		return b, 0
	}
	return nil, c.blocks[i].Off
}

func (c *rangeCache) releaseLocked(b *block) {
	if b.released {
		return
	}
	b.released = true
	c.pool.uncharge(b.Len)
	for i, x := range c.blocks {
		if x == b {
			c.blocks = append(c.blocks[:i], c.blocks[i+1:]...)
			break
		}
	}
}

// readAt fills p from blocks where they cover it and with direct reads
// elsewhere. ctx is the reader's context (waiting for a block honours it).
func (c *rangeCache) readAt(ctx context.Context, p []byte, off int64, direct func(p []byte, off int64) error) error {
	for len(p) > 0 {
		c.mu.Lock()
		b, next := c.findLocked(off)
		if b == nil {
			c.mu.Unlock()
			n := int64(len(p))
			if next > 0 && next-off < n {
				n = next - off
			}
			if err := direct(p[:n], off); err != nil {
				return err
			}
			p, off = p[n:], off+n
			continue
		}
		// Wait until the bytes at off have arrived, the fetch has ended
		// without them, or the block went away.
		for !b.released && b.Off+b.filled <= off && !b.finished {
			tick := b.tick
			b.waiting++
			c.mu.Unlock()
			var err error
			select {
			case <-tick:
			case <-b.done:
			case <-ctx.Done():
				err = ctx.Err()
			}
			c.mu.Lock()
			b.waiting--
			if err != nil {
				c.mu.Unlock()
				return err
			}
		}
		if b.released || b.Off+b.filled <= off {
			// The background request failed before these bytes (or the
			// block went away): drop it and read directly, reporting that
			// read's error.
			c.releaseLocked(b)
			c.mu.Unlock()
			continue
		}
		n := copy(p, b.data[off-b.Off:b.filled])
		b.served += int64(n)
		if b.served >= b.need {
			// Every copy out of b.data happens under c.mu, so once it is
			// released nobody reads it: the buffer can be reused once the
			// fetch no longer writes it (else run recycles it).
			c.releaseLocked(b)
			if b.finished && b.data != nil {
				putBuf(b.data)
				b.data = nil
			}
		}
		c.mu.Unlock()
		p, off = p[n:], off+int64(n)
	}
	return nil
}

// close stops background requests and releases every block.
func (c *rangeCache) close() {
	c.cancel()
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	for len(c.blocks) > 0 {
		b := c.blocks[0]
		c.releaseLocked(b)
	}
}

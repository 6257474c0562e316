// Package bufpool is an Arrow memory.Allocator that recycles large buffers.
//
// A full scan materialises about 200 bytes of Arrow data per row; with a
// fresh Go allocation per buffer, zeroing new memory and the garbage
// collector's work on it cost a quarter of the scan's CPU time
// (docs/benchmarks.md). A scan's batches have the same shapes over and over,
// so buffers released by the consumer can serve the next batches instead.
//
// Pool keeps freed buffers of at least MinPooled bytes in power-of-two size
// classes, up to an idle budget, and hands them out again zeroed (the
// memory.Allocator contract arrow-go code relies on). Smaller buffers go to
// the base allocator. A Pool is safe for concurrent use. Buffers allocated
// by a Pool may be freed after Close; Close returns the idle buffers to the
// base allocator, so a Pool over a checked allocator leaks nothing once
// every buffer it handed out has been freed.
package bufpool

import (
	"math/bits"
	"os"
	"sync"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

const (
	// MinPooled is the smallest request served from the pool.
	MinPooled = 32 << 10
	// maxClass is the largest size class (log2): 256 MiB.
	maxClass  = 28
	alignment = 64
)

// Debugging: with PAIMON_BUFPOOL_DEBUG=poison in the environment every
// buffer, however small, goes through the pools, and freed buffers are
// overwritten with 0xA5 at once. Code that reads a batch after releasing it
// (for example a string from array.String.Value kept past Release, which
// points into the buffer) then sees garbage in tests instead of working by
// luck. .ci/run sets it for the whole test suite.
var (
	poison    = os.Getenv("PAIMON_BUFPOOL_DEBUG") == "poison"
	minPooled = func() int {
		if poison {
			return 1
		}
		return MinPooled
	}()
)

// Pool recycles buffers of at least MinPooled bytes.
type Pool struct {
	base   memory.Allocator
	mu     sync.Mutex
	free   [maxClass + 1][][]byte
	idle   int // bytes held in free lists
	budget int
	closed bool
	// suspended: freed buffers go back to the base allocator (Suspend).
	suspended bool
	// bufs maps the first byte of each class buffer handed out or idle to
	// its allocation. Buffers are handed out with cap == len, as arrow-go's
	// allocators do (some compute kernels size writes by cap), so the class
	// is found here, not from the slice.
	bufs map[*byte]pooled
	st   Stats
}

// pooled is one class buffer: the base allocation and its aligned
// class-sized part.
type pooled struct {
	raw, full []byte
}

// Stats count pool traffic.
type Stats struct {
	Hits, Misses, Dropped int64
}

// New returns a pool over base (memory.DefaultAllocator when nil) that keeps
// at most idleBudget bytes of freed buffers.
func New(base memory.Allocator, idleBudget int) *Pool {
	if base == nil {
		base = memory.DefaultAllocator
	}
	return &Pool{base: base, budget: idleBudget, bufs: map[*byte]pooled{}}
}

// Stats returns the pool's counters.
func (p *Pool) Stats() Stats {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.st
}

func class(n int) int {
	return bits.Len(uint(n - 1))
}

// Allocate implements memory.Allocator: the buffer is zeroed and 64-byte aligned.
func (p *Pool) Allocate(size int) []byte {
	if size < minPooled {
		return p.base.Allocate(size)
	}
	c := class(size)
	if c > maxClass {
		return p.base.Allocate(size)
	}
	p.mu.Lock()
	if l := p.free[c]; len(l) > 0 {
		b := l[len(l)-1]
		p.free[c] = l[:len(l)-1]
		p.idle -= cap(b)
		p.st.Hits++
		p.mu.Unlock()
		b = b[:size:size]
		clear(b)
		return b
	}
	p.st.Misses++
	p.mu.Unlock()
	return p.fresh(c, size)
}

// fresh allocates a class-c buffer from the base allocator, aligned.
func (p *Pool) fresh(c, size int) []byte {
	n := 1 << c
	raw := p.base.Allocate(n + alignment)
	addr := uintptr(unsafe.Pointer(unsafe.SliceData(raw)))
	shift := int((alignment - addr%alignment) % alignment)
	full := raw[shift : shift+n : shift+n]
	p.mu.Lock()
	p.bufs[unsafe.SliceData(full)] = pooled{raw: raw, full: full}
	p.mu.Unlock()
	return full[:size:size]
}

// lookup returns the class buffer b starts, if the pool handed it out.
func (p *Pool) lookup(b []byte) (pooled, bool) {
	if cap(b) == 0 {
		return pooled{}, false
	}
	p.mu.Lock()
	e, ok := p.bufs[unsafe.SliceData(b)]
	p.mu.Unlock()
	return e, ok
}

// Reallocate implements memory.Allocator.
func (p *Pool) Reallocate(size int, b []byte) []byte {
	e, ok := p.lookup(b)
	if ok && size <= len(e.full) {
		old := len(b)
		b = e.full[:size:size]
		if size > old {
			clear(b[old:])
		}
		return b
	}
	if !ok && (size < minPooled || class(size) > maxClass) {
		return p.base.Reallocate(size, b)
	}
	nb := p.Allocate(size)
	copy(nb, b)
	p.Free(b)
	return nb
}

// Free implements memory.Allocator.
func (p *Pool) Free(b []byte) {
	e, ok := p.lookup(b)
	if !ok {
		p.base.Free(b)
		return
	}
	if poison {
		for i := range e.full {
			e.full[i] = 0xA5
		}
	}
	p.mu.Lock()
	if !p.closed && !p.suspended && p.idle+len(e.full) <= p.budget {
		c := class(len(e.full))
		p.free[c] = append(p.free[c], e.full[:0])
		p.idle += len(e.full)
		p.mu.Unlock()
		return
	}
	delete(p.bufs, unsafe.SliceData(e.full))
	p.st.Dropped++
	p.mu.Unlock()
	p.base.Free(e.raw)
}

// Close returns the idle buffers to the base allocator; buffers still in
// use go back to it when freed.
func (p *Pool) Close() {
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
	p.Suspend()
}

// Suspend returns the idle buffers to the base allocator and stops keeping
// freed buffers until Resume: a pool that lives longer than its users (a
// query's pool between its streams) holds no memory while nothing runs.
func (p *Pool) Suspend() {
	p.mu.Lock()
	p.suspended = true
	var raws [][]byte
	for c := range p.free {
		for _, b := range p.free[c] {
			d := unsafe.SliceData(b)
			raws = append(raws, p.bufs[d].raw)
			delete(p.bufs, d)
		}
		p.free[c] = nil
	}
	p.idle = 0
	p.mu.Unlock()
	for _, r := range raws {
		p.base.Free(r)
	}
}

// Resume undoes Suspend (not Close).
func (p *Pool) Resume() {
	p.mu.Lock()
	p.suspended = false
	p.mu.Unlock()
}

var _ memory.Allocator = (*Pool)(nil)

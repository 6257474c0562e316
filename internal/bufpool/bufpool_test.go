package bufpool

import (
	"sync"
	"testing"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

func TestReuseZeroedAligned(t *testing.T) {
	normalMode(t)
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	p := New(mem, 1<<30)
	b := p.Allocate(100_000)
	if len(b) != 100_000 || cap(b) != len(b) { // cap == len, as arrow-go's kernels expect
		t.Fatalf("len %d cap %d", len(b), cap(b))
	}
	for i := range b {
		b[i] = 0xff
	}
	p.Free(b)
	c := p.Allocate(70_000)
	if &c[0] != &b[0] {
		t.Fatalf("buffer of the same class not reused")
	}
	for i, v := range c {
		if v != 0 {
			t.Fatalf("reused buffer not zeroed at %d", i)
		}
	}
	if uintptr(unsafeAddr(c))%alignment != 0 {
		t.Fatalf("not aligned")
	}
	c = p.Reallocate(120_000, c) // same class: in place, tail zeroed
	if &c[0] != &b[0] || len(c) != 120_000 || cap(c) != len(c) || c[119_999] != 0 {
		t.Fatalf("in-place reallocate failed")
	}
	c[0] = 7
	d := p.Reallocate(300_000, c) // grows class: copies
	if d[0] != 7 || len(d) != 300_000 {
		t.Fatalf("grow reallocate failed")
	}
	small := p.Allocate(100) // below MinPooled: base
	p.Free(small)
	p.Free(d)
	if st := p.Stats(); st.Hits != 1 || st.Misses != 2 {
		t.Fatalf("stats %+v", st)
	}
	p.Close()
	mem.AssertSize(t, 0)
}

func TestBudgetAndClose(t *testing.T) {
	normalMode(t)
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	p := New(mem, 1<<17) // one 128 KiB buffer idle at most
	a, b := p.Allocate(1<<17), p.Allocate(1<<17)
	p.Free(a)
	p.Free(b) // over budget: back to base
	if st := p.Stats(); st.Dropped != 1 {
		t.Fatalf("stats %+v", st)
	}
	inUse := p.Allocate(1 << 17)
	p.Close()
	p.Free(inUse) // after Close: straight to base
	mem.AssertSize(t, 0)
}

func TestConcurrent(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	p := New(mem, 8<<20)
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				n := MinPooled + (i*7919+g*104729)%(1<<20)
				b := p.Allocate(n)
				b[0], b[n-1] = byte(g), byte(i)
				b = p.Reallocate(n+1000, b)
				if b[0] != byte(g) || b[n-1] != byte(i) {
					t.Errorf("data lost")
				}
				p.Free(b)
			}
		}(g)
	}
	wg.Wait()
	p.Close()
	mem.AssertSize(t, 0)
}

func unsafeAddr(b []byte) uintptr { return uintptr(unsafe.Pointer(unsafe.SliceData(b))) }

// normalMode runs a test with the production settings, also when the suite
// runs with PAIMON_BUFPOOL_DEBUG=poison.
func normalMode(t *testing.T) {
	p, m := poison, minPooled
	poison, minPooled = false, MinPooled
	t.Cleanup(func() { poison, minPooled = p, m })
}

func TestPoisonMode(t *testing.T) {
	p0, m0 := poison, minPooled
	poison, minPooled = true, 1
	t.Cleanup(func() { poison, minPooled = p0, m0 })
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	p := New(mem, 1<<20)
	b := p.Allocate(10) // small buffers are pooled too
	copy(b, "0123456789")
	kept := b[:10]
	p.Free(b)
	for i, v := range kept {
		if v != 0xA5 {
			t.Fatalf("freed buffer not poisoned at %d: %x", i, v)
		}
	}
	c := p.Allocate(10)
	for _, v := range c {
		if v != 0 {
			t.Fatalf("reused buffer not zeroed")
		}
	}
	p.Free(c)
	p.Close()
	mem.AssertSize(t, 0)
}

func TestSuspendResume(t *testing.T) {
	normalMode(t)
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	p := New(mem, 1<<20)
	a, b := p.Allocate(1<<16), p.Allocate(1<<16)
	p.Free(a)
	p.Suspend() // idle a goes back to mem
	p.Free(b)   // suspended: straight back to mem
	mem.AssertSize(t, 0)
	p.Resume()
	c := p.Allocate(1 << 16)
	p.Free(c) // kept again
	if mem.CurrentAlloc() == 0 {
		t.Fatalf("resumed pool did not keep a freed buffer")
	}
	p.Close()
	p.Resume() // no effect after Close
	d := p.Allocate(1 << 16)
	p.Free(d)
	mem.AssertSize(t, 0)
}

package flightsql

import (
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// The buffer pool of a cached plan keeps buffers only while one of the
// query's streams runs, and gives everything back when the entry goes.
func TestPlanCachePoolLifetime(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	c := newPlanCache(mem, 4, time.Minute)
	spec := execSpec{SQL: "SELECT 1"}
	c.put("q1", spec, nil, 2, time.Now().Add(time.Hour))
	if st, pool, release := c.get("q1", execSpec{SQL: "SELECT 2"}); st != nil || pool != nil || release != nil {
		t.Fatalf("a ticket of another statement matched")
	}
	_, pool, release := c.get("q1", spec)
	if pool == nil {
		t.Fatalf("cached plan not found")
	}
	b := pool.Allocate(1 << 20)
	pool.Free(b) // kept while the stream runs
	if mem.CurrentAlloc() == 0 {
		t.Fatalf("running query's pool kept nothing")
	}
	release() // no stream left: idle buffers go back
	mem.AssertSize(t, 0)
	_, pool2, release2 := c.get("q1", spec)
	b = pool2.Allocate(1 << 20)
	c.done("q1", 0)
	c.done("q1", 1) // all endpoints streamed: entry and pool go
	pool2.Free(b)   // a buffer freed after that goes straight back
	release2()
	mem.AssertSize(t, 0)
}

package flightsql

import (
	"container/list"
	"encoding/binary"
	"slices"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/paimon-flightsql/paimon-flightsql/internal/bufpool"
)

// planCache keeps the statements planned by GetFlightInfo so that the
// DoGets of their endpoints stream without planning again (reading the
// snapshot, manifests and file statistics once per query instead of once
// per endpoint).
//
// It is an optimisation local to one node: tickets stay self-contained and
// signed, and a DoGet whose plan is not cached here (another node, a
// restart, eviction, expiry) plans the ticket's statement again, exactly as
// before. Entries are keyed by the query id inside the signed ticket, so a
// client cannot name a plan it was not given; the entry also records the
// statement text, session and user it was planned for, and a lookup with a
// ticket that differs in any of them misses.
// planCacheTTL bounds how long a plan is kept for endpoints not fetched yet.
const planCacheTTL = 10 * time.Minute

type planCache struct {
	mem     memory.Allocator // base of each entry's buffer pool
	mu      sync.Mutex
	max     int
	ttl     time.Duration
	entries map[string]*list.Element
	lru     *list.List // front = most recently used
}

type planEntry struct {
	qid     string
	key     string // SQL, session and user of the ticket (specKey)
	stmt    Statement
	expires time.Time
	left    map[int]bool // endpoints not yet streamed to the end
	// pool recycles Arrow buffers across the endpoints of the query: each
	// endpoint's scan starts with the buffers earlier ones released instead
	// of a cold pool. Closed when the entry goes; streams still running
	// then allocate from and free to the server's allocator.
	pool *bufpool.Pool
	// active counts the streams using the entry; the pool keeps buffers
	// only while one runs (suspended in between, so abandoned queries hold
	// no memory until they expire).
	active int
}

// queryPoolIdleBytes bounds the idle buffers of one query's pool.
const queryPoolIdleBytes = 128 << 20

func newPlanCache(mem memory.Allocator, maxEntries int, ttl time.Duration) *planCache {
	return &planCache{mem: mem, max: maxEntries, ttl: ttl, entries: map[string]*list.Element{}, lru: list.New()}
}

// put caches stmt for query qid, whose FlightInfo has eps endpoints, until
// min(now+ttl, exp).
func (c *planCache) put(qid string, spec execSpec, stmt Statement, eps int, exp time.Time) {
	if c == nil || c.max <= 0 || eps < 1 {
		return
	}
	expires := time.Now().Add(c.ttl)
	if exp.Before(expires) {
		expires = exp
	}
	left := make(map[int]bool, eps)
	for p := 0; p < eps; p++ {
		left[p] = true
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.expireLocked(time.Now())
	if el, ok := c.entries[qid]; ok {
		c.lru.Remove(el)
	}
	c.entries[qid] = c.lru.PushFront(&planEntry{qid: qid, key: specKey(spec), stmt: stmt, expires: expires, left: left, pool: newSuspendedPool(c.mem)})
	for c.lru.Len() > c.max {
		c.removeLocked(c.lru.Back())
	}
}

// get returns the statement cached for the ticket's query, the query's
// buffer pool and the function that ends the caller's use of them; all nil
// on a miss. Call release when the stream is over and every batch it sent
// was freed.
func (c *planCache) get(qid string, spec execSpec) (stmt Statement, pool *bufpool.Pool, release func()) {
	if c == nil {
		return nil, nil, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.entries[qid]
	if !ok {
		return nil, nil, nil
	}
	e := el.Value.(*planEntry)
	if time.Now().After(e.expires) {
		c.removeLocked(el)
		return nil, nil, nil
	}
	if e.key != specKey(spec) {
		return nil, nil, nil
	}
	c.lru.MoveToFront(el)
	e.active++
	if e.active == 1 {
		e.pool.Resume()
	}
	return e.stmt, e.pool, func() { c.release(e) }
}

// release ends one stream's use of e. Once the entry is gone its pool is
// closed and Suspend does nothing more.
func (c *planCache) release(e *planEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e.active--; e.active == 0 {
		e.pool.Suspend()
	}
}

// done records that endpoint ep of qid was streamed to the end; the entry
// is dropped once every endpoint was. A client that fetches an endpoint
// again later gets it planned again.
func (c *planCache) done(qid string, ep int) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.entries[qid]
	if !ok {
		return
	}
	e := el.Value.(*planEntry)
	delete(e.left, ep)
	if len(e.left) == 0 {
		c.removeLocked(el)
	}
}

// drop forgets qid (the query was cancelled).
func (c *planCache) drop(qid string) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.entries[qid]; ok {
		c.removeLocked(el)
	}
}

func (c *planCache) len() int {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lru.Len()
}

func (c *planCache) expireLocked(now time.Time) {
	for el := c.lru.Back(); el != nil; {
		prev := el.Prev()
		if now.After(el.Value.(*planEntry).expires) {
			c.removeLocked(el)
		}
		el = prev
	}
}

func (c *planCache) removeLocked(el *list.Element) {
	e := el.Value.(*planEntry)
	delete(c.entries, e.qid)
	c.lru.Remove(el)
	e.pool.Close()
}

// specKey identifies what a statement was planned from.
func specKey(e execSpec) string {
	var b []byte
	add := func(s string) {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	add(e.SQL)
	add(e.DB)
	add(e.Sub)
	keys := make([]string, 0, len(e.Opts))
	for k := range e.Opts {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		add(k)
		add(e.Opts[k])
	}
	add(string(e.Params))
	return string(b)
}

func newSuspendedPool(mem memory.Allocator) *bufpool.Pool {
	p := bufpool.New(mem, queryPoolIdleBytes)
	p.Suspend()
	return p
}

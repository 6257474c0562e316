package lru

import (
	"container/list"
	"sync"
)

// Stats describes a cache's content and traffic.
type Stats struct {
	Entries   int   // entries held
	Bytes     int64 // accounted bytes held
	MaxBytes  int64 // budget (0 = disabled)
	Hits      int64 // Gets that found their key
	Misses    int64 // Gets of an enabled cache that did not
	Evictions int64 // entries dropped to stay within the budget
}

// Cache is a byte-bounded LRU map from K to V. The zero value is not usable;
// call New.
type Cache[K comparable, V any] struct {
	mu         sync.Mutex
	maxBytes   int64
	entryShare int64
	used       int64
	lru        list.List // of *entry[K, V]; front = most recently used
	byKey      map[K]*list.Element
	hits       int64
	misses     int64
	evictions  int64
}

type entry[K comparable, V any] struct {
	key  K
	val  V
	size int64
}

// New returns a cache holding about maxBytes (<= 0 disables it). An entry
// larger than maxBytes/entryShare is not admitted (entryShare <= 1: larger
// than the whole budget), so one entry cannot crowd out the rest.
func New[K comparable, V any](maxBytes, entryShare int64) *Cache[K, V] {
	return &Cache[K, V]{maxBytes: max(maxBytes, 0), entryShare: max(entryShare, 1), byKey: map[K]*list.Element{}}
}

// Get returns k's value and moves it to the front, counting a hit or a
// miss; a disabled cache misses without counting.
func (c *Cache[K, V]) Get(k K) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var zero V
	if c.maxBytes == 0 {
		return zero, false
	}
	el, ok := c.byKey[k]
	if !ok {
		c.misses++
		return zero, false
	}
	c.hits++
	c.lru.MoveToFront(el)
	return el.Value.(*entry[K, V]).val, true
}

// Add inserts v under k accounted as size bytes, evicting least recently
// used entries down to the budget. It reports whether v is now held: false
// when the cache is disabled, size exceeds the entry limit, or k is already
// held (the held value is kept).
func (c *Cache[K, V]) Add(k K, v V, size int64) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.maxBytes == 0 || size > c.maxBytes/c.entryShare {
		return false
	}
	if _, ok := c.byKey[k]; ok {
		return false
	}
	e := &entry[K, V]{key: k, val: v, size: max(size, 0)}
	el := c.lru.PushFront(e)
	c.byKey[k] = el
	c.used += e.size
	c.evictLocked(el)
	return true
}

// Grow adds delta bytes to the accounted size of k's entry when same
// reports that the held value is the caller's (a value evicted and another
// added under the same key is not), then evicts down to the budget, keeping
// that entry unless it alone exceeds the budget. It reports whether the
// entry was found. The entry's recency is unchanged.
func (c *Cache[K, V]) Grow(k K, delta int64, same func(V) bool) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.byKey[k]
	if !ok {
		return false
	}
	e := el.Value.(*entry[K, V])
	if same != nil && !same(e.val) {
		return false
	}
	delta = max(delta, -e.size)
	e.size += delta
	c.used += delta
	c.evictLocked(el)
	return true
}

// evictLocked drops least recently used entries until the budget holds,
// keeping keep (nil: none) unless it alone exceeds the budget.
func (c *Cache[K, V]) evictLocked(keep *list.Element) {
	for c.used > c.maxBytes {
		el := c.lru.Back()
		if el == nil {
			break
		}
		if el == keep && el.Value.(*entry[K, V]).size <= c.maxBytes && c.lru.Len() > 1 {
			el = el.Prev() // keep stays; evict the next oldest
		}
		e := el.Value.(*entry[K, V])
		c.lru.Remove(el)
		delete(c.byKey, e.key)
		c.used -= e.size
		c.evictions++
	}
}

// SetMaxBytes changes the budget, evicting down to it; 0 (or less)
// disables the cache and drops its content.
func (c *Cache[K, V]) SetMaxBytes(n int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.maxBytes = max(n, 0)
	c.evictLocked(nil)
}

// MaxBytes returns the budget (0 = disabled).
func (c *Cache[K, V]) MaxBytes() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.maxBytes
}

// Clear drops every entry (the counters are kept).
func (c *Cache[K, V]) Clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.lru.Init()
	clear(c.byKey)
	c.used = 0
}

// Stats returns a snapshot of the cache's content and counters.
func (c *Cache[K, V]) Stats() Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return Stats{Entries: c.lru.Len(), Bytes: c.used, MaxBytes: c.maxBytes,
		Hits: c.hits, Misses: c.misses, Evictions: c.evictions}
}

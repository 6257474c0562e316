package lru

import (
	"fmt"
	"sync"
	"testing"
)

func keys(c *Cache[string, int]) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for el := c.lru.Front(); el != nil; el = el.Next() {
		out = append(out, el.Value.(*entry[string, int]).key)
	}
	return out
}

func wantKeys(t *testing.T, c *Cache[string, int], want ...string) {
	t.Helper()
	if got := keys(c); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("keys (most recent first) %v, want %v", got, want)
	}
}

func wantStats(t *testing.T, c *Cache[string, int], want Stats) {
	t.Helper()
	if got := c.Stats(); got != want {
		t.Fatalf("stats %+v, want %+v", got, want)
	}
}

func TestEvictionOrderAndBudget(t *testing.T) {
	c := New[string, int](100, 1)
	for i, k := range []string{"a", "b", "c"} {
		if !c.Add(k, i, 30) {
			t.Fatalf("Add %s refused", k)
		}
	}
	wantKeys(t, c, "c", "b", "a")
	if v, ok := c.Get("a"); !ok || v != 0 {
		t.Fatalf("Get a = %v, %v", v, ok)
	}
	wantKeys(t, c, "a", "c", "b")
	if _, ok := c.Get("zz"); ok {
		t.Fatal("Get of a missing key hit")
	}
	// d (30) makes 120 > 100: b, the least recently used, goes.
	c.Add("d", 3, 30)
	wantKeys(t, c, "d", "a", "c")
	wantStats(t, c, Stats{Entries: 3, Bytes: 90, MaxBytes: 100, Hits: 1, Misses: 1, Evictions: 1})
	// An entry of 80 evicts the two oldest (c then a).
	c.Add("e", 4, 80)
	wantKeys(t, c, "e")
	wantStats(t, c, Stats{Entries: 1, Bytes: 80, MaxBytes: 100, Hits: 1, Misses: 1, Evictions: 4})
	// A held key keeps its first value.
	if c.Add("e", 99, 1) {
		t.Fatal("Add of a held key replaced it")
	}
	if v, _ := c.Get("e"); v != 4 {
		t.Fatalf("e = %d, want the first value 4", v)
	}
}

func TestOversizeEntries(t *testing.T) {
	c := New[string, int](100, 1)
	c.Add("a", 1, 50)
	if c.Add("big", 2, 101) {
		t.Fatal("an entry larger than the budget was admitted")
	}
	wantKeys(t, c, "a") // and nothing was evicted for it
	if !c.Add("full", 3, 100) {
		t.Fatal("an entry of exactly the budget was refused")
	}
	wantKeys(t, c, "full")
	// entryShare 4: entries above a quarter of the budget are refused.
	q := New[string, int](100, 4)
	if q.Add("x", 1, 26) || !q.Add("y", 2, 25) {
		t.Fatal("quarter-budget entry limit not applied")
	}
	wantStats(t, q, Stats{Entries: 1, Bytes: 25, MaxBytes: 100})
}

func TestGrow(t *testing.T) {
	c := New[string, int](100, 1)
	c.Add("a", 1, 20)
	c.Add("b", 2, 20)
	c.Add("c", 3, 20)
	wantKeys(t, c, "c", "b", "a")
	// Growing a (the oldest) keeps it and evicts the next oldest instead.
	if !c.Grow("a", 50, func(v int) bool { return v == 1 }) {
		t.Fatal("Grow of a held entry failed")
	}
	wantKeys(t, c, "c", "a")
	wantStats(t, c, Stats{Entries: 2, Bytes: 90, MaxBytes: 100, Evictions: 1})
	// Another value under the key is not the caller's entry.
	if c.Grow("a", 5, func(v int) bool { return v == 7 }) {
		t.Fatal("Grow applied to another value under the same key")
	}
	if c.Grow("gone", 5, nil) {
		t.Fatal("Grow of a missing key reported success")
	}
	wantStats(t, c, Stats{Entries: 2, Bytes: 90, MaxBytes: 100, Evictions: 1})
	// Growing past the whole budget evicts everything older, then the entry.
	c.Add("d", 4, 10) // d, c, a: 100 bytes
	wantKeys(t, c, "d", "c", "a")
	c.Grow("c", 81, nil) // c = 101 alone exceeds 100
	wantKeys(t, c, "d")
	wantStats(t, c, Stats{Entries: 1, Bytes: 10, MaxBytes: 100, Evictions: 3})
	// Shrinking is accounted too, never below zero.
	c.Grow("d", -100, nil)
	wantStats(t, c, Stats{Entries: 1, Bytes: 0, MaxBytes: 100, Evictions: 3})
}

func TestSetMaxBytesAndDisable(t *testing.T) {
	c := New[string, int](100, 1)
	for i, k := range []string{"a", "b", "c", "d"} {
		c.Add(k, i, 25)
	}
	c.SetMaxBytes(60)
	wantKeys(t, c, "d", "c")
	wantStats(t, c, Stats{Entries: 2, Bytes: 50, MaxBytes: 60, Evictions: 2})
	c.SetMaxBytes(0)
	wantStats(t, c, Stats{Entries: 0, Bytes: 0, MaxBytes: 0, Evictions: 4})
	if c.Add("x", 1, 1) {
		t.Fatal("a disabled cache admitted an entry")
	}
	if _, ok := c.Get("x"); ok {
		t.Fatal("a disabled cache hit")
	}
	wantStats(t, c, Stats{Evictions: 4}) // Get of a disabled cache is not counted
	for _, n := range []int64{0, -5} {
		d := New[string, int](n, 1)
		if d.Add("x", 1, 0) || d.MaxBytes() != 0 {
			t.Fatalf("New(%d) is not disabled", n)
		}
	}
	c.SetMaxBytes(10)
	c.Add("y", 1, 5)
	c.Get("y")
	c.Clear()
	wantStats(t, c, Stats{MaxBytes: 10, Hits: 1, Evictions: 4}) // Clear keeps counters
	if _, ok := c.Get("y"); ok {
		t.Fatal("Clear kept an entry")
	}
}

func TestConcurrent(t *testing.T) {
	c := New[int, int](1000, 1)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 2000 {
				k := (g*7 + i) % 50
				if v, ok := c.Get(k); ok && v != k {
					t.Errorf("key %d holds %d", k, v)
					return
				}
				c.Add(k, k, int64(10+k%40))
				c.Grow(k, int64(i%3-1), func(v int) bool { return v == k })
				if i%500 == 0 {
					c.SetMaxBytes(int64(500 + i%1000))
				}
				if st := c.Stats(); st.Bytes > st.MaxBytes {
					t.Errorf("over budget: %+v", st)
					return
				}
			}
		}()
	}
	wg.Wait()
	st := c.Stats()
	c.mu.Lock()
	var sum int64
	for el := c.lru.Front(); el != nil; el = el.Next() {
		sum += el.Value.(*entry[int, int]).size
	}
	n := len(c.byKey)
	c.mu.Unlock()
	if sum != st.Bytes || n != st.Entries {
		t.Fatalf("accounting drifted: %d bytes in entries, %d in stats; %d keys, %d entries", sum, st.Bytes, n, st.Entries)
	}
}

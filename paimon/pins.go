package paimon

import (
	"sync"
	"time"
)

// Snapshot pins tell housekeeping in this process which snapshots are being
// read: ExpireSnapshots never expires a snapshot at or after the oldest
// pinned one of its branch. A pin lasts until its release function is
// called or, when it has a TTL, until the TTL passes (scans that were
// planned but never read must not block expiry forever). The registry is
// keyed by table root and branch; it is process-wide.
var pins = struct {
	sync.Mutex
	seq  uint64
	byID map[string]map[uint64]pin
}{byID: map[string]map[uint64]pin{}}

type pin struct {
	snapshot int64
	deadline time.Time // zero: until released
}

func (t *Table) pinKey() string { return t.root + "\x00" + t.branch }

// PinSnapshot pins snapshot id of this branch until release is called or
// ttl passes (ttl <= 0: until released). release may be called more than
// once.
func (t *Table) PinSnapshot(id int64, ttl time.Duration) (release func()) {
	key := t.pinKey()
	p := pin{snapshot: id}
	if ttl > 0 {
		p.deadline = time.Now().Add(ttl)
	}
	pins.Lock()
	pins.seq++
	n := pins.seq
	m := pins.byID[key]
	if m == nil {
		m = map[uint64]pin{}
		pins.byID[key] = m
	}
	m[n] = p
	pins.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			pins.Lock()
			defer pins.Unlock()
			if m := pins.byID[key]; m != nil {
				delete(m, n)
				if len(m) == 0 {
					delete(pins.byID, key)
				}
			}
		})
	}
}

// OldestPinnedSnapshot returns the oldest snapshot of this branch pinned by
// a scan of this process (pins past their TTL are dropped).
func (t *Table) OldestPinnedSnapshot() (int64, bool) {
	key := t.pinKey()
	now := time.Now()
	pins.Lock()
	defer pins.Unlock()
	var oldest int64
	found := false
	for n, p := range pins.byID[key] {
		if !p.deadline.IsZero() && now.After(p.deadline) {
			delete(pins.byID[key], n)
			continue
		}
		if !found || p.snapshot < oldest {
			oldest, found = p.snapshot, true
		}
	}
	if len(pins.byID[key]) == 0 {
		delete(pins.byID, key)
	}
	return oldest, found
}

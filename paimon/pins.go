package paimon

import (
	"path"
	"sync"
	"time"
)

// Snapshot pins tell housekeeping in this process which snapshots are being
// read: ExpireSnapshots never expires a snapshot at or after the oldest
// pinned one of its branch. A pin lasts until its release function is
// called or, when it has a TTL, until the TTL passes (scans that were
// planned but never read must not block expiry forever). TTL pins of one
// snapshot collapse into one entry with the latest deadline, and lapsed
// ones are dropped whenever a pin is added, so the registry stays as small
// as the set of snapshots read recently. It is keyed by table root and
// branch, and process-wide.
var pins = struct {
	sync.Mutex
	seq    uint64
	tables map[string]*tablePins
}{tables: map[string]*tablePins{}}

type tablePins struct {
	held map[uint64]int64    // pins until released: sequence → snapshot
	ttl  map[int64]time.Time // snapshot → deadline
}

func (t *Table) pinKey() string { return path.Clean(t.root) + "\x00" + t.branch }

func (p *tablePins) sweep(now time.Time) {
	for id, d := range p.ttl {
		if now.After(d) {
			delete(p.ttl, id)
		}
	}
}

// PinSnapshot pins snapshot id of this branch until release is called or,
// with ttl > 0, until ttl passes. release may be called more than once.
func (t *Table) PinSnapshot(id int64, ttl time.Duration) (release func()) {
	key := t.pinKey()
	now := time.Now()
	pins.Lock()
	defer pins.Unlock()
	p := pins.tables[key]
	if p == nil {
		p = &tablePins{held: map[uint64]int64{}, ttl: map[int64]time.Time{}}
		pins.tables[key] = p
	}
	p.sweep(now)
	if ttl > 0 {
		if d := now.Add(ttl); d.After(p.ttl[id]) {
			p.ttl[id] = d
		}
		return func() {}
	}
	pins.seq++
	n := pins.seq
	p.held[n] = id
	var once sync.Once
	return func() {
		once.Do(func() {
			pins.Lock()
			defer pins.Unlock()
			delete(p.held, n)
			if len(p.held) == 0 && len(p.ttl) == 0 && pins.tables[key] == p {
				delete(pins.tables, key)
			}
		})
	}
}

// OldestPinnedSnapshot returns the oldest snapshot of this branch pinned by
// a scan of this process.
func (t *Table) OldestPinnedSnapshot() (int64, bool) {
	pins.Lock()
	defer pins.Unlock()
	p := pins.tables[t.pinKey()]
	if p == nil {
		return 0, false
	}
	p.sweep(time.Now())
	var oldest int64
	found := false
	consider := func(id int64) {
		if !found || id < oldest {
			oldest, found = id, true
		}
	}
	for _, id := range p.held {
		consider(id)
	}
	for id := range p.ttl {
		consider(id)
	}
	return oldest, found
}

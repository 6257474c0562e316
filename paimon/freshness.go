package paimon

import (
	"sync"
	"time"

	"github.com/paimon-flightsql/paimon-flightsql/paimon/fileio"
)

// This file is the freshness window (catalog option
// cache.expiration-interval): on an object store, a handle made with
// WithFreshness(w) reuses the answer of a check of mutable metadata — the
// latest snapshot (LATEST hint and its probes) and the listing of schema/ —
// for up to w after that check started, without asking storage again.
//
// Invariants:
//   - Bounded staleness: an answer is served only while
//     now < (start of the check that produced it) + w; the check's start is
//     taken before its first request, so what is served never reflects
//     storage older than w.
//   - Own writes at once: a record remembers the store's write generation
//     (fileio.WriteGeneration) read before its check; any write of this
//     process to that store (a commit, ALTER, DROP, expire, rollback:
//     every mutating FileIO call) advances it and the record is dropped.
//     Only other processes' writes can be up to w late.
//   - w = 0 (the default of a handle) checks storage on every call, as
//     without this file. Writers never use a window: their handles come
//     from OpenTable/TableAt without WithFreshness, and commit conflict
//     checks always read the current latest snapshot.
//   - Only FileIOs that name versions (object stores) take part: a local
//     check costs a stat.
//   - A record holds ids and version strings only; the file bytes stay in
//     the metadata cache keyed by (path, version), so a snapshot or schema
//     served within the window is byte for byte the file storage named.

// freshLatest is a recorded latest-snapshot check of one branch.
type freshLatest struct {
	id    int64
	ver   string // version of snapshot-<id> the check saw
	start time.Time
	gen   uint64
}

// freshSchemas is a recorded listing of one branch's schema/ directory.
type freshSchemas struct {
	ids   []int64
	vers  []string
	start time.Time
	gen   uint64
}

// freshTable holds the freshness records of a MetaCache.
type freshTable struct {
	mu      sync.Mutex
	latest  map[metaKey]freshLatest
	schemas map[metaKey]freshSchemas
}

// maxFreshRecords bounds each record map (dropped whole when full).
const maxFreshRecords = 4096

// WithFreshness returns a handle on the same table and branch that reuses
// a check of the latest snapshot or of the schema listing made by this
// process less than w ago (see freshness.go); w <= 0 checks every time.
// For query planning only: never for a handle that commits.
func (t *Table) WithFreshness(w time.Duration) *Table {
	u := *t
	u.fresh = max(w, 0)
	return &u
}

// Freshness is the handle's freshness window (0 = none).
func (t *Table) Freshness() time.Duration { return t.fresh }

// freshKey returns the record key of dir and the store's identity, when
// this handle uses a window on a FileIO that names versions.
func (t *Table) freshKey(dir string) (metaKey, string, bool) {
	if t.fresh <= 0 {
		return metaKey{}, "", false
	}
	if _, ok := t.io.(fileio.Versioner); !ok {
		return metaKey{}, "", false
	}
	si, ok := t.io.(fileio.StoreIdentifier)
	if !ok || si.StoreIdentity() == "" {
		return metaKey{}, "", false
	}
	store, _ := storeIdentity(t.io)
	return metaKey{store: store, path: dir}, si.StoreIdentity(), true
}

// freshValid reports whether a record made at start with generation gen
// may still be served.
func (t *Table) freshValid(start time.Time, gen uint64, ident string) bool {
	return time.Since(start) < t.fresh && fileio.WriteGeneration(ident) == gen
}

// cachedLatest returns the recorded latest snapshot of this branch when
// the window allows.
func (t *Table) cachedLatest() (id int64, ver string, ok bool) {
	k, ident, ok := t.freshKey(t.SnapshotDir())
	if !ok {
		return 0, "", false
	}
	c := t.metaCache()
	c.fresh.mu.Lock()
	r, ok := c.fresh.latest[k]
	c.fresh.mu.Unlock()
	if !ok || !t.freshValid(r.start, r.gen, ident) {
		return 0, "", false
	}
	return r.id, r.ver, true
}

// freshStamp returns the start and generation to record for a check about
// to be made (ok=false when this handle records nothing).
func (t *Table) freshStamp(dir string) (time.Time, uint64, bool) {
	_, ident, ok := t.freshKey(dir)
	if !ok {
		return time.Time{}, 0, false
	}
	return time.Now(), fileio.WriteGeneration(ident), true
}

// recordLatest records a latest-snapshot check that started at start.
func (t *Table) recordLatest(start time.Time, gen uint64, id int64, ver string) {
	k, _, ok := t.freshKey(t.SnapshotDir())
	if !ok || ver == "" {
		return
	}
	c := t.metaCache()
	c.fresh.mu.Lock()
	defer c.fresh.mu.Unlock()
	if c.fresh.latest == nil || len(c.fresh.latest) >= maxFreshRecords {
		c.fresh.latest = map[metaKey]freshLatest{}
	}
	if old, ok := c.fresh.latest[k]; ok && old.start.After(start) {
		return // a later check already recorded
	}
	c.fresh.latest[k] = freshLatest{id: id, ver: ver, start: start, gen: gen}
}

// cachedSchemas returns the recorded listing of this branch's schema/.
func (t *Table) cachedSchemas() (ids []int64, vers []string, ok bool) {
	k, ident, ok := t.freshKey(t.SchemaDir())
	if !ok {
		return nil, nil, false
	}
	c := t.metaCache()
	c.fresh.mu.Lock()
	r, ok := c.fresh.schemas[k]
	c.fresh.mu.Unlock()
	if !ok || !t.freshValid(r.start, r.gen, ident) {
		return nil, nil, false
	}
	return r.ids, r.vers, true
}

// recordSchemas records a listing of schema/ that started at start; a
// listing that named no version for some file is not recorded (its file
// could not be validated from the cache).
func (t *Table) recordSchemas(start time.Time, gen uint64, ids []int64, vers []string) {
	k, _, ok := t.freshKey(t.SchemaDir())
	if !ok || len(ids) == 0 {
		return
	}
	for _, v := range vers {
		if v == "" {
			return
		}
	}
	c := t.metaCache()
	c.fresh.mu.Lock()
	defer c.fresh.mu.Unlock()
	if c.fresh.schemas == nil || len(c.fresh.schemas) >= maxFreshRecords {
		c.fresh.schemas = map[metaKey]freshSchemas{}
	}
	if old, ok := c.fresh.schemas[k]; ok && old.start.After(start) {
		return
	}
	c.fresh.schemas[k] = freshSchemas{ids: ids, vers: vers, start: start, gen: gen}
}

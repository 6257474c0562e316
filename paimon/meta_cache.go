package paimon

import (
	"context"
	"errors"
	"io/fs"
	"sync"

	"github.com/paimon-flightsql/paimon-flightsql/internal/lru"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/fileio"
)

// This file is the metadata cache: snapshot, schema and manifest-list files
// held as bytes, process-wide, bounded by memory, beside the manifest cache.
//
// Soundness. A snapshot-N or schema-N file is immutable while it exists,
// but it can be deleted (expiration, rollback) and the path reused (a table
// dropped and re-created at the same location). So an entry is keyed by the
// file's version (fileio.Versioner: ETag and size on S3; local disk names
// no versions and is not cached: its reads are page-cache copies), and a
// lookup first asks storage for the current version (one
// HEAD or stat): a cached file is never served without that check, and a
// deleted file is reported missing as before. A manifest list is keyed by
// the version of the snapshot file that named it (its name is written once,
// by that snapshot's commit), so it needs no check of its own. LATEST and
// EARLIEST hints are never cached (a handle with a freshness window reuses
// a recent check of them instead: freshness.go). What a hit saves is the transfer and the
// parse of the file; on an object store a HEAD still costs a round trip.
//
// Fewer checks per plan (issue 17), each still made. A schema file's
// version can come from the listing of schema/ that finds the latest
// schema (S3 lists each key's ETag and size): the listing is made anyway,
// so it validates every schema file of that query without a HEAD each. A
// snapshot file is validated by a HEAD, as before: snapshot-N can be
// deleted (expiration) and re-created with other content (rollback, then
// new commits reaching N again), which neither LATEST nor EARLIEST reveals
// — only the file's ETag does. What the cache adds for snapshots is the
// latest id it last resolved per branch: the next resolution sends the
// HEADs of snapshot-<guess+1> and snapshot-<guess> beside the GET of
// LATEST, and uses them only when LATEST names the guess; the checks and
// the answer are those of the sequential path, in one round trip.
//
// Entries are bytes, parsed on each hit: callers own what they get back.

// DefaultMetaCacheBytes is the default budget of the process-wide metadata
// cache.
const DefaultMetaCacheBytes int64 = 64 << 20

var defaultMetaCache = NewMetaCache(DefaultMetaCacheBytes)

// DefaultMetaCache returns the process-wide metadata cache Table uses.
// Resize it with SetMaxBytes (0 disables it).
func DefaultMetaCache() *MetaCache { return defaultMetaCache }

// MetaCache caches metadata file bytes by (storage, path, version), with
// least-recently-used eviction within a byte budget (internal/lru). Safe for
// concurrent use.
type MetaCache struct {
	// lru holds file bytes, each accounted as len + metaEntryOverhead; a file
	// larger than a quarter of the budget is not kept.
	lru *lru.Cache[metaKey, []byte]
	// latest: the latest snapshot id last resolved per (store, snapshot
	// directory). Only a guess of which ids to check: never an answer.
	latestMu sync.Mutex
	latest   map[metaKey]int64
	// fresh: checks reused within a handle's freshness window (freshness.go).
	fresh freshTable
}

// MetaCacheStats describes a metadata cache's content and traffic.
type MetaCacheStats struct {
	Files     int
	Bytes     int64
	MaxBytes  int64
	Hits      int64
	Misses    int64
	Evictions int64
}

// maxLatestGuesses bounds the remembered latest snapshot ids (one per
// table branch; the map is dropped when full).
const maxLatestGuesses = 4096

type metaKey struct {
	store   any
	path    string
	version string
}

// metaEntryOverhead approximates the bookkeeping bytes of one entry.
const metaEntryOverhead = 256

// NewMetaCache returns a cache holding about maxBytes; <= 0 disables it.
func NewMetaCache(maxBytes int64) *MetaCache {
	return &MetaCache{lru: lru.New[metaKey, []byte](maxBytes, 4)}
}

// SetMaxBytes changes the budget, evicting down to it (0 disables).
func (c *MetaCache) SetMaxBytes(n int64) { c.lru.SetMaxBytes(n) }

// Clear drops every entry and freshness record (counters are kept).
func (c *MetaCache) Clear() {
	c.lru.Clear()
	c.fresh.mu.Lock()
	c.fresh.latest, c.fresh.schemas = nil, nil
	c.fresh.mu.Unlock()
}

// Stats returns the cache's counters.
func (c *MetaCache) Stats() MetaCacheStats {
	s := c.lru.Stats()
	return MetaCacheStats{Files: s.Entries, Bytes: s.Bytes, MaxBytes: s.MaxBytes,
		Hits: s.Hits, Misses: s.Misses, Evictions: s.Evictions}
}

func (c *MetaCache) get(k metaKey) ([]byte, bool) { return c.lru.Get(k) }

// put keeps data unless the cache is disabled, one file would crowd out the
// rest (more than a quarter of the budget) or k is already held.
func (c *MetaCache) put(k metaKey, data []byte) {
	c.lru.Add(k, data, int64(len(data))+metaEntryOverhead)
}

// readVersioned reads a metadata file through the cache: it asks storage
// for the file's version (known = a version the caller just obtained, or
// ""), serves a cached copy of that version, else reads and caches the
// file. found=false when the file does not exist. ver is the version read
// ("" when the FileIO cannot name versions: nothing is cached then).
func (t *Table) readVersioned(ctx context.Context, p, known string) (b []byte, ver string, found bool, err error) {
	c := t.metaCache()
	store, ok := storeIdentity(t.io)
	if c == nil || !ok {
		b, found, err = t.readMeta(ctx, p)
		return b, "", found, err
	}
	ver = known
	if ver == "" {
		ver, err = fileio.FileVersion(ctx, t.io, p)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil, "", false, nil
			}
			return nil, "", false, err
		}
	}
	if ver == "" {
		b, found, err = t.readMeta(ctx, p)
		return b, "", found, err
	}
	k := metaKey{store: store, path: p, version: ver}
	if b, ok := c.get(k); ok {
		return b, ver, true, nil
	}
	b, found, err = t.readMeta(ctx, p)
	if err != nil || !found {
		return b, "", found, err
	}
	c.put(k, b)
	return b, ver, true, nil
}

// readListCached reads a manifest list named by snap through the cache,
// keyed by the version of the snapshot file that names it.
func (t *Table) readListCached(ctx context.Context, snap *Snapshot, name string) ([]byte, error) {
	c := t.metaCache()
	store, ok := storeIdentity(t.io)
	if c == nil || !ok || snap == nil || snap.version == "" {
		return t.readManifestBytes(ctx, name)
	}
	k := metaKey{store: store, path: t.ManifestPath(name), version: "list-of:" + t.SnapshotPath(snap.ID) + "@" + snap.version}
	if b, ok := c.get(k); ok {
		return b, nil
	}
	b, err := t.readManifestBytes(ctx, name)
	if err != nil {
		return nil, err
	}
	c.put(k, b)
	return b, nil
}

func (t *Table) metaCache() *MetaCache {
	if t.mcache != nil {
		return t.mcache
	}
	return defaultMetaCache
}

// latestGuess returns the latest snapshot id this process last resolved
// for the branch, when the FileIO names versions (an object store: there
// the guess saves round trips; a local check costs nothing to wait for).
func (t *Table) latestGuess() (int64, bool) {
	c := t.metaCache()
	store, ok := storeIdentity(t.io)
	if _, vok := t.io.(fileio.Versioner); c == nil || !ok || !vok {
		return 0, false
	}
	if c.lru.MaxBytes() == 0 {
		return 0, false
	}
	c.latestMu.Lock()
	defer c.latestMu.Unlock()
	id, ok := c.latest[metaKey{store: store, path: t.SnapshotDir()}]
	return id, ok
}

// rememberLatest records id as the branch's latest snapshot (a guess for
// the next resolution).
func (t *Table) rememberLatest(id int64) {
	c := t.metaCache()
	store, ok := storeIdentity(t.io)
	if _, vok := t.io.(fileio.Versioner); c == nil || !ok || !vok {
		return
	}
	if c.lru.MaxBytes() == 0 {
		return
	}
	c.latestMu.Lock()
	defer c.latestMu.Unlock()
	if c.latest == nil || len(c.latest) >= maxLatestGuesses {
		c.latest = map[metaKey]int64{}
	}
	c.latest[metaKey{store: store, path: t.SnapshotDir()}] = id
}

package format

import (
	"errors"
	"io"
	"path"
	"strings"
	"sync/atomic"

	"github.com/paimon-flightsql/paimon-flightsql/internal/lru"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// This file is the Parquet footer cache: a process-wide, memory-bounded LRU
// of parsed Parquet footers (design: docs/design/parquet-read.md, "Footer
// cache"). Paimon data files are immutable and their names carry a UUID, so
// a file identified by (storage, path, size) always has the same footer; a
// query that reads a cached file parses nothing: it reuses the arrow-go
// metadata, the column layout maps and the parquet-go File with the fast
// path's column plan, and reads pages through its own open handle.

// DefaultFooterCacheBytes is the default budget of the process-wide footer
// cache (approximate bytes of parsed footers held).
const DefaultFooterCacheBytes int64 = 64 << 20

var defaultFooterCache = NewFooterCache(DefaultFooterCacheBytes)

// DefaultFooterCache returns the process-wide footer cache used by OpenCached
// when no cache is given. Resize it with SetMaxBytes (0 disables it).
func DefaultFooterCache() *FooterCache { return defaultFooterCache }

// FooterKey identifies a data file: the storage it lives in (a comparable
// value naming the FileIO's root, or the FileIO itself), its path in that
// storage and its size in bytes. Store nil means "unknown storage": such
// files are never cached.
type FooterKey struct {
	Store any
	Path  string
	Size  int64
}

// FooterCacheStats describes a cache's content and traffic.
type FooterCacheStats struct {
	Files     int   // footers held
	Bytes     int64 // approximate bytes held
	MaxBytes  int64 // budget (0 = disabled)
	Hits      int64 // opens served from the cache
	Misses    int64 // opens that parsed the footer
	Evictions int64 // footers evicted to stay within the budget
}

// FooterCache caches parsed Parquet footers, bounded by an approximate
// memory budget with least-recently-used eviction (internal/lru). It is safe
// for concurrent use. The zero value is not usable; call NewFooterCache.
type FooterCache struct {
	// lru holds footers by key, each accounted as its parquetMeta.bytes; a
	// footer larger than a quarter of the budget is not kept.
	lru *lru.Cache[FooterKey, *parquetMeta]
}

// NewFooterCache returns a cache holding about maxBytes of parsed footers;
// maxBytes <= 0 gives a disabled cache.
func NewFooterCache(maxBytes int64) *FooterCache {
	return &FooterCache{lru: lru.New[FooterKey, *parquetMeta](maxBytes, 4)}
}

// SetMaxBytes changes the budget, evicting down to it; 0 (or less) disables
// the cache and drops its content.
func (c *FooterCache) SetMaxBytes(n int64) { c.lru.SetMaxBytes(n) }

// MaxBytes is the current budget (0 = disabled).
func (c *FooterCache) MaxBytes() int64 { return c.lru.MaxBytes() }

// Stats returns the cache's counters.
func (c *FooterCache) Stats() FooterCacheStats {
	s := c.lru.Stats()
	return FooterCacheStats{Files: s.Entries, Bytes: s.Bytes, MaxBytes: s.MaxBytes,
		Hits: s.Hits, Misses: s.Misses, Evictions: s.Evictions}
}

// Clear drops every cached footer (the counters stay).
func (c *FooterCache) Clear() { c.lru.Clear() }

func (c *FooterCache) get(k FooterKey) *parquetMeta {
	m, _ := c.lru.Get(k)
	return m
}

// put inserts a parsed footer (a concurrent open of the same file may have
// inserted it first: that one is kept). A footer larger than a quarter of
// the budget is not kept.
func (c *FooterCache) put(k FooterKey, m *parquetMeta) { c.lru.Add(k, m, m.bytes) }

// footerBytesFactor converts a footer's serialized size into the estimate
// of what its parsed forms hold in memory: the arrow-go FileMetaData
// (thrift structs plus the schema tree) and the parquet-go File with its
// row group and column chunk objects. TestFooterCacheAccounting measures
// about 9 bytes held per serialized byte for both together (24 columns, 3
// row groups) and fails if the estimate falls below what is held; 16 keeps
// it on the safe side.
const footerBytesFactor = 16

// footerBaseBytes is the fixed cost of an entry (maps, slices, headers).
const footerBaseBytes = 4 << 10

// OpenCached opens a data file like Open; a Parquet file's parsed footer is
// taken from, or added to, cache (DefaultFooterCache when nil) under key.
// Other formats are opened as by Open. A key with a nil Store is not cached.
func OpenCached(r io.ReaderAt, key FooterKey, name string, fileFields []types.DataField, cache *FooterCache) (DataFile, error) {
	if strings.ToLower(path.Ext(name)) != ".parquet" || key.Store == nil {
		return Open(r, key.Size, name, fileFields)
	}
	if cache == nil {
		cache = defaultFooterCache
	}
	if m := cache.get(key); m != nil {
		return newParquetFile(m, r, key.Size, name, fileFields), nil
	}
	pf, err := OpenParquet(r, key.Size, name, fileFields)
	if err != nil {
		return nil, err
	}
	cache.put(key, pf.parquetMeta)
	return pf, nil
}

// detachedReader is the io.ReaderAt a cached parquet-go File is opened
// with: it serves the open (footer reads) and is then detached, so a cached
// File keeps no handle of the query that parsed it. Pages are always read
// with FileColumnChunk.PagesFrom and the reading query's handle; a read
// through a detached reader is an error, never a read of a closed handle.
type detachedReader struct {
	r atomic.Pointer[io.ReaderAt]
}

var errDetached = errors.New("parquet footer cache: read through a detached reader (internal error)")

func newDetachedReader(r io.ReaderAt) *detachedReader {
	d := &detachedReader{}
	d.r.Store(&r)
	return d
}

func (d *detachedReader) ReadAt(p []byte, off int64) (int, error) {
	r := d.r.Load()
	if r == nil {
		return 0, errDetached
	}
	return (*r).ReadAt(p, off)
}

func (d *detachedReader) detach() { d.r.Store(nil) }

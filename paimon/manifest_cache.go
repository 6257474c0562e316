package paimon

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"github.com/hamba/avro/v2"

	"github.com/paimon-flightsql/paimon-flightsql/internal/lru"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/fileio"
)

// This file is the manifest cache: a process-wide, memory-bounded cache of
// decoded manifest files for planning. Manifest files are immutable, so a
// cached manifest never changes; what can change is the file behind a name
// (a table dropped and re-created at the same path), which the key guards
// against with the metadata the manifest list records for the file.
//
// A cached manifest holds its entries grouped by serialized partition, in
// first-seen order, with each entry's record number. A planning pass with a
// partition filter asks the filter once per distinct partition and touches
// only the entries of the partitions it accepts; their entries are put back
// in manifest order, so a cached read returns exactly what decoding the file
// would. Avro manifests keep the decompressed blocks and each record's bytes:
// a partition is decoded the first time a query needs it (a cold query that
// pruned it never decoded it), then kept decoded.

// DefaultManifestCacheBytes is the default budget of the process-wide
// manifest cache (approximate bytes of decoded manifests held).
const DefaultManifestCacheBytes int64 = 256 << 20

var defaultManifestCache = NewManifestCache(DefaultManifestCacheBytes)

// DefaultManifestCache returns the process-wide manifest cache that
// ReadFileSet uses when FileSetOptions.Cache is nil. Resize it with
// SetMaxBytes (0 disables it).
func DefaultManifestCache() *ManifestCache { return defaultManifestCache }

// ManifestCache caches decoded manifest files, bounded by an approximate
// memory budget with least-recently-used eviction (internal/lru). It is safe
// for concurrent use. The zero value is not usable; call NewManifestCache.
type ManifestCache struct {
	// lru holds manifests by key, each accounted as its build size plus the
	// partitions decoded since (grow); a manifest larger than the whole
	// budget is not kept.
	lru *lru.Cache[manifestKey, *cachedManifest]
}

// ManifestCacheStats describes a cache's content and traffic.
type ManifestCacheStats struct {
	Manifests int   // manifests held
	Bytes     int64 // approximate bytes held
	MaxBytes  int64 // budget (0 = disabled)
	Hits      int64 // manifest reads served from the cache
	Misses    int64 // manifest reads that decoded the file
	Evictions int64 // manifests evicted to stay within the budget
}

// NewManifestCache returns a cache holding about maxBytes of decoded
// manifests; maxBytes <= 0 gives a disabled cache.
func NewManifestCache(maxBytes int64) *ManifestCache {
	return &ManifestCache{lru: lru.New[manifestKey, *cachedManifest](maxBytes, 1)}
}

// SetMaxBytes changes the budget, evicting down to it; 0 (or less) disables
// the cache and drops its content.
func (c *ManifestCache) SetMaxBytes(n int64) { c.lru.SetMaxBytes(n) }

// MaxBytes returns the budget (0 = disabled).
func (c *ManifestCache) MaxBytes() int64 { return c.lru.MaxBytes() }

// Clear drops every cached manifest (the counters are kept).
func (c *ManifestCache) Clear() { c.lru.Clear() }

// Stats returns a snapshot of the cache's counters.
func (c *ManifestCache) Stats() ManifestCacheStats {
	s := c.lru.Stats()
	return ManifestCacheStats{Manifests: s.Entries, Bytes: s.Bytes, MaxBytes: s.MaxBytes,
		Hits: s.Hits, Misses: s.Misses, Evictions: s.Evictions}
}

func (c *ManifestCache) enabled() bool {
	return c != nil && c.lru.MaxBytes() > 0
}

// manifestKey identifies one manifest file's content. Besides the storage and
// path it holds what the manifest list records about the file, so a file
// replaced behind the same name (a table dropped and re-created at the same
// location with deterministic manifest names) is not served from the cache
// unless it is indistinguishable by size, counts, schema and partition range.
type manifestKey struct {
	store    any // the FileIO's root directory, or the FileIO value itself
	path     string
	format   string
	size     int64
	added    int64
	deleted  int64
	schemaID int64
	pstats   string // partition min ‖ max bytes
}

// storeIdentity names the storage a FileIO reads: its StoreIdentity (S3:
// endpoint, bucket, prefix; local: root directory), else its root when it
// has one (two FileIOs over the same directory share entries), else the FileIO
// value itself when it is comparable; ok is false when it cannot be named.
func storeIdentity(fio fileio.FileIO) (any, bool) {
	// An S3 FileIO names endpoint, bucket and prefix: its Root() (the
	// s3:// URL) would let two endpoints with equal bucket/prefix collide.
	if s, ok := fio.(fileio.StoreIdentifier); ok {
		if id := s.StoreIdentity(); id != "" {
			return "store:" + id, true
		}
	}
	if r, ok := fio.(interface{ Root() string }); ok {
		return "root:" + r.Root(), true
	}
	if fio == nil || !reflect.TypeOf(fio).Comparable() {
		return nil, false
	}
	return fio, true
}

func makeManifestKey(store any, path, format string, m *ManifestFileMeta) manifestKey {
	ps := make([]byte, 0, 8+len(m.PartitionStats.MinValues)+len(m.PartitionStats.MaxValues))
	ps = strconv.AppendInt(ps, int64(len(m.PartitionStats.MinValues)), 10)
	ps = append(ps, ':')
	ps = append(ps, m.PartitionStats.MinValues...)
	ps = append(ps, m.PartitionStats.MaxValues...)
	return manifestKey{store: store, path: path, format: strings.ToLower(format), size: m.FileSize,
		added: m.NumAddedFiles, deleted: m.NumDeletedFiles, schemaID: m.SchemaID, pstats: string(ps)}
}

// cachedManifest is one manifest file's entries grouped by partition.
type cachedManifest struct {
	key    manifestKey
	n      int           // entries (records) in the file
	parts  []*cachedPart // distinct partitions, first-seen order
	schema avro.Schema   // writer schema of an Avro manifest (decodes cachedPart.recs)
	// size is the accounted bytes when built (set by finish, then read-only);
	// the cache accounts the partitions decoded later on top (grow).
	size int64
}

// cachedPart is the entries of one partition in one manifest.
type cachedPart struct {
	part          []byte
	adds, deletes int
	pos           []int32 // record number of each entry in the manifest, ascending

	mu      sync.Mutex
	recs    [][]byte         // encoded Avro records (aliasing retained blocks) until decoded
	entries []*ManifestEntry // decoded entries (shared, never modified); valid when decoded
	decoded bool
}

const (
	entryOverhead = int64(unsafe.Sizeof(ManifestEntry{})) + 16*6 // struct + optional fields
	partOverhead  = int64(unsafe.Sizeof(cachedPart{})) + 64
	recOverhead   = int64(unsafe.Sizeof([]byte(nil))) + 4
)

// decodedSize approximates the heap held by a decoded entry beyond the Avro
// bytes it aliases (withBytes also counts its byte slices, for entries that
// own them).
func decodedSize(e *ManifestEntry, withBytes bool) int64 {
	n := entryOverhead + int64(len(e.File.FileName)) +
		16*int64(len(e.File.KeyStats.NullCounts)+len(e.File.ValueStats.NullCounts))
	for _, s := range e.File.ExtraFiles {
		n += 16 + int64(len(s))
	}
	for _, s := range e.File.ValueStatsCols {
		n += 16 + int64(len(s))
	}
	for _, s := range e.File.WriteCols {
		n += 16 + int64(len(s))
	}
	n += 8 * int64(len(e.File.WriteColsSequences))
	if withBytes {
		n += int64(len(e.Partition) + len(e.File.MinKey) + len(e.File.MaxKey) + len(e.File.EmbeddedIndex) +
			len(e.File.KeyStats.MinValues) + len(e.File.KeyStats.MaxValues) +
			len(e.File.ValueStats.MinValues) + len(e.File.ValueStats.MaxValues))
	}
	return n
}

// lookup returns the cached manifest for key (moving it to the front), nil
// when it is not cached.
func (c *ManifestCache) lookup(key manifestKey) *cachedManifest {
	cm, _ := c.lru.Get(key)
	return cm
}

// insert adds cm unless the key is already cached or cm alone exceeds the
// budget.
func (c *ManifestCache) insert(cm *cachedManifest) { c.lru.Add(cm.key, cm, cm.size) }

// grow accounts delta more bytes to cm (a partition decoded on demand),
// unless cm was evicted meanwhile (another manifest cached under its key is
// not cm).
func (c *ManifestCache) grow(cm *cachedManifest, delta int64) {
	c.lru.Grow(cm.key, delta, func(v *cachedManifest) bool { return v == cm })
}

// decode decodes g's records (Avro) the first time a query needs them.
func (cm *cachedManifest) decode(g *cachedPart, name string) (entries []*ManifestEntry, grown int64, err error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.decoded {
		return g.entries, 0, nil
	}
	defer func() {
		if p := recover(); p != nil {
			entries, grown, err = nil, 0, corruptf(name, "decoder panic: %v", p)
		}
	}()
	if cm.schema == nil || len(g.recs) != len(g.pos) {
		return nil, 0, corruptf(name, "cached manifest has no records for partition %x", g.part)
	}
	names := map[*avro.RecordSchema]map[string]int{}
	out := make([]ManifestEntry, len(g.recs))
	for i, rec := range g.recs {
		br := newAvroReader(rec, names)
		v, err := br.decodeValue(cm.schema, 0)
		if err != nil {
			return nil, 0, corruptErr(name, fmt.Errorf("record %d: %w", g.pos[i], err))
		}
		if out[i], err = decodeManifestEntry(v); err != nil {
			return nil, 0, wrapRecordErr(name, int(g.pos[i]), err)
		}
		grown += decodedSize(&out[i], false) + 8
	}
	ptrs := make([]*ManifestEntry, len(out))
	for i := range out {
		ptrs[i] = &out[i]
	}
	g.entries, g.decoded, g.recs = ptrs, true, nil
	return ptrs, grown, nil
}

// collect returns copies of the entries of the partitions keep accepts (all
// when keep is nil), in manifest order, and the net count (ADD − DELETE) of
// the entries of rejected partitions.
func (c *ManifestCache) collect(cm *cachedManifest, name string, keep func([]byte) bool) ([]ManifestEntry, int, error) {
	type sel struct {
		g       *cachedPart
		entries []*ManifestEntry
	}
	var sels []sel
	total, skippedNet := 0, 0
	for _, g := range cm.parts {
		if keep != nil && !keep(g.part) {
			skippedNet += g.adds - g.deletes
			continue
		}
		es, grown, err := cm.decode(g, name)
		if err != nil {
			return nil, 0, err
		}
		if grown > 0 {
			c.grow(cm, grown)
		}
		sels = append(sels, sel{g, es})
		total += len(es)
	}
	switch {
	case total == 0:
		return nil, skippedNet, nil
	case len(sels) == 1:
		out := make([]ManifestEntry, len(sels[0].entries))
		for i, e := range sels[0].entries {
			out[i] = *e
		}
		return out, skippedNet, nil
	case 4*total >= cm.n:
		// Most of the manifest: place entries by record number.
		slot := make([]*ManifestEntry, cm.n)
		for _, s := range sels {
			for j, p := range s.g.pos {
				slot[p] = s.entries[j]
			}
		}
		out := make([]ManifestEntry, 0, total)
		for _, e := range slot {
			if e != nil {
				out = append(out, *e)
			}
		}
		return out, skippedNet, nil
	}
	type ref struct{ pos, s, j int32 }
	refs := make([]ref, 0, total)
	for si, s := range sels {
		for j, p := range s.g.pos {
			refs = append(refs, ref{p, int32(si), int32(j)})
		}
	}
	slices.SortFunc(refs, func(a, b ref) int { return int(a.pos - b.pos) })
	out := make([]ManifestEntry, len(refs))
	for i, r := range refs {
		out[i] = *sels[r.s].entries[r.j]
	}
	return out, skippedNet, nil
}

// ParseMemorySize parses a Paimon memory size ("256 mb", "1gb", "1024").
func ParseMemorySize(s string) (int64, error) {
	v := strings.ToLower(strings.ReplaceAll(strings.TrimSpace(s), " ", ""))
	mult := int64(1)
	for _, u := range []struct {
		suf string
		m   int64
	}{{"kb", 1 << 10}, {"mb", 1 << 20}, {"gb", 1 << 30}, {"tb", 1 << 40}, {"k", 1 << 10}, {"m", 1 << 20}, {"g", 1 << 30}, {"t", 1 << 40}, {"b", 1}} {
		if strings.HasSuffix(v, u.suf) {
			v, mult = strings.TrimSuffix(v, u.suf), u.m
			break
		}
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 || (n > 0 && n > (1<<63-1)/mult) {
		return 0, fmt.Errorf("bad memory size %q", s)
	}
	return n * mult, nil
}

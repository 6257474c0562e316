package paimon

import (
	"bytes"
	"container/list"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"github.com/hamba/avro/v2"

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
// memory budget with least-recently-used eviction. It is safe for concurrent
// use. The zero value is not usable; call NewManifestCache.
type ManifestCache struct {
	mu       sync.Mutex
	maxBytes int64
	used     int64
	lru      list.List // of *cachedManifest; front = most recently used
	byKey    map[manifestKey]*list.Element
	stats    ManifestCacheStats
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
	return &ManifestCache{maxBytes: max(maxBytes, 0), byKey: map[manifestKey]*list.Element{}}
}

// SetMaxBytes changes the budget, evicting down to it; 0 (or less) disables
// the cache and drops its content.
func (c *ManifestCache) SetMaxBytes(n int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.maxBytes = max(n, 0)
	c.evictLocked(nil)
}

// MaxBytes returns the budget (0 = disabled).
func (c *ManifestCache) MaxBytes() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.maxBytes
}

// Clear drops every cached manifest (the counters are kept).
func (c *ManifestCache) Clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for e := c.lru.Front(); e != nil; e = e.Next() {
		e.Value.(*cachedManifest).elem = nil
	}
	c.lru.Init()
	clear(c.byKey)
	c.used = 0
}

// Stats returns a snapshot of the cache's counters.
func (c *ManifestCache) Stats() ManifestCacheStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.stats
	s.Manifests, s.Bytes, s.MaxBytes = c.lru.Len(), c.used, c.maxBytes
	return s
}

func (c *ManifestCache) enabled() bool {
	if c == nil {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.maxBytes > 0
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
	// size is the accounted bytes; elem the LRU element (nil once evicted).
	// Both are guarded by the cache's mutex.
	size int64
	elem *list.Element
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

// lookup returns the cached manifest for key (moving it to the front).
func (c *ManifestCache) lookup(key manifestKey) *cachedManifest {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.byKey[key]
	if !ok {
		c.stats.Misses++
		return nil
	}
	c.stats.Hits++
	c.lru.MoveToFront(el)
	return el.Value.(*cachedManifest)
}

// insert adds cm unless the key is already cached or cm alone exceeds the
// budget.
func (c *ManifestCache) insert(cm *cachedManifest) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.maxBytes <= 0 || cm.size > c.maxBytes {
		return
	}
	if _, ok := c.byKey[cm.key]; ok {
		return
	}
	cm.elem = c.lru.PushFront(cm)
	c.byKey[cm.key] = cm.elem
	c.used += cm.size
	c.evictLocked(cm)
}

// grow accounts delta more bytes to cm (a partition decoded on demand).
func (c *ManifestCache) grow(cm *cachedManifest, delta int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if cm.elem == nil {
		return // evicted meanwhile
	}
	cm.size += delta
	c.used += delta
	c.evictLocked(cm)
}

// evictLocked drops least recently used manifests until the budget holds,
// keeping keep (just used) unless it alone exceeds the budget.
func (c *ManifestCache) evictLocked(keep *cachedManifest) {
	for c.used > c.maxBytes {
		el := c.lru.Back()
		if el == nil {
			break
		}
		cm := el.Value.(*cachedManifest)
		if cm == keep && cm.size <= c.maxBytes && c.lru.Len() > 1 {
			// keep is the only one that should stay; evict the next oldest.
			el = el.Prev()
			cm = el.Value.(*cachedManifest)
		}
		c.lru.Remove(el)
		delete(c.byKey, cm.key)
		c.used -= cm.size
		cm.elem = nil
		c.stats.Evictions++
	}
}

// manifestBuilder groups a manifest's records by partition while it is read.
// Per record it only appends to manifest-wide slices (the partition lookup is
// skipped while consecutive records share a partition); finish sorts them
// into partitions.
type manifestBuilder struct {
	cm      *cachedManifest
	byPart  map[string]int32
	last    int32 // partition of the previous record (-1 = none)
	recPart []int32
	recs    [][]byte // per record (Avro), nil for ORC
	decoded []ManifestEntry
	decRec  []int32 // record number of each decoded entry
	// keepState memoises the partition filter per group (0 unknown, 1 keep, 2 skip).
	keepState []int8
}

// expectedRecords is the manifest's entry count from the manifest list, for
// sizing slices; as it comes from a file, it is trusted only up to a bound
// and to what the file's size makes plausible (beyond, slices just grow).
func (k *manifestKey) expectedRecords(fileSize int) int {
	n := k.added + k.deleted
	if n <= 0 || n > 1<<17 || n > 16*int64(fileSize) {
		return 0
	}
	return int(n)
}

// newManifestBuilder: records = keep encoded records (Avro); decodeAll =
// every record will be decoded.
func newManifestBuilder(key manifestKey, fileSize int, records, decodeAll bool) *manifestBuilder {
	b := &manifestBuilder{cm: &cachedManifest{key: key}, byPart: map[string]int32{}, last: -1}
	if n := key.expectedRecords(fileSize); n > 0 {
		b.recPart = make([]int32, 0, n)
		if records {
			b.recs = make([][]byte, 0, n)
		}
		if decodeAll {
			b.decoded = make([]ManifestEntry, 0, n)
			b.decRec = make([]int32, 0, n)
		}
	}
	return b
}

// group returns the index of partition p's group, adding it when new (the
// lookup is skipped while consecutive records share a partition).
func (b *manifestBuilder) group(p []byte) int32 {
	gi := b.last
	if gi >= 0 && bytes.Equal(b.cm.parts[gi].part, p) {
		return gi
	}
	gi, ok := b.byPart[string(p)]
	if !ok {
		gi = int32(len(b.cm.parts))
		g := &cachedPart{part: bytes.Clone(p)}
		b.byPart[string(g.part)] = gi
		b.cm.parts = append(b.cm.parts, g)
		b.keepState = append(b.keepState, 0)
	}
	b.last = gi
	return gi
}

// keeps asks keep about group gi once per manifest.
func (b *manifestBuilder) keeps(gi int32, keep func([]byte) bool) bool {
	switch b.keepState[gi] {
	case 1:
		return true
	case 2:
		return false
	}
	ok := keep(b.cm.parts[gi].part)
	b.keepState[gi] = 2
	if ok {
		b.keepState[gi] = 1
	}
	return ok
}

// add records one entry of group gi: rec is its encoded Avro record (nil for
// ORC), e the decoded entry or nil when it was not decoded.
func (b *manifestBuilder) add(gi int32, kind FileKind, rec []byte, e *ManifestEntry) {
	g := b.cm.parts[gi]
	if kind == FileKindDelete {
		g.deletes++
	} else {
		g.adds++
	}
	b.recPart = append(b.recPart, gi)
	if rec != nil {
		b.recs = append(b.recs, rec)
	}
	if e != nil {
		b.decoded = append(b.decoded, *e)
		b.decRec = append(b.decRec, int32(b.cm.n))
	}
	b.cm.n++
}

// finish sorts the records into their partitions, settles which partitions
// are decoded and computes the size; retained is the bytes of file data the
// records alias, ownsBytes whether decoded entries own their byte slices.
func (b *manifestBuilder) finish(retained int64, ownsBytes bool) *cachedManifest {
	cm := b.cm
	n := cm.n
	// Counting sort of record numbers (and records) by partition.
	off := make([]int32, len(cm.parts)+1)
	for _, gi := range b.recPart {
		off[gi+1]++
	}
	for i := 1; i < len(off); i++ {
		off[i] += off[i-1]
	}
	pos := make([]int32, n)
	var recs [][]byte
	if len(b.recs) == n {
		recs = make([][]byte, n)
	}
	fill := slices.Clone(off[:len(cm.parts)])
	for r, gi := range b.recPart {
		pos[fill[gi]] = int32(r)
		if recs != nil {
			recs[fill[gi]] = b.recs[r]
		}
		fill[gi]++
	}
	decodedCount := make([]int32, len(cm.parts))
	for _, r := range b.decRec {
		decodedCount[b.recPart[r]]++
	}
	cm.size = int64(unsafe.Sizeof(*cm)) + int64(len(cm.key.path)+len(cm.key.pstats)) + retained + recOverhead*int64(n)
	for gi, g := range cm.parts {
		lo, hi := off[gi], off[gi+1]
		g.pos = pos[lo:hi:hi]
		if recs != nil {
			g.recs = recs[lo:hi:hi]
		}
		cm.size += partOverhead + int64(len(g.part))
		if decodedCount[gi] == hi-lo {
			g.decoded = true
			g.entries = make([]*ManifestEntry, 0, hi-lo)
		}
	}
	for i, r := range b.decRec {
		if g := cm.parts[b.recPart[r]]; g.decoded {
			g.entries = append(g.entries, &b.decoded[i])
			cm.size += decodedSize(&b.decoded[i], ownsBytes) + 8
		}
	}
	for _, g := range cm.parts {
		if g.decoded {
			g.recs = nil
		}
	}
	return cm
}

// buildAvroManifest decodes an Avro manifest as DecodeManifestPruned does
// (records of partitions keep rejects are skipped, not decoded) and groups it
// for the cache. It returns the decoded entries keep accepts, in file order,
// and the net count (ADD − DELETE) of the skipped ones.
func buildAvroManifest(key manifestKey, name string, data []byte, keep func([]byte) bool) (cm *cachedManifest, kept []ManifestEntry, skippedNet int, err error) {
	defer func() {
		if p := recover(); p != nil {
			cm, kept, err = nil, nil, corruptf(name, "decoder panic: %v", p)
		}
	}()
	f, err := parseOCF(data)
	if err != nil {
		return nil, nil, 0, corruptErr(name, err)
	}
	b := newManifestBuilder(key, len(data), true, keep == nil)
	b.cm.schema = f.schema
	if keep == nil {
		kept = make([]ManifestEntry, 0, key.expectedRecords(len(data)))
	}
	var retained int64
	if f.codec == "null" {
		retained = int64(len(data)) // records alias the file bytes
	}
	cur := int32(-1) // group of the record being decoded, once its partition is read
	skip := func(p []byte) bool {
		cur = b.group(p)
		return !b.keeps(cur, keep)
	}
	r := &f.body
	names := map[*avro.RecordSchema]map[string]int{}
	for r.remaining() > 0 {
		count, err := r.long()
		if err != nil {
			return nil, nil, 0, corruptErr(name, fmt.Errorf("block header: %w", err))
		}
		size, err := r.long()
		if err != nil {
			return nil, nil, 0, corruptErr(name, fmt.Errorf("block header: %w", err))
		}
		if count < 0 || size < 0 || size > int64(r.remaining()) {
			return nil, nil, 0, corruptf(name, "block of %d records and %d bytes exceeds the file (%d bytes left)", count, size, r.remaining())
		}
		comp, _ := r.fixed(int(size))
		sync, err := r.fixed(16)
		if err != nil {
			return nil, nil, 0, corruptf(name, "truncated block: missing sync marker")
		}
		if !bytes.Equal(sync, f.sync) {
			return nil, nil, 0, corruptf(name, "block sync marker mismatch")
		}
		block, err := decompress(f.codec, comp)
		if err != nil {
			if errors.Is(err, ErrUnsupported) {
				return nil, nil, 0, fmt.Errorf("%s: %w", name, err)
			}
			return nil, nil, 0, corruptErr(name, err)
		}
		if f.codec != "null" {
			retained += int64(cap(block))
		}
		if count > int64(len(block)) && !canBeEmpty(f.schema, 0) {
			return nil, nil, 0, corruptf(name, "block claims %d records in %d bytes", count, len(block))
		}
		br := newAvroReader(block, names)
		if keep != nil {
			br.skipPartition = skip
		}
		for i := int64(0); i < count; i++ {
			start := br.pos
			cur = -1
			v, err := br.decodeValue(f.schema, 0)
			if err != nil {
				return nil, nil, 0, corruptErr(name, fmt.Errorf("record: %w", err))
			}
			rec := block[start:br.pos:br.pos]
			if sk, ok := v.(skippedRecord); ok {
				kind := FileKind(sk.kind)
				if kind == FileKindDelete {
					skippedNet--
				} else {
					skippedNet++
				}
				b.add(cur, kind, rec, nil)
				continue
			}
			e, err := decodeManifestEntry(v)
			if err != nil {
				return nil, nil, 0, wrapRecordErr(name, b.cm.n, err)
			}
			if cur < 0 { // no partition filter, or a layout where the hook did not run
				cur = b.group(e.Partition)
			}
			if keep != nil && !b.keeps(cur, keep) {
				if e.Kind == FileKindDelete {
					skippedNet--
				} else {
					skippedNet++
				}
				b.add(cur, e.Kind, rec, nil)
				continue
			}
			b.add(cur, e.Kind, rec, &e)
			kept = append(kept, e)
		}
		if br.remaining() != 0 {
			return nil, nil, 0, corruptf(name, "block has %d trailing bytes", br.remaining())
		}
	}
	return b.finish(retained, false), kept, skippedNet, nil
}

// buildDecodedManifest groups the fully decoded entries of a manifest (ORC,
// which has no partial decoding) for the cache.
func buildDecodedManifest(key manifestKey, name string, data []byte, format string) (*cachedManifest, error) {
	b := newManifestBuilder(key, len(data), false, true)
	err := DecodeManifest(name, data, format, func(e ManifestEntry) error {
		b.add(b.group(e.Partition), e.Kind, nil, &e)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return b.finish(0, true), nil
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

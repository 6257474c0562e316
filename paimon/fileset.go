package paimon

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"sync"

	"github.com/paimon-flightsql/paimon-flightsql/internal/panics"
)

// manifestFormat returns the manifest.format of the snapshot's schema (falling
// back to the latest schema, then avro).
func (t *Table) manifestFormat(ctx context.Context, snap *Snapshot) (string, error) {
	var s *TableSchema
	var err error
	if snap != nil {
		s, err = t.Schema(ctx, snap.SchemaID)
	}
	if s == nil || err != nil {
		s, err = t.LatestSchema(ctx)
		if err != nil {
			if errors.Is(err, ErrNotFound) {
				return "avro", nil
			}
			return "", err
		}
	}
	return s.ManifestFormat(), nil
}

func (t *Table) readManifestBytes(ctx context.Context, name string) ([]byte, error) {
	p := t.ManifestPath(name)
	b, err := t.io.ReadFile(ctx, p)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			// A manifest (list) is named by a snapshot or a manifest list:
			// its absence is damage, not an unknown name.
			return nil, fmt.Errorf("%w: manifest file %s is missing (named by the snapshot or its manifest list): %w", ErrCorrupt, p, err)
		}
		return nil, err
	}
	return b, nil
}

// ReadManifestList reads manifest/<name> as a manifest list in the given
// format ("" = avro).
func (t *Table) ReadManifestList(ctx context.Context, name, format string) ([]ManifestFileMeta, error) {
	return t.readManifestList(ctx, nil, name, format)
}

// readManifestList reads a manifest list named by snap (nil = unknown),
// through the metadata cache when snap's file version is known.
func (t *Table) readManifestList(ctx context.Context, snap *Snapshot, name, format string) ([]ManifestFileMeta, error) {
	b, err := t.readListCached(ctx, snap, name)
	if err != nil {
		return nil, err
	}
	var out []ManifestFileMeta
	err = DecodeManifestList(t.ManifestPath(name), b, format, func(m ManifestFileMeta) error {
		out = append(out, m)
		return nil
	})
	return out, err
}

// EachManifestEntry reads manifest/<name> and calls fn for every entry, in
// file order. Returning an error from fn stops the iteration with that error.
func (t *Table) EachManifestEntry(ctx context.Context, name, format string, fn func(ManifestEntry) error) error {
	b, err := t.readManifestBytes(ctx, name)
	if err != nil {
		return err
	}
	return DecodeManifest(t.ManifestPath(name), b, format, fn)
}

// ReadManifest reads all entries of manifest/<name>.
func (t *Table) ReadManifest(ctx context.Context, name, format string) ([]ManifestEntry, error) {
	var out []ManifestEntry
	err := t.EachManifestEntry(ctx, name, format, func(e ManifestEntry) error {
		out = append(out, e)
		return nil
	})
	return out, err
}

// ReadIndexManifest reads all entries of manifest/<name> as an index manifest.
func (t *Table) ReadIndexManifest(ctx context.Context, name, format string) ([]IndexManifestEntry, error) {
	b, err := t.readManifestBytes(ctx, name)
	if err != nil {
		return nil, err
	}
	var out []IndexManifestEntry
	err = DecodeIndexManifest(t.ManifestPath(name), b, format, func(e IndexManifestEntry) error {
		out = append(out, e)
		return nil
	})
	return out, err
}

// FileSetOptions are the hooks a planner uses to prune while reading a
// snapshot's file set. Filters must be identity-consistent: an ADD and the
// DELETE that cancels it must get the same answer (partition, bucket and
// level based filters are).
type FileSetOptions struct {
	// ManifestFilter is called for every manifest of the base and delta lists
	// before it is opened; false skips the manifest. nil keeps all.
	ManifestFilter func(*ManifestFileMeta) (bool, error)
	// EntryFilter is called for every entry read; false drops it before
	// merging. nil keeps all.
	EntryFilter func(*ManifestEntry) (bool, error)
	// PartitionFilter, when set, is asked about each entry's serialized
	// partition while decoding: false drops the entry without decoding the
	// rest of it (Avro manifests). It must be safe for concurrent use and
	// identity-consistent, as partitions are.
	PartitionFilter func(partition []byte) bool
	// ManifestFormat overrides the table's manifest.format option.
	ManifestFormat string
	// SkipIndex skips reading the index manifest.
	SkipIndex bool
	// Parallelism bounds concurrent manifest reads (default 8).
	Parallelism int
	// Cache is the manifest cache to read through; nil uses
	// DefaultManifestCache(). A cache with a zero budget is not used.
	Cache *ManifestCache
	// NoCache reads every manifest from its file, bypassing the cache.
	NoCache bool
}

func (o *FileSetOptions) cache() *ManifestCache {
	if o.NoCache {
		return nil
	}
	c := o.Cache
	if c == nil {
		c = DefaultManifestCache()
	}
	if !c.enabled() {
		return nil
	}
	return c
}

// FileSet is the live content of a snapshot (spec §10.1).
type FileSet struct {
	Snapshot *Snapshot
	// Manifests are the manifests of the base list followed by the delta list,
	// in list order (pruned ones included; see Pruned).
	Manifests []ManifestFileMeta
	// Pruned[i] is true when Manifests[i] was skipped by ManifestFilter.
	Pruned []bool
	// Entries are the live ADD entries after merging, in first-seen order.
	Entries []ManifestEntry
	// IndexEntries is the content of the snapshot's index manifest (full state).
	IndexEntries []IndexManifestEntry
	// EntriesRead counts the entries of the manifests read (not pruned by
	// ManifestFilter), before partition filtering and merging. A manifest
	// served from the manifest cache counts all its entries too, although only
	// those of partitions PartitionFilter accepts are touched, so the figure
	// is the same whether the cache was warm or cold.
	EntriesRead int
	// ManifestsCached is the number of manifests read that were served from
	// the manifest cache instead of their files.
	ManifestsCached int
	// PartitionSkipped is the number of live files PartitionFilter dropped:
	// ADD entries minus DELETE entries it skipped (they pair up within a
	// partition, so this counts the live files of rejected partitions).
	PartitionSkipped int
}

// ReadFileSet reads the live file set of snap: base + delta manifest lists,
// every (unpruned) manifest, ADD/DELETE merged by file identity; plus the
// index manifest.
func (t *Table) ReadFileSet(ctx context.Context, snap *Snapshot, opts *FileSetOptions) (*FileSet, error) {
	if opts == nil {
		opts = &FileSetOptions{}
	}
	format := opts.ManifestFormat
	if format == "" {
		var err error
		if format, err = t.manifestFormat(ctx, snap); err != nil {
			return nil, err
		}
	}
	fsOut := &FileSet{Snapshot: snap}
	for _, list := range []string{snap.BaseManifestList, snap.DeltaManifestList} {
		if list == "" {
			continue
		}
		metas, err := t.readManifestList(ctx, snap, list, format)
		if err != nil {
			return nil, err
		}
		fsOut.Manifests = append(fsOut.Manifests, metas...)
	}
	entries, pruned, n, err := t.readManifests(ctx, fsOut.Manifests, format, opts, &fsOut.PartitionSkipped, &fsOut.ManifestsCached)
	if err != nil {
		return nil, err
	}
	fsOut.Pruned = pruned
	fsOut.EntriesRead = n
	fsOut.Entries, err = MergeEntries(entries)
	if err != nil {
		return nil, fmt.Errorf("snapshot %d: %w", snap.ID, err)
	}
	if !opts.SkipIndex && snap.IndexManifest != nil && *snap.IndexManifest != "" {
		idx, err := t.ReadIndexManifest(ctx, *snap.IndexManifest, format)
		if err != nil {
			return nil, err
		}
		fsOut.IndexEntries = LiveIndexEntries(idx)
	}
	return fsOut, nil
}

// ReadDelta reads the entries of snap's delta manifest list (ADD and DELETE,
// not merged), i.e. what the snapshot changed.
func (t *Table) ReadDelta(ctx context.Context, snap *Snapshot, opts *FileSetOptions) ([]ManifestEntry, error) {
	return t.readListEntries(ctx, snap, snap.DeltaManifestList, opts)
}

// ReadChangelog reads the entries of snap's changelog manifest list (nil when none).
func (t *Table) ReadChangelog(ctx context.Context, snap *Snapshot, opts *FileSetOptions) ([]ManifestEntry, error) {
	if snap.ChangelogManifestList == nil || *snap.ChangelogManifestList == "" {
		return nil, nil
	}
	return t.readListEntries(ctx, snap, *snap.ChangelogManifestList, opts)
}

func (t *Table) readListEntries(ctx context.Context, snap *Snapshot, list string, opts *FileSetOptions) ([]ManifestEntry, error) {
	if opts == nil {
		opts = &FileSetOptions{}
	}
	format := opts.ManifestFormat
	if format == "" {
		var err error
		if format, err = t.manifestFormat(ctx, snap); err != nil {
			return nil, err
		}
	}
	metas, err := t.readManifestList(ctx, snap, list, format)
	if err != nil {
		return nil, err
	}
	entries, _, _, err := t.readManifests(ctx, metas, format, opts, new(int), new(int))
	if err != nil {
		return nil, err
	}
	var out []ManifestEntry
	for _, es := range entries {
		out = append(out, es...)
	}
	return out, nil
}

// readManifests reads the manifests (in parallel) and returns their filtered
// entries per manifest, in list order.
func (t *Table) readManifests(ctx context.Context, metas []ManifestFileMeta, format string, opts *FileSetOptions, partSkipped, cachedHits *int) ([][]ManifestEntry, []bool, int, error) {
	var skippedMu sync.Mutex
	cache := opts.cache()
	var store any
	if cache != nil {
		var ok bool
		if store, ok = storeIdentity(t.io); !ok {
			cache = nil
		}
	}
	keep := opts.PartitionFilter
	if cache != nil && keep != nil {
		keep = memoPartitionFilter(keep)
	}
	pruned := make([]bool, len(metas))
	for i := range metas {
		if opts.ManifestFilter != nil {
			keep, err := opts.ManifestFilter(&metas[i])
			if err != nil {
				return nil, nil, 0, err
			}
			pruned[i] = !keep
		}
	}
	par := opts.Parallelism
	if par <= 0 {
		par = 8
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	out := make([][]ManifestEntry, len(metas))
	counts := make([]int, len(metas))
	sem := make(chan struct{}, par)
	var wg sync.WaitGroup
	var filterMu sync.Mutex // EntryFilter need not be concurrency-safe
	for i := range metas {
		if pruned[i] {
			continue
		}
		wg.Add(1)
		sem <- struct{}{}
		go func(i int) {
			defer wg.Done()
			defer func() { <-sem }()
			defer func() {
				if r := recover(); r != nil {
					cancel(corruptErr(t.ManifestPath(metas[i].FileName), panics.Recovered("manifest reader", r)))
				}
			}()
			if ctx.Err() != nil {
				return
			}
			var es []ManifestEntry
			if cache != nil {
				name := t.ManifestPath(metas[i].FileName)
				all, n, net, hit, err := t.readManifestCached(ctx, cache, makeManifestKey(store, name, format, &metas[i]), name, metas[i].FileName, format, keep)
				if err != nil {
					cancel(err)
					return
				}
				counts[i] = n
				skippedMu.Lock()
				*partSkipped += net
				if hit {
					*cachedHits++
				}
				skippedMu.Unlock()
				if opts.EntryFilter != nil {
					kept := all[:0]
					for j := range all {
						filterMu.Lock()
						ok, err := opts.EntryFilter(&all[j])
						filterMu.Unlock()
						if err != nil {
							cancel(err)
							return
						}
						if ok {
							kept = append(kept, all[j])
						}
					}
					all = kept
				}
				out[i] = all
				return
			}
			each := t.EachManifestEntry
			if opts.PartitionFilter != nil {
				each = func(ctx context.Context, name, format string, fn func(ManifestEntry) error) error {
					b, err := t.readManifestBytes(ctx, name)
					if err != nil {
						return err
					}
					net := 0
					err = DecodeManifestPruned(t.ManifestPath(name), b, format, opts.PartitionFilter, fn, func(k FileKind) {
						counts[i]++
						if k == FileKindDelete {
							net--
						} else {
							net++
						}
					})
					skippedMu.Lock()
					*partSkipped += net
					skippedMu.Unlock()
					return err
				}
			}
			err := each(ctx, metas[i].FileName, format, func(e ManifestEntry) error {
				counts[i]++
				if opts.EntryFilter != nil {
					filterMu.Lock()
					keep, err := opts.EntryFilter(&e)
					filterMu.Unlock()
					if err != nil || !keep {
						return err
					}
				}
				es = append(es, e)
				return nil
			})
			if err != nil {
				cancel(err)
				return
			}
			out[i] = es
		}(i)
	}
	wg.Wait()
	if err := context.Cause(ctx); err != nil {
		return nil, nil, 0, err
	}
	n := 0
	for _, c := range counts {
		n += c
	}
	return out, pruned, n, nil
}

// readManifestCached reads one manifest through the cache: a hit touches only
// the entries of partitions keep accepts; a miss decodes the file (skipping
// rejected partitions' records as DecodeManifestPruned does) and caches it.
// It returns the accepted entries (the caller's to modify) in file order, the
// manifest's entry count, the net count of skipped entries and whether it was
// a hit.
func (t *Table) readManifestCached(ctx context.Context, c *ManifestCache, key manifestKey, path, name, format string, keep func([]byte) bool) ([]ManifestEntry, int, int, bool, error) {
	if cm := c.lookup(key); cm != nil {
		es, net, err := c.collect(cm, path, keep)
		return es, cm.n, net, true, err
	}
	b, err := t.readManifestBytes(ctx, name)
	if err != nil {
		return nil, 0, 0, false, err
	}
	switch strings.ToLower(format) {
	case "", "avro":
		cm, es, net, err := buildAvroManifest(key, path, b, keep)
		if err != nil {
			return nil, 0, 0, false, err
		}
		c.insert(cm)
		return es, cm.n, net, false, nil
	}
	cm, err := buildDecodedManifest(key, path, b, format)
	if err != nil {
		return nil, 0, 0, false, err
	}
	c.insert(cm)
	es, net, err := c.collect(cm, path, keep)
	return es, cm.n, net, false, err
}

// memoPartitionFilter asks keep once per distinct partition (safe for
// concurrent use, as keep must be; lookups share a read lock).
func memoPartitionFilter(keep func([]byte) bool) func([]byte) bool {
	var mu sync.RWMutex
	seen := map[string]bool{}
	return func(p []byte) bool {
		mu.RLock()
		ok, hit := seen[string(p)]
		mu.RUnlock()
		if hit {
			return ok
		}
		ok = keep(p)
		mu.Lock()
		seen[string(p)] = ok
		mu.Unlock()
		return ok
	}
}

// MergeEntries folds ADD/DELETE entries by file identity (FileEntry.mergeEntries):
// an ADD of an identity already added is an error; a DELETE removes a
// previously added identity. Live ADD entries are returned in first-seen
// order; DELETEs whose ADD was never seen are dropped.
func MergeEntries(groups [][]ManifestEntry) ([]ManifestEntry, error) {
	return mergeEntries(groups, false)
}

// FoldEntries is MergeEntries for rewriting manifests (the commit's manifest
// merge, FileEntry.mergeEntries as ManifestFileMerger uses it): DELETEs whose
// ADD is not among groups stay, in first-seen order among the ADDs, because
// their ADD lives in a manifest outside the merged group. The result holds
// the live ADDs and those pending DELETEs.
func FoldEntries(groups [][]ManifestEntry) ([]ManifestEntry, error) {
	return mergeEntries(groups, true)
}

func mergeEntries(groups [][]ManifestEntry, keepDeletes bool) ([]ManifestEntry, error) {
	// Track entries by position, not by copy: a ManifestEntry is a few
	// hundred bytes and large tables hold hundreds of thousands of them.
	type pos struct{ g, i int32 }
	n := 0
	for _, g := range groups {
		n += len(g)
	}
	live := make([]bool, 0, n)
	order := make([]pos, 0, n)
	index := make(map[FileIdentifier]int, n)
	for gi, g := range groups {
		for ei := range g {
			e := &g[ei]
			id := e.Identifier()
			switch e.Kind {
			case FileKindAdd:
				if i, ok := index[id]; ok && live[i] && groups[order[i].g][order[i].i].Kind == FileKindAdd {
					return nil, fmt.Errorf("%w: file %s is added twice", ErrCorrupt, id)
				}
			case FileKindDelete:
				if i, ok := index[id]; ok && live[i] && groups[order[i].g][order[i].i].Kind == FileKindAdd {
					live[i] = false
					delete(index, id)
					continue
				}
				if !keepDeletes {
					continue
				}
			default:
				return nil, fmt.Errorf("%w: unknown file kind %d", ErrCorrupt, e.Kind)
			}
			index[id] = len(order)
			order = append(order, pos{int32(gi), int32(ei)})
			live = append(live, true)
		}
	}
	out := make([]ManifestEntry, 0, len(index))
	for i, p := range order {
		if live[i] {
			out = append(out, groups[p.g][p.i])
		}
	}
	return out, nil
}

// LiveIndexEntries merges index manifest entries by (partition, bucket, file
// name): DELETE removes an earlier ADD. Snapshots' index manifests normally
// hold ADD entries only.
func LiveIndexEntries(entries []IndexManifestEntry) []IndexManifestEntry {
	type key struct {
		p    string
		b    int32
		name string
	}
	live := map[key]bool{}
	for _, e := range entries {
		k := key{string(e.Partition), e.Bucket, e.IndexFile.FileName}
		live[k] = e.Kind == FileKindAdd
	}
	var out []IndexManifestEntry
	for _, e := range entries {
		k := key{string(e.Partition), e.Bucket, e.IndexFile.FileName}
		if e.Kind == FileKindAdd && live[k] {
			out = append(out, e)
			live[k] = false // first ADD only
		}
	}
	return out
}

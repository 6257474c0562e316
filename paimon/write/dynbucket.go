package write

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"

	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/binrow"
)

// Dynamic-bucket (bucket = -1) primary-key tables, as Java's
// HashBucketAssigner / PartitionIndex / DynamicBucketIndexMaintainer do with
// one assigner: every (partition, bucket) has a HASH index file listing the
// hashes (BinaryRow.hashCode of the trimmed primary key) of the keys stored
// there. A key whose hash is indexed goes to its bucket; a new hash goes to
// the first bucket (ascending id) with fewer than
// dynamic-bucket.target-row-num hashes, else to the lowest unused bucket id
// below dynamic-bucket.max-buckets (-1 = 32767), else to a random existing
// bucket. Commit rewrites the HASH file of every bucket that got new
// hashes (old hashes, then new ones in arrival order) and replaces the old
// file in the index manifest.

const (
	maxDynamicBuckets     = 32767 // Short.MAX_VALUE
	hashIndexType         = paimon.IndexTypeHash
	defaultTargetRowCount = 2_000_000
)

// partitionIndex is the hash → bucket state of one partition.
type partitionIndex struct {
	hash2bucket map[int32]int
	hashes      map[int][]int32 // bucket → hashes (file order, then new ones)
	count       map[int]int64   // bucket → number of hashes
	buckets     []int           // known bucket ids, ascending
	full        map[int]bool    // buckets found full (Java drops them from the candidates)
	modified    map[int]bool
	oldFiles    map[int][]string // bucket → HASH index files it replaces
	base        []string         // HASH index file names of the partition when loaded (sorted)
	maxed       bool             // the bucket upper bound was reached
}

// dynamicOptions returns dynamic-bucket.target-row-num and max-buckets.
func (t *Table) dynamicOptions() (int64, int, error) {
	target := int64(t.schema.OptionInt("dynamic-bucket.target-row-num", defaultTargetRowCount))
	if target <= 0 {
		return 0, 0, invalidf("table %s: dynamic-bucket.target-row-num must be > 0, got %d", t.root, target)
	}
	maxB := t.schema.OptionInt("dynamic-bucket.max-buckets", -1)
	if maxB != -1 && (maxB <= 0 || maxB > maxDynamicBuckets) {
		return 0, 0, invalidf("table %s: dynamic-bucket.max-buckets must be -1 or between 1 and %d, got %d", t.root, maxDynamicBuckets, maxB)
	}
	return target, maxB, nil
}

// loadPartitionIndex reads the HASH index files of partition part in the
// snapshot the writer started from.
func (w *Writer) loadPartitionIndex(ctx context.Context, part []byte) (*partitionIndex, error) {
	if pi := w.dyn[string(part)]; pi != nil {
		return pi, nil
	}
	if !w.dynLoaded {
		latest, err := w.t.latestSnapshot(ctx)
		if err != nil {
			return nil, err
		}
		if w.dynIndex, err = w.t.indexEntries(ctx, latest); err != nil {
			return nil, err
		}
		w.dynLoaded = true
	}
	pi := &partitionIndex{hash2bucket: map[int32]int{}, hashes: map[int][]int32{}, count: map[int]int64{},
		full: map[int]bool{}, modified: map[int]bool{}, oldFiles: map[int][]string{}, base: []string{}}
	for _, e := range w.dynIndex {
		if e.IndexFile.IndexType != hashIndexType || e.Kind != paimon.FileKindAdd || string(e.Partition) != string(part) {
			continue
		}
		name := e.IndexFile.FileName
		if e.IndexFile.ExternalPath != nil {
			return nil, fmt.Errorf("%w: table %s: HASH index file %s has an external path", paimon.ErrUnsupported, w.t.root, name)
		}
		p, err := w.t.indexFilePath(part, int(e.Bucket), name)
		if err != nil {
			return nil, err
		}
		data, err := w.t.io.ReadFile(ctx, p)
		if err != nil {
			return nil, fmt.Errorf("read HASH index %s: %w", p, err)
		}
		if len(data)%4 != 0 {
			return nil, fmt.Errorf("%w: HASH index %s: %d bytes is not a whole number of int32 hashes", paimon.ErrCorrupt, p, len(data))
		}
		b := int(e.Bucket)
		if b < 0 || b >= maxDynamicBuckets {
			return nil, fmt.Errorf("%w: HASH index %s: bucket %d out of range", paimon.ErrCorrupt, p, b)
		}
		if _, ok := pi.count[b]; !ok {
			pi.buckets = append(pi.buckets, b)
			pi.count[b] = 0
		}
		for i := 0; i < len(data); i += 4 {
			h := int32(binary.BigEndian.Uint32(data[i:]))
			pi.hash2bucket[h] = b
			pi.hashes[b] = append(pi.hashes[b], h)
			pi.count[b]++
		}
		pi.oldFiles[b] = append(pi.oldFiles[b], name)
		pi.base = append(pi.base, name)
	}
	sort.Ints(pi.buckets)
	sort.Strings(pi.base)
	if w.dyn == nil {
		w.dyn = map[string]*partitionIndex{}
	}
	w.dyn[string(part)] = pi
	return pi, nil
}

// assign returns the bucket of a key hash (PartitionIndex.assign).
func (pi *partitionIndex) assign(hash int32, target int64, maxBuckets int) int {
	if b, ok := pi.hash2bucket[hash]; ok {
		return b
	}
	add := func(b int) int {
		pi.hash2bucket[hash] = b
		pi.hashes[b] = append(pi.hashes[b], hash)
		pi.count[b]++
		pi.modified[b] = true
		return b
	}
	for _, b := range pi.buckets {
		if pi.full[b] {
			continue
		}
		if pi.count[b] < target {
			return add(b)
		}
		pi.full[b] = true
	}
	limit := maxBuckets
	if limit == -1 {
		limit = maxDynamicBuckets
	}
	if !pi.maxed {
		for b := 0; b < limit; b++ {
			if _, used := pi.count[b]; !used {
				pi.buckets = append(pi.buckets, b)
				sort.Ints(pi.buckets)
				return add(b)
			}
		}
		pi.maxed = true
	}
	// Java fails here when max-buckets is -1 (32767 full buckets); with a
	// bound it picks a random existing bucket.
	return add(pi.buckets[rand.IntN(len(pi.buckets))])
}

// dynamicBucket computes the bucket of every row's trimmed primary key.
func (w *Writer) dynamicBucket(ctx context.Context, part []byte, keyRow []byte) (int, error) {
	pi, err := w.loadPartitionIndex(ctx, part)
	if err != nil {
		return 0, err
	}
	target, maxB := w.t.dynTarget, w.t.dynMaxBuckets
	if !pi.maxed && maxB == -1 && len(pi.buckets) >= maxDynamicBuckets {
		full := true
		for _, b := range pi.buckets {
			if pi.count[b] < target {
				full = false
			}
		}
		if full {
			return 0, fmt.Errorf("%w: table %s: all %d dynamic buckets hold dynamic-bucket.target-row-num=%d keys; increase it", ErrInvalid, w.t.root, maxDynamicBuckets, target)
		}
	}
	return pi.assign(binrow.HashCode(keyRow), target, maxB), nil
}

// indexFilePath is where an index file of (partition, bucket) lives.
func (t *Table) indexFilePath(part []byte, bucket int, name string) (string, error) {
	if t.schema.IndexFileInDataFileDir() {
		d, err := t.bucketDir(part, bucket)
		if err != nil {
			return "", err
		}
		return d + "/" + name, nil
	}
	return t.indexPath(name), nil
}

// writeHashIndexes writes the HASH index file of every bucket that got new
// hashes and adds the index changes to req.
func (w *Writer) writeHashIndexes(ctx context.Context, req *commitRequest) error {
	parts := make([]string, 0, len(w.dyn))
	for p := range w.dyn {
		parts = append(parts, p)
	}
	sort.Strings(parts)
	for _, p := range parts {
		pi := w.dyn[p]
		var changed []int
		for b := range pi.modified {
			changed = append(changed, b)
		}
		if len(changed) == 0 {
			continue
		}
		slices.Sort(changed)
		part := []byte(p)
		req.hashBase = append(req.hashBase, hashBase{partition: part, files: pi.base})
		for _, b := range changed {
			hs := pi.hashes[b]
			data := make([]byte, 4*len(hs))
			for i, h := range hs {
				binary.BigEndian.PutUint32(data[4*i:], uint32(h))
			}
			name := w.names.next("index-", "")
			path, err := w.t.indexFilePath(part, b, name)
			if err != nil {
				return err
			}
			req.newFiles = append(req.newFiles, path)
			if err := w.t.io.Overwrite(ctx, path, data); err != nil {
				return fmt.Errorf("write HASH index %s: %w", path, err)
			}
			req.indexChange = true
			req.indexDeletes = append(req.indexDeletes, pi.oldFiles[b]...)
			req.indexAdds = append(req.indexAdds, paimon.IndexManifestEntry{Kind: paimon.FileKindAdd, Partition: part, Bucket: int32(b),
				IndexFile: paimon.IndexFileMeta{IndexType: hashIndexType, FileName: name, FileSize: int64(len(data)), RowCount: int64(len(hs))}})
		}
	}
	return nil
}

// hashBase is the HASH index state of a partition a dynamic-bucket write
// assigned keys against: the commit conflicts when another commit changed
// it (its assignments could contradict ours).
type hashBase struct {
	partition []byte
	files     []string // sorted
}

// checkHashBase verifies the HASH index files of each partition in idx are
// still those the writer assigned against.
func (t *Table) checkHashBase(idx []paimon.IndexManifestEntry, bases []hashBase) error {
	for _, hb := range bases {
		var now []string
		for _, e := range idx {
			if e.Kind == paimon.FileKindAdd && e.IndexFile.IndexType == hashIndexType && string(e.Partition) == string(hb.partition) {
				now = append(now, e.IndexFile.FileName)
			}
		}
		sort.Strings(now)
		if strings.Join(now, ",") != strings.Join(hb.files, ",") {
			return fmt.Errorf("%w: table %s: the dynamic-bucket HASH index of a partition was changed by a concurrent commit", ErrConflict, t.root)
		}
	}
	return nil
}

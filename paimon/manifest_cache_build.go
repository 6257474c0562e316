package paimon

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"unsafe"

	"github.com/hamba/avro/v2"
)

// This file builds the manifest cache's entries: it groups a manifest's
// records by partition while the file is decoded (Avro: records of rejected
// partitions kept encoded, not decoded) and computes the accounted size.

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

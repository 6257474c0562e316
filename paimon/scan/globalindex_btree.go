package scan

import (
	"context"

	"encoding/binary"
	"fmt"
	"github.com/RoaringBitmap/roaring/v2"
	"sort"

	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/fileindex"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
)

// Primary-key BTree global indexes (Paimon 2.0 `pk-btree.index.columns`,
// docs/design/file-index.md). One index file covers the source files of
// one LSM level of a bucket: its _GLOBAL_INDEX._SOURCE_META lists them
// (PrimaryKeyIndexSourceMeta: i32 version 1, i32 data level, i32 count,
// per file writeUTF name + i64 row count, big endian), ordinals number the
// rows of those files in that order. As Paimon's PkSortedBucketIndexState
// does, an index is used only when its list equals, name and row count,
// the bucket's live files of that level written by compaction (sorted by
// name), it is the only index of that level and field, and its row range
// is [0, Σ rows - 1] with as many rows. A data file of the group for
// which the index proves no row matches is skipped at plan time: its rows
// never change (deletion vectors only remove rows), so skipping it drops
// only non-matching rows, whichever of them are live. For a kept file the
// rows the index selects narrow its read (Scan.globalRows, like a file
// index's selection; the filter is still applied to every row read).

const btreeIndexType = "btree"

type pkSource struct {
	name string
	rows int64
}

// decodePKSourceMeta decodes PrimaryKeyIndexSourceMeta; ok false when it
// is not one (the index is then not used, as Java rejects it).
func decodePKSourceMeta(b []byte) (level int32, files []pkSource, ok bool) {
	be := binary.BigEndian
	if len(b) < 12 || be.Uint32(b) != 1 {
		return 0, nil, false
	}
	level, n := int32(be.Uint32(b[4:])), int(int32(be.Uint32(b[8:])))
	b = b[12:]
	if level <= 0 || n <= 0 || n > len(b)/10 {
		return 0, nil, false
	}
	for range n {
		if len(b) < 2 {
			return 0, nil, false
		}
		l := int(be.Uint16(b))
		if len(b) < 2+l+8 {
			return 0, nil, false
		}
		// writeUTF is modified UTF-8: the same bytes as UTF-8 for the
		// names Paimon writes (no NUL, no supplementary characters); a
		// name that differs simply does not match a data file.
		files = append(files, pkSource{name: string(b[2 : 2+l]), rows: int64(be.Uint64(b[2+l:]))})
		b = b[2+l+8:]
	}
	return level, files, len(b) == 0
}

// pkBTreeSkips returns the data files (by name) of primary-key tables
// whose BTree global index proves no row matches the filter.
func (s *Scan) pkBTreeSkips(ctx context.Context, idx []paimon.IndexManifestEntry, entries []paimon.ManifestEntry) (map[string]bool, error) {
	if !s.indexesAllowed() || !s.info.pk || !s.info.valueStatsOK {
		return nil, nil
	}
	type bucketKey struct {
		part   string
		bucket int32
	}
	type levelKey struct {
		b     bucketKey
		level int32
	}
	type payloadKey struct {
		l     levelKey
		field int32
	}
	payloads := map[payloadKey][]paimon.IndexManifestEntry{}
	for _, e := range idx {
		gi := e.IndexFile.GlobalIndex
		if e.Kind != paimon.FileKindAdd || e.IndexFile.IndexType != btreeIndexType || gi == nil || gi.SourceMeta == nil || len(gi.ExtraFieldIDs) > 0 {
			continue
		}
		level, _, ok := decodePKSourceMeta(gi.SourceMeta)
		if !ok {
			continue
		}
		k := payloadKey{levelKey{bucketKey{string(e.Partition), e.Bucket}, level}, gi.IndexFieldID}
		payloads[k] = append(payloads[k], e)
	}
	if len(payloads) == 0 {
		return nil, nil
	}
	sources := map[levelKey][]pkSource{}
	for _, e := range entries {
		f := &e.File
		if e.Kind == paimon.FileKindAdd && f.FileSource != nil && *f.FileSource == paimon.FileSourceCompact && f.Level > 0 {
			k := levelKey{bucketKey{string(e.Partition), e.Bucket}, f.Level}
			sources[k] = append(sources[k], pkSource{f.FileName, f.RowCount})
		}
	}
	for _, l := range sources {
		sort.Slice(l, func(a, b int) bool { return l[a].name < l[b].name })
	}
	out := map[string]bool{}
	for k, ps := range payloads {
		if len(ps) != 1 {
			continue // Java uses a level's index only when it is the only one
		}
		e := ps[0]
		gi := e.IndexFile.GlobalIndex
		_, listed, _ := decodePKSourceMeta(gi.SourceMeta)
		live := sources[k.l]
		if len(listed) != len(live) {
			continue
		}
		var total int64
		same := true
		for i := range live {
			same = same && listed[i] == live[i] && live[i].rows >= 0
			total += live[i].rows
		}
		if !same || gi.RowRangeStart != 0 || gi.RowRangeEnd != total-1 || e.IndexFile.RowCount != total || total >= 1<<31 {
			continue
		}
		ok, err := s.fieldTypeStable(ctx, int(gi.IndexFieldID))
		if err != nil {
			return nil, err
		}
		cur := s.schema.RowType()
		ci := cur.FieldByID(int(gi.IndexFieldID))
		if !ok || ci < 0 {
			continue
		}
		p, err := s.indexFilePath(e)
		if err != nil {
			return nil, err
		}
		data, err := s.table.FileIO().ReadFile(ctx, p)
		if err != nil {
			return nil, fmt.Errorf("%w: btree global index file %s: %v", paimon.ErrCorrupt, p, err)
		}
		bt, err := fileindex.DecodeBTreeIndex(data)
		if err != nil {
			return nil, fmt.Errorf("%w: btree global index file %s: %v", paimon.ErrCorrupt, p, err)
		}
		rd, err := fileindex.NewBTreeReader(bt, cur[ci].Type, total)
		if err != nil {
			return nil, fmt.Errorf("%w: btree global index file %s: %v", paimon.ErrCorrupt, p, err)
		}
		if rd == nil {
			continue // keys of this type are not decoded
		}
		var off int64
		for _, src := range live {
			first := off
			off += src.rows
			if src.rows == 0 {
				continue
			}
			resolve := func(l *predicate.Leaf) ([]fileindex.Reader, error) {
				if l.FieldID != int(gi.IndexFieldID) || !sameType(l.Type, cur[ci].Type) {
					return nil, nil
				}
				return []fileindex.Reader{shiftedReader{inner: rd, first: first, rows: src.rows, start: 0}}, nil
			}
			res, err := fileindex.Evaluate(s.opts.Filter, resolve, nil)
			if err != nil {
				return nil, err
			}
			switch {
			case res.IsSkip():
				out[src.name] = true
			case !res.IsRemain():
				// Read time keeps only these rows of the file.
				s.globalMu.Lock()
				if s.globalRows == nil {
					s.globalRows = map[string]*roaring.Bitmap{}
				}
				s.globalRows[src.name] = res.Selection().Clone()
				s.globalMu.Unlock()
			}
		}
	}
	return out, nil
}

// globalRowSelection is what a BTree global index left of file name (nil:
// no narrowing).
func (s *Scan) globalRowSelection(name string) *roaring.Bitmap {
	s.globalMu.Lock()
	defer s.globalMu.Unlock()
	return s.globalRows[name]
}

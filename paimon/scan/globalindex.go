package scan

import (
	"context"
	"encoding/binary"
	"fmt"
	"sort"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/fileindex"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
)

// Global indexes (docs/design/file-index.md): index-manifest entries with a
// _GLOBAL_INDEX row range [start, end] over row ids (row tracking) and the
// field id they index. The bitmap global index files paimon-cpp writes are a
// BitmapFileIndex v2 body over positions row id - start. Plan skips the data
// files whose row-id range they prove has no matching row. Other global index
// formats (Java's BGIX bitmap files) are not decoded and not used, counted
// in Stats.GlobalIndexesUnsupported: results stay exact, only less is
// skipped. Primary-key BTree global indexes: globalindex_btree.go.

// bgixMagic ends the footer of Java's BitmapGlobalIndexFormat files (not decoded).
const bgixMagic = 0x42474958

// globalIndex is one usable global index file.
type globalIndex struct {
	start, end int64 // row-id range, inclusive
	data       []byte
	name       string
	// bt is set for BTree files (Java's sorted global index for
	// row-tracking tables): the entries and null bitmaps of every btree file
	// of this field and row range, ordinals = row id - start. Java rotates a
	// range's index over several files (recordsPerRange), each holding the
	// rows of a key range; together they must hold every row of the range
	// exactly once, or the index is not used (NewBTreeReader).
	bt      *fileindex.BTreeIndex
	btRd    *fileindex.BTreeReader
	btReady bool
	// scan is the snapshot Java scanned to build the index (its
	// DataEvolutionIndexSourceMeta; 0 = none recorded). Rows a data file
	// wrote with a larger sequence number may be newer than the index.
	scan  int64
	stale map[int]bool // field id → an overlapping file updated it after scan
}

// deixMagic starts Java's DataEvolutionIndexSourceMeta ("DEIX", big
// endian): i32 magic, i32 version 1, i64 scan snapshot id.
const deixMagic = 0x44454958

// decodeDEIX returns the scan snapshot id of a DataEvolutionIndexSourceMeta.
func decodeDEIX(b []byte) (int64, bool) {
	be := binary.BigEndian
	if len(b) != 16 || be.Uint32(b) != deixMagic || be.Uint32(b[4:]) != 1 {
		return 0, false
	}
	id := int64(be.Uint64(b[8:]))
	return id, id > 0
}

// globalIndexes returns the usable bitmap global indexes of the snapshot by
// field id (nil when the scan cannot use them).
func (s *Scan) globalIndexes(ctx context.Context, entries []paimon.IndexManifestEntry) (map[int][]*globalIndex, error) {
	if !s.indexesAllowed() || s.info.pk {
		return nil, nil
	}
	var out map[int][]*globalIndex
	type rangeKey struct {
		field      int
		start, end int64
	}
	btrees := map[rangeKey]*globalIndex{}
	s.globalMu.Lock()
	s.bgixSeen = 0
	s.globalMu.Unlock()
	for _, e := range entries {
		gi := e.IndexFile.GlobalIndex
		typ := e.IndexFile.IndexType
		var scanID int64
		if typ == btreeIndexType && gi != nil && gi.SourceMeta != nil {
			id, ok := decodeDEIX(gi.SourceMeta)
			if !ok {
				continue // another source meta (a primary-key index): not ours here
			}
			scanID = id
		}
		if e.Kind != paimon.FileKindAdd || gi == nil || typ != fileindex.TypeBitmap && typ != btreeIndexType ||
			len(gi.ExtraFieldIDs) > 0 || gi.RowRangeEnd < gi.RowRangeStart || gi.RowRangeEnd-gi.RowRangeStart >= 1<<31 {
			continue
		}
		ok, err := s.fieldTypeStable(ctx, int(gi.IndexFieldID))
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		p, err := s.indexFilePath(e)
		if err != nil {
			return nil, err
		}
		data, err := s.table.FileIO().ReadFile(ctx, p)
		if err != nil {
			return nil, fmt.Errorf("global index file %s: %w", p, err)
		}
		if out == nil {
			out = map[int][]*globalIndex{}
		}
		if typ == btreeIndexType {
			bt, err := fileindex.DecodeBTreeIndex(data)
			if err != nil {
				return nil, fmt.Errorf("%w: btree global index file %s: %v", paimon.ErrCorrupt, p, err)
			}
			k := rangeKey{int(gi.IndexFieldID), gi.RowRangeStart, gi.RowRangeEnd}
			if g := btrees[k]; g != nil {
				// Rotated files of one build share the scan snapshot; the
				// oldest decides what may be newer (none recorded: none).
				if scanID == 0 || g.scan == 0 {
					g.scan = 0
				} else {
					g.scan = min(g.scan, scanID)
				}
				g.bt.Entries = append(g.bt.Entries, bt.Entries...)
				g.bt.Nulls.Or(bt.Nulls)
				g.name += ", " + p
				continue
			}
			g := &globalIndex{start: gi.RowRangeStart, end: gi.RowRangeEnd, name: p, bt: bt, scan: scanID}
			btrees[k] = g
			out[k.field] = append(out[k.field], g)
			continue
		}
		if len(data) >= 4 && binary.BigEndian.Uint32(data[len(data)-4:]) == bgixMagic {
			s.globalMu.Lock()
			s.bgixSeen++ // Java's dictionary-block format: not decoded (EXPLAIN says so)
			s.globalMu.Unlock()
			continue
		}
		out[int(gi.IndexFieldID)] = append(out[int(gi.IndexFieldID)], &globalIndex{start: gi.RowRangeStart, end: gi.RowRangeEnd, data: data, name: p})
	}
	return out, nil
}

// indexesAllowed: file and global indexes may be used at all.
func (s *Scan) indexesAllowed() bool {
	return s.opts.Filter != nil && !s.opts.NoPruning && !s.opts.NoFileIndex &&
		s.schema.OptionBool("file-index.read.enabled", true)
}

// fieldTypeStable reports whether field id has the same type in every
// schema of the table (a global index does not record the schema it was
// built with, so a retyped column's index is not used).
func (s *Scan) fieldTypeStable(ctx context.Context, id int) (bool, error) {
	schemas, err := s.table.Schemas(ctx)
	if err != nil {
		return false, err
	}
	cur := s.schema.RowType()
	ci := cur.FieldByID(id)
	if ci < 0 {
		return false, nil
	}
	for _, sc := range schemas {
		rt := sc.RowType()
		if i := rt.FieldByID(id); i >= 0 && !sameType(rt[i].Type, cur[ci].Type) {
			return false, nil
		}
	}
	return true, nil
}

// shiftedReader answers with a global index over [start, end] for a data
// file whose rows are row ids [first, first+rows): positions are moved from
// the index's range to the file's.
type shiftedReader struct {
	inner       fileindex.Reader
	first, rows int64
	start       int64
}

func (r shiftedReader) Type() string { return "global-" + r.inner.Type() }

func (r shiftedReader) Eval(l *predicate.Leaf) (fileindex.Result, error) {
	res, err := r.inner.Eval(l)
	if err != nil || res.IsRemain() || res.IsSkip() {
		return res, err
	}
	bm := roaring.AddOffset64(res.Selection(), r.start-r.first)
	bm.RemoveRange(uint64(r.rows), 1<<32)
	return fileindex.Rows(bm), nil
}

// reader opens g for a leaf (whose type is the field's current type, the
// same in every schema); nil when the index cannot answer it.
func (g *globalIndex) reader(l *predicate.Leaf) (fileindex.Reader, error) {
	if g.bt == nil {
		rd, err := fileindex.Open(fileindex.Entry{Column: l.Column, Type: fileindex.TypeBitmap, Body: g.data}, l.Type, g.end-g.start+1)
		if err != nil {
			return nil, fmt.Errorf("%w: global index file %s: %v", paimon.ErrCorrupt, g.name, err)
		}
		return rd, nil
	}
	if !g.btReady {
		rd, err := fileindex.NewBTreeReader(g.bt, l.Type, g.end-g.start+1)
		if err != nil {
			return nil, fmt.Errorf("%w: btree global index files %s: %v", paimon.ErrCorrupt, g.name, err)
		}
		g.btRd, g.btReady = rd, true
	}
	if g.btRd == nil {
		return nil, nil
	}
	return g.btRd, nil
}

// globalIndexSkips returns the data files (by name) whose row ranges the
// global indexes prove hold no matching row. A file is skipped only together
// with every file whose row range overlaps it (data-evolution files of the
// same rows are skipped or kept as a group).
func (s *Scan) globalIndexSkips(ctx context.Context, idx []paimon.IndexManifestEntry, entries []paimon.ManifestEntry) (map[string]bool, error) {
	gis, err := s.globalIndexes(ctx, idx)
	if err != nil || len(gis) == 0 {
		return nil, err
	}
	type span struct {
		lo, hi int64 // inclusive
		name   string
		skip   bool
		sel    *roaring.Bitmap // the file positions left (nil: not narrowed)
		f      *paimon.DataFileMeta
		group  int
	}
	spans := make([]span, 0, len(entries))
	for i := range entries {
		f := &entries[i].File
		if f.FirstRowID == nil {
			return nil, nil // rows without ids: no global index applies
		}
		spans = append(spans, span{lo: *f.FirstRowID, hi: *f.FirstRowID + f.RowCount - 1, name: f.FileName, f: f})
	}
	sort.Slice(spans, func(a, b int) bool { return spans[a].lo < spans[b].lo })
	// Groups of files whose row ranges overlap (data-evolution files of the
	// same rows). A field written by two files of a group was updated after
	// the first write (data evolution writes the new values of the same row
	// ids into a new file); an index of it may predate the update (Java
	// rebuilds such indexes only on request), so it is not used there.
	var bounds []int // start of each group in spans
	updated := []map[int]bool{}
	for i := 0; i < len(spans); {
		j, hi := i, spans[i].hi
		for ; j < len(spans) && spans[j].lo <= hi; j++ {
			hi = max(hi, spans[j].hi)
		}
		seen, upd := map[int]bool{}, map[int]bool{}
		for k := i; k < j; k++ {
			spans[k].group = len(bounds)
			if j-i == 1 {
				continue
			}
			ids, err := s.writtenFieldIDs(ctx, spans[k].f)
			if err != nil {
				return nil, err
			}
			for id := range ids {
				upd[id] = upd[id] || seen[id]
				seen[id] = true
			}
		}
		bounds = append(bounds, i)
		updated = append(updated, upd)
		i = j
	}
	written := make([]map[int]bool, len(spans))
	writes := func(k, field int) (bool, error) {
		if written[k] == nil {
			ids, err := s.writtenFieldIDs(ctx, spans[k].f)
			if err != nil {
				return false, err
			}
			written[k] = ids
		}
		return written[k][field], nil
	}
	// stale: a file overlapping g's rows wrote the field with a sequence
	// number above the snapshot the index was built from (Java's
	// DataEvolutionGlobalIndexRefreshPlanner marks such an index for
	// refresh; until then it may miss the new values).
	stale := func(g *globalIndex, field int) (bool, error) {
		if g.scan <= 0 {
			return false, nil
		}
		if v, ok := g.stale[field]; ok {
			return v, nil
		}
		res := false
		for k := range spans {
			if spans[k].hi < g.start || spans[k].lo > g.end || spans[k].f.MaxSequenceNumber <= g.scan {
				continue
			}
			w, err := writes(k, field)
			if err != nil {
				return false, err
			}
			if w {
				res = true
				break
			}
		}
		if g.stale == nil {
			g.stale = map[int]bool{}
		}
		g.stale[field] = res
		return res, nil
	}
	for i := range spans {
		sp := &spans[i]
		f := sp.f
		resolve := func(l *predicate.Leaf) ([]fileindex.Reader, error) {
			cur := s.schema.RowType()
			if ci := cur.FieldByID(l.FieldID); ci < 0 || !sameType(l.Type, cur[ci].Type) || updated[sp.group][l.FieldID] {
				return nil, nil
			}
			var out []fileindex.Reader
			for _, g := range gis[l.FieldID] {
				if g.start > sp.lo || g.end < sp.hi {
					continue // must cover the whole file
				}
				if st, err := stale(g, l.FieldID); err != nil || st {
					if err != nil {
						return nil, err
					}
					continue
				}
				rd, err := g.reader(l)
				if err != nil {
					return nil, err
				}
				if rd != nil {
					out = append(out, shiftedReader{inner: rd, first: sp.lo, rows: f.RowCount, start: g.start})
				}
			}
			return out, nil
		}
		if f.RowCount > 0 {
			res, err := fileindex.Evaluate(s.opts.Filter, resolve, nil)
			if err != nil {
				return nil, err
			}
			sp.skip = res.IsSkip()
			if !res.IsSkip() && !res.IsRemain() {
				sp.sel = res.Selection()
			}
		}
	}
	out := map[string]bool{}
	for g, i := range bounds {
		end := len(spans)
		if g+1 < len(bounds) {
			end = bounds[g+1]
		}
		all := true
		for k := i; k < end; k++ {
			all = all && spans[k].skip
		}
		if all {
			for k := i; k < end; k++ {
				out[spans[k].name] = true
			}
		} else if end-i == 1 && spans[i].sel != nil {
			// A file alone with its row ids: read only the positions the
			// index left (the reader ignores this for merged and
			// data-evolution splits, whose rows depend on other files).
			s.globalMu.Lock()
			if s.globalRows == nil {
				s.globalRows = map[string]*roaring.Bitmap{}
			}
			s.globalRows[spans[i].name] = spans[i].sel.Clone()
			s.globalMu.Unlock()
		}
	}
	return out, nil
}

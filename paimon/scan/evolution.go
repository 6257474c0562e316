package scan

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/binrow"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// Data evolution (data-evolution.enabled, with row tracking): a later write
// may add or rewrite some columns of existing rows in a new file that shares
// the rows' _FIRST_ROW_ID and holds only those columns (_WRITE_COLS). A BLOB
// column lives in .blob files, several per column, each covering a sub-range
// of the rows. Files whose row-id ranges overlap form a group that reads as
// ONE set of rows: each column comes from the newest data file (highest max
// sequence number) that wrote it, a BLOB column from its blob files read in
// row-id order, a column no file wrote is NULL (Java DataEvolutionSplitRead:
// mergeRangesAndSort, splitFieldBunches, createUnionReader).
//
// Pruning: a file's value statistics describe only the columns it wrote, and
// an older file's copy of a column is dead once a newer file rewrote it, so
// no single file's statistics may skip rows of its group. Plans of
// data-evolution tables prune whole groups by statistics merged per column
// (groupStatsMayMatch); the filter is applied exactly to the merged rows.

// isBlobFile reports whether a data file is a .blob file.
func isBlobFile(name string) bool { return strings.HasSuffix(strings.ToLower(name), ".blob") }

// evolutionGroups splits one bucket's files into groups of overlapping row-id
// ranges, each ordered as the reader merges them: data files newest first,
// then blob files by first row id (newest first on ties).
func evolutionGroups(entries []paimon.ManifestEntry) ([][]paimon.ManifestEntry, error) {
	for i := range entries {
		if entries[i].File.FirstRowID == nil {
			return nil, fmt.Errorf("%w: data file %s of a data-evolution table has no _FIRST_ROW_ID", paimon.ErrCorrupt, entries[i].File.FileName)
		}
	}
	sorted := append([]paimon.ManifestEntry(nil), entries...)
	sort.SliceStable(sorted, func(a, b int) bool { return *sorted[a].File.FirstRowID < *sorted[b].File.FirstRowID })
	var groups [][]paimon.ManifestEntry
	var end int64
	for _, e := range sorted {
		first := *e.File.FirstRowID
		if len(groups) == 0 || first >= end {
			groups = append(groups, nil)
			end = first
		}
		g := len(groups) - 1
		groups[g] = append(groups[g], e)
		end = max(end, first+e.File.RowCount)
	}
	for g, files := range groups {
		var data, blobs []paimon.ManifestEntry
		for _, e := range files {
			if isBlobFile(e.File.FileName) {
				blobs = append(blobs, e)
			} else {
				data = append(data, e)
			}
		}
		sort.SliceStable(data, func(a, b int) bool { return data[a].File.MaxSequenceNumber > data[b].File.MaxSequenceNumber })
		for _, e := range data[min(1, len(data)):] {
			if *e.File.FirstRowID != *data[0].File.FirstRowID || e.File.RowCount != data[0].File.RowCount {
				return nil, fmt.Errorf("%w: data-evolution files %s (rows %d from id %d) and %s (rows %d from id %d) overlap without covering the same row ids",
					paimon.ErrCorrupt, data[0].File.FileName, data[0].File.RowCount, *data[0].File.FirstRowID, e.File.FileName, e.File.RowCount, *e.File.FirstRowID)
			}
		}
		sort.SliceStable(blobs, func(a, b int) bool {
			fa, fb := *blobs[a].File.FirstRowID, *blobs[b].File.FirstRowID
			if fa != fb {
				return fa < fb
			}
			return blobs[a].File.MaxSequenceNumber > blobs[b].File.MaxSequenceNumber
		})
		groups[g] = append(data, blobs...)
	}
	return groups, nil
}

// groupRange returns the first row id and row count of a group.
func groupRange(files []paimon.ManifestEntry) (int64, int64) {
	first := *files[0].File.FirstRowID
	end := first
	for _, e := range files {
		first = min(first, *e.File.FirstRowID)
		end = max(end, *e.File.FirstRowID+e.File.RowCount)
	}
	return first, end - first
}

// evolutionSource is one file (or blob files read in sequence) supplying
// some of the read columns of a group.
type evolutionSource struct {
	run  batchSource
	cols []int // indexes into readCols of the columns this source supplies
	cur  arrow.RecordBatch
	off  int64
}

// batchSource yields a source's batches in row order (nil at the end).
type batchSource interface {
	Next(ctx context.Context) (arrow.RecordBatch, error)
	Close()
}

// writtenFieldIDs returns the ids of the columns a data file wrote: its
// schema's fields, narrowed to _WRITE_COLS when set.
func (s *Scan) writtenFieldIDs(ctx context.Context, f *paimon.DataFileMeta) (map[int]bool, error) {
	fields, err := s.fileSchema(ctx, f.SchemaID)
	if err != nil {
		return nil, fmt.Errorf("data file %s: %w", f.FileName, err)
	}
	ids := map[int]bool{}
	if f.WriteCols == nil {
		for _, fd := range fields {
			ids[fd.ID] = true
		}
		return ids, nil
	}
	for _, n := range f.WriteCols {
		if isTrackingName(n) {
			continue // stored row-tracking columns: claimed separately
		}
		i := fieldIndexByName(fields, n)
		if i < 0 {
			return nil, fmt.Errorf("%w: data file %s: _WRITE_COLS column %q is not in schema %d", paimon.ErrCorrupt, f.FileName, n, f.SchemaID)
		}
		ids[fields[i].ID] = true
	}
	return ids, nil
}

// readEvolutionSplit reads a group of data-evolution files as one set of
// rows (see the package comment above).
func (r *reader) readEvolutionSplit(sp *Split) error {
	owner := sp.scan(r.s)
	cols := owner.readCols
	// Deletion vectors: only the anchor's (the oldest data file of the
	// group, by max sequence number then name) applies, to the group's row
	// positions (Java DataEvolutionUtils.retrieveAnchorFile,
	// DataEvolutionSplitRead.readDeletionVector).
	var dv deletionVector
	if len(sp.Deletions) > 0 {
		var anchor *paimon.DataFileMeta
		for i := range sp.Files {
			f := &sp.Files[i]
			if isBlobFile(f.FileName) {
				continue
			}
			if anchor == nil || f.MaxSequenceNumber < anchor.MaxSequenceNumber ||
				(f.MaxSequenceNumber == anchor.MaxSequenceNumber && f.FileName < anchor.FileName) {
				anchor = f
			}
		}
		if anchor == nil {
			return fmt.Errorf("%w: data-evolution group of %s has deletion vectors but no data file", paimon.ErrCorrupt, sp.Files[0].FileName)
		}
		if d, ok := sp.Deletions[anchor.FileName]; ok {
			var err error
			if dv, err = owner.loadDeletionVector(r.ctx, d, anchor.FileName); err != nil {
				return err
			}
		}
	}
	// The sources read files without their own deletion vectors: the
	// anchor's vector applies to the merged rows.
	plain := *sp
	plain.Deletions = nil
	claimed := make([]int, len(cols)) // source index + 1; 0 = no file
	var srcs []*evolutionSource
	defer func() {
		for _, s := range srcs {
			if s.cur != nil {
				s.cur.Release()
			}
			s.run.Close()
		}
	}()
	var firstData *paimon.DataFileMeta
	blobBunches := map[int][]*paimon.DataFileMeta{} // blob field id → files in row-id order
	var blobOrder []int
	for i := range sp.Files {
		f := &sp.Files[i]
		ids, err := owner.writtenFieldIDs(r.ctx, f)
		if err != nil {
			return err
		}
		if isBlobFile(f.FileName) {
			if len(ids) != 1 {
				return fmt.Errorf("%w: blob file %s writes %d columns, want 1", paimon.ErrCorrupt, f.FileName, len(ids))
			}
			for id := range ids {
				if _, ok := blobBunches[id]; !ok {
					blobOrder = append(blobOrder, id)
				}
				blobBunches[id] = append(blobBunches[id], f)
			}
			continue
		}
		if firstData == nil {
			firstData = f
		}
		src := &evolutionSource{}
		for j, c := range cols {
			if claimed[j] == 0 && (ids[c.ID] || isTrackingField(c)) {
				claimed[j] = len(srcs) + 1
				src.cols = append(src.cols, j)
			}
		}
		if len(src.cols) > 0 {
			srcs = append(srcs, src)
			src.run = &runSource{r: r, sp: &plain, files: []*paimon.DataFileMeta{f}, fields: pick(cols, src.cols)}
		}
	}
	if firstData == nil {
		return fmt.Errorf("%w: data-evolution group of %s has blob files but no data file", paimon.ErrCorrupt, sp.Files[0].FileName)
	}
	first, rows := groupRange(entriesOf(sp.Files))
	for _, id := range blobOrder {
		files := blobBunches[id]
		// Blob files of one max sequence number that tile the group are read
		// in sequence; otherwise (a newer write overrides some rows, Java
		// BlobFallbackRecordReader) each row takes the newest non-placeholder
		// value of the files covering it, NULL when there is none.
		tiled, next := true, first
		for _, f := range files {
			tiled = tiled && *f.FirstRowID == next && f.MaxSequenceNumber == files[0].MaxSequenceNumber
			next += f.RowCount
		}
		if tiled && next != first+rows {
			return fmt.Errorf("%w: blob files of field id %d cover row ids [%d, %d), the group has [%d, %d)", paimon.ErrCorrupt, id, first, next, first, first+rows)
		}
		src := &evolutionSource{}
		for j, c := range cols {
			if claimed[j] == 0 && c.ID == id {
				claimed[j] = len(srcs) + 1
				src.cols = append(src.cols, j)
			}
		}
		if len(src.cols) == 0 {
			continue
		}
		srcs = append(srcs, src)
		if tiled {
			src.run = &runSource{r: r, sp: &plain, files: files, fields: pick(cols, src.cols)}
		} else {
			fb, err := newBlobFallback(r, &plain, files, pick(cols, src.cols), first, rows)
			if err != nil {
				return err
			}
			src.run = fb
		}
	}
	for j, c := range cols {
		if claimed[j] == 0 && !c.Type.Nullable {
			return fmt.Errorf("%w: column %s is NOT NULL but no file of the group of %s holds it", paimon.ErrCorrupt, c.Name, sp.Files[0].FileName)
		}
	}
	var emitted int64
	for emitted < rows {
		// Align the sources: the next batch is as long as the shortest
		// remainder of the sources' current batches.
		n := min(rows-emitted, int64(r.s.opts.BatchSize))
		for _, s := range srcs {
			for s.cur == nil || s.off >= s.cur.NumRows() {
				if s.cur != nil {
					s.cur.Release()
					s.cur = nil
				}
				b, err := s.run.Next(r.ctx)
				if err != nil {
					return err
				}
				if b == nil {
					return fmt.Errorf("%w: data-evolution group of %s: a file ends after %d of %d rows", paimon.ErrCorrupt, sp.Files[0].FileName, emitted, rows)
				}
				s.cur, s.off = b, 0
			}
			n = min(n, s.cur.NumRows()-s.off)
		}
		b, err := r.evolutionBatch(owner, srcs, claimed, n)
		if err != nil {
			return err
		}
		if len(owner.tracking) > 0 {
			pos := make([]int64, n)
			for i := range pos {
				pos[i] = emitted + int64(i)
			}
			fb, err := fillTracking(r.mem, b, cols, owner.tracking, firstData, pos)
			b.Release()
			if err != nil {
				return err
			}
			b = fb
		}
		if dv != nil {
			kb, err := r.dropDeleted(b, dv, emitted)
			b.Release()
			if err != nil {
				return err
			}
			b = kb
		}
		out, err := r.finishBatch(b, r.s.opts.Filter)
		b.Release()
		if err != nil {
			return err
		}
		if err := r.send(out); err != nil {
			return err
		}
		emitted += n
	}
	for _, s := range srcs { // every source must end with the group
		if s.cur != nil && s.off < s.cur.NumRows() {
			return fmt.Errorf("%w: data-evolution group of %s: a file holds more than %d rows", paimon.ErrCorrupt, sp.Files[0].FileName, rows)
		}
		if b, err := s.run.Next(r.ctx); err != nil {
			return err
		} else if b != nil {
			b.Release()
			return fmt.Errorf("%w: data-evolution group of %s: a file holds more than %d rows", paimon.ErrCorrupt, sp.Files[0].FileName, rows)
		}
	}
	return nil
}

// evolutionBatch assembles n rows of readCols from the sources' current
// batches (advancing them); unclaimed columns are NULL.
func (r *reader) evolutionBatch(owner *Scan, srcs []*evolutionSource, claimed []int, n int64) (arrow.RecordBatch, error) {
	cols := owner.readCols
	arrs := make([]arrow.Array, len(cols))
	defer func() {
		for _, a := range arrs {
			if a != nil {
				a.Release()
			}
		}
	}()
	for j := range cols {
		if claimed[j] == 0 {
			arrs[j] = array.MakeArrayOfNull(r.mem, owner.schemaOf(j).Type, int(n))
		}
	}
	for _, s := range srcs {
		for k, j := range s.cols {
			arrs[j] = array.NewSlice(s.cur.Column(k), s.off, s.off+n)
		}
		s.off += n
	}
	return array.NewRecordBatch(OutputSchema(cols), arrs, n), nil
}

// dropDeleted returns b without the rows whose group positions (first +
// row index) dv marks. It does not release b.
func (r *reader) dropDeleted(b arrow.RecordBatch, dv deletionVector, first int64) (arrow.RecordBatch, error) {
	n := b.NumRows()
	keep := make([]bool, n)
	for i := range keep {
		keep[i] = true
	}
	deleted := int64(0)
	dv.DeletedIn(first, first+n, func(pos int64) {
		if i := pos - first; i >= 0 && i < n && keep[i] {
			keep[i] = false
			deleted++
		}
	})
	if deleted == 0 {
		b.Retain()
		return b, nil
	}
	r.stats.RowsDeleted.Add(deleted)
	mb := array.NewBooleanBuilder(r.mem)
	mb.AppendValues(keep, nil)
	mask := mb.NewBooleanArray()
	mb.Release()
	defer mask.Release()
	return predicate.FilterRecord(r.ctx, r.mem, b, mask)
}

// schemaOf returns the Arrow field of readCols[j].
func (s *Scan) schemaOf(j int) arrow.Field {
	return OutputSchema(s.readCols[j : j+1]).Field(0)
}

func pick(fs []types.DataField, idx []int) []types.DataField {
	out := make([]types.DataField, len(idx))
	for i, j := range idx {
		out[i] = fs[j]
	}
	return out
}

func entriesOf(files []paimon.DataFileMeta) []paimon.ManifestEntry {
	out := make([]paimon.ManifestEntry, len(files))
	for i := range files {
		out[i].File = files[i]
	}
	return out
}

// groupStatsMayMatch evaluates the filter against the statistics of a
// data-evolution group as Java's DataEvolutionFileStoreScan.evolutionStats
// builds them: each column's statistics come from the newest data file that
// wrote it (a tie between files of the same max sequence number, a file that
// does not span the whole group, missing, incompatible or inconsistent
// statistics: unknown); a column no data file wrote is all NULL unless a
// blob file holds it (unknown).
func (pl *pruner) groupStatsMayMatch(ctx context.Context, group []paimon.ManifestEntry) (bool, error) {
	s := pl.s
	if s.opts.Filter == nil || pl.noStats {
		return true, nil
	}
	first, rows := groupRange(group)
	type provider struct {
		seq   int64
		tied  bool
		entry *paimon.ManifestEntry
		idx   int // index in the file's stats fields, -1 = no stats
		field types.DataField
	}
	best := map[int]*provider{}
	inBlob := map[int]bool{}
	for gi := range group {
		e := &group[gi]
		written, stats, err := s.fileStatsFields(ctx, &e.File)
		if err != nil {
			return false, err
		}
		if isBlobFile(e.File.FileName) {
			for _, f := range written {
				inBlob[f.ID] = true
			}
			continue
		}
		for _, f := range written {
			idx := -1
			for i, sf := range stats {
				if sf.ID == f.ID {
					idx = i
				}
			}
			p := best[f.ID]
			switch seq := e.File.MaxSequenceNumber; {
			case p == nil || seq > p.seq:
				best[f.ID] = &provider{seq: seq, entry: e, idx: idx, field: f}
			case seq == p.seq:
				p.tied = true
			}
		}
	}
	ms := predicate.MapStats{Rows: rows, Columns: map[int]predicate.ColumnStats{}}
	decoded := map[*paimon.ManifestEntry][]predicate.ColumnStats{}
	for _, cf := range s.schema.Fields {
		p := best[cf.ID]
		if p == nil {
			if !inBlob[cf.ID] {
				ms.Columns[cf.ID] = predicate.ColumnStats{NullCount: rows} // no file wrote it
			}
			continue
		}
		f := &p.entry.File
		if p.tied || p.idx < 0 || *f.FirstRowID != first || f.RowCount != rows || p.field.Type.Root != cf.Type.Root || !statsCompatible(p.field.Type, cf.Type) {
			continue
		}
		cols, ok := decoded[p.entry]
		if !ok {
			_, stats, _ := s.fileStatsFields(ctx, f)
			vs := f.ValueStats
			if st, err := binrow.DecodeSimpleStats(types.RowType(stats).Types(), vs.MinValues, vs.MaxValues); err == nil {
				cols = make([]predicate.ColumnStats, len(stats))
				for i := range stats {
					nc := int64(-1)
					if i < len(vs.NullCounts) && vs.NullCounts[i] != nil {
						nc = *vs.NullCounts[i]
					}
					cols[i] = predicate.ColumnStats{Min: st.Min[i], Max: st.Max[i], NullCount: nc}
				}
			}
			decoded[p.entry] = cols
		}
		if p.idx >= len(cols) {
			continue
		}
		c := cols[p.idx]
		if c.NullCount < -1 || c.NullCount > rows || (c.Min == nil) != (c.Max == nil) {
			continue // inconsistent: unknown
		}
		if c.Min != nil {
			if cmp, ok := predicate.CompareLiterals(c.Min, c.Max); !ok || cmp > 0 || c.NullCount == rows {
				continue
			}
		}
		ms.Columns[cf.ID] = c
	}
	return predicate.MayMatch(s.opts.Filter, ms), nil
}

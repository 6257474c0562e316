package scan

import (
	"context"
	"fmt"
	"path"
	"strings"
	"sync/atomic"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/fileindex"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/format"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// File indexes (docs/design/file-index.md): a data file's bitmap, BSI,
// bloom-filter and range-bitmap indexes, embedded in its manifest entry or in
// a `.index` extra file, answer the scan's filter with the rows that may
// match. Plan skips files whose embedded index says no row matches; Read
// evaluates embedded and extra-file indexes again, skips files with no
// candidate row and drops the other rows together with the deletion vector.
// The filter is still applied to every returned row: an index only narrows.

// fileIndexEnabled reports whether this scan may use file indexes: a filter,
// pruning on, `file-index.read.enabled` (table option or scan option) not
// false, and not a data-evolution table (its files hold only some columns
// of shared rows, so one file's index cannot drop a row).
func (s *Scan) fileIndexEnabled() bool {
	return s.indexesAllowed() && !s.schema.OptionBool("data-evolution.enabled", false)
}

// indexFileSuffix marks a data file's file-index extra file.
const indexFileSuffix = ".index"

// extraIndexFile returns the name of a data file's `.index` extra file.
func extraIndexFile(f *paimon.DataFileMeta) string {
	for _, x := range f.ExtraFiles {
		if strings.HasSuffix(x, indexFileSuffix) {
			return x
		}
	}
	return ""
}

// indexAnswer evaluates the scan's filter with one container of a data file
// whose fields are fileFields. used collects the index types that narrowed.
func (s *Scan) indexAnswer(data []byte, name string, f *paimon.DataFileMeta, fileFields []types.DataField, used fileindex.Trace) (fileindex.Result, error) {
	c, err := fileindex.Parse(data, name)
	if err != nil {
		return fileindex.Remain, fmt.Errorf("%w: data file %s: %v", paimon.ErrCorrupt, f.FileName, err)
	}
	cur := s.schema.RowType()
	resolve := func(l *predicate.Leaf) ([]fileindex.Reader, error) {
		// The leaf refers to the current schema; the index to the file's
		// column of the same field id, under the name and type it had when
		// the file was written. A retyped column's index is not used.
		ci := cur.FieldByID(l.FieldID)
		fi := types.RowType(fileFields).FieldByID(l.FieldID)
		if ci < 0 || fi < 0 || !sameType(fileFields[fi].Type, l.Type) {
			return nil, nil
		}
		var out []fileindex.Reader
		for _, e := range c.Lookup(fileFields[fi].Name) {
			rd, err := fileindex.Open(e, fileFields[fi].Type, f.RowCount)
			if err != nil {
				return nil, fmt.Errorf("%w: data file %s: %v", paimon.ErrCorrupt, f.FileName, err)
			}
			if rd != nil {
				out = append(out, rd)
			}
		}
		return out, nil
	}
	return fileindex.Evaluate(s.opts.Filter, resolve, used)
}

// sameType compares types ignoring nullability.
func sameType(a, b types.DataType) bool {
	return a.WithNullable(true).Equal(b.WithNullable(true))
}

// embeddedIndexSkips reports whether a file's embedded index proves that no
// row matches the filter (plan time; no I/O).
func (pl *pruner) embeddedIndexSkips(ctx context.Context, e *paimon.ManifestEntry) (bool, error) {
	s := pl.s
	if e.File.EmbeddedIndex == nil || !pl.indexOn {
		return false, nil
	}
	fileFields, err := s.fileSchema(ctx, e.File.SchemaID)
	if err != nil {
		return false, err
	}
	used := fileindex.Trace{}
	res, err := s.indexAnswer(e.File.EmbeddedIndex, "embedded in the manifest entry of "+e.File.FileName, &e.File, fileFields, used)
	if err != nil || !res.IsSkip() {
		return false, err
	}
	for t := range used {
		pl.indexSkipsByType[t]++
	}
	return true, nil
}

// indexSelection returns the rows of a data file its indexes (embedded and
// extra file) leave for the filter: nil when they do not narrow, an empty
// bitmap when no row can match.
func (r *reader) indexSelection(sp *Split, f *paimon.DataFileMeta) (*roaring.Bitmap, error) {
	owner := sp.scan(r.s)
	if !owner.fileIndexEnabled() {
		return nil, nil
	}
	global := fileindex.Remain
	if g := owner.globalRowSelection(f.FileName); g != nil && !sp.Merge && !sp.Evolution {
		global = fileindex.Rows(g)
	}
	extra := extraIndexFile(f)
	if f.EmbeddedIndex == nil && extra == "" {
		if global.IsRemain() {
			return nil, nil
		}
		return global.Selection(), nil
	}
	fileFields, err := owner.fileSchema(r.ctx, f.SchemaID)
	if err != nil {
		return nil, err
	}
	res := fileindex.Remain
	if f.EmbeddedIndex != nil {
		if res, err = owner.indexAnswer(f.EmbeddedIndex, "embedded in the manifest entry of "+f.FileName, f, fileFields, nil); err != nil {
			return nil, err
		}
	}
	if extra != "" && !res.IsSkip() {
		dp, err := owner.DataFilePath(sp, f)
		if err != nil {
			return nil, err
		}
		p := path.Join(path.Dir(dp), extra)
		data, err := owner.table.FileIO().ReadFile(r.ctx, p)
		if err != nil {
			return nil, fmt.Errorf("file index %s of data file %s: %w", p, f.FileName, err)
		}
		x, err := owner.indexAnswer(data, p, f, fileFields, nil)
		if err != nil {
			return nil, err
		}
		res = res.And(x)
	}
	res = res.And(global)
	if res.IsRemain() {
		return nil, nil
	}
	return res.Selection(), nil
}

// selectionDeleter drops the rows a deletion vector deletes (counted as
// deleted) and the rows outside an index selection (excl, counted by the
// caller when the selection is made). The readers ask it for the kept rows
// (KeptIn: a walk over the selection) when the selection is sparse, and for
// the deleted ones (DeletedIn) otherwise.
type selectionDeleter struct {
	dv    deletionVector // may be nil
	dvN   *atomic.Int64
	sel   *roaring.Bitmap // rows the index selected
	excl  *roaring.Bitmap // rows the index excluded
	limit int64           // rows of the file
}

// sparseDeleter is a selectionDeleter that also offers KeptIn (used when
// fewer rows are selected than excluded).
type sparseDeleter struct{ selectionDeleter }

// KeptIn calls fn for the selected positions in [from, to) that the deletion
// vector keeps. Deletion-vector rows outside the selection are not visited,
// so they are not counted as deleted.
func (d sparseDeleter) KeptIn(from, to int64, fn func(pos int64)) {
	from, to = max(from, 0), min(to, d.limit)
	if from >= to {
		return
	}
	it := d.sel.Iterator()
	it.AdvanceIfNeeded(uint32(from))
	var dvN int64
	for it.HasNext() {
		p := int64(it.PeekNext())
		if p >= to {
			break
		}
		it.Next()
		if d.dv != nil && d.dv.IsDeleted(p) {
			dvN++
			continue
		}
		fn(p)
	}
	if dvN > 0 {
		d.dvN.Add(dvN)
	}
}

var _ format.RangeKeeper = sparseDeleter{}
var _ format.RangeDeleter = selectionDeleter{}

func (d selectionDeleter) IsDeleted(pos int64) bool {
	if d.dv != nil && d.dv.IsDeleted(pos) {
		d.dvN.Add(1)
		return true
	}
	return pos >= 0 && pos < d.limit && d.excl.Contains(uint32(pos))
}

func (d selectionDeleter) DeletedIn(from, to int64, fn func(pos int64)) {
	var dvs []int64
	if d.dv != nil {
		d.dv.DeletedIn(from, to, func(pos int64) { dvs = append(dvs, pos) })
		if len(dvs) > 0 {
			d.dvN.Add(int64(len(dvs)))
		}
	}
	from, to = max(from, 0), min(to, d.limit)
	it := d.excl.Iterator()
	if from < to {
		it.AdvanceIfNeeded(uint32(from))
	}
	i := 0
	for from < to && it.HasNext() {
		p := int64(it.PeekNext())
		if p >= to {
			break
		}
		it.Next()
		for i < len(dvs) && dvs[i] < p {
			fn(dvs[i])
			i++
		}
		if i < len(dvs) && dvs[i] == p {
			i++
		}
		fn(p)
	}
	for ; i < len(dvs); i++ {
		fn(dvs[i])
	}
}

// selectedRowGroups drops from rgs (nil = all) the row groups without a
// selected row; they count as skipped row groups.
func (r *reader) selectedRowGroups(df interface {
	NumRowGroups() int
	RowGroupNumRows(int) int64
}, rgs []int, sel *roaring.Bitmap) []int {
	n := df.NumRowGroups()
	starts := make([]int64, n+1)
	for i := 0; i < n; i++ {
		starts[i+1] = starts[i] + df.RowGroupNumRows(i)
	}
	all := rgs == nil
	if all {
		rgs = make([]int, n)
		for i := range rgs {
			rgs[i] = i
		}
	}
	keep := make([]int, 0, len(rgs))
	for _, g := range rgs {
		if sel.IntersectsWithInterval(uint64(starts[g]), uint64(starts[g+1])) {
			keep = append(keep, g)
		} else {
			r.stats.RowGroupsSkipped.Add(1)
		}
	}
	if all && len(keep) == n {
		return nil
	}
	return keep
}

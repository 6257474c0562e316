package sysviews

import (
	"context"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
	"github.com/paimon-flightsql/paimon-flightsql/deletion"
	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/format"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/scan"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// rowKindField is SpecialFields.ROW_KIND: a nullable STRING named rowkind.
var rowKindField = types.DataField{ID: 2147483647 - 4, Name: "rowkind", Type: types.NewString()}

// rowKindNames are RowKind.shortString() by _VALUE_KIND byte.
var rowKindNames = [...]string{"+I", "-U", "+U", "-D"}

// changelogTable serves $audit_log (rowkind + the data columns) and $binlog
// (rowkind + every data column wrapped in a one-element ARRAY, as a batch
// read of Java's BinlogTable produces). Both read the selected snapshot as a
// batch scan of the base table does, but keep each row's kind: primary-key
// rows whose latest record is a DELETE appear as -D instead of vanishing
// (Java's forceKeepDelete).
type changelogTable struct {
	id     catalog.Identifier
	base   *catalog.DataTable
	binlog bool
	schema *arrow.Schema
}

// newAuditLogView serves $audit_log: rowkind + the data columns.
func newAuditLogView(_ context.Context, base *catalog.DataTable, id catalog.Identifier) (catalog.Table, error) {
	return newChangelogTable(base, id, false), nil
}

func newChangelogTable(base *catalog.DataTable, id catalog.Identifier, binlog bool) *changelogTable {
	fields := []types.DataField{rowKindField}
	for _, f := range base.TableSchema().Fields {
		if binlog {
			f.Type = types.NewArray(f.Type.WithNullable(true))
		}
		fields = append(fields, f)
	}
	return &changelogTable{id: id, base: base, binlog: binlog, schema: scan.OutputSchema(fields)}
}

func (t *changelogTable) Identifier() catalog.Identifier { return t.id }
func (t *changelogTable) Kind() string                   { return catalog.KindSystemTable }
func (t *changelogTable) Schema() *arrow.Schema          { return t.schema }
func (t *changelogTable) PrimaryKeys() []string          { return nil }
func (t *changelogTable) Comment() string                { return "" }

// NewScan plans the base table's batch scan of the selected snapshot.
func (t *changelogTable) NewScan(ctx context.Context, req catalog.ScanRequest) (catalog.Scan, error) {
	cols, schema, err := project(t.schema, req.Columns, catalog.SQLName(t.id))
	if err != nil {
		return nil, err
	}
	tbl := t.base.Paimon()
	if b := strings.TrimSpace(req.Options["branch"]); b != "" && b != tbl.BranchName() {
		if tbl, err = tbl.Branch(ctx, b); err != nil {
			return nil, err
		}
	}
	opts := scan.Options{Limit: -1}
	if err := scan.OptionsFromMap(&opts, req.Options); err != nil {
		return nil, fmt.Errorf("%w: %v", catalog.ErrInvalid, err)
	}
	// The data filter prunes files only (the planner re-applies the whole
	// filter: inexact); binlog columns are arrays, so nothing is pushed for
	// them.
	answers := catalog.Answers(len(req.Filters), catalog.PushdownUnsupported)
	if len(req.Filters) > 0 && !t.binlog {
		dataCols := map[string]bool{}
		for _, f := range t.base.TableSchema().Fields {
			dataCols[f.Name] = true
		}
		var pushed []predicate.Predicate
		for i, c := range req.Filters {
			if predicate.OnlyColumns(c, dataCols) {
				pushed = append(pushed, c)
				answers[i] = catalog.PushdownInexact
			}
		}
		if len(pushed) > 0 {
			opts.Filter = predicate.NewAnd(pushed...)
		}
	}
	cs := &changelogScan{t: t, cols: cols, schema: schema, req: req, answers: answers}
	if req.Splits != nil {
		// Splits planned before: pinned to their snapshot, not planned again.
		for _, sp := range req.Splits {
			if sp.Data == nil {
				return nil, fmt.Errorf("%w: split of another kind of scan given to %s", catalog.ErrInvalid, catalog.SQLName(t.id))
			}
		}
		for _, sp := range req.Splits {
			if sp.Data.Branch == tbl.BranchName() {
				opts.SnapshotID, opts.TagName, opts.TimestampMillis = sp.Data.SnapshotID, "", 0
				break
			}
		}
		if cs.scan, err = scan.New(ctx, tbl, opts); err != nil {
			return nil, err
		}
		planned := make([]scan.PlannedSplit, len(req.Splits))
		for i, sp := range req.Splits {
			planned[i] = *sp.Data
		}
		native, err := cs.scan.Open(ctx, planned)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", catalog.SQLName(t.id), err)
		}
		cs.plan = &scan.Plan{Splits: native, Stats: scan.Stats{SnapshotID: cs.scan.SnapshotID()}}
		cs.splits = req.Splits
		return cs, nil
	}
	if cs.scan, err = scan.New(ctx, tbl, opts); err != nil {
		return nil, err
	}
	if cs.plan, err = cs.scan.Plan(ctx); err != nil {
		return nil, err
	}
	cs.splits = make([]catalog.Split, len(cs.plan.Splits))
	for i, ps := range cs.scan.Export(cs.plan.Splits) {
		ps := ps
		cs.splits[i] = catalog.Split{Rows: ps.RowCount, Data: &ps}
	}
	return cs, nil
}

type changelogScan struct {
	t       *changelogTable
	scan    *scan.Scan
	plan    *scan.Plan
	splits  []catalog.Split // plan.Splits as values
	answers []catalog.FilterPushdown
	cols    []int
	schema  *arrow.Schema
	req     catalog.ScanRequest
}

func (s *changelogScan) Schema() *arrow.Schema              { return s.schema }
func (s *changelogScan) Pushdown() []catalog.FilterPushdown { return s.answers }
func (s *changelogScan) Splits() []catalog.Split            { return s.splits }
func (s *changelogScan) RowCount() (int64, bool)            { return 0, false }

func (s *changelogScan) Stats() catalog.ScanStats {
	st := s.plan.Stats
	out := catalog.ScanStats{
		SnapshotID:           st.SnapshotID,
		ManifestsTotal:       st.ManifestsTotal,
		ManifestsPruned:      st.ManifestsPruned,
		FilesTotal:           st.FilesTotal,
		FilesPrunedPartition: st.FilesPrunedPartition,
		FilesPrunedBucket:    st.FilesPrunedBucket,
		FilesPrunedStats:     st.FilesPrunedStats,
		DeletionVectors:      st.DeletionVectors,
		MergedBuckets:        st.MergeSplits,
		Opened:               s.req.Splits != nil,
	}
	if f := s.req.Filter(); f != nil {
		out.Residual = f.String()
	}
	return out
}

// native returns the scan.Splits of splits: this scan's own (by identity)
// or values carried from another node (opened at their snapshot).
func (s *changelogScan) native(ctx context.Context, splits []catalog.Split) ([]scan.Split, error) {
	own := make(map[*scan.PlannedSplit]int, len(s.splits))
	for i := range s.splits {
		own[s.splits[i].Data] = i
	}
	out := make([]scan.Split, 0, len(splits))
	for _, sp := range splits {
		if sp.Data == nil {
			return nil, fmt.Errorf("%w: split of another kind of scan given to %s", catalog.ErrInvalid, catalog.SQLName(s.t.id))
		}
		if i, ok := own[sp.Data]; ok {
			out = append(out, s.plan.Splits[i])
			continue
		}
		o, err := s.scan.Open(ctx, []scan.PlannedSplit{*sp.Data})
		if err != nil {
			return nil, err
		}
		out = append(out, o...)
	}
	return out, nil
}

// Read materialises the rows of the selected splits.
func (s *changelogScan) Read(ctx context.Context, splits []catalog.Split, o catalog.ReadOptions) (catalog.Reader, error) {
	mem := o.Mem
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	sel, err := s.native(ctx, splits)
	if err != nil {
		return nil, err
	}
	var out []arrow.RecordBatch
	release := func() {
		for _, r := range out {
			r.Release()
		}
	}
	pk := len(s.t.base.TableSchema().PrimaryKeys) > 0
	for i := range sel {
		if err := ctx.Err(); err != nil {
			release()
			return nil, err
		}
		sp := &sel[i]
		var (
			recs []arrow.RecordBatch
			err  error
		)
		dedupe := sp.Merge && scan.MergeEngine(s.scan.TableSchema().MergeEngine()) == scan.Deduplicate
		if pk && (!sp.Merge || dedupe) {
			recs, err = s.readKinds(ctx, mem, sp, dedupe)
		} else {
			// Append rows are all inserts; the other merge engines produce
			// INSERT rows (their results never carry another kind unless a
			// record is removed, which the batch read drops).
			recs, err = s.readInserts(ctx, mem, sp)
		}
		out = append(out, recs...)
		if err != nil {
			release()
			return nil, err
		}
	}
	defer release()
	limited := out
	if len(s.req.Filters) == 0 && s.req.Limit >= 0 {
		limited = nil
		left := s.req.Limit
		for _, r := range out {
			if left <= 0 {
				break
			}
			if r.NumRows() > left {
				sl := r.NewSlice(0, left)
				defer sl.Release()
				r = sl
			}
			limited = append(limited, r)
			left -= r.NumRows()
		}
	}
	rr, err := array.NewRecordReader(s.schema, limited)
	if err != nil {
		return nil, err
	}
	return catalog.NoReport(rr), nil
}

// readInserts reads a split through the base scan and labels rows +I.
func (s *changelogScan) readInserts(ctx context.Context, mem memory.Allocator, sp *scan.Split) ([]arrow.RecordBatch, error) {
	rr, err := s.scan.Read(ctx, mem, []scan.Split{*sp})
	if err != nil {
		return nil, err
	}
	defer rr.Release()
	var out []arrow.RecordBatch
	for rr.Next() {
		b := rr.RecordBatch()
		kinds := make([]int8, b.NumRows())
		rec, err := s.output(mem, kinds, b.Columns())
		if err != nil {
			releaseAll(out)
			return nil, err
		}
		out = append(out, rec)
	}
	if err := rr.Err(); err != nil {
		releaseAll(out)
		return nil, err
	}
	return out, nil
}

// readKinds reads the primary-key files of a split with their _VALUE_KIND,
// dropping rows marked in deletion vectors; with dedupe it keeps, per key,
// only the record with the highest sequence number (deduplicate merge
// engine), whatever its kind.
func (s *changelogScan) readKinds(ctx context.Context, mem memory.Allocator, sp *scan.Split, dedupe bool) ([]arrow.RecordBatch, error) {
	sc := s.scan.TableSchema()
	var fields []types.DataField
	for _, k := range sc.TrimmedPrimaryKeys() {
		f, ok := sc.FieldByName(k)
		if !ok {
			return nil, fmt.Errorf("%w: primary key %q is not a field", catalog.ErrCorrupt, k)
		}
		fields = append(fields, format.KeyField(f))
	}
	nk := len(fields)
	fields = append(fields, format.SequenceNumberField(), format.ValueKindField())
	fields = append(fields, sc.Fields...)

	var batches []arrow.RecordBatch
	var masks [][]bool
	defer func() { releaseAll(batches) }()
	t := s.t.base.Paimon()
	for fi := range sp.Files {
		f := &sp.Files[fi]
		bs, ms, err := readFileKinds(ctx, mem, t, s.scan, sp, f, fields)
		batches = append(batches, bs...)
		masks = append(masks, ms...)
		if err != nil {
			return nil, err
		}
	}
	if dedupe {
		type pos struct {
			b, r int
			seq  int64
		}
		win := map[string]pos{}
		var order []string
		var key strings.Builder
		for bi, b := range batches {
			seqs := b.Column(nk).(*array.Int64)
			for r := 0; r < int(b.NumRows()); r++ {
				if !masks[bi][r] {
					continue
				}
				key.Reset()
				for k := 0; k < nk; k++ {
					c := b.Column(k)
					if c.IsNull(r) {
						key.WriteString("\x00N")
					} else {
						key.WriteString("\x00V" + c.ValueStr(r))
					}
				}
				ks := key.String()
				masks[bi][r] = false
				old, seen := win[ks]
				if !seen {
					order = append(order, ks)
				}
				if !seen || seqs.Value(r) >= old.seq {
					win[ks] = pos{b: bi, r: r, seq: seqs.Value(r)}
				}
			}
		}
		for _, ks := range order {
			p := win[ks]
			masks[p.b][p.r] = true
		}
	}
	var out []arrow.RecordBatch
	for bi, b := range batches {
		mb := array.NewBooleanBuilder(mem)
		mb.AppendValues(masks[bi], nil)
		mask := mb.NewBooleanArray()
		mb.Release()
		kept, err := predicate.FilterRecord(ctx, mem, b, mask)
		mask.Release()
		if err != nil {
			releaseAll(out)
			return nil, err
		}
		if kept.NumRows() == 0 {
			kept.Release()
			continue
		}
		kc := kept.Column(nk + 1).(*array.Int8)
		kinds := make([]int8, kept.NumRows())
		for r := range kinds {
			kinds[r] = kc.Value(r)
		}
		rec, err := s.output(mem, kinds, kept.Columns()[nk+2:])
		kept.Release()
		if err != nil {
			releaseAll(out)
			return nil, err
		}
		out = append(out, rec)
	}
	return out, nil
}

// readFileKinds reads one data file with fields, returning its batches
// (retained) and per-row masks (false = deleted by the deletion vector).
func readFileKinds(ctx context.Context, mem memory.Allocator, t *paimon.Table, s *scan.Scan, sp *scan.Split, f *paimon.DataFileMeta, fields []types.DataField) ([]arrow.RecordBatch, [][]bool, error) {
	p, err := s.DataFilePath(sp, f)
	if err != nil {
		return nil, nil, err
	}
	fileSchema, err := t.Schema(ctx, f.SchemaID)
	if err != nil {
		return nil, nil, fmt.Errorf("data file %s: %w", p, err)
	}
	var dv deletion.Vector
	if d, ok := sp.Deletions[f.FileName]; ok {
		h, err := t.FileIO().Open(ctx, d.Path)
		if err != nil {
			return nil, nil, fmt.Errorf("deletion vector index file %s (for %s): %w", d.Path, f.FileName, err)
		}
		dv, err = deletion.ReadVector(d.Path, h, h.Size(), deletion.Range{DataFile: f.FileName, Offset: d.Offset, Length: d.Length, Cardinality: d.Cardinality})
		h.Close()
		if err != nil {
			return nil, nil, fmt.Errorf("%w: %v", paimon.ErrCorrupt, err)
		}
	}
	fio, err := s.DataFileIO(ctx, f.SchemaID) // follows _EXTERNAL_PATH within the declared roots
	if err != nil {
		return nil, nil, fmt.Errorf("data file %s: %w", p, err)
	}
	h, err := fio.Open(ctx, p)
	if err != nil {
		return nil, nil, fmt.Errorf("data file %s: %w", p, err)
	}
	defer h.Close()
	df, err := format.Open(h, h.Size(), p, fileSchema.Fields)
	if err != nil {
		return nil, nil, err
	}
	rr, err := df.Read(ctx, format.ReadOptions{Fields: fields, Allocator: mem})
	if err != nil {
		return nil, nil, err
	}
	defer rr.Release()
	var bs []arrow.RecordBatch
	var ms [][]bool
	for rr.Next() {
		b := rr.RecordBatch()
		b.Retain()
		m := make([]bool, b.NumRows())
		first := rr.FirstRow()
		for r := range m {
			m[r] = dv == nil || !dv.IsDeleted(first+int64(r))
		}
		bs = append(bs, b)
		ms = append(ms, m)
	}
	if err := rr.Err(); err != nil {
		releaseAll(bs)
		return nil, nil, err
	}
	return bs, ms, nil
}

// output builds a batch of the scan's schema from row kinds and the data
// columns (all fields of the latest schema, in order).
func (s *changelogScan) output(mem memory.Allocator, kinds []int8, data []arrow.Array) (arrow.RecordBatch, error) {
	if len(data) != s.t.schema.NumFields()-1 {
		return nil, fmt.Errorf("%w: %s: the snapshot's schema has %d columns, the table %d", catalog.ErrUnsupported,
			catalog.SQLName(s.t.id), len(data), s.t.schema.NumFields()-1)
	}
	for i, col := range data {
		want := s.t.schema.Field(i + 1).Type
		if lt, ok := want.(*arrow.ListType); ok && s.t.binlog {
			want = lt.Elem()
		}
		if !arrow.TypeEqual(want, col.DataType()) {
			return nil, fmt.Errorf("%w: %s: column %s is %s in the snapshot's schema, %s in the table", catalog.ErrUnsupported,
				catalog.SQLName(s.t.id), s.t.schema.Field(i+1).Name, col.DataType(), want)
		}
	}
	full := make([]arrow.Array, 0, len(data)+1)
	defer func() {
		for _, a := range full {
			a.Release()
		}
	}()
	kb := array.NewStringBuilder(mem)
	for _, k := range kinds {
		if k < 0 || int(k) >= len(rowKindNames) {
			kb.Release()
			return nil, fmt.Errorf("%w: invalid _VALUE_KIND %d", paimon.ErrCorrupt, k)
		}
		kb.Append(rowKindNames[k])
	}
	full = append(full, kb.NewArray())
	kb.Release()
	for i, col := range data {
		if !s.t.binlog {
			col.Retain()
			full = append(full, col)
			continue
		}
		lt, ok := s.t.schema.Field(i + 1).Type.(*arrow.ListType)
		if !ok {
			return nil, fmt.Errorf("binlog column %s is not a list", s.t.schema.Field(i+1).Name)
		}
		full = append(full, wrapList(mem, lt, col))
	}
	cols := make([]arrow.Array, len(s.cols))
	for i, c := range s.cols {
		cols[i] = full[c]
	}
	n := int64(len(kinds))
	return array.NewRecordBatch(s.schema, cols, n), nil
}

// wrapList wraps each value of col in a one-element list.
func wrapList(mem memory.Allocator, lt *arrow.ListType, col arrow.Array) arrow.Array {
	n := col.Len()
	offs := memory.NewResizableBuffer(mem)
	offs.Resize((n + 1) * 4)
	o := arrow.Int32Traits.CastFromBytes(offs.Bytes())
	for i := 0; i <= n; i++ {
		o[i] = int32(i)
	}
	data := array.NewData(lt, n, []*memory.Buffer{nil, offs}, []arrow.ArrayData{col.Data()}, 0, 0)
	offs.Release()
	defer data.Release()
	return array.MakeFromData(data)
}

func releaseAll(rs []arrow.RecordBatch) {
	for _, r := range rs {
		if r != nil {
			r.Release()
		}
	}
}

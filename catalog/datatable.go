package catalog

import (
	"context"
	"fmt"
	"path"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/scan"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/write"
)

// DataTable is a Paimon table's data (optionally read-optimized: top LSM
// level only, the $ro view).
type DataTable struct {
	cat    *FS
	id     Identifier
	table  *paimon.Table
	schema *paimon.TableSchema
	arrow  *arrow.Schema
	ro     bool
}

var _ Table = (*DataTable)(nil)

func newDataTable(ctx context.Context, c *FS, id Identifier, t *paimon.Table) (*DataTable, error) {
	// The handle remembers the listing of schema/ (ListedLatestSchema):
	// the scans of this lookup read no schema file again and validate the
	// older ones (data files of earlier schemas) by the listed versions.
	sc, t, err := t.ListedLatestSchema(ctx)
	if err != nil {
		return nil, err
	}
	// System columns (_ROW_ID, _SEQUENCE_NUMBER of row-tracking tables) follow
	// the table's columns, marked MetaSystemColumn: SELECT * skips them.
	return &DataTable{cat: c, id: id, table: t, schema: sc, arrow: scan.TableArrowSchema(sc)}, nil
}

// MetaSystemColumn is the Arrow field metadata key ("true") of a table
// column that is readable by name but not part of SELECT * or of the
// table's advertised columns (Paimon system columns such as _ROW_ID).
const MetaSystemColumn = scan.MetaSystemColumn

// IsSystemColumn reports whether f carries MetaSystemColumn.
func IsSystemColumn(f arrow.Field) bool {
	v, ok := f.Metadata.GetValue(MetaSystemColumn)
	return ok && v == "true"
}

// VisibleSchema is sc without its system columns.
func VisibleSchema(sc *arrow.Schema) *arrow.Schema {
	fs := make([]arrow.Field, 0, sc.NumFields())
	for _, f := range sc.Fields() {
		if !IsSystemColumn(f) {
			fs = append(fs, f)
		}
	}
	if len(fs) == sc.NumFields() {
		return sc
	}
	md := sc.Metadata()
	return arrow.NewSchema(fs, &md)
}

// ReadOptimized returns the $ro view of the table.
func (t *DataTable) ReadOptimized() *DataTable {
	c := *t
	c.ro = true
	c.id.SystemTable = "ro"
	return &c
}

// Catalog is the catalog the table came from.
func (t *DataTable) Catalog() *FS { return t.cat }

// Paimon is the underlying table handle (on the selected branch).
func (t *DataTable) Paimon() *paimon.Table { return t.table }

// TableSchema is the latest schema of the table (on the selected branch).
func (t *DataTable) TableSchema() *paimon.TableSchema { return t.schema }

// Identifier implements Table.
func (t *DataTable) Identifier() Identifier { return t.id }

// Kind implements Table.
func (t *DataTable) Kind() string {
	if t.ro {
		return KindSystemTable
	}
	return KindTable
}

// Schema implements Table.
func (t *DataTable) Schema() *arrow.Schema { return t.arrow }

// PrimaryKeys implements Table.
func (t *DataTable) PrimaryKeys() []string { return t.schema.PrimaryKeys }

// Comment implements Table.
func (t *DataTable) Comment() string {
	if t.schema.Comment != nil {
		return *t.schema.Comment
	}
	return ""
}

// NewScan implements Table: it resolves the snapshot and plans the scan,
// or, with req.Splits, opens those splits at their snapshot without
// planning. The scan applies every filter exactly.
// splitFileBytes is the piece size SQL scans cut large raw Parquet files
// into (scan.Options.SplitFileBytes): a 46 MiB file is read by three
// workers instead of one, and every operator above the scan runs in as
// many partitions.
const splitFileBytes = 16 << 20

// splitFileRows is the piece size in rows: decoding costs by rows, and a
// well-compressed 19 MiB file of 11.7M rows (TPC-DS inventory) is as much
// work as ten 1M-row pieces.
const splitFileRows = 1 << 20

func (t *DataTable) NewScan(ctx context.Context, req ScanRequest) (Scan, error) {
	tbl := t.table
	if b := strings.TrimSpace(req.Options["branch"]); b != "" && b != tbl.BranchName() {
		var err error
		if tbl, err = tbl.Branch(ctx, b); err != nil {
			return nil, err
		}
	}
	filter := req.Filter()
	opts := scan.Options{Columns: req.Columns, Filter: filter, ReadOptimized: t.ro, Limit: req.Limit, BatchSize: req.BatchRows,
		SplitFileBytes: splitFileBytes, SplitFileRows: splitFileRows}
	if err := scan.OptionsFromMap(&opts, req.Options); err != nil {
		return nil, invalidf("%v", err)
	}
	if req.Splits != nil {
		return t.openScan(ctx, tbl, opts, req)
	}
	if tbl == t.table {
		// The schema the lookup resolved (and the query was bound to):
		// the scan does not list schema/ again.
		opts.Schema = t.schema
	}
	s, err := scan.New(ctx, tbl, opts)
	if err != nil {
		return nil, err
	}
	plan, err := s.Plan(ctx)
	if err != nil {
		return nil, err
	}
	d := &dataScan{scan: s, table: tbl, filter: filter, nfilters: len(req.Filters), stats: planStats(plan.Stats, plan.IndexSkipsByType)}
	d.pin(planPinTTL)
	d.native = plan.Splits
	d.splits = make([]Split, len(plan.Splits))
	for i, ps := range s.Export(plan.Splits) {
		ps := ps
		d.splits[i] = Split{Rows: ps.RowCount, Data: &ps}
	}
	d.rows, d.exact = plan.RowCount(filter)
	return d, nil
}

// openScan opens splits planned before: the scan is pinned to the
// snapshot of the splits of its own branch.
func (t *DataTable) openScan(ctx context.Context, tbl *paimon.Table, opts scan.Options, req ScanRequest) (Scan, error) {
	for _, sp := range req.Splits {
		if sp.Data == nil {
			return nil, invalidf("split of another kind of scan given to table %s", SQLName(t.id))
		}
	}
	for _, sp := range req.Splits {
		if sp.Data.Branch == tbl.BranchName() {
			opts.SnapshotID, opts.TagName, opts.TimestampMillis = sp.Data.SnapshotID, "", 0
			break
		}
	}
	s, err := scan.New(ctx, tbl, opts)
	if err != nil {
		return nil, err
	}
	planned := make([]scan.PlannedSplit, len(req.Splits))
	for i, sp := range req.Splits {
		planned[i] = *sp.Data
	}
	native, err := s.Open(ctx, planned)
	if err != nil {
		return nil, fmt.Errorf("table %s: %w", SQLName(t.id), err)
	}
	d := &dataScan{scan: s, table: tbl, filter: req.Filter(), nfilters: len(req.Filters), native: native, splits: req.Splits}
	d.stats = ScanStats{SnapshotID: s.SnapshotID(), Opened: true}
	d.pin(planPinTTL)
	p := scan.Plan{Splits: native}
	d.rows, d.exact = p.RowCount(d.filter)
	for _, sp := range native {
		if !sp.FirstPiece() {
			continue // a piece of a file another split counts
		}
		d.stats.FilesTotal += len(sp.Files)
		d.stats.DeletionVectors += len(sp.Deletions)
		if sp.Merge {
			d.stats.MergedBuckets++
		}
	}
	return d, nil
}

func planStats(st scan.Stats, byType map[string]int) ScanStats {
	return ScanStats{
		SnapshotID:               st.SnapshotID,
		ManifestsTotal:           st.ManifestsTotal,
		ManifestsPruned:          st.ManifestsPruned,
		FilesTotal:               st.FilesTotal,
		FilesPrunedPartition:     st.FilesPrunedPartition,
		FilesPrunedBucket:        st.FilesPrunedBucket,
		FilesPrunedStats:         st.FilesPrunedStats,
		FilesPrunedIndex:         st.FilesPrunedIndex,
		RowsPrunedIndex:          st.RowsPrunedIndex,
		IndexSkips:               indexSkips(byType),
		FilesPrunedGlobalIndex:   st.FilesPrunedGlobalIndex,
		GlobalIndexesUnsupported: st.GlobalIndexesUnsupported,
		DeletionVectors:          st.DeletionVectors,
		MergedBuckets:            st.MergeSplits,
	}
}

// planPinTTL is how long a planned scan keeps its snapshot from expiring
// before it is read (reading pins it until the reader is released).
const planPinTTL = 10 * time.Minute

// pin keeps snapshot expiry of this process off the scan's snapshot
// (paimon.Table.PinSnapshot): for ttl, or until the returned function is
// called when ttl is 0.
func (d *dataScan) pin(ttl time.Duration) func() {
	if d.stats.SnapshotID <= 0 {
		return func() {}
	}
	return d.table.PinSnapshot(d.stats.SnapshotID, ttl)
}

type dataScan struct {
	table    *paimon.Table
	scan     *scan.Scan
	filter   predicate.Predicate
	nfilters int
	stats    ScanStats
	native   []scan.Split // the splits, opened
	splits   []Split      // the same, as values
	rows     int64
	exact    bool
	once     sync.Once
	index    map[*scan.PlannedSplit]int
}

func (d *dataScan) Schema() *arrow.Schema { return d.scan.Schema() }

func (d *dataScan) Stats() ScanStats {
	out := d.stats
	if d.filter != nil {
		out.Residual = d.filter.String()
	}
	return out
}

func (d *dataScan) RowCount() (int64, bool) { return d.rows, d.exact }

// Pushdown: the scan applies every filter exactly to the rows it returns
// (after pruning with it).
func (d *dataScan) Pushdown() []FilterPushdown { return Answers(d.nfilters, PushdownExact) }

func (d *dataScan) Splits() []Split { return d.splits }

// Read implements Scan. Splits of this scan are read as planned; other
// values (carried from another node) are opened first.
func (d *dataScan) Read(ctx context.Context, splits []Split, o ReadOptions) (Reader, error) {
	sel := make([]scan.Split, 0, len(splits))
	var foreign []scan.PlannedSplit
	for _, sp := range splits {
		if sp.Data == nil {
			return nil, invalidf("split of another kind of scan given to a Paimon table scan")
		}
		if i := d.indexOf(sp.Data); i >= 0 {
			sel = append(sel, d.native[i])
		} else {
			foreign = append(foreign, *sp.Data)
		}
	}
	if len(foreign) > 0 {
		opened, err := d.scan.Open(ctx, foreign)
		if err != nil {
			return nil, err
		}
		sel = append(sel, opened...)
	}
	r := &dataReader{}
	rd, err := d.scan.ReadSplits(ctx, sel, scan.ReadOptions{Mem: o.Mem, Pool: o.Pool, Stats: &r.stats, Dynamic: o.Dynamic, RowFilter: o.RowFilter})
	if err != nil {
		return nil, err
	}
	r.RecordReader = rd
	r.refs.Store(1)
	r.unpin = d.pin(0)
	return r, nil
}

// indexOf finds the split of this scan sp was exported from (the same
// pointer, as the planner passes them back); -1 for other values.
func (d *dataScan) indexOf(sp *scan.PlannedSplit) int {
	d.once.Do(func() {
		d.index = make(map[*scan.PlannedSplit]int, len(d.splits))
		for i := range d.splits {
			d.index[d.splits[i].Data] = i
		}
	})
	if i, ok := d.index[sp]; ok {
		return i
	}
	return -1
}

// dataReader keeps its snapshot pinned until its last reference is
// released.
type dataReader struct {
	array.RecordReader
	stats scan.ReadStats
	refs  atomic.Int64
	unpin func()
}

func (r *dataReader) Retain() {
	r.refs.Add(1)
	r.RecordReader.Retain()
}

func (r *dataReader) Release() {
	if r.refs.Add(-1) == 0 {
		defer r.unpin()
	}
	r.RecordReader.Release()
}

func (r *dataReader) Report() ReadReport {
	return ReadReport{
		FilesRead:        r.stats.FilesRead.Load(),
		RowGroupsTotal:   r.stats.RowGroupsTotal.Load(),
		RowGroupsSkipped: r.stats.RowGroupsSkipped.Load(),
		RowsDeleted:      r.stats.RowsDeleted.Load(),

		FilesSkippedIndex: r.stats.FilesSkippedIndex.Load(),
		RowsSkippedIndex:  r.stats.RowsSkippedIndex.Load(),
		FilesSkippedTopN:  r.stats.FilesSkippedDynamic.Load(),

		RowsSkippedPageIndex: r.stats.PageIndex.RowsSkipped.Load(),
	}
}

// writeTable opens the table for writing (paimon/write), on its branch.
func (t *DataTable) writeTable(ctx context.Context, what string) (*write.Table, error) {
	if t.ro {
		return nil, paimon.Errorf(ErrUnsupported, "%s on %s (a read-only view)", what, SQLName(t.id))
	}
	if path.Clean(t.cat.TablePath(t.id.Database, t.id.Table)) != write.TablePath(t.id.Database, t.id.Table) {
		return nil, paimon.Errorf(ErrUnsupported, "%s on %s (catalog root is not the warehouse root)", what, SQLName(t.id))
	}
	return write.OpenTable(ctx, t.cat.io, t.id.Database, t.id.Table, t.id.Branch)
}

// Delete implements Deleter (DELETE FROM t WHERE filter) with paimon/write.
func (t *DataTable) Delete(ctx context.Context, filter predicate.Predicate) (int64, error) {
	wt, err := t.writeTable(ctx, "DELETE")
	if err != nil {
		return 0, err
	}
	return wt.Delete(ctx, filter)
}

// UpdateAppend implements AppendUpdater (UPDATE of an append table) with
// paimon/write: deletion vectors when the table has them, else
// copy-on-write of the touched files.
func (t *DataTable) UpdateAppend(ctx context.Context, mem memory.Allocator, filter predicate.Predicate,
	set func(ctx context.Context, rec arrow.RecordBatch) (arrow.RecordBatch, error)) (int64, error) {
	wt, err := t.writeTable(ctx, "UPDATE")
	if err != nil {
		return 0, err
	}
	return wt.UpdateAppend(ctx, mem, filter, set)
}

// Compact implements Compactor (CALL sys.compact) with paimon/write.
func (t *DataTable) Compact(ctx context.Context, full bool) error {
	wt, err := t.writeTable(ctx, "sys.compact")
	if err != nil {
		return err
	}
	_, err = wt.Compact(ctx, write.CompactOptions{Full: full})
	return err
}

// CompactPartitions implements PartitionCompactor.
func (t *DataTable) CompactPartitions(ctx context.Context, full bool, specs []map[string]string) error {
	wt, err := t.writeTable(ctx, "sys.compact")
	if err != nil {
		return err
	}
	_, err = wt.Compact(ctx, write.CompactOptions{Full: full, Partitions: specs})
	return err
}

// ExpireSnapshots implements SnapshotExpirer (CALL sys.expire_snapshots).
func (t *DataTable) ExpireSnapshots(ctx context.Context, req ExpireRequest) (int, error) {
	wt, err := t.writeTable(ctx, "sys.expire_snapshots")
	if err != nil {
		return 0, err
	}
	return wt.ExpireSnapshots(ctx, write.ExpireOptions{
		NoTableDefaults: true, RetainMax: req.RetainMax, RetainMin: req.RetainMin,
		OlderThan: req.OlderThan, Limit: req.MaxDeletes,
	})
}

// RemoveOrphanFiles implements OrphanRemover (CALL sys.remove_orphan_files).
func (t *DataTable) RemoveOrphanFiles(ctx context.Context, olderThan time.Time, dryRun bool) (int, int64, error) {
	wt, err := t.writeTable(ctx, "sys.remove_orphan_files")
	if err != nil {
		return 0, 0, err
	}
	res, err := wt.RemoveOrphanFiles(ctx, write.OrphanOptions{OlderThan: olderThan, DryRun: dryRun})
	return res.Files, res.Bytes, err
}

var (
	_ Deleter         = (*DataTable)(nil)
	_ AppendUpdater   = (*DataTable)(nil)
	_ Compactor       = (*DataTable)(nil)
	_ SnapshotExpirer = (*DataTable)(nil)
	_ OrphanRemover   = (*DataTable)(nil)
)

// indexSkips renders per-index-type skip counts as "bitmap 1, bsi 2".
func indexSkips(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, m[k])
	}
	return strings.Join(parts, ", ")
}

// rangeFiles bounds the data files whose statistics ColumnRanges decodes.
const rangeFiles = 4096

// ColumnRanges implements ColumnRanger from the planned files' value
// statistics.
func (d *dataScan) ColumnRanges(ctx context.Context) (map[string][2]int64, error) {
	rs, err := d.scan.ColumnRanges(ctx, d.native, rangeFiles)
	if err != nil {
		return nil, err
	}
	out := make(map[string][2]int64, len(rs))
	for k, r := range rs {
		out[k] = [2]int64{r.Min, r.Max}
	}
	return out, nil
}

package catalog

import (
	"context"
	"path"
	"strings"
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
	sc, err := t.LatestSchema(ctx)
	if err != nil {
		return nil, err
	}
	return &DataTable{cat: c, id: id, table: t, schema: sc, arrow: scan.OutputSchema(sc.Fields)}, nil
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

// NewScan implements Table: it resolves the snapshot and plans the scan.
func (t *DataTable) NewScan(ctx context.Context, req ScanRequest) (Scan, error) {
	tbl := t.table
	if b := strings.TrimSpace(req.Options["branch"]); b != "" && b != tbl.BranchName() {
		var err error
		if tbl, err = tbl.Branch(ctx, b); err != nil {
			return nil, err
		}
	}
	opts := scan.Options{Columns: req.Columns, Filter: req.Filter, ReadOptimized: t.ro, Limit: req.Limit}
	if err := scan.OptionsFromMap(&opts, req.Options); err != nil {
		return nil, invalidf("%v", err)
	}
	s, err := scan.New(ctx, tbl, opts)
	if err != nil {
		return nil, err
	}
	plan, err := s.Plan(ctx)
	if err != nil {
		return nil, err
	}
	d := &dataScan{scan: s, plan: plan, filter: req.Filter, table: tbl}
	if id := plan.Stats.SnapshotID; id > 0 {
		// Keep snapshot expiry of this process off the planned snapshot
		// while its endpoints may still be fetched.
		tbl.PinSnapshot(id, planPinTTL)
	}
	return d, nil
}

// planPinTTL is how long a planned scan keeps its snapshot from expiring
// before it is read (reading pins it until the reader is released).
const planPinTTL = 10 * time.Minute

type dataScan struct {
	table  *paimon.Table
	scan   *scan.Scan
	plan   *scan.Plan
	filter predicate.Predicate
	read   scan.ReadStats
}

func (d *dataScan) Schema() *arrow.Schema { return d.scan.Schema() }

func (d *dataScan) Stats() ScanStats {
	st := d.plan.Stats
	out := ScanStats{
		SnapshotID:           st.SnapshotID,
		ManifestsTotal:       st.ManifestsTotal,
		ManifestsPruned:      st.ManifestsPruned,
		FilesTotal:           st.FilesTotal,
		FilesPrunedPartition: st.FilesPrunedPartition,
		FilesPrunedBucket:    st.FilesPrunedBucket,
		FilesPrunedStats:     st.FilesPrunedStats,
		RowGroupsTotal:       int(d.read.RowGroupsTotal.Load()),
		RowGroupsSkipped:     int(d.read.RowGroupsSkipped.Load()),
		DeletionVectors:      st.DeletionVectors,
		MergedBuckets:        st.MergeSplits,
	}
	if d.filter != nil {
		out.Residual = d.filter.String()
	}
	return out
}

func (d *dataScan) RowCount() (int64, bool) { return d.plan.RowCount(d.filter) }

// FilterExact: the scan applies the whole filter to every row it returns.
func (d *dataScan) FilterExact() bool { return true }

func (d *dataScan) NumSplits() int { return len(d.plan.Splits) }

func (d *dataScan) Read(ctx context.Context, mem memory.Allocator, splits []int) (array.RecordReader, error) {
	sel := d.plan.Splits
	if splits != nil {
		sel = make([]scan.Split, 0, len(splits))
		for _, i := range splits {
			if i < 0 || i >= len(d.plan.Splits) {
				return nil, invalidf("split %d out of range [0, %d)", i, len(d.plan.Splits))
			}
			sel = append(sel, d.plan.Splits[i])
		}
	}
	rr, err := d.scan.ReadWithStats(ctx, mem, sel, &d.read)
	if err != nil || d.plan.Stats.SnapshotID <= 0 {
		return rr, err
	}
	r := &pinnedReader{RecordReader: rr, unpin: d.table.PinSnapshot(d.plan.Stats.SnapshotID, 0)}
	r.refs.Store(1)
	return r, nil
}

// pinnedReader keeps its snapshot pinned (paimon.Table.PinSnapshot) until
// its last reference is released.
type pinnedReader struct {
	array.RecordReader
	refs  atomic.Int64
	unpin func()
}

func (r *pinnedReader) Retain() {
	r.refs.Add(1)
	r.RecordReader.Retain()
}

func (r *pinnedReader) Release() {
	if r.refs.Add(-1) == 0 {
		defer r.unpin()
	}
	r.RecordReader.Release()
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

// Compact implements Compactor (CALL sys.compact) with paimon/write.
func (t *DataTable) Compact(ctx context.Context, full bool) error {
	wt, err := t.writeTable(ctx, "sys.compact")
	if err != nil {
		return err
	}
	_, err = wt.Compact(ctx, write.CompactOptions{Full: full})
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
	_ Compactor       = (*DataTable)(nil)
	_ SnapshotExpirer = (*DataTable)(nil)
	_ OrphanRemover   = (*DataTable)(nil)
)

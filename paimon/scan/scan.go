// Package scan turns a Paimon snapshot into Arrow record batches that match
// what Paimon Java returns for the same snapshot, row for row.
//
// A scan is planned, then read: Plan reads metadata only (manifest lists,
// manifests, the index manifest) and prunes at every level it can — manifests
// by partition statistics, entries by partition value and bucket, files by key
// and value statistics — producing Splits. Read turns splits into batches:
// raw splits decode files directly (dropping rows marked in deletion
// vectors), merge splits run a k-way merge over the bucket's sorted runs with
// the table's merge engine. Row groups are skipped by Parquet statistics, and
// the scan's filter is applied exactly to every row it returns.
package scan

import (
	"github.com/RoaringBitmap/roaring/v2"

	"context"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/fileio"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/format"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// Options select the snapshot and shape of a scan.
type Options struct {
	// Time travel: at most one of SnapshotID, TagName, TimestampMillis.
	SnapshotID      int64  // 0 = latest
	TagName         string // scan.tag-name
	TimestampMillis int64  // scan.timestamp-millis; 0 = unset
	// Columns to return by name (current schema), in order; nil = all.
	Columns []string
	// Filter prunes and is applied exactly to returned rows; nil = none.
	Filter predicate.Predicate
	// ReadOptimized reads only the top LSM level of primary-key tables ($ro).
	ReadOptimized bool
	// BatchSize bounds rows per batch (format.DefaultBatchSize when 0).
	BatchSize int
	// Concurrency bounds files read at once (runtime.NumCPU() when 0).
	Concurrency int
	// Limit stops reading once this many rows were produced (< 0 or 0: none).
	Limit int64
	// NoPruning disables every metadata-based skip (manifests, partitions,
	// buckets, file and row-group statistics); the filter is still applied
	// to rows. Tests use it to prove pruning never changes a result.
	NoPruning bool
	// NoFileIndex ignores the data files' file indexes (bitmap, BSI, bloom
	// filter, range bitmap), as the scan option file-index.read.enabled=false
	// does; results are the same either way.
	NoFileIndex bool
	// SplitFileBytes and SplitFileRows, when > 0, cut a raw Parquet data
	// file of more than twice either into splits (FileRange) of about that
	// many bytes or rows, whichever makes more (at most maxPieces), so
	// that one large file is read by several workers; 0 = one split per
	// file. Only readers of rows set them (the SQL engine): a split then no
	// longer holds a whole file.
	SplitFileBytes, SplitFileRows int64
	// Schema is the table's latest schema as the caller resolved it for
	// this query (the catalog's table lookup); nil = resolve it here. The
	// scan then reads with the schema the query was bound to, and a plan
	// lists schema/ once, not twice.
	Schema *paimon.TableSchema
}

// OptionsFromMap fills time-travel options from Paimon option keys
// (scan.snapshot-id, scan.tag-name, scan.timestamp-millis, scan.version).
func OptionsFromMap(o *Options, m map[string]string) error {
	for k, v := range m {
		v = strings.TrimSpace(v)
		switch strings.ToLower(k) {
		case "scan.snapshot-id":
			id, err := strconv.ParseInt(v, 10, 64)
			if err != nil || id <= 0 {
				return fmt.Errorf("invalid scan.snapshot-id %q: want a positive integer", v)
			}
			o.SnapshotID = id
		case "scan.tag-name":
			o.TagName = v
		case "scan.timestamp-millis":
			ts, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return fmt.Errorf("invalid scan.timestamp-millis %q: want epoch milliseconds", v)
			}
			o.TimestampMillis = ts
		case "file-index.read.enabled":
			b, err := strconv.ParseBool(v)
			if err != nil {
				return fmt.Errorf("invalid file-index.read.enabled %q: want true or false", v)
			}
			o.NoFileIndex = !b
		case "scan.version":
			if id, err := strconv.ParseInt(v, 10, 64); err == nil {
				o.SnapshotID = id
			} else {
				o.TagName = v
			}
		}
	}
	n := 0
	if o.SnapshotID != 0 {
		n++
	}
	if o.TagName != "" {
		n++
	}
	if o.TimestampMillis != 0 {
		n++
	}
	if n > 1 {
		return fmt.Errorf("conflicting time-travel options: set only one of scan.snapshot-id, scan.tag-name, scan.timestamp-millis")
	}
	return nil
}

// Scan is a planned-or-plannable read of one table snapshot.
type Scan struct {
	table    *paimon.Table
	opts     Options
	snapshot *paimon.Snapshot // nil when the table has no snapshot
	schema   *paimon.TableSchema
	outCols  []types.DataField // requested columns, current schema
	readCols []types.DataField // outCols + filter-only columns
	out      *arrow.Schema
	info     tableInfo
	tracking []int // indexes of row-tracking columns in readCols
	descCols []int // indexes of blob-descriptor-field columns in readCols

	// globalRows: file name → the file positions a global index (the
	// primary-key BTree index, or a bitmap/BTree index of a row-tracking
	// append file alone with its row ids) left for the filter (set by Plan, read by readers;
	// splits opened without planning have none).
	globalMu   sync.Mutex
	globalRows map[string]*roaring.Bitmap
	bgixSeen   int // BGIX global index files met by the last plan (not used)

	schemaMu  sync.Mutex
	schemas   map[int64][]types.DataField // file schemas by id
	extOpts   map[int64]string            // data-file.external-paths of each file schema
	extIO     map[string]fileio.FileIO    // FileIO by declared external roots (external.go)
	partPaths map[string]string           // partition bytes → relative dir
}

// tableInfo caches what planning and reading need from the schema.
type tableInfo struct {
	pk            bool
	trimmedPK     []types.DataField
	partition     []types.DataField
	dv            bool
	mergeEngine   MergeEngine
	skipLevel0    bool
	maxLevel      int32
	valueStatsOK  bool // value stats may prune single files
	bucket        int
	bucketKeys    []types.DataField
	bucketFuncDef bool
	evolution     bool // data-evolution.enabled: files merge column-wise by row id
	// noValueStats: value statistics may not prune at all (not even a whole
	// bucket whose every file fails them).
	noValueStats bool
	// dvMergeOnRead: deletion-vectors.merge-on-read (level 0 visible, merged).
	dvMergeOnRead bool
	// clusteringOverride: pk-clustering-override, files are sorted by
	// clustering.columns, not by key: they can be read raw (every row final
	// through deletion vectors or first-row) but never merged by key.
	clusteringOverride bool
	// postponeMergeOnRead: postpone.merge-on-read, postpone-bucket (-2)
	// records would have to be routed to their real buckets and merged.
	postponeMergeOnRead bool
}

// New resolves the snapshot and schema of a scan. Errors for a missing
// snapshot, tag or timestamp wrap paimon.ErrNotFound and name it.
func New(ctx context.Context, t *paimon.Table, opts Options) (*Scan, error) {
	s := &Scan{table: t, opts: opts}
	if s.opts.Concurrency <= 0 {
		s.opts.Concurrency = runtime.NumCPU()
	}
	if s.opts.BatchSize <= 0 {
		s.opts.BatchSize = format.DefaultBatchSize
	}
	// The latest schema is resolved while the snapshot is: on an object
	// store each is a chain of round trips.
	type schemaResult struct {
		sc  *paimon.TableSchema
		err error
	}
	schemaCh := make(chan schemaResult, 1)
	if opts.Schema != nil {
		schemaCh <- schemaResult{sc: opts.Schema}
	} else {
		go func() {
			sc, err := t.LatestSchema(ctx)
			schemaCh <- schemaResult{sc, err}
		}()
	}
	var err error
	switch {
	case opts.SnapshotID != 0:
		s.snapshot, err = t.Snapshot(ctx, opts.SnapshotID)
	case opts.TagName != "":
		s.snapshot, err = t.SnapshotByTag(ctx, opts.TagName)
	case opts.TimestampMillis != 0:
		s.snapshot, err = t.SnapshotAtOrBefore(ctx, opts.TimestampMillis)
	default: // a table without snapshots reads as empty (nil)
		s.snapshot, err = t.LatestSnapshotIfAny(ctx)
	}
	if err != nil {
		return nil, err
	}
	// Every read uses the table's latest schema, time travel included: SQL
	// clients see one stable schema per table (the one GetTables and the
	// planner report), columns added after the snapshot read as NULL and
	// renamed ones are matched by field id.
	res := <-schemaCh
	s.schema, err = res.sc, res.err
	if err != nil {
		return nil, err
	}
	if err := paimon.CheckReadable(s.schema); err != nil {
		return nil, fmt.Errorf("table %s: %w", t.Path(), err)
	}
	// schema-<latest> is not read again by this scan (the manifest format
	// of a snapshot written with it, data files written with it): it is
	// the file just resolved.
	s.table = t.WithKnownSchema(s.schema)
	if err := s.resolveColumns(); err != nil {
		return nil, err
	}
	if err := s.resolveInfo(); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *Scan) resolveColumns() error {
	rt := s.schema.RowType()
	if s.opts.Columns == nil {
		s.outCols = append([]types.DataField(nil), rt...)
	} else {
		for _, c := range s.opts.Columns {
			i := rt.FieldIndex(c)
			if i < 0 {
				if f, ok := systemColumn(s.schema, c); ok {
					s.outCols = append(s.outCols, f)
					continue
				}
				return paimon.Errorf(paimon.ErrNotFound, "column %q does not exist in table %s", c, s.table.Path())
			}
			s.outCols = append(s.outCols, rt[i])
		}
	}
	s.readCols = append([]types.DataField(nil), s.outCols...)
	if s.opts.Filter != nil {
		for _, c := range predicate.Columns(s.opts.Filter) {
			if fieldIndexByName(s.readCols, c) >= 0 {
				continue
			}
			i := rt.FieldIndex(c)
			if i < 0 {
				if f, ok := systemColumn(s.schema, c); ok {
					s.readCols = append(s.readCols, f)
					continue
				}
				return paimon.Errorf(paimon.ErrNotFound, "filter column %q does not exist in table %s", c, s.table.Path())
			}
			s.readCols = append(s.readCols, rt[i])
		}
	}
	s.out = OutputSchema(s.outCols)
	s.tracking = trackingCols(s.readCols)
	s.descCols = descriptorCols(s.schema, s.readCols)
	return nil
}

// OutputSchema is the Arrow schema of a scan returning fields: the
// format's Arrow mapping with the Paimon type in field metadata
// ("paimon.type") and the field id ("paimon.field_id").
func OutputSchema(fields []types.DataField) *arrow.Schema {
	base := format.ArrowSchema(fields)
	out := make([]arrow.Field, base.NumFields())
	for i := range out {
		f := base.Field(i)
		keys := append([]string(nil), f.Metadata.Keys()...)
		vals := append([]string(nil), f.Metadata.Values()...)
		if f.Metadata.FindKey(MetaPaimonType) < 0 {
			keys = append(keys, MetaPaimonType)
			vals = append(vals, fields[i].Type.String())
		}
		if isTrackingField(fields[i]) { // filled on every row: NOT NULL
			keys = append(keys, MetaSystemColumn)
			vals = append(vals, "true")
			f.Nullable = false
		}
		f.Metadata = arrow.NewMetadata(keys, vals)
		out[i] = f
	}
	return arrow.NewSchema(out, nil)
}

// MetaPaimonType is the Arrow field metadata key holding the Paimon SQL type.
const MetaPaimonType = "paimon.type"

func fieldIndexByName(fs []types.DataField, name string) int {
	for i, f := range fs {
		if f.Name == name {
			return i
		}
	}
	return -1
}

func (s *Scan) resolveInfo() error {
	sc := s.schema
	rt := sc.RowType()
	inf := &s.info
	inf.pk = len(sc.PrimaryKeys) > 0
	for _, n := range sc.TrimmedPrimaryKeys() {
		i := rt.FieldIndex(n)
		if i < 0 {
			return fmt.Errorf("%w: primary key column %q missing from schema %d", paimon.ErrCorrupt, n, sc.ID)
		}
		inf.trimmedPK = append(inf.trimmedPK, rt[i])
	}
	for _, n := range sc.PartitionKeys {
		i := rt.FieldIndex(n)
		if i < 0 {
			return fmt.Errorf("%w: partition column %q missing from schema %d", paimon.ErrCorrupt, n, sc.ID)
		}
		inf.partition = append(inf.partition, rt[i])
	}
	inf.dv = sc.DeletionVectorsEnabled()
	inf.mergeEngine = MergeEngine(strings.ToLower(sc.MergeEngine()))
	if inf.mergeEngine == "" {
		inf.mergeEngine = Deduplicate
	}
	inf.bucket = sc.Bucket()
	inf.bucketFuncDef = strings.EqualFold(sc.Option("bucket-function.type", "default"), "default")
	for _, n := range sc.BucketKeys() {
		if i := rt.FieldIndex(n); i >= 0 {
			inf.bucketKeys = append(inf.bucketKeys, rt[i])
		}
	}
	trigger := sc.OptionInt("num-sorted-run.compaction-trigger", 5)
	inf.maxLevel = int32(sc.OptionInt("num-levels", trigger+1) - 1)
	if inf.pk {
		// CoreOptions.batchScanSkipLevel0: with deletion vectors, level 0 is
		// invisible unless deletion-vectors.merge-on-read (then every level is
		// merged, deletion vectors applied to the files they mark); without,
		// only first-row skips it.
		if inf.dv {
			inf.dvMergeOnRead = sc.OptionBool("deletion-vectors.merge-on-read", false)
			inf.skipLevel0 = !inf.dvMergeOnRead
		} else {
			inf.skipLevel0 = inf.mergeEngine == FirstRow
		}
		inf.valueStatsOK = inf.skipLevel0 || s.opts.ReadOptimized
		inf.clusteringOverride = sc.OptionBool("pk-clustering-override", false)
		inf.postponeMergeOnRead = sc.OptionBool("postpone.merge-on-read", false)
	} else {
		inf.valueStatsOK = true
	}
	if desc := sc.BlobDescriptorFields(); len(desc) > 0 && s.opts.Filter != nil {
		for _, c := range predicate.Columns(s.opts.Filter) {
			if desc[c] { // file stats describe descriptors, not the bytes
				inf.valueStatsOK, inf.noValueStats = false, true
			}
		}
	}
	if sc.DataEvolutionEnabled() && !inf.pk {
		// A file's stats cover only the columns it wrote, possibly stale
		// ones: never prune single files by value statistics (evolution.go).
		inf.evolution = true
		inf.valueStatsOK, inf.noValueStats = false, true
	}
	return nil
}

// Schema is the Arrow schema of the batches Read returns.
func (s *Scan) Schema() *arrow.Schema { return s.out }

// Snapshot is the snapshot being read (nil for a table without snapshots).
func (s *Scan) Snapshot() *paimon.Snapshot { return s.snapshot }

// TableSchema is the schema the scan reads with.
func (s *Scan) TableSchema() *paimon.TableSchema { return s.schema }

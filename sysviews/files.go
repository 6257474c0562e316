package sysviews

import (
	"context"
	"fmt"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/binrow"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// filesFields is FilesTable.TABLE_TYPE.
var filesFields = []types.DataField{
	fString(0, "partition", true),
	fInt(1, "bucket", false),
	fString(2, "file_path", false),
	fString(3, "file_format", false),
	fBigInt(4, "schema_id", false),
	fInt(5, "level", false),
	fBigInt(6, "record_count", false),
	fBigInt(7, "file_size_in_bytes", false),
	fString(8, "min_key", true),
	fString(9, "max_key", true),
	fString(10, "null_value_counts", false),
	fString(11, "min_value_stats", false),
	fString(12, "max_value_stats", false),
	fBigInt(13, "min_sequence_number", true),
	fBigInt(14, "max_sequence_number", true),
	fTimestamp(15, "creation_time", true),
	fBigInt(16, "deleteRowCount", true),
	fString(17, "file_source", true),
	fBigInt(18, "first_row_id", true),
	{ID: 19, Name: "write_cols", Type: types.NewArray(types.NewString())},
}

// newFilesView serves $files: one row per live data file of the selected
// snapshot (scan.snapshot-id, default latest). A filter on partition or
// bucket prunes manifests (by partition and bucket statistics) and entries.
func newFilesView(_ context.Context, base *catalog.DataTable, id catalog.Identifier) (catalog.Table, error) {
	mainT := base.Paimon()
	return newView(id, filesFields, nil, func(ctx context.Context, req catalog.ScanRequest) (*rowSet, error) {
		t, err := onBranch(ctx, mainT, req.Options)
		if err != nil {
			return nil, err
		}
		snap, err := selectSnapshot(ctx, t, req.Options)
		if err != nil {
			return nil, err
		}
		rs := &rowSet{stats: catalog.ScanStats{SnapshotID: -1}, prunes: len(req.Filters) > 0}
		if snap == nil {
			return rs, nil
		}
		rs.stats.SnapshotID = snap.ID
		fr, err := newFileRenderer(ctx, t)
		if err != nil {
			return nil, err
		}
		pr := newFilesPruner(req.Filter(), fr.pi)
		fs, err := t.ReadFileSet(ctx, snap, &paimon.FileSetOptions{
			ManifestFilter: pr.keepManifest,
			ManifestFormat: fr.latest.ManifestFormat(),
			SkipIndex:      true,
		})
		if err != nil {
			return nil, err
		}
		rs.stats.ManifestsTotal = len(fs.Manifests)
		for _, p := range fs.Pruned {
			if p {
				rs.stats.ManifestsPruned++
			}
		}
		rs.stats.FilesTotal = len(fs.Entries)
		for i := range fs.Entries {
			e := &fs.Entries[i]
			vals, err := fr.pi.values(e.Partition)
			if err != nil {
				return nil, fmt.Errorf("data file %s: partition: %w", e.File.FileName, err)
			}
			part := fr.pi.String(vals)
			switch pr.keepEntry(part, e.Bucket) {
			case "partition":
				rs.stats.FilesPrunedPartition++
				continue
			case "bucket":
				rs.stats.FilesPrunedBucket++
				continue
			}
			row, err := fr.row(ctx, e, vals, part)
			if err != nil {
				return nil, err
			}
			rs.rows = append(rs.rows, row)
		}
		return rs, nil
	}), nil
}

// fileRenderer renders data file metadata as $files rows, evolving value
// statistics to the latest schema by field id as Java's SimpleStatsEvolution.
type fileRenderer struct {
	t       *paimon.Table
	latest  *paimon.TableSchema
	pi      *partitionInfo
	schemas map[int64]*paimon.TableSchema
}

func newFileRenderer(ctx context.Context, t *paimon.Table) (*fileRenderer, error) {
	latest, err := t.LatestSchema(ctx)
	if err != nil {
		return nil, err
	}
	pi, err := newPartitionInfo(latest)
	if err != nil {
		return nil, err
	}
	return &fileRenderer{t: t, latest: latest, pi: pi, schemas: map[int64]*paimon.TableSchema{latest.ID: latest}}, nil
}

func (r *fileRenderer) schema(ctx context.Context, id int64) (*paimon.TableSchema, error) {
	if s, ok := r.schemas[id]; ok {
		return s, nil
	}
	s, err := r.t.Schema(ctx, id)
	if err != nil {
		return nil, err
	}
	r.schemas[id] = s
	return s, nil
}

// bucketDir is the directory of a bucket's data files.
func (r *fileRenderer) bucketDir(vals []any, bucket int32) (string, error) {
	p, err := r.pi.Path(vals)
	if err != nil {
		return "", err
	}
	b := "bucket-" + strconv.Itoa(int(bucket))
	if bucket == -2 {
		b = "bucket-postpone"
	}
	return path.Join(r.t.Path(), r.latest.Option(paimon.OptDataFilePathDirectory, ""), p, b), nil
}

func (r *fileRenderer) row(ctx context.Context, e *paimon.ManifestEntry, vals []any, part string) ([]any, error) {
	f := &e.File
	fail := func(what string, err error) error {
		return fmt.Errorf("data file %s: %s: %w", f.FileName, what, err)
	}
	fileSchema, err := r.schema(ctx, f.SchemaID)
	if err != nil {
		return nil, fail("schema", err)
	}
	filePath := ""
	if f.ExternalPath != nil && *f.ExternalPath != "" {
		filePath = *f.ExternalPath
	} else {
		dir, err := r.bucketDir(vals, e.Bucket)
		if err != nil {
			return nil, fail("partition path", err)
		}
		filePath = dir + "/" + f.FileName
	}
	minKey, err := r.keyString(fileSchema, f.MinKey)
	if err != nil {
		return nil, fail("min key", err)
	}
	maxKey, err := r.keyString(fileSchema, f.MaxKey)
	if err != nil {
		return nil, fail("max key", err)
	}
	nulls, mins, maxs, err := r.valueStats(fileSchema, f)
	if err != nil {
		return nil, fail("value stats", err)
	}
	var created any
	if f.CreationTime != nil {
		created = millisTime(*f.CreationTime)
	}
	var source any
	if f.FileSource != nil {
		switch *f.FileSource {
		case paimon.FileSourceAppend:
			source = "APPEND"
		case paimon.FileSourceCompact:
			source = "COMPACT"
		default:
			source = strconv.Itoa(int(*f.FileSource))
		}
	}
	var writeCols any
	if f.WriteCols != nil {
		writeCols = f.WriteCols
	}
	return []any{
		part, e.Bucket, filePath, formatIdentifier(f.FileName), f.SchemaID, f.Level,
		f.RowCount, f.FileSize, minKey, maxKey, nulls, mins, maxs,
		f.MinSequenceNumber, f.MaxSequenceNumber, created, optInt64(f.DeleteRowCount),
		source, optInt64(f.FirstRowID), writeCols,
	}, nil
}

// formatIdentifier is DataFilePathFactory.formatIdentifier: the extension.
func formatIdentifier(name string) string {
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		return name[i+1:]
	}
	return name
}

// keyString renders a min/max key as Arrays.toString of its values (trimmed
// primary key of the file's schema); nil for a 0-arity key (append tables).
func (r *fileRenderer) keyString(s *paimon.TableSchema, key []byte) (any, error) {
	if len(key) == 0 {
		return nil, nil
	}
	arity, _, err := binrow.SplitSerialized(key)
	if err != nil {
		return nil, err
	}
	if arity <= 0 {
		return nil, nil
	}
	var fields []types.DataField
	for _, k := range s.TrimmedPrimaryKeys() {
		f, ok := s.FieldByName(k)
		if !ok {
			return nil, fmt.Errorf("primary key %q is not a field of schema %d", k, s.ID)
		}
		fields = append(fields, f)
	}
	if len(fields) == 0 {
		fields = s.Fields
	}
	if arity != len(fields) {
		return nil, fmt.Errorf("key has %d fields, schema %d has %d key fields", arity, s.ID, len(fields))
	}
	tys := types.RowType(fields).Types()
	vals, err := binrow.Deserialize(tys, key)
	if err != nil {
		return nil, err
	}
	parts := make([]string, len(vals))
	for i, v := range vals {
		parts[i] = internalString(tys[i], v)
	}
	return "[" + strings.Join(parts, ", ") + "]", nil
}

// valueStats renders the file's value statistics over the latest schema's
// fields, keyed and sorted by field name (Java's TreeMap.toString).
func (r *fileRenderer) valueStats(s *paimon.TableSchema, f *paimon.DataFileMeta) (nulls, mins, maxs string, err error) {
	// Columns the stats were written for, as fields of the file's schema.
	var cols []types.DataField
	names := f.ValueStatsCols
	if names == nil {
		names = f.WriteCols
	}
	if names == nil {
		cols = s.Fields
	} else {
		for _, n := range names {
			fd, ok := s.FieldByName(n)
			if !ok {
				return "", "", "", fmt.Errorf("stats column %q is not a field of schema %d", n, s.ID)
			}
			cols = append(cols, fd)
		}
	}
	var st binrow.SimpleStats
	minArity, _, err := binrow.SplitSerialized(f.ValueStats.MinValues)
	if err != nil {
		return "", "", "", err
	}
	if minArity != len(cols) {
		if minArity != 0 {
			return "", "", "", fmt.Errorf("stats have %d columns, expected %d", minArity, len(cols))
		}
		return "{}", "{}", "{}", nil // no stats (metadata.stats-mode none)
	} else {
		if st, err = binrow.DecodeSimpleStats(types.RowType(cols).Types(), f.ValueStats.MinValues, f.ValueStats.MaxValues); err != nil {
			return "", "", "", err
		}
	}
	byID := make(map[int]int, len(cols))
	for i, c := range cols {
		byID[c.ID] = i
	}
	inFile := make(map[int]bool, len(s.Fields))
	for _, fd := range s.Fields {
		inFile[fd.ID] = true
	}
	type cell struct{ name, null, min, max string }
	var cells []cell
	for _, fd := range r.latest.Fields {
		c := cell{name: fd.Name, null: "null", min: "null", max: "null"}
		if i, ok := byID[fd.ID]; ok {
			if i < len(f.ValueStats.NullCounts) && f.ValueStats.NullCounts[i] != nil {
				c.null = strconv.FormatInt(*f.ValueStats.NullCounts[i], 10)
			}
			c.min = internalString(cols[i].Type, st.Min[i])
			c.max = internalString(cols[i].Type, st.Max[i])
		} else if !inFile[fd.ID] {
			// Added after the file was written: every row is NULL.
			c.null = strconv.FormatInt(f.RowCount, 10)
		}
		cells = append(cells, c)
	}
	sort.Slice(cells, func(i, j int) bool { return cells[i].name < cells[j].name })
	var nb, mb, xb strings.Builder
	for i, c := range cells {
		if i > 0 {
			nb.WriteString(", ")
			mb.WriteString(", ")
			xb.WriteString(", ")
		}
		nb.WriteString(c.name + "=" + c.null)
		mb.WriteString(c.name + "=" + c.min)
		xb.WriteString(c.name + "=" + c.max)
	}
	return "{" + nb.String() + "}", "{" + mb.String() + "}", "{" + xb.String() + "}", nil
}

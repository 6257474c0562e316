package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/binrow"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/partition"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

func init() {
	register("inspect", "show a table's schema, snapshots, manifests and live files", runInspect)
}

// inspectReport is what inspect prints (--json prints it as is).
type inspectReport struct {
	Table      string              `json:"table"`
	Schema     *paimon.TableSchema `json:"schema"`
	Snapshots  []inspectSnapshot   `json:"snapshots"`
	Selected   int64               `json:"selected_snapshot"`
	Manifests  []inspectManifest   `json:"manifests"`
	Files      []inspectFile       `json:"files"`
	IndexFiles []inspectIndexFile  `json:"index_files"`
	Totals     inspectTotals       `json:"totals"`
}

type inspectSnapshot struct {
	ID          int64  `json:"id"`
	SchemaID    int64  `json:"schema_id"`
	Kind        string `json:"commit_kind"`
	TotalRecord int64  `json:"total_record_count"`
	DeltaRecord int64  `json:"delta_record_count"`
	Time        string `json:"time"`
	// Newer snapshot fields (Paimon 1.2+ / 2.0), omitted when the file lacks them.
	NextRowID     *int64  `json:"next_row_id,omitempty"`
	UUID          *string `json:"uuid,omitempty"`
	Operation     *string `json:"operation,omitempty"`
	WriterVersion *string `json:"writer_version,omitempty"`
}

type inspectManifest struct {
	List           string   `json:"list"` // base or delta
	FileName       string   `json:"file_name"`
	FileSize       int64    `json:"file_size"`
	AddedFiles     int64    `json:"num_added_files"`
	DeletedFiles   int64    `json:"num_deleted_files"`
	SchemaID       int64    `json:"schema_id"`
	PartitionMin   []string `json:"partition_min"`
	PartitionMax   []string `json:"partition_max"`
	PartitionNulls []string `json:"partition_null_counts"`
	MinBucket      *int32   `json:"min_bucket,omitempty"`
	MaxBucket      *int32   `json:"max_bucket,omitempty"`
	MinLevel       *int32   `json:"min_level,omitempty"`
	MaxLevel       *int32   `json:"max_level,omitempty"`
	MinRowID       *int64   `json:"min_row_id,omitempty"`
	MaxRowID       *int64   `json:"max_row_id,omitempty"`
}

type inspectFile struct {
	Partition   string `json:"partition"`
	Bucket      int32  `json:"bucket"`
	Level       int32  `json:"level"`
	FileName    string `json:"file_name"`
	RowCount    int64  `json:"record_count"`
	FileSize    int64  `json:"file_size_in_bytes"`
	SchemaID    int64  `json:"schema_id"`
	MinKey      string `json:"min_key,omitempty"`
	MaxKey      string `json:"max_key,omitempty"`
	MinSequence int64  `json:"min_sequence_number"`
	MaxSequence int64  `json:"max_sequence_number"`
	DeleteRows  *int64 `json:"delete_row_count,omitempty"`
	DVDeleted   *int64 `json:"deletion_vector_cardinality,omitempty"`
	// Newer DataFileMeta fields (manifest _FILE fields 15-20).
	FileSource         *string  `json:"file_source,omitempty"`
	ValueStatsCols     []string `json:"value_stats_cols,omitempty"`
	ExternalPath       *string  `json:"external_path,omitempty"`
	FirstRowID         *int64   `json:"first_row_id,omitempty"`
	WriteCols          []string `json:"write_cols,omitempty"`
	WriteColsSequences []int64  `json:"write_cols_sequences,omitempty"`
	ExtraFiles         []string `json:"extra_files,omitempty"`
	EmbeddedIndexBytes int      `json:"embedded_file_index_bytes,omitempty"`
}

type inspectIndexFile struct {
	Partition string `json:"partition"`
	Bucket    int32  `json:"bucket"`
	Type      string `json:"index_type"`
	FileName  string `json:"file_name"`
	FileSize  int64  `json:"file_size"`
	RowCount  int64  `json:"row_count"`
	// ExternalPath and GlobalIndex are index-manifest fields of Paimon 1.3+ / 1.4+.
	ExternalPath *string             `json:"external_path,omitempty"`
	GlobalIndex  *inspectGlobalIndex `json:"global_index,omitempty"`
}

type inspectTotals struct {
	Files       int   `json:"files"`
	Rows        int64 `json:"rows"`
	Bytes       int64 `json:"bytes"`
	DVFiles     int   `json:"files_with_deletion_vectors"`
	DVDeleted   int64 `json:"rows_deleted_by_deletion_vectors"`
	ManifestsRd int   `json:"manifests"`
}

func runInspect(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("inspect", flag.ContinueOnError)
	snapshot := fs.Int64("snapshot", 0, "inspect snapshot `N` (default latest)")
	branch := fs.String("branch", "", "inspect branch `B`")
	asJSON := fs.Bool("json", false, "print JSON")
	catOpts := kvFlag{}
	fs.Var(catOpts, "catalog-option", "catalog option `key=value` for an s3:// table (s3.endpoint, s3.access-key, ...); repeatable")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: paimon-flightsql inspect TABLE_PATH [--snapshot N] [--branch B] [--json]")
		fs.PrintDefaults()
	}
	pos, err := parseFlags(fs, args, stderr)
	if err != nil {
		return err
	}
	if err := needArgs(fs, pos, 1, "one TABLE_PATH", stderr); err != nil {
		return err
	}
	t, err := openTablePath(ctx, pos[0], *branch, catOpts)
	if err != nil {
		return err
	}
	rep, err := buildInspect(ctx, t, *snapshot)
	if err != nil {
		return err
	}
	rep.Table = pos[0]
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	printInspect(stdout, rep)
	return nil
}

func buildInspect(ctx context.Context, t *paimon.Table, snapshotID int64) (*inspectReport, error) {
	rep := &inspectReport{}
	var err error
	if rep.Schema, err = t.LatestSchema(ctx); err != nil {
		return nil, err
	}
	snaps, err := t.Snapshots(ctx)
	if err != nil {
		return nil, err
	}
	for _, s := range snaps {
		rep.Snapshots = append(rep.Snapshots, inspectSnapshot{ID: s.ID, SchemaID: s.SchemaID, Kind: string(s.CommitKind),
			TotalRecord: s.TotalRecordCount, DeltaRecord: s.DeltaRecordCount,
			Time:      time.UnixMilli(s.TimeMillis).UTC().Format(time.RFC3339Nano),
			NextRowID: s.NextRowID, UUID: s.UUID, Operation: s.Operation, WriterVersion: s.WriterVersion})
	}
	var snap *paimon.Snapshot
	if snapshotID != 0 {
		snap, err = t.Snapshot(ctx, snapshotID)
	} else if len(snaps) > 0 {
		snap = snaps[len(snaps)-1]
	}
	if err != nil {
		return nil, err
	}
	if snap == nil {
		return rep, nil
	}
	rep.Selected = snap.ID
	sc, err := t.Schema(ctx, snap.SchemaID)
	if err != nil {
		return nil, err
	}
	partFields := make([]types.DataField, 0, len(sc.PartitionKeys))
	for _, n := range sc.PartitionKeys {
		f, ok := sc.FieldByName(n)
		if !ok {
			return nil, fmt.Errorf("partition key %q is not a column of schema %d", n, sc.ID)
		}
		partFields = append(partFields, f)
	}
	partTypes := make([]types.DataType, len(partFields))
	for i, f := range partFields {
		partTypes[i] = f.Type.WithNullable(true)
	}
	popts, err := partition.FromTableOptions(sc.Options)
	if err != nil {
		return nil, err
	}
	fset, err := t.ReadFileSet(ctx, snap, nil)
	if err != nil {
		return nil, err
	}
	nBase := 0
	if snap.BaseManifestList != "" {
		if base, err := t.ReadManifestList(ctx, snap.BaseManifestList, sc.ManifestFormat()); err == nil {
			nBase = len(base)
		}
	}
	for i, m := range fset.Manifests {
		im := inspectManifest{List: "delta", FileName: m.FileName, FileSize: m.FileSize, AddedFiles: m.NumAddedFiles,
			DeletedFiles: m.NumDeletedFiles, SchemaID: m.SchemaID, MinBucket: m.MinBucket, MaxBucket: m.MaxBucket,
			MinLevel: m.MinLevel, MaxLevel: m.MaxLevel, MinRowID: m.MinRowID, MaxRowID: m.MaxRowID}
		if i < nBase {
			im.List = "base"
		}
		if st, err := binrow.DecodeSimpleStats(partTypes, m.PartitionStats.MinValues, m.PartitionStats.MaxValues); err == nil {
			im.PartitionMin, im.PartitionMax = formatValues(st.Min), formatValues(st.Max)
		}
		for _, n := range m.PartitionStats.NullCounts {
			if n == nil {
				im.PartitionNulls = append(im.PartitionNulls, "?")
			} else {
				im.PartitionNulls = append(im.PartitionNulls, fmt.Sprint(*n))
			}
		}
		rep.Manifests = append(rep.Manifests, im)
	}
	rep.Totals.ManifestsRd = len(fset.Manifests)
	dvCard := map[string]int64{}
	for _, e := range fset.IndexEntries {
		pp := renderPartition(partFields, partTypes, e.Partition, popts)
		rep.IndexFiles = append(rep.IndexFiles, inspectIndexFile{Partition: pp, Bucket: e.Bucket, Type: e.IndexFile.IndexType,
			FileName: e.IndexFile.FileName, FileSize: e.IndexFile.FileSize, RowCount: e.IndexFile.RowCount,
			ExternalPath: e.IndexFile.ExternalPath, GlobalIndex: newInspectGlobalIndex(e.IndexFile.GlobalIndex)})
		for _, r := range e.IndexFile.DVRanges {
			c := int64(-1)
			if r.Cardinality != nil {
				c = *r.Cardinality
			}
			dvCard[fmt.Sprintf("%x/%d/%s", e.Partition, e.Bucket, r.DataFileName)] = c
		}
	}
	keyTypes := []types.DataType{}
	for _, n := range sc.TrimmedPrimaryKeys() {
		if f, ok := sc.FieldByName(n); ok {
			keyTypes = append(keyTypes, f.Type)
		}
	}
	for _, e := range fset.Entries {
		f := inspectFile{Partition: renderPartition(partFields, partTypes, e.Partition, popts), Bucket: e.Bucket, Level: e.File.Level,
			FileName: e.File.FileName, RowCount: e.File.RowCount, FileSize: e.File.FileSize, SchemaID: e.File.SchemaID,
			MinSequence: e.File.MinSequenceNumber, MaxSequence: e.File.MaxSequenceNumber, DeleteRows: e.File.DeleteRowCount,
			ValueStatsCols: e.File.ValueStatsCols, ExternalPath: e.File.ExternalPath, FirstRowID: e.File.FirstRowID,
			WriteCols: e.File.WriteCols, WriteColsSequences: e.File.WriteColsSequences, ExtraFiles: e.File.ExtraFiles,
			EmbeddedIndexBytes: len(e.File.EmbeddedIndex)}
		if e.File.FileSource != nil {
			src := "APPEND"
			if *e.File.FileSource == paimon.FileSourceCompact {
				src = "COMPACT"
			}
			f.FileSource = &src
		}
		if len(keyTypes) > 0 {
			if v, err := binrow.Deserialize(keyTypes, e.File.MinKey); err == nil {
				f.MinKey = strings.Join(formatValues(v), ",")
			}
			if v, err := binrow.Deserialize(keyTypes, e.File.MaxKey); err == nil {
				f.MaxKey = strings.Join(formatValues(v), ",")
			}
		}
		if c, ok := dvCard[fmt.Sprintf("%x/%d/%s", e.Partition, e.Bucket, e.File.FileName)]; ok {
			f.DVDeleted = &c
			rep.Totals.DVFiles++
			if c > 0 {
				rep.Totals.DVDeleted += c
			}
		}
		rep.Files = append(rep.Files, f)
		rep.Totals.Files++
		rep.Totals.Rows += e.File.RowCount
		rep.Totals.Bytes += e.File.FileSize
	}
	return rep, nil
}

// inspectGlobalIndex is IndexFileMeta._GLOBAL_INDEX as inspect --json shows it.
type inspectGlobalIndex struct {
	RowRangeStart  int64   `json:"row_range_start"`
	RowRangeEnd    int64   `json:"row_range_end"`
	IndexFieldID   int32   `json:"index_field_id"`
	ExtraFieldIDs  []int32 `json:"extra_field_ids,omitempty"`
	IndexMetaBytes int     `json:"index_meta_bytes,omitempty"`
}

func newInspectGlobalIndex(g *paimon.GlobalIndexMeta) *inspectGlobalIndex {
	if g == nil {
		return nil
	}
	return &inspectGlobalIndex{RowRangeStart: g.RowRangeStart, RowRangeEnd: g.RowRangeEnd, IndexFieldID: g.IndexFieldID,
		ExtraFieldIDs: g.ExtraFieldIDs, IndexMetaBytes: len(g.IndexMeta)}
}

func renderPartition(fields []types.DataField, ts []types.DataType, b []byte, opts partition.Options) string {
	if len(fields) == 0 {
		return ""
	}
	vals, err := binrow.Deserialize(ts, b)
	if err != nil {
		return fmt.Sprintf("<corrupt partition %x: %v>", b, err)
	}
	p, err := partition.Path(fields, vals, opts)
	if err != nil {
		return fmt.Sprintf("<partition %v: %v>", vals, err)
	}
	return strings.TrimSuffix(p, "/")
}

func formatValues(vs []any) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		switch x := v.(type) {
		case nil:
			out[i] = "NULL"
		case string:
			out[i] = x
		case []byte:
			out[i] = fmt.Sprintf("0x%x", x)
		default:
			out[i] = predicate.FormatLiteral(v)
		}
	}
	return out
}

func printInspect(w io.Writer, rep *inspectReport) {
	sc := rep.Schema
	fmt.Fprintf(w, "Table %s\n", rep.Table)
	fmt.Fprintf(w, "\nSchema %d (%d fields, highest field id %d)\n", sc.ID, len(sc.Fields), sc.HighestFieldID)
	tw := tabwriter.NewWriter(w, 0, 2, 2, ' ', 0)
	for _, f := range sc.Fields {
		fmt.Fprintf(tw, "  %d\t%s\t%s\n", f.ID, f.Name, f.Type)
	}
	tw.Flush()
	if len(sc.PartitionKeys) > 0 {
		fmt.Fprintf(w, "  partition keys: %s\n", strings.Join(sc.PartitionKeys, ", "))
	}
	if len(sc.PrimaryKeys) > 0 {
		fmt.Fprintf(w, "  primary keys:   %s\n", strings.Join(sc.PrimaryKeys, ", "))
	}
	if len(sc.Options) > 0 {
		fmt.Fprintln(w, "  options:")
		for _, k := range slices.Sorted(maps.Keys(sc.Options)) {
			fmt.Fprintf(w, "    %s = %s\n", k, sc.Options[k])
		}
	}
	fmt.Fprintf(w, "\nSnapshots (%d)\n", len(rep.Snapshots))
	tw = tabwriter.NewWriter(w, 0, 2, 2, ' ', 0)
	fmt.Fprintln(tw, "  id\tkind\tschema\ttotal records\tdelta records\ttime")
	for _, s := range rep.Snapshots {
		fmt.Fprintf(tw, "  %d\t%s\t%d\t%d\t%d\t%s\n", s.ID, s.Kind, s.SchemaID, s.TotalRecord, s.DeltaRecord, s.Time)
	}
	tw.Flush()
	if rep.Selected == 0 {
		fmt.Fprintln(w, "\n(no snapshot: the table is empty)")
		return
	}
	fmt.Fprintf(w, "\nManifests of snapshot %d (%d)\n", rep.Selected, len(rep.Manifests))
	tw = tabwriter.NewWriter(w, 0, 2, 2, ' ', 0)
	fmt.Fprintln(tw, "  list\tfile\tsize\tadded\tdeleted\tschema\tpartition min\tpartition max")
	for _, m := range rep.Manifests {
		fmt.Fprintf(tw, "  %s\t%s\t%d\t%d\t%d\t%d\t%s\t%s\n", m.List, m.FileName, m.FileSize, m.AddedFiles, m.DeletedFiles, m.SchemaID,
			strings.Join(m.PartitionMin, ","), strings.Join(m.PartitionMax, ","))
	}
	tw.Flush()
	fmt.Fprintf(w, "\nLive data files (%d files, %d rows, %d bytes)\n", rep.Totals.Files, rep.Totals.Rows, rep.Totals.Bytes)
	tw = tabwriter.NewWriter(w, 0, 2, 2, ' ', 0)
	fmt.Fprintln(tw, "  partition\tbucket\tlevel\trows\tsize\tmin key\tmax key\tdv deleted\tfile")
	for _, f := range rep.Files {
		dv := "-"
		if f.DVDeleted != nil {
			dv = fmt.Sprint(*f.DVDeleted)
		}
		part := f.Partition
		if part == "" {
			part = "-"
		}
		fmt.Fprintf(tw, "  %s\t%d\t%d\t%d\t%d\t%s\t%s\t%s\t%s\n", part, f.Bucket, f.Level, f.RowCount, f.FileSize, f.MinKey, f.MaxKey, dv, f.FileName)
	}
	tw.Flush()
	if len(rep.IndexFiles) > 0 {
		fmt.Fprintf(w, "\nIndex files (%d)\n", len(rep.IndexFiles))
		tw = tabwriter.NewWriter(w, 0, 2, 2, ' ', 0)
		fmt.Fprintln(tw, "  partition\tbucket\ttype\trows\tsize\tfile")
		for _, f := range rep.IndexFiles {
			fmt.Fprintf(tw, "  %s\t%d\t%s\t%d\t%d\t%s\n", f.Partition, f.Bucket, f.Type, f.RowCount, f.FileSize, f.FileName)
		}
		tw.Flush()
	}
}

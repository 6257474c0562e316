package paimon

import (
	"fmt"
	"strings"

	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// Table features and the reader (docs/design/paimon-core.md, "Refusing
// what the reader cannot vouch for"). CheckReadable is the one gate: a table
// whose schema uses a feature that changes what its rows are, and that this
// reader does not implement, is refused with an error naming the feature,
// never read approximately.
//
// Options are judged in three groups:
//   - refusedOptions: known Paimon options (CoreOptions of Paimon 2.0) that
//     change the rows a batch read returns and are not implemented; refused
//     when set to anything but their default;
//   - rowSemanticPrefixes: option families whose members change rows; an
//     option of such a family that this file does not list as handled or
//     safe (e.g. from a newer Paimon) is refused as unknown;
//   - everything else (write, compaction, commit, retention, streaming,
//     lookup, index and catalog options, and keys Paimon itself does not
//     know, such as 'owner') is safe for batch reads: Paimon ignores it
//     when reading, and so do we.
//
// Data file formats: parquet, orc, avro and blob (data evolution) are
// dispatched by file extension; a table whose file.format (or
// file.format.per.level) names another format (lance, vortex, csv, json,
// ...) is refused.

// refusedOptions maps an option key to the value(s) that are harmless
// (lower-case); any other value refuses the table.
var refusedOptions = map[string][]string{
	"chain-table.enabled":            {"false"},
	"blob-view-field":                {""},
	"blob-field":                     {""},
	"vector-field":                   {""},
	"vector.file.format":             {""},
	"batch-scan-mode":                {"", "none"},
	"incremental-between":            {""},
	"incremental-between-timestamp":  {""},
	"incremental-to-auto-tag":        {""},
	"scan.snapshot-id":               {""},
	"scan.tag-name":                  {""},
	"scan.timestamp-millis":          {""},
	"scan.timestamp":                 {""},
	"scan.version":                   {""},
	"scan.watermark":                 {""},
	"scan.bucket":                    {""},
	"scan.creation-time-millis":      {""},
	"scan.file-creation-time-millis": {""},
	"scan.fallback-delta-branch":     {""},
	"scan.fallback-snapshot-branch":  {""},
	"scan.partitions":                {""},
	"scan.primary-branch":            {""},
	"sequence.snapshot-ordering":     {"", "false"},
	"type":                           {"", "table", "materialized-table"},
}

// handledOptions are options of row-semantic families that the reader
// implements (or that do not change batch rows).
var handledOptions = map[string]bool{
	"merge-engine": true, "sequence.field": true, "sequence.field.sort-order": true,
	"partial-update.remove-record-on-delete": true, "aggregation.remove-record-on-delete": true,
	"first-row.ignore-delete": true, "deduplicate.ignore-delete": true, "partial-update.ignore-delete": true, "aggregation.ignore-delete": true,
	"deletion-vectors.enabled": true, "deletion-vectors.merge-on-read": true, "deletion-vectors.bitmap64": true,
	"deletion-vectors.modifiable": true, "deletion-vector.index-file.target-size": true,
	"row-tracking.enabled": true, "row-tracking.partition-group-on-commit": true,
	"data-evolution.enabled": true, "data-evolution.compaction.rewrite-row-ids": true,
	"data-evolution.merge-into.file-pruning": true, "data-evolution.merge-into.source-persist": true,
	"data-evolution.reassign.skip-contiguous-row-count": true, "data-evolution.row-id-conflict-rewrite.max-size": true,
	"data-evolution.row-sidecar.enabled": true, "data-evolution.row-sidecar.max-selected-rows": true,
	"data-evolution.row-sidecar.max-selection-ratio": true,
	"blob-descriptor-field":                          true, "blob.stored-descriptor-fields": true, "blob.target-file-size": true, "blob.copy-buffer-size": true, "blob.split-by-file-size": true,
	"blob-as-descriptor": true, "blob-compaction.enabled": true, "blob-view.resolve.enabled": true,
	"blob-write-null-on-fetch-failure": true, "blob-write-null-on-missing-file": true,
	"file.format": true, "file.format.per.level": true,
	"postpone.merge-on-read": true, "pk-clustering-override": true,
	"scan.fallback-branch": true, "scan.fallback-branch.read-fail-fast": true,
	"scan.bounded.watermark": true,
	// Flink connector options (FlinkConnectorOptions) stored as table options.
	"scan.bounded": true, "scan.dedicated-split-generation": true, "scan.infer-parallelism": true,
	"scan.infer-parallelism.max": true, "scan.max-snapshot.count": true, "scan.parallelism": true,
	"scan.remove-normalize": true, "scan.split-enumerator.batch-size": true, "scan.split-enumerator.mode": true,
	"scan.watermark.alignment.group": true, "scan.watermark.alignment.max-drift": true,
	"scan.watermark.alignment.update-interval": true, "scan.watermark.emit.strategy": true,
	"scan.watermark.idle-timeout": true,
	// Harmless while the feature they tune is off (or refused elsewhere).
	"chain-table.chain-partition-keys": true, "chain-table.split.key-range-enabled": true,
	"chain-table.streaming.merge-snapshot": true, "partial-update.remove-record-on-sequence-group": true,
	"vector.target-file-size": true, "vector-index.search-mode": true, "vector-search.distribute.enabled": true,
	"vector-search.lateral-join.batch-size": true, "vector-search.lateral-join.parallelism": true, "scan.manifest.parallelism": true,
	"scan.max-splits-per-task": true, "scan.plan-sort-partition": true, "scan.ignore-corrupt-files": true,
	"scan.ignore-lost-files": true, "scan.plan-auto-tag-for-read.time-retained": true,
}

// rowSemanticPrefixes are the option families whose unknown members are refused.
var rowSemanticPrefixes = []string{
	"merge-engine", "sequence.", "partial-update.", "aggregation.", "first-row.", "deduplicate.",
	"deletion-vectors.", "row-tracking.", "data-evolution.", "blob", "vector", "chain-table.",
	"file.format", "scan.", "postpone.merge", "pk-clustering",
}

// readableFormats are the data file formats the reader dispatches on.
var readableFormats = map[string]bool{"parquet": true, "orc": true, "avro": true}

// CheckReadable returns an error wrapping ErrUnsupported when the schema
// uses a feature the reader does not implement and that changes the rows a
// read returns (see the comment above); nil otherwise.
func CheckReadable(sc *TableSchema) error {
	refuse := func(format string, a ...any) error {
		return fmt.Errorf("%w: table feature not supported: %s", ErrUnsupported, fmt.Sprintf(format, a...))
	}
	desc := sc.BlobDescriptorFields()
	for _, f := range sc.Fields {
		if err := checkType(f.Name, f.Type, true); err != nil {
			return refuse("%v", err)
		}
		if f.Type.Root == types.Blob && !desc[f.Name] { // stored in .blob files
			if len(sc.PrimaryKeys) > 0 {
				return refuse("BLOB column %s in a primary-key table", f.Name)
			}
			if !sc.DataEvolutionEnabled() {
				return refuse("BLOB column %s without data-evolution.enabled", f.Name)
			}
		}
	}
	for n := range desc {
		if f, ok := sc.FieldByName(n); !ok || f.Type.Root != types.Blob {
			return refuse("blob-descriptor-field %s is not a BLOB column", n)
		}
	}
	if sc.RowTrackingEnabled() && len(sc.PrimaryKeys) > 0 {
		return refuse("row-tracking.enabled on a primary-key table")
	}
	if sc.DataEvolutionEnabled() && len(sc.PrimaryKeys) > 0 {
		return refuse("data-evolution.enabled on a primary-key table")
	}
	for k, v := range sc.Options {
		key := strings.ToLower(k)
		val := strings.ToLower(strings.TrimSpace(v))
		if ok, known := refusedOptions[key]; known {
			harmless := false
			for _, h := range ok {
				harmless = harmless || h == val
			}
			if !harmless {
				return refuse("table option %s=%s", k, v)
			}
			continue
		}
		if key == "file.format" || key == "file.format.per.level" {
			for _, part := range strings.Split(val, ",") {
				fm := part
				if i := strings.LastIndex(part, ":"); i >= 0 {
					fm = part[i+1:]
				}
				if fm = strings.TrimSpace(fm); fm != "" && !readableFormats[fm] {
					return refuse("data file format %q (%s)", fm, k)
				}
			}
			continue
		}
		if handledOptions[key] || strings.HasPrefix(key, "fields.") {
			continue
		}
		for _, p := range rowSemanticPrefixes {
			if strings.HasPrefix(key, p) {
				return refuse("unknown table option %s=%s (it may change what rows mean; this reader does not know it)", k, v)
			}
		}
	}
	return nil
}

// checkType refuses VARIANT and VECTOR anywhere, and BLOB below the top level.
func checkType(path string, t types.DataType, top bool) error {
	switch t.Root {
	case types.Variant:
		return fmt.Errorf("VARIANT column %s", path)
	case types.Vector:
		return fmt.Errorf("VECTOR column %s", path)
	case types.Blob:
		if !top {
			return fmt.Errorf("BLOB nested in column %s", path)
		}
	}
	if t.Element != nil {
		if err := checkType(path, *t.Element, false); err != nil {
			return err
		}
	}
	if t.Key != nil {
		if err := checkType(path, *t.Key, false); err != nil {
			return err
		}
	}
	if t.Value != nil {
		if err := checkType(path, *t.Value, false); err != nil {
			return err
		}
	}
	for _, f := range t.Fields {
		if err := checkType(path+"."+f.Name, f.Type, false); err != nil {
			return err
		}
	}
	return nil
}

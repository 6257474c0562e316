package write

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/partition"
)

// INSERT OVERWRITE, as Paimon's FileStoreCommitImpl.overwritePartition and
// OverwriteChangesProvider do: one snapshot of kind OVERWRITE whose delta
// deletes every live data file (and index file: deletion vectors) of the
// overwritten partitions in the snapshot it lands on, then adds the new
// files. Which partitions are overwritten:
//
//   - unpartitioned table: the whole table;
//   - partitioned, 'dynamic-partition-overwrite' = true (Paimon's default):
//     only the partitions the new rows fall in (no rows: nothing changes);
//   - partitioned, 'dynamic-partition-overwrite' = false: the partitions
//     matching the static spec (PARTITION (k = v, ...), possibly partial;
//     none: the whole table), and every new row must lie inside them.

// overwriteScope selects the partitions an OVERWRITE commit replaces.
type overwriteScope struct {
	whole      bool            // every partition
	partitions map[string]bool // dynamic: serialized partitions of the new files
	static     map[int]string  // static: partition key position → canonical value
}

// Overwrite makes Commit replace data instead of appending (INSERT
// OVERWRITE). static is the PARTITION (k = 'v', ...) spec (nil: none); its
// keys must be partition keys and its values parse as their types.
func (w *Writer) Overwrite(static map[string]string) error {
	t := w.t
	if t.bucket == -1 && t.IsPrimaryKey() {
		return fmt.Errorf("%w: INSERT OVERWRITE of dynamic-bucket (bucket = -1) primary-key table %s (its hash index would have to be rebuilt)", paimon.ErrUnsupported, t.root)
	}
	st, err := t.staticPartition(static)
	if err != nil {
		return err
	}
	w.ow = &overwriteScope{static: st}
	return nil
}

// staticPartition parses a partition spec (partition key → value as a
// string) into partition key position → canonical value.
func (t *Table) staticPartition(static map[string]string) (map[int]string, error) {
	out := map[int]string{}
	for k, v := range static {
		pos := -1
		for i, pi := range t.partIdx {
			if t.fields[pi].Name == k {
				pos = i
			}
		}
		if pos < 0 {
			return nil, invalidf("table %s: PARTITION (%s = ...): %s is not a partition key (partition keys: %s)", t.root, k, k, strings.Join(t.schema.PartitionKeys, ", "))
		}
		ft := t.fields[t.partIdx[pos]].Type
		val, err := partition.ParseValue(ft, v, t.partOpts)
		if err != nil {
			return nil, invalidf("table %s: PARTITION (%s = '%s'): %v", t.root, k, v, err)
		}
		s, err := partition.FormatValue(ft, val, t.partOpts)
		if err != nil {
			return nil, invalidf("table %s: PARTITION (%s = '%s'): %v", t.root, k, v, err)
		}
		out[pos] = s
	}
	return out, nil
}

// partitionFilter keeps the entries of live whose partition matches one
// of specs (nil specs: all).
func (t *Table) partitionFilter(live []paimon.ManifestEntry, specs []map[string]string) ([]paimon.ManifestEntry, error) {
	if specs == nil {
		return live, nil
	}
	if len(t.partIdx) == 0 {
		return nil, invalidf("table %s is not partitioned: no partitions to select", t.root)
	}
	var scopes []*overwriteScope
	for _, sp := range specs {
		st, err := t.staticPartition(sp)
		if err != nil {
			return nil, err
		}
		scopes = append(scopes, &overwriteScope{static: st, whole: len(st) == 0})
	}
	var out []paimon.ManifestEntry
	for _, e := range live {
		for _, sc := range scopes {
			ok, err := t.overwriteMatches(sc, e.Partition)
			if err != nil {
				return nil, err
			}
			if ok {
				out = append(out, e)
				break
			}
		}
	}
	return out, nil
}

// overwriteRequest turns req (the new files) into an OVERWRITE request;
// it leaves req.overwrite nil when nothing is to be replaced (dynamic
// overwrite without rows).
func (t *Table) overwriteRequest(req *commitRequest, spec *overwriteScope) error {
	scope := &overwriteScope{}
	switch {
	case len(t.partIdx) == 0:
		scope.whole = true
	case t.schema.OptionBool("dynamic-partition-overwrite", true):
		if len(req.entries) == 0 {
			return nil
		}
		scope.partitions = map[string]bool{}
		for _, e := range req.entries {
			scope.partitions[string(e.Partition)] = true
		}
	default:
		scope.static = spec.static
		scope.whole = len(spec.static) == 0
		for _, e := range req.entries {
			ok, err := t.overwriteMatches(scope, e.Partition)
			if err != nil {
				return err
			}
			if !ok {
				dir, _ := t.bucketDir(e.Partition, int(e.Bucket))
				return invalidf("INSERT OVERWRITE of table %s: a row of partition %s does not belong to the partition being overwritten (%s)", t.root, strings.TrimPrefix(dir, t.root+"/"), describeStatic(t, spec.static))
			}
		}
	}
	// Static values must match the rows written in dynamic mode too: the
	// planner fills static columns with those values.
	for _, e := range req.entries {
		if ok, err := t.overwriteMatches(&overwriteScope{static: spec.static}, e.Partition); err != nil {
			return err
		} else if !ok {
			return invalidf("INSERT OVERWRITE of table %s: a row lies outside the static partition %s", t.root, describeStatic(t, spec.static))
		}
	}
	req.kind = paimon.CommitOverwrite
	req.overwrite = scope
	return nil
}

func describeStatic(t *Table, static map[int]string) string {
	var parts []string
	for pos, v := range static {
		parts = append(parts, t.fields[t.partIdx[pos]].Name+"="+v)
	}
	sort.Strings(parts)
	if len(parts) == 0 {
		return "the whole table"
	}
	return strings.Join(parts, ", ")
}

// overwriteMatches reports whether the serialized partition part is replaced.
func (t *Table) overwriteMatches(s *overwriteScope, part []byte) (bool, error) {
	if s.whole {
		return true, nil
	}
	if s.partitions != nil {
		return s.partitions[string(part)], nil
	}
	if len(s.static) == 0 {
		return true, nil
	}
	vals, err := t.decodePartition(part)
	if err != nil {
		return false, err
	}
	for pos, want := range s.static {
		got, err := partition.FormatValue(t.fields[t.partIdx[pos]].Type, vals[pos], t.partOpts)
		if err != nil {
			return false, err
		}
		if got != want {
			return false, nil
		}
	}
	return true, nil
}

// overwriteEntries computes, against latest, the delta of an OVERWRITE
// commit: DELETE entries for the live files it replaces, then req.entries;
// the index files of the replaced partitions become req.indexDeletes.
func (t *Table) overwriteEntries(ctx context.Context, latest *paimon.Snapshot, req *commitRequest) ([]paimon.ManifestEntry, error) {
	live, err := t.liveEntries(ctx, latest)
	if err != nil {
		return nil, err
	}
	var out []paimon.ManifestEntry
	for _, e := range live {
		ok, err := t.overwriteMatches(req.overwrite, e.Partition)
		if err != nil {
			return nil, err
		}
		if ok {
			e.Kind = paimon.FileKindDelete
			out = append(out, e)
		}
	}
	idx, err := t.indexEntries(ctx, latest)
	if err != nil {
		return nil, err
	}
	req.indexDeletes = req.indexDeletes[:0]
	for _, e := range idx {
		ok, err := t.overwriteMatches(req.overwrite, e.Partition)
		if err != nil {
			return nil, err
		}
		if ok {
			req.indexDeletes = append(req.indexDeletes, e.IndexFile.FileName)
		}
	}
	req.indexChange = len(req.indexDeletes) > 0 || len(req.indexAdds) > 0
	return append(out, req.entries...), nil
}

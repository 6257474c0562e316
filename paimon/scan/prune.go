package scan

import (
	"context"
	"fmt"
	"sync"

	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/binrow"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/format"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// pruner holds the per-level pruning closures of one Plan, built once.
type pruner struct {
	s *Scan
	// partPred: conjuncts of the filter over partition columns only.
	partPred predicate.Predicate
	// keyPred: conjuncts over trimmed primary-key columns only.
	keyPred predicate.Predicate
	// buckets: for each total-bucket count, the buckets an equality filter on
	// the bucket key allows (nil map = no bucket pruning).
	bucketVals [][]any // candidate bucket-key value tuples
	buckets    map[int32]map[int32]bool

	partCache map[string]bool
	partMu    sync.Mutex // partCache is filled from concurrent manifest decoders
	noStats   bool       // NoPruning: never skip by statistics

	prunedPartition, prunedBucket, skippedLevel int

	// indexOn: file indexes may skip files (Scan.fileIndexEnabled).
	indexOn bool
	// indexSkipsByType counts, per index type, the files skipped with its help.
	indexSkipsByType map[string]int
}

func newPruner(s *Scan) *pruner {
	pl := &pruner{s: s, partCache: map[string]bool{}, buckets: map[int32]map[int32]bool{},
		indexOn: s.fileIndexEnabled(), indexSkipsByType: map[string]int{}}
	if s.opts.Filter == nil || s.opts.NoPruning {
		pl.noStats = s.opts.NoPruning
		return pl
	}
	partCols := map[string]bool{}
	for _, f := range s.info.partition {
		partCols[f.Name] = true
	}
	keyCols := map[string]bool{}
	for _, f := range s.info.trimmedPK {
		keyCols[f.Name] = true
	}
	var parts, keys []predicate.Predicate
	for _, c := range predicate.Split(s.opts.Filter) {
		if len(partCols) > 0 && predicate.OnlyColumns(c, partCols) {
			parts = append(parts, c)
		}
		if len(keyCols) > 0 && predicate.OnlyColumns(c, keyCols) {
			keys = append(keys, c)
		}
	}
	if len(parts) > 0 {
		pl.partPred = predicate.NewAnd(parts...)
	}
	if len(keys) > 0 {
		pl.keyPred = predicate.NewAnd(keys...)
	}
	pl.bucketVals = bucketKeyTuples(s.info.bucketKeys, s.opts.Filter)
	return pl
}

// bucketKeyTuples returns the bucket-key value tuples an equality/IN filter
// on every bucket-key column allows, or nil when the filter does not pin the
// key (or would expand to too many tuples).
func bucketKeyTuples(keys []types.DataField, filter predicate.Predicate) [][]any {
	if len(keys) == 0 || filter == nil {
		return nil
	}
	per := make([][]any, len(keys))
	for i, k := range keys {
		for _, c := range predicate.Split(filter) {
			l, ok := c.(*predicate.Leaf)
			if !ok || l.Column != k.Name {
				continue
			}
			switch l.Op {
			case predicate.Eq:
				per[i] = []any{l.Literals[0]}
			case predicate.In:
				per[i] = append([]any(nil), l.Literals...)
			}
			if per[i] != nil {
				break
			}
		}
		if per[i] == nil {
			return nil
		}
	}
	tuples := [][]any{{}}
	for _, vals := range per {
		var next [][]any
		for _, t := range tuples {
			for _, v := range vals {
				next = append(next, append(append([]any(nil), t...), v))
			}
		}
		if len(next) > 256 {
			return nil
		}
		tuples = next
	}
	return tuples
}

// manifestMayMatch prunes a whole manifest by its partition statistics.
func (pl *pruner) manifestMayMatch(m *paimon.ManifestFileMeta) (bool, error) {
	if pl.partPred == nil || len(pl.s.info.partition) == 0 {
		return true, nil
	}
	cols := types.RowType(pl.s.info.partition).Types()
	st, err := binrow.DecodeSimpleStats(cols, m.PartitionStats.MinValues, m.PartitionStats.MaxValues)
	if err != nil {
		return true, nil // unreadable stats never prune
	}
	ms := predicate.MapStats{Rows: -1, Columns: map[int]predicate.ColumnStats{}}
	for i, f := range pl.s.info.partition {
		nc := int64(-1)
		if i < len(m.PartitionStats.NullCounts) && m.PartitionStats.NullCounts[i] != nil {
			nc = *m.PartitionStats.NullCounts[i]
		}
		ms.Columns[f.ID] = predicate.ColumnStats{Min: st.Min[i], Max: st.Max[i], NullCount: nc}
	}
	return predicate.MayMatch(pl.partPred, ms), nil
}

// entryMayMatch prunes entries by level, partition value and bucket. These
// depend only on the file identity, so ADD and DELETE entries agree.
func (pl *pruner) entryMayMatch(e *paimon.ManifestEntry) (bool, error) {
	inf := pl.s.info
	if inf.pk && e.Bucket == -2 {
		// Postpone-bucket files are invisible to batch reads (Java
		// snapshotReader.onlyReadRealBuckets); with postpone.merge-on-read an
		// engine would route their records to real buckets and merge them,
		// which this reader does not do: refuse rather than drop them.
		if inf.postponeMergeOnRead {
			return false, fmt.Errorf("%w: table %s has postpone.merge-on-read=true and postpone-bucket files (%s): merging postpone records into their buckets is not supported",
				paimon.ErrUnsupported, pl.s.table.Path(), e.File.FileName)
		}
		pl.skippedLevel++
		return false, nil
	}
	if inf.pk && pl.s.opts.ReadOptimized && e.File.Level != inf.maxLevel {
		pl.skippedLevel++
		return false, nil
	}
	if inf.pk && inf.skipLevel0 && e.File.Level == 0 {
		pl.skippedLevel++
		return false, nil
	}
	if pl.partPred != nil {
		ok, err := pl.partitionMayMatch(e.Partition)
		if err != nil {
			return false, err
		}
		if !ok {
			pl.prunedPartition++
			return false, nil
		}
	}
	// Bucket pruning hashes the bucket key: only for fixed-bucket tables.
	// Dynamic-bucket (-1) primary-key tables assign buckets through the hash
	// index, not by hash, so their files are never pruned by bucket.
	if pl.bucketVals != nil && inf.bucketFuncDef && inf.bucket > 0 && e.TotalBuckets > 0 {
		allowed, err := pl.allowedBuckets(e.TotalBuckets)
		if err == nil && allowed != nil && !allowed[e.Bucket] {
			pl.prunedBucket++
			return false, nil
		}
	}
	return true, nil
}

func (pl *pruner) partitionMayMatch(b []byte) (bool, error) {
	pl.partMu.Lock()
	ok, hit := pl.partCache[string(b)]
	pl.partMu.Unlock()
	if hit {
		return ok, nil
	}
	vals, err := pl.s.decodePartition(b)
	if err != nil {
		return false, err
	}
	ok = predicate.MayMatch(pl.partPred, exactStats(pl.s.info.partition, vals))
	pl.partMu.Lock()
	pl.partCache[string(b)] = ok
	pl.partMu.Unlock()
	return ok, nil
}

// partitionKeep is partitionMayMatch for the manifest decoder (called
// concurrently); a partition row it cannot decode is kept, so the error
// surfaces when the entry is planned.
func (pl *pruner) partitionKeep(b []byte) bool {
	ok, err := pl.partitionMayMatch(b)
	return ok || err != nil
}

// partitionValues decodes a partition row (cached through decodePartition).
func (pl *pruner) partitionValues(b []byte) ([]any, error) { return pl.s.decodePartition(b) }

// exactStats describes one row with known values as statistics, so MayMatch
// evaluates the predicate exactly.
func exactStats(fields []types.DataField, vals []any) predicate.MapStats {
	ms := predicate.MapStats{Rows: 1, Columns: make(map[int]predicate.ColumnStats, len(fields))}
	for i, f := range fields {
		nc := int64(0)
		if vals[i] == nil {
			nc = 1
		}
		ms.Columns[f.ID] = predicate.ColumnStats{Min: vals[i], Max: vals[i], NullCount: nc}
	}
	return ms
}

func (pl *pruner) allowedBuckets(total int32) (map[int32]bool, error) {
	if m, ok := pl.buckets[total]; ok {
		return m, nil
	}
	keyTypes := types.RowType(pl.s.info.bucketKeys).Types()
	m := map[int32]bool{}
	for _, t := range pl.bucketVals {
		b, err := binrow.BucketOf(keyTypes, t, int(total))
		if err != nil {
			pl.buckets[total] = nil // a literal we cannot encode: no pruning
			return nil, err
		}
		m[int32(b)] = true
	}
	pl.buckets[total] = m
	return m, nil
}

// keyStatsMayMatch prunes a primary-key file by its key statistics.
func (pl *pruner) keyStatsMayMatch(e *paimon.ManifestEntry) (bool, error) {
	if pl.keyPred == nil || len(pl.s.info.trimmedPK) == 0 {
		return true, nil
	}
	ks := e.File.KeyStats
	st, err := binrow.DecodeSimpleStats(types.RowType(pl.s.info.trimmedPK).Types(), ks.MinValues, ks.MaxValues)
	if err != nil {
		return true, nil
	}
	ms := predicate.MapStats{Rows: e.File.RowCount, Columns: map[int]predicate.ColumnStats{}}
	for i, f := range pl.s.info.trimmedPK {
		nc := int64(-1)
		if i < len(ks.NullCounts) && ks.NullCounts[i] != nil {
			nc = *ks.NullCounts[i]
		}
		ms.Columns[f.ID] = predicate.ColumnStats{Min: st.Min[i], Max: st.Max[i], NullCount: nc}
	}
	return predicate.MayMatch(pl.keyPred, ms), nil
}

// valueStatsMayMatch prunes a file by its value statistics, evolved from the
// file's schema to the current one by field id.
func (pl *pruner) valueStatsMayMatch(ctx context.Context, e *paimon.ManifestEntry) (bool, error) {
	if pl.s.opts.Filter == nil || pl.noStats {
		return true, nil
	}
	ms, ok, err := pl.s.fileValueStats(ctx, &e.File)
	if err != nil {
		return false, err
	}
	if !ok {
		return true, nil
	}
	return predicate.MayMatch(pl.s.opts.Filter, ms), nil
}

// fileValueStats is a data file's value statistics evolved from the file's
// schema to the current one by field id; ok=false when the file has none
// that can be placed (or they do not decode): nothing may be skipped.
func (s *Scan) fileValueStats(ctx context.Context, f *paimon.DataFileMeta) (predicate.MapStats, bool, error) {
	_, statsFields, err := s.fileStatsFields(ctx, f)
	if err != nil {
		return predicate.MapStats{}, false, err
	}
	if len(statsFields) == 0 {
		return predicate.MapStats{}, false, nil // none, or stats of a column we cannot place
	}
	vs := f.ValueStats
	st, err := binrow.DecodeSimpleStats(types.RowType(statsFields).Types(), vs.MinValues, vs.MaxValues)
	if err != nil {
		return predicate.MapStats{}, false, nil
	}
	cur := s.schema.RowType()
	ms := predicate.MapStats{Rows: f.RowCount, Columns: map[int]predicate.ColumnStats{}}
	for i, fd := range statsFields {
		ci := cur.FieldByID(fd.ID)
		if ci < 0 || !statsCompatible(fd.Type, cur[ci].Type) {
			continue
		}
		nc := int64(-1)
		if i < len(vs.NullCounts) && vs.NullCounts[i] != nil {
			nc = *vs.NullCounts[i]
		}
		ms.Columns[fd.ID] = predicate.ColumnStats{Min: st.Min[i], Max: st.Max[i], NullCount: nc}
	}
	return ms, true, nil
}

// fileStatsFields returns the columns a data file wrote (its schema's
// fields narrowed to _WRITE_COLS) and the columns its value statistics
// describe, in their order (the written ones narrowed to _VALUE_STATS_COLS),
// as Java's EvolutionStatsCache projects them. Stored row-tracking columns
// listed there (compaction writes _ROW_ID, _SEQUENCE_NUMBER) are not
// "written" columns but keep their place in the statistics (placeholders
// with their system field ids, never used to prune). A listed column the
// schema lacks yields nil stats fields (the statistics cannot be placed).
func (s *Scan) fileStatsFields(ctx context.Context, f *paimon.DataFileMeta) (written, stats []types.DataField, err error) {
	fileFields, err := s.fileSchema(ctx, f.SchemaID)
	if err != nil {
		return nil, nil, err
	}
	project := func(fs []types.DataField, names []string, keepTracking bool) ([]types.DataField, bool) {
		if names == nil {
			return fs, true
		}
		out := make([]types.DataField, 0, len(names))
		for _, n := range names {
			if isTrackingName(n) {
				if keepTracking {
					fd := format.RowTrackingSequenceField()
					if n == format.RowIDFieldName {
						fd = format.RowIDField()
					}
					out = append(out, fd)
				}
				continue
			}
			i := fieldIndexByName(fs, n)
			if i < 0 {
				return nil, false
			}
			out = append(out, fs[i])
		}
		return out, true
	}
	written, ok := project(fileFields, f.WriteCols, false)
	if !ok {
		return nil, nil, fmt.Errorf("%w: data file %s: a _WRITE_COLS column is not in schema %d", paimon.ErrCorrupt, f.FileName, f.SchemaID)
	}
	names := f.ValueStatsCols
	if names == nil {
		names = f.WriteCols
	}
	stats, ok = project(written, names, true)
	if !ok {
		return written, nil, nil
	}
	return written, stats, nil
}

// statsCompatible reports whether statistics written for a column of type
// from can bound values of type to (same literal convention and ordering).
// After ALTER TABLE the reader casts with Java's rules, which wrap integers,
// cut strings and binaries, pad CHAR and truncate timestamps: only casts
// that leave every value unchanged (or NULL) keep the bounds.
func statsCompatible(from, to types.DataType) bool {
	if from.Equal(to.WithNullable(from.Nullable)) {
		return !from.IsNested()
	}
	switch {
	case format.IntegerRank(from.Root) > 0 && format.IntegerRank(to.Root) > 0:
		return format.IntegerRank(to.Root) >= format.IntegerRank(from.Root)
	case from.Root == types.Float && to.Root == types.Double:
		return true
	case from.IsString() && to.IsString():
		return to.Root == types.VarChar && to.Length >= from.Length
	case from.IsBinary() && to.IsBinary():
		return from.Root != types.Blob && to.Root == types.VarBinary && to.Length >= from.Length
	case from.Root == types.Decimal && to.Root == types.Decimal:
		return from.Scale == to.Scale // a value that no longer fits is NULL
	case (from.Root == types.Timestamp || from.Root == types.TimestampLTZ) && from.Root == to.Root:
		return to.Precision >= from.Precision
	}
	return from.Root == to.Root && (from.Root == types.Time || from.Root == types.Date || from.Root == types.Boolean)
}

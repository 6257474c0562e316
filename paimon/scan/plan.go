package scan

import (
	"context"
	"fmt"
	"path"
	"strconv"
	"strings"

	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/binrow"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/partition"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// Split is a unit of reading: files of one (partition, bucket) read together.
type Split struct {
	Partition      []any  // partition values (predicate literal convention)
	PartitionBytes []byte // serialized partition BinaryRow
	Bucket         int32
	// Files are the data files; for merge splits every file of the bucket.
	Files []paimon.DataFileMeta
	// Deletions maps data file name → its deletion vector location.
	Deletions map[string]DeletionFile
	// Merge is true when the files must be merged by key (merge-on-read).
	Merge bool
	// Evolution is true when the files are one data-evolution group: files
	// sharing row ids, merged column-wise (evolution.go).
	Evolution bool
	// RowCount is the sum of the files' row counts (before merging and
	// deletions); for an Evolution split, the group's row count; for a
	// split with a Range, its share of the file's rows (an estimate).
	RowCount int64
	// Range, when set, makes the split one piece of its single raw file:
	// the rows of the row groups whose first byte lies in the range
	// (Options.SplitFileBytes). The pieces of a file cover it exactly once;
	// the one starting at byte 0 is the file's first (it alone counts the
	// file in statistics and row counts).
	Range *FileRange
	// owner is the scan of another branch for splits taken from the table's
	// scan.fallback-branch; nil for the scan's own splits.
	owner *Scan
}

// Branch names the branch a split's files were planned from ("" = the scan's own).
func (sp *Split) Branch() string {
	if sp.owner == nil {
		return ""
	}
	return sp.owner.table.BranchName()
}

func (sp *Split) scan(def *Scan) *Scan {
	if sp.owner != nil {
		return sp.owner
	}
	return def
}

// FileRange is the byte range [Start, End) of a data file a split reads.
type FileRange struct {
	Start int64 `json:"start"`
	End   int64 `json:"end"`
}

// FirstPiece reports whether sp is a whole file or the first piece of one:
// the split that counts its files in row counts and statistics.
func (sp *Split) FirstPiece() bool { return sp.Range == nil || sp.Range.Start == 0 }

// DeletionFile locates a data file's deletion vector in an index file.
type DeletionFile struct {
	Path        string // FileIO path of the DV index file
	Offset      int64
	Length      int64
	Cardinality int64 // -1 when unknown
}

// Stats counts the pruning work of Plan.
type Stats struct {
	SnapshotID           int64
	ManifestsTotal       int
	ManifestsPruned      int
	FilesTotal           int // live files considered (after level filters)
	FilesPrunedPartition int
	FilesPrunedBucket    int
	FilesPrunedStats     int
	FilesSkippedLevel    int // level-0 files invisible to batch reads, or below the top level for $ro
	DeletionVectors      int
	MergeSplits          int

	// FilesPrunedIndex counts files whose embedded file index proved that no
	// row matches, FilesPrunedGlobalIndex those whose row-id range a global
	// index proved has no match (RowsPrunedIndex: the rows of both).
	FilesPrunedIndex       int
	FilesPrunedGlobalIndex int
	RowsPrunedIndex        int64
	// GlobalIndexesUnsupported counts global index files in a format the
	// reader does not decode (Java's BGIX bitmap files): not used.
	GlobalIndexesUnsupported int
}

// Plan is the result of planning.
type Plan struct {
	Snapshot *paimon.Snapshot
	Splits   []Split
	Stats    Stats
	// ManifestsCached is the number of manifests (of those not pruned) served
	// from the manifest cache (paimon.DefaultManifestCache) instead of their
	// files; the Stats are the same either way.
	ManifestsCached int
	// IndexSkipsByType credits, per file-index type ("bitmap", "bsi",
	// "bloom-filter", "range-bitmap"), the files of Stats.FilesPrunedIndex
	// its answer took part in skipping; nil when none.
	IndexSkipsByType map[string]int
}

// RowCount returns the number of rows the plan returns and whether that is
// exact (no filter left to apply, no merge, deletion vectors with known
// cardinality).
func (p *Plan) RowCount(filter predicate.Predicate) (int64, bool) {
	exact := filter == nil || filter == predicate.AlwaysTrue
	var n int64
	for _, sp := range p.Splits {
		if sp.Merge {
			exact = false
		}
		if sp.Evolution {
			n += sp.RowCount
			if len(sp.Deletions) > 0 {
				exact = false
			}
			continue
		}
		if !sp.FirstPiece() {
			continue // the first piece counts the file
		}
		for _, f := range sp.Files {
			n += f.RowCount
			if d, ok := sp.Deletions[f.FileName]; ok {
				if d.Cardinality < 0 {
					exact = false
				}
				n -= d.Cardinality
			}
		}
	}
	return n, exact
}

// Plan reads the snapshot's metadata and returns the splits to read.
func (s *Scan) Plan(ctx context.Context) (*Plan, error) {
	p := &Plan{Snapshot: s.snapshot, Stats: Stats{SnapshotID: -1}}
	if s.snapshot == nil {
		return p, nil
	}
	p.Stats.SnapshotID = s.snapshot.ID
	pl := newPruner(s)
	fsOpts := &paimon.FileSetOptions{ManifestFilter: pl.manifestMayMatch}
	if pl.partPred != nil {
		// Entries of rejected partitions are dropped while decoding, before
		// the rest of each entry is materialised.
		fsOpts.PartitionFilter = pl.partitionKeep
	}
	fs, err := s.table.ReadFileSet(ctx, s.snapshot, fsOpts)
	if err != nil {
		return nil, err
	}
	p.Stats.ManifestsTotal = len(fs.Manifests)
	p.ManifestsCached = fs.ManifestsCached
	for _, pr := range fs.Pruned {
		if pr {
			p.Stats.ManifestsPruned++
		}
	}

	allParts := map[string]bool{}
	for _, e := range fs.Entries {
		allParts[string(e.Partition)] = true
	}
	dvs, err := s.deletionFiles(fs.IndexEntries)
	if err != nil {
		return nil, err
	}

	type bucketKey struct {
		part   string
		bucket int32
	}
	groups := map[bucketKey][]paimon.ManifestEntry{}
	var order []bucketKey
	// Level, partition and bucket pruning run on live entries (after
	// ADD/DELETE merging) so the counters describe live files.
	for _, e := range fs.Entries {
		ok, err := pl.entryMayMatch(&e)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		k := bucketKey{string(e.Partition), e.Bucket}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], e)
	}
	p.Stats.FilesPrunedPartition = pl.prunedPartition + fs.PartitionSkipped
	p.Stats.FilesPrunedBucket = pl.prunedBucket
	p.Stats.FilesSkippedLevel = pl.skippedLevel
	p.Stats.FilesTotal = len(fs.Entries) - pl.skippedLevel + fs.PartitionSkipped
	globalSkip, err := s.globalIndexSkips(ctx, fs.IndexEntries, fs.Entries)
	if err != nil {
		return nil, err
	}
	s.globalMu.Lock()
	p.Stats.GlobalIndexesUnsupported = s.bgixSeen
	s.globalMu.Unlock()
	pkSkip, err := s.pkBTreeSkips(ctx, fs.IndexEntries, fs.Entries)
	if err != nil {
		return nil, err
	}
	for name := range pkSkip {
		if globalSkip == nil {
			globalSkip = map[string]bool{}
		}
		globalSkip[name] = true
	}
	for _, k := range order {
		entries := groups[k]
		// Key statistics are exact bounds of each file's keys: safe to prune by
		// file in every mode. Value statistics only where each file's rows are
		// final (append, DV, first-row, $ro); for merge-on-read a bucket is
		// skipped only when every file fails.
		kept := entries[:0:0]
		for _, e := range entries {
			ok, err := pl.keyStatsMayMatch(&e)
			if err != nil {
				return nil, err
			}
			if ok && s.info.valueStatsOK {
				ok, err = pl.valueStatsMayMatch(ctx, &e)
				if err != nil {
					return nil, err
				}
			}
			if ok && globalSkip[e.File.FileName] {
				p.Stats.FilesPrunedGlobalIndex++
				p.Stats.RowsPrunedIndex += e.File.RowCount
				continue
			}
			if ok && s.info.valueStatsOK {
				skip, err := pl.embeddedIndexSkips(ctx, &e)
				if err != nil {
					return nil, err
				}
				if skip {
					p.Stats.FilesPrunedIndex++
					p.Stats.RowsPrunedIndex += e.File.RowCount
					continue
				}
			}
			if ok {
				kept = append(kept, e)
			} else {
				p.Stats.FilesPrunedStats++
			}
		}
		if len(kept) == 0 {
			continue
		}
		if !s.info.valueStatsOK && !s.info.noValueStats && s.info.mergeEngine == Deduplicate && s.opts.Filter != nil && !s.opts.NoPruning {
			any := false
			for _, e := range kept {
				ok, err := pl.valueStatsMayMatch(ctx, &e)
				if err != nil {
					return nil, err
				}
				if ok {
					any = true
					break
				}
			}
			if !any {
				p.Stats.FilesPrunedStats += len(kept)
				continue
			}
		}
		partVals, err := pl.partitionValues(kept[0].Partition)
		if err != nil {
			return nil, err
		}
		merge := s.info.pk && !s.opts.ReadOptimized && !rawConvertible(s.info, kept)
		if merge && s.info.clusteringOverride {
			return nil, fmt.Errorf("%w: table %s has pk-clustering-override=true (files sorted by clustering.columns, not by key) and bucket %d needs a merge-on-read by key; only reads where deletion vectors or first-row make every row final are supported",
				paimon.ErrUnsupported, s.table.Path(), k.bucket)
		}
		if merge {
			sp := Split{Partition: partVals, PartitionBytes: kept[0].Partition, Bucket: k.bucket, Merge: true}
			for _, e := range kept {
				sp.Files = append(sp.Files, e.File)
				sp.RowCount += e.File.RowCount
				// deletion-vectors.merge-on-read: the merge reads every level,
				// each file without the rows its deletion vector marks.
				if d, ok := dvs[dvKey{string(e.Partition), e.Bucket, e.File.FileName}]; ok {
					if sp.Deletions == nil {
						sp.Deletions = map[string]DeletionFile{}
					}
					sp.Deletions[e.File.FileName] = d
					p.Stats.DeletionVectors++
				}
			}
			p.Splits = append(p.Splits, sp)
			p.Stats.MergeSplits++
			continue
		}
		if s.info.evolution {
			groups, err := evolutionGroups(kept)
			if err != nil {
				return nil, err
			}
			kept = kept[:0:0]
			for _, g := range groups {
				ok, err := pl.groupStatsMayMatch(ctx, g)
				if err != nil {
					return nil, err
				}
				if !ok {
					p.Stats.FilesPrunedStats += len(g)
					continue
				}
				if len(g) == 1 && !isBlobFile(g[0].File.FileName) {
					kept = append(kept, g[0]) // a group of one file reads raw
					continue
				}
				_, rows := groupRange(g)
				sp := Split{Partition: partVals, PartitionBytes: g[0].Partition, Bucket: g[0].Bucket, Evolution: true, RowCount: rows}
				for _, e := range g {
					sp.Files = append(sp.Files, e.File)
					if d, ok := dvs[dvKey{string(e.Partition), e.Bucket, e.File.FileName}]; ok {
						if sp.Deletions == nil {
							sp.Deletions = map[string]DeletionFile{}
						}
						sp.Deletions[e.File.FileName] = d
					}
				}
				p.Splits = append(p.Splits, sp)
			}
		}
		// Raw files: one split per file so reads parallelise across files and
		// Flight endpoints.
		for _, e := range kept {
			sp := Split{Partition: partVals, PartitionBytes: e.Partition, Bucket: e.Bucket,
				Files: []paimon.DataFileMeta{e.File}, RowCount: e.File.RowCount}
			if d, ok := dvs[dvKey{string(e.Partition), e.Bucket, e.File.FileName}]; ok {
				sp.Deletions = map[string]DeletionFile{e.File.FileName: d}
				p.Stats.DeletionVectors++
			}
			p.Splits = append(p.Splits, s.pieces(sp)...)
		}
	}
	if len(pl.indexSkipsByType) > 0 {
		p.IndexSkipsByType = pl.indexSkipsByType
	}
	if err := s.planFallback(ctx, p, allParts); err != nil {
		return nil, err
	}
	return p, nil
}

// planFallback adds, for a table with scan.fallback-branch, the splits of
// partitions that exist only in the fallback branch (as Paimon's
// FallbackReadFileStoreTable does for batch reads of the latest snapshot).
func (s *Scan) planFallback(ctx context.Context, p *Plan, mainParts map[string]bool) error {
	fb := s.schema.Option("scan.fallback-branch", "")
	if fb == "" || s.table.BranchName() != paimon.MainBranch || s.opts.SnapshotID != 0 || s.opts.TagName != "" || s.opts.TimestampMillis != 0 {
		return nil
	}
	bt, err := s.table.Branch(ctx, fb)
	if err != nil {
		return fmt.Errorf("scan.fallback-branch of table %s: %w", s.table.Path(), err)
	}
	names := make([]string, len(s.readCols))
	for i, f := range s.readCols {
		names[i] = f.Name
	}
	o := s.opts
	o.Columns = names
	bs, err := New(ctx, bt, o)
	if err != nil {
		return fmt.Errorf("scan.fallback-branch %q: %w", fb, err)
	}
	bp, err := bs.Plan(ctx)
	if err != nil {
		return fmt.Errorf("scan.fallback-branch %q: %w", fb, err)
	}
	for _, sp := range bp.Splits {
		if mainParts[string(sp.PartitionBytes)] {
			continue
		}
		sp.owner = bs
		p.Splits = append(p.Splits, sp)
	}
	return nil
}

// rawConvertible mirrors MergeTreeSplitGenerator: a bucket needs no merge when
// no file is in level 0, none holds retract rows, and either deletion
// vectors/first-row make every row final or all files share one level.
func rawConvertible(inf tableInfo, files []paimon.ManifestEntry) bool {
	level := files[0].File.Level
	sameLevel := true
	for _, e := range files {
		if e.File.Level == 0 {
			return false
		}
		if e.File.DeleteRowCount != nil && *e.File.DeleteRowCount > 0 {
			return false
		}
		if e.File.Level != level {
			sameLevel = false
		}
	}
	return inf.dv || inf.mergeEngine == FirstRow || sameLevel
}

type dvKey struct {
	part   string
	bucket int32
	file   string
}

// deletionFiles indexes the DV ranges of the snapshot's index manifest.
func (s *Scan) deletionFiles(entries []paimon.IndexManifestEntry) (map[dvKey]DeletionFile, error) {
	out := map[dvKey]DeletionFile{}
	for _, e := range entries {
		if e.Kind != paimon.FileKindAdd || e.IndexFile.IndexType != paimon.IndexTypeDeletionVectors {
			continue
		}
		p, err := s.indexFilePath(e)
		if err != nil {
			return nil, err
		}
		for _, r := range e.IndexFile.DVRanges {
			card := int64(-1)
			if r.Cardinality != nil {
				card = *r.Cardinality
			}
			out[dvKey{string(e.Partition), e.Bucket, r.DataFileName}] = DeletionFile{
				Path: p, Offset: int64(r.Offset), Length: int64(r.Length), Cardinality: card,
			}
		}
	}
	return out, nil
}

func (s *Scan) indexFilePath(e paimon.IndexManifestEntry) (string, error) {
	if e.IndexFile.ExternalPath != nil && *e.IndexFile.ExternalPath != "" {
		return *e.IndexFile.ExternalPath, nil
	}
	if s.schema.IndexFileInDataFileDir() {
		dir, err := s.bucketDir(e.Partition, e.Bucket)
		if err != nil {
			return "", err
		}
		return path.Join(dir, e.IndexFile.FileName), nil
	}
	return path.Join(s.table.IndexDir(), e.IndexFile.FileName), nil
}

// bucketDir is the FileIO path of a (partition, bucket) directory.
func (s *Scan) bucketDir(partBytes []byte, bucket int32) (string, error) {
	rel, err := s.partitionPath(partBytes)
	if err != nil {
		return "", err
	}
	b := "bucket-" + strconv.Itoa(int(bucket))
	if bucket == -2 {
		b = "bucket-postpone"
	}
	// data-file.path-directory puts data files under a sub-directory of the
	// table (Java DataFilePathFactory).
	return path.Join(s.table.Path(), s.schema.Option(paimon.OptDataFilePathDirectory, ""), rel, b), nil
}

// DataFilePath is the FileIO path of a data file of the split.
func (s *Scan) DataFilePath(sp *Split, f *paimon.DataFileMeta) (string, error) {
	if f.ExternalPath != nil && *f.ExternalPath != "" {
		return *f.ExternalPath, nil
	}
	dir, err := s.bucketDir(sp.PartitionBytes, sp.Bucket)
	if err != nil {
		return "", err
	}
	return path.Join(dir, f.FileName), nil
}

// fileSchema returns the fields of schema version id (cached).
func (s *Scan) fileSchema(ctx context.Context, id int64) ([]types.DataField, error) {
	s.schemaMu.Lock()
	defer s.schemaMu.Unlock()
	if f, ok := s.schemas[id]; ok {
		return f, nil
	}
	sc, err := s.table.Schema(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("schema %d of a data file: %w", id, err)
	}
	if s.schemas == nil {
		s.schemas = map[int64][]types.DataField{}
		s.extOpts = map[int64]string{}
	}
	s.schemas[id] = sc.Fields
	s.extOpts[id] = sc.Option(paimon.OptDataFileExternalPaths, "")
	return sc.Fields, nil
}

// decodePartition decodes a serialized partition row with the table's
// partition types.
func (s *Scan) decodePartition(b []byte) ([]any, error) {
	ts := make([]types.DataType, len(s.info.partition))
	for i, f := range s.info.partition {
		ts[i] = f.Type.WithNullable(true)
	}
	v, err := binrow.Deserialize(ts, b)
	if err != nil {
		return nil, fmt.Errorf("%w: partition row %x of table %s: %v", paimon.ErrCorrupt, b, s.table.Path(), err)
	}
	return v, nil
}

// partitionPath renders a partition row as its relative directory.
func (s *Scan) partitionPath(b []byte) (string, error) {
	if len(s.info.partition) == 0 {
		return "", nil
	}
	s.schemaMu.Lock()
	p, ok := s.partPaths[string(b)]
	s.schemaMu.Unlock()
	if ok {
		return p, nil
	}
	vals, err := s.decodePartition(b)
	if err != nil {
		return "", err
	}
	popts, err := partition.FromTableOptions(s.schema.Options)
	if err != nil {
		return "", err
	}
	p, err = partition.Path(s.info.partition, vals, popts)
	if err != nil {
		return "", fmt.Errorf("partition path of table %s: %w", s.table.Path(), err)
	}
	s.schemaMu.Lock()
	if s.partPaths == nil {
		s.partPaths = map[string]string{}
	}
	s.partPaths[string(b)] = p
	s.schemaMu.Unlock()
	return p, nil
}

// maxPieces bounds the splits one file is cut into.
const maxPieces = 64

// pieces cuts the raw split of one large Parquet file into byte ranges
// (Options.SplitFileBytes, SplitFileRows; row groups are assigned by their first
// byte when read, so a range may hold none). Files with file indexes stay
// whole (their index statistics count per file).
func (s *Scan) pieces(sp Split) []Split {
	f := &sp.Files[0]
	var n int64
	if b := s.opts.SplitFileBytes; b > 0 && f.FileSize >= 2*b {
		n = (f.FileSize + b - 1) / b
	}
	if r := s.opts.SplitFileRows; r > 0 && f.RowCount >= 2*r {
		n = max(n, (f.RowCount+r-1)/r)
	}
	n = min(n, maxPieces)
	if n < 2 || f.FileSize <= 0 || !strings.HasSuffix(f.FileName, ".parquet") ||
		len(f.EmbeddedIndex) > 0 || len(f.ExtraFiles) > 0 {
		return []Split{sp}
	}
	out := make([]Split, n)
	for i := range out {
		start, end := f.FileSize*int64(i)/n, f.FileSize*int64(i+1)/n
		if i == 0 {
			start = 0
		}
		p := sp
		p.Range = &FileRange{Start: start, End: end}
		p.RowCount = f.RowCount * (end - start) / f.FileSize
		out[i] = p
	}
	return out
}

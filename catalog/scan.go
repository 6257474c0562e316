package catalog

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/internal/bufpool"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/format"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/scan"
)

// The scan contract: plan, then read.
//
//	sc, _ := table.NewScan(ctx, req)   // plan: metadata only
//	sc.Pushdown()                      // per conjunct of req.Filters: exact, inexact, unsupported
//	splits := sc.Splits()              // plain values; JSON-serializable
//	rd, _ := sc.Read(ctx, splits[i:j], ReadOptions{Mem: mem, Pool: pool})
//	defer rd.Release(); ...; rd.Report()
//
// Splits are values, not indexes into the scan: they can be carried (signed)
// to another node, which opens them with NewScan(ctx, ScanRequest{...,
// Splits: splits}) and reads them without planning again.

// ScanRequest is what the planner pushes down into a scan.
type ScanRequest struct {
	// Columns to return, by name, in this order; nil means all columns.
	Columns []string
	// Filters are conjuncts the scan may use. For each, Scan.Pushdown says
	// whether the scan applies it exactly (every row returned satisfies
	// it), only uses it to skip data (inexact), or ignores it; the caller
	// re-applies every conjunct not answered PushdownExact.
	Filters []predicate.Predicate
	// Limit is a hint: the caller needs at most this many rows satisfying
	// all Filters; < 0 means no limit. A scan that does not apply every
	// filter exactly must not stop early because of it.
	Limit int64
	// Options are time-travel and read options, Paimon-named:
	// scan.snapshot-id, scan.tag-name, scan.timestamp-millis, branch,
	// plus anything a /*+ OPTIONS(...) */ hint carried.
	Options map[string]string
	// Splits, when non-nil, are the splits a scan of this same request
	// planned before (possibly on another node): NewScan does not plan
	// again but opens them, and Splits() returns them. A Paimon scan is
	// then pinned to the splits' snapshot. Empty and non-nil: a scan with
	// nothing to read.
	Splits []Split
	// BatchRows, when > 0, is the most rows per batch the scan should
	// produce (0 = its default); a hint, for memory, not for results.
	BatchRows int
}

// Filter is the conjunction of the request's filters (nil when none).
func (r ScanRequest) Filter() predicate.Predicate {
	switch len(r.Filters) {
	case 0:
		return nil
	case 1:
		return r.Filters[0]
	}
	return predicate.NewAnd(r.Filters...)
}

// FilterPushdown is a scan's answer for one conjunct of ScanRequest.Filters
// (DataFusion's TableProviderFilterPushDown).
type FilterPushdown int8

const (
	// PushdownUnsupported: the scan ignores the conjunct.
	PushdownUnsupported FilterPushdown = iota
	// PushdownInexact: the scan uses the conjunct to skip data (pruning),
	// but rows it returns may not satisfy it.
	PushdownInexact
	// PushdownExact: every row the scan returns satisfies the conjunct.
	PushdownExact
)

func (f FilterPushdown) String() string {
	switch f {
	case PushdownExact:
		return "exact"
	case PushdownInexact:
		return "inexact"
	}
	return "unsupported"
}

// Answers returns n copies of a (for scans that answer every conjunct alike).
func Answers(n int, a FilterPushdown) []FilterPushdown {
	out := make([]FilterPushdown, n)
	for i := range out {
		out[i] = a
	}
	return out
}

// Split is one independently readable part of a planned scan, as a plain
// value that round-trips through JSON.
type Split struct {
	// Rows is the number of rows of the split known from metadata, before
	// filters, deletion vectors and merging (an estimate); 0 when unknown.
	Rows int64 `json:"rows,omitempty"`
	// Index identifies the split of a scan whose rows are not files
	// (in-memory tables: the record; metadata views: 0).
	Index int `json:"i,omitempty"`
	// Data is the split of a scan over a Paimon table's files: snapshot,
	// branch, partition, bucket, files with their metadata and deletion
	// vectors. Nil for other scans.
	Data *scan.PlannedSplit `json:"data,omitempty"`
}

// ReadOptions are the resources of one Read.
type ReadOptions struct {
	// Mem allocates the batches (memory.DefaultAllocator when nil).
	Mem memory.Allocator
	// Pool, when set, recycles Arrow buffers across the reads of a query
	// (the Flight server's per-query pool); it allocates from Mem or is
	// Mem. Nil: a scan that recycles buffers uses a pool of its own.
	Pool *bufpool.Pool
	// Dynamic, when set, is a predicate the consumer tightens while the
	// read runs (a top-N bound, a join's build key range): a scan may skip
	// files and row groups whose statistics
	// cannot satisfy its current value, and must not otherwise change what
	// it returns. Scans without statistics ignore it.
	Dynamic *predicate.Dynamic
	// RowFilter, when set, is a condition of the consumer over the scan's
	// output columns that a scan may apply while decoding, so that the
	// other columns are materialised only for the rows it keeps
	// (format.RowFilter). It may only drop rows the consumer drops itself;
	// the consumer still applies its condition. Scans that cannot use it
	// ignore it.
	RowFilter format.RowFilter
}

func (o ReadOptions) mem() memory.Allocator {
	if o.Mem == nil {
		return memory.DefaultAllocator
	}
	return o.Mem
}

// ReadReport counts the work of one Read. Complete once the reader's Next
// returned false or the reader was released.
type ReadReport struct {
	FilesRead        int64
	RowGroupsTotal   int64
	RowGroupsSkipped int64
	RowsDeleted      int64 // rows dropped by deletion vectors
	// File indexes while reading: files not read because their indexes
	// left no candidate row, and rows the indexes excluded.
	FilesSkippedIndex int64
	RowsSkippedIndex  int64
	// FilesSkippedTopN counts files not read because their statistics
	// could not satisfy ReadOptions.Dynamic (a top-N bound or the key
	// range of a join's runtime filter).
	FilesSkippedTopN int64
	// RowsSkippedPageIndex counts rows of read row groups the Parquet page
	// index (column index bounds) excluded.
	RowsSkippedPageIndex int64
}

// Add adds o's counters to r.
func (r *ReadReport) Add(o ReadReport) {
	r.FilesRead += o.FilesRead
	r.RowGroupsTotal += o.RowGroupsTotal
	r.RowGroupsSkipped += o.RowGroupsSkipped
	r.RowsDeleted += o.RowsDeleted
	r.FilesSkippedIndex += o.FilesSkippedIndex
	r.RowsSkippedIndex += o.RowsSkippedIndex
	r.FilesSkippedTopN += o.FilesSkippedTopN
	r.RowsSkippedPageIndex += o.RowsSkippedPageIndex
}

// Reader streams the batches of a Read and reports what reading cost.
type Reader interface {
	array.RecordReader
	// Report returns the counters so far.
	Report() ReadReport
}

// Scan is a planned read, divided into splits that can be read
// independently (by different Flight endpoints, on different nodes).
type Scan interface {
	// Schema of the batches Read returns (the requested columns).
	Schema() *arrow.Schema
	// Stats describes the planning work for EXPLAIN and metrics.
	Stats() ScanStats
	// RowCount returns the number of rows the scan will return and whether
	// that number is exact (known from metadata alone, before reading).
	RowCount() (n int64, exact bool)
	// Pushdown answers, for each of the request's Filters in order, how the
	// scan applies it.
	Pushdown() []FilterPushdown
	// Splits are the planned splits.
	Splits() []Split
	// Read streams the rows of the given splits (splits of this scan, or
	// equal values carried from another node) as Arrow batches. The caller
	// owns the reader and must Release it; a batch is valid until the next
	// call to Next (Retain it to keep it longer). Read must stop promptly
	// when ctx is cancelled, and Err reports why it stopped.
	Read(ctx context.Context, splits []Split, opts ReadOptions) (Reader, error)
}

// ScanStats are planning counters, per scan.
type ScanStats struct {
	SnapshotID           int64 // -1 when the table has no snapshot or is not versioned
	ManifestsTotal       int
	ManifestsPruned      int
	FilesTotal           int
	FilesPrunedPartition int
	FilesPrunedBucket    int
	FilesPrunedStats     int
	DeletionVectors      int    // data files read with a deletion vector
	MergedBuckets        int    // splits needing a merge-on-read
	Residual             string // filter applied to rows, "" when none

	// File indexes (bitmap, BSI, bloom filter, range bitmap) at plan time:
	// files skipped by an embedded index and their rows, and the index types
	// credited ("bitmap 1, range-bitmap 2"). What indexes skip while reading
	// is in ReadReport.
	FilesPrunedIndex int
	RowsPrunedIndex  int64
	IndexSkips       string
	// FilesPrunedGlobalIndex: files whose row-id range a global index
	// (index manifest, row tracking) proved has no matching row.
	FilesPrunedGlobalIndex int
	// GlobalIndexesUnsupported: global index files in a format not decoded
	// (Java's BGIX bitmap files), not used.
	GlobalIndexesUnsupported int

	// Opened is true when the scan was opened from splits planned earlier
	// (ScanRequest.Splits) instead of planned: manifest and pruning
	// counters are then zero.
	Opened bool
}

// NoReport adapts a reader that has nothing to report.
func NoReport(r array.RecordReader) Reader { return noReport{r} }

type noReport struct{ array.RecordReader }

func (noReport) Report() ReadReport { return ReadReport{} }

// CheckIndexSplits verifies that splits are Index splits of a scan with n
// of them (in-memory tables and views).
func CheckIndexSplits(what string, splits []Split, n int) error {
	for _, sp := range splits {
		if sp.Data != nil || sp.Index < 0 || sp.Index >= n {
			return fmt.Errorf("%s: split %d out of range [0, %d) or not a split of this scan: %w", what, sp.Index, n, ErrInvalid)
		}
	}
	return nil
}

// ColumnRanger is implemented by scans that know, from metadata alone, the
// range of values of their integer and date columns (the planner's
// estimate of distinct values). Ranges are by column name (DATE as days
// since the epoch); a column without a known range is absent. An estimate:
// it may be wider or narrower than the live rows' range.
type ColumnRanger interface {
	ColumnRanges(ctx context.Context) (map[string][2]int64, error)
}

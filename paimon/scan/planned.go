package scan

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/internal/bufpool"
	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/format"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
)

// PlannedSplit is a Split as a plain, serializable value (JSON): what a
// node that did not plan the scan needs to read it. It names the snapshot
// and branch the split was planned from, and carries the files with their
// metadata, the deletion vectors' locations, the partition (as its
// BinaryRow bytes) and the bucket. Partition values are not carried: they
// are decoded again from PartitionBytes when the split is opened.
type PlannedSplit struct {
	SnapshotID int64 `json:"snapshot"`
	// Branch is the branch the files belong to: the scan's own branch, or
	// the table's scan.fallback-branch for partitions read from it.
	Branch string `json:"branch"`
	Split
}

// Export turns the splits of a plan made by s into plain values.
func (s *Scan) Export(splits []Split) []PlannedSplit {
	out := make([]PlannedSplit, len(splits))
	for i, sp := range splits {
		owner := sp.scan(s)
		ps := PlannedSplit{SnapshotID: -1, Branch: owner.table.BranchName(), Split: sp}
		if owner.snapshot != nil {
			ps.SnapshotID = owner.snapshot.ID
		}
		ps.Partition = nil
		ps.owner = nil
		out[i] = ps
	}
	return out
}

// SnapshotID is the snapshot the scan reads, -1 when the table has none.
func (s *Scan) SnapshotID() int64 {
	if s.snapshot == nil {
		return -1
	}
	return s.snapshot.ID
}

// Open turns planned splits back into Splits of s, without planning: the
// splits of s's own branch must name s's snapshot (open the scan with
// Options.SnapshotID set to it); splits of the fallback branch get a scan
// of that branch at their snapshot (reading its snapshot and schema files
// only). Errors wrap paimon.ErrInvalid when a split does not belong to s.
func (s *Scan) Open(ctx context.Context, planned []PlannedSplit) ([]Split, error) {
	out := make([]Split, len(planned))
	others := map[string]*Scan{}
	for i := range planned {
		ps := &planned[i]
		owner := s
		if ps.Branch != s.table.BranchName() {
			key := fmt.Sprintf("%s@%d", ps.Branch, ps.SnapshotID)
			if owner = others[key]; owner == nil {
				fb := s.schema.Option("scan.fallback-branch", "")
				if fb == "" || ps.Branch != fb {
					return nil, paimon.Errorf(paimon.ErrInvalid, "split of branch %q does not belong to a scan of table %s branch %q", ps.Branch, s.table.Path(), s.table.BranchName())
				}
				bt, err := s.table.Branch(ctx, ps.Branch)
				if err != nil {
					return nil, fmt.Errorf("scan.fallback-branch of table %s: %w", s.table.Path(), err)
				}
				names := make([]string, len(s.readCols))
				for j, f := range s.readCols {
					names[j] = f.Name
				}
				o := s.opts
				o.Columns, o.SnapshotID, o.TagName, o.TimestampMillis = names, ps.SnapshotID, "", 0
				if owner, err = New(ctx, bt, o); err != nil {
					return nil, fmt.Errorf("scan.fallback-branch %q: %w", ps.Branch, err)
				}
				others[key] = owner
			}
		}
		if ps.SnapshotID != owner.SnapshotID() {
			return nil, paimon.Errorf(paimon.ErrInvalid, "split planned from snapshot %d of table %s (branch %q) opened on snapshot %d", ps.SnapshotID, s.table.Path(), ps.Branch, owner.SnapshotID())
		}
		sp := ps.Split
		part, err := owner.decodePartition(sp.PartitionBytes)
		if err != nil {
			return nil, err
		}
		sp.Partition = part
		if owner != s {
			sp.owner = owner
		} else {
			sp.owner = nil
		}
		out[i] = sp
	}
	return out, nil
}

// ReadOptions are per-read resources.
type ReadOptions struct {
	// Mem allocates the batches (memory.DefaultAllocator when nil).
	Mem memory.Allocator
	// Pool, when set, recycles the Arrow buffers of the read (e.g. one pool
	// shared by the endpoints of a query); it must allocate from Mem or be
	// Mem itself. When nil the read uses a pool of its own over Mem, closed
	// when the reader is released.
	Pool *bufpool.Pool
	// Stats, when set, receives the read's counters (row groups, files,
	// rows deleted) as the read goes; final once the reader is drained or
	// released.
	Stats *ReadStats
	// Dynamic, when set, is a predicate the consumer tightens while reading
	// (a top-N bound, predicate.Dynamic): raw data files whose value
	// statistics cannot satisfy its current value are not read. It never
	// drops rows of a file that is read.
	Dynamic *predicate.Dynamic
	// RowFilter, when set, is a row condition of the consumer over the
	// output columns (format.RowFilter: column indexes are output
	// columns), applied while raw data files are decoded so that the other
	// columns are materialised only for the rows it keeps. Merged
	// (primary-key) reads do not apply it; the consumer re-applies its
	// condition in every case.
	RowFilter format.RowFilter
}

// ReadSplits streams the rows of splits like Read, with the buffer pool and
// statistics given explicitly. The caller owns the reader and must Release it.
func (s *Scan) ReadSplits(ctx context.Context, splits []Split, o ReadOptions) (array.RecordReader, error) {
	return s.read(ctx, o.Mem, o.Pool, splits, o.Stats, o.Dynamic, o.RowFilter)
}

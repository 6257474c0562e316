// Package catalog resolves table names (db.t, db.t$files, db.t$branch_b$files,
// sys.tables, ...) to readable tables, and defines the table and scan
// contracts that the planner executes against.
//
// Implementations: the Paimon filesystem catalog (this package), Paimon
// system tables (sysviews), and in-memory tables (MemTable).
package catalog

import (
	"context"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
)

// Errors callers can test with errors.Is; messages always name the culprit.
var (
	// ErrNotFound: unknown database, table, system table, snapshot, tag or
	// branch. It is paimon.ErrNotFound, so format-level misses match too.
	ErrNotFound = paimon.ErrNotFound
	// ErrUnsupported: a feature or construct this server does not support
	// (paimon.ErrUnsupported).
	ErrUnsupported = paimon.ErrUnsupported
	// ErrCorrupt: a corrupt or truncated file (paimon.ErrCorrupt).
	ErrCorrupt = paimon.ErrCorrupt
	// ErrInvalid: a request that can never succeed as written (bad option value, bad name).
	ErrInvalid = paimon.ErrInvalid
)

// Table kinds as reported to Flight SQL clients (GetTableTypes).
const (
	KindTable       = "TABLE"
	KindSystemTable = "SYSTEM TABLE"
)

// Identifier names a table. Table is the base table name without suffixes;
// Branch is "" for main; SystemTable is the $-suffix ("files", "snapshots", ...)
// or "" for the data itself.
type Identifier struct {
	Database    string
	Table       string
	Branch      string
	SystemTable string
}

// TableInfo is one row of a table listing.
type TableInfo struct {
	Name string // as it is written in SQL, e.g. "orders" or "orders$files"
	Kind string // KindTable or KindSystemTable
}

// Catalog resolves names to tables.
type Catalog interface {
	// DefaultDatabase is the database of unqualified names ("default").
	DefaultDatabase() string
	// ListDatabases lists databases, including the "sys" database.
	ListDatabases(ctx context.Context) ([]string, error)
	// ListTables lists the tables of db (system tables of sys included).
	ListTables(ctx context.Context, db string) ([]TableInfo, error)
	// GetTable resolves db and name; name may carry $branch_<b> and $<system> suffixes.
	// Unknown names fail with an error wrapping ErrNotFound that names what is
	// missing and suggests near matches.
	GetTable(ctx context.Context, db, name string) (Table, error)
}

// Table is something a SELECT can read.
type Table interface {
	Identifier() Identifier
	Kind() string
	// Schema is the full schema exposed to SQL (all columns).
	Schema() *arrow.Schema
	// PrimaryKeys lists primary-key column names in key order (nil when none).
	PrimaryKeys() []string
	// Comment is the table comment ("" when none).
	Comment() string
	// NewScan plans a scan: it reads metadata only and returns the splits
	// to read. With req.Splits set it does not plan but opens those splits
	// (planned earlier for the same request, possibly on another node).
	NewScan(ctx context.Context, req ScanRequest) (Scan, error)
}

// Deleter is implemented by tables that support DELETE FROM ... WHERE.
type Deleter interface {
	Delete(ctx context.Context, filter predicate.Predicate) (deleted int64, err error)
}

// AppendUpdater is implemented by tables that support UPDATE t SET ...
// WHERE filter on append tables (no primary key): set computes the new
// versions of the matching rows (a batch of the table's columns; it returns
// as many rows, with the table's columns) and the table commits the change
// as one snapshot, returning the number of rows updated.
type AppendUpdater interface {
	UpdateAppend(ctx context.Context, mem memory.Allocator, filter predicate.Predicate,
		set func(ctx context.Context, rec arrow.RecordBatch) (arrow.RecordBatch, error)) (updated int64, err error)
}

// Compactor is implemented by tables that support CALL sys.compact('db.t').
type Compactor interface {
	Compact(ctx context.Context, full bool) error
}

// PartitionCompactor compacts only the partitions matching one of specs
// (partition key → value; CALL sys.compact's partitions argument).
type PartitionCompactor interface {
	CompactPartitions(ctx context.Context, full bool, specs []map[string]string) error
}

// ExpireRequest is CALL sys.expire_snapshots: fields left zero are not
// bounded (Java's ExpireConfig builder defaults: retain at least 1, at most
// unlimited, no time bound, no limit per call), not the table options.
type ExpireRequest struct {
	RetainMax, RetainMin int
	OlderThan            time.Time // snapshots created before it may expire
	MaxDeletes           int
}

// SnapshotExpirer is implemented by tables that support CALL
// sys.expire_snapshots; it returns the number of snapshots expired.
type SnapshotExpirer interface {
	ExpireSnapshots(ctx context.Context, req ExpireRequest) (int, error)
}

// OrphanRemover is implemented by tables that support CALL
// sys.remove_orphan_files: it removes files no snapshot, tag or branch
// references that were last modified before olderThan (zero: a day ago),
// and returns how many files and bytes it removed (or would, for dryRun).
type OrphanRemover interface {
	RemoveOrphanFiles(ctx context.Context, olderThan time.Time, dryRun bool) (files int, bytes int64, err error)
}

func invalidf(format string, a ...any) error {
	return paimon.Errorf(ErrInvalid, format, a...)
}

package flightsql

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/internal/bufpool"
)

// Session is what a statement runs under: the current database and the
// Paimon read options (scan.snapshot-id, scan.tag-name,
// scan.timestamp-millis, branch).
type Session struct {
	Database string
	Options  map[string]string
	// Splits, when set, is what SplitsStatement.PlannedSplits returned for
	// the same statement (carried in a ticket): the engine opens those
	// splits instead of planning the scans again.
	Splits []byte
	User   string // the authenticated user ("" without authentication)
}

// Engine plans SQL text. It is the contract between the Flight SQL server
// and the SQL engine; *planner.Engine is adapted to it by a thin wrapper.
type Engine interface {
	// Prepare parses and plans sql under sess. It reads metadata only.
	// Errors should wrap catalog.ErrNotFound, catalog.ErrUnsupported or
	// catalog.ErrInvalid when they are the client's fault.
	Prepare(ctx context.Context, sql string, sess Session) (Statement, error)
}

// Statement is one planned SQL statement.
//
// Parameters use the literal conventions of paimon/predicate: nil, bool,
// int64, float64, string, []byte, predicate.Decimal, predicate.Timestamp.
type Statement interface {
	// IsUpdate reports whether the statement is DML/CALL (run with
	// ExecuteUpdate) rather than a query.
	IsUpdate() bool
	// Schema is the result schema of a query (nil or empty for updates).
	Schema() *arrow.Schema
	// ParamTypes lists the types of the `?` placeholders, in order.
	ParamTypes() []arrow.DataType
	// NumPartitions is the number of independently readable partitions
	// (one Flight endpoint each); at least 1 for a query.
	NumPartitions() int
	// Ordered reports whether the concatenation of the partitions, in
	// order, is the ordered result (ORDER BY).
	Ordered() bool
	// RowCount returns the number of result rows when known before
	// execution.
	RowCount() (n int64, known bool)
	// Execute runs partition part of a query. The reader must stop promptly
	// when ctx is cancelled and must release everything it allocated from
	// mem once released itself.
	Execute(ctx context.Context, mem memory.Allocator, params []any, part int) (array.RecordReader, error)
	// ExecuteUpdate runs an update and returns the affected row count.
	ExecuteUpdate(ctx context.Context, params []any) (int64, error)
}

// PinnedStatement is optionally implemented by statements that resolve a
// moving target (the latest snapshot) at planning time. The returned
// options (e.g. scan.snapshot-id) are added to the session carried by every
// ticket of the statement, so that all endpoints read the same snapshot even
// when a commit lands between GetFlightInfo and DoGet.
type PinnedStatement interface {
	PinnedOptions() map[string]string
}

// PruningStatsStatement is optionally implemented by statements that can
// report scan pruning counters (e.g. "files_pruned_partition",
// "files_total"). They are added to the paimon_flightsql_pruning_total
// metric after GetFlightInfo.
type PruningStatsStatement interface {
	PruningStats() map[string]int64
}

// SplitsStatement is optionally implemented by statements whose planned
// scan splits can travel in tickets, so that a DoGet on any node reads
// them without planning again. PlannedSplits returns them encoded (JSON;
// nil when there is nothing to carry; nil and fits false when the encoding
// would pass max bytes); Prepare given a Session with Splits set to that
// value opens them.
type SplitsStatement interface {
	PlannedSplits(max int) (splits []byte, fits bool, err error)
}

// PoolStatement is optionally implemented by statements that take the
// query's buffer pool explicitly: the server passes its per-query pool
// (shared by the query's endpoints) to ExecuteWithPool, which hands it to
// the scans' read options. mem is the pool or its base allocator.
type PoolStatement interface {
	ExecuteWithPool(ctx context.Context, mem memory.Allocator, pool *bufpool.Pool, params []any, part int) (array.RecordReader, error)
}

// ParamTypedStatement is optionally implemented by statements whose
// parameters may take their type from the values bound to them: a `?` its
// context leaves untyped (SELECT ?, ?) is reported as utf8 at prepare time
// but accepts any type; WithParamTypes returns the statement planned for the
// bound column types (its Schema then follows them).
type ParamTypedStatement interface {
	WithParamTypes(ctx context.Context, bound []arrow.DataType) (Statement, error)
}

// SizedStatement is optionally implemented by statements that can estimate
// the size of their result before execution (from the planned scans). The
// server gives a result about one endpoint per Config.EndpointBytes.
type SizedStatement interface {
	EstimatedBytes() (n int64, known bool)
}

// SettingStatement is optionally implemented by statements that set session
// options (SQL SET name = value, USE db). The server validates the
// settings as it does Flight SetSessionOptions and stores them in the
// caller's session when the statement is planned; the statement's result
// lists them.
type SettingStatement interface {
	Settings() map[string]string
}

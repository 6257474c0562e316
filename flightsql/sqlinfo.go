package flightsql

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql/schema_ref"
)

// SqlInfo values, with the Go types (and so union members) the JDBC
// driver's casts and ADBC's readers expect (see the clients doc, 2.4).
// Every key of the Flight SQL SqlInfo enum is registered; none outside it.
func (q *sqlServer) sqlInfoValues() map[uint32]any {
	keywords := []string{"ABS", "ALL", "AND", "AS", "ASC", "BETWEEN", "BRANCH", "BY", "CALL", "CASE", "CAST", "DELETE", "DESC", "DISTINCT", "ELSE", "END", "EXISTS", "EXPLAIN", "FALSE", "FROM", "GROUP", "HAVING", "IN", "IS", "LIKE", "LIMIT", "NOT", "NULL", "OFFSET", "OPTIONS", "OR", "ORDER", "SELECT", "SYSTEM_TIME", "TAG", "THEN", "TRUE", "UNION", "WHEN", "WHERE", "WITH"}
	v := map[uint32]any{
		0:   "Apache Paimon Flight SQL",                 // FLIGHT_SQL_SERVER_NAME
		1:   q.s.cfg.ServerVersion,                      // FLIGHT_SQL_SERVER_VERSION
		2:   "18.8.0",                                   // FLIGHT_SQL_SERVER_ARROW_VERSION
		3:   false,                                      // READ_ONLY (ingest, DDL, INSERT, DELETE and CALL are allowed)
		4:   true,                                       // SERVER_SQL
		5:   false,                                      // SERVER_SUBSTRAIT
		8:   int32(0),                                   // SERVER_TRANSACTION: none
		9:   true,                                       // SERVER_CANCEL
		10:  false,                                      // BULK_INGESTION
		11:  false,                                      // INGEST_TRANSACTIONS_SUPPORTED
		100: int32(q.s.cfg.QueryTimeout.Milliseconds()), // STATEMENT_TIMEOUT (ms, 0 = none)
		101: int32(0),                                   // TRANSACTION_TIMEOUT
		500: false, 501: false, 502: false,              // DDL catalog/schema/table
		503: int64(3),                                         // IDENTIFIER_CASE: case-insensitive
		504: "`",                                              // IDENTIFIER_QUOTE_CHAR
		505: int64(3),                                         // QUOTED_IDENTIFIER_CASE: case-insensitive
		506: true,                                             // ALL_TABLES_ARE_SELECTABLE
		507: int64(2),                                         // NULL_ORDERING: sorted at start
		508: keywords,                                         // KEYWORDS
		509: []string{"ABS", "CEIL", "FLOOR", "ROUND", "MOD"}, // NUMERIC_FUNCTIONS
		510: []string{"LOWER", "UPPER", "LENGTH", "SUBSTRING", "TRIM", "CONCAT"},
		511: []string{"COALESCE", "NULLIF"},
		512: []string{"CURRENT_DATE", "CURRENT_TIMESTAMP", "YEAR", "MONTH", "DAY"},
		513: "\\",                // SEARCH_STRING_ESCAPE
		514: "$",                 // EXTRA_NAME_CHARACTERS (t$files)
		515: true,                // SUPPORTS_COLUMN_ALIASING
		516: true,                // NULL_PLUS_NULL_IS_NULL
		517: map[int32][]int32{}, // SUPPORTS_CONVERT
		518: true,                // TABLE_CORRELATION_NAMES
		519: false,               // DIFFERENT_TABLE_CORRELATION_NAMES
		520: true,                // EXPRESSIONS_IN_ORDER_BY
		521: true,                // ORDER_BY_UNRELATED
		522: int32(1 << 1),       // SUPPORTED_GROUP_BY: GROUP_BY_BEYOND_SELECT
		523: true,                // LIKE_ESCAPE_CLAUSE
		524: true,                // NON_NULLABLE_COLUMNS
		525: int32(1 << 0),       // SUPPORTED_GRAMMAR: minimum
		526: int32(1 << 0),       // ANSI92: entry
		527: false,               // INTEGRITY_ENHANCEMENT_FACILITY
		528: int32(0),            // OUTER_JOINS: unsupported
		529: "schema",            // SCHEMA_TERM
		530: "procedure",         // PROCEDURE_TERM
		531: "catalog",           // CATALOG_TERM
		532: true,                // CATALOG_AT_START
		533: int32(1 << 0),       // SCHEMAS_SUPPORTED_ACTIONS: procedure calls
		534: int32(0),            // CATALOGS_SUPPORTED_ACTIONS
		535: int32(0),            // POSITIONED_COMMANDS
		536: false,               // SELECT_FOR_UPDATE
		537: true,                // STORED_PROCEDURES (CALL sys.compact)
		538: int32(0),            // SUBQUERIES
		539: false,               // CORRELATED_SUBQUERIES
		540: int32(0),            // UNIONS
		556: false,               // MAX_ROW_SIZE_INCLUDES_BLOBS
		562: int64(0),            // DEFAULT_TRANSACTION_ISOLATION: none
		563: false,               // TRANSACTIONS_SUPPORTED
		564: int32(0),            // SUPPORTED_TRANSACTIONS_ISOLATION_LEVELS
		565: false, 566: false,
		567: int32(1 << 1),                                              // RESULT_SET_TYPES: forward only
		568: int32(0), 569: int32(1 << 1), 570: int32(0), 571: int32(0), // concurrencies: read-only forward
		572: false, 573: false, 574: false, 575: false, 576: false,
	}
	// 541-561 except 556: MAX_* limits, 0 = unknown/unlimited.
	for k := uint32(541); k <= 561; k++ {
		if k != 556 {
			v[k] = int64(0)
		}
	}
	return v
}

func (q *sqlServer) registerSqlInfo() error {
	q.sqlInfoKeys = map[uint32]bool{}
	for k, val := range q.sqlInfoValues() {
		if err := q.RegisterSqlInfo(flightsql.SqlInfo(k), val); err != nil {
			return err
		}
		q.sqlInfoKeys[k] = true
	}
	return nil
}

// sqlInfoRequest is a GetSqlInfo with unknown keys filtered out.
type sqlInfoRequest []uint32

func (r sqlInfoRequest) GetInfo() []uint32 { return r }

// DoGetSqlInfo answers with the requested keys that exist, skipping unknown
// ones instead of failing the call (arrow-go's default fails with NotFound).
func (q *sqlServer) DoGetSqlInfo(ctx context.Context, cmd flightsql.GetSqlInfo) (*arrow.Schema, <-chan flight.StreamChunk, error) {
	noteCommand(ctx, "DoGet CommandGetSqlInfo", "")
	keys := cmd.GetInfo()
	if len(keys) == 0 {
		return q.BaseServer.DoGetSqlInfo(ctx, cmd)
	}
	known := make(sqlInfoRequest, 0, len(keys))
	for _, k := range keys {
		if q.sqlInfoKeys[k] {
			known = append(known, k)
		}
	}
	if len(known) > 0 {
		return q.BaseServer.DoGetSqlInfo(ctx, known)
	}
	b := array.NewRecordBuilder(q.s.mem, schema_ref.SqlInfo)
	defer b.Release()
	return streamRecord(ctx, schema_ref.SqlInfo, b.NewRecordBatch())
}

// streamRecord streams one batch (taking ownership of rec).
func streamRecord(ctx context.Context, sc *arrow.Schema, rec arrow.RecordBatch) (*arrow.Schema, <-chan flight.StreamChunk, error) {
	defer rec.Release()
	rdr, err := array.NewRecordReader(sc, []arrow.RecordBatch{rec})
	if err != nil {
		return nil, nil, err
	}
	ch := make(chan flight.StreamChunk)
	go flight.StreamChunksFromReader(ctx, rdr, ch)
	return sc, ch, nil
}

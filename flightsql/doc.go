// Package flightsql serves Paimon tables over Arrow Flight SQL.
//
// NewServer builds a gRPC server on top of arrow-go's flightsql router and
// adds what real clients (ADBC, JDBC/DBeaver, pyarrow, the JS and Rust
// clients) need beyond it:
//
//   - Basic → signed, expiring bearer tokens (HMAC-SHA256; any node holding
//     the key verifies them), returned in the Handshake header and trailer;
//     bearer tokens accepted on every call, including Handshake.
//   - Stateless, signed tickets and prepared-statement handles: they carry
//     the SQL, the session (database and time-travel options), the bound
//     parameters and the partition, so DoGet and prepared execution never
//     depend on server memory and any node can serve them.
//   - Complete metadata (SqlInfo with every key clients read, catalogs,
//     schemas, tables with ARROW:FLIGHT:SQL:* column metadata, table types,
//     primary keys, empty foreign keys, XDBC type info).
//   - Session options (catalog, schema, scan.snapshot-id, scan.tag-name,
//     scan.timestamp-millis, branch), also accepted as gRPC headers.
//   - Cancellation, per-query timeouts, negotiated IPC compression,
//     classic-only Arrow types on the wire, one slog line per RPC,
//     Prometheus metrics and gRPC status codes that name the culprit.
//
// The SQL engine is reached through the Engine and Statement interfaces
// defined here, so the planner can be adapted in a few lines.
package flightsql

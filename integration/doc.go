// Package integration drives the Flight SQL server with real clients: the
// ADBC Go Flight SQL driver (the same code ADBC Python wraps), arrow-go's
// flightsql.Client, and a client that replays what the Flight SQL JDBC
// driver (and so DBeaver) calls. It is a separate module so that the ADBC
// driver's dependencies stay out of the main module.
//
// The server runs in-process on 127.0.0.1:0 with the real planner over the
// demo warehouse (built once per test binary by TestMain, scale 0.01) and,
// in a second server, over the parquet fixture warehouse
// ($PAIMON_FIXTURES/paimon-cpp/parquet, default ../../shared/fixtures/paimon;
// fixture tests skip when it is absent). Results are compared with
// planner.Run in-process over the same warehouse.
package integration

// Package integration drives the Flight SQL server with real clients: the
// ADBC Go Flight SQL driver (the same code ADBC Python wraps), arrow-go's
// flightsql.Client, and a client that replays what the Flight SQL JDBC
// driver (and so DBeaver) calls. It is a separate module so that the ADBC
// driver's dependencies stay out of the main module.
package integration

// Package metrics holds the process-wide Prometheus metrics that any layer
// may update: the query queue, per-query memory, spills and cancellations,
// plus the Go runtime and process collectors. It is a leaf (it imports only
// client_golang), so the planner, the writer and the Flight SQL server can
// all reach it; the server's /metrics page gathers Registry together with
// its own per-server registry.
//
// Invariants: every metric here is registered in Registry exactly once, at
// package initialisation; names carry the "paimon_flightsql_" prefix; the
// update functions are safe for concurrent use and never block.
package metrics

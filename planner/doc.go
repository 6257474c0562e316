// Package planner parses, plans and executes SQL over a catalog.Catalog.
//
// Pipeline: a normalising front end (normalize.go) rewrites what BI tools
// and drivers send into the MySQL dialect of xwb1989/sqlparser; the binder
// (bind.go) resolves names through the catalog and types every expression;
// the planner (plan.go) pushes projection, WHERE conjuncts (as
// paimon/predicate predicates, pushdown.go) and LIMIT into the table scan and
// keeps whatever the scan does not guarantee as a residual filter; the
// executor (exec.go, agg.go) runs a pull-based tree of operators over Arrow
// batches: scan → filter → aggregate → having → project → distinct →
// sort/top-N → limit.
//
// Writes (ddl.go, insert.go, procedures.go, refprocs.go): DDL, INSERT
// [OVERWRITE], CREATE TABLE AS SELECT and CALL procedures are update
// statements; their update count is rows written (INSERT, CTAS), snapshots
// or files removed (expire, orphans, rollback_to) or 0 (other DDL). A CTAS
// plans its query at Prepare and drops the new table when the insert fails;
// an INSERT's source must produce exactly the target's columns (counted on
// the source itself, not through the wrapping SELECT).
//
// Entry points: New, Engine.Prepare, Statement.Execute /
// Statement.ExecuteUpdate, and Run. See docs/design/planner.md.
package planner

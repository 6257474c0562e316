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
// Entry points: New, Engine.Prepare, Statement.Execute /
// Statement.ExecuteUpdate, and Run. See docs/design/planner.md.
package planner

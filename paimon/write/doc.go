// Package write writes Apache Paimon tables that Paimon Java reads: it
// creates tables (schema-0), writes append and primary-key batches as
// Parquet data files with Paimon's layout and statistics, commits them
// through Avro manifests and snapshots atomically (create-if-absent on
// snapshot-N, conflict detection, retries), compacts primary-key tables —
// into deletion vectors as designed by seed 000, or merge-on-read — runs
// DELETE and UPDATE of append tables (UpdateAppend), creates tags, branches
// and consumers, expires snapshots, and builds the demo warehouse
// (BuildDemo).
//
// Invariants: one statement is one snapshot (plus the COMPACT snapshot of
// AutoCompact); a failed or aborted write leaves no snapshot and deletes
// every file it wrote. Primary-key input is buffered up to
// write-buffer-size, then flushed as level-0 files of the same commit with
// sequence numbers continuing per bucket. The aggregation merge engine folds
// with paimon/aggfunc, the same functions the reader applies.
//
// See docs/design/writer.md for the decisions and format facts.
package write

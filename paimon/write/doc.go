// Package write writes Apache Paimon tables that Paimon Java reads: it
// creates tables (schema-0), writes append and primary-key batches as
// Parquet data files with Paimon's layout and statistics, commits them
// through Avro manifests and snapshots atomically (create-if-absent on
// snapshot-N, conflict detection, retries), compacts primary-key tables —
// into deletion vectors as designed by seed 000, or merge-on-read — runs
// DELETE, creates tags, branches and consumers, expires snapshots, and
// builds the demo warehouse (BuildDemo).
//
// See docs/design/writer.md for the decisions and format facts.
package write

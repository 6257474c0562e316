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
// sequence numbers continuing per bucket. The aggregation and partial-update
// merge engines fold with aggfunc.Merger, the same fold the reader applies;
// ignore-delete / ignore-update-before retractions are dropped on input.
// With deletion vectors their compaction merges level-0 records with the
// looked-up older row (Java's lookup compaction).
//
// Invariants of schema changes, overwrite and rollback:
//   - EvolveSchema never reuses a field id (new columns take
//     highestFieldId+1...) and never changes the id of a kept column, so
//     readers map old files by id; it accepts only lossless type widenings.
//   - An OVERWRITE commit computes its DELETE entries against the snapshot
//     it lands on, on every commit attempt, never once up front.
//   - RollbackTo writes a restored snapshot file before moving the LATEST
//     hint to it, and deletes later snapshots newest first; it deletes no
//     data or manifest file (RemoveOrphanFiles does).
//
// See docs/design/writer.md for the decisions and format facts.
package write

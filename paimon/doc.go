// Package paimon reads and writes Apache Paimon table metadata exactly as
// Paimon Java 1.x does: schemas, snapshots, tags, manifests and index manifests.
//
// Caching invariants (manifest_cache.go, meta_cache.go):
//   - Process-wide caches key entries by the FileIO's store identity
//     (fileio.StoreIdentifier: S3 endpoint + bucket + prefix, a local root),
//     never by a relative path alone.
//   - A cached snapshot or schema file is served only after storage confirmed
//     that the file's current version (ETag) is the cached one; LATEST and
//     EARLIEST hints are never cached. A manifest list is keyed by the
//     version of the snapshot file naming it.
//   - Caches hold bytes or immutable decoded data; callers own what they get.
package paimon

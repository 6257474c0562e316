// Package paimon reads and writes Apache Paimon table metadata exactly as
// Paimon Java 1.x does: schemas, snapshots, tags, manifests and index manifests.
//
// Caching invariants (manifest_cache.go, meta_cache.go):
//   - Process-wide caches key entries by the FileIO's store identity
//     (fileio.StoreIdentifier: S3 endpoint + bucket + prefix, a local root),
//     never by a relative path alone.
//   - A cached snapshot or schema file is served only after storage confirmed
//     that the file's current version (ETag) is the cached one — by a HEAD,
//     or by the ETags a listing of schema/ sent in the same query
//     (ListedLatestSchema); LATEST and EARLIEST hints are never cached. A
//     manifest list is keyed by the version of the snapshot file naming it.
//   - The latest snapshot id remembered per branch (meta_cache.go) is only a
//     guess of which files to check early: the answer is always the one the
//     LATEST hint and the existence checks give.
//   - Exception, opt-in per handle (WithFreshness, freshness.go; the
//     catalog's cache.expiration-interval): a query handle may reuse this
//     process's last check of the latest snapshot and of the schema listing
//     while that check started less than the window ago and no write of this
//     process to the store (fileio.WriteGeneration) happened since. Handles
//     that commit never have a window.
//   - A Table handle from ListedLatestSchema / WithKnownSchema holds one
//     query's view of the schema files (the listing it made): for that
//     query only, never kept across queries.
//   - Caches hold bytes or immutable decoded data; callers own what they get
//     (except a handle's known schema, shared read-only).
//   - Budget, LRU eviction and counters of the manifest and metadata caches
//     (and of format's footer cache) are internal/lru's; keys, validation and
//     what is accounted per entry stay with each cache.
package paimon

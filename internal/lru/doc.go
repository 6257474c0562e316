// Package lru is the one byte-bounded least-recently-used cache of this
// module: the manifest cache (paimon), the metadata cache (paimon) and the
// Parquet footer cache (paimon/format) keep their keys, validation and
// soundness rules and delegate bookkeeping here.
//
// Invariants:
//   - Safe for concurrent use; every method takes the cache's one mutex and
//     calls no caller code while holding it, except the identity check passed
//     to Grow (which must be cheap and must not call back into the cache).
//   - After every method returns, Bytes <= MaxBytes: Add, Grow and
//     SetMaxBytes evict least recently used entries until the budget holds.
//   - MaxBytes 0 disables the cache: it holds nothing, Get misses without
//     counting, Add keeps nothing. SetMaxBytes(0) drops the content.
//   - An entry larger than MaxBytes/entryShare (see New) is never admitted;
//     Add of a key already held keeps the held value (first writer wins).
//   - Grow accounts more (or fewer) bytes to a held entry and keeps it while
//     it alone fits the budget; an entry that no longer fits is evicted.
//   - Clear drops entries, never counters; Stats is a consistent snapshot.
//   - Values are handed out shared: the cache never copies or modifies them.
//
// The package imports only the standard library.
package lru

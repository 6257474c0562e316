// Package readahead holds the one contract between file readers (Parquet,
// ORC) and the files they read for announcing byte ranges ahead of use.
//
// Invariants: announcing is only a hint. A Prefetcher may fetch announced
// ranges in the background or ignore them; later reads return the same
// bytes either way. The package imports nothing of this module, so readers
// at the lowest layer (orc) and FileIO implementations (paimon/fileio) can
// both use it.
package readahead

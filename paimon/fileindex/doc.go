// Package fileindex decodes Paimon's data-file indexes (Java
// paimon-common org.apache.paimon.fileindex) and answers filter leaves with
// them: which rows of one data file may match.
//
// A data file's indexes live in one container (FileIndexFormat: magic, version
// 1, a head mapping column name → index type → byte range, then the bodies),
// either embedded in the manifest entry (_EMBEDDED_FILE_INDEX) or in a
// `<data file>.index` extra file. Index types decoded here, byte-exact with
// the Java readers:
//
//   - "bitmap": BitmapFileIndex v1 and v2 (one portable RoaringBitmap per
//     distinct value, single-row values inlined as -1-row offsets);
//   - "bsi": BitSliceIndexBitmapFileIndex (bit-sliced positive and negative
//     halves over int64 keys);
//   - "bloom-filter": BloomFilterFileIndex (BloomFilter64 with Java's FastHash:
//     Thomas Wang's long hash for numbers, xxHash64 for strings and bytes);
//   - "range-bitmap": RangeBitmapFileIndex (sorted chunked dictionary of the
//     distinct values plus a bit-sliced index of each row's dictionary code).
//
// It also decodes BTree global index files (btree.go: key → row ordinals in
// an SST layout, with its null bitmap) and answers leaves with them
// (btree_reader.go, keys of every type Java's KeySerializer writes except
// CHAR, btree_keys.go: the ordinals whose key
// satisfies the leaf; the scan uses them for primary-key tables,
// paimon/scan/globalindex_btree.go, and row-tracking append tables,
// paimon/scan/globalindex.go). BuildBTree writes such files. A BTree index
// is used only when its entries and null bitmap hold every source row
// exactly once.
//
// Invariants:
//
//   - An index is an accelerator only. Every Result is a superset of the rows
//     that satisfy the leaf (SQL semantics: -0.0 = 0.0, NULL never matches a
//     comparison); when an index cannot vouch for that — an unsupported
//     operator, type or literal, a NaN or a value the index key cannot hold
//     exactly, an unknown index type or version, a row count that differs
//     from the data file's — the answer is Remain (all rows may match), never
//     Skip. Callers still apply the filter to every row.
//   - Decoding never panics and allocates in proportion to the input: every
//     count and length is checked against the bytes that remain before
//     anything is allocated, and roaring bitmaps are validated. Malformed
//     bytes give an error wrapping ErrCorrupt.
//   - Row positions are 0-based physical positions in the data file, the same
//     positions deletion vectors use.
package fileindex

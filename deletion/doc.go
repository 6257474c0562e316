// Package deletion implements Paimon's deletion vectors (spec §7): the set
// of row positions of one data file that readers must skip, and the
// DELETION_VECTORS index file that stores the vectors of many data files.
//
// Two encodings exist. The default 32-bit form (Java BitmapDeletionVector)
// is a big-endian magic 1581511376 followed by a portable RoaringBitmap;
// the 64-bit form (Java Bitmap64DeletionVector, `deletion-vectors.bitmap64`)
// is a LITTLE-endian magic 1681511377 followed by an Iceberg-style bitmap64:
// int64 LE count, then per high-32-bit key an int32 LE key and a portable
// RoaringBitmap of the low 32 bits.
//
// An index file is a version byte (1) followed by one entry per data file:
//
//	int32 BE size | size bytes (magic + bitmap) | int32 BE CRC32 of those size bytes
//
// The index manifest records, per data file, (offset, length, cardinality)
// of its entry; length is `size` for 32-bit entries but the whole entry
// (size + 8) for 64-bit entries. This package takes those ranges as plain
// values (Range) so it does not depend on package paimon's Avro models.
//
// Readers here verify the CRC (Java does not) and report the index file and
// data file at fault. Nothing here panics on corrupt input.
package deletion

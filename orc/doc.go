// Package orc reads Apache ORC files (format version 0.11 and 0.12, the
// "ORC v1" specification) into Apache Arrow records, in pure Go.
//
// Open reads a file's tail (postscript, footer and stripe statistics);
// File.ReadStripe decodes one stripe and File.NewRecordReader iterates over
// all stripes in batches, skipping stripes whose statistics exclude the
// given bounds. Only the streams of the projected top-level columns are read.
//
// Supported: compression NONE, ZLIB, SNAPPY, LZ4 and ZSTD; integer RLE v1
// and v2, byte and boolean RLE, DIRECT and DICTIONARY string encodings,
// decimals, dates, timestamps (with and without instant semantics), binary,
// and the compound types struct, list and map. Type mapping to Arrow:
//
//	boolean→Boolean  tinyint→Int8  smallint→Int16  int→Int32  bigint→Int64
//	float→Float32  double→Float64  string/varchar/char→String  binary→Binary
//	date→Date32  timestamp→Timestamp(ns)  timestamp with local time zone→
//	Timestamp(ns, "UTC")  decimal(p,s)→Decimal128(p,s)  array→List
//	map→Map  struct→Struct
//
// Plain timestamps are wall-clock values: the seconds ORC stores relative to
// 2015-01-01 in the writer's time zone are converted back to that zone's
// wall clock and returned zone-less.
//
// Not supported: union types, non-struct root types, LZO compression,
// column encryption and the ORCv2 DECIMAL64 encoding; such files fail with
// an error when opened or read. Every length read from a file is checked
// against the file size or a fixed limit, so malformed input yields an
// error naming the file, stripe, column and stream rather than a panic.
package orc

package paimon

import (
	"fmt"
	"testing"
)

func BenchmarkDecodeManifest10k(b *testing.B) {
	entries := make([]ManifestEntry, 10000)
	for i := range entries {
		entries[i] = ManifestEntry{Partition: EmptyRowBytes(), Bucket: int32(i % 16), TotalBuckets: 16, File: DataFileMeta{
			FileName: fmt.Sprintf("data-%d.parquet", i), FileSize: 1000, RowCount: 100, MinKey: EmptyRowBytes(), MaxKey: EmptyRowBytes(),
			KeyStats: EmptyStats(), ValueStats: SimpleStats{MinValues: make([]byte, 64), MaxValues: make([]byte, 64), NullCounts: []*int64{Ptr[int64](0), Ptr[int64](1), nil}},
			ExtraFiles: []string{}, CreationTime: Ptr[int64](1), DeleteRowCount: Ptr[int64](0), FileSource: Ptr[int32](0),
		}}
	}
	data, err := EncodeManifest(entries, CodecZstandard, 1)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		n := 0
		if err := DecodeManifest("m", data, "avro", func(ManifestEntry) error { n++; return nil }); err != nil || n != len(entries) {
			b.Fatal(err, n)
		}
	}
}

package write

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/fileio"
)

// Manifest files are encoded and decoded by the root package's codec
// (paimon.EncodeManifest*, paimon.DecodeManifest*); the writer keeps its
// own in-memory structs (avro.go) and converts at this boundary.

// manifestCodec maps the manifest.compression option to an Avro codec.
func (t *Table) manifestCodec() (paimon.ManifestCodec, error) {
	switch c := strings.ToLower(t.schema.ManifestCompression()); c {
	case "", "zstd", "zstandard":
		return paimon.CodecZstandard, nil
	case "none", "null", "uncompressed":
		return paimon.CodecNull, nil
	case "deflate":
		return paimon.CodecDeflate, nil
	case "snappy":
		return paimon.CodecSnappy, nil
	default:
		return "", invalidf("manifest.compression %q is not supported (zstd, deflate, snappy, none)", c)
	}
}

func (t *Table) encodeManifest(entries []manifestEntry) ([]byte, error) {
	codec, err := t.manifestCodec()
	if err != nil {
		return nil, err
	}
	out := make([]paimon.ManifestEntry, len(entries))
	for i, e := range entries {
		out[i] = toPaimonEntry(e)
	}
	return paimon.EncodeManifest(out, codec, t.opts.zstdLevel)
}

func (t *Table) encodeManifestList(metas []manifestFileMeta) ([]byte, error) {
	codec, err := t.manifestCodec()
	if err != nil {
		return nil, err
	}
	out := make([]paimon.ManifestFileMeta, len(metas))
	for i, m := range metas {
		out[i] = paimon.ManifestFileMeta{FileName: m.FileName, FileSize: m.FileSize, NumAddedFiles: m.NumAddedFiles,
			NumDeletedFiles: m.NumDeletedFile, PartitionStats: paimon.SimpleStats(m.PartitionStats), SchemaID: m.SchemaID,
			MinBucket: m.MinBucket, MaxBucket: m.MaxBucket, MinLevel: m.MinLevel, MaxLevel: m.MaxLevel,
			MinRowID: m.MinRowID, MaxRowID: m.MaxRowID}
	}
	return paimon.EncodeManifestList(out, codec, t.opts.zstdLevel)
}

func (t *Table) encodeIndexManifest(entries []indexManifestEntry) ([]byte, error) {
	codec, err := t.manifestCodec()
	if err != nil {
		return nil, err
	}
	out := make([]paimon.IndexManifestEntry, len(entries))
	for i, e := range entries {
		f := paimon.IndexFileMeta{IndexType: e.IndexType, FileName: e.FileName, FileSize: e.FileSize,
			RowCount: e.RowCount, ExternalPath: e.ExternalPath}
		if e.DVRanges != nil {
			f.DVRanges = []paimon.DeletionVectorMeta{}
			for _, r := range *e.DVRanges {
				if r != nil {
					f.DVRanges = append(f.DVRanges, paimon.DeletionVectorMeta{DataFileName: r.DataFile, Offset: r.Offset, Length: r.Length, Cardinality: r.Cardinality})
				}
			}
		}
		if g := e.GlobalIndex; g != nil {
			f.GlobalIndex = &paimon.GlobalIndexMeta{RowRangeStart: g.RowRangeStart, RowRangeEnd: g.RowRangeEnd,
				IndexFieldID: g.IndexFieldID, IndexMeta: g.IndexMeta}
			if g.ExtraFieldIDs != nil {
				f.GlobalIndex.ExtraFieldIDs = *g.ExtraFieldIDs
			}
		}
		out[i] = paimon.IndexManifestEntry{Kind: paimon.FileKind(e.Kind), Partition: e.Partition, Bucket: e.Bucket, IndexFile: f}
	}
	return paimon.EncodeIndexManifest(out, codec, t.opts.zstdLevel)
}

func toPaimonEntry(e manifestEntry) paimon.ManifestEntry {
	f := e.File
	d := paimon.DataFileMeta{FileName: f.FileName, FileSize: f.FileSize, RowCount: f.RowCount, MinKey: f.MinKey, MaxKey: f.MaxKey,
		KeyStats: paimon.SimpleStats(f.KeyStats), ValueStats: paimon.SimpleStats(f.ValueStats),
		MinSequenceNumber: f.MinSequenceNumber, MaxSequenceNumber: f.MaxSequenceNumber, SchemaID: f.SchemaID, Level: f.Level,
		ExtraFiles: f.ExtraFiles, DeleteRowCount: f.DeleteRowCount, EmbeddedIndex: f.EmbeddedFileIndex, FileSource: f.FileSource,
		ExternalPath: f.ExternalPath, FirstRowID: f.FirstRowID}
	if d.ExtraFiles == nil {
		d.ExtraFiles = []string{}
	}
	if f.CreationTime != nil {
		ms := f.CreationTime.UnixMilli()
		d.CreationTime = &ms
	}
	if f.ValueStatsCols != nil {
		d.ValueStatsCols = append([]string{}, *f.ValueStatsCols...)
	}
	if f.WriteCols != nil {
		d.WriteCols = append([]string{}, *f.WriteCols...)
	}
	return paimon.ManifestEntry{Kind: paimon.FileKind(e.Kind), Partition: e.Partition, Bucket: e.Bucket, TotalBuckets: e.TotalBuckets, File: d}
}

func fromPaimonEntry(e paimon.ManifestEntry) manifestEntry {
	f := e.File
	d := dataFileMeta{FileName: f.FileName, FileSize: f.FileSize, RowCount: f.RowCount, MinKey: f.MinKey, MaxKey: f.MaxKey,
		KeyStats: simpleStats(f.KeyStats), ValueStats: simpleStats(f.ValueStats),
		MinSequenceNumber: f.MinSequenceNumber, MaxSequenceNumber: f.MaxSequenceNumber, SchemaID: f.SchemaID, Level: f.Level,
		ExtraFiles: f.ExtraFiles, DeleteRowCount: f.DeleteRowCount, EmbeddedFileIndex: f.EmbeddedIndex, FileSource: f.FileSource,
		ExternalPath: f.ExternalPath, FirstRowID: f.FirstRowID}
	if d.ExtraFiles == nil {
		d.ExtraFiles = []string{}
	}
	if f.CreationTime != nil {
		ct := time.UnixMilli(*f.CreationTime).UTC()
		d.CreationTime = &ct
	}
	if f.ValueStatsCols != nil {
		cols := append([]string{}, f.ValueStatsCols...)
		d.ValueStatsCols = &cols
	}
	if f.WriteCols != nil {
		cols := append([]string{}, f.WriteCols...)
		d.WriteCols = &cols
	}
	return manifestEntry{Version: 2, Kind: int32(e.Kind), Partition: e.Partition, Bucket: e.Bucket, TotalBuckets: e.TotalBuckets, File: d}
}

func readManifestList(ctx context.Context, fio fileio.FileIO, root, name string) ([]manifestFileMeta, error) {
	b, err := fio.ReadFile(ctx, root+"/manifest/"+name)
	if err != nil {
		return nil, fmt.Errorf("read manifest list %s: %w", name, err)
	}
	var out []manifestFileMeta
	err = paimon.DecodeManifestList(name, b, "avro", func(m paimon.ManifestFileMeta) error {
		out = append(out, manifestFileMeta{Version: 2, FileName: m.FileName, FileSize: m.FileSize, NumAddedFiles: m.NumAddedFiles,
			NumDeletedFile: m.NumDeletedFiles, PartitionStats: simpleStats(m.PartitionStats), SchemaID: m.SchemaID,
			MinBucket: m.MinBucket, MaxBucket: m.MaxBucket, MinLevel: m.MinLevel, MaxLevel: m.MaxLevel, MinRowID: m.MinRowID, MaxRowID: m.MaxRowID})
		return nil
	})
	return out, err
}

func readManifest(ctx context.Context, fio fileio.FileIO, root, name string) ([]manifestEntry, error) {
	b, err := fio.ReadFile(ctx, root+"/manifest/"+name)
	if err != nil {
		return nil, fmt.Errorf("read manifest %s: %w", name, err)
	}
	var out []manifestEntry
	err = paimon.DecodeManifest(name, b, "avro", func(e paimon.ManifestEntry) error {
		out = append(out, fromPaimonEntry(e))
		return nil
	})
	return out, err
}

func readIndexManifest(ctx context.Context, fio fileio.FileIO, root, name string) ([]indexManifestEntry, error) {
	b, err := fio.ReadFile(ctx, root+"/manifest/"+name)
	if err != nil {
		return nil, fmt.Errorf("read index manifest %s: %w", name, err)
	}
	var out []indexManifestEntry
	err = paimon.DecodeIndexManifest(name, b, "avro", func(e paimon.IndexManifestEntry) error {
		f := e.IndexFile
		ie := indexManifestEntry{Version: 1, Kind: int32(e.Kind), Partition: e.Partition, Bucket: e.Bucket, IndexType: f.IndexType,
			FileName: f.FileName, FileSize: f.FileSize, RowCount: f.RowCount, ExternalPath: f.ExternalPath}
		if f.DVRanges != nil {
			rs := make([]*dvRange, len(f.DVRanges))
			for i, r := range f.DVRanges {
				rs[i] = &dvRange{DataFile: r.DataFileName, Offset: r.Offset, Length: r.Length, Cardinality: r.Cardinality}
			}
			ie.DVRanges = &rs
		}
		if g := f.GlobalIndex; g != nil {
			ie.GlobalIndex = &globalIndex{RowRangeStart: g.RowRangeStart, RowRangeEnd: g.RowRangeEnd, IndexFieldID: g.IndexFieldID, IndexMeta: g.IndexMeta}
			if g.ExtraFieldIDs != nil {
				ids := append([]int32{}, g.ExtraFieldIDs...)
				ie.GlobalIndex.ExtraFieldIDs = &ids
			}
		}
		out = append(out, ie)
		return nil
	})
	return out, err
}

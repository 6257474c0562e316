package write

import (
	"context"
	"fmt"
	"github.com/paimon-flightsql/paimon-flightsql/paimon"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/paimon/format"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// readFile streams the given fields of a live data file to fn (batches are
// owned by the reader; fn must Retain what it keeps). firstRow is the file
// position of the batch's first row.
func (t *Table) readFile(ctx context.Context, mem memory.Allocator, e *paimon.ManifestEntry, fields []types.DataField, fn func(rec arrow.RecordBatch, firstRow int64) error) error {
	p, err := t.dataFilePath(e.Partition, int(e.Bucket), e.File.FileName)
	if err != nil {
		return err
	}
	fileSchema, err := t.meta.Schema(ctx, e.File.SchemaID)
	if err != nil {
		return fmt.Errorf("data file %s: %w", p, err)
	}
	f, err := t.io.Open(ctx, p)
	if err != nil {
		return fmt.Errorf("open data file %s: %w", p, err)
	}
	defer f.Close()
	df, err := format.Open(f, f.Size(), e.File.FileName, fileSchema.Fields)
	if err != nil {
		return fmt.Errorf("data file %s: %w", p, err)
	}
	rr, err := df.Read(ctx, format.ReadOptions{Fields: fields, Allocator: mem})
	if err != nil {
		return fmt.Errorf("read data file %s: %w", p, err)
	}
	defer rr.Release()
	for rr.Next() {
		if err := fn(rr.RecordBatch(), rr.FirstRow()); err != nil {
			return err
		}
	}
	if err := rr.Err(); err != nil {
		return fmt.Errorf("read data file %s: %w", p, err)
	}
	return nil
}

// dvIndex is the deletion-vector state of a snapshot: per data file its
// bitmap and the index file holding it.
type dvIndex struct {
	entries []paimon.IndexManifestEntry // DELETION_VECTORS entries of the index manifest
	dvs     map[string]*roaring.Bitmap  // data file name → deleted positions
	holder  map[string]string           // data file name → index file name
}

func (t *Table) loadDVs(ctx context.Context, idx []paimon.IndexManifestEntry) (*dvIndex, error) {
	out := &dvIndex{dvs: map[string]*roaring.Bitmap{}, holder: map[string]string{}}
	for _, e := range idx {
		if e.IndexFile.IndexType != dvIndexType || e.Kind != paimon.FileKindAdd {
			continue
		}
		out.entries = append(out.entries, e)
		if len(e.IndexFile.DVRanges) == 0 {
			continue
		}
		var p string
		if e.IndexFile.ExternalPath != nil {
			return nil, fmt.Errorf("index file %s has an external path, which the writer does not support", e.IndexFile.FileName)
		}
		if t.schema.IndexFileInDataFileDir() {
			d, err := t.bucketDir(e.Partition, int(e.Bucket))
			if err != nil {
				return nil, err
			}
			p = d + "/" + e.IndexFile.FileName
		} else {
			p = t.indexPath(e.IndexFile.FileName)
		}
		data, err := t.io.ReadFile(ctx, p)
		if err != nil {
			return nil, fmt.Errorf("read deletion vector index %s: %w", p, err)
		}
		vecs, err := decodeDVIndex(e.IndexFile.FileName, data, e.IndexFile.DVRanges)
		if err != nil {
			return nil, err
		}
		for name, bm := range vecs {
			out.dvs[name] = bm
			out.holder[name] = e.IndexFile.FileName
		}
	}
	return out, nil
}

package scan

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/fileio"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/format"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// blobFallback reads one BLOB column of a data-evolution group from blob
// files written at different times (Java BlobFallbackRecordReader): files
// of one max sequence number never overlap; a newer file may cover only
// some rows, and its placeholder values defer to older files. Each row takes
// the value of the newest file covering it that is not a placeholder (NULL
// included); a row no such file covers is NULL.
type blobFallback struct {
	r      *reader
	field  types.DataField
	schema *arrow.Schema
	files  []blobFallbackFile // newest first, then by first row id
	first  int64              // the group's first row id
	rows   int64
	pos    int64 // next group position to return
}

type blobFallbackFile struct {
	meta  *paimon.DataFileMeta
	file  *format.BlobFile
	close func() error
}

func newBlobFallback(r *reader, sp *Split, files []*paimon.DataFileMeta, fields []types.DataField, first, rows int64) (*blobFallback, error) {
	if len(fields) != 1 {
		return nil, fmt.Errorf("%w: blob files read %d columns, want 1", paimon.ErrCorrupt, len(fields))
	}
	owner := sp.scan(r.s)
	fb := &blobFallback{r: r, field: fields[0], schema: OutputSchema(fields), first: first, rows: rows}
	sorted := append([]*paimon.DataFileMeta(nil), files...)
	sort.SliceStable(sorted, func(a, b int) bool {
		if sorted[a].MaxSequenceNumber != sorted[b].MaxSequenceNumber {
			return sorted[a].MaxSequenceNumber > sorted[b].MaxSequenceNumber
		}
		return *sorted[a].FirstRowID < *sorted[b].FirstRowID
	})
	for i, f := range sorted {
		if i > 0 {
			prev := sorted[i-1]
			if prev.MaxSequenceNumber == f.MaxSequenceNumber && *prev.FirstRowID+prev.RowCount > *f.FirstRowID {
				fb.Close()
				return nil, fmt.Errorf("%w: blob files %s and %s of the same max sequence number overlap", paimon.ErrCorrupt, prev.FileName, f.FileName)
			}
		}
		p, err := owner.DataFilePath(sp, f)
		if err != nil {
			fb.Close()
			return nil, err
		}
		h, err := owner.table.FileIO().Open(r.ctx, p)
		if err != nil {
			fb.Close()
			return nil, fmt.Errorf("blob file %s: %w", p, err)
		}
		bf, err := format.OpenBlob(h, h.Size(), p)
		if err != nil {
			h.Close()
			fb.Close()
			return nil, err
		}
		if bf.NumRows() != f.RowCount {
			h.Close()
			fb.Close()
			return nil, fmt.Errorf("%w: blob file %s holds %d rows, its manifest entry says %d", paimon.ErrCorrupt, p, bf.NumRows(), f.RowCount)
		}
		fb.files = append(fb.files, blobFallbackFile{meta: f, file: bf, close: closerOf(h)})
	}
	return fb, nil
}

func closerOf(h fileio.File) func() error { return h.Close }

// Next returns the next batch of the column (nil at the end of the group).
func (fb *blobFallback) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if fb.pos >= fb.rows {
		return nil, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	n := min(fb.rows-fb.pos, int64(fb.r.s.opts.BatchSize))
	b := array.NewBinaryBuilder(fb.r.mem, arrow.BinaryTypes.Binary)
	defer b.Release()
	for i := int64(0); i < n; i++ {
		id := fb.first + fb.pos + i
		var v []byte
		found := false
		for _, f := range fb.files {
			start := *f.meta.FirstRowID
			if id < start || id >= start+f.meta.RowCount {
				continue
			}
			at := int(id - start)
			if f.file.IsPlaceholder(at) {
				continue
			}
			var err error
			if v, err = f.file.Value(at); err != nil && !errors.Is(err, format.ErrBlobPlaceholder) {
				return nil, err
			}
			found = true
			break
		}
		if !found || v == nil {
			b.AppendNull()
		} else {
			b.Append(v)
		}
	}
	a := b.NewArray()
	defer a.Release()
	fb.pos += n
	return array.NewRecordBatch(fb.schema, []arrow.Array{a}, n), nil
}

// Close closes the blob files.
func (fb *blobFallback) Close() {
	for _, f := range fb.files {
		f.close()
	}
	fb.files = nil
}
